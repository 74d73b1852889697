#!/bin/bash
# The helper's unit tests again, built with ASan/UBSan: any sanitizer report fails.
set -u
cd "$(dirname "$0")/../.."
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rc=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in test_io test_table test_rule test_match test_target test_sockopt; do
	bin=build/selftests-asan/$t
	echo "# helper-asan: $t"
	if [ ! -x "$bin" ]; then
		echo "not ok - $t: $bin missing (run make selftests)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
		continue
	fi
	# The mbox loop test runs the ASan build of the helper binary too.
	BPFILTER_HELPER=$PWD/build/helper-asan/bpfilter_umh "$bin" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: .*Sanitizer" "$log"; then
		echo "not ok - $t: sanitizer report"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
	fi
done
exit $rc
