#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kube_gen.sh: kube-proxy's rules for N ClusterIP services, the one
# generator of that shape for the host and the test VM (issues 14 and 30).
# POSIX sh and awk only, so that busybox in the VM runs it as bash and gawk
# or mawk on a host do, with the same output.
#
#   kube_gen.sh [-6] [-t filter|nat] [-e EPS] [-E ADDR:PORT] [-u tenth|half] [-M] FORM N
#
# FORM:
#   iptables      the whole table, iptables-restore input (ip6tables' with -6)
#   iptables-add  kube-proxy's partial sync onto that table, for
#                 iptables-restore --noflush: KUBE-SERVICES declared (which
#                 flushes it) and rewritten whole with service N added (the
#                 N+1st), and that service's new KUBE-SVC and KUBE-SEP chains
#   nft           kube-proxy's nftables mode: a verdict map by address,
#                 protocol and port to a chain per service, which picks an
#                 endpoint chain with numgen; one nft -f transaction
#   nft-add       its incremental transaction for service N: the new chains
#                 and their rules, and one map element
#   nft-rules     one nft rule per iptables rule (a services chain of N rules
#                 instead of the map)
#
# The shape. Service i is 10.96.(i / 250).(i % 250 + 1) port 80 (past
# 62,500 services, 10.97 and on); TCP, except every tenth (i % 10 == 9)
# UDP with -u tenth (the default: kube-proxy's KUBE-SERVICES mixes them),
# the second half UDP with -u half (tools/bench/nat_bench_guest.sh, as its
# figures were measured when IPv6 runs of jumps did not mix protocols).
# Each service has EPS endpoints (default 3), endpoint k of
# service i being pod j = i * EPS + k at 10.244.(j / 250).(j % 250 + 1)
# port 8080, or all of them ADDR:PORT with -E (a benchmark whose one
# endpoint really answers). Chains as kube-proxy's, named by a
# hash-like hexadecimal number (unique, below 2^31 so that every awk
# prints it alike):
#   KUBE-SERVICES: -d IP/32 -p P -m comment --comment "..." -m P --dport 80 -j KUBE-SVC-x
#   KUBE-SVC-x: ! -s 10.244.0.0/16 (the pods) ... -j KUBE-MARK-MASQ, then
#               -m statistic --mode random --probability 1/(EPS-k) -j KUBE-SEP-y
#               for each endpoint k, the last one unconditional
#   KUBE-SEP-y: -s EP/32 -j KUBE-MARK-MASQ, then -p P -m P -j DNAT
#               --to-destination EP:PORT in nat, -j ACCEPT in filter
#   KUBE-MARK-MASQ: -j MARK --or-mark 0x4000 (as kube-proxy writes it;
#               iptables-save shows --set-xmark 0x4000/0x4000); with -M a
#               rule without target instead (counted, goes on), nft's chain
#               a counter: bpfilter can set a mark only through
#               bpfilter_kfunc.ko's kfunc, which a host without the module
#               lacks (it refuses the table), so a benchmark there compares
#               every backend on this stand-in
# -t nat (PREROUTING and OUTPUT jump to KUBE-SERVICES, KUBE-POSTROUTING
# masquerades marked packets, KUBE-SERVICES ends in the NodePorts rule) or
# -t filter (the default: INPUT, FORWARD and OUTPUT jump to KUBE-SERVICES).
#
# -6: the same plan in IPv6 addresses, one mapping for all of them:
# 10.A.B.C is fd00:A:B::C (a /16 a /32, a host /128), as test_nat_diff
# maps its plan; ip6tables' and nft's ip6 forms.
#
# Example (the host's control-plane benchmark, tools/bench/bench_control.sh):
#   sh kube_gen.sh -6 iptables 1000 | ip6tables-legacy-restore
#   sh kube_gen.sh -6 iptables-add 1000 | ip6tables-legacy-restore --noflush
# nat_bench_guest.sh (in the VM): kube_gen.sh -t nat -e 1 -E 10.244.0.2:8080 -u half ...
set -u

fam=4 table=filter eps=3 fixed='' udp=tenth nomark=0
while getopts 6t:e:E:u:M o; do
	case $o in
	6) fam=6 ;;
	M) nomark=1 ;;
	t) table=$OPTARG ;;
	e) eps=$OPTARG ;;
	E) fixed=$OPTARG ;;
	u) udp=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
form=${1:-} n=${2:-}
usage="usage: kube_gen.sh [-6] [-t filter|nat] [-e EPS] [-E ADDR:PORT] [-u tenth|half] [-M] iptables|iptables-add|nft|nft-add|nft-rules N"
case $form in
iptables | iptables-add | nft | nft-add | nft-rules) ;;
*) echo "$usage" >&2; exit 2 ;;
esac
case $table in filter | nat) ;; *) echo "$usage" >&2; exit 2 ;; esac
case $udp in tenth | half) ;; *) echo "$usage" >&2; exit 2 ;; esac
case $n in '' | *[!0-9]*) echo "$usage" >&2; exit 2 ;; esac
case $eps in '' | 0 | *[!0-9]*) echo "$usage" >&2; exit 2 ;; esac

