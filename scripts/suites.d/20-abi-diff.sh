#!/bin/bash
# Differential ABI test against this kernel's real ip_tables (needs root and
# iptables-legacy): build/selftests/test_abi_diff with the helper, then again
# with the ASan/UBSan helper (build/helper-asan/bpfilter_umh) if it was built.
# A sanitizer report in the second run fails the suite.
set -u
cd "$(dirname "$0")/../.."

test=build/selftests/test_abi_diff
asan_helper=build/helper-asan/bpfilter_umh
rc=0

# The test records iptables-legacy through the shim: make sure it is built.
if ! make -s -f mk/shim.mk SRCTREE="$PWD" BUILD="$PWD/build" shim; then
	echo "# abi-diff: cannot build the shim (make shim)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
if [ ! -x "$test" ]; then
	echo "# abi-diff: $test is missing (make selftests)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "# abi-diff: needs root (network namespaces, real ip_tables)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi

echo "# abi-diff: helper net/bpfilter/bpfilter_umh"
ABI_MISMATCH_LOG=build/logs/abi-mismatches.log "$test" || rc=1

if [ -x "$asan_helper" ]; then
	echo "# abi-diff: again with the ASan/UBSan helper $asan_helper"
	log=$(mktemp)
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	BPFILTER_HELPER="$asan_helper" ABI_MISMATCH_LOG=build/logs/abi-mismatches-asan.log \
		"$test" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		echo "# abi-diff: sanitizer report from the ASan helper (see above)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
	fi
	rm -f "$log"
else
	echo "# abi-diff: note: $asan_helper not built, ASan run skipped"
fi
exit $rc
