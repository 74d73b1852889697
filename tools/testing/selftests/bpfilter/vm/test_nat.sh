#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The nat table (issue 14) on a container host: a published port (DNAT
# from outside and from the host itself, the container engine's DOCKER
# chain pattern), the container's outbound connections masqueraded,
# REDIRECT to a local port and SNAT to a port range, kube-proxy's chains
# for a ClusterIP, and over IPv6 the published port and masquerading, with
# real TCP connections. The tuples conntrack keeps and the rules' counters (each
# connection counted once, by its first packet) must be iptable_nat's.
# With bpfilter the chains are BPF programs just before nf_nat's hooks,
# which bpfilter.ko registers for the namespace, and the targets are
# xt_nat's, MASQUERADE's and REDIRECT's own, held by bpfilter.ko.
#
#   C 10.254.6.1 --- 10.254.6.2 H [br0 10.254.7.1] --- 10.254.7.2 K
. "$(dirname "$0")/lib.sh"

C=natC
H=natH
K=natK
NC="$IP netns exec $C"
NH="$IP netns exec $H"
NK="$IP netns exec $K"

cleanup()
{
	ns_kill $C $H $K
	for n in $C $H $K; do $IP netns del $n 2>/dev/null; done
}

# natpkts CHAIN N: packets of rule N of H's nat CHAIN.
natpkts()
{
	$NH $IPT -w -t nat -nvxL "$1" | awk -v r="$2" 'NR == r + 2 { print $1 }'
}

# ct PATTERN: H's TCP conntrack entries matching PATTERN (tcp_ct).
ct()
{
	tcp_ct $H "$1"
}

# has TEXT REGEX: TEXT has a line matching REGEX.
has()
{
	printf '%s\n' "$1" | grep -qE -- "$2"
}

cleanup
ns_pair $C 10.254.6.1 $H 10.254.6.2
$IP netns add $K
$IP -n $K link set lo up
$IP -n $H link add br0 type bridge
$IP -n $H link add vethK type veth peer name eth0 netns $K
$IP -n $H link set vethK master br0
$IP -n $H addr add 10.254.7.1/24 dev br0
$IP -n $K addr add 10.254.7.2/24 dev eth0
for l in br0 vethK; do $IP -n $H link set $l up; done
$IP -n $K link set eth0 up
$IP -n $K route add default via 10.254.7.1
$NH sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
text_server $K 80 k-web
text_server $C 7001 c-srv
text_server $C 7002 c-snat
text_server $H 7070 h-redirect
for ep in 1 2 3; do text_server $K 8$ep ep$ep; done
$IP -n $C route add 10.96.0.0/12 via 10.254.6.2
$IP -n $C route add 10.254.8.0/24 via 10.254.6.2
sleep 1

cat > /tmp/nat.rules <<'RULES'
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:DOCKER - [0:0]
-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
-A PREROUTING -p tcp -m tcp --dport 9090 -j REDIRECT --to-ports 7070
-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER
-A POSTROUTING -s 10.254.7.0/24 -p tcp -m tcp --dport 7002 -j SNAT --to-source 10.254.6.2:20000-20010
-A POSTROUTING -s 10.254.7.0/24 ! -o br0 -j MASQUERADE
-A DOCKER -i br0 -j RETURN
-A DOCKER ! -i br0 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.254.7.2:80
COMMIT
RULES

check "H: restore a container host's nat table" 0 $NH $IPT_RESTORE /tmp/nat.rules
expect "H: ip_tables_names lists nat" 0 $NH cat /proc/net/ip_tables_names <<'EOF'
nat
EOF
# The file is in iptables-save's own form: the dump must be it, byte for byte.
expect "H: iptables-legacy-save -t nat dumps the file restored" 0 \
	sh -c "$NH $IPT_SAVE -t nat | grep -v '^#'" < /tmp/nat.rules

# --- a published port ----------------------------------------------------------
ok_if "C reaches K's web server through H's published port 8080" \
	test "$(ask $C 10.254.6.2 8080)" = k-web
