#!/bin/bash
# Differential verdicts (issue 4): random rulesets applied with stock
# iptables-legacy-restore to the kernel's ip_tables in one set of namespaces
# and through the shim + bpfilter-hostd (bpf backend) in another; the same
# packets through INPUT, FORWARD and OUTPUT of both; outcomes and
# iptables-legacy-save -c must be identical. Mismatches are also written to
# /tmp/verdict-mismatches.txt.
#
# edit_sequences (issue 30) loads a random ruleset, then applies eight
# edits one after the other, each followed by packets and both sides'
# -c dumps: rules inserted and deleted at the top, middle and end, chains
# added with a jump, removed, renamed and emptied, a chain of -d rules
# resized across the fold threshold, kube-proxy's partial sync of a run of
# jumps (iptables-restore --noflush) resized across the threshold of folded
# jump runs and reached from INPUT and FORWARD, -Z and -P; every kind must
# have been taken by both sides, and packets counted by both runs' rules.
#
# random_ext_rulesets does the same with the comment, multiport, iprange,
# mark, length, ttl, tos, dscp, ah, esp, pkttype, devgroup, realm, mac, ecn,
# tcpmss and u32 matches and -p sctp/dccp/udplite/ah/esp; for the last four T's devices are
# in groups and its routes have realms, and S also sends whole frames
# (broadcast, multicast, other source MACs) from a packet socket. It prints
# "verdict-diff-ext: N cases, M mismatches".
#
# random_stateful_rulesets (issue 11) adds -m conntrack (every option),
# -m state and -m connmark (T's nftables table marks flows' entries) to the
# rules and sends flows instead of single packets: TCP
# handshakes, data and closes, UDP requests and replies, ICMP echoes, ICMP
# errors (RELATED), out-of-window and flowless segments (INVALID), untracked
# ports, flows through NAT (SNAT, DNAT), so that later packets' verdicts
# depend on conntrack state. Conntrack is on in both T (an nftables table,
# as ct_diff.sh does; hostd -C); prints "verdict-diff-ct: N cases,
# M mismatches" (about 45 s on 2 cores).
#
# Then test_verdict_diff6 does it for IPv6 with stock ip6tables-legacy-restore
# against the kernel's ip6_tables: addresses with prefixes, interfaces,
# -p tcp/udp/ipv6-icmp/ipv6-nonxt/esp/all and numbers, ports, tcp flags,
# icmpv6 types, multiport, user chains; packets through INPUT, FORWARD and
# OUTPUT behind chains of extension headers (hop-by-hop, destination
# options, routing, AH, fragments, non-first fragments followed by another
# extension header), cut short in an extension or transport header, next
# header NONE; prints "verdict-diff6: N cases, M mismatches" (about 45 s) and
# writes mismatches to build/logs/verdict-mismatches6.txt.
#
# VERDICT_DIFF_CASES (default 3000; the test fails below 1000),
# VERDICT_DIFF6_CASES (default 4000; it fails below 1000),
# VERDICT_DIFF_EXT_CASES (default 6000; it fails below 3000),
# VERDICT_DIFF_CT_CASES (default 5000; it fails below 1000) and
# VERDICT_DIFF_SEED (default 1) select a longer or different run;
# VERDICT_DIFF_TIMEOUT bounds it (default 600 s).
set -u
cd "$(dirname "$0")/../.."
bin=build/selftests/test_verdict_diff
bin6=build/selftests/test_verdict_diff6
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
for b in "$bin" "$bin6"; do
	[ -x "$b" ] || make -s "$PWD/$b" >/dev/null
done
if [ ! -x "$bin" ] || [ ! -x "$bin6" ] || [ ! -f build/shim/bpfilter_shim.so ]; then
	echo "not ok 1 - $bin, $bin6 or the shim is missing (make selftests shim)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
# $1: the binary, $2: the namespace prefix it uses (T/S, K/H and its pid follow).
run_one()
{
	local rc

	timeout -k 10 "${VERDICT_DIFF_TIMEOUT:-600}" "$1"
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		# Killed: its namespaces are left behind.
		for ns in $(ip netns list | awk -v p="^$2[TS][KH][0-9]+( |\$)" '$0 ~ p { print $1 }'); do
			ip netns del "$ns"
		done
		echo "not ok 1 - $(basename "$1") timed out"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	fi
	return $rc
}
run_one "$bin" vd
rc=$?
run_one "$bin6" v6 || rc=$?
exit $rc
