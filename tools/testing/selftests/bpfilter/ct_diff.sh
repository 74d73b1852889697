#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test of -m conntrack and -m state (issue 11) on this host,
# whose kernel has conntrack and xt_conntrack built in: the same ruleset and
# the same traffic on two sides, and every rule's counters must be equal.
#
#   K: client cK --veth-- server sK, stock iptables-legacy (ip_tables with
#      xt_conntrack; its checkentry turns conntrack on)
#   H: client cH --veth-- server sH, the same iptables through the shim and
#      bpfilter-hostd -C (the helper's BPF programs; an nftables ct rule keeps
#      conntrack on in sH, as bpfilter.ko's hold does)
#
# The server ruleset has one counting rule per option and inversion of both
# matches (states, SNAT/DNAT, direction, protocol, the four addresses with
# masks, the four ports, exact (revision 1 payloads are not sent by this
# iptables) and ranges, status bits, expiry). The traffic: TCP connections
# to an open and a closed port, pings both ways, a SYN|FIN (INVALID), and a
# network unreachable for the server's own echo (RELATED). Prints
# "conntrack-diff: N rules, M mismatches".
set -u
cd "$(dirname "$0")/../../../.."
. scripts/tap.sh
. tools/testing/selftests/bpfilter/lib/diff.sh
tag=ctd$$
flags=build/vm/bin/tcp_flags

[ -x "$flags" ] || make -s vm-bins > /dev/null
# --ctexpire counts in seconds of HZ jiffies.
diff_hz
diff_start $tag -C

for s in K H; do
	c=${tag}c$s
	v=${tag}s$s
	diff_pair $s
	# No delayed ACKs: which segment carries an ACK must not depend on timing.
	ip -n $c route replace 10.88.0.0/24 dev ${tag}$s quickack 1
	ip -n $v route replace 10.88.0.0/24 dev ${tag}$s quickack 1
	# The server's echo to 10.99.99.1 goes through the client, which has no route.
	ip netns exec $c sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
	ip -n $v route add 10.99.99.0/24 via 10.88.0.1
	ip netns exec $v busybox nc -ll -p 5001 -e /bin/true &
	diff_pids="$diff_pids $!"
done
printf 'table ip ct_on {\n chain c {\n  type filter hook prerouting priority -400;\n  ct state invalid counter\n }\n}\n' |
	ip netns exec ${tag}sH nft -f -
ok $? "conntrack on in sH (nftables ct rule)"

rules=/tmp/$tag.rules
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	for chain in INPUT OUTPUT; do
		for m in \
			"-m conntrack --ctstate NEW" "-m conntrack --ctstate ESTABLISHED" \
			"-m conntrack --ctstate RELATED" "-m conntrack --ctstate INVALID" \
			"-m conntrack --ctstate UNTRACKED" "-m conntrack ! --ctstate NEW,ESTABLISHED" \
			"-m conntrack --ctstate SNAT" "-m conntrack ! --ctstate DNAT" \
			"-m conntrack --ctstate ESTABLISHED,SNAT" "-m conntrack --ctdir ORIGINAL" \
			"-m conntrack --ctdir REPLY" "-m conntrack --ctproto tcp" \
			"-m conntrack ! --ctproto icmp" "-m conntrack --ctorigsrc 10.88.0.1" \
			"-m conntrack --ctorigsrc 10.88.0.0/24" "-m conntrack ! --ctorigdst 10.88.0.2" \
			"-m conntrack --ctreplsrc 10.88.0.2" "-m conntrack ! --ctrepldst 10.88.0.1/32" \
			"-m conntrack --ctorigdstport 5001" "-m conntrack --ctorigdstport 5000:5010" \
			"-m conntrack ! --ctorigsrcport 1:1024" "-m conntrack --ctreplsrcport 5001" \
			"-m conntrack --ctrepldstport 1024:65535" "-m conntrack --ctstatus ASSURED" \
			"-m conntrack --ctstatus SEEN_REPLY" "-m conntrack ! --ctstatus CONFIRMED" \
			"-m conntrack --ctstatus EXPECTED,ASSURED" "-m conntrack --ctexpire 0:100" \
			"-m conntrack ! --ctexpire 0:100" "-m conntrack --ctstate NEW --ctproto tcp --ctdir ORIGINAL" \
			"-m state --state NEW,ESTABLISHED" "-m state --state INVALID" \
			"-m state --state RELATED" "-m state --state UNTRACKED" \
			"-p tcp -m conntrack --ctstate ESTABLISHED -m state ! --state NEW"; do
			echo "-A $chain $m"
		done
	done
	echo 'COMMIT'
} > $rules
diff_restore $rules "conntrack and state"

traffic() {
	local c=${tag}c$1 v=${tag}s$1 i
	# The server closes first, then the client: no simultaneous close, whose
	# packets depend on timing.
	for i in 1 2 3; do
		ip netns exec $c sh -c 'sleep 0.5 | busybox nc -w 2 10.88.0.2 5001' > /dev/null 2>&1
	done
	ip netns exec $c busybox nc -w 2 10.88.0.2 5009 < /dev/null > /dev/null 2>&1
	ip netns exec $c busybox ping -c 2 -W 1 10.88.0.2 > /dev/null 2>&1
	ip netns exec $v busybox ping -c 1 -W 1 10.88.0.1 > /dev/null 2>&1
	ip netns exec $c "$flags" 10.88.0.1 10.88.0.2 4000 5001 0x03
	ip netns exec $v busybox ping -c 1 -W 1 10.99.99.1 > /dev/null 2>&1
	sleep 1
}
traffic K
traffic H

diff_report conntrack-diff $nrules $((nrules / 2))
tap_totals
