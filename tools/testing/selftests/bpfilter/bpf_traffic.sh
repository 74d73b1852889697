#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real traffic through bpfilter's BPF programs on this host: stock
# iptables-legacy (through the LD_PRELOAD shim and bpfilter-hostd) edits the
# helper's tables in three network namespaces, the helper attaches netfilter
# BPF programs there, and ping / UDP / TCP between the namespaces over veth
# pairs must be delivered or dropped as the rules say, with the counters
# iptables -nvxL shows.
#
#   X (10.251.3.1, dropped by its name later) --veth-- A
#   A (10.251.1.1) --veth-- R (10.251.1.2 | 10.251.2.2, forwarding) --veth-- B (10.251.2.1)
#
# Output is kselftest-style and ends with "# Totals: pass:P fail:F".
set -u
cd "$(dirname "$0")/../../../.."
root=$PWD
tag=bpfE$$
A=${tag}_a
R=${tag}_r
B=${tag}_b
sock=/tmp/$tag.sock
fault=/tmp/$tag.fault
work=$(mktemp -d /tmp/$tag.XXXX)
py=/usr/bin/python3
[ -x $py ] || py=python3
pass=0
fail=0
n=0
hostd_pid=
srv_pid=
holder_pid=

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	[ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null
	[ -n "$hostd_pid" ] && kill "$hostd_pid" 2>/dev/null
	sleep 0.2
	for ns in $A $R $B ${tag}_x; do ip netns del "$ns" 2>/dev/null; done
	mountpoint -q "$work/bpffs" 2>/dev/null && umount "$work/bpffs"
	rm -rf "$work" "$sock" "$fault"
}
trap cleanup EXIT

ipt() {
	local ns=$1
	shift
	ip netns exec "$ns" env LD_PRELOAD="$root/build/shim/bpfilter_shim.so" \
		BPFILTER_HOSTD="$sock" iptables-legacy -w "$@"
}