expect "... conntrack: the reply comes from K's port 80" 0 ct 'dport=8080 ' <<'EOF'
src=10.254.6.1 dst=10.254.6.2 sport=PORT dport=8080 src=10.254.7.2 dst=10.254.6.1 sport=80 dport=PORT [ASSURED]
EOF
ok_if "... the DNAT rule counted the connection once" test "$(natpkts DOCKER 2)" = 1
ok_if "... so did PREROUTING's jump to DOCKER" test "$(natpkts PREROUTING 1)" = 1
ok_if "H itself reaches K through its own published port (OUTPUT)" \
	test "$(ask $H 10.254.6.2 8080)" = k-web
ok_if "... OUTPUT's jump counted it" test "$(natpkts OUTPUT 1)" = 1
ok_if "... and the DNAT rule twice now" test "$(natpkts DOCKER 2)" = 2

# --- the container's way out -------------------------------------------------
ok_if "K reaches C's server, masqueraded" test "$(ask $K 10.254.6.1 7001)" = c-srv
expect "... conntrack: C answers H's address" 0 ct 'dport=7001 ' <<'EOF'
src=10.254.7.2 dst=10.254.6.1 sport=PORT dport=7001 src=10.254.6.1 dst=10.254.6.2 sport=7001 dport=PORT [ASSURED]
EOF
ok_if "... MASQUERADE counted it once" test "$(natpkts POSTROUTING 2)" = 1
ok_if "K reaches C's port 7002 through SNAT" test "$(ask $K 10.254.6.1 7002)" = c-snat
ok_if "... from a port of --to-source's range" \
	has "$(ct 'dport=7002 ')" ' dst=10.254.6.2 sport=7002 dport=200(0[0-9]|10) '

ok_if "... SNAT counted it, MASQUERADE did not" \
	test "$(natpkts POSTROUTING 1) $(natpkts POSTROUTING 2)" = "1 1"

# --- REDIRECT -----------------------------------------------------------------------
ok_if "C's connection to H:9090 is redirected to H's 7070" \
	test "$(ask $C 10.254.6.2 9090)" = h-redirect
ok_if "... REDIRECT counted it once" test "$(natpkts PREROUTING 2)" = 1
ok_if "... conntrack: the reply comes from 7070" \
	has "$(ct 'dport=9090 ')" ' src=10.254.6.2 dst=10.254.6.1 sport=7070 '


# --- NETMAP: a whole prefix mapped onto the container network ---------------
check "H: -A PREROUTING -d 10.254.8.0/24 -j NETMAP --to 10.254.7.0/24" 0 \
	$NH $IPT -t nat -A PREROUTING -d 10.254.8.0/24 -j NETMAP --to 10.254.7.0/24
ok_if "C reaches K's port 80 at 10.254.8.2" test "$(ask $C 10.254.8.2 80)" = k-web
ok_if "... NETMAP counted it once" test "$(natpkts PREROUTING 3)" = 1
ok_if "... conntrack: 10.254.8.2 became 10.254.7.2" \
	has "$(ct 'dst=10.254.8.2 ')" ' src=10.254.7.2 dst=10.254.6.1 sport=80 '

# --- connections not bound by the table: null bindings, no counts ---------
ok_if "a second connection from C to 8080" test "$(ask $C 10.254.6.2 8080)" = k-web
ok_if "... adds one count, not one per packet: 3 connections in all" \
	test "$(natpkts DOCKER 2)" = 3
ok_if "K to H's bridge address is not translated" test "$(ask $K 10.254.7.1 7070)" = h-redirect
ok_if "... its entry has no NAT (a null binding)" \
	has "$(ct 'dst=10.254.7.1 ')" ' src=10.254.7.1 dst=10.254.7.2 sport=7070 '


# --- errors as ip_tables gives them -----------------------------------------
expect "DNAT in INPUT: EINVAL" 1 klog $NH $IPT -t nat -A INPUT -p tcp -j DNAT --to 10.254.7.2 <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: DNAT target: used from hooks INPUT, but only usable from PREROUTING/OUTPUT
EOF
expect "DNAT in the filter table: EINVAL" 1 klog $NH $IPT -A INPUT -p tcp -j DNAT --to 10.254.7.2 <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: DNAT target: only valid in nat table, not filter
EOF
expect "SNAT in PREROUTING: EINVAL" 1 klog $NH $IPT -t nat -A PREROUTING -p tcp -j SNAT --to 10.254.7.1 <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: SNAT target: used from hooks PREROUTING, but only usable from INPUT/POSTROUTING
EOF
expect "the nat table is unchanged" 0 sh -c "$NH $IPT -t nat -S | wc -l" <<'EOF'
13
EOF

