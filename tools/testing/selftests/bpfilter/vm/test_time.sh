#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m time (issue 12): windows that always hold and windows that never do
# (dates past, an empty weekday set through inversion, the day's time
# ranges in UTC and --kerneltz), counted over echoes. With bpfilter,
# xt_time runs in the kernel through bpfilter_kfunc (hold.h). Counters must
# be the ones recorded from ip_tables.
#
#   C 10.253.19.1 --- 10.253.19.2 S
. "$(dirname "$0")/lib.sh"

C=tmC
S=tmS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

cleanup
ns_pair $C 10.253.19.1 $S 10.253.19.2
$NC ping -c 1 -W 2 10.253.19.2 > /dev/null 2>&1	# neighbours resolved

check "S: time rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m time --timestart 00:00:00 --timestop 23:59:59
-A INPUT -p icmp -m time --datestop 2001-01-01T00:00:00
-A INPUT -p icmp -m time --datestart 2001-01-01T00:00:00 --datestop 2037-12-31T23:59:59
-A INPUT -p icmp -m time --weekdays Mon,Tue,Wed,Thu,Fri,Sat,Sun
-A INPUT -p icmp -m time ! --weekdays Mon,Tue,Wed,Thu,Fri,Sat,Sun
-A INPUT -p icmp -m time --monthdays 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
-A INPUT -p icmp -m time --timestart 00:00:00 --timestop 23:59:59 --kerneltz
-A INPUT -p icmp -m time --timestart 23:00:00 --timestop 22:59:59 --contiguous
COMMIT
RULES
expect "S: save round-trips the time options" 0 sh -c "$NS $IPT_SAVE | grep -- '-m time'" <<'OUT'
-A INPUT -p icmp -m time --datestop 2038-01-19T03:14:07
-A INPUT -p icmp -m time --datestop 2001-01-01T00:00:00
-A INPUT -p icmp -m time --datestart 2001-01-01T00:00:00 --datestop 2037-12-31T23:59:59
-A INPUT -p icmp -m time --datestop 2038-01-19T03:14:07
-A INPUT -p icmp -m time --weekdays  --datestop 2038-01-19T03:14:07
-A INPUT -p icmp -m time --datestop 2038-01-19T03:14:07
-A INPUT -p icmp -m time --datestop 2038-01-19T03:14:07 --kerneltz
-A INPUT -p icmp -m time --timestart 23:00:00 --timestop 22:59:59 --datestop 2038-01-19T03:14:07 --contiguous
OUT
check "C: three echoes answered" 0 $NC ping -c 3 -W 1 10.253.19.2
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
3 0 3 3 0 3 3 3 
OUT
cleanup
done_testing