exec awk -v form="$form" -v n="$n" -v fam="$fam" -v table="$table" -v eps="$eps" \
	-v fixed="$fixed" -v udp="$udp" -v nomark="$nomark" '
# The IPv4 address of the plan for index i in block a (96: services, 244:
# pods), in this family.
function addr(a, i) {
	return fam == 6 ? sprintf("fd00:%d:%d::%d", a + int(i / 62500), int(i / 250) % 250, i % 250 + 1) \
			: sprintf("10.%d.%d.%d", a + int(i / 62500), int(i / 250) % 250, i % 250 + 1)
}
function svc_ip(i) { return addr(96, i) }
function proto(i) { return (udp == "half" ? i >= int(n / 2) : i % 10 == 9) ? "udp" : "tcp" }
# Endpoint k of service i: its address, and address and port.
function ep_ip(i, k) { return fixed != "" ? fixed_ip : addr(244, i * eps + k) }
function ep(i, k) {
	if (fixed != "")
		return fixed
	return fam == 6 ? sprintf("[%s]:8080", ep_ip(i, k)) : ep_ip(i, k) ":8080"
}
# Chain names: distinct numbers below 2^31 (the multipliers are prime to it).
function svc_chain(i) { return sprintf("KUBE-SVC-%016X", (i * 7919) % 2147483647) }
function sep_chain(i, k) { return sprintf("KUBE-SEP-%016X", ((i * eps + k) * 104729) % 2147483647) }
function nft_sep(i, k) { return eps == 1 ? "sep-" i : "sep-" i "-" k }

# ---- iptables ----
function ipt_decl(i,   k) {
	print ":" svc_chain(i) " - [0:0]"
	for (k = 0; k < eps; k++)
		print ":" sep_chain(i, k) " - [0:0]"
}
# KUBE-SERVICES for services 0 .. m-1.
function ipt_services(m,   i, p) {
	for (i = 0; i < m; i++) {
		p = proto(i)
		printf "-A KUBE-SERVICES -d %s%s -p %s -m comment --comment \"default/svc-%d:http cluster IP\" -m %s --dport 80 -j %s\n", svc_ip(i), host, p, i, p, svc_chain(i)
	}
	if (table == "nat")
		print "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS"
}
# Service i s KUBE-SVC and KUBE-SEP chains rules.
function ipt_chains(i,   k, p, s) {
	p = proto(i)
	s = svc_chain(i)
	printf "-A %s ! -s %s -d %s%s -p %s -m comment --comment \"default/svc-%d:http cluster IP\" -m %s --dport 80 -j KUBE-MARK-MASQ\n", s, pods, svc_ip(i), host, p, i, p
	for (k = 0; k < eps; k++)
		printf "-A %s -m comment --comment \"default/svc-%d:http -> %s\"%s -j %s\n", s, i, ep(i, k),
			k < eps - 1 ? sprintf(" -m statistic --mode random --probability %.11f", 1 / (eps - k)) : "", sep_chain(i, k)
	for (k = 0; k < eps; k++) {
		s = sep_chain(i, k)
		printf "-A %s -s %s%s -m comment --comment \"default/svc-%d:http\" -j KUBE-MARK-MASQ\n", s, ep_ip(i, k), host, i
		printf "-A %s -p %s -m comment --comment \"default/svc-%d:http\" -m %s -j %s\n", s, p, i, p,
			table == "nat" ? "DNAT --to-destination " ep(i, k) : "ACCEPT"
	}
}
function ipt_table(   i) {
	print "*" table
	if (table == "nat") {
		print ":PREROUTING ACCEPT [0:0]"; print ":INPUT ACCEPT [0:0]"
		print ":OUTPUT ACCEPT [0:0]"; print ":POSTROUTING ACCEPT [0:0]"
		print ":KUBE-SERVICES - [0:0]"; print ":KUBE-NODEPORTS - [0:0]"
		print ":KUBE-POSTROUTING - [0:0]"; print ":KUBE-MARK-MASQ - [0:0]"
	} else {
		print ":INPUT ACCEPT [0:0]"; print ":FORWARD ACCEPT [0:0]"; print ":OUTPUT ACCEPT [0:0]"
		print ":KUBE-SERVICES - [0:0]"; print ":KUBE-MARK-MASQ - [0:0]"
	}
	for (i = 0; i < n; i++)
		ipt_decl(i)
	if (table == "nat") {
		print "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
		print "-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
		print "-A POSTROUTING -m comment --comment \"kubernetes postrouting rules\" -j KUBE-POSTROUTING"
	} else {
		print "-A INPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
		print "-A FORWARD -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
		print "-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
	}
	print nomark ? "-A KUBE-MARK-MASQ -m comment --comment \"stand-in for -j MARK --or-mark 0x4000\"" \
		     : "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000"
	if (table == "nat") {
		print "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN"
		print "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000"
		print "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE --random-fully"
	}
	ipt_services(n)
	for (i = 0; i < n; i++)
		ipt_chains(i)
	print "COMMIT"
}
# kube-proxy s partial sync adding service n: only what changed, with --noflush.
function ipt_add() {
	print "*" table
	print ":KUBE-SERVICES - [0:0]"
	ipt_decl(n)
	ipt_services(n + 1)
	ipt_chains(n)
	print "COMMIT"
}

