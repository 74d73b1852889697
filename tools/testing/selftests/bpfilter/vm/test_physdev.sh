#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m physdev (issue 12): echoes bridged between two ports of a bridge with
# br_netfilter on, counted in the bridge namespace's FORWARD by input and
# output port (exact and wildcard), --physdev-is-bridged/-in/-out and their
# inversions; --physdev-out in OUTPUT is refused (EINVAL), also through a
# jump. With bpfilter, xt_physdev runs in the kernel through bpfilter_kfunc
# (hold.h). Counters must be the ones recorded from ip_tables.
#
#   X 10.253.18.1 --- pdX [br0 in B] pdY --- 10.253.18.2 Y
. "$(dirname "$0")/lib.sh"

X=pdX
Y=pdY
B=pdB
NX="$IP netns exec $X"
NB="$IP netns exec $B"

cleanup()
{
	for n in $X $Y $B; do $IP netns del $n 2>/dev/null; done
}

cleanup
modprobe bridge 2>/dev/null
modprobe br_netfilter 2>/dev/null
for n in $X $Y $B; do
	$IP netns add $n
	$IP -n $n link set lo up
done
$IP -n $B link add br0 type bridge
for n in $X $Y; do
	$IP link add ${n}0 netns $n type veth peer name $n netns $B
	$IP -n $B link set $n master br0
	$IP -n $B link set $n up
done
$IP -n $X addr add 10.253.18.1/24 dev ${X}0
$IP -n $Y addr add 10.253.18.2/24 dev ${Y}0
$IP -n $X link set ${X}0 up
$IP -n $Y link set ${Y}0 up
$IP -n $B link set br0 up
check "B: bridged IPv4 goes through iptables" 0 $NB sh -c \
	'echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables'
$NX ping -c 1 -W 2 10.253.18.2 > /dev/null 2>&1	# neighbours resolved

check "B: physdev rules" 0 $NB $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p icmp -m physdev --physdev-in pdX
-A FORWARD -p icmp -m physdev --physdev-out pdY
-A FORWARD -p icmp -m physdev --physdev-in pd+ --physdev-out pdX
-A FORWARD -p icmp -m physdev ! --physdev-in pdX
-A FORWARD -p icmp -m physdev --physdev-is-bridged
-A FORWARD -p icmp -m physdev ! --physdev-is-in
-A FORWARD -p icmp -m physdev --physdev-is-out --physdev-is-bridged
COMMIT
RULES
expect "B: save round-trips the physdev options" 0 sh -c "$NB $IPT_SAVE | grep physdev" <<'OUT'
-A FORWARD -p icmp -m physdev --physdev-in pdX
-A FORWARD -p icmp -m physdev --physdev-out pdY
-A FORWARD -p icmp -m physdev --physdev-in pd+ --physdev-out pdX
-A FORWARD -p icmp -m physdev ! --physdev-in pdX
-A FORWARD -p icmp -m physdev --physdev-is-bridged
-A FORWARD -p icmp -m physdev ! --physdev-is-in
-A FORWARD -p icmp -m physdev --physdev-is-out --physdev-is-bridged
OUT
check "X: three echoes to Y answered through the bridge" 0 $NX ping -c 3 -W 1 10.253.18.2
expect "FORWARD counters" 0 counts $B FORWARD <<'OUT'
3 3 3 3 6 0 6 
OUT
expect "--physdev-out in OUTPUT: EINVAL" 1 klog $NB $IPT -w -A OUTPUT -m physdev --physdev-out pdY <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
xt_physdev: --physdev-out and --physdev-is-out only supported in the FORWARD and POSTROUTING chains with bridged traffic
OUT
check "B: --physdev-out in a chain jumped to from OUTPUT: EINVAL" 1 sh -c \
	"$NB $IPT -w -N po && $NB $IPT -w -A po -m physdev --physdev-out pdY && \
	 $NB $IPT -w -A OUTPUT -j po"
cleanup
done_testing