# Packets counted by rule $3 (1-based) of chain $2 in namespace $1.
rule_pkts() {
	ipt "$1" -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

policy_pkts() {
	ipt "$1" -nvxL "$2" | awk 'NR == 1 { print $5 }'
}

ping_ok() { ip netns exec "$1" busybox ping -c1 -W1 "$2" >/dev/null 2>&1; }
ping_blocked() { ! ping_ok "$@"; }

# One UDP datagram from namespace $1 to $2:$3, received in namespace $4?
udp_ok() {
	local out=$work/udp.$3
	ip netns exec "$4" timeout 3 $py -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.settimeout(1.5)
try:
    s.recvfrom(100); print("got")
except Exception:
    print("none")' "$3" >"$out" &
	local rpid=$!
	sleep 0.3
	ip netns exec "$1" $py -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", (sys.argv[1], int(sys.argv[2])))
except OSError:
    pass' "$2" "$3"
	wait $rpid
	grep -q got "$out"
}

# TCP connect from namespace $1 to $2:$3 (the server in B listens on 5003, 5004).
tcp_ok() {
	ip netns exec "$1" $py -c '
import socket, sys
s = socket.socket()
s.settimeout(1)
try:
    s.connect((sys.argv[1], int(sys.argv[2]))); sys.exit(0)
except Exception:
    sys.exit(1)' "$2" "$3"
}

echo "# bpf-traffic: BPF enforcement with real packets between namespaces"
if [ ! -x build/shim/bpfilter-hostd ] || [ ! -f build/shim/bpfilter_shim.so ] ||
   [ ! -x net/bpfilter/bpfilter_umh ]; then
	nok "helper or shim not built (make all shim)"
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi

# Topology.
for ns in $A $R $B; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip link add "${tag}a" type veth peer name "${tag}ra"
ip link add "${tag}b" type veth peer name "${tag}rb"
ip link set "${tag}a" netns $A
ip link set "${tag}ra" netns $R
ip link set "${tag}b" netns $B
ip link set "${tag}rb" netns $R
ip -n $A addr add 10.251.1.1/24 dev "${tag}a"
ip -n $R addr add 10.251.1.2/24 dev "${tag}ra"
ip -n $R addr add 10.251.2.2/24 dev "${tag}rb"
ip -n $B addr add 10.251.2.1/24 dev "${tag}b"
for l in "$A ${tag}a" "$R ${tag}ra" "$R ${tag}rb" "$B ${tag}b"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n $A route add default via 10.251.1.2
ip -n $B route add default via 10.251.2.2
ip netns exec $R sysctl -qw net.ipv4.ip_forward=1

BPFILTER_FAULT_FILE=$fault build/shim/bpfilter-hostd -s "$sock" \
	-H "$root/net/bpfilter/bpfilter_umh" -b >"$work/hostd.pid" 2>"$work/helper.log"
hostd_pid=$(cat "$work/hostd.pid")

# A TCP server in B on 5003 and 5004.
ip netns exec $B timeout 300 $py -c '
import socket, select
ls = []
for p in (5003, 5004):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", p)); s.listen(64); ls.append(s)
while True:
    r, _, _ = select.select(ls, [], [])
    for s in r:
        c, _ = s.accept(); c.close()' &
srv_pid=$!
sleep 0.5

check "baseline: A pings B through R" ping_ok $A 10.251.2.1

# INPUT in B.
ipt $B -A INPUT -p icmp -j DROP
check "INPUT: -p icmp -j DROP blocks ping to B" ping_blocked $A 10.251.2.1
check "INPUT: rule counter is 1 packet" test "$(rule_pkts $B INPUT 1)" = 1
check "bpftool shows bpf_flt_INPUT" sh -c "bpftool prog show | grep -q 'name bpf_flt_INPUT'"
check "bpftool shows the dispatcher bpfilter_in" sh -c "bpftool prog show | grep -q 'name bpfilter_in '"
check "bpftool shows netfilter links" sh -c "bpftool link show | grep -q 'ip input prio 0'"
ipt $B -D INPUT 1
check "INPUT: rule deleted, ping passes" ping_ok $A 10.251.2.1
check "INPUT: policy counted the ping" test "$(policy_pkts $B INPUT)" -ge 1

ipt $B -A INPUT -p udp --dport 5001 -j DROP
check "INPUT: UDP to 5001 not delivered" eval '! udp_ok $A 10.251.2.1 5001 $B'
check "INPUT: UDP to 5002 delivered" udp_ok $A 10.251.2.1 5002 $B
ipt $B -A INPUT -p tcp --dport 5003 --syn -j DROP
check "INPUT: TCP connect to 5003 blocked (--syn)" eval '! tcp_ok $A 10.251.2.1 5003'
check "INPUT: TCP connect to 5004 works" tcp_ok $A 10.251.2.1 5004
check "INPUT: --syn rule counted SYNs" test "$(rule_pkts $B INPUT 2)" -ge 1
ipt $B -F INPUT

# OUTPUT in A.
ipt $A -A OUTPUT -d 10.251.2.1 -p icmp -j DROP
check "OUTPUT: -d B -p icmp -j DROP blocks ping from A" ping_blocked $A 10.251.2.1
check "OUTPUT: counter 1 packet" test "$(rule_pkts $A OUTPUT 1)" = 1
ipt $A -R OUTPUT 1 ! -d 10.251.2.1 -p icmp -j DROP
check "OUTPUT: ! -d B lets the ping through" ping_ok $A 10.251.2.1
ipt $A -F OUTPUT

# FORWARD in R, interfaces and a user chain.
ipt $R -N chk
ipt $R -A chk -p udp --dport 5001 -j DROP
ipt $R -A chk -p icmp -j RETURN
ipt $R -A FORWARD -i "${tag}ra" -o "${tag}rb" -j chk
ipt $R -A FORWARD -i "${tag}r+" -p icmp --icmp-type echo-request -j DROP
check "FORWARD: user chain drops UDP 5001" eval '! udp_ok $A 10.251.2.1 5001 $B'
check "FORWARD: UDP 5002 forwarded" udp_ok $A 10.251.2.1 5002 $B
check "FORWARD: RETURN then -i r+ echo-request DROP" ping_blocked $A 10.251.2.1
check "FORWARD: echo-request rule counted 1" test "$(rule_pkts $R FORWARD 2)" = 1
check "FORWARD: jump rule counted 3" test "$(rule_pkts $R FORWARD 1)" = 3
check "bpftool shows bpf_flt_FORWARD" sh -c "bpftool prog show | grep -q 'name bpf_flt_FORWARD'"

# The raw table in R: PREROUTING at NF_IP_PRI_RAW, a table of its own.
check "raw: A pings R before raw rules" ping_ok $A 10.251.1.2
ipt $R -t raw -A PREROUTING -s 10.251.1.1 -p icmp -j DROP
check "raw: PREROUTING -s A -p icmp -j DROP blocks A's ping to R" ping_blocked $A 10.251.1.2
check "raw: the rule counted 1 packet" \
	test "$(ipt $R -t raw -nvxL PREROUTING | awk 'NR == 3 { print $1 }')" = 1
check "raw: R's filter table is unchanged" test "$(ipt $R -S FORWARD | grep -c '^-A')" = 2
check "raw: bpftool shows bpf_raw_PREROU at priority -300" \
	sh -c "bpftool prog show | grep -q 'name bpf_raw_PREROU' &&
	       bpftool link show | grep -q 'ip prerouting prio -300'"
check "raw: -save lists the newest table first" \
	test "$(ip netns exec $R env LD_PRELOAD="$root/build/shim/bpfilter_shim.so" \
		BPFILTER_HOSTD="$sock" iptables-legacy-save | grep '^\*' | tr '\n' ' ')" = "*raw *filter "
ipt $R -t raw -F PREROUTING
check "raw: flushed, A pings R again" ping_ok $A 10.251.1.2

# Failures leave the old ruleset in force.
if ipt $R -A FORWARD -j QUEUE 2>/dev/null; then
	nok "QUEUE (no BPF translation) is refused"
else
	ok "QUEUE (no BPF translation) is refused"
fi
touch "$fault"
if ipt $R -A FORWARD -p tcp -j ACCEPT 2>/dev/null; then
	nok "a verifier rejection fails the command"
else
	ok "a verifier rejection fails the command"
fi
rm -f "$fault"
check "verifier log reached the helper log" grep -q "verifier:" "$work/helper.log"
check "old FORWARD rules still enforced" ping_blocked $A 10.251.2.1
check "old FORWARD rules unchanged (2 rules)" test "$(ipt $R -S FORWARD | grep -c '^-A')" = 2
ipt $R -F
ipt $R -X chk

# Replacements under continuous traffic: every datagram must arrive.
ipt $B -A INPUT -p udp --dport 7 -j DROP
ipt $B -A INPUT -p udp --dport 6000 -j ACCEPT
ip netns exec $B timeout 30 $py -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 6000)); s.settimeout(3)
seen = set()
try:
    while len(seen) < 1000:
        d, _ = s.recvfrom(100); seen.add(d)
