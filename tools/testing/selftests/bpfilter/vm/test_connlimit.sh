#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m connlimit (issue 12): at most 2 TCP connections per client address to
# a port; a third is reset while two stay open, and a new one is accepted
# once they close. connlimit's checkentry turns conntrack on itself. With
# bpfilter, xt_connlimit runs in the kernel through bpfilter_kfunc
# (hold.h). Counters must be the ones recorded from ip_tables.
#
#   C 10.253.16.1 --- 10.253.16.2 S
. "$(dirname "$0")/lib.sh"

C=clC
S=clS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	ns_kill $C $S
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# hold SECONDS: a connection to S port 7000 kept open for SECONDS, in the background.
hold()
{
	$NC sh -c "sleep $1 | nc 10.253.16.2 7000" > /dev/null 2>&1 &
}

cleanup
ns_pair $C 10.253.16.1 $S 10.253.16.2
$NC ping -c 1 -W 2 10.253.16.2 > /dev/null 2>&1	# neighbours resolved
$NS nc -ll -p 7000 -e /bin/cat &
sleep 0.3

check "S: connlimit rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp --syn --dport 7000 -m connlimit --connlimit-upto 2 --connlimit-mask 32
-A INPUT -p tcp --syn --dport 7000 -m connlimit --connlimit-above 1 --connlimit-mask 24 --connlimit-saddr
-A INPUT -p tcp --syn --dport 7000 -m connlimit --connlimit-above 2 -j REJECT --reject-with tcp-reset
COMMIT
RULES
expect "S: save round-trips the connlimit options" 0 sh -c "$NS $IPT_SAVE | grep connlimit" <<'OUT'
-A INPUT -p tcp -m tcp --dport 7000 --tcp-flags FIN,SYN,RST,ACK SYN -m connlimit --connlimit-upto 2 --connlimit-mask 32 --connlimit-saddr
-A INPUT -p tcp -m tcp --dport 7000 --tcp-flags FIN,SYN,RST,ACK SYN -m connlimit --connlimit-above 1 --connlimit-mask 24 --connlimit-saddr
-A INPUT -p tcp -m tcp --dport 7000 --tcp-flags FIN,SYN,RST,ACK SYN -m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr -j REJECT --reject-with tcp-reset
OUT
hold 4
hold 4
sleep 1
check "C: a third connection is reset" 1 $NC sh -c 'nc -w 2 10.253.16.2 7000 < /dev/null'
sleep 4
check "C: once they closed, a new one is accepted" 0 $NC sh -c 'echo hi | nc -w 2 10.253.16.2 7000'
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
3 2 1 
OUT
cleanup
done_testing
