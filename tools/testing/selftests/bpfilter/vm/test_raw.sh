#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The raw table (issue 14): PREROUTING and OUTPUT before conntrack, NOTRACK
# and CT --notrack so that --ctstate UNTRACKED matches in the filter table,
# MARK in raw, /proc/net/ip_tables_names in x_tables' order, and a
# multi-table iptables-legacy-restore, atomic per table. With bpfilter the
# raw chains are BPF programs at NF_IP_PRI_RAW and NOTRACK is bpfilter.ko's
# kfunc; with ip_tables iptable_raw and xt_CT do the same (the reference).
#
#   C 10.254.3.1 (and .99) --- 10.254.3.2 S
. "$(dirname "$0")/lib.sh"

C=rawC
S=rawS
IP6T=ip6tables-legacy
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	ns_kill $C $S
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# rawpkts NS CHAIN N: packets of rule N of the raw table's CHAIN in NS.
rawpkts()
{
	$IP netns exec "$1" $IPT -w -t raw -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

tcp_ok()
{
	# tcp_ok DST PORT: a connection from C that completes
	$NC sh -c "nc -w 3 $1 $2 < /dev/null" > /dev/null 2>&1
}

# tracked PORT: S's conntrack table has a connection to PORT
tracked()
{
	$NS cat /proc/net/nf_conntrack 2>/dev/null | grep -q "dport=$1 "
}

cleanup
ns_pair $C 10.254.3.1 $S 10.254.3.2
$IP -n $C addr add 10.254.3.99/24 dev ${C}0
for port in 5001 5002; do
	$NS nc -ll -p $port -e /bin/true &
done
sleep 1

cat > /tmp/raw.rules <<'RULES'
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:notrack_in - [0:0]
-A PREROUTING -p tcp --dport 5002 -j notrack_in
-A PREROUTING -s 10.254.3.99 -j DROP
-A OUTPUT -p tcp --sport 5002 -j NOTRACK
-A OUTPUT -p icmp -j MARK --set-mark 0x7
-A notrack_in -j CT --notrack
COMMIT
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -p tcp --dport 5001 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -p tcp --dport 5002 -m conntrack --ctstate UNTRACKED -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A OUTPUT -m mark --mark 0x7 -j ACCEPT
COMMIT
RULES

expect "S: no tables before their first use" 0 $NS cat /proc/net/ip_tables_names <<'EOF'
EOF
check "S: restore raw and filter from one file" 0 $NS $IPT_RESTORE /tmp/raw.rules
expect "S: ip_tables_names lists the newest table first" 0 \
	$NS cat /proc/net/ip_tables_names <<'EOF'
filter
raw
EOF
expect "S: iptables-legacy-save dumps both tables" 0 sh -c "$NS $IPT_SAVE | grep -v '^#'" <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5001 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5002 -m conntrack --ctstate UNTRACKED -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A OUTPUT -m mark --mark 0x7 -j ACCEPT
COMMIT
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:notrack_in - [0:0]
-A PREROUTING -p tcp -m tcp --dport 5002 -j notrack_in
-A PREROUTING -s 10.254.3.99/32 -j DROP
-A OUTPUT -p tcp -m tcp --sport 5002 -j NOTRACK
-A OUTPUT -p icmp -j MARK --set-xmark 0x7/0xffffffff
-A notrack_in -j CT --notrack
COMMIT
EOF

# --- traffic: tracked, untracked, marked, dropped before conntrack --------
ok_if "TCP to 5001 works (NEW, then ESTABLISHED)" tcp_ok 10.254.3.2 5001
ok_if "... and conntrack tracks it" tracked 5001
ok_if "TCP to 5002 works: NOTRACK in raw, UNTRACKED in filter" tcp_ok 10.254.3.2 5002
ok_if "... and conntrack never saw it" sh -c "! $NS cat /proc/net/nf_conntrack | grep -q 'dport=5002 '"
ok_if "filter's UNTRACKED rule counted the connection" test "$(pkts $S INPUT 3)" -ge 2
ok_if "raw PREROUTING jumped to notrack_in for it" \
	test "$(rawpkts $S PREROUTING 1)" = "$(rawpkts $S notrack_in 1)"
ok_if "... as often as filter's UNTRACKED rule matched" \
	test "$(rawpkts $S notrack_in 1)" = "$(pkts $S INPUT 3)"
ok_if "raw OUTPUT's NOTRACK counted S's answers" test "$(rawpkts $S OUTPUT 1)" -ge 2
ok_if "ping from C" $NC ping -c 1 -W 2 10.254.3.2
ok_if "raw OUTPUT marked the echo reply" test "$(rawpkts $S OUTPUT 2)" = 1
ok_if "filter OUTPUT saw the mark raw set" test "$(pkts $S OUTPUT 1)" = 1
ok_if "ping from 10.254.3.99 dropped in raw PREROUTING" \
	sh -c "! $NC ping -c 1 -W 1 -I 10.254.3.99 10.254.3.2 > /dev/null 2>&1"
ok_if "... counted there, before conntrack" test "$(rawpkts $S PREROUTING 2)" = 1
ok_if "... and never reached filter" test "$(pkts $S INPUT 4)" = 1

# --- a multi-table restore is atomic per table -----------------------------
cat > /tmp/raw-bad.rules <<'RULES'
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -s 10.254.3.98 -j DROP
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -j NOTRACK
COMMIT
RULES
expect "restore: NOTRACK in filter fails at its COMMIT" 1 $NS $IPT_RESTORE /tmp/raw-bad.rules <<'EOF'
iptables-restore: line 11 failed
EOF
expect "... raw's COMMIT before it took effect" 0 $NS $IPT -t raw -S <<'EOF'
-P PREROUTING ACCEPT
-P OUTPUT ACCEPT
-A PREROUTING -s 10.254.3.98/32 -j DROP
EOF
expect "... filter is unchanged" 0 $NS $IPT -S <<'EOF'
-P INPUT DROP
-P FORWARD DROP
-P OUTPUT ACCEPT
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5001 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5002 -m conntrack --ctstate UNTRACKED -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A OUTPUT -m mark --mark 0x7 -j ACCEPT
EOF
ok_if "TCP to 5002 is dropped now: tracked, so not UNTRACKED" \
	sh -c "! $NC sh -c 'nc -w 2 10.254.3.2 5002 < /dev/null' > /dev/null 2>&1"

# --- errors as ip_tables gives them -----------------------------------------
expect "-t raw has no INPUT chain" 1 klog $NS $IPT -t raw -A INPUT -j ACCEPT <<'EOF'
iptables: No chain/target/match by that name.
EOF
expect "CT outside raw: EINVAL" 1 klog $NS $IPT -A INPUT -j CT --notrack <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: CT target: only valid in raw table, not filter
EOF
expect "-t raw -P with a bad chain" 1 $NS $IPT -t raw -P FORWARD DROP <<'EOF'
iptables: Bad built-in chain name.
EOF

# --- the raw table in IPv6 ----------------------------------------------------
check "S: ip6tables -t raw NOTRACK" 0 $NS $IP6T -t raw -A PREROUTING -p udp -j NOTRACK
expect "S: ip6_tables_names lists raw alone" 0 $NS cat /proc/net/ip6_tables_names <<'EOF'
raw
EOF

if need_bpfilter "the helper's restart keeps raw tables"; then
	_h=$(helper_pids | head -n1)
	ino=$(stat -L -c %i /run/netns/$S)
	ok_if "the raw table is saved in the helper's state" test -e "/proc/$_h/fd/4/$ino.raw"
	ok_if "... and its IPv6 one" test -e "/proc/$_h/fd/4/$ino.ip6_raw"
	check "kill the helper" 0 kill -9 "$_h"
	ok_if "raw PREROUTING still drops from 10.254.3.98 with no helper" \
		sh -c "$IP -n $C addr add 10.254.3.98/24 dev ${C}0 && \
		       ! $NC ping -c 1 -W 1 -I 10.254.3.98 10.254.3.2 > /dev/null 2>&1"
	ok_if "a new helper took back the drop the pinned program counted" \
		test "$(rawpkts $S PREROUTING 1)" = 1
	expect "... and lists the tables in the same order" 0 \
		$NS cat /proc/net/ip_tables_names <<'EOF'
filter
raw
EOF
	expect "CT without --notrack is not supported" 1 \
		$NS $IPT -t raw -A PREROUTING -j CT --zone 1 <<'EOF'
iptables: Operation not supported.
EOF
fi

cleanup
done_testing