except Exception:
    pass
print(len(seen))' >"$work/recv" &
rpid=$!
sleep 0.3
ip netns exec $A $py -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1000):
    s.sendto(str(i).encode(), ("10.251.2.1", 6000)); time.sleep(0.002)' &
spid=$!
swaps=0
while kill -0 $spid 2>/dev/null && [ $swaps -lt 200 ]; do
	ipt $B -I INPUT -p udp --dport 8 -j DROP && ipt $B -D INPUT 1 && swaps=$((swaps + 2))
done
wait $spid
wait $rpid
echo "# $swaps replaces during the stream, $(cat "$work/recv") of 1000 datagrams received," \
	"the --dport 6000 rule counted $(rule_pkts $B INPUT 2)"
check "no datagram lost across $swaps replaces" test "$(cat "$work/recv")" = 1000
check "at least 10 replaces happened under traffic" test $swaps -ge 10
# libiptc carries rule counters across replaces (the policy's it zeroes on -I,
# with ip_tables too): every datagram is counted exactly once.
check "rule counter kept across replaces: 1000 packets" test "$(rule_pkts $B INPUT 2)" = 1000

ipt $B -Z INPUT
check "-Z zeroes the live counters" test "$(rule_pkts $B INPUT 2)" = 0
udp_ok $A 10.251.2.1 6000 $B
check "counting restarts after -Z" test "$(rule_pkts $B INPUT 2)" = 1

# Teardown: a namespace whose only reference besides bpfilter is a socket
# held by a process outside it stays enforced; when that process exits the
# namespace is released and dies (its veth peer in A goes with it).
X=${tag}_x
ip netns add $X
ip -n $X link set lo up
ip link add "${tag}x" type veth peer name "${tag}ax"
ip link set "${tag}x" netns $X
ip link set "${tag}ax" netns $A
ip -n $X addr add 10.251.3.1/24 dev "${tag}x"
ip -n $A addr add 10.251.3.2/24 dev "${tag}ax"
ip -n $X link set "${tag}x" up
ip -n $A link set "${tag}ax" up
ipt $X -A INPUT -p udp --dport 5010 -j DROP
# The holder: UDP sockets on 5010 and 5011 created in X, then back in the
# initial namespace with no file of X open; it logs the port of each
# datagram it receives.
$py -c '
import ctypes, os, select, socket, sys, time
libc = ctypes.CDLL(None, use_errno=True)
me = os.open("/proc/self/ns/net", os.O_RDONLY)
x = os.open("/run/netns/" + sys.argv[1], os.O_RDONLY)
assert libc.setns(x, 0x40000000) == 0
socks = []
for p in (5010, 5011):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", p)); socks.append(s)
assert libc.setns(me, 0x40000000) == 0
os.close(x); os.close(me)
log = open(sys.argv[2], "w", buffering=1)
log.write("ready\n")
end = time.time() + float(sys.argv[3])
while time.time() < end and not os.path.exists(sys.argv[4]):
    r, _, _ = select.select(socks, [], [], 0.2)
    for s in r:
        s.recv(100); log.write("%d\n" % s.getsockname()[1])' \
	$X "$work/holder.log" 60 "$work/holder.stop" &
