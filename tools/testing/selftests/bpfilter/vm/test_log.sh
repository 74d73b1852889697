#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -j LOG (issue 11): the kernel log line for a known packet must be the line
# xt_LOG writes, byte for byte (timestamps aside). With bpfilter the BPF
# program calls bpfilter.ko's kfunc, which calls the kernel's own
# nf_log_packet(); with ip_tables xt_LOG does (the reference). Both runs
# must print the expected lines below, recorded from ip_tables.
#
#   C 10.253.9.1 (02:00:00:00:09:01) --- 10.253.9.2 (02:00:00:00:09:02) S
. "$(dirname "$0")/lib.sh"

C=lgC
S=lgS
NC="$IP netns exec $C"
NS="$IP netns exec $S"
BIN=$(dirname "$0")

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# The last kernel log line with prefix $1, without the timestamp.
logline()
{
	dmesg | grep -F "$1" | tail -n 1 | sed 's/^\[[^]]*\] //'
}

cleanup
for n in $C $S; do
	$IP netns add $n
	$IP -n $n link set lo up
done
$IP link add lgC0 netns $C address 02:00:00:00:09:01 type veth peer name lgS0 netns $S \
	address 02:00:00:00:09:02
$IP -n $C addr add 10.253.9.1/24 dev lgC0
$IP -n $S addr add 10.253.9.2/24 dev lgS0
$IP -n $C link set lgC0 up
$IP -n $S link set lgS0 up
$NC ping -c 1 -W 2 10.253.9.2 > /dev/null 2>&1	# neighbours resolved

check "S: LOG rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 5101 -j LOG --log-prefix "bpf-log-a: "
-A INPUT -p tcp -m tcp --dport 5102 -j LOG --log-prefix "bpf-log-b: " --log-level 4 --log-tcp-sequence --log-tcp-options --log-ip-options
-A INPUT -p tcp -m tcp --dport 5103 -j LOG --log-prefix "bpf-log-c: " --log-macdecode
-A INPUT -p tcp -m tcp --dport 5103 -j DROP
COMMIT
RULES
check "C: OUTPUT LOG with --log-uid" 0 $NC $IPT -w -A OUTPUT -p icmp -j LOG --log-prefix "bpf-log-d: " --log-uid
# nf_log obeys nf_log_all_netns: off (the default), nothing from our namespaces.
echo 0 > /proc/sys/net/netfilter/nf_log_all_netns
check "C: SYN|FIN to 5101, logging off in namespaces" 0 \
	$NC "$BIN/tcp_flags" 10.253.9.1 10.253.9.2 4000 5101 0x03
sleep 1
ok_if "nf_log_all_netns=0: no line" test -z "$(logline 'bpf-log-a: ')"
echo 1 > /proc/sys/net/netfilter/nf_log_all_netns
for port in 5101 5102 5103; do
	check "C: SYN|FIN to $port" 0 $NC "$BIN/tcp_flags" 10.253.9.1 10.253.9.2 4000 $port 0x03
done
sleep 1
expect "the plain line" 0 logline "bpf-log-a: " <<'OUT'
bpf-log-a: IN=lgS0 OUT= MAC=02:00:00:00:09:02:02:00:00:00:09:01:08:00 SRC=10.253.9.1 DST=10.253.9.2 LEN=40 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=TCP SPT=4000 DPT=5101 WINDOW=255 RES=0x00 SYN FIN URGP=0 
OUT
expect "sequence, options, level 4" 0 logline "bpf-log-b: " <<'OUT'
bpf-log-b: IN=lgS0 OUT= MAC=02:00:00:00:09:02:02:00:00:00:09:01:08:00 SRC=10.253.9.1 DST=10.253.9.2 LEN=40 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=TCP SPT=4000 DPT=5102 SEQ=1 ACK=0 WINDOW=255 RES=0x00 SYN FIN URGP=0 
OUT
expect "--log-macdecode" 0 logline "bpf-log-c: " <<'OUT'
bpf-log-c: IN=lgS0 OUT= MACSRC=02:00:00:00:09:01 MACDST=02:00:00:00:09:02 MACPROTO=0800 SRC=10.253.9.1 DST=10.253.9.2 LEN=40 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=TCP SPT=4000 DPT=5103 WINDOW=255 RES=0x00 SYN FIN URGP=0 
OUT
ok_if "LOG continues: the DROP after it counted" test "$($NS $IPT -w -nvxL INPUT | awk 'NR == 6 { print $1 }')" = 1
ok_if "the first LOG counted both packets" test "$($NS $IPT -w -nvxL INPUT | awk 'NR == 3 { print $1 }')" = 2
run $NC ping -c 1 -W 2 10.253.9.2
ok_if "--log-uid on OUTPUT names the socket's uid" sh -c "dmesg | grep -F 'bpf-log-d: ' | tail -n 1 | grep -q 'UID=0 GID=0'"
echo 0 > /proc/sys/net/netfilter/nf_log_all_netns
cleanup
done_testing
