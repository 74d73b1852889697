#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stateful extensions over IPv6 (issue 13): -j REJECT (ip6t_REJECT's
# types, seen by the client), -j LOG (the kernel's IPv6 log line), -j NFLOG
# (a netlink listener hears the IPv6 packet), -m conntrack / -m state with
# real connections, -m recent (the kernel's lists, held per family: an IPv6
# replace leaves the IPv4 table's alone), and conntrack held per family: an
# IPv4 table with state rules turns on no IPv6 conntrack, as with ip_tables
# and ip6_tables; then (bpfilter) the helper killed under IPv6 and IPv4
# tables, which survive with their counters, recent list and verdicts, and
# an unload and load of the backend with IPv6 tables. With
# bpfilter the BPF programs call bpfilter.ko's kfuncs (nf_send_reset6(),
# nf_send_unreach6(), nf_log_packet() in NFPROTO_IPV6) and the module holds
# nf_ct_netns_get(net, NFPROTO_IPV6); with ip6_tables its own modules do.
#
#   C fd00:254:1::1 --- fd00:254:1::2 S   (and 10.254.6.1 --- 10.254.6.2)
. "$(dirname "$0")/lib.sh"

IP6T=ip6tables-legacy
IP6T_RESTORE=ip6tables-legacy-restore
C=s6C
S=s6S
CA=fd00:254:1::1
SA=fd00:254:1::2
NC="$IP netns exec $C"
NS="$IP netns exec $S"
BIN=$(dirname "$0")
L=$TAP_DIR/nflog6

