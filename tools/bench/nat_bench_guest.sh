#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The NAT benchmark's guest side (tools/bench/nat_bench.sh boots the test VM
# with vm_mode=bench): kube-proxy's iptables pattern for N services, new
# connections per second through it, with each backend this boot can run.
#
# Namespaces: cl (10.0.0.1, the clients) -- node (10.0.0.2 / 10.244.0.1,
# forwarding, the nat table) -- ep (10.244.0.2, the one endpoint, port
# 8080). Service i is 10.96.(i / 250).(i % 250 + 1) port 80, TCP for the
# first half of i, UDP for the second (so N services are N KUBE-SERVICES
# rules, TCP then UDP, as README's figures were measured: once bpfilter
# folded a run of jumps only when its rules shared the protocol); every service
# DNATs to 10.244.0.2:8080 through its KUBE-SVC and KUBE-SEP chains, marks
# for masquerading, and POSTROUTING masquerades marked packets, as
# kube-proxy's rules for a ClusterIP with one endpoint do.
#
# Backends (BACKENDS, from nat_bench.sh by boot): iptables (ip_tables with
# iptable_nat), bpfilter (bpfilter.ko), nft (one nft rule per
# iptables rule), nft-vmap (kube-proxy's nftables mode: one verdict map
# lookup by address, protocol and port). Three measurements each: TCP
# connections and UDP flows from client sockets to the endpoint's socket
# (end to end: the sockets' own work is most of the cost), and a flood of
# new UDP flows written as frames (bench-conn flood) of which the node
# forwards what its NAT can take: that rate is the node's new-connection
# capacity. The flood is measured after a warm-up flood of NAT_WARMUP
# seconds (default 5; 0: none). Prints one line per measurement:
#   bench-nat: backend=B services=N proto=tcp|udp|flood rate=R failed=F served=S load_s=L
# and "bench-nat: error ..." for anything that went wrong.
set -u
BACKENDS=${BACKENDS:-iptables}
SIZES=${NAT_SIZES:-10 1000 10000}
SECS=${NAT_SECONDS:-10}
PROCS=${NAT_PROCS:-2}
# Seconds of warm-up flood before the measured one (0: none).
WARM=${NAT_WARMUP:-5}
bin=${BENCH_CONN:-/selftests/bench-conn}
# The rules' generator: next to this script, in the VM /selftests/kube_gen.sh.
gen=${KUBE_GEN:-$(dirname "$0")/kube_gen.sh}
# iproute2's ip: busybox's has no netns.
IP=/usr/sbin/ip
rules=/tmp/nat.rules

now() { cut -d' ' -f1 /proc/uptime; }

net_up()
{
	for ns in cl node ep; do $IP netns add $ns || return 1; done
	$IP link add cl0 netns cl type veth peer name nd0 netns node || return 1
	$IP link add ep0 netns ep type veth peer name nd1 netns node || return 1
	$IP -n cl addr add 10.0.0.1/24 dev cl0
	$IP -n node addr add 10.0.0.2/24 dev nd0
	$IP -n node addr add 10.244.0.1/24 dev nd1
	$IP -n ep addr add 10.244.0.2/24 dev ep0
	for ns in cl node ep; do $IP -n $ns link set lo up; done
	$IP -n cl link set cl0 up
	$IP -n ep link set ep0 up
	$IP -n node link set nd0 up
	$IP -n node link set nd1 up
	$IP -n cl route add default via 10.0.0.2
	$IP -n ep route add default via 10.244.0.1
	$IP netns exec node sysctl -qw net.ipv4.ip_forward=1
	# The flood's sources are spoofed inside 10.0.0.0/24: no reverse path check.
	$IP netns exec node sysctl -qw net.ipv4.conf.all.rp_filter=0
	$IP netns exec node sysctl -qw net.ipv4.conf.nd0.rp_filter=0
	# Reset connections leave CLOSE entries for 10 s, UDP ones 30 s: room for them.
	$IP netns exec node sysctl -qw net.netfilter.nf_conntrack_udp_timeout=2 2>/dev/null
	$IP netns exec node sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_close=1 2>/dev/null
	sysctl -qw net.netfilter.nf_conntrack_max=262144 2>/dev/null
	return 0
}

net_down()
{
	for ns in cl node ep; do $IP netns del $ns 2>/dev/null; done
}

# kube-proxy's rules for $2 services in form $1 (tools/bench/kube_gen.sh,
# shared with the host's make bench-control): the nat table, one endpoint
# (the ep namespace's socket) for every service, TCP for the first half.
gen()
{
	sh "$gen" -t nat -e 1 -E 10.244.0.2:8080 -u half "$1" "$2"
}