holder_pid=$!
for i in $(seq 50); do grep -q ready "$work/holder.log" 2>/dev/null && break; sleep 0.1; done
udp_to_x() {
	ip netns exec $A $py -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"x", ("10.251.3.1", int(sys.argv[1])))' "$1"
}
udp_to_x 5010
udp_to_x 5011
sleep 0.5
check "teardown: X drops UDP 5010, delivers 5011 to the outside holder" \
	test "$(tr '\n' ' ' <"$work/holder.log")" = "ready 5011 "
ip netns del $X
# Ticks come every 2 s of idleness: two of them at least.
sleep 5
check "teardown: helper logged the socket that keeps X" \
	grep -q "socket.* in it: still enforced" "$work/helper.log"
udp_to_x 5010
udp_to_x 5011
sleep 0.5
check "teardown: X still alive after netns del (veth peer in A)" \
	sh -c "ip -n $A link show ${tag}ax >/dev/null"
check "teardown: X still drops UDP 5010 after its name is gone" \
	test "$(tr '\n' ' ' <"$work/holder.log")" = "ready 5011 5011 "
touch "$work/holder.stop"
wait $holder_pid
holder_pid=
gone=no
for i in $(seq 40); do
	ip -n $A link show "${tag}ax" >/dev/null 2>&1 || { gone=yes; break; }
	sleep 0.25
done
check "teardown: holder gone, X released and dead (veth peer gone)" test $gone = yes
check "teardown: helper logged the release" \
	grep -q "nothing but bpfilter keeps it alive: releasing it" "$work/helper.log"

# Helper crash: with a bpffs directory (the module's private bpffs in real
# life) links, program array and counters are pinned, so the ruleset stays
# enforced while no helper runs, and a restarted helper takes them back.
kill "$hostd_pid"
hostd_pid=
sleep 0.5
check "helper gone: its links are released (clean exit unpins)" ping_ok $A 10.251.2.1
mkdir -p "$work/bpffs" "$work/state"
mount -t bpf bpf "$work/bpffs"
build/shim/bpfilter-hostd -s "$sock" -H "$root/net/bpfilter/bpfilter_umh" -S "$work/state" \
	-B "$work/bpffs" -b >"$work/hostd.pid" 2>>"$work/helper.log"
hostd_pid=$(cat "$work/hostd.pid")
ipt $B -F
ipt $B -A INPUT -p icmp -j DROP
ping_blocked $A 10.251.2.1
check "pinned objects in bpffs" test "$(ls "$work/bpffs" | grep -c _)" -ge 5
helper=$(pgrep -P "$hostd_pid" | head -n1)
if [ -n "$helper" ]; then
	kill -9 "$helper"
	sleep 0.3
	check "helper killed: ruleset still enforced" ping_blocked $A 10.251.2.1
	check "restarted helper reports counters across the crash (2)" \
		test "$(rule_pkts $B INPUT 1)" = 2
	ipt $B -D INPUT 1
	check "restarted helper changes the ruleset" ping_ok $A 10.251.2.1
else
	nok "helper process of hostd $hostd_pid not found"
fi
kill "$hostd_pid"
hostd_pid=
sleep 0.5
umount "$work/bpffs"

# A kernel without BPF netfilter programs (Debian 6.1), simulated: the
# default table reads back, accept-all replaces work, anything that needs
# BPF fails with EOPNOTSUPP and a log line that says why.
BPFILTER_NO_BPF=1 build/shim/bpfilter-hostd -s "$sock" -H "$root/net/bpfilter/bpfilter_umh" \
	-b >"$work/hostd.pid" 2>"$work/nobpf.log"
hostd_pid=$(cat "$work/hostd.pid")
check "no BPF: the default table reads back" test "$(ipt $A -S | wc -l)" = 3
check "no BPF: an accept-all replace succeeds" ipt $A -P INPUT ACCEPT
check "no BPF: an empty user chain needs no BPF either" ipt $A -N spare
check "no BPF: so does -Z" ipt $A -Z
ipt $A -X spare
out=$(ipt $A -A INPUT -p icmp -j DROP 2>&1)
check "no BPF: a rule is refused" test $? -ne 0
echo "# iptables said: $out"
check "no BPF: iptables reports EOPNOTSUPP" sh -c "echo '$out' | grep -qi 'not supported'"
check "no BPF: the log says why" grep -q "no BPF netfilter programs" "$work/nobpf.log"
check "no BPF: the table is unchanged" test "$(ipt $A -S | wc -l)" = 3
kill "$hostd_pid"
hostd_pid=

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail -eq 0 ]
