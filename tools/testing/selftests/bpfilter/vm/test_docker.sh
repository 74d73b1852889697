#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A container host (issue 14): the container engine's complete legacy
# iptables rules, written from its documentation, for two bridge networks
# with a container each, one of them publishing a port: raw's PREROUTING
# drop of direct access to a container from outside its bridge, filter's
# DOCKER-USER, DOCKER-ISOLATION-STAGE-1/-2, DOCKER and FORWARD (policy
# DROP, RELATED,ESTABLISHED back to the containers), nat's DOCKER chain
# (DNAT of the published port, from outside and from the host itself) and
# POSTROUTING's masquerading, with the hairpin rule for the container's own
# published port, as the engine writes them without its userland proxy
# (hairpin mode: the DNAT rule takes every interface, the bridges get no
# RETURN in nat's DOCKER chain). One iptables-legacy-restore of all three tables, then
# real connections; the counters and conntrack's tuples must be ip_tables'.
#
#   C 10.254.21.1 --- 10.254.21.2 H [docker0 10.254.22.1] --- 10.254.22.2 K
#                                   [br-net2 10.254.23.1] --- 10.254.23.2 K2
. "$(dirname "$0")/lib.sh"

C=dkC
H=dkH
K=dkK
K2=dkK2
NH="$IP netns exec $H"

cleanup()
{
	ns_kill $C $H $K $K2
	for n in $C $H $K $K2; do $IP netns del $n 2>/dev/null; done
}