cleanup()
{
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
	srvs=
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# connects NS DST PORT: a TCP connection from namespace NS to DST:PORT works.
connects()
{
	$IP netns exec "$1" sh -c "nc -w 2 $2 $3 < /dev/null" > /dev/null 2>&1
}

refused()
{
	! connects "$@"
}

pkts6()
{
	$IP netns exec "$1" $IP6T -w -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

# ct6 NS: the namespace's IPv6 conntrack entries.
ct6()
{
	$IP netns exec "$1" cat /proc/net/nf_conntrack 2>/dev/null | grep -c '^ipv6 '
}

# The last kernel log line with prefix $1, without the timestamp.
logline()
{
	dmesg | grep -F "$1" | tail -n 1 | sed 's/^\[[^]]*\] //'
}

setup()
{
	cleanup
	for n in $C $S; do
		$IP netns add $n
		$IP -n $n link set lo up
	done
	$IP link add ${C}0 netns $C address 02:00:00:00:06:01 type veth peer name ${S}0 \
		netns $S address 02:00:00:00:06:02
	$IP -n $C addr add $CA/64 dev ${C}0 nodad
	$IP -n $S addr add $SA/64 dev ${S}0 nodad
	$IP -n $C addr add 10.254.6.1/24 dev ${C}0
	$IP -n $S addr add 10.254.6.2/24 dev ${S}0
	$IP -n $C link set ${C}0 up
	$IP -n $S link set ${S}0 up
	# icmpv6_xrlim_allow() would let only some of the answers out in a row.
	$NS sh -c 'echo 0 > /proc/sys/net/ipv6/icmp/ratelimit'
	$NC ping -6 -c 1 -W 2 $SA > /dev/null 2>&1	# neighbours resolved
}

if [ "$BACKEND" = ip_tables ]; then
	check "load ip6table_filter (control)" 0 modprobe ip6table_filter
fi

# ---- REJECT ----
setup
srvs=
for port in 6000 6001 6002 6003 6004 6005 6006 6007 5001 5002; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
sleep 1
check "S: restore one REJECT per type" 0 $NS $IP6T_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 6001 -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 6002 -j REJECT
-A INPUT -p tcp -m tcp --dport 6003 -j REJECT --reject-with icmp6-adm-prohibited
-A INPUT -p tcp -m tcp --dport 6004 -j REJECT --reject-with icmp6-addr-unreachable
-A INPUT -p tcp -m tcp --dport 6005 -j REJECT --reject-with icmp6-no-route
-A INPUT -p tcp -m tcp --dport 6006 -j REJECT --reject-with icmp6-policy-fail
-A INPUT -p tcp -m tcp --dport 6007 -j REJECT --reject-with icmp6-reject-route
COMMIT
RULES
check "C: count what comes back" 0 $NC $IP6T_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --tcp-flags RST RST
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/4
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/1
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/3
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/0
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/5
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/6
-A OUTPUT -p tcp -m tcp --dport 6010 -j REJECT --reject-with tcp-reset
COMMIT
RULES
ok_if "baseline: 6000 is open" connects $C $SA 6000
i=1
for port in 6001 6002 6003 6004 6005 6006 6007; do
	ok_if "connect to $port rejected" refused $C $SA $port
	ok_if "... and the client got the answer (rule $i)" test "$(pkts6 $C INPUT $i)" -ge 1
	i=$((i + 1))
done
ok_if "the tcp-reset REJECT counted" test "$(pkts6 $S INPUT 1)" -ge 1
ok_if "OUTPUT tcp-reset: the local connect fails" refused $C $SA 6010
ok_if "... with a reset the client's INPUT saw" test "$(pkts6 $C INPUT 1)" -ge 2
ok_if "the OUTPUT REJECT counted" test "$(pkts6 $C OUTPUT 1)" -ge 1
# reject_tg6_check(): tcp-reset needs -p tcp; the table in force stays.
check "tcp-reset with -p udp refused" 1 $NS $IP6T -w -A INPUT -p udp -j REJECT --reject-with tcp-reset
check "tcp-reset with ! -p tcp refused" 1 $NS $IP6T -w -A INPUT ! -p tcp -j REJECT --reject-with tcp-reset
ok_if "the old rules are still there" test "$($NS $IP6T -w -S INPUT | grep -c REJECT)" = 7

# ---- LOG and NFLOG ----
echo 1 > /proc/sys/net/netfilter/nf_log_all_netns
check "S: LOG and NFLOG rules" 0 $NS $IP6T_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 5001 -j LOG --log-prefix "bpf6-log-a: " --log-macdecode
-A INPUT -p tcp -m tcp --dport 5002 -j NFLOG --nflog-prefix "bpf6-nflog" --nflog-group 7
-A INPUT -p tcp -m tcp --dport 5002 -j DROP
COMMIT
RULES
ok_if "C: a connection to 5001 passes LOG" connects $C $SA 5001
line=$(logline 'bpf6-log-a: ')
diag "$line"
# nf_log_ip6_packet(): MACSRC/MACDST/MACPROTO, then the IPv6 fields (%pI6: uncompressed).
ok_if "the IPv6 log line, from S's INPUT" sh -c "printf '%s\n' \"\$1\" | grep -q '^bpf6-log-a: \
IN=${S}0 OUT= MACSRC=02:00:00:00:06:01 MACDST=02:00:00:00:06:02 MACPROTO=86dd \
SRC=fd00:0254:0001:0000:0000:0000:0000:0001 DST=fd00:0254:0001:0000:0000:0000:0000:0002 \
LEN=[0-9]* TC=0 HOPLIMIT=64 FLOWLBL=[0-9]* PROTO=TCP SPT=[0-9]* DPT=5001 '" sh "$line"
ok_if "the LOG rule counted" test "$(pkts6 $S INPUT 1)" -ge 1
rm -f "$L.out" "$L.err" "$L.rc"
( $NS "$BIN/nflog_listen" 7 1 20 > "$L.out" 2> "$L.err"; echo "rc=$?" > "$L.rc" ) &
WAIT_S=10 wait_for grep -q ready "$L.err"
ok_if "C: a connection to 5002 is dropped after NFLOG" refused $C $SA 5002
WAIT_S=25 wait_for test -s "$L.rc"
diag "$(cat "$L.rc" "$L.out")"
ok_if "the group 7 listener heard the IPv6 SYN" grep -q \
	"^prefix=bpf6-nflog hook=1 hwproto=0x86dd in=${S}0 out=- len=[0-9]* proto=6 src=$CA dst=$SA sport=[0-9]* dport=5002\$" \
	"$L.out"
echo 0 > /proc/sys/net/netfilter/nf_log_all_netns

# ---- conntrack and state ----
$NC nc -ll -p 7001 -e /bin/true &
srvs="$srvs $!"
sleep 1
ok_if "no IPv6 conntrack in S yet" test "$(ct6 $S)" = 0
check "S: a stateful IPv6 server" 0 $NS $IP6T_RESTORE <<'RULES'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -m state --state INVALID -j DROP
-A INPUT -i lo -j ACCEPT
-A INPUT -p ipv6-icmp -j ACCEPT
-A INPUT -p tcp -m tcp --dport 5001 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -s fd00:254:1::/64 -m conntrack --ctstate NEW --ctorigsrc fd00:254:1::1 --ctorigdst fd00:254:1::2/128 -p tcp -m tcp --dport 6000 -j ACCEPT
-A INPUT -m conntrack ! --ctorigsrc fd00:254:1::1 -p tcp -m tcp --dport 6001 -j ACCEPT
COMMIT
RULES
ok_if "NEW to 5001 accepted" connects $C $SA 5001
ok_if "NEW to 6000 accepted by its --ctorigsrc/--ctorigdst rule" connects $C $SA 6000
ok_if "NEW to 6001 dropped (! --ctorigsrc)" refused $C $SA 6001
ok_if "NEW to 5002 dropped by the policy" refused $C $SA 5002
ok_if "S connects out to C: the replies are ESTABLISHED" connects $S $CA 7001
ok_if "the ESTABLISHED rule counted" test "$(pkts6 $S INPUT 1)" -ge 2
ok_if "the 5001 and 6000 NEW rules counted" \
	test "$(pkts6 $S INPUT 5)" -ge 1 -a "$(pkts6 $S INPUT 6)" -ge 1
ok_if "IPv6 conntrack runs in S" test "$(ct6 $S)" -ge 1
diag "$($NS $IP6T -w -nvxL INPUT)"
# xt_connmark reads the entry's mark: 0 for these connections.
check "S: a connmark rule first" 0 $NS $IP6T -w -I INPUT 1 -p tcp --dport 5001 -m connmark --mark 0x0/0xff
check "S: and one that never matches" 0 $NS $IP6T -w -I INPUT 2 -p tcp --dport 5001 -m connmark --mark 0x1/0xff
ok_if "NEW to 5001 accepted again" connects $C $SA 5001
ok_if "the connmark 0 rule counted, the 1 rule not" \
	test "$(pkts6 $S INPUT 1)" -ge 1 -a "$(pkts6 $S INPUT 2)" = 0

# ---- recent: a kernel-held match, held per family ----
cleanup
setup
$NS nc -ll -p 5001 -e /bin/true &
srvs="$!"
sleep 1
check "S: an IPv4 recent list" 0 $NS $IPT -w -A INPUT -p tcp --dport 5001 -m recent --name v4list --set
ok_if "an IPv4 connection" connects $C 10.254.6.2 5001
ok_if "... is on the IPv4 list" $NS grep -q "^src=10.254.6.1 " /proc/net/xt_recent/v4list
check "S: an IPv6 ssh-style limiter" 0 $NS $IP6T_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 5001 --syn -m recent --set --name v6list
-A INPUT -p tcp -m tcp --dport 5001 --syn -m recent --rcheck --hitcount 2 --name v6list -j DROP
COMMIT
RULES
ok_if "the first IPv6 connection passes" connects $C $SA 5001
ok_if "the second is dropped (hitcount 2)" refused $C $SA 5001
ok_if "xt_recent's IPv6 list has the client" \
	$NS grep -q "^src=fd00:0254:0001:0000:0000:0000:0000:0001 " /proc/net/xt_recent/v6list
ok_if "the IPv4 list survived the IPv6 replace" $NS grep -q "^src=10.254.6.1 " /proc/net/xt_recent/v4list
check "S: flush IPv6" 0 $NS $IP6T -w -F
ok_if "the IPv6 list is gone with its rules" $NS test ! -e /proc/net/xt_recent/v6list
ok_if "the IPv4 one is still there" $NS test -e /proc/net/xt_recent/v4list
check "S: flush IPv4" 0 $NS $IPT -w -F
ok_if "and goes with its rules" $NS test ! -e /proc/net/xt_recent/v4list

# ---- conntrack held per family ----
cleanup
setup
$NS nc -ll -p 5001 -e /bin/true &
srvs="$!"
sleep 1
check "S: an IPv4 state table" 0 $NS $IPT -w -A INPUT -m state --state ESTABLISHED -j ACCEPT
ok_if "an IPv6 connection" connects $C $SA 5001
ok_if "... left no IPv6 conntrack entry" test "$(ct6 $S)" = 0
ok_if "an IPv4 connection" connects $C 10.254.6.2 5001
ok_if "... is tracked" sh -c "$NS cat /proc/net/nf_conntrack | grep -q '^ipv4 .*dport=5001'"
check "S: an IPv6 state table too" 0 $NS $IP6T -w -A INPUT -m state --state ESTABLISHED -j ACCEPT
ok_if "an IPv6 connection again" connects $C $SA 5001
ok_if "... is tracked now" sh -c "$NS cat /proc/net/nf_conntrack | grep -q '^ipv6 .*dport=5001'"
check "S: the IPv6 state rule goes" 0 $NS $IP6T -w -F
check "S: the IPv4 one too" 0 $NS $IPT -w -F

# ---- the helper dies: IPv6 tables, counters and verdicts survive ----
gone()
{
	[ ! -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
# The IPv6 rules, without their counters.
rules6()
{
	$NS ip6tables-legacy-save 2>&1 | grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'
}
if need_bpfilter "IPv6 helper crash survival"; then
	check "S: a dual-stack table with state, REJECT and a recent list" 0 $NS $IP6T_RESTORE -c <<'RULES'
*filter
:INPUT ACCEPT [3:300]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
[4:40] -A INPUT -m state --state ESTABLISHED -j ACCEPT
[5:50] -A INPUT -p tcp -m tcp --dport 5001 --syn -m recent --set --name v6kill
[6:60] -A INPUT -p tcp -m tcp --dport 5002 -j REJECT --reject-with tcp-reset
COMMIT
RULES
	check "S: and an IPv4 rule" 0 $NS $IPT -w -A INPUT -p tcp --dport 5002 -j REJECT --reject-with tcp-reset
	ok_if "5001 connects" connects $C $SA 5001
	before=$(rules6)
	pid1=$(helper_pids | head -n1)
	check "kill -9 the helper" 0 kill -9 "$pid1"
	ok_if "the helper is gone" wait_for gone "$pid1"
	ok_if "the IPv6 table in force still rejects 5002 meanwhile" refused $C $SA 5002
	check "the next ip6tables command works" 0 $NS $IP6T -w -S
	ok_if "same IPv6 rules after the crash" test "$(rules6)" = "$before"
	ok_if "counters kept and counting: the REJECT rule's 6 and more" \
		test "$(pkts6 $S INPUT 3)" -ge 7
	ok_if "the IPv4 rule is still there" sh -c "$NS $IPT -w -S INPUT | grep -q 'dport 5002'"
	ok_if "the recent list was kept" $NS grep -q "^src=fd00:0254:0001:0000:0000:0000:0000:0001 " \
		/proc/net/xt_recent/v6kill
	ok_if "5002 still rejected after the restart" refused $C $SA 5002
	ok_if "5001 still connects, ESTABLISHED counted" connects $C $SA 5001
	check "S: flush IPv6 and IPv4" 0 sh -c "$NS $IP6T -w -F && $NS $IPT -w -F"
fi

# ---- unload and load with IPv6 tables (stock: ip6table_filter) ----
cleanup
setup
check "S: an IPv6 table with conntrack and a recent list" 0 $NS $IP6T_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate ESTABLISHED -j ACCEPT
-A INPUT -p tcp -m recent --set --name v6cycle
COMMIT
RULES
cleanup
if [ "$BACKEND" = bpfilter ]; then
	ok_if "rmmod bpfilter with IPv6 tables gone" wait_for rmmod bpfilter
	check "modprobe bpfilter" 0 modprobe bpfilter
else
	ok_if "rmmod ip6table_filter" wait_for rmmod ip6table_filter
	check "modprobe ip6table_filter" 0 modprobe ip6table_filter
fi
expect "the IPv6 table is the initial one" 0 $IP6T -w -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
cleanup
done_testing
