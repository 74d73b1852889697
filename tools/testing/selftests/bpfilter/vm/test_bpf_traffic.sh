#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Real packets judged by the filter table (issue 4; written by engineer E):
# with bpfilter, by the BPF programs the helper attaches at the netfilter
# hooks; with ip_tables, by the kernel's own table (the reference). Three
# namespaces over veth pairs, a router in the middle:
#
#   A 10.252.1.1 --- 10.252.1.2 R 10.252.2.2 --- 10.252.2.1 B
#
# INPUT rules in B, OUTPUT rules in A, FORWARD rules in R, stock
# iptables-legacy in each namespace; ping and TCP connects (busybox nc)
# delivered or blocked, counters from -nvxL, bpftool showing the named
# programs, a refused rule leaving the old ones in force, rule changes under
# continuous traffic losing nothing, and (bpfilter) a killed helper leaving
# the rules enforced.
. "$(dirname "$0")/lib.sh"

A=trA
R=trR
B=trB
NA="$IP netns exec $A"
NR="$IP netns exec $R"
NB="$IP netns exec $B"

cleanup()
{
	for n in $A $R $B; do $IP netns del $n 2>/dev/null; done
	[ -n "${srv:-}" ] && kill $srv 2>/dev/null
	[ -n "${srv2:-}" ] && kill $srv2 2>/dev/null
}


ping_ok()
{
	$IP netns exec "$1" ping -c 1 -W 2 "$2" > /dev/null 2>&1
}

ping_blocked()
{
	! ping_ok "$@"
}

tcp_ok()
{
	$NA sh -c "nc -w 3 $1 $2 < /dev/null" > /dev/null 2>&1
}

tcp_blocked()
{
	! tcp_ok "$@"
}

cleanup
for n in $A $R $B; do
	$IP netns add $n
	$IP -n $n link set lo up
done
$IP link add trA0 netns $A type veth peer name trRa netns $R
$IP link add trB0 netns $B type veth peer name trRb netns $R
$IP -n $A addr add 10.252.1.1/24 dev trA0
$IP -n $R addr add 10.252.1.2/24 dev trRa
$IP -n $R addr add 10.252.2.2/24 dev trRb
$IP -n $B addr add 10.252.2.1/24 dev trB0
$IP -n $A link set trA0 up
$IP -n $R link set trRa up
$IP -n $R link set trRb up
$IP -n $B link set trB0 up
$IP -n $A route add default via 10.252.1.2
$IP -n $B route add default via 10.252.2.2
$NR sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
$NB nc -ll -p 5003 -e /bin/true &
srv=$!
$NB nc -ll -p 5004 -e /bin/true &
srv2=$!
sleep 1

ok_if "baseline: A pings B through R" ping_ok $A 10.252.2.1
ok_if "baseline: TCP connect A -> B:5004" tcp_ok 10.252.2.1 5004

# INPUT in B
check "B: -A INPUT -p icmp -j DROP" 0 $NB $IPT -w -A INPUT -p icmp -j DROP
ok_if "INPUT: ping to B blocked" ping_blocked $A 10.252.2.1
ok_if "INPUT: the rule counted 1 packet" test "$(pkts $B INPUT 1)" = 1
check "B: -D INPUT 1" 0 $NB $IPT -w -D INPUT 1
ok_if "INPUT: ping passes again" ping_ok $A 10.252.2.1
check "B: --syn to 5003 dropped" 0 $NB $IPT -w -A INPUT -p tcp --dport 5003 --syn -j DROP
ok_if "INPUT: connect to 5003 blocked" tcp_blocked 10.252.2.1 5003
ok_if "INPUT: connect to 5004 works" tcp_ok 10.252.2.1 5004
ok_if "INPUT: the --syn rule counted SYNs" test "$(pkts $B INPUT 1)" -ge 1
check "B: -F" 0 $NB $IPT -w -F

# OUTPUT in A
check "A: -A OUTPUT -d B -p icmp -j DROP" 0 $NA $IPT -w -A OUTPUT -d 10.252.2.1 -p icmp -j DROP
ok_if "OUTPUT: ping from A blocked" ping_blocked $A 10.252.2.1
ok_if "OUTPUT: the rule counted 1 packet" test "$(pkts $A OUTPUT 1)" = 1
check "A: -R to ! -d B" 0 $NA $IPT -w -R OUTPUT 1 ! -d 10.252.2.1 -p icmp -j DROP
ok_if "OUTPUT: ping passes" ping_ok $A 10.252.2.1
check "A: -F" 0 $NA $IPT -w -F

