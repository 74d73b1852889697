#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter benchmark (issue 5): end-to-end packet rate, per-packet BPF cost
# and control-plane cost of bpfilter against ip_tables and nftables, in one
# run on this machine's kernel.
#
#   tools/bench/bench.sh --full  [--out DIR]   (make bench: DIR = docs/)
#   tools/bench/bench.sh --smoke [--out DIR]   (make bench-smoke: a short check)
#   tools/bench/bench.sh --full --family 6     (make bench6: IPv6 alone)
#   options: --family 4|6|"4 6" (default both, IPv4 first)
#            --shapes "blocklist portlist mixed stateful" --sizes "1 10 ..." --runs R
#            --secs S (seconds per packet-rate run): for every family, but
#            IPv6 runs only the shapes it has (blocklist, mixed) and, in a
#            --smoke run of both families, only the largest size
#            --sizes6 "N ...", --runs6 R: IPv6's own, over those
#            --report-only: measure nothing, rewrite the report from the
#            figures of the last run of that mode (build/bench/run-MODE/,
#            IPv6: run-MODE6/)
#
# Needs root. Each backend gets its own two network namespaces, bsrc-BE
# (10.200.0.1/30; IPv6: fd00:200::1/126) and bdst-BE (10.200.0.2/30;
# fd00:200::2/126), joined by a veth pair; nothing outside them is touched.
# The families run one after the other; family_set() holds all they differ
# in (addresses, commands, names of programs, lines and files). For each
# shape and size all backends are loaded side by side (their INPUT hooks are
# per namespace) and then measured in turns, one run each per round, so
# drift on a shared machine hits all alike:
#   none      no firewall
#   iptables  stock iptables-legacy-restore against the kernel's ip_tables
#             (IPv6: ip6tables-legacy-restore, ip6_tables)
#   nft       nft -f, one nft rule per iptables rule (IPv6: table ip6)
#   nftset    nft -f, runs folded into sets where natural (shapes.h)
#   bpfilter  stock iptables-legacy-restore (ip6tables-legacy-restore) through
#             the LD_PRELOAD shim and bpfilter-hostd, whose helper (BPF
#             backend) attaches in bdst-bpfilter
# Packet rate = datagrams that passed INPUT (left in the socket, never read,
# + dropped for a full socket buffer) per second of sending; median of
# --runs rounds.
# A backend that cannot load a size is reported as FAIL, not skipped.
# Lines: "bench: shape=S rules=N bpfilter_pps=... iptables_pps=..." for IPv4,
# "bench6: shape=S rules=N bpfilter_pps=... ip6tables_pps=..." for IPv6 (and
# bench-mem:/bench6-mem:); the report has a section per family.
# Shapes with conntrack rules (ct_shapes) get conntrack switched on in every
# backend's bdst namespace, no firewall included, and bpfilter-hostd -C; the
# state conntrack gave the measured flow is recorded as BACKEND_ct.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
bin=$src/build/bench
shim=$src/build/shim/bpfilter_shim.so
hostd=$src/build/shim/bpfilter-hostd
helper=${BPFILTER_HELPER:-$src/net/bpfilter/bpfilter_umh}

mode=full
out=
families="4 6"
shapes_opt=
sizes_opt=
runs_opt=
secs=
sizes6_opt=
runs6_opt=
backends="none iptables nft nftset bpfilter"
# Shapes whose rules read conntrack (shapes.h).
ct_shapes="stateful"
load_timeout=300
report_only=0

while [ $# -gt 0 ]; do
	case "$1" in
	--full) mode=full ;;
	--smoke) mode=smoke ;;
	--out) out=$2; shift ;;
	--family) families=$2; shift ;;
	--shapes) shapes_opt=$2; shift ;;
	--sizes) sizes_opt=$2; shift ;;
	--runs) runs_opt=$2; shift ;;
	--secs) secs=$2; shift ;;
	--sizes6) sizes6_opt=$2; shift ;;
	--runs6) runs6_opt=$2; shift ;;
	--report-only) report_only=1 ;;
	*) echo "usage: $0 [--full|--smoke] [--family 4|6|\"4 6\"] [--out DIR] [--shapes S] [--sizes N...]" \
		"[--runs R] [--secs S] [--sizes6 N...] [--runs6 R] [--report-only]" >&2
	   exit 2 ;;
	esac
	shift
done
case "$families" in
"4"|"6"|"4 6") ;;
"6 4"|both) families="4 6" ;;
*) echo "bench: --family takes 4, 6 or \"4 6\"" >&2; exit 2 ;;
esac
if [ "$mode" = smoke ]; then
	sizes4_def="1 100"
	runs4_def=1
	secs=${secs:-0.4}
	prog_runs=3
	prog_ms=10
	load_timeout=60
else
	sizes4_def="1 10 100 1000 10000 100000"
	runs4_def=7
	secs=${secs:-1}
	prog_runs=5
	prog_ms=50
fi

for f in "$bin/bench-gen" "$bin/bench-udp" "$bin/bench-prog" "$shim" "$hostd" "$helper"; do
	if [ ! -x "$f" ] && [ ! -f "$f" ]; then
		echo "bench: missing $f (run make helper shim bench-tools)" >&2
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (network namespaces, BPF)" >&2
	exit 1
