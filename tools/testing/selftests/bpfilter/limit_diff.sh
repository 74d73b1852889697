#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test of -m limit (issue 11) on this host: the same limit
# rules and the same bursts of UDP packets through ip_tables (xt_limit) in
# one namespace and through bpfilter's BPF programs in another. The token
# bucket's burst, its refill over a pause and its rounding must give equal
# counters on every rule; then a replace must reset the buckets as the
# kernel's does. Prints "limit-diff: N rules, M mismatches".
set -u
cd "$(dirname "$0")/../../../.."
. scripts/tap.sh
. tools/testing/selftests/bpfilter/lib/diff.sh
tag=lmd$$

# Credits count HZ jiffies.
if ! diff_hz; then
	echo "# this kernel's HZ is unknown (no /proc/config.gz or /boot/config)"
	ok 1 "the kernel's HZ is known"
	tap_totals
	exit 1
fi
diff_start $tag
diff_netns="${tag}K ${tag}H"

rules=/tmp/$tag.rules
cat > $rules <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p udp -m udp --dport 9 -m limit --limit 1/hour --limit-burst 3 -j ACCEPT
-A OUTPUT -p udp -m udp --dport 9 -m limit --limit 4/sec --limit-burst 2
-A OUTPUT -p udp -m udp --dport 9 -m limit --limit 7/min
-A OUTPUT -p udp -m udp --dport 9 -m limit --limit 1/hour --limit-burst 1 -m limit --limit 1/min
-A OUTPUT -p udp -m udp --dport 9 -j DROP
COMMIT
RULES
# Bursts of 12 datagrams (milliseconds each), 0.6 s apart: the 4/sec bucket
# refills to its burst between them and never within one; the others do not
# refill during the test. Timing-independent by design.
send() {
	local i j
	for i in 1 2 3; do
		for j in 1 2 3 4 5 6 7 8 9 10 11 12; do
			echo x > /dev/udp/127.0.0.1/9
		done 2> /dev/null
		sleep 0.6
	done
}
for s in K H; do
	ip netns add $tag$s
	ip -n $tag$s link set lo up
	ipt $s $tag$s iptables-legacy-restore $rules
	ok $? "$s: restore the limit rules"
done
# Both sides at once, so that they see the same clock.
ipt K ${tag}K bash -c "$(declare -f send); send" &
ipt H ${tag}H bash -c "$(declare -f send); send"
wait
# A replace (-Z is one) makes new buckets: full again.
for s in K H; do
	ipt $s $tag$s iptables-legacy -Z OUTPUT
done
ipt K ${tag}K bash -c "$(declare -f send); send" &
ipt H ${tag}H bash -c "$(declare -f send); send"
wait
diff_saves ${tag}K ${tag}H
sed 's/^/# K: /' "$diff_saveK"
diff_compare
echo "limit-diff: $(grep -c . "$diff_saveK") rules, $mism mismatches"
tap_totals
