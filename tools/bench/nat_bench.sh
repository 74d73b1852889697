#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nat_bench.sh [KVER]: the NAT benchmark (issue 14), in the test VM.
#
# kube-proxy's iptables rules for N ClusterIP services (KUBE-SERVICES ->
# KUBE-SVC -> KUBE-SEP with DNAT, KUBE-MARK-MASQ, MASQUERADE in
# KUBE-POSTROUTING), and new connections per second from a client
# namespace through a forwarding "node" namespace to the endpoint, each one
# a new conntrack entry whose first packet the nat table judges
# (tools/bench/nat_bench_guest.sh, bench-conn). The VM boots twice, since
# ip_tables and bpfilter.ko exclude each other: once for ip_tables (with
# iptable_nat) and nftables (the same rules as nft rules, and kube-proxy's
# nftables mode: one verdict map), once for bpfilter, with the nftables
# verdict map again as a reference between the two boots.
#
# TCG emulates every instruction, so absolute rates are far below a real
# machine's; compare the ratios, measured in the same boot where they can be.
#
# Environment: NAT_SIZES (default "10 1000 10000"), NAT_SECONDS (each
# measurement, default 10), VM_TIMEOUT (each boot, default 3600 s),
# NAT_BOOTS (default "ip_tables bpfilter": which boots to run; the report
# reads the logs of both from build/bench/nat/).
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
kver=${1:-$(bash scripts/vm/fetch-kernel.sh 2>/dev/null | grep -m1 -- '-cloud-amd64' | grep -v deb13)}
sizes=${NAT_SIZES:-10 1000 10000}
secs=${NAT_SECONDS:-10}
initrd=build/vm/$kver/initrd-bench.gz
out=build/bench/nat
mkdir -p "$out"

if [ ! -x build/bench/bench-conn ] || [ ! -f "build/module/$kver/bpfilter.ko" ]; then
	echo "nat_bench: build first: make bench-tools modules" >&2
	exit 1
fi
[ -f "build/vm/$kver/kernel/vmlinuz" ] || scripts/vm/fetch-kernel.sh "$kver" > /dev/null || exit 1
BENCH=1 scripts/vm/mkinitramfs.sh "$kver" "$initrd" > /dev/null || exit 1

rc=0
for be in ${NAT_BOOTS:-ip_tables bpfilter}; do
	echo "# nat_bench: booting $kver for $be (sizes $sizes, ${secs}s each)"
	BACKEND=$be INITRD=$initrd NAT_SIZES=$sizes NAT_SECONDS=$secs \
		VM_TIMEOUT=${VM_TIMEOUT:-3600} bash scripts/vm/run.sh "$kver" bench \
		> "$out/$be.log" 2>&1 || rc=1
	grep '^bench-nat:' "$out/$be.log"
	grep -E '^# vm: PROBLEM|^# vm: guest job' "$out/$be.log"
done

# The report: per size and protocol, each backend's rate and bpfilter's ratios.
cat "$out"/ip_tables.log "$out"/bpfilter.log | awk -v sizes="$sizes" '
	/^bench-nat: backend=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		b = f["backend"]
		# nft-vmap runs in both boots: keep them apart.
		if (b == "nft-vmap" && seen_bpf) b = "nft-vmap(2)"
		r[b, f["services"], f["proto"]] = f["rate"]
		l[b, f["services"]] = f["load_s"]
		if (f["backend"] == "bpfilter") seen_bpf = 1
	}
	/^# vm: .* bench backend=ip_tables/ { }
	/^bench-nat: backend=bpfilter/ { seen_bpf = 1 }
	END {
		n = split(sizes, s, " ")
		printf "\n%-8s %-5s %10s %10s %10s %10s %12s %12s %10s\n", "services", "proto",
			"iptables", "nft", "nft-vmap", "bpfilter", "bpf/iptables", "bpf/nft-vmap", "load s"
		for (i = 1; i <= n; i++)
			for (p = 0; p < 3; p++) {
				pr = p == 0 ? "tcp" : p == 1 ? "udp" : "flood"
				ipt = r["iptables", s[i], pr] + 0; bpf = r["bpfilter", s[i], pr] + 0
				v2 = r["nft-vmap(2)", s[i], pr] + 0
				printf "%-8s %-5s %10d %10d %10d %10d %12s %12s %10s\n", s[i], pr, ipt,
					r["nft", s[i], pr], r["nft-vmap", s[i], pr], bpf,
					ipt ? sprintf("%.1fx", bpf / ipt) : "-",
					v2 ? sprintf("%.1fx", bpf / v2) : "-",
					sprintf("%s/%s", l["iptables", s[i]], l["bpfilter", s[i]])
			}
		print "(connections per second; nft-vmap measured in the bpfilter boot for bpf/nft-vmap;"
		print " flood: new UDP flows the node forwards, its NAT capacity;"
		print " load s: iptables-legacy-restore of the ruleset, ip_tables / bpfilter)"
		# What the services add to each new flow, over the smallest size: the
		# cost of the nat table itself, without what every flow costs anyway.
		printf "\n%-8s %14s %14s %14s %12s\n", "services", "iptables us", "nft-vmap us", "bpfilter us", "ipt/bpf"
		for (i = 2; i <= n; i++) {
			a = cost("iptables", s[i], s[1]); v = cost("nft-vmap(2)", s[i], s[1])
			b = cost("bpfilter", s[i], s[1])
			printf "%-8s %14s %14s %14s %12s\n", s[i], a, v, b,
				(a != "-" && b != "-" && b > 0.5) ? sprintf("%.1fx", a / b) : "-"
		}
		print "(microseconds each new flow (flood) costs more than with " s[1] " services)"
	}
	function cost(b, n, base,   x, y) {
		x = r[b, n, "flood"] + 0; y = r[b, base, "flood"] + 0
		return x && y ? sprintf("%.1f", 1e6 / x - 1e6 / y) : "-"
	}'
exit $rc