# FORWARD in R, with a user chain, interfaces and '+'
check "R: -N chk" 0 $NR $IPT -w -N chk
check "R: chk drops tcp 5003" 0 $NR $IPT -w -A chk -p tcp --dport 5003 -j DROP
check "R: chk returns icmp" 0 $NR $IPT -w -A chk -p icmp -j RETURN
check "R: FORWARD -i trRa -o trRb -j chk" 0 $NR $IPT -w -A FORWARD -i trRa -o trRb -j chk
check "R: FORWARD -i trR+ echo-request DROP" 0 \
	$NR $IPT -w -A FORWARD -i trR+ -p icmp --icmp-type echo-request -j DROP
ok_if "FORWARD: connect to 5003 blocked by the user chain" tcp_blocked 10.252.2.1 5003
ok_if "FORWARD: connect to 5004 forwarded" tcp_ok 10.252.2.1 5004
ok_if "FORWARD: ping blocked after RETURN" ping_blocked $A 10.252.2.1
ok_if "FORWARD: the echo-request rule counted 1" test "$(pkts $R FORWARD 2)" = 1

if [ "$BACKEND" = bpfilter ]; then
	ok_if "bpftool: bpf_flt_INPUT" sh -c "bpftool prog show | grep -q 'name bpf_flt_INPUT'"
	ok_if "bpftool: bpf_flt_FORWARD" sh -c "bpftool prog show | grep -q 'name bpf_flt_FORWARD'"
	ok_if "bpftool: bpf_flt_OUTPUT" sh -c "bpftool prog show | grep -q 'name bpf_flt_OUTPUT'"
	ok_if "bpftool: dispatcher bpfilter_fwd" sh -c "bpftool prog show | grep -q 'name bpfilter_fwd'"
	ok_if "bpftool: netfilter links" sh -c "bpftool link show | grep -q 'ip forward prio'"
	# A rule without a BPF translation: the command fails, the old rules stay.
	check "R: -j QUEUE is refused" 1 $NR $IPT -w -A FORWARD -j QUEUE
	ok_if "dmesg says why" sh -c "dmesg | grep -q 'no BPF translation'"
	ok_if "old FORWARD rules still enforced" ping_blocked $A 10.252.2.1
	ok_if "old FORWARD rules unchanged" test "$($NR $IPT -w -S FORWARD | grep -c '^-A')" = 2
else
	skip "bpftool shows the programs" "BACKEND=$BACKEND"
fi

# Changes under continuous traffic: every echo must be answered.
check "R: -F" 0 $NR $IPT -w -F
$NA ping -c 30 -i 0.2 10.252.2.1 > /tmp/tr.ping 2>&1 &
pp=$!
i=0
while [ $i -lt 10 ]; do
	$NR $IPT -w -I FORWARD -p udp --dport 9 -j DROP
	$NR $IPT -w -D FORWARD 1
	i=$((i + 1))
done
wait $pp
ok_if "20 replaces under traffic: no echo lost" grep -q ' 0% packet loss' /tmp/tr.ping
diag "$(tail -n 2 /tmp/tr.ping)"

if [ "$BACKEND" = bpfilter ]; then
	# The helper dies: the pinned programs keep judging.
	check "B: -A INPUT -p icmp -j DROP" 0 $NB $IPT -w -A INPUT -p icmp -j DROP
	ok_if "ping blocked" ping_blocked $A 10.252.2.1
	p=$(helper_pids | head -n1)
	check "kill -9 the helper" 0 kill -9 "$p"
	sleep 1
	ok_if "helper dead: ping still blocked" ping_blocked $A 10.252.2.1
	ok_if "the restarted helper reports both drops" test "$(pkts $B INPUT 1)" = 2
	check "B: -F after the restart" 0 $NB $IPT -w -F
	ok_if "ping passes" ping_ok $A 10.252.2.1
fi

cleanup
done_testing
