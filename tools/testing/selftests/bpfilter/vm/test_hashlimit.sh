#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m hashlimit (issue 12): per-source buckets. A burst of echoes from two
# sources against --hashlimit-upto with a burst of 3 (the rest dropped) and
# against --hashlimit-above; the tables' /proc/net/ipt_hashlimit files, one
# line per source, gone with their last rule. With bpfilter, xt_hashlimit
# runs in the kernel through bpfilter_kfunc (hold.h). Counters must be the
# ones recorded from ip_tables.
#
#   C 10.253.15.1, .3 --- 10.253.15.2 S
. "$(dirname "$0")/lib.sh"

C=hlC
S=hlS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# sources NAME: the source addresses of /proc/net/ipt_hashlimit/NAME in S, sorted.
sources()
{
	$NS cat /proc/net/ipt_hashlimit/"$1" | awk '{ sub(/:.*/, "", $2); print $2 }' | sort
}

cleanup
ns_pair $C 10.253.15.1 $S 10.253.15.2
$IP -n $C addr add 10.253.15.3/24 dev ${C}0
$NC ping -c 1 -W 2 10.253.15.2 > /dev/null 2>&1	# neighbours resolved

check "S: hashlimit rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp --icmp-type echo-request -m hashlimit --hashlimit-above 1/hour --hashlimit-burst 2 --hashlimit-mode srcip --hashlimit-name above
-A INPUT -p icmp --icmp-type echo-request -m hashlimit --hashlimit-upto 1/hour --hashlimit-burst 3 --hashlimit-mode srcip --hashlimit-name upto -j ACCEPT
-A INPUT -p icmp --icmp-type echo-request -j DROP
COMMIT
RULES
expect "S: save round-trips the hashlimit options" 0 sh -c "$NS $IPT_SAVE | grep hashlimit" <<'OUT'
-A INPUT -p icmp -m icmp --icmp-type 8 -m hashlimit --hashlimit-above 1/hour --hashlimit-burst 2 --hashlimit-mode srcip --hashlimit-name above
-A INPUT -p icmp -m icmp --icmp-type 8 -m hashlimit --hashlimit-upto 1/hour --hashlimit-burst 3 --hashlimit-mode srcip --hashlimit-name upto -j ACCEPT
OUT
run $NC ping -c 5 -i 0.2 -W 1 -I 10.253.15.1 10.253.15.2
answered=$(printf '%s\n' "$OUT" | grep -c 'bytes from')
ok_if "C: 3 of 5 echoes from .1 answered (burst 3; got $answered)" test "$answered" = 3
run $NC ping -c 4 -i 0.2 -W 1 -I 10.253.15.3 10.253.15.2
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
5 6 3 
OUT
expect "/proc/net/ipt_hashlimit/upto: one line per source" 0 sources upto <<'OUT'
10.253.15.1
10.253.15.3
OUT
check "the tables go with their rules" 0 sh -c "$NS $IPT -w -F INPUT && ! $NS test -e /proc/net/ipt_hashlimit/upto"
cleanup
done_testing