# pkts TABLE CHAIN N: packets of rule N of H's TABLE CHAIN.
pkts()
{
	$NH $IPT -w -t "$1" -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

# ct PATTERN: H's TCP conntrack entries matching PATTERN (tcp_ct).
ct()
{
	tcp_ct $H "$1"
}

# bridge NAME ADDR NS NSADDR: a bridge in H with ADDR/24 and a container NS on it.
bridge()
{
	$IP netns add "$3"
	$IP -n "$3" link set lo up
	$IP -n $H link add "$1" type bridge
	$IP -n $H link add "v$3" type veth peer name eth0 netns "$3"
	$IP -n $H link set "v$3" master "$1"
	# As the engine does without its userland proxy: with br_netfilter
	# loaded, a hairpin connection is DNATed on the bridge and goes back
	# out of the port it came in by.
	$IP -n $H link set "v$3" type bridge_slave hairpin on
	$IP -n $H addr add "$2/24" dev "$1"
	$IP -n "$3" addr add "$4/24" dev eth0
	$IP -n $H link set "$1" up
	$IP -n $H link set "v$3" up
	$IP -n "$3" link set eth0 up
	$IP -n "$3" route add default via "$2"
}

cleanup
ns_pair $C 10.254.21.1 $H 10.254.21.2
bridge docker0 10.254.22.1 $K 10.254.22.2
bridge br-net2 10.254.23.1 $K2 10.254.23.2
$NH sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
$IP -n $C route add 10.254.22.0/24 via 10.254.21.2
text_server $K 80 k-web
text_server $K2 80 k2-web
text_server $C 7001 c-srv
sleep 1

cat > /tmp/docker.rules <<'RULES'
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -d 10.254.22.2/32 ! -i docker0 -j DROP
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:DOCKER - [0:0]
:DOCKER-ISOLATION-STAGE-1 - [0:0]
:DOCKER-ISOLATION-STAGE-2 - [0:0]
:DOCKER-USER - [0:0]
-A FORWARD -j DOCKER-USER
-A FORWARD -j DOCKER-ISOLATION-STAGE-1
-A FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -o docker0 -j DOCKER
-A FORWARD -i docker0 ! -o docker0 -j ACCEPT
-A FORWARD -i docker0 -o docker0 -j ACCEPT
-A FORWARD -o br-net2 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -o br-net2 -j DOCKER
-A FORWARD -i br-net2 ! -o br-net2 -j ACCEPT
-A FORWARD -i br-net2 -o br-net2 -j ACCEPT
-A DOCKER -d 10.254.22.2/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport 80 -j ACCEPT
-A DOCKER-ISOLATION-STAGE-1 -i docker0 ! -o docker0 -j DOCKER-ISOLATION-STAGE-2
-A DOCKER-ISOLATION-STAGE-1 -i br-net2 ! -o br-net2 -j DOCKER-ISOLATION-STAGE-2
-A DOCKER-ISOLATION-STAGE-1 -j RETURN
-A DOCKER-ISOLATION-STAGE-2 -o docker0 -j DROP
-A DOCKER-ISOLATION-STAGE-2 -o br-net2 -j DROP
-A DOCKER-ISOLATION-STAGE-2 -j RETURN
-A DOCKER-USER -j RETURN
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:DOCKER - [0:0]
-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER
-A POSTROUTING -s 10.254.23.0/24 ! -o br-net2 -j MASQUERADE
-A POSTROUTING -s 10.254.22.0/24 ! -o docker0 -j MASQUERADE
-A POSTROUTING -s 10.254.22.2/32 -d 10.254.22.2/32 -p tcp -m tcp --dport 80 -j MASQUERADE
-A DOCKER -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.254.22.2:80
COMMIT
RULES

check "H: restore the container engine's raw, filter and nat tables" 0 $NH $IPT_RESTORE /tmp/docker.rules
expect "H: ip_tables_names lists all three" 0 sh -c "$NH cat /proc/net/ip_tables_names | sort" <<'EOF'
filter
nat
raw
EOF
# iptables-legacy-save dumps the tables newest first: table by table in
# the file's order, the dump must be the file, byte for byte.
expect "H: iptables-legacy-save -t raw, filter, nat dump the file restored" 0 \
	sh -c "for t in raw filter nat; do $NH $IPT_SAVE -t \$t; done | grep -v '^#'" < /tmp/docker.rules

ok_if "C reaches K through H's published port 8080" test "$(ask $C 10.254.21.2 8080)" = k-web
expect "... conntrack: the reply comes from K's port 80" 0 ct 'dport=8080 ' <<'EOF'
src=10.254.21.1 dst=10.254.21.2 sport=PORT dport=8080 src=10.254.22.2 dst=10.254.21.1 sport=80 dport=PORT [ASSURED]
EOF
ok_if "... nat DOCKER's DNAT counted it once" test "$(pkts nat DOCKER 1)" = 1
ok_if "... filter DOCKER accepted its first packet" test "$(pkts filter DOCKER 1)" = 1
ok_if "... FORWARD's RELATED,ESTABLISHED rule took the rest of it to K" \
	test "$(pkts filter FORWARD 3)" -ge 2
ok_if "H itself reaches K through its published port (nat OUTPUT)" \
	test "$(ask $H 10.254.21.2 8080)" = k-web
ok_if "... the DNAT rule counted it: 2 connections" test "$(pkts nat DOCKER 1)" = 2

ok_if "K reaches itself through its published port (hairpin)" \
	test "$(ask $K 10.254.21.2 8080)" = k-web
expect "... conntrack: K's port 80 answers docker0's address" 0 ct 'src=10.254.22.2 dst=10.254.21.2 sport=[0-9]* dport=8080 ' <<'EOF'
src=10.254.22.2 dst=10.254.21.2 sport=PORT dport=8080 src=10.254.22.2 dst=10.254.22.1 sport=80 dport=PORT [ASSURED]
EOF
ok_if "... the DNAT and the hairpin MASQUERADE counted it once" \
	test "$(pkts nat DOCKER 1) $(pkts nat POSTROUTING 3)" = "3 1"
ok_if "... filter FORWARD let it back onto docker0 (-i docker0 -o docker0)" \
	test "$(pkts filter FORWARD 6)" = 1

ok_if "K reaches C's server, masqueraded" test "$(ask $K 10.254.21.1 7001)" = c-srv
expect "... conntrack: C answers H's address" 0 ct 'dport=7001 ' <<'EOF'
src=10.254.22.2 dst=10.254.21.1 sport=PORT dport=7001 src=10.254.21.1 dst=10.254.21.2 sport=7001 dport=PORT [ASSURED]
EOF
ok_if "... docker0's MASQUERADE counted it once, br-net2's did not" \
	test "$(pkts nat POSTROUTING 1) $(pkts nat POSTROUTING 2)" = "0 1"
ok_if "K2 reaches C's server too" test "$(ask $K2 10.254.21.1 7001)" = c-srv
ok_if "... br-net2's MASQUERADE counted it" test "$(pkts nat POSTROUTING 1)" = 1

ok_if "C cannot reach K's address directly" test -z "$(ask $C 10.254.22.2 80 1)"
ok_if "... raw PREROUTING dropped its SYNs before conntrack" test "$(pkts raw PREROUTING 1)" -ge 1
ok_if "... and conntrack never saw them" \
	test -z "$(ct 'src=10.254.21.1 dst=10.254.22.2 sport=[0-9]* dport=80 ')"
ok_if "K2 cannot reach K's address directly either (not from docker0)" \
	test -z "$(ask $K2 10.254.22.2 80 1)"
ok_if "... raw PREROUTING dropped those SYNs too" \
	test -z "$(ct 'src=10.254.23.2 dst=10.254.22.2 sport=[0-9]* dport=80 ')"
ok_if "K2 cannot reach K through the published port: isolation, after the DNAT" \
	test -z "$(ask $K2 10.254.21.2 8080 1)"
ok_if "... DOCKER-ISOLATION-STAGE-2 dropped it on its way to docker0" \
	test "$(pkts filter DOCKER-ISOLATION-STAGE-2 1)" -ge 1
ok_if "... after nat's DNAT had taken each of its SYNs" test "$(pkts nat DOCKER 1)" -ge 4
ok_if "K cannot reach K2: isolation on the way to br-net2" test -z "$(ask $K 10.254.23.2 80 1)"
ok_if "... DOCKER-ISOLATION-STAGE-2 dropped it" \
	test "$(pkts filter DOCKER-ISOLATION-STAGE-2 2)" -ge 1
ok_if "DOCKER-USER saw every forwarded first packet and more" \
	test "$(pkts filter DOCKER-USER 1)" -ge 8

cleanup
done_testing
