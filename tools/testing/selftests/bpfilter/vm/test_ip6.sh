#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ip6tables-legacy through the same module and helper (issue 13): commands,
# -S/-L/-save, restore, errors (userspace and checkentry), counters, packets
# judged at the IPv6 hooks, a dual-stack server ruleset restored with both
# iptables-legacy-restore and ip6tables-legacy-restore and checked with real
# v4 and v6 connections, and bpfilter's ipv6=0, which leaves IPv6 to
# ip6_tables. Outputs recorded against stock ip6_tables.
. "$(dirname "$0")/lib.sh"

IP6T=ip6tables-legacy
C=v6C
S=v6S
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
	srvs=
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

# counted OUTPUT: the -L -v -x listing OUTPUT has a dpt:22 rule with packets.
counted()
{
	printf '%s\n' "$1" | awk '/dpt:22/ && $1 > 0 { f = 1 } END { exit !f }'
}

if [ "$BACKEND" = ip_tables ]; then
	check "load ip6table_filter (control)" 0 modprobe ip6table_filter
else
	ok_if "ip6_tables.ko is not loaded" sh -c '! grep -q "^ip6_tables " /proc/modules'
fi
reset_table $IP6T
ok_if "/proc/net/ip6_tables_names lists filter" grep -qx filter /proc/net/ip6_tables_names

expect "initial table -S" 0 $IP6T -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF

check "-A tcp --dport" 0 $IP6T -A INPUT -p tcp --dport 22 -j ACCEPT
check "-A udp ! --sport with a source net" 0 \
	$IP6T -A INPUT -s 2001:db8::/32 -p udp ! --sport 53 -j DROP
check "-I icmpv6 --icmpv6-type" 0 $IP6T -I INPUT -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT
check "-I at position 3, ! -s, ! -p" 0 $IP6T -I INPUT 3 ! -s 2001:db8:1::/48 ! -p tcp -j DROP
check "-N user chain" 0 $IP6T -N web
check "-A jump, ! -i eth+, --syn" 0 $IP6T -A INPUT ! -i eth+ -p tcp --syn -j web
check "-A multiport RETURN" 0 $IP6T -A web -p tcp -m multiport --dports 80,443 -j RETURN
check "-A ! -d" 0 $IP6T -A web ! -d 2001:db8::1 -j DROP
check "-A goto" 0 $IP6T -A FORWARD -p udp --dport 1000:2000 -g web
check "-A -p esp -m mark" 0 $IP6T -A FORWARD -p esp -m mark --mark 0x1/0xff -j DROP
check "-A -o -m comment" 0 $IP6T -A OUTPUT -o nomatch0 -m comment --comment "to nowhere" -j ACCEPT
check "-P FORWARD DROP" 0 $IP6T -P FORWARD DROP

expect "-S after edits" 0 $IP6T -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD DROP
-P OUTPUT ACCEPT
-N web
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT ! -s 2001:db8:1::/48 ! -p tcp -j DROP
-A INPUT -s 2001:db8::/32 -p udp -m udp ! --sport 53 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j web
-A FORWARD -p udp -m udp --dport 1000:2000 -g web
-A FORWARD -p esp -m mark --mark 0x1/0xff -j DROP
-A OUTPUT -o nomatch0 -m comment --comment "to nowhere" -j ACCEPT
-A web -p tcp -m multiport --dports 80,443 -j RETURN
-A web ! -d 2001:db8::1/128 -j DROP
EOF

