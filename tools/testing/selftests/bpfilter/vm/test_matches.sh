#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The extension matches with real packets (issue 12): with bpfilter judged
# by the BPF each ext_*.c generates, with ip_tables by the xt modules (the
# reference). A client namespace C and a server namespace S over one veth
# pair; INPUT rules in S, OUTPUT rules in C; busybox ping (-s size, -t ttl)
# and TCP connects (busybox nc; their SYNs for tcpmss, u32 and ecn). tos, dscp, mark, ah and esp need packets
# busybox cannot make: the host's differential test sends those.
#
#   C 10.253.1.1 --- 10.253.1.2 S (also 10.253.1.3, 10.253.1.4)
. "$(dirname "$0")/lib.sh"

C=mtC
S=mtS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
}


ping_ok()
{
	# ping_ok DST [ping options]
	_d=$1
	shift
	$NC ping -c 1 -W 2 "$@" "$_d" > /dev/null 2>&1
}

ping_blocked()
{
	! ping_ok "$@"
}

tcp_ok()
{
	# Bounded: a connection whose later segments a rule drops never ends.
	$NC sh -c "timeout 10 nc -w 3 $1 $2 < /dev/null" > /dev/null 2>&1
}

tcp_blocked()
{
	! tcp_ok "$@"
}

cleanup
ns_pair $C 10.253.1.1 $S 10.253.1.2
for a in 10.253.1.3 10.253.1.4; do
	$IP -n $S addr add $a/24 dev mtS0
done
srvs=
for port in 5001 5002 5003 6000 6005 6011; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
sleep 1
ok_if "baseline: C pings S" ping_ok 10.253.1.2
ok_if "baseline: TCP connect to 6005" tcp_ok 10.253.1.2 6005

# multiport with a range, and a comment, in S's INPUT
check "S: multiport --dports 5002,6000:6010 DROP" 0 $NS $IPT -w -A INPUT -p tcp \
	-m multiport --dports 5002,6000:6010 -m comment --comment "closed services" -j DROP
ok_if "multiport: 5002 blocked" tcp_blocked 10.253.1.2 5002
ok_if "multiport: 6005 (in the range) blocked" tcp_blocked 10.253.1.2 6005
ok_if "multiport: 5001 open" tcp_ok 10.253.1.2 5001
ok_if "multiport: 6011 open" tcp_ok 10.253.1.2 6011
ok_if "multiport: the rule counted SYNs" test "$(pkts $S INPUT 1)" -ge 2
expect "S: -S shows multiport and the comment" 0 $NS $IPT -w -S INPUT <<'OUT'
-P INPUT ACCEPT
-A INPUT -p tcp -m multiport --dports 5002,6000:6010 -m comment --comment "closed services" -j DROP
OUT
check "S: ! --dports inverted" 0 $NS $IPT -w -R INPUT 1 -p tcp \
	-m multiport ! --dports 5001,5003 -j DROP
ok_if "multiport !: 5003 open" tcp_ok 10.253.1.2 5003
ok_if "multiport !: 6011 blocked" tcp_blocked 10.253.1.2 6011
check "S: -F" 0 $NS $IPT -w -F

# iprange on the destination, in S's INPUT
check "S: --dst-range .3-.4 DROP" 0 $NS $IPT -w -A INPUT -p icmp \
	-m iprange --dst-range 10.253.1.3-10.253.1.4 -j DROP
ok_if "iprange: ping .3 blocked" ping_blocked 10.253.1.3
ok_if "iprange: ping .4 blocked" ping_blocked 10.253.1.4
ok_if "iprange: ping .2 passes" ping_ok 10.253.1.2
ok_if "iprange: counted 2" test "$(pkts $S INPUT 1)" = 2
check "S: ! --src-range" 0 $NS $IPT -w -R INPUT 1 -p icmp \
	-m iprange ! --src-range 10.253.1.1-10.253.1.1 -j DROP
ok_if "iprange !: ping from .1 passes" ping_ok 10.253.1.3
check "S: -F" 0 $NS $IPT -w -F

# length and ttl in C's OUTPUT (ping -s 100: 128 bytes at IPv4)
check "C: --length 120:130 DROP" 0 $NC $IPT -w -A OUTPUT -p icmp -m length --length 120:130 -j DROP
ok_if "length: 128-byte ping blocked" ping_blocked 10.253.1.2 -s 100
ok_if "length: 84-byte ping passes" ping_ok 10.253.1.2
ok_if "length: 131-byte ping passes" ping_ok 10.253.1.2 -s 103
check "C: --ttl-lt 5 DROP" 0 $NC $IPT -w -I OUTPUT -p icmp -m ttl --ttl-lt 5 -j DROP
ok_if "ttl: ttl 4 blocked" ping_blocked 10.253.1.2 -t 4
ok_if "ttl: ttl 5 passes" ping_ok 10.253.1.2 -t 5
ok_if "ttl: counted 1" test "$(pkts $C OUTPUT 1)" = 1
ok_if "length: counted 1" test "$(pkts $C OUTPUT 2)" = 1
check "C: -F" 0 $NC $IPT -w -F