# ---- nftables ----
function nft_elem(i) { return sprintf("%s . %s . 80 : goto svc-%d", svc_ip(i), proto(i), i) }
# Service i s chains, as a block of the table (pre = " chain ", post = " {")
# or as add commands (nft-add).
function nft_chains(i, add,   k, p, sv, vm, r) {
	p = proto(i)
	r = sprintf("%s saddr != %s %s daddr %s %s dport 80 jump mark-masq", ipf, pods, ipf, svc_ip(i), p)
	if (eps == 1) {
		vm = "goto " nft_sep(i, 0)
	} else {
		vm = "numgen random mod " eps " vmap { "
		for (k = 0; k < eps; k++)
			vm = vm (k ? ", " : "") k " : goto " nft_sep(i, k)
		vm = vm " }"
	}
	if (add) {
		printf "add chain %s svc-%d\n", tbl, i
		for (k = 0; k < eps; k++)
			printf "add chain %s %s\n", tbl, nft_sep(i, k)
		printf "add rule %s svc-%d %s\nadd rule %s svc-%d %s\n", tbl, i, r, tbl, i, vm
	} else {
		printf " chain svc-%d {\n  %s\n  %s\n }\n", i, r, vm
	}
	for (k = 0; k < eps; k++) {
		r = sprintf("%s saddr %s jump mark-masq", ipf, ep_ip(i, k))
		sv = sprintf("meta l4proto %s %s", p, table == "nat" ? "dnat to " ep(i, k) : "accept")
		if (add)
			printf "add rule %s %s %s\nadd rule %s %s %s\n", tbl, nft_sep(i, k), r, tbl, nft_sep(i, k), sv
		else
			printf " chain %s {\n  %s\n  %s\n }\n", nft_sep(i, k), r, sv
	}
}
function nft_table(vmap,   i) {
	print "table " tbl " {"
	if (vmap) {
		printf " map service-ips { type %s . inet_proto . inet_service : verdict\n", addr_type
		if (n) {
			printf "  elements = { "
			for (i = 0; i < n; i++)
				printf "%s%s", i ? ", " : "", nft_elem(i)
			print " }"
		}
		print " }"
		printf " chain services {\n  %s daddr . meta l4proto . th dport vmap @service-ips\n", ipf
	} else {
		print " chain services {"
		for (i = 0; i < n; i++)
			printf "  %s daddr %s %s dport 80 jump svc-%d\n", ipf, svc_ip(i), proto(i), i
	}
	if (table == "nat")
		print "  fib daddr type local jump nodeports\n }\n chain nodeports {\n }"
	else
		print " }"
	print " chain mark-masq {\n  " (nomark ? "counter" : "meta mark set mark or 0x4000") "\n }"
	for (i = 0; i < n; i++)
		nft_chains(i, 0)
	if (table == "nat") {
		print " chain prerouting {\n  type nat hook prerouting priority dstnat; policy accept;\n  jump services\n }"
		print " chain output {\n  type nat hook output priority -100; policy accept;\n  jump services\n }"
		print " chain postrouting {\n  type nat hook postrouting priority srcnat; policy accept;"
		print "  mark and 0x4000 == 0 return"
		print "  meta mark set mark xor 0x4000"
		print "  masquerade fully-random"
		print " }"
	} else {
		print " chain input {\n  type filter hook input priority filter; policy accept;\n  jump services\n }"
		print " chain forward {\n  type filter hook forward priority filter; policy accept;\n  jump services\n }"
		print " chain output {\n  type filter hook output priority filter; policy accept;\n  jump services\n }"
	}
	print "}"
}
function nft_add() {
	nft_chains(n, 1)
	printf "add element %s service-ips { %s }\n", tbl, nft_elem(n)
}

BEGIN {
	host = fam == 6 ? "/128" : "/32"
	pods = fam == 6 ? "fd00:244::/32" : "10.244.0.0/16"
	ipf = fam == 6 ? "ip6" : "ip"
	tbl = ipf " kube"
	addr_type = fam == 6 ? "ipv6_addr" : "ipv4_addr"
	fixed_ip = fixed
	sub(/:[0-9]+$/, "", fixed_ip)
	gsub(/[][]/, "", fixed_ip)
	if (form == "iptables") ipt_table()
	else if (form == "iptables-add") ipt_add()
	else if (form == "nft") nft_table(1)
	else if (form == "nft-rules") nft_table(0)
	else nft_add()
}'
