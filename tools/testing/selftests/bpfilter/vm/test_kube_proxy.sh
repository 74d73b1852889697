#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A Kubernetes node (issue 14): kube-proxy's iptables mode for 300
# ClusterIP services (every tenth a UDP one, port 53, as DNS services
# interleave with TCP ones), written from its documented rules: the nat table's
# KUBE-SERVICES, KUBE-SVC, KUBE-SEP, KUBE-MARK-MASQ, KUBE-NODEPORTS,
# KUBE-EXT and KUBE-POSTROUTING chains, the filter table's KUBE-FORWARD,
# KUBE-FIREWALL and KUBE-SERVICES (services without endpoints rejected)
# and KUBE-PROXY-FIREWALL, restored with iptables-legacy-restore as
# kube-proxy does. With bpfilter, KUBE-SERVICES' 300 jumps are one lookup
# and a tail call into the program holding the matched service's chains
# (docs/design.md, runs of jumps). Real connections to the first, a middle
# and the last service, to a NodePort and to a service without endpoints;
# the counters and conntrack's tuples must be iptable_nat's.
#
#   C 10.254.16.1 --- 10.254.16.2 H [cbr0 10.254.17.1] --- 10.254.17.2 P (the pods)
. "$(dirname "$0")/lib.sh"

C=kpC
H=kpH
P=kpP
NC="$IP netns exec $C"
NH="$IP netns exec $H"
N=300

cleanup()
{
	ns_kill $C $H $P
	for n in $C $H $P; do $IP netns del $n 2>/dev/null; done
}