# --- a Kubernetes service: kube-proxy's iptables mode for one ClusterIP ----
cat > /tmp/kube.rules <<'RULES'
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SVC-WEB - [0:0]
:KUBE-SEP-EP1 - [0:0]
:KUBE-SEP-EP2 - [0:0]
:KUBE-SEP-EP3 - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "default/web cluster IP" -m tcp --dport 80 -j KUBE-SVC-WEB
-A KUBE-SVC-WEB ! -s 10.254.7.0/24 -d 10.96.0.10/32 -p tcp -m comment --comment "default/web cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ
-A KUBE-SVC-WEB -m comment --comment "default/web -> 10.254.7.2:81" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-EP1
-A KUBE-SVC-WEB -m comment --comment "default/web -> 10.254.7.2:82" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-EP2
-A KUBE-SVC-WEB -m comment --comment "default/web -> 10.254.7.2:83" -j KUBE-SEP-EP3
-A KUBE-SEP-EP1 -s 10.254.7.2/32 -m comment --comment "default/web" -j KUBE-MARK-MASQ
-A KUBE-SEP-EP1 -p tcp -m comment --comment "default/web" -m tcp -j DNAT --to-destination 10.254.7.2:81
-A KUBE-SEP-EP2 -s 10.254.7.2/32 -m comment --comment "default/web" -j KUBE-MARK-MASQ
-A KUBE-SEP-EP2 -p tcp -m comment --comment "default/web" -m tcp -j DNAT --to-destination 10.254.7.2:82
-A KUBE-SEP-EP3 -s 10.254.7.2/32 -m comment --comment "default/web" -j KUBE-MARK-MASQ
-A KUBE-SEP-EP3 -p tcp -m comment --comment "default/web" -m tcp -j DNAT --to-destination 10.254.7.2:83
COMMIT
RULES
check "H: kube-proxy's chains for one service (restore --noflush)" 0 \
	$NH $IPT_RESTORE --noflush /tmp/kube.rules
answers=
for i in $(seq 1 30); do answers="$answers $(ask $C 10.96.0.10 80)"; done
ok_if "30 connections to the ClusterIP were all answered by an endpoint" \
	test "$(printf '%s\n' $answers | grep -cE '^ep[123]$')" = 30
ok_if "... by each of the three (statistic --mode random)" \
	test "$(printf '%s\n' $answers | sort -u | tr '\n' ' ')" = "ep1 ep2 ep3 "
ok_if "KUBE-SERVICES counted 30 connections, not their packets" \
	test "$(natpkts KUBE-SERVICES 1)" = 30
ok_if "KUBE-MARK-MASQ marked all 30 (from outside the pod network)" \
	test "$(natpkts KUBE-MARK-MASQ 1)" = 30
ok_if "the three endpoints' DNAT rules sum to 30" \
	test $(( $(natpkts KUBE-SEP-EP1 2) + $(natpkts KUBE-SEP-EP2 2) + $(natpkts KUBE-SEP-EP3 2) )) = 30
ok_if "... each endpoint's count is the number of its answers" \
	test "$(natpkts KUBE-SEP-EP2 2)" = "$(printf '%s\n' $answers | grep -c '^ep2$')"
ok_if "KUBE-POSTROUTING masqueraded the 30 marked connections" \
	test "$(natpkts KUBE-POSTROUTING 3)" = 30
ok_if "... conntrack: the endpoint answered the bridge address" \
	has "$(ct 'dst=10.96.0.10 ')" ' src=10.254.7.2 dst=10.254.7.1 sport=8[123] '
ok_if "... and the mark was taken off again before MASQUERADE" \
	test "$(natpkts KUBE-POSTROUTING 2)" = 30

