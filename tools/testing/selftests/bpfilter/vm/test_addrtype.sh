#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m addrtype (issue 12): address types come from the routing tables
# (inet_dev_addr_type(); with bpfilter through bpfilter_kfunc's kfunc,
# masks and inversions in BPF). Unicast, broadcast and multicast echoes to
# a server whose INPUT and OUTPUT count every type test, ufw's broadcast
# drop, the interface limits and their checkentry errors. Counters must be
# the ones recorded from ip_tables.
#
#   C 10.253.12.1 --- 10.253.12.2 S
. "$(dirname "$0")/lib.sh"

C=atC
S=atS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

cleanup
ns_pair $C 10.253.12.1 $S 10.253.12.2
$IP -n $C route add 224.0.0.0/4 dev ${C}0
$NC ping -c 1 -W 2 10.253.12.2 > /dev/null 2>&1	# neighbours resolved

check "S: addrtype rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m addrtype --dst-type LOCAL
-A INPUT -p icmp -m addrtype --dst-type BROADCAST
-A INPUT -p icmp -m addrtype --dst-type MULTICAST
-A INPUT -p icmp -m addrtype ! --src-type LOCAL
-A INPUT -p icmp -m addrtype --src-type UNICAST --dst-type LOCAL --limit-iface-in
-A INPUT -p icmp -m addrtype --dst-type LOCAL,BROADCAST,MULTICAST
-A INPUT -p icmp -m addrtype ! --dst-type UNICAST,LOCAL
-A INPUT -p icmp -m addrtype --dst-type BROADCAST -j DROP
-A OUTPUT -p icmp -m addrtype --src-type LOCAL --limit-iface-out
-A OUTPUT -p icmp -m addrtype --dst-type UNICAST
-A OUTPUT -p icmp -m addrtype --src-type LOCAL ! --dst-type LOCAL
COMMIT
RULES
expect "S: save round-trips the addrtype options" 0 sh -c "$NS $IPT_SAVE | grep addrtype" <<'OUT'
-A INPUT -p icmp -m addrtype --dst-type LOCAL
-A INPUT -p icmp -m addrtype --dst-type BROADCAST
-A INPUT -p icmp -m addrtype --dst-type MULTICAST
-A INPUT -p icmp -m addrtype ! --src-type LOCAL
-A INPUT -p icmp -m addrtype --src-type UNICAST --dst-type LOCAL --limit-iface-in
-A INPUT -p icmp -m addrtype --dst-type LOCAL,BROADCAST,MULTICAST
-A INPUT -p icmp -m addrtype ! --dst-type UNICAST,LOCAL
-A INPUT -p icmp -m addrtype --dst-type BROADCAST -j DROP
-A OUTPUT -p icmp -m addrtype --src-type LOCAL --limit-iface-out
-A OUTPUT -p icmp -m addrtype --dst-type UNICAST
-A OUTPUT -p icmp -m addrtype --src-type LOCAL ! --dst-type LOCAL
OUT
check "C: two unicast echoes answered" 0 $NC ping -c 2 -W 2 10.253.12.2
run $NC ping -c 1 -W 1 10.253.12.255
run $NC ping -c 1 -W 1 224.0.0.1
check "S: an echo of its own to lo" 0 $NS ping -c 1 -W 2 127.0.0.1
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
4 1 1 4 2 6 2 1 
OUT
expect "OUTPUT counters" 0 counts $S OUTPUT <<'OUT'
4 2 2 
OUT

# checkentry: an interface limit on a hook without that interface.
expect "--limit-iface-out in INPUT: EINVAL" 1 klog $NS $IPT -w -A INPUT -m addrtype \
	--dst-type LOCAL --limit-iface-out <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
xt_addrtype: output interface limitation not valid in PREROUTING and INPUT
OUT
expect "--limit-iface-in in OUTPUT: EINVAL" 1 klog $NS $IPT -w -A OUTPUT -m addrtype \
	--src-type LOCAL --limit-iface-in <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
xt_addrtype: input interface limitation not valid in POSTROUTING and OUTPUT
OUT
check "S: --limit-iface-in in a chain jumped to from OUTPUT: EINVAL" 1 sh -c \
	"$NS $IPT -w -N lim && $NS $IPT -w -A lim -m addrtype --src-type LOCAL --limit-iface-in && \
	 $NS $IPT -w -A OUTPUT -j lim"
cleanup
done_testing