# pkts TABLE CHAIN N: packets of rule N of H's TABLE CHAIN.
pkts()
{
	$NH $IPT -w -t "$1" -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

# svc I: service I's ClusterIP.
svc()
{
	echo "10.96.$(($1 / 250)).$(($1 % 250 + 1))"
}

cleanup
ns_pair $C 10.254.16.1 $H 10.254.16.2
$IP netns add $P
$IP -n $P link set lo up
$IP -n $H link add cbr0 type bridge
$IP -n $H link add vethP type veth peer name eth0 netns $P
$IP -n $H link set vethP master cbr0
$IP -n $H addr add 10.254.17.1/24 dev cbr0
$IP -n $P addr add 10.254.17.2/24 dev eth0
for l in cbr0 vethP; do $IP -n $H link set $l up; done
$IP -n $P link set eth0 up
$IP -n $P route add default via 10.254.17.1
$IP -n $C route add 10.96.0.0/12 via 10.254.16.2
# A node routes the service range somewhere (its default route): to the pods.
$IP -n $H route add 10.96.0.0/12 dev cbr0
$NH sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
# Pod ports 8081-8083: service I's endpoint is 10.254.17.2:808(1 + I % 3).
for p in 1 2 3; do text_server $P 808$p pod$p; done
sleep 1

# kube-proxy's rules for $N services with one endpoint each, service 7
# without endpoints (filter REJECT, no nat chains), a NodePort 30080 for
# service 5; hashes as kube-proxy makes them, but counted.
awk -v n=$N 'BEGIN {
	print "*filter"
	print ":INPUT ACCEPT [0:0]"; print ":FORWARD ACCEPT [0:0]"; print ":OUTPUT ACCEPT [0:0]"
	print ":KUBE-EXTERNAL-SERVICES - [0:0]"; print ":KUBE-FIREWALL - [0:0]"
	print ":KUBE-FORWARD - [0:0]"; print ":KUBE-NODEPORTS - [0:0]"
	print ":KUBE-PROXY-FIREWALL - [0:0]"; print ":KUBE-SERVICES - [0:0]"
	print "-A INPUT -m conntrack --ctstate NEW -m comment --comment \"kubernetes load balancer firewall\" -j KUBE-PROXY-FIREWALL"
	print "-A INPUT -m comment --comment \"kubernetes health check service ports\" -j KUBE-NODEPORTS"
	print "-A INPUT -m conntrack --ctstate NEW -m comment --comment \"kubernetes externally-visible service portals\" -j KUBE-EXTERNAL-SERVICES"
	print "-A INPUT -j KUBE-FIREWALL"
	print "-A FORWARD -m conntrack --ctstate NEW -m comment --comment \"kubernetes load balancer firewall\" -j KUBE-PROXY-FIREWALL"
	print "-A FORWARD -m comment --comment \"kubernetes forwarding rules\" -j KUBE-FORWARD"
	print "-A FORWARD -m conntrack --ctstate NEW -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
	print "-A FORWARD -m conntrack --ctstate NEW -m comment --comment \"kubernetes externally-visible service portals\" -j KUBE-EXTERNAL-SERVICES"
	print "-A OUTPUT -m conntrack --ctstate NEW -m comment --comment \"kubernetes load balancer firewall\" -j KUBE-PROXY-FIREWALL"
	print "-A OUTPUT -m conntrack --ctstate NEW -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
	print "-A OUTPUT -j KUBE-FIREWALL"
	print "-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment \"block incoming localnet connections\" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP"
	print "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP"
	print "-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding rules\" -m mark --mark 0x4000/0x4000 -j ACCEPT"
	print "-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding conntrack rule\" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
	print "-A KUBE-SERVICES -d 10.96.0.8/32 -p tcp -m comment --comment \"default/svc-7:http has no endpoints\" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable"
	print "COMMIT"
	print "*nat"
	print ":PREROUTING ACCEPT [0:0]"; print ":INPUT ACCEPT [0:0]"
	print ":OUTPUT ACCEPT [0:0]"; print ":POSTROUTING ACCEPT [0:0]"
	print ":KUBE-EXT-SVC5 - [0:0]"; print ":KUBE-MARK-MASQ - [0:0]"
	print ":KUBE-NODEPORTS - [0:0]"; print ":KUBE-POSTROUTING - [0:0]"
	print ":KUBE-SERVICES - [0:0]"
	for (i = 0; i < n; i++)
		if (i != 7)
			printf ":KUBE-SVC-%d - [0:0]\n:KUBE-SEP-%d - [0:0]\n", i, i
	print "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
	print "-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
	print "-A POSTROUTING -m comment --comment \"kubernetes postrouting rules\" -j KUBE-POSTROUTING"
	print "-A KUBE-EXT-SVC5 -m comment --comment \"masquerade traffic for default/svc-5:http external destinations\" -j KUBE-MARK-MASQ"
	print "-A KUBE-EXT-SVC5 -j KUBE-SVC-5"
	print "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000"
	print "-A KUBE-NODEPORTS -p tcp -m comment --comment \"default/svc-5:http\" -m tcp --dport 30080 -j KUBE-EXT-SVC5"
	print "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN"
	print "-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0"
	print "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE --random-fully"
	for (i = 0; i < n; i++) {
		if (i == 7)
			continue
		ip = sprintf("10.96.%d.%d", int(i / 250), i % 250 + 1)
		p = i % 10 == 3 ? "udp" : "tcp"
		port = i % 10 == 3 ? 53 : 80
		printf "-A KUBE-SERVICES -d %s/32 -p %s -m comment --comment \"default/svc-%d:http cluster IP\" -m %s --dport %d -j KUBE-SVC-%d\n", ip, p, i, p, port, i
	}
	print "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS"
	for (i = 0; i < n; i++) {
		if (i == 7)
			continue
		ip = sprintf("10.96.%d.%d", int(i / 250), i % 250 + 1)
		ep = sprintf("10.254.17.2:808%d", 1 + i % 3)
		p = i % 10 == 3 ? "udp" : "tcp"
		port = i % 10 == 3 ? 53 : 80
		printf "-A KUBE-SVC-%d ! -s 10.254.17.0/24 -d %s/32 -p %s -m comment --comment \"default/svc-%d:http cluster IP\" -m %s --dport %d -j KUBE-MARK-MASQ\n", i, ip, p, i, p, port
		printf "-A KUBE-SVC-%d -m comment --comment \"default/svc-%d:http -> %s\" -j KUBE-SEP-%d\n", i, i, ep, i
		printf "-A KUBE-SEP-%d -s 10.254.17.2/32 -m comment --comment \"default/svc-%d:http\" -j KUBE-MARK-MASQ\n", i, i
		printf "-A KUBE-SEP-%d -p %s -m comment --comment \"default/svc-%d:http\" -m %s -j DNAT --to-destination %s\n", i, p, i, p, ep
	}
	print "COMMIT"
}' > /tmp/kube-node.rules

check "H: restore kube-proxy's filter and nat tables ($N services)" 0 \
	$NH $IPT_RESTORE /tmp/kube-node.rules
