#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stateful filtering (issue 11): -m conntrack and -m state with real
# connections. With bpfilter the BPF programs read the state from
# skb->_nfct and bpfilter.ko holds conntrack on in the namespace while its
# table needs it; with ip_tables xt_conntrack/xt_state do (the reference).
#
#   C 10.254.1.1 --- 10.254.1.2 S
. "$(dirname "$0")/lib.sh"

C=ctC
S=ctS
NC="$IP netns exec $C"
NS="$IP netns exec $S"
BIN=$(dirname "$0")

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
}


tcp_ok()
{
	# tcp_ok FROM-NS DST PORT
	$IP netns exec "$1" sh -c "nc -w 3 $2 $3 < /dev/null" > /dev/null 2>&1
}

cleanup
ns_pair $C 10.254.1.1 $S 10.254.1.2
srvs=
for port in 5001 5002; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
$NC nc -ll -p 7001 -e /bin/true &
srvs="$srvs $!"
sleep 1

# A server: established and related first, one new service, policy DROP.
cat > /tmp/ct.rules <<'RULES'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -m conntrack --ctstate INVALID -j DROP
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5001 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -p icmp -m state --state NEW -j ACCEPT
COMMIT
RULES
check "S: restore a stateful server ruleset" 0 $NS $IPT_RESTORE /tmp/ct.rules
ok_if "NEW to 5001 accepted, the connection works" tcp_ok $C 10.254.1.2 5001
ok_if "NEW to 5002 dropped by the policy" sh -c "! $NC sh -c 'nc -w 2 10.254.1.2 5002 < /dev/null' > /dev/null 2>&1"
ok_if "ESTABLISHED counted the rest of the connection" test "$(pkts $S INPUT 1)" -ge 2
ok_if "the NEW rule counted one SYN" test "$(pkts $S INPUT 4)" = 1
ok_if "ping: NEW by -m state, the reply ESTABLISHED in C" $NC ping -c 1 -W 2 10.254.1.2
ok_if "-m state counted the echo request" test "$(pkts $S INPUT 5)" = 1
check "C: SYN|FIN to S" 0 $NC "$BIN/tcp_flags" 10.254.1.1 10.254.1.2 4000 5001 0x03
sleep 1
ok_if "INVALID: SYN|FIN counted by the INVALID rule" test "$(pkts $S INPUT 2)" = 1

# Options read from the conntrack entry: counting rules, one connection.
cat > /tmp/ct.entry <<'RULES'
-m conntrack --ctproto tcp --ctorigdstport 5001 --ctstatus SEEN_REPLY
-m conntrack --ctorigsrc 10.254.1.0/24 --ctrepldst 10.254.1.1 --ctstatus ASSURED
-m conntrack --ctreplsrcport 5000:5010 ! --ctorigdst 10.254.1.9 --ctexpire 100:500000
-m conntrack ! --ctproto tcp
-m conntrack --ctstate ESTABLISHED,DNAT
RULES
i=1
while read -r m; do
	check "S: -I INPUT $i $m" 0 $NS $IPT -w -I INPUT $i $m
	i=$((i + 1))
done < /tmp/ct.entry
ok_if "a connection to 5001" tcp_ok $C 10.254.1.2 5001
ok_if "proto, port and SEEN_REPLY counted the packets after the SYN" test "$(pkts $S INPUT 1)" -ge 2
ok_if "addresses and ASSURED counted the packets after the handshake" test "$(pkts $S INPUT 2)" -ge 1
ok_if "reply port range and expiry counted" test "$(pkts $S INPUT 3)" -ge 2
ok_if "! --ctproto tcp counted nothing" test "$(pkts $S INPUT 4)" = 0
ok_if "ESTABLISHED,DNAT counted" test "$(pkts $S INPUT 5)" -ge 2
check "S: back to the server ruleset" 0 $NS $IPT_RESTORE /tmp/ct.rules

# The server cannot open connections: OUTPUT allows only what is established.
check "S: OUTPUT ESTABLISHED only" 0 $NS $IPT -w -A OUTPUT -m conntrack ! --ctstate ESTABLISHED,RELATED -j DROP
ok_if "S -> C:7001 (NEW from S) blocked" sh -c "! $NS sh -c 'nc -w 2 10.254.1.1 7001 < /dev/null' > /dev/null 2>&1"
ok_if "C -> S:5001 still works (replies ESTABLISHED)" tcp_ok $C 10.254.1.2 5001
check "S: -D OUTPUT 1" 0 $NS $IPT -w -D OUTPUT 1

# RELATED: S routes for C but has no route to 10.99.99.0/24: its "network
# unreachable" for C's echo request is related to that flow in C.
$NS sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
$IP -n $C route add 10.99.99.0/24 via 10.254.1.2
check "C: INPUT counts RELATED icmp" 0 $NC $IPT -w -A INPUT -p icmp -m conntrack --ctstate RELATED
check "C: --ctdir REPLY counted" 0 $NC $IPT -w -A INPUT -m conntrack --ctdir REPLY
$NC ping -c 1 -W 1 10.99.99.1 > /dev/null 2>&1
ok_if "RELATED: the net unreachable counted" test "$(pkts $C INPUT 1)" = 1
ok_if "--ctdir REPLY counted it too" test "$(pkts $C INPUT 2)" = 1

# Conntrack runs only while a table needs it.
check "C: -F" 0 $NC $IPT -w -F
check "S: restore without conntrack matches" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp --dport 5002 -j ACCEPT
COMMIT
RULES
before=$($NS cat /proc/sys/net/netfilter/nf_conntrack_count)
tcp_ok $C 10.254.1.2 5002
after=$($NS cat /proc/sys/net/netfilter/nf_conntrack_count)
ok_if "no conntrack table: a new connection is not tracked in S ($before -> $after)" \
	test "$after" -le "$before"
check "S: -m state again" 0 $NS $IPT -w -I INPUT 1 -m state --state NEW
tcp_ok $C 10.254.1.2 5002
after2=$($NS cat /proc/sys/net/netfilter/nf_conntrack_count)
ok_if "with a state rule: the connection is tracked ($after -> $after2)" test "$after2" -gt "$after"
ok_if "and counted NEW" test "$(pkts $S INPUT 1)" = 1

if [ "$BACKEND" = bpfilter ]; then
	check "S: restore the server ruleset again" 0 $NS $IPT_RESTORE /tmp/ct.rules
	p=$(helper_pids | head -n1)
	check "kill -9 the helper" 0 kill -9 "$p"
	sleep 1
	ok_if "helper dead: NEW to 5001 still accepted" tcp_ok $C 10.254.1.2 5001
	ok_if "helper dead: 5002 still dropped" sh -c "! $NC sh -c 'nc -w 2 10.254.1.2 5002 < /dev/null' > /dev/null 2>&1"
	ok_if "the restarted helper reports the count" test "$(pkts $S INPUT 4)" = 1
fi
cleanup
done_testing
