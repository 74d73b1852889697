#!/bin/bash
# Differential verdicts (issue 4): random rulesets applied with stock
# iptables-legacy-restore to the kernel's ip_tables in one set of namespaces
# and through the shim + bpfilter-hostd (bpf backend) in another; the same
# packets through INPUT, FORWARD and OUTPUT of both; outcomes and
# iptables-legacy-save -c must be identical. Mismatches are also written to
# /tmp/verdict-mismatches.txt.
#
# random_ext_rulesets does the same with the comment, multiport, iprange,
# mark, length, ttl, tos, dscp, ah and esp matches and -p sctp/dccp/udplite/
# ah/esp, and prints "verdict-diff-ext: N cases, M mismatches".
#
# VERDICT_DIFF_CASES (default 3000; the test fails below 1000),
# VERDICT_DIFF_EXT_CASES (default 6000; it fails below 3000) and
# VERDICT_DIFF_SEED (default 1) select a longer or different run;
# VERDICT_DIFF_TIMEOUT bounds it (default 600 s).
set -u
cd "$(dirname "$0")/../.."
bin=build/selftests/test_verdict_diff
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
if [ ! -x "$bin" ]; then
	make -s "$PWD/$bin" >/dev/null
fi
if [ ! -x "$bin" ] || [ ! -f build/shim/bpfilter_shim.so ]; then
	echo "not ok 1 - $bin or the shim is missing (make selftests shim)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
timeout -k 10 "${VERDICT_DIFF_TIMEOUT:-600}" "$bin"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	# Killed: its namespaces (vdT/vdS + K/H + its pid) are left behind.
	for ns in $(ip netns list | awk '/^vd[TS][KH][0-9]+( |$)/ { print $1 }'); do
		ip netns del "$ns"
	done
	echo "not ok 1 - test_verdict_diff timed out"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
fi
exit $rc
