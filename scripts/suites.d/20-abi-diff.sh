#!/bin/bash
# Differential ABI tests against this kernel's real ip_tables and ip6_tables
# (needs root, iptables-legacy and ip6tables-legacy):
# build/selftests/test_abi_diff (ip_tables, "abi-diff: N cases, M
# mismatches") and then build/selftests/test_abi_diff6 (ip6_tables,
# "abi-diff6: ..."). Each runs once, with the ASan/UBSan helper
# (build/helper-asan/bpfilter_umh) when there is one (the same comparisons,
# with the sanitizers on), else with the helper, to keep make check's time:
# the shipped helper's own build runs in every VM test. A sanitizer report
# fails the suite. ABI_DIFF_BOTH=1 runs IPv4 with both helpers.
set -u
cd "$(dirname "$0")/../.."

asan_helper=build/helper-asan/bpfilter_umh
rc=0

fail() {
	echo "# abi-diff: $*"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
}

# The tests record iptables-legacy through the shim: make sure it is built.
make -s -f mk/shim.mk SRCTREE="$PWD" BUILD="$PWD/build" shim ||
	fail "cannot build the shim (make shim)"
for test in build/selftests/test_abi_diff build/selftests/test_abi_diff6; do
	[ -x "$test" ] || fail "$test is missing (make selftests)"
done
[ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces, real ip_tables)"

# run_diff TEST LOGNAME [asan-only]: the helper, then the ASan helper;
# with asan-only, the plain helper only when the ASan one is not built.
run_diff() {
	local test=$1 logname=$2 only=${3:-} log

	if [ "$only" != asan-only ] || [ ! -x "$asan_helper" ]; then
		echo "# $logname: $test with the helper net/bpfilter/bpfilter_umh"
		ABI_MISMATCH_LOG=build/logs/$logname-mismatches.log "$test" || rc=1
	fi
	if [ ! -x "$asan_helper" ]; then
		echo "# $logname: note: $asan_helper not built, ASan run skipped"
		return
	fi
	echo "# $logname: again with the ASan/UBSan helper $asan_helper"
	log=$(mktemp)
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	BPFILTER_HELPER="$asan_helper" ABI_MISMATCH_LOG=build/logs/$logname-mismatches-asan.log \
		"$test" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		echo "# $logname: sanitizer report from the ASan helper (see above)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
	fi
	rm -f "$log"
}

mkdir -p build/logs
run_diff build/selftests/test_abi_diff abi "$([ -n "${ABI_DIFF_BOTH:-}" ] || echo asan-only)"
run_diff build/selftests/test_abi_diff6 abi6 asan-only
exit $rc
