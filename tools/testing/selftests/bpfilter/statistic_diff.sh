#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test of -m statistic and -m cpu (issue 12) on this host: the
# same rules and the same ICMP echoes over lo, sent from one pinned CPU,
# through ip_tables (xt_statistic, xt_cpu) in one namespace and through
# bpfilter's BPF programs in another. nth counting (with --packet offsets
# and inversion), random with probabilities 0 and 1, and cpu must give equal
# counters on every rule, also after a replace, which starts the nth
# counters again from --packet as checkentry does. Random at 0.5 is drawn
# from different generators on each side: its count must only be
# plausible. Prints "statistic-diff: N rules, M mismatches".
set -u
cd "$(dirname "$0")/../../../.."
. scripts/tap.sh
. tools/testing/selftests/bpfilter/lib/diff.sh
tag=std$$
diff_start $tag
diff_netns="${tag}K ${tag}H"
cpus=$(nproc)
last=$((cpus - 1))
rules=/tmp/$tag.rules
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	echo ':nth - [0:0]'
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -j nth'
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -m cpu --cpu 0'
	echo "-A OUTPUT -p icmp -m icmp --icmp-type 8 -m cpu --cpu $last"
	echo "-A OUTPUT -p icmp -m icmp --icmp-type 8 -m cpu ! --cpu $last"
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -m statistic --mode random --probability 0'
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -m statistic --mode random --probability 1'
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -m statistic --mode random ! --probability 1'
	echo '-A OUTPUT -p icmp -m icmp --icmp-type 8 -m statistic --mode random ! --probability 0'
	echo '-A nth -m statistic --mode nth --every 2 --packet 0'
	echo '-A nth -m statistic --mode nth --every 3 --packet 1'
	echo '-A nth -m statistic --mode nth --every 3 --packet 2'
	echo '-A nth -m statistic --mode nth ! --every 4 --packet 3'
	echo '-A nth -m statistic --mode nth --every 1 --packet 0'
	echo '-A nth -m statistic --mode nth --every 7 --packet 6 -j RETURN'
	echo '-A nth -m statistic --mode nth --every 5 --packet 4'
	echo 'COMMIT'
} > $rules
for s in K H; do
	ip netns add $tag$s
	ip -n $tag$s link set lo up
	ipt $s $tag$s iptables-legacy-restore $rules
	ok $? "$s: restore the statistic and cpu rules"
done
# send N CPU: N echo requests from CPU (pinned), each its own ping.
send() {
	local i
	for i in $(seq 1 "$1"); do
		taskset -c "$2" busybox ping -c 1 -W 1 127.0.0.1 > /dev/null 2>&1
	done
}
for s in K H; do
	ipt $s $tag$s bash -c "$(declare -f send); send 23 $last"
	# A replace starts every nth counter again; the counters carry over.
	ipt $s $tag$s iptables-legacy -A OUTPUT -p udp
	ipt $s $tag$s bash -c "$(declare -f send); send 11 0"
done
diff_saves ${tag}K ${tag}H
nrules=$(grep -c . "$diff_saveK")
[ "$nrules" = 16 ]
ok $? "ip_tables counted the 16 rules ($nrules)"
sed 's/^/# K: /' "$diff_saveK"
diff_compare
echo "statistic-diff: $nrules rules, $mism mismatches"

# Random at 0.5 over 200 echoes: each side's count within [60, 140]
# (outside with probability below 1e-8 for a fair draw).
cat > $rules <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p icmp -m icmp --icmp-type 8 -m statistic --mode random --probability 0.5
COMMIT
RULES
for s in K H; do
	ipt $s $tag$s iptables-legacy-restore $rules
	ipt $s $tag$s bash -c "$(declare -f send); send 200 0"
	got=$(ipt $s $tag$s iptables-legacy -nvxL OUTPUT | awk 'NR == 3 { print $1 }')
	[ "${got:-0}" -ge 60 ] && [ "${got:-0}" -le 140 ]
	ok $? "$s: --probability 0.5 matched ${got:-none} of 200"
done
tap_totals