# tcpmss, u32 and ecn on TCP SYNs in S's INPUT: the SYN's MSS is 1460
# (MTU 1500); with tcp_ecn=1 the client's SYN carries ECE and CWR.
check "S: tcpmss 1400:1500 to 5001 DROP" 0 $NS $IPT -w -A INPUT -p tcp --dport 5001 \
	-m tcpmss --mss 1400:1500 -j DROP
check "S: SYN ! tcpmss 1400:1500 to 5003 DROP" 0 $NS $IPT -w -A INPUT -p tcp --dport 5003 \
	--syn -m tcpmss ! --mss 1400:1500 -j DROP
check "S: count segments to 5003 without MSS" 0 $NS $IPT -w -A INPUT -p tcp --dport 5003 \
	-m tcpmss ! --mss 0:65535
check "S: u32 destination port 6000 DROP" 0 $NS $IPT -w -A INPUT \
	-m u32 --u32 "6&0xFF=6&&0>>22&0x3C@0&0xFFFF=6000" -j DROP
check "S: ecn ECE and CWR to 6011 DROP" 0 $NS $IPT -w -A INPUT -p tcp --dport 6011 \
	-m ecn --ecn-tcp-ece --ecn-tcp-cwr -j DROP
ok_if "tcpmss: 5001 (MSS 1460) blocked" tcp_blocked 10.253.1.2 5001
ok_if "tcpmss !: 5003 open" tcp_ok 10.253.1.2 5003
ok_if "tcpmss: counted SYNs, only the first rule" \
	test "$(pkts $S INPUT 1)" -ge 1 -a "$(pkts $S INPUT 2)" = 0
ok_if "u32: 6000 blocked" tcp_blocked 10.253.1.2 6000
ok_if "u32: 6005 open" tcp_ok 10.253.1.2 6005
ok_if "tcpmss !: the ACKs (no MSS option) counted" test "$(pkts $S INPUT 3)" -ge 1
ok_if "u32: counted SYNs" test "$(pkts $S INPUT 4)" -ge 1
$NC sh -c 'echo 0 > /proc/sys/net/ipv4/tcp_ecn'
ok_if "ecn: 6011 open without ECN" tcp_ok 10.253.1.2 6011
# No fallback: the retransmitted SYNs keep ECE and CWR.
$NC sh -c 'echo 1 > /proc/sys/net/ipv4/tcp_ecn; echo 0 > /proc/sys/net/ipv4/tcp_ecn_fallback'
ok_if "ecn: 6011 blocked with an ECN SYN" tcp_blocked 10.253.1.2 6011
ok_if "ecn: counted SYNs" test "$(pkts $S INPUT 5)" -ge 1
$NC sh -c 'echo 2 > /proc/sys/net/ipv4/tcp_ecn; echo 1 > /proc/sys/net/ipv4/tcp_ecn_fallback'
check "S: -F" 0 $NS $IPT -w -F

if [ "$BACKEND" = bpfilter ]; then
	# Quiet by default: a successful replace writes nothing to the log.
	before=$(dmesg | grep -c 'bpfilter')
	check "C: one more rule" 0 $NC $IPT -w -A OUTPUT -p tcp -m multiport --dports 1,2,3 -j DROP
	ok_if "a successful replace adds no dmesg line" test "$(dmesg | grep -c 'bpfilter')" = "$before"
	check "C: -F" 0 $NC $IPT -w -F
fi

# A restore with every new match, saved back unchanged
cat > /tmp/mt.rules <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m multiport --sports 1:1023 -m comment --comment "privileged sources" -j ACCEPT
-A INPUT -p udp -m multiport --ports 53,67:68 -j ACCEPT
-A INPUT -m iprange --src-range 10.0.0.1-10.0.0.9 ! --dst-range 10.1.0.0-10.1.255.255 -j DROP
-A INPUT -m mark --mark 0x4000/0x4000 -j ACCEPT
-A INPUT -m length ! --length 0:1500 -j DROP
-A INPUT -m ttl --ttl-gt 200 -j DROP
-A INPUT -m tos --tos 0x10/0x3f -j ACCEPT
-A INPUT -m dscp ! --dscp 0x2e -j ACCEPT
-A INPUT -p esp -m esp --espspi 256:512 -j DROP
-A INPUT -p ah -m ah ! --ahspi 7 -j DROP
-A INPUT -p tcp -m ecn ! --ecn-tcp-ece --ecn-tcp-cwr --ecn-ip-ect 2 -j DROP
-A INPUT -p tcp -m tcpmss --mss 1:536 -j DROP
-A INPUT -m u32 --u32 "0x0>>0x16&0x3c@0xc>>0x1a&0x3c@0x0=0x47455420" -j DROP
COMMIT
RULES
check "restore every new match" 0 $NS $IPT_RESTORE /tmp/mt.rules
# iptables-save prints these rules exactly as written above (checked against ip_tables).
grep '^-A' /tmp/mt.rules > /tmp/mt.want
$NS $IPT_SAVE | grep '^-A' > /tmp/mt.got
ok_if "save prints the same rules" cmp -s /tmp/mt.want /tmp/mt.got
diff /tmp/mt.want /tmp/mt.got > /dev/null || diag "$(diff /tmp/mt.want /tmp/mt.got)"
cleanup
done_testing