# Load backend $1's ruleset for $2 services into node: prints the seconds it took.
load()
{
	local be=$1 n=$2 t0 rc
	case $be in
	iptables | bpfilter) gen iptables "$n" > $rules ;;
	nft) gen nft-rules "$n" > $rules ;;
	nft-vmap) gen nft "$n" > $rules ;;
	esac
	t0=$(now)
	case $be in
	iptables | bpfilter) $IP netns exec node iptables-legacy-restore < $rules ;;
	*) $IP netns exec node nft -f $rules ;;
	esac
	rc=$?
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
	return $rc
}

# One measurement: backend $1, $2 services, protocol $3, load time $4.
measure()
{
	local be=$1 n=$2 proto=$3 ls=$4 out srv served
	$IP netns exec ep $bin serve 8080 $((SECS + 3)) > /tmp/serve.out 2>&1 &
	srv=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q ready /tmp/serve.out && break
		sleep 0.2
	done
	out=$($IP netns exec cl $bin "$proto" "$n" 80 "$SECS" "$PROCS")
	wait $srv
	if [ "$proto" = tcp ]; then
		served=$(sed -n 's/.*accepted=\([0-9]*\).*/\1/p' /tmp/serve.out)
	else
		served=$(sed -n 's/.*received=\([0-9]*\).*/\1/p' /tmp/serve.out)
	fi
	rate=$(echo "$out" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
	failed=$(echo "$out" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
	echo "bench-nat: backend=$be services=$n proto=$proto rate=${rate:-0} failed=${failed:-?} served=${served:-0} load_s=$ls"
}

# Frames the node forwarded to the endpoint so far.
fwd_packets()
{
	$IP -n node -s link show nd1 | awk '/TX:/ { getline; print $2; exit }'
}

# The node's own capacity: backend $1, $2 services, load time $3 (bench-conn flood).
measure_flood()
{
	local be=$1 n=$2 ls=$3 mac tx0 tx1 out secs srv
	mac=$($IP netns exec node cat /sys/class/net/nd0/address)
	# A warm-up flood first, the same flows, then their entries' end (UDP
	# timeout 2 s): TCG translates each new stretch of guest code on its
	# first run, which costs a table made of code (bpfilter's programs)
	# per service where ip_tables' one loop is translated once.
	if [ "$WARM" != 0 ]; then
		$IP netns exec cl $bin flood cl0 "$mac" "$n" "$WARM" "$PROCS" > /dev/null
		sleep 3
	fi
	$IP netns exec ep $bin serve 8080 $((SECS + 3)) > /tmp/serve.out 2>&1 &
	srv=$!
	tx0=$(fwd_packets)
	out=$($IP netns exec cl $bin flood cl0 "$mac" "$n" "$SECS" "$PROCS")
	tx1=$(fwd_packets)
	wait $srv
	secs=$(echo "$out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	sent=$(echo "$out" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
	awk -v be="$be" -v n="$n" -v d="$((tx1 - tx0))" -v s="${secs:-0}" -v sent="${sent:-0}" -v ls="$ls" \
		'BEGIN { printf "bench-nat: backend=%s services=%s proto=flood rate=%d failed=0 served=%d sent_rate=%s load_s=%s\n", be, n, (s > 0 ? d / s : 0), d, sent, ls }'
}

rc=0
modprobe veth
for be in $BACKENDS; do
	case $be in
	# TCG runs the helper 10-20 times slower than a CPU: 10k services take
	# longer than a request's default 30 s bound there.
	bpfilter) modprobe bpfilter timeout_ms=600000 ||
		{ echo "bench-nat: error: modprobe bpfilter"; rc=1; continue; } ;;
	iptables) modprobe iptable_nat ;;
	nft*) modprobe nf_tables && modprobe nft_chain_nat && modprobe nft_nat && \
		modprobe nft_masq && modprobe nft_fib_ipv4 && modprobe nft_ct ;;
	esac
	for n in $SIZES; do
		net_down
		if ! net_up; then
			echo "bench-nat: error: namespaces"
			rc=1
			continue
		fi
		if ! ls=$(load "$be" "$n"); then
			echo "bench-nat: error: backend=$be services=$n: the ruleset did not load"
			rc=1
			continue
		fi
		measure "$be" "$n" tcp "$ls"
		measure "$be" "$n" udp "$ls"
		measure_flood "$be" "$n" "$ls"
	done
	net_down
done
exit $rc
