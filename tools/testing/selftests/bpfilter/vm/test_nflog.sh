#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -j NFLOG (issue 11): a netlink listener on the group (nflog_listen, with
# libmnl, as ulogd2 would bind) receives the packet with the prefix, hook,
# devices and the payload cut to --nflog-size. With bpfilter the BPF program
# calls bpfilter_kfunc's kfunc, which calls the kernel's nf_log_packet()
# with a ULOG loginfo (nfnetlink_log); with ip_tables xt_NFLOG does (the
# reference). Both runs must print the lines below, recorded from ip_tables.
#
#   C 10.253.10.1 --- 10.253.10.2 S
. "$(dirname "$0")/lib.sh"

C=nfC
S=nfS
NC="$IP netns exec $C"
NS="$IP netns exec $S"
BIN=$(dirname "$0")
L=$TAP_DIR/nflog

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# listen NS GROUP COUNT: nflog_listen in NS in the background (at most 20 s),
# output in $L.out, exit status in $L.rc; returns once it is bound.
listen()
{
	rm -f "$L.out" "$L.err" "$L.rc"
	( $IP netns exec "$1" "$BIN/nflog_listen" "$2" "$3" 20 > "$L.out" 2> "$L.err"
	  echo "rc=$?" > "$L.rc" ) &
	WAIT_S=10 wait_for grep -q ready "$L.err"
}

# heard: once the listener has exited, its exit status and its lines.
heard()
{
	WAIT_S=25 wait_for test -s "$L.rc"
	cat "$L.rc" "$L.out"
	sed '/^ready$/d' "$L.err"
}

cleanup
ns_pair $C 10.253.10.1 $S 10.253.10.2
$NC ping -c 1 -W 2 10.253.10.2 > /dev/null 2>&1	# neighbours resolved

check "S: NFLOG rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 5201 -j NFLOG --nflog-prefix "bpf-nflog-a" --nflog-group 5
-A INPUT -p tcp -m tcp --dport 5202 -j NFLOG --nflog-prefix "bpf-nflog-b" --nflog-group 5 --nflog-size 24
-A INPUT -p tcp -m tcp --dport 5203 -j NFLOG --nflog-group 6
-A INPUT -p tcp -m tcp --dport 5203 -j DROP
-A INPUT -p tcp -m tcp --dport 5204 -j NFLOG --nflog-group 5 --nflog-range 8 --nflog-threshold 2
COMMIT
RULES
expect "S: save round-trips the NFLOG options" 0 sh -c "$NS $IPT_SAVE | grep NFLOG" <<'OUT'
-A INPUT -p tcp -m tcp --dport 5201 -j NFLOG --nflog-prefix bpf-nflog-a --nflog-group 5
-A INPUT -p tcp -m tcp --dport 5202 -j NFLOG --nflog-prefix bpf-nflog-b --nflog-group 5 --nflog-size 24
-A INPUT -p tcp -m tcp --dport 5203 -j NFLOG --nflog-group 6
-A INPUT -p tcp -m tcp --dport 5204 -j NFLOG --nflog-group 5 --nflog-range 8 --nflog-threshold 2
OUT
check "C: OUTPUT NFLOG (default group 0)" 0 $NC $IPT -w -A OUTPUT -p icmp -j NFLOG \
	--nflog-prefix "bpf-nflog-out"

# Group 5 hears 5201 (whole packet), 5202 (24 bytes), not 5203 (group 6),
# and 5204 twice: --nflog-range without --nflog-size is ignored by the
# kernel (the whole packet), and the threshold of 2 sends both together.
listen $S 5 4
for port in 5201 5202 5203 5204 5204; do
	check "C: SYN|FIN to $port" 0 $NC "$BIN/tcp_flags" 10.253.10.1 10.253.10.2 4000 $port 0x03
done
expect "S: group 5 listener heard 5201, 5202 and 5204 twice" 0 heard <<'OUT'
rc=0
prefix=bpf-nflog-a hook=1 hwproto=0x0800 in=nfS0 out=- len=40 proto=6 src=10.253.10.1 dst=10.253.10.2 sport=4000 dport=5201
prefix=bpf-nflog-b hook=1 hwproto=0x0800 in=nfS0 out=- len=24 proto=6 src=10.253.10.1 dst=10.253.10.2 sport=4000 dport=5202
prefix= hook=1 hwproto=0x0800 in=nfS0 out=- len=40 proto=6 src=10.253.10.1 dst=10.253.10.2 sport=4000 dport=5204
prefix= hook=1 hwproto=0x0800 in=nfS0 out=- len=40 proto=6 src=10.253.10.1 dst=10.253.10.2 sport=4000 dport=5204
OUT
ok_if "NFLOG continues: the DROP after it counted 5203" test "$(pkts $S INPUT 4)" = 1
ok_if "the first NFLOG counted one packet" test "$(pkts $S INPUT 1)" = 1

listen $S 6 1
check "C: SYN|FIN to 5203" 0 $NC "$BIN/tcp_flags" 10.253.10.1 10.253.10.2 4000 5203 0x03
expect "S: group 6 listener heard 5203" 0 heard <<'OUT'
rc=0
prefix= hook=1 hwproto=0x0800 in=nfS0 out=- len=40 proto=6 src=10.253.10.1 dst=10.253.10.2 sport=4000 dport=5203
OUT

listen $C 0 1
run $NC ping -c 1 -W 2 10.253.10.2
expect "C: group 0 listener heard the echo request at OUTPUT" 0 heard <<'OUT'
rc=0
prefix=bpf-nflog-out hook=3 hwproto=0x0800 in=- out=nfC0 len=84 proto=1 src=10.253.10.1 dst=10.253.10.2 sport=0 dport=0
OUT
# Nothing bound in S any more: the packets pass, nothing is queued.
check "S: no listener, SYN|FIN to 5201 still counted" 0 \
	$NC "$BIN/tcp_flags" 10.253.10.1 10.253.10.2 4000 5201 0x03
ok_if "the first NFLOG counted it" test "$(pkts $S INPUT 1)" = 2
cleanup
done_testing