fi

# ---- families ----------------------------------------------------------------
# family_set 4|6: everything the two families differ in, and the figures'
# files of that family; the rest of the script only reads these variables.
family_set() {
	local shapes_def sizes_def runs_def s
	fam=$1
	case $fam in
	4)
		tag=			# bench: lines, run-MODE/, benchmarks.png
		fam_name=IPv4
		ipt_cmd=iptables-legacy	# -restore, -save: stock iptables
		ipt_name=ip_tables	# the kernel's, in the report
		nft_family=ip
		src_addr=10.200.0.1 dst_addr=10.200.0.2 plen=30 nodad=
		any_addr=0.0.0.0	# the sink's bind address
		host_plen=32
		append_src=192.0.2.1/32	# the timed -A's source (TEST-NET-1)
		ct_src=$src_addr ct_dst=$dst_addr	# as /proc/net/nf_conntrack prints them
		prog_opt=		# bench-gen and bench-prog: the family's shapes and probes
		flt_re='^bpf_flt_'	# the ruleset programs (segments: bflt_*)
		shapes_def="blocklist portlist mixed" fam_shapes="blocklist portlist mixed stateful"
		sizes_def=$sizes4_def runs_def=$runs4_def
		;;
	6)
		tag=6
		fam_name=IPv6
		ipt_cmd=ip6tables-legacy
		ipt_name=ip6_tables
		nft_family=ip6
		# No DAD: the addresses are usable at once, as IPv4's are.
		src_addr=fd00:200::1 dst_addr=fd00:200::2 plen=126 nodad=nodad
		any_addr=::
		host_plen=128
		append_src=2001:db8::1/128
		ct_src=fd00:0200:0000:0000:0000:0000:0000:0001
		ct_dst=fd00:0200:0000:0000:0000:0000:0000:0002
		prog_opt=-6
		flt_re='^bpf_ip6_'
		shapes_def="blocklist mixed" fam_shapes="blocklist mixed"
		# After IPv4's 15 minutes, fewer sizes and rounds keep make bench
		# within its 20.
		if [ "$mode" = smoke ]; then
			sizes_def=$sizes4_def runs_def=$runs4_def
		else
			sizes_def="1 100 10000 100000" runs_def=3
		fi
		;;
	esac
	# The shapes asked for that this family has.
	shapes=
	for s in ${shapes_opt:-$shapes_def}; do
		[[ " $fam_shapes " == *" $s "* ]] && shapes="$shapes${shapes:+ }$s"
	done
	sizes=${sizes_opt:-$sizes_def}
	runs=${runs_opt:-$runs_def}
	if [ "$fam" = 6 ]; then
		# Next to IPv4 in a smoke run, one size proves the IPv6 machinery.
		[ "$mode" = smoke ] && [ "$families" = "4 6" ] && sizes=${sizes##* }
		sizes=${sizes6_opt:-$sizes}
		runs=${runs6_opt:-$runs}
	fi
	work=$bin/run-$mode$tag
	results=$work/results.txt
	sock=$work/hostd.sock
}

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
log() { echo "# $*" >&2; }

# The figures of $results, also in memory: the report looks up hundreds of them.
declare -A figs
# Record one figure: rec SHAPE N KEY VALUE
rec() { echo "$1 $2 $3 $4" >> "$results"; figs["$1 $2 $3"]=$4; }
# Look one up: get SHAPE N KEY (empty if absent; the last one recorded)
get() { echo "${figs["$1 $2 $3"]:-}"; }
# Read $results into figs (--report-only).
load_figs() {
	local s n k v
	figs=()
	while read -r s n k v _; do
		figs["$s $n $k"]=$v
	done < "$results"
}

hostd_pid=

# Every backend has its own pair of namespaces, bsrc-BACKEND and bdst-BACKEND.
net_down() {
	local be
	for be in none iptables nft nftset bpfilter; do
		ip netns del "bsrc-$be" 2>/dev/null
		ip netns del "bdst-$be" 2>/dev/null
	done
	return 0
}