expect "-L -n -v --line-numbers" 0 $IP6T -L -n -v --line-numbers <<'EOF'
Chain INPUT (policy ACCEPT 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 ACCEPT     58   --  *      *       ::/0                 ::/0                 ipv6-icmptype 128
2        0     0 ACCEPT     6    --  *      *       ::/0                 ::/0                 tcp dpt:22
3        0     0 DROP      !6    --  *      *      !2001:db8:1::/48      ::/0                
4        0     0 DROP       17   --  *      *       2001:db8::/32        ::/0                 udp spt:!53
5        0     0 web        6    --  !eth+  *       ::/0                 ::/0                 tcp flags:0x17/0x02

Chain FORWARD (policy DROP 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 web        17   --  *      *       ::/0                 ::/0                [goto]  udp dpts:1000:2000
2        0     0 DROP       50   --  *      *       ::/0                 ::/0                 mark match 0x1/0xff

Chain OUTPUT (policy ACCEPT 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 ACCEPT     0    --  *      nomatch0  ::/0                 ::/0                 /* to nowhere */

Chain web (2 references)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 RETURN     6    --  *      *       ::/0                 ::/0                 multiport dports 80,443
2        0     0 DROP       0    --  *      *       ::/0                !2001:db8::1         
EOF

expect "ip6tables-legacy-save -c" 0 ip6tables-legacy-save -c <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
[0:0] -A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT
[0:0] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
[0:0] -A INPUT ! -s 2001:db8:1::/48 ! -p tcp -j DROP
[0:0] -A INPUT -s 2001:db8::/32 -p udp -m udp ! --sport 53 -j DROP
[0:0] -A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j web
[0:0] -A FORWARD -p udp -m udp --dport 1000:2000 -g web
[0:0] -A FORWARD -p esp -m mark --mark 0x1/0xff -j DROP
[0:0] -A OUTPUT -o nomatch0 -m comment --comment "to nowhere" -j ACCEPT
[0:0] -A web -p tcp -m multiport --dports 80,443 -j RETURN
[0:0] -A web ! -d 2001:db8::1/128 -j DROP
COMMIT
EOF

run ip6tables-legacy-save
saved=$(printf '%s\n' "$OUT" | grep -v '^#')
reset_table $IP6T
run sh -c 'printf "%s\n" "$1" | ip6tables-legacy-restore' sh "$saved"
ok_if "restore of the saved table" [ "$RC" -eq 0 ]
run ip6tables-legacy-save
ok_if "save after restore is the same" [ "$(printf '%s\n' "$OUT" | grep -v '^#')" = "$saved" ]

expect "-A with an unknown target" 2 $IP6T -A INPUT -j NOPE <<'EOF'
ip6tables @IPT_VERSION@ (legacy): Couldn't load target `NOPE':No such file or directory

Try `ip6tables -h' or 'ip6tables --help' for more information.
EOF
expect "-D past the end" 1 $IP6T -D INPUT 99 <<'EOF'
ip6tables: Index of deletion too big.
EOF
expect "-X of a referenced chain" 1 $IP6T -X web <<'EOF'
ip6tables: Too many links.
EOF
expect "icmp6 match in a tcp rule (checkentry EINVAL)" 1 \
	klog $IP6T -A INPUT -p tcp -m icmp6 --icmpv6-type 1 -j DROP <<'EOF'
ip6tables: Invalid argument. Run `dmesg' for more information.
x_tables: ip6_tables: icmp6 match: only valid for protocol 58
EOF
expect "REJECT --reject-with tcp-reset with -p udp" 1 \
	klog $IP6T -A INPUT -p udp -j REJECT --reject-with tcp-reset <<'EOF'
ip6tables: Invalid argument. Run `dmesg' for more information.
ip6t_REJECT: TCP_RESET illegal for non-tcp
EOF
expect "the IPv4 table is untouched" 0 $IPT -S INPUT <<'EOF'
-P INPUT ACCEPT
EOF
reset_table $IP6T

# Packets at the IPv6 hooks of other namespaces.
cleanup
for n in $C $S; do
	$IP netns add $n
	$IP -n $n link set lo up
done
$IP link add ${C}0 netns $C type veth peer name ${S}0 netns $S
$IP -n $C addr add fd00:13::1/64 dev ${C}0 nodad
$IP -n $S addr add fd00:13::2/64 dev ${S}0 nodad
$IP -n $C addr add 10.252.13.1/24 dev ${C}0
$IP -n $S addr add 10.252.13.2/24 dev ${S}0
$IP -n $C link set ${C}0 up
$IP -n $S link set ${S}0 up
for port in 22 80; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
sleep 1

check "ping6 before rules" 0 $NC ping -6 -c 1 -W 2 fd00:13::2
check "-A echo-request DROP in the namespace" 0 \
	$NS $IP6T -A INPUT -p ipv6-icmp --icmpv6-type echo-request -j DROP
check "ping6 is dropped" 1 $NC ping -6 -c 1 -W 2 fd00:13::2
# Without the policy line: neighbour discovery may count there.
expect "the DROP rule counted the echo request" 0 \
	sh -c "$NS $IP6T -L INPUT -v -n -x | tail -n +2" <<'EOF'
    pkts      bytes target     prot opt in     out     source               destination         
       1      104 DROP       58   --  *      *       ::/0                 ::/0                 ipv6-icmptype 128
EOF
check "ping over IPv4 still passes" 0 $NC ping -c 1 -W 2 10.252.13.2
check "-F in the namespace" 0 $NS $IP6T -F
check "ping6 after -F" 0 $NC ping -6 -c 1 -W 2 fd00:13::2

# A dual-stack server: the same policy in both families, restored with both tools.
run $NS iptables-legacy-restore <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A INPUT -s 10.252.13.0/24 -p tcp --dport 22 -j ACCEPT
COMMIT
EOF
ok_if "iptables-legacy-restore of the v4 server policy" [ "$RC" -eq 0 ]
run $NS ip6tables-legacy-restore <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p ipv6-icmp -j ACCEPT
-A INPUT -s fd00:13::/64 -p tcp --dport 22 -j ACCEPT
COMMIT
EOF
ok_if "ip6tables-legacy-restore of the v6 server policy" [ "$RC" -eq 0 ]
ok_if "v4 ssh connects" connects $C 10.252.13.2 22
ok_if "v4 port 80 is dropped" refused $C 10.252.13.2 80
ok_if "v6 ssh connects" connects $C fd00:13::2 22
ok_if "v6 port 80 is dropped" refused $C fd00:13::2 80
run $NS $IP6T -L INPUT -v -n -x
ok_if "the v6 ssh rule counted packets" counted "$OUT"
run $NS $IPT -L INPUT -v -n -x
ok_if "the v4 ssh rule counted packets" counted "$OUT"
if [ "$BACKEND" = bpfilter ]; then
	run bpftool prog show
	ok_if "bpftool shows bpf_ip6_INPUT" sh -c 'printf "%s\n" "$1" | grep -q bpf_ip6_INPUT' \
		sh "$OUT"
fi

# The IPv6 extension matches, as counting rules: this kernel's verifier takes them,
# plain TCP over IPv6 counts where it should and still connects. (mh is left to
# verdict-diff6: -save names its protocol from the system's /etc/protocols.)
check "restore the IPv6 extension matches" 0 $NS ip6tables-legacy-restore <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m frag --fragid 1:5 --fragfirst
-A INPUT -m hbh --hbh-len 8 --hbh-opts 1:4
-A INPUT -m dst ! --dst-len 16
-A INPUT -m rt --rt-type 0 --rt-segsleft 0 --rt-0-res --rt-0-addrs ::1
-A INPUT -m ah --ahspi 256:300 --ahres
-A INPUT -m ipv6header --header prot
-A INPUT -m ipv6header ! --header frag,prot --soft
-A INPUT -p tcp -m hl --hl-eq 64 -m tcp --dport 22
-A INPUT -m eui64
COMMIT
EOF
expect "-save shows them as written" 0 sh -c "$NS ip6tables-legacy-save | grep -- '^-A'" <<'EOF'
-A INPUT -m frag --fragid 1:5 --fragfirst
-A INPUT -m hbh --hbh-len 8 --hbh-opts 1:4
-A INPUT -m dst ! --dst-len 16
-A INPUT -m rt --rt-type 0 --rt-segsleft 0 --rt-0-res --rt-0-addrs ::1
-A INPUT -m ah --ahspi 256:300 --ahres
-A INPUT -m ipv6header --header protocol
-A INPUT -m ipv6header ! --header ipv6-frag,protocol --soft
-A INPUT -p tcp -m hl --hl-eq 64 -m tcp --dport 22
-A INPUT -m eui64
EOF
ok_if "v6 ssh connects past them" connects $C fd00:13::2 22
run $NS $IP6T -L INPUT -v -n -x
ok_if "hl and tcp counted the connection" counted "$OUT"
ok_if "ipv6header --header prot counted it" sh -c \
	'printf "%s\n" "$1" | awk "/ipv6header/ && !/soft/ && \$1 > 0 { f = 1 } END { exit !f }"' \
	sh "$OUT"
ok_if "frag and ah counted nothing" sh -c \
	'printf "%s\n" "$1" | awk "(/frag/ && !/soft/ || /ah /) && \$1 > 0 { f = 1 } END { exit f }"' \
	sh "$OUT"
cleanup

if [ "$BACKEND" = ip_tables ]; then
	reset_table $IP6T
	check "unload ip6table_filter and ip6_tables (control)" 0 rmmod ip6table_filter ip6_tables
elif need_bpfilter "ipv6=0 leaves IPv6 to ip6_tables"; then
	reset_table $IP6T
	reset_table
	check "rmmod bpfilter" 0 rmmod bpfilter
	check "modprobe bpfilter ipv6=0" 0 modprobe bpfilter ipv6=0
	ok_if "no ip6_tables_names without ip6_tables" sh -c '! test -e /proc/net/ip6_tables_names'
	check "modprobe ip6table_filter next to bpfilter" 0 modprobe ip6table_filter
	check "ip6tables-legacy -A through ip6_tables" 0 $IP6T -A INPUT -p tcp --dport 23 -j DROP
	expect "ip6tables-legacy -S through ip6_tables" 0 $IP6T -S INPUT <<'EOF'
-P INPUT ACCEPT
-A INPUT -p tcp -m tcp --dport 23 -j DROP
EOF
	check "iptables-legacy still through bpfilter" 0 $IPT -A INPUT -p tcp --dport 23 -j DROP
	ok_if "ip_tables.ko is still not loaded" sh -c '! grep -q "^ip_tables " /proc/modules'
	reset_table
	reset_table $IP6T
	check "rmmod ip6table_filter ip6_tables" 0 rmmod ip6table_filter ip6_tables
	check "rmmod bpfilter" 0 rmmod bpfilter
	check "modprobe bpfilter (IPv6 again)" 0 modprobe bpfilter
	ok_if "ip6_tables_names is back, empty" sh -c '! test -s /proc/net/ip6_tables_names'
	expect "ip6tables-legacy -S through bpfilter again" 0 $IP6T -S INPUT <<'EOF'
-P INPUT ACCEPT
EOF
	ok_if "ip6_tables_names lists filter after its first use" \
		grep -qx filter /proc/net/ip6_tables_names
fi

done_testing
