#!/bin/bash
# The helper's unit tests (kselftest harness), built by `make selftests`.
set -u
cd "$(dirname "$0")/../.."
rc=0
# The helper the module embeds must be one static executable.
if file net/bpfilter/bpfilter_umh 2>/dev/null | grep -q "statically linked"; then
	echo "ok 1 bpfilter_umh is statically linked"
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
else
	echo "not ok 1 bpfilter_umh is statically linked: $(file net/bpfilter/bpfilter_umh 2>&1)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	rc=1
fi
for t in test_io test_table test_rule test_match test_target test_sockopt; do
	bin=build/selftests/$t
	echo "# helper-unit: $t"
	if [ ! -x "$bin" ]; then
		echo "not ok - $t: $bin missing (run make selftests)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
		continue
	fi
	BPFILTER_HELPER=$PWD/net/bpfilter/bpfilter_umh "$bin" || rc=1
done
exit $rc