net_up() {
	local be=$1 mac
	local sn=bsrc-$be dn=bdst-$be
	ip netns del "$sn" 2>/dev/null
	ip netns del "$dn" 2>/dev/null
	ip netns add "$sn" && ip netns add "$dn" || return 1
	ip link add bench-veth0 netns "$sn" type veth peer name bench-veth1 netns "$dn" || return 1
	# shellcheck disable=SC2086  # $nodad: "nodad" or no word at all
	ip -n "$sn" addr add "$src_addr/$plen" dev bench-veth0 $nodad &&
	ip -n "$dn" addr add "$dst_addr/$plen" dev bench-veth1 $nodad &&
	ip -n "$sn" link set lo up && ip -n "$dn" link set lo up &&
	ip -n "$sn" link set bench-veth0 up && ip -n "$dn" link set bench-veth1 up || return 1
	# A static neighbour: no ARP (IPv6: neighbour discovery) exchange
	# inside the measured window, nor one the mixed shape's DROP policy stops.
	mac=$(ip -n "$dn" -o link show bench-veth1 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	ip -n "$sn" neigh replace "$dst_addr" lladdr "$mac" dev bench-veth0 nud permanent
}

# Does shape $1 need conntrack?
ct_shape() { [[ " $ct_shapes " == *" $1 "* ]]; }

# Switch conntrack on in bdst-$1 as ct_diff.sh does, with an nftables ct
# expression, but in a chain no hook calls: conntrack runs on every packet
# (nf_ct_netns_get()), the chain never does. Load it after the ruleset (nft
# rulesets start with "flush ruleset").
ct_on() {
	printf 'table %s bench_ct_on {\n\tchain ct_on {\n\t\tct state invalid counter\n\t}\n}\n' "$nft_family" |
		ip netns exec "bdst-$1" nft -f - 2>>"$work/nft.log"
}

# What conntrack made of the measured flow (UDP src_addr -> dst_addr:5001)
# in bdst-$1: "new" (only unreplied entries: every packet is NEW),
# "established" (an entry saw a reply), "off" (no entry: conntrack off).
ct_state() {
	ip netns exec "bdst-$1" cat /proc/net/nf_conntrack 2>/dev/null |
		awk -v a=" src=$ct_src dst=$ct_dst " 'BEGIN { st = "off" }
		     / udp / && index($0, a) && / dport=5001 / {
			if (/\[UNREPLIED\]/) { if (st == "off") st = "new" } else st = "established" }
		     END { print st }'
}

hostd_start() {
	rm -f "$sock"
	local topt='' copt=''
	# Big tables take long to verify: lift hostd's per-request bound if it has -T MS.
	if "$hostd" -h 2>&1 | grep -q -- '-T'; then
		topt="-T $((load_timeout * 1000))"
	fi
	# -C: conntrack is held, as bpfilter.ko would hold it; ct_on() holds it for real.
	[ "${1:-}" = ct ] && copt=-C
	# Output to a file, not a pipe: the daemon keeps it open after -b returns.
	# shellcheck disable=SC2086
	BPFILTER_BACKEND=bpf "$hostd" -s "$sock" -H "$helper" $topt $copt -b > "$work/hostd.pid" \
		2>>"$work/hostd.log" || { hostd_pid=; return 1; }
	hostd_pid=$(head -n 1 "$work/hostd.pid")
	[[ "$hostd_pid" =~ ^[0-9]+$ ]] || { hostd_pid=; return 1; }
}

hostd_stop() {
	local i
	[ -n "$hostd_pid" ] || return 0
	kill "$hostd_pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$hostd_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$hostd_pid" 2>/dev/null
	hostd_pid=
	rm -f "$sock"
}

cleanup() {
	hostd_stop
	net_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

helper_pid() { ps -o pid= --ppid "$hostd_pid" 2>/dev/null | awk 'NR == 1 { print $1 }'; }

# A command (the family's iptables-legacy) in bdst-$1, through the shim when $1 = bpfilter.
ipt() {
	local be=$1; shift
	if [ "$be" = bpfilter ]; then
		ip netns exec "bdst-$be" env LD_PRELOAD="$shim" BPFILTER_HOSTD="$sock" \
			timeout "$load_timeout" "$@"
	else
		ip netns exec "bdst-$be" timeout "$load_timeout" "$@"
	fi
}

# One packet-rate run of backend $1 for $2 s: prints datagrams that passed INPUT per second.
pps_once() {
	local be=$1 d=$2 rfifo rpid line passed
	rfifo=$work/recv.out
	# Emptied here, not by the sink's redirection: that one may run after the
	# wait below has read the last run's "ready", and the sender would start
	# before the sink is bound (0 passed on a busy machine).
	: > "$rfifo"
	ip netns exec "bdst-$be" "$bin/bench-udp" sink 5001 "$(awk -v s="$d" 'BEGIN { print s + 0.3 }')" \
		"$any_addr" > "$rfifo" 2>>"$work/udp.log" &
	rpid=$!
	for line in $(seq 50); do
		grep -q ready "$rfifo" 2>/dev/null && break
		sleep 0.05
	done
	ip netns exec "bsrc-$be" "$bin/bench-udp" send "$dst_addr" 5001 "$d" > /dev/null 2>>"$work/udp.log"
	wait "$rpid"
	passed=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' "$rfifo")
	[ -n "$passed" ] || return 1
	awk -v p="$passed" -v d="$d" 'BEGIN { printf "%d", p / d }'
}

# Median of the numbers in file $1.
median() {
	sort -n "$1" | awk '{ a[NR] = $1 }
		END { if (!NR) exit 1
		      if (NR % 2) print a[(NR + 1) / 2]; else printf "%d", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# Does traffic from the sender still arrive? Used to prove bpfilter enforces.
delivered_any() {
	local v
	v=$(pps_once "$1" 0.3) || return 1
	[ "$v" -gt 0 ]
}

# setup_BACKEND SHAPE N: namespaces and ruleset of one backend, with the
# control-plane figures; on failure records BACKEND_pps FAIL, returns 1.
setup_none() {
	net_up none || { rec "$1" "$2" none_pps FAIL; return 1; }
}

setup_iptables() {
	local s=$1 n=$2 t0 t1
	net_up iptables || { rec "$s" "$n" iptables_pps FAIL; return 1; }
	t0=$(now)
	if ! ipt iptables "$ipt_cmd-restore" < "$work/$s-$n.ipt" 2>>"$work/iptables.log"; then
		rec "$s" "$n" iptables_pps FAIL
		return 1
	fi
	t1=$(now)
	rec "$s" "$n" iptables_restore_s "$(elapsed "$t0" "$t1")"
}

# A ct shape's measured packets must not be ESTABLISHED ones: in bdst-$1
# (iptables or bpfilter) the first INPUT rule, RELATED,ESTABLISHED, counted
# none of them and the last one, after the whole blocklist, counted them.
# Records $1_path ok or wrong(...).
path_check() {
	local be=$1 s=$2 n=$3 v
	ct_shape "$s" || return 0
	v=$(ipt "$be" "$ipt_cmd-save" -c -t filter 2>>"$work/$be.log" |
		awk '/^\[[0-9]+:[0-9]+\] -A INPUT / { split(substr($1, 2), c, ":")
			if (!rules++ && / RELATED,ESTABLISHED /) est = c[1] + 0
			last = c[1] + 0 }
		     END { print (rules && !est && last > 0) ? "ok" : "wrong(established=" est + 0 ",last=" last + 0 ")" }')
	rec "$s" "$n" "${be}_path" "$v"
}

# finish_BACKEND SHAPE N: what comes after the packet-rate runs.
# finish_append BE SHAPE N (iptables, bpfilter): the path check, then one timed -A.
finish_append() {
	local be=$1 s=$2 n=$3 t0
	path_check "$be" "$s" "$n"
	t0=$(now)
	ipt "$be" "$ipt_cmd" -A INPUT -s "$append_src" -j DROP 2>>"$work/$be.log" &&
		rec "$s" "$n" "${be}_append_s" "$(elapsed "$t0" "$(now)")"
}
finish_iptables() { finish_append iptables "$@"; }

setup_nft() {
	local s=$1 n=$2 be=${3:-nft} t0
	net_up "$be" || { rec "$s" "$n" "${be}_pps" FAIL; return 1; }
	t0=$(now)
	if ! ip netns exec "bdst-$be" timeout "$load_timeout" nft -f "$work/$s-$n.$be" \
			2>>"$work/nft.log"; then
		rec "$s" "$n" "${be}_pps" FAIL
		return 1
	fi
	rec "$s" "$n" "${be}_load_s" "$(elapsed "$t0" "$(now)")"
}
setup_nftset() { setup_nft "$1" "$2" nftset; }

setup_bpfilter() {
	local s=$1 n=$2 t0 v hp line
	net_up bpfilter || { rec "$s" "$n" bpfilter_pps FAIL; return 1; }
	if ! hostd_start "$(ct_shape "$s" && echo ct)"; then
		log "bpfilter-hostd did not start (see $work/hostd.log)"
		rec "$s" "$n" bpfilter_pps FAIL
		return 1
	fi
	t0=$(now)
	if ! ipt bpfilter "$ipt_cmd-restore" < "$work/$s-$n.ipt" 2>>"$work/bpfilter.log"; then
		log "bpfilter: $s $n: $ipt_cmd-restore failed (see $work/bpfilter.log)"
		rec "$s" "$n" bpfilter_pps FAIL
		rec "$s" "$n" bpfilter_restore_s FAIL
		hostd_stop
		return 1
	fi
	rec "$s" "$n" bpfilter_restore_s "$(elapsed "$t0" "$(now)")"
	hp=$(helper_pid)
	if [ -n "$hp" ]; then
		rec "$s" "$n" helper_hwm_kb "$(awk '/^VmHWM:/ { print $2 }' "/proc/$hp/status")"
		# The table's entries, as ip_tables counts them: rules, policies, two per
		# user chain (its head and its RETURN) and the final ERROR entry.
		entries=$(ipt bpfilter "$ipt_cmd" -S 2>>"$work/bpfilter.log" |
			awk '/^-A/ { a++ } /^-P/ { p++ } /^-N/ { c++ } END { print a + p + 2 * c + 1 }')
		# shellcheck disable=SC2086  # $prog_opt: "-6" or no word at all
		if "$bin/bench-prog" $prog_opt -p "$hp" -s "$s" -n "$n" -e "$entries" -r "$prog_runs" \
				-t "$prog_ms" > "$work/prog-$s-$n.txt" 2>>"$work/bpfilter.log"; then
			rec "$s" "$n" prog_ok yes
		else
			rec "$s" "$n" prog_ok no
		fi
		cat "$work/prog-$s-$n.txt" >&2
		while read -r line; do
			case "$line" in
			cost:*probe=last*) rec "$s" "$n" cost_last_ns "$(sed -n 's/.* ns=\([0-9]*\).*/\1/p' <<< "$line")"
					   rec "$s" "$n" cost_last_ok "$(bpf_check "$line")" ;;
			cost:*probe=none*) rec "$s" "$n" cost_none_ns "$(sed -n 's/.* ns=\([0-9]*\).*/\1/p' <<< "$line")"
					   rec "$s" "$n" cost_none_ok "$(bpf_check "$line")" ;;
			mem:*) for k in entries ncpus counters iptables_counters ratio maps cpus128_counters \
					 cpus128_iptables_counters cpus128_ratio cpus128_maps; do
					rec "$s" "$n" "mem_$k" "$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<< "$line")"
				done ;;
			esac
		done < "$work/prog-$s-$n.txt"
		# The ruleset programs and their segments (the helper holds one family's).
		awk -v re="$flt_re" '/^prog:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			      if (f["name"] ~ re || f["name"] ~ /^bflt_/) { insns += f["insns"]; jited += f["jited_bytes"] } }
		     /^map:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			      maps = maps (maps ? "," : "") f["name"] ":" f["max_entries"] }
		     END { printf "%d %d %s\n", insns, jited, maps ? maps : "-" }' \
			"$work/prog-$s-$n.txt" > "$work/size.txt"
		read -r v t0 line < "$work/size.txt"
		rec "$s" "$n" prog_insns "$v"
		rec "$s" "$n" prog_jited "$t0"
		rec "$s" "$n" maps "$line"
	fi
}