# --- hairpin: the container reaches its own published port ----------------
# The container engine's rules without its userland proxy: the published
# port's DNAT also takes the container's own connections to the host's
# address, and a MASQUERADE rule for the container to itself makes K
# answer H rather than itself. The engine also turns hairpin mode on for
# the container's bridge port: with br_netfilter loaded (an earlier test
# loads it) the DNAT happens on the bridge, which must send the frame back
# out of the port it came in by.
$IP -n $H link set vethK type bridge_slave hairpin on
check "H: -A PREROUTING -s 10.254.7.2 -d 10.254.6.2 -p tcp --dport 8081 -j DNAT --to-destination 10.254.7.2:80" 0 \
	$NH $IPT -t nat -A PREROUTING -s 10.254.7.2 -d 10.254.6.2 -p tcp --dport 8081 -j DNAT --to-destination 10.254.7.2:80
check "H: -A POSTROUTING -s 10.254.7.2 -d 10.254.7.2 -p tcp --dport 80 -j MASQUERADE" 0 \
	$NH $IPT -t nat -A POSTROUTING -s 10.254.7.2 -d 10.254.7.2 -p tcp --dport 80 -j MASQUERADE
ok_if "K reaches itself through H's published port 8081" \
	test "$(ask $K 10.254.6.2 8081)" = k-web
expect "... conntrack: K's own port 80 answers H's bridge address" 0 ct 'dport=8081 ' <<'EOF'
src=10.254.7.2 dst=10.254.6.2 sport=PORT dport=8081 src=10.254.7.2 dst=10.254.7.1 sport=80 dport=PORT [ASSURED]
EOF
ok_if "... the DNAT and the hairpin MASQUERADE counted it once each" \
	test "$(natpkts PREROUTING 5) $(natpkts POSTROUTING 4)" = "1 1"

# --- IPv6: ip6table_nat's table, the same published port and way out ------
IP6T=ip6tables-legacy
$IP -n $C addr add fd00:254:6::1/64 dev ${C}0 nodad
$IP -n $H addr add fd00:254:6::2/64 dev ${H}0 nodad
$IP -n $H addr add fd00:254:7::1/64 dev br0 nodad
$IP -n $K addr add fd00:254:7::2/64 dev eth0 nodad
$IP -n $K -6 route add default via fd00:254:7::1
$NH sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/forwarding'
cat > /tmp/nat6.rules <<'RULES'
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -d fd00:254:6::2/128 -p tcp -m tcp --dport 8080 -j DNAT --to-destination [fd00:254:7::2]:80
-A POSTROUTING -s fd00:254:7::/64 ! -o br0 -j MASQUERADE
COMMIT
RULES
V6C=fd00:0254:0006:0000:0000:0000:0000:0001
V6H=fd00:0254:0006:0000:0000:0000:0000:0002
V6K=fd00:0254:0007:0000:0000:0000:0000:0002
ct6()
{
	$NH cat /proc/net/nf_conntrack | grep '^ipv6 .* tcp ' | grep -- "$1"
}
nat6pkts()
{
	$NH $IP6T -w -t nat -nvxL "$1" | awk -v r="$2" 'NR == r + 2 { print $1 }'
}
check "H: ip6tables-legacy-restore of a nat table" 0 $NH ip6tables-legacy-restore /tmp/nat6.rules
expect "H: ip6_tables_names lists nat" 0 $NH cat /proc/net/ip6_tables_names <<'EOF'
nat
EOF
ok_if "C reaches K over IPv6 through H's port 8080" test "$(ask $C fd00:254:6::2 8080)" = k-web
ok_if "... the DNAT rule counted the connection once" test "$(nat6pkts PREROUTING 1)" = 1
ok_if "... conntrack: the reply comes from K's port 80" \
	has "$(ct6 'dport=8080 ')" " src=$V6K dst=$V6C sport=80 "
ok_if "K reaches C over IPv6, masqueraded" test "$(ask $K fd00:254:6::1 7001)" = c-srv
ok_if "... conntrack: C answers H's address" \
	has "$(ct6 'dport=7001 ')" " src=$V6C dst=$V6H sport=7001 "
ok_if "... MASQUERADE counted it once" test "$(nat6pkts POSTROUTING 1)" = 1

if need_bpfilter "nat programs and nf_nat's hooks survive a helper kill"; then
	check "kill the helper" 0 kill -9 "$(helper_pids | head -n1)"
	ok_if "C still reaches K through 8080 with no helper" \
		test "$(ask $C 10.254.6.2 8080)" = k-web
	ok_if "... and the DNAT rule's count went on" test "$(natpkts DOCKER 2)" = 4
fi

cleanup
done_testing
