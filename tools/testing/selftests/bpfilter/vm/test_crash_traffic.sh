#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Crash under traffic: while namespace C pings S without pause and S's table
# drops every echo request, the helper is killed (kill -9) again and again,
# with replaces in between and one kill in the middle of a large restore.
# Not one echo request may reach S's ICMP layer (S's Icmp InEchos stays 0,
# C gets no reply), and the DROP rule's counter only grows. With ip_tables
# (the control) there is no helper to kill; the replaces run the same.
. "$(dirname "$0")/lib.sh"

ROUNDS=8
C=crc
S=crs
ns_pair $C 10.251.7.1 $S 10.251.7.2
NC="$IP netns exec $C"
NS="$IP netns exec $S"

check "S: drop echo requests" 0 $NS $IPT -A INPUT -p icmp --icmp-type echo-request -j DROP
check "S: a second rule" 0 $NS $IPT -A INPUT -p tcp --dport 7 -j ACCEPT

# in_echos: the echo requests S's ICMP layer received.
in_echos()
{
	$NS cat /proc/net/snmp | awk '/^Icmp:/ {
		if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 }
		else print $c }'
}

$NC ping -i 0.01 -c 100000 10.251.7.2 > "$TAP_DIR/crash.ping" 2>&1 &
ping_pid=$!
sleep 1

last=0
grew=1
shrunk=0
r=1
while [ $r -le $ROUNDS ]; do
	if [ "$BACKEND" = bpfilter ]; then
		for p in $(helper_pids); do
			kill -9 "$p"
		done
	fi
	sleep 0.3
	if [ $((r % 2)) -eq 1 ]; then
		$NS $IPT -w -A INPUT -p tcp --dport $((1000 + r)) -j ACCEPT || fail "S: replace in round $r"
	else
		$NS $IPT -w -D INPUT -p tcp --dport $((999 + r)) -j ACCEPT || fail "S: replace in round $r"
	fi
	now=$(pkts $S INPUT 1)
	[ "${now:-0}" -lt "$last" ] && shrunk=$((shrunk + 1))
	[ "${now:-0}" -gt "$last" ] || grew=0
	diag "round $r: DROP counted ${now:-?} packets"
	last=${now:-0}
	sleep 0.3
	r=$((r + 1))
done

# A kill in the middle of a large restore (--noflush: the rules in force keep
# their counters): either table may end up in force, both drop the echo
# requests first.
awk 'BEGIN {
	print "*filter"
	for (i = 0; i < 3000; i++)
		printf "-A INPUT -s 10.8.%d.%d/32 -p udp -m udp --dport 9 -j DROP\n", i / 250, i % 250 + 1
	print "COMMIT"
}' > "$TAP_DIR/crash.rules"
$NS sh -c "$IPT_RESTORE -n < $TAP_DIR/crash.rules" > "$TAP_DIR/crash.restore" 2>&1 &
restore_pid=$!
k=0
while [ $k -lt 10 ] && kill -0 $restore_pid 2>/dev/null; do
	sleep 0.2
	if [ "$BACKEND" = bpfilter ]; then
		for p in $(helper_pids); do
			kill -9 "$p"
		done
	fi
	k=$((k + 1))
done
wait $restore_pid
diag "the restore killed in flight ($k kills) exited $?: $(head -c 200 "$TAP_DIR/crash.restore")"
sleep 1
now=$(pkts $S INPUT 1)
[ "${now:-0}" -lt "$last" ] && shrunk=$((shrunk + 1))
diag "after the restore: DROP counted ${now:-?} packets"

kill -INT $ping_pid 2>/dev/null
wait $ping_pid
diag "$(tail -n 2 "$TAP_DIR/crash.ping")"
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$TAP_DIR/crash.ping")
got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$TAP_DIR/crash.ping")
ok_if "C sent a continuous stream (${sent:-?} echo requests)" test "${sent:-0}" -ge 200
ok_if "not one echo request reached S (InEchos $(in_echos))" test "$(in_echos)" = 0
ok_if "C got no reply (${got:-?})" test "${got:-1}" = 0
ok_if "the DROP counter grew in every round" test $grew = 1
ok_if "the DROP counter never went back" test $shrunk = 0
ok_if "the DROP counter counted most of the stream (${now:-?} of ${sent:-?})" \
	test "${now:-0}" -ge $(( ${sent:-0} * 9 / 10 ))
if [ "$BACKEND" = bpfilter ]; then
	check "the helper answers again" 0 $NS $IPT -S INPUT 1
fi
ns_kill $C $S
$IP netns del $C
$IP netns del $S
done_testing