finish_bpfilter() {
	local s=$1 n=$2
	finish_append bpfilter "$s" "$n"
	# Prove the measured path is filtered: a rule dropping the sender stops the traffic.
	if ipt bpfilter "$ipt_cmd" -I INPUT 1 -s "$src_addr/$host_plen" -j DROP 2>>"$work/bpfilter.log"; then
		if delivered_any bpfilter; then
			rec "$s" "$n" bpfilter_enforced no
		else
			rec "$s" "$n" bpfilter_enforced yes
		fi
	else
		rec "$s" "$n" bpfilter_enforced unknown
	fi
	hostd_stop
}

# "ok" if a cost: line shows the expected verdict and a count on the deciding rule.
bpf_check() {
	local v e c
	v=$(sed -n 's/.* verdict=\([0-9]*\).*/\1/p' <<< "$1")
	e=$(sed -n 's/.* expect=\([0-9]*\).*/\1/p' <<< "$1")
	c=$(sed -n 's/.* counted=\([a-z/]*\).*/\1/p' <<< "$1")
	if [ "$v" = "$e" ] && [ "$c" != no ]; then echo ok; else echo "wrong(verdict=$v,expect=$e,counted=$c)"; fi
}

# Measure every shape and size of the family family_set() chose, into $results.
measure() {
	local s n be r loaded start_all
	: > "$results"
	figs=()
	rm -f "$work"/*.log
	start_all=$(now)
	log "bench: family=$fam_name mode=$mode shapes=[$shapes] sizes=[$sizes] runs=$runs secs=$secs" \
	    "kernel=$(uname -r)"
	for s in $shapes; do
		for n in $sizes; do
			# shellcheck disable=SC2086  # $prog_opt: "-6" or no word at all
			"$bin/bench-gen" $prog_opt "$s" "$n" iptables > "$work/$s-$n.ipt" &&
			"$bin/bench-gen" $prog_opt "$s" "$n" nft > "$work/$s-$n.nft" &&
			"$bin/bench-gen" $prog_opt "$s" "$n" nft-set > "$work/$s-$n.nftset" || exit 1
			# Every backend loaded side by side, each in its own namespaces...
			loaded=
			for be in $backends; do
				log "loading shape=$s rules=$n backend=$be"
				if "setup_$be" "$s" "$n"; then
					if ct_shape "$s" && ! ct_on "$be"; then
						rec "$s" "$n" "${be}_pps" FAIL
					else
						loaded="$loaded $be"
					fi
				fi
				rm -f "$work/pps-$be"
			done
			# ... then measured in turns, round after round: drift on this
			# shared machine hits every backend alike.
			for r in $(seq "$runs"); do
				for be in $loaded; do
					log "measuring shape=$s rules=$n backend=$be run=$r"
					pps_once "$be" "$secs" >> "$work/pps-$be" && echo >> "$work/pps-$be"
				done
			done
			for be in $loaded; do
				rec "$s" "$n" "${be}_pps" "$(median "$work/pps-$be" || echo FAIL)"
				# Every round's figure, in round order: for paired ratios.
				rec "$s" "$n" "${be}_rounds" "$(paste -sd, "$work/pps-$be")"
				rec "$s" "$n" "${be}_ct" "$(ct_state "$be")"
				if declare -F "finish_$be" > /dev/null; then
					"finish_$be" "$s" "$n"
				fi
			done
			hostd_stop
			net_down
			rm -f "$work/$s-$n.ipt" "$work/$s-$n.nft" "$work/$s-$n.nftset"
		done
	done
	rec _ _ total_s "$(elapsed "$start_all" "$(now)")"
}

# ---- report -----------------------------------------------------------------
fmt() { if [ -z "$1" ]; then echo "-"; else echo "$1"; fi; }
# Without a figure these answer without awk: most rows of a smoke report
# have none, and hundreds of awk runs took seconds on a busy machine.
mib() {
	[[ $1 =~ ^[0-9]+$ ]] || { echo -; return; }
	awk -v a="$1" 'BEGIN { printf "%.3f", a / 1048576 }'
}
ratio() {
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || { echo n/a; return; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

# One row of the targets table: row TEXT FIGURE VERDICT
row() { echo "| $1 | $2 | $3 |"; }
# verdict of "a <= b" (or >= with $3 = ge) on numbers, "no figure" otherwise
cmp_row() {
	if [ "$1" = FAIL ]; then echo "**no** (FAIL)"; return; fi
	[[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] || { echo "no figure"; return; }
	awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN {
		ok = (op == "ge") ? (a + 0 >= b + 0) : (a + 0 <= b + 0); print ok ? "yes" : "**no**" }'
}
mul() {
	[[ $1 =~ ^[0-9.]+$ ]] || { echo n/a; return; }
	awk -v a="$1" -v m="$2" 'BEGIN { printf "%.3f", a * m }'
}

targets() {
	local s n c1 c bp ip no
	c1=$(get blocklist 1 cost_last_ns)
	for n in 10000 100000; do
		c=$(get blocklist "$n" cost_last_ns)
		m=2; [ "$n" = 100000 ] && m=3
		row "BPF cost, blocklist $n rules <= ${m}x 1 rule (last-rule probe)" \
		    "$(fmt "$c") ns vs $(fmt "$c1") ns x $m" "$(cmp_row "$c" "$(mul "$c1" "$m")" le)"
	done
	for s in $shapes; do
		for n in $sizes; do
			bp=$(get "$s" "$n" bpfilter_pps); ip=$(get "$s" "$n" iptables_pps)
			row "packet rate >= $ipt_name, $s $n" "$(fmt "$bp") vs $(fmt "$ip")" "$(cmp_row "$bp" "$ip" ge)"
		done
		bp=$(get "$s" 10000 bpfilter_pps); ip=$(get "$s" 10000 iptables_pps)
		row "packet rate >= 5x $ipt_name, $s 10000" "$(fmt "$bp") vs 5 x $(fmt "$ip")" \
		    "$(cmp_row "$bp" "$(mul "$ip" 5)" ge)"
		if [ "$s" != mixed ]; then
			no=$(get "$s" 10000 none_pps)
			row "packet rate within 10% of no firewall$(ct_shape "$s" && echo " (conntrack on in both)"), $s 10000" \
			    "$(fmt "$bp") vs 0.9 x $(fmt "$no")" \
			    "$(cmp_row "$bp" "$(mul "$no" 0.9)" ge)"
		fi
		for n in 10000 100000; do
			m=0.5; [ "$n" = 100000 ] && m=5
			c=$(get "$s" "$n" bpfilter_restore_s)
			row "bpfilter restore of $s $n < $m s" "$(fmt "$c") s" "$(cmp_row "$c" "$m" le)"
		done
		c=$(get "$s" 10000 bpfilter_append_s)
		row "bpfilter -A on $s 10000 < 0.5 s" "$(fmt "$c") s" "$(cmp_row "$c" 0.5 le)"
		for n in 1000 10000 100000; do
			c=$(get "$s" "$n" mem_ratio); c1=$(get "$s" "$n" mem_cpus128_ratio)
			row "counter memory <= 1.5x $ipt_name (issue 15), $s $n, here / 128 CPUs" \
			    "$(fmt "$c") / $(fmt "$c1")" \
			    "$(cmp_row "$c" 1.5 le) / $(cmp_row "$c1" 1.5 le)"
		done
	done
}

# The conntrack column: one state if every backend's is the same, else each one's.
ct_col() {
	local be v all='' first='' same=1
	for be in $backends; do
		v=$(fmt "$(get "$1" "$2" "${be}_ct")")
		[ -z "$first" ] && first=$v
		[ "$v" = "$first" ] || same=0
		all="$all${all:+ }$be:$v"
	done
	if [ "$same" = 1 ]; then echo "$first"; else echo "$all"; fi
}

# The path column: ip_tables (ip6_tables)/bpfilter path_check results, "-" for other shapes.
path_col() {
	ct_shape "$1" || { echo -; return; }
	echo "$(fmt "$(get "$1" "$2" iptables_path)")/$(fmt "$(get "$1" "$2" bpfilter_path)")"
}

report() {
	local s n bp ip nf ns no c1l c1n r
	echo "$fam_name. Kernel $(uname -r), $(nproc) CPUs, mode $mode: packet rates are the median of $runs" \
	     "round(s) of ${secs}s per backend (backends in turns), BPF cost median of $prog_runs" \
	     "BPF_PROG_TEST_RUN calls; whole run $(get _ _ total_s)s."
	echo
	echo "### End-to-end packet rate (UDP datagrams/s that passed INPUT), $fam_name"
	echo
	echo "Conntrack: the state conntrack gave the measured flow in the receiving"
	echo "namespaces (\"off\": conntrack not running there; \"new\": on in every"
	echo "backend, no firewall included, and the flow never answered, so each packet"
	echo "is NEW). Path: the $ipt_name and bpfilter counters of a conntrack shape"
	echo "(first rule RELATED,ESTABLISHED: none of the packets; last rule: all)."
	echo
	echo "| shape | rules | no firewall | $ipt_name | nft (rules) | nft (set) | bpfilter | bpfilter / $ipt_name | bpfilter / nft (rules) | bpfilter / nft (set) | bpfilter / no firewall | bpfilter enforced | conntrack | path |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
	for s in $shapes; do
		for n in $sizes; do
			bp=$(get "$s" "$n" bpfilter_pps); ip=$(get "$s" "$n" iptables_pps)
			nf=$(get "$s" "$n" nft_pps); ns=$(get "$s" "$n" nftset_pps); no=$(get "$s" "$n" none_pps)
			echo "| $s | $n | $(fmt "$no") | $(fmt "$ip") | $(fmt "$nf") | $(fmt "$ns") |" \
			     "$(fmt "$bp") | $(ratio "$bp" "$ip") | $(ratio "$bp" "$nf") | $(ratio "$bp" "$ns") |" \
			     "$(ratio "$bp" "$no") | $(fmt "$(get "$s" "$n" bpfilter_enforced)") |" \
			     "$(ct_col "$s" "$n") | $(path_col "$s" "$n") |"
		done
	done
	echo
	echo "### Per-packet cost of bpfilter's INPUT program (BPF_PROG_TEST_RUN, ns/packet), $fam_name"
	echo
	echo "| shape | rules | matches last rule | matches none | last / 1-rule | none / 1-rule | checked |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	for s in $shapes; do
		c1l=$(get "$s" "$(set -- $sizes; echo "$1")" cost_last_ns)
		c1n=$(get "$s" "$(set -- $sizes; echo "$1")" cost_none_ns)
		for n in $sizes; do
			echo "| $s | $n | $(fmt "$(get "$s" "$n" cost_last_ns)") | $(fmt "$(get "$s" "$n" cost_none_ns)") |" \
			     "$(ratio "$(get "$s" "$n" cost_last_ns)" "$c1l") | $(ratio "$(get "$s" "$n" cost_none_ns)" "$c1n") |" \
			     "$(fmt "$(get "$s" "$n" cost_last_ok)")/$(fmt "$(get "$s" "$n" cost_none_ok)") |"
		done
	done
	echo
	echo "### Control plane, $fam_name"
	echo
	echo "| shape | rules | $ipt_name restore (s) | bpfilter restore (s) | $ipt_name -A (s) | bpfilter -A (s) | nft -f rules / set (s) | helper VmHWM (kB) | INPUT+FORWARD+OUTPUT insns | jited bytes | maps (name:entries) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	for s in $shapes; do
		for n in $sizes; do
			echo "| $s | $n | $(fmt "$(get "$s" "$n" iptables_restore_s)") | $(fmt "$(get "$s" "$n" bpfilter_restore_s)") |" \
			     "$(fmt "$(get "$s" "$n" iptables_append_s)") | $(fmt "$(get "$s" "$n" bpfilter_append_s)") |" \
			     "$(fmt "$(get "$s" "$n" nft_load_s)") / $(fmt "$(get "$s" "$n" nftset_load_s)") |" \
			     "$(fmt "$(get "$s" "$n" helper_hwm_kb)") | $(fmt "$(get "$s" "$n" prog_insns)") |" \
			     "$(fmt "$(get "$s" "$n" prog_jited)") | $(fmt "$(get "$s" "$n" maps)") |"
		done
	done
	echo
	echo "### Counter and map memory, $fam_name"
	echo
	echo "bpfilter's counters map against $ipt_name' per-CPU counters (16 bytes per entry"
	echo "per possible CPU), on this machine and computed for 128 CPUs; maps: what the"
	echo "kernel charges for all the helper's maps of the namespace (memlock), MiB."
	echo
	echo "| shape | rules | entries | CPUs | bpfilter counters (MiB) | $ipt_name counters (MiB) | ratio | maps (MiB) | 128 CPUs: bpfilter counters | $ipt_name counters | ratio | maps |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for s in $shapes; do
		for n in $sizes; do
			echo "| $s | $n | $(fmt "$(get "$s" "$n" mem_entries)") | $(fmt "$(get "$s" "$n" mem_ncpus)") |" \
			     "$(mib "$(get "$s" "$n" mem_counters)") | $(mib "$(get "$s" "$n" mem_iptables_counters)") |" \
			     "$(fmt "$(get "$s" "$n" mem_ratio)") | $(mib "$(get "$s" "$n" mem_maps)") |" \
			     "$(mib "$(get "$s" "$n" mem_cpus128_counters)") | $(mib "$(get "$s" "$n" mem_cpus128_iptables_counters)") |" \
			     "$(fmt "$(get "$s" "$n" mem_cpus128_ratio)") | $(mib "$(get "$s" "$n" mem_cpus128_maps)") |"
		done
	done
	echo
	echo "### Issue 5 targets, judged on this run's $fam_name figures"
	echo
	echo "| target | figure | met |"
	echo "|---|---|---|"
	targets
	echo
	echo "### What bpfilter logged when a size failed (hostd/helper stderr, counted), $fam_name"
	echo
	echo '```'
	cat "$work/hostd.log" "$work/bpfilter.log" 2>/dev/null |
		grep -i 'fail\|timed out\|error\|rejected' | sed 's/[0-9]\{6,\}/N/g' | sort | uniq -c | head -20
	echo '```'
}

# bench: lines (IPv6: bench6:, with ip6tables_pps=).
bench_lines() {
	local s n bp ip
	for s in $shapes; do
		for n in $sizes; do
			bp=$(get "$s" "$n" bpfilter_pps); ip=$(get "$s" "$n" iptables_pps)
			echo "bench$tag: shape=$s rules=$n bpfilter_pps=$(fmt "$bp") ${ipt_cmd%-legacy}_pps=$(fmt "$ip")" \
			     "nft_pps=$(fmt "$(get "$s" "$n" nft_pps)") ratio=$(ratio "$bp" "$ip")"
		done
	done
	for s in $shapes; do
		for n in $sizes; do
			echo "bench$tag-mem: shape=$s rules=$n counters_bytes=$(fmt "$(get "$s" "$n" mem_counters)")" \
			     "${ipt_cmd%-legacy}_counters_bytes=$(fmt "$(get "$s" "$n" mem_iptables_counters)")" \
			     "ratio=$(fmt "$(get "$s" "$n" mem_ratio)") maps_bytes=$(fmt "$(get "$s" "$n" mem_maps)")" \
			     "cpus128_ratio=$(fmt "$(get "$s" "$n" mem_cpus128_ratio)")"
		done
	done
}

plot() {
	local png=$1 dat=$work/plot.dat s n col
	command -v gnuplot > /dev/null || { log "gnuplot missing: no plot"; return 1; }
	: > "$dat"
	for s in $shapes; do
		echo "# $s" >> "$dat"
		for n in $sizes; do
			echo -n "$n" >> "$dat"
			for col in none_pps iptables_pps nft_pps nftset_pps bpfilter_pps; do
				v=$(get "$s" "$n" "$col")
				[[ "$v" =~ ^[0-9]+$ ]] || v=NaN
				echo -n " $v" >> "$dat"
			done
			echo >> "$dat"
		done
		printf '\n\n' >> "$dat"
	done
	{
		echo "set terminal pngcairo size 1500,500 font ',10'"
		echo "set output '$png'"
		echo "set multiplot layout 1,$(echo $shapes | wc -w) title 'bpfilter benchmark, kernel $(uname -r), $fam_name: UDP packets/s through INPUT vs rules'"
		echo "set logscale xy; set grid; set xlabel 'rules'; set ylabel 'packets/s'; set key bottom left"
		local i=0
		for s in $shapes; do
			echo "set title '$s'"
			echo "plot '$dat' index $i using 1:2 with linespoints title 'no firewall'," \
			     "'' index $i using 1:3 with linespoints title '${ipt_name//_/\\_}'," \
			     "'' index $i using 1:4 with linespoints title 'nft rules'," \
			     "'' index $i using 1:5 with linespoints title 'nft set'," \
			     "'' index $i using 1:6 with linespoints lw 2 title 'bpfilter'"
			i=$((i + 1))
		done
		echo "unset multiplot"
	} | gnuplot 2>>"$work/gnuplot.log"
}

# The report, lines and plot of the family family_set() chose, from its $results.
report_family() {
	report > "$work/report.md"
	cat "$work/report.md"
	echo
	bench_lines | tee "$work/bench-lines.txt"
	plot "$work/benchmarks$tag.png" || true
}

for fam in $families; do
	family_set "$fam"
	if [ -z "$shapes" ]; then
		log "bench: $fam_name has none of the shapes [${shapes_opt:-}]: skipped"
		continue
	fi
	mkdir -p "$work"
	if [ "$report_only" = 0 ]; then
		measure
	elif [ -s "$results" ]; then
		load_figs
	else
		log "bench: no figures in $results: $fam_name not reported"
		continue
	fi
	report_family
	reported="${reported:-}${reported:+ }$fam"
	log "raw figures: $results"
done

if [ -z "${reported:-}" ]; then
	echo "bench: nothing measured or reported" >&2
	exit 1
fi
if [ -n "$out" ]; then
	mkdir -p "$out"
	{
		echo "# bpfilter benchmarks"
		echo
		echo "Generated by \`tools/bench/bench.sh\` (issue 5). Regenerate with:"
		echo
		echo '```'
		if [ "$mode" = full ]; then echo "make bench"; else echo "make bench-smoke"; fi
		echo "# = bash tools/bench/bench.sh --$mode --out docs   (root; needs make helper shim bench-tools)"
		echo '```'
		echo
		cat "$here/METHOD.md"
		for fam in $reported; do
			family_set "$fam"
			cp "$work/benchmarks$tag.png" "$out/benchmarks$tag.png" 2>/dev/null
			echo
			if [ "$fam" = 4 ]; then echo "## Results"; else echo "## Results, $fam_name"; fi
			echo
			cat "$work/report.md"
			echo
			echo "![packets/s against rules, $fam_name](benchmarks$tag.png)"
			echo
			echo '```'
			cat "$work/bench-lines.txt"
			echo '```'
		done
	} > "$out/benchmarks.md"
	log "wrote $out/benchmarks.md and its plots"
fi
