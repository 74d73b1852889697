#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A realistic stateful server firewall (issue 11), restored with stock
# iptables-legacy-restore and checked with real connections from a client:
# conntrack first, loopback, INVALID dropped, ICMP echo, ssh with a recent
# rate limit (a fourth new connection within 60 s is dropped), a multiport
# service list, a blocklist of 3000 addresses, ICMP and LOG rate-limited,
# LOG before REJECT, policy DROP. The same script runs against ip_tables (the reference) and bpfilter.
#
#   C 10.252.9.1 --- 10.252.9.2 S 10.252.10.2 --- 10.252.10.77 B (blocklisted)
. "$(dirname "$0")/lib.sh"

C=fwC
S=fwS
B=fwB
NC="$IP netns exec $C"
NS="$IP netns exec $S"

cleanup()
{
	for n in $C $S $B; do $IP netns del $n 2>/dev/null; done
	for p in ${srvs:-}; do kill "$p" 2>/dev/null; done
	echo 0 > /proc/sys/net/netfilter/nf_log_all_netns
}


# connects NS DST PORT: a TCP connection from namespace NS to S's DST:PORT works.
connects()
{
	$IP netns exec "$1" sh -c "nc -w 3 $2 $3 < /dev/null" > /dev/null 2>&1
}

refused()
{
	! connects "$@"
}

cleanup
ns_pair $C 10.252.9.1 $S 10.252.9.2
$IP netns add $B
$IP -n $B link set lo up
$IP link add fwB0 netns $B type veth peer name fwS1 netns $S
$IP -n $B addr add 10.252.10.77/24 dev fwB0
$IP -n $S addr add 10.252.10.2/24 dev fwS1
$IP -n $B link set fwB0 up
$IP -n $S link set fwS1 up
srvs=
for port in 22 80 443 8080; do
	$NS nc -ll -p $port -e /bin/true &
	srvs="$srvs $!"
done
sleep 1
echo 1 > /proc/sys/net/netfilter/nf_log_all_netns

{
	echo '*filter'
	echo ':INPUT DROP [0:0]'
	echo ':FORWARD DROP [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	echo ':blocklist - [0:0]'
	echo ':services - [0:0]'
	echo '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'
	echo '-A INPUT -i lo -j ACCEPT'
	echo '-A INPUT -m conntrack --ctstate INVALID -j DROP'
	echo '-A INPUT -j blocklist'
	echo '-A INPUT -p icmp -m icmp --icmp-type 8 -m limit --limit 10/sec --limit-burst 20 -j ACCEPT'
	echo '-A INPUT -p tcp -m tcp --dport 22 -m conntrack --ctstate NEW -m recent --set --name ssh --mask 255.255.255.255 --rsource'
	echo '-A INPUT -p tcp -m tcp --dport 22 -m conntrack --ctstate NEW -m recent --update --seconds 60 --hitcount 4 --name ssh --mask 255.255.255.255 --rsource -j DROP'
	echo '-A INPUT -p tcp -m tcp --dport 22 -m conntrack --ctstate NEW -j ACCEPT'
	echo '-A INPUT -p tcp -m conntrack --ctstate NEW -j services'
	echo '-A INPUT -m limit --limit 5/min -j LOG --log-prefix "fw-reject: "'
	echo '-A INPUT -p tcp -j REJECT --reject-with tcp-reset'
	echo '-A INPUT -j REJECT --reject-with icmp-port-unreachable'
	i=0
	while [ $i -lt 3000 ]; do
		echo "-A blocklist -s 10.$((100 + i / 250)).$((i % 250)).7/32 -j DROP"
		i=$((i + 1))
	done
	echo '-A blocklist -s 10.252.10.77/32 -m comment --comment "abuse report" -j DROP'
	echo '-A services -p tcp -m multiport --dports 80,443,8000:8010 -j ACCEPT'
	echo 'COMMIT'
} > /tmp/fw.rules
check "restore the server firewall (3000-address blocklist)" 0 $NS $IPT_RESTORE /tmp/fw.rules
ok_if "ssh from the client" connects $C 10.252.9.2 22
ok_if "ssh again" connects $C 10.252.9.2 22
ok_if "ssh a third time" connects $C 10.252.9.2 22
ok_if "a fourth ssh within 60 s: dropped by the recent limit" refused $C 10.252.9.2 22
ok_if "... by the --update rule" test "$(pkts $S INPUT 7)" -ge 1
ok_if "... and three accepted" test "$(pkts $S INPUT 8)" = 3
ok_if "the ssh list holds the client" $NS grep -q '^src=10.252.9.1 ttl: 64 ' /proc/net/xt_recent/ssh
ok_if "http" connects $C 10.252.9.2 80
ok_if "https" connects $C 10.252.9.2 443
ok_if "8080 is not a service: refused" refused $C 10.252.9.2 8080
ok_if "... with a LOG line" sh -c "dmesg | grep -q 'fw-reject: IN=fwS0 .*DPT=8080'"
ok_if "... and a reset the client saw" sh -c "$NC cat /proc/net/snmp | awk '/^Tcp:/ { n++; if (n == 2) print \$8 }' | grep -qv '^0$'"
ok_if "ping answered" $NC ping -c 1 -W 2 10.252.9.2
ok_if "the blocklisted source cannot reach ssh" refused $B 10.252.10.2 22
ok_if "its SYN was dropped by the blocklist's last rule" \
	test "$(pkts $S blocklist 3001)" -ge 1
ok_if "ESTABLISHED accepted most packets" test "$(pkts $S INPUT 1)" -ge 6
ok_if "the policy dropped nothing (REJECT answered)" \
	test "$($NS $IPT -w -nvxL INPUT | awk 'NR == 1 { print $5 }')" = 0
run $NS $IPT_SAVE -c
ok_if "save shows 3014 rules" test "$(printf '%s\n' "$OUT" | grep -c '^\[.*-A ')" = 3014
cleanup
done_testing
