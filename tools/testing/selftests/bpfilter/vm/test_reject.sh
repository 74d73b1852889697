#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -j REJECT (issue 11): every --reject-with type, seen by the client. With
# bpfilter the BPF program calls bpfilter.ko's kfunc, which sends the answer
# with the kernel's nf_send_reset() / nf_send_unreach(); with ip_tables
# ipt_REJECT does (the reference). The client counts what it receives with
# its own INPUT rules.
#
#   C 10.255.1.1 --- 10.255.1.2 S
. "$(dirname "$0")/lib.sh"

C=rjC
S=rjS
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
}


connect()
{
	$NC sh -c "nc -w 2 10.255.1.2 $1 < /dev/null" > /dev/null 2>&1
}

rejected()
{
	! connect "$1"
}

ping_fails()
{
	! $NC ping -c 1 -W 2 10.255.1.2 > /dev/null 2>&1
}

cleanup
ns_pair $C 10.255.1.1 $S 10.255.1.2
# icmp_send() lets a peer have 6 errors, then one a second: the eighth answer
# in a row would be dropped (for ip_tables too) and the client count 0.
$NS sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_ratelimit'
srvs=
for port in 6000 6001 6002 6003 6004 6005 6006 6007; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
sleep 1

check "S: restore one REJECT per type" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 6001 -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 6002 -j REJECT
-A INPUT -p tcp -m tcp --dport 6003 -j REJECT --reject-with icmp-host-prohibited
-A INPUT -p tcp -m tcp --dport 6004 -j REJECT --reject-with icmp-admin-prohibited
-A INPUT -p tcp -m tcp --dport 6005 -j REJECT --reject-with icmp-net-unreachable
-A INPUT -p tcp -m tcp --dport 6006 -j REJECT --reject-with icmp-host-unreachable
-A INPUT -p tcp -m tcp --dport 6007 -j REJECT --reject-with icmp-net-prohibited
-A INPUT -p icmp -j REJECT --reject-with icmp-proto-unreachable
COMMIT
RULES
check "C: count what comes back" 0 $NC $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --tcp-flags RST RST
-A INPUT -p icmp -m icmp --icmp-type 3/3
-A INPUT -p icmp -m icmp --icmp-type 3/10
-A INPUT -p icmp -m icmp --icmp-type 3/13
-A INPUT -p icmp -m icmp --icmp-type 3/0
-A INPUT -p icmp -m icmp --icmp-type 3/1
-A INPUT -p icmp -m icmp --icmp-type 3/9
-A INPUT -p icmp -m icmp --icmp-type 3/2
-A OUTPUT -p tcp -m tcp --dport 6010 -j REJECT --reject-with tcp-reset
COMMIT
RULES
ok_if "baseline: 6000 is open" connect 6000
i=1
for port in 6001 6002 6003 6004 6005 6006 6007; do
	ok_if "connect to $port rejected" rejected $port
	ok_if "... and the client got the answer (rule $i)" test "$(pkts $C INPUT $i)" -ge 1
	i=$((i + 1))
done
ok_if "ping answered with protocol unreachable" ping_fails
ok_if "... counted by the client" test "$(pkts $C INPUT 8)" = 1
ok_if "each REJECT rule counted its packet" test "$(pkts $S INPUT 3)" -ge 1
ok_if "OUTPUT tcp-reset: the local connect fails" rejected 6010
ok_if "... with a reset the client's INPUT saw" test "$(pkts $C INPUT 1)" -ge 2
ok_if "the OUTPUT REJECT counted" test "$(pkts $C OUTPUT 1)" -ge 1

# reject_tg_check(): tcp-reset needs -p tcp; the table in force stays.
check "tcp-reset with -p udp refused" 1 $NS $IPT -w -A INPUT -p udp -j REJECT --reject-with tcp-reset
check "tcp-reset with ! -p tcp refused" 1 $NS $IPT -w -A INPUT ! -p tcp -j REJECT --reject-with tcp-reset
ok_if "the old rules are still there" test "$($NS $IPT -w -S INPUT | grep -c REJECT)" = 8
cleanup
done_testing
