#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m string (issue 12): TCP data with and without a pattern, counted by
# --algo bm and kmp, --icase, --hex-string, a --from/--to window and
# inversion, on data segments (PSH); a drop by pattern on another port. With bpfilter, xt_string (the kernel's
# textsearch) runs in the kernel through bpfilter_kfunc (hold.h). Counters
# must be the ones recorded from ip_tables.
#
#   C 10.253.17.1 --- 10.253.17.2 S
. "$(dirname "$0")/lib.sh"

C=ssC
S=ssS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	ns_kill $C $S
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# send TEXT: TEXT as one TCP segment of data to S port 7001, which echoes it.
send()
{
	run $NC sh -c "echo '$1' | nc -w 2 10.253.17.2 7001"
}

cleanup
ns_pair $C 10.253.17.1 $S 10.253.17.2
$NC ping -c 1 -W 2 10.253.17.2 > /dev/null 2>&1	# neighbours resolved
$NS nc -ll -p 7001 -e /bin/cat &
$NS nc -ll -p 7002 -e /bin/cat &
sleep 0.3

check "S: string rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp --dport 7002 -m string --string "forbidden" --algo bm -j DROP
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo bm
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo kmp
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string --string "EVIL" --algo bm --icase
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string --hex-string "|65 76|il" --algo kmp
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string ! --string "evil" --algo bm
-A INPUT -p tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo bm --from 52 --to 60
COMMIT
RULES
expect "S: save round-trips the string options" 0 sh -c "$NS $IPT_SAVE | grep string" <<'OUT'
-A INPUT -p tcp -m tcp --dport 7002 -m string --string "forbidden" --algo bm -j DROP
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo bm
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo kmp
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string --string "EVIL" --algo bm --icase
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo kmp
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string ! --string "evil" --algo bm
-A INPUT -p tcp -m tcp --dport 7001 --tcp-flags PSH PSH -m string --string "evil" --algo bm --from 52 --to 60
OUT
send "an evil payload"
send "EvIl at the start"
send "nothing to see"
expect "INPUT counters" 0 counts $S INPUT <<'OUT'
0 1 1 2 1 2 1 
OUT
# A dropped segment is sent again: only the drop and the echo that never comes are sure.
check "C: a forbidden payload gets no echo" 1 $NC sh -c "echo forbidden | timeout 3 nc 10.253.17.2 7002 | grep -q forbidden"
ok_if "S: the forbidden payload was dropped" test "$(pkts $S INPUT 1)" -ge 1
cleanup
done_testing
