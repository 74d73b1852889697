#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m set (issue 12) against real ipset sets: echoes from an address in a
# blocklist set (dropped), from one only in a net set, and from one the net
# set excludes with nomatch (--return-nomatch), counted with inversion,
# src,dst dimensions and the packet counters of a set with counters. With
# bpfilter, xt_set runs in the kernel through bpfilter_kfunc (hold.h): its
# checkentry holds a reference on the set, so ipset cannot destroy a set a
# rule uses, exactly as with ip_tables. Counters must be the ones recorded
# from ip_tables.
#
#   C 10.253.14.1, .3, .5 --- 10.253.14.2 S
. "$(dirname "$0")/lib.sh"

C=stC
S=stS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# ping_from ADDR N: N echoes from C's address ADDR to S.
ping_from()
{
	run $NC ping -c "$2" -W 1 -I "$1" 10.253.14.2
}

cleanup
ns_pair $C 10.253.14.1 $S 10.253.14.2
$IP -n $C addr add 10.253.14.3/24 dev ${C}0
$IP -n $C addr add 10.253.14.5/24 dev ${C}0
$NC ping -c 1 -W 2 10.253.14.2 > /dev/null 2>&1	# neighbours resolved

check "S: ipset sets" 0 $NS sh -c "ipset create blk hash:ip counters && ipset add blk 10.253.14.1 &&
	ipset create nets hash:net && ipset add nets 10.253.14.0/24 &&
	ipset add nets 10.253.14.4/31 nomatch && ipset create pairs hash:net,net &&
	ipset add pairs 10.253.14.3,10.253.14.2"
check "S: set rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m set --match-set nets src
-A INPUT -p icmp -m set ! --match-set nets src
-A INPUT -p icmp -m set --match-set nets src --return-nomatch
-A INPUT -p icmp -m set --match-set pairs src,dst
-A INPUT -p icmp -m set ! --match-set pairs src,dst
-A INPUT -p icmp -m set --match-set blk src --packets-gt 2
-A INPUT -p icmp -m set --match-set blk src ! --update-counters
-A INPUT -p icmp -m set --match-set blk src -j DROP
COMMIT
RULES
expect "S: save round-trips the set options" 0 sh -c "$NS $IPT_SAVE | grep -- '-m set'" <<'OUT'
-A INPUT -p icmp -m set --match-set nets src
-A INPUT -p icmp -m set ! --match-set nets src
-A INPUT -p icmp -m set --match-set nets src --return-nomatch
-A INPUT -p icmp -m set --match-set pairs src,dst
-A INPUT -p icmp -m set ! --match-set pairs src,dst
-A INPUT -p icmp -m set --match-set blk src --packets-gt 2
-A INPUT -p icmp -m set --match-set blk src ! --update-counters
-A INPUT -p icmp -m set --match-set blk src -j DROP
OUT
check "C: echoes from the blocked address are dropped" 1 $NC ping -c 4 -W 1 -I 10.253.14.1 10.253.14.2
check "C: echoes from an address in the net set are answered" 0 $NC ping -c 2 -W 1 -I 10.253.14.3 10.253.14.2
check "C: echoes from a nomatch address are answered" 0 $NC ping -c 3 -W 1 -I 10.253.14.5 10.253.14.2
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
6 3 3 2 7 3 4 4 
OUT
expect "S: a set in use cannot be destroyed" 1 $NS ipset destroy blk <<'OUT'
ipset @IPSET_VERSION@: Set cannot be destroyed: it is in use by a kernel component
OUT
check "S: flush the rules" 0 $NS $IPT -w -F INPUT
check "S: then it can" 0 $NS ipset destroy blk
cleanup
done_testing
