#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test of the metadata matches read through BTF (issue 12):
# -m pkttype, -m devgroup, -m realm, -m mac and -m connmark, on this host,
# whose kernel has their xt modules built in. The same ruleset and the same
# traffic on two sides; every rule's counters must be equal.
#
#   K: client cK --veth-- server sK, stock iptables-legacy (ip_tables)
#   H: client cH --veth-- server sH, the same iptables through the shim and
#      bpfilter-hostd -C
#
# The server's veth is in device group 7 and its subnet route has realm 5;
# the client's veth has a fixed MAC. An nftables table on each server marks
# ICMP conntrack entries 0x15 (and keeps conntrack on, as bpfilter.ko's hold
# does on side H). Traffic: unicast pings and UDP from the client, UDP
# broadcasts and multicasts both ways (the server's own come back to it
# looped back: pkttype's PACKET_LOOPBACK case) and pings over lo (no MAC
# header of Ethernet, group 0, no realm). Prints "meta-diff: N rules,
# M mismatches".
set -u
cd "$(dirname "$0")/../../../.."
. scripts/tap.sh
. tools/testing/selftests/bpfilter/lib/diff.sh
tag=mtd$$
diff_start $tag -C
mac=02:00:00:00:00:01

# send DST COUNT: COUNT UDP datagrams to DST port 9, broadcast allowed.
send=/tmp/$tag.send.py
cat > $send <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for i in range(int(sys.argv[2])):
    try:
        s.sendto(b'bpfilter', (sys.argv[1], 9))
    except OSError:
        pass
PY

for s in K H; do
	c=${tag}c$s
	v=${tag}s$s
	diff_pair $s address $mac
	ip -n $v link set ${tag}$s group 7
	ip -n $v route replace 10.88.0.0/24 dev ${tag}$s realm 5
	ip -n $c route add 224.0.0.0/4 dev ${tag}$s
	ip -n $v route add 224.0.0.0/4 dev ${tag}$s
	ip netns exec $v sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts'
	printf '%s\n' 'table ip cm {' \
		' chain pre { type filter hook prerouting priority -150; meta l4proto icmp ct mark set 0x15; }' \
		' chain out { type filter hook output priority -150; meta l4proto icmp ct mark set 0x15; }' \
		'}' | ip netns exec $v nft -f -
	ok $? "$s: conntrack on and ICMP entries marked 0x15 in the server (nftables)"
done

rules=/tmp/$tag.rules
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	for m in \
		"-m pkttype --pkt-type unicast" "-m pkttype --pkt-type broadcast" \
		"-m pkttype --pkt-type multicast" "-m pkttype ! --pkt-type unicast" \
		"-p udp -m pkttype ! --pkt-type broadcast" \
		"-m devgroup --src-group 7" "-m devgroup --src-group 0x3/0x3" \
		"-m devgroup ! --src-group 7" "-m devgroup ! --src-group 0x1/0x1" \
		"-m realm --realm 5" "-m realm ! --realm 5" "-m realm --realm 0x50000/0xffff0000" \
		"-m realm --realm 0/0xffff" "-m realm ! --realm 0x1/0x1" \
		"-m mac --mac-source $mac" "-m mac ! --mac-source $mac" \
		"-m mac --mac-source 02:00:00:00:00:09" "-m mac ! --mac-source 02:00:00:00:00:09" \
		"-m connmark --mark 0x15" "-m connmark --mark 0x5/0xf" \
		"-m connmark ! --mark 0x15" "-m connmark --mark 0" \
		"-p icmp -m pkttype --pkt-type unicast -m devgroup --src-group 7 -m mac --mac-source $mac -m connmark --mark 0x15"; do
		echo "-A INPUT $m"
	done
	for m in \
		"-m pkttype --pkt-type unicast" "-m pkttype ! --pkt-type unicast" \
		"-m pkttype --pkt-type broadcast" \
		"-m devgroup --dst-group 7" "-m devgroup ! --dst-group 7" \
		"-m devgroup --dst-group 0x0/0x4" \
		"-m realm --realm 5" "-m realm ! --realm 5" "-m realm --realm 0x5/0xff" \
		"-m connmark --mark 0x15" "-m connmark ! --mark 0x15/0xf0" "-m connmark --mark 0"; do
		echo "-A OUTPUT $m"
	done
	echo 'COMMIT'
} > $rules
diff_restore $rules "pkttype, devgroup, realm, mac and connmark"

traffic() {
	local c=${tag}c$1 v=${tag}s$1

	ip netns exec $c busybox ping -c 2 -W 1 10.88.0.2 > /dev/null 2>&1
	ip netns exec $c python3 $send 10.88.0.2 3
	ip netns exec $c python3 $send 10.88.0.255 2
	ip netns exec $c python3 $send 224.0.0.1 2
	ip netns exec $v python3 $send 10.88.0.255 2
	ip netns exec $v python3 $send 224.0.0.1 2
	ip netns exec $v python3 $send 10.88.0.1 1
	ip netns exec $v busybox ping -c 1 -W 1 127.0.0.1 > /dev/null 2>&1
	sleep 0.5
}
traffic K
traffic H

diff_report meta-diff $nrules $((nrules * 3 / 4))
tap_totals