expect "H: both tables listed, nat newest" 0 $NH cat /proc/net/ip_tables_names <<'EOF'
nat
filter
EOF
$NH $IPT_SAVE | grep '^-A' | sort > /tmp/kube-node.saved
grep '^-A' /tmp/kube-node.rules | sort > /tmp/kube-node.want
ok_if "H: iptables-legacy-save shows every rule restored ($(wc -l < /tmp/kube-node.want))" \
	cmp -s /tmp/kube-node.saved /tmp/kube-node.want

if need_bpfilter "KUBE-SERVICES is folded into a lookup and programs holding the chains"; then
	ok_if "KUBE-SERVICES' jumps are folded: PREROUTING and OUTPUT have leaves programs" \
		test "$(bpftool prog show | grep -cE 'name bflt_(PREROU|OUTPUT)_')" -ge 2
fi

# KUBE-SERVICES rule of service I in nat: I + 1, one less past service 7.
rule_of() { [ "$1" -lt 7 ] && echo $(($1 + 1)) || echo "$1"; }

for i in 0 150 299; do
	ok_if "C reaches service $i ($(svc $i)) through H: pod$((1 + i % 3)) answers" \
		test "$(ask $C "$(svc $i)" 80)" = "pod$((1 + i % 3))"
	ok_if "... KUBE-SERVICES counted it once, in service $i's rule" \
		test "$(pkts nat KUBE-SERVICES "$(rule_of $i)")" = 1
	ok_if "... its KUBE-SEP DNAT rule too" test "$(pkts nat KUBE-SEP-$i 2)" = 1
	ok_if "... and KUBE-MARK-MASQ through its KUBE-SVC chain" test "$(pkts nat KUBE-SVC-$i 1)" = 1
done
ok_if "a second connection to service 150 counts once more" \
	test "$(ask $C "$(svc 150)" 80) $(pkts nat KUBE-SERVICES 150)" = "pod1 2"
ok_if "no other service's rule counted anything" \
	test "$($NH $IPT -w -t nat -nvxL KUBE-SERVICES | awk 'NR > 2 && $1 > 0' | wc -l)" = 3
ok_if "KUBE-POSTROUTING masqueraded the 4 marked connections" \
	test "$(pkts nat KUBE-POSTROUTING 3)" = 4
ok_if "... the pod answered H's bridge address (conntrack)" \
	test "$($NH cat /proc/net/nf_conntrack | grep -c 'dst=10.96.0.151 .* src=10.254.17.2 dst=10.254.17.1 sport=8081 ')" = 2
ok_if "KUBE-FORWARD accepted the forwarded packets by their mark" \
	test "$(pkts filter KUBE-FORWARD 2)" -ge 4

ok_if "service 7 has no endpoints: the client is refused (filter REJECT)" \
	sh -c "! $NC nc -w 3 10.96.0.8 80 < /dev/null"
ok_if "... the REJECT rule counted it" test "$(pkts filter KUBE-SERVICES 1)" -ge 1
ok_if "... and nat had no rule for it" \
	test "$($NH $IPT -w -t nat -nvxL KUBE-SERVICES | awk 'NR > 2 && $1 > 0' | wc -l)" = 3

ok_if "the NodePort H:30080 reaches service 5's pod" \
	test "$(ask $C 10.254.16.2 30080)" = pod3
ok_if "... through KUBE-SERVICES' last rule (addrtype LOCAL)" \
	test "$(pkts nat KUBE-SERVICES $((N - 1 + 1)))" = 1
ok_if "... KUBE-NODEPORTS and KUBE-EXT" \
	test "$(pkts nat KUBE-NODEPORTS 1) $(pkts nat KUBE-EXT-SVC5 1)" = "1 1"
ok_if "... service 5's DNAT rule counted it" test "$(pkts nat KUBE-SEP-5 2)" = 1

# kube-proxy's periodic resync: the whole file again, counters reset.
check "H: restore again (kube-proxy's sync)" 0 $NH $IPT_RESTORE /tmp/kube-node.rules
ok_if "service 299 still answers after the sync" test "$(ask $C "$(svc 299)" 80)" = pod3
ok_if "... counted once in the new table" test "$(pkts nat KUBE-SERVICES 299)" = 1

cleanup
done_testing
