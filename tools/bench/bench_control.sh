#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_control.sh: the control plane at Kubernetes scale (issue 30). How
# long kube-proxy's table for N ClusterIP services takes to load and to
# change, bpfilter against ip_tables and nftables, on this machine's kernel,
# in one run: a benchmark, not a test (no pass or fail, only figures).
#
#   tools/bench/bench_control.sh [--family 4|6|"4 6"] [--sizes "1000 10000 20000"]
#       [--rounds 3] [--table filter|nat] [--endpoints 3] [--timeout 300]
#       [--mark auto|real|stand-in] [--backends "iptables bpfilter nft"]
#
# The table is tools/bench/kube_gen.sh's (the generator nat_bench shares):
# KUBE-SERVICES with N rules (-d IP/32 -p tcp|udp ... --dport 80 -j
# KUBE-SVC-x, every tenth UDP), each KUBE-SVC picking one of --endpoints
# KUBE-SEP chains with -m statistic, each KUBE-SEP marking (KUBE-MARK-MASQ)
# and accepting; INPUT, FORWARD and OUTPUT jump to KUBE-SERVICES. IPv6 is
# the same plan in IPv6 addresses (/128). For each family and size, every
# backend, in a fresh network namespace each round:
#   full     the whole table into the empty namespace, timed:
#            iptables-legacy-restore (ip6tables-legacy-restore) into the
#            kernel's ip_tables; the same command and file through the
#            LD_PRELOAD shim into a fresh bpfilter-hostd (BPF backend) whose
#            helper attaches in that namespace; nft -f of kube-proxy's
#            nftables mode (a verdict map by address, protocol and port,
#            numgen per service) for nftables
#   partial  then, onto that table, kube-proxy's partial sync adding one
#            service, timed: iptables-legacy-restore --noflush of
#            :KUBE-SERVICES (which flushes it), all of KUBE-SERVICES again
#            with the new service, and its new KUBE-SVC and KUBE-SEP chains;
#            for nftables its incremental transaction (the new chains and
#            one map element)
# Rounds are interleaved (each round every backend once, starting with a
# different one each round: drift on a shared machine hits all alike);
# figures are medians. Times: wall clock of the command alone, as kube-proxy
# waits for it (taken inside the namespace: ip netns exec's 10 ms stay out),
# and CPU seconds, which a busy machine disturbs less: the command's user
# and system time (the kernel's work for ip_tables and nftables), for
# bpfilter plus its helper's, which is also shown alone (issue 30's "the
# helper's part").
# For bpfilter also: the helper's peak RSS (VmHWM of hostd's child, the
# helper, after the partial sync) and the BPF programs and maps it holds:
# those of its file descriptors (/proc/PID/fdinfo: programs, links' programs,
# maps), the maps those programs use and the programs in those prog arrays
# (tail calls), to a fixed point; memlock as bpftool shows it.
#
# MARK: bpfilter sets a mark only through bpfilter_kfunc.ko's kfunc; a
# host without that module (no /sys/kernel/btf/bpfilter_kfunc) refuses the
# table. --mark auto (the default) then gives every backend kube_gen.sh -M's
# stand-in (KUBE-MARK-MASQ with a rule without target, nft a counter), so
# that they load the same table; the report says which.
#
# Lines (besides the report tables on stdout; progress on stderr):
#   control: family=F table=T services=N full_ratio=X delta_ratio=Y
#            iptables_full_s=.. iptables_delta_s=.. bpfilter_full_s=..
#            bpfilter_delta_s=.. nft_full_s=.. nft_delta_s=..
#            full_cpu_ratio=.. delta_cpu_ratio=..
#   control-mem: family=F table=T services=N hwm_kb=.. helper_full_cpu_s=..
#            helper_delta_cpu_s=.. progs=.. prog_memlock_kb=.. insns=..
#            jited_kb=.. maps=.. map_memlock_kb=..
# ratio = bpfilter's median / ip_tables' median, of wall seconds (_ratio)
# or CPU seconds (_cpu_ratio); below 1: bpfilter faster.
# A backend that refuses a table or times out is FAIL (its later rounds of
# that size are skipped, the reason is printed), and the run goes on.
#
# Needs root (namespaces, BPF), make helper shim. Namespaces bctl-iptables,
# bctl-bpfilter, bctl-nft, no addresses, no traffic; all removed at exit.
# Files in build/bench/control/.
#
# --table nat runs here too, but bpfilter without its module refuses nat
# tables (their targets need bpfilter.ko); it is the VM's part of issue 30.
# In a guest (the nat table with bpfilter.ko): busybox
# has no bash, so a guest script calls the generator as nat_bench_guest.sh
# does (sh /selftests/kube_gen.sh -t nat [-6] iptables|iptables-add|nft|nft-add N)
# and times plain iptables-legacy-restore for both ip_tables and bpfilter.ko.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
gen=$here/kube_gen.sh
shim=$src/build/shim/bpfilter_shim.so
hostd=$src/build/shim/bpfilter-hostd
helper=${BPFILTER_HELPER:-$src/net/bpfilter/bpfilter_umh}
work=$src/build/bench/control

families="4 6"
sizes="1000 10000 20000"
rounds=3
table=filter
eps=3
limit=300
mark=auto
backends="iptables bpfilter nft"

usage() {
	echo "usage: $0 [--family 4|6|\"4 6\"] [--sizes \"N ...\"] [--rounds R] [--table filter|nat]" \
		"[--endpoints E] [--timeout S] [--mark auto|real|stand-in] [--backends \"iptables bpfilter nft\"]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--family) families=$2 ;;
	--sizes) sizes=$2 ;;
	--rounds) rounds=$2 ;;
	--table) table=$2 ;;
	--endpoints) eps=$2 ;;
	--timeout) limit=$2 ;;
	--mark) mark=$2 ;;
	--backends) backends=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case "$families" in "4" | "6" | "4 6") ;; "6 4") families="4 6" ;; *) usage ;; esac
case "$table" in filter | nat) ;; *) usage ;; esac
case "$mark" in auto | real | stand-in) ;; *) usage ;; esac
for v in "$rounds" "$eps" "$limit" $sizes; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage
done
for be in $backends; do
	case $be in iptables | bpfilter | nft) ;; *) usage ;; esac
done
read -r -a bes <<< "$backends"

if [ "$(id -u)" != 0 ]; then
	echo "bench-control: needs root (network namespaces, BPF)" >&2
	exit 1
fi
for f in "$gen" "$shim" "$hostd" "$helper"; do
	if [ ! -f "$f" ]; then
		echo "bench-control: missing $f (run make helper shim)" >&2
		exit 1
	fi
done
for c in iptables-legacy-restore ip6tables-legacy-restore nft bpftool ip timeout; do
	if ! command -v "$c" > /dev/null; then
		echo "bench-control: $c not found (scripts/setup.sh installs it)" >&2
		exit 1
	fi
done
mkdir -p "$work" || exit 1
rm -f "$work"/*.log "$work"/*.t "$work"/*.rules.*

# Our own xtables lock: another iptables user on this machine neither
# waits for us nor makes a timed restore wait (or fail) for it.
export XTABLES_LOCKFILE=$work/xtables.lock

if [ "$mark" = auto ]; then
	if [ -e /sys/kernel/btf/bpfilter_kfunc ]; then mark=real; else mark=stand-in; fi
fi
markopt=
[ "$mark" = stand-in ] && markopt=-M

now() { echo "${EPOCHREALTIME/,/.}"; }
hz=$(getconf CLK_TCK)
log() { echo "# $*" >&2; }

# ---- namespaces and the daemon ---------------------------------------------
hostd_pid=
hp_started=
trc=0
sock=$work/hostd.sock

ns_new() { ip netns del "bctl-$1" 2>/dev/null; ip netns add "bctl-$1"; }
ns_del() { ip netns del "bctl-$1" 2>/dev/null; return 0; }

hostd_start() {
	rm -f "$sock"
	# -T: a request may take as long as the whole command may (hostd's
	# default bound, MBOX_DRIVER_TIMEOUT_MS, is 10 s, which the 10k-service
	# replace exceeds); past it hostd kills the helper and answers EIO.
	# Output to a file, not a pipe: the daemon keeps it open after -b returns.
	BPFILTER_BACKEND=bpf "$hostd" -s "$sock" -H "$helper" -T $((limit * 1000)) -b \
		> "$work/hostd.pid" 2>> "$work/hostd.log" || { hostd_pid=; return 1; }
	hostd_pid=$(head -n 1 "$work/hostd.pid")
	[[ "$hostd_pid" =~ ^[0-9]+$ ]] || { hostd_pid=; return 1; }
	hp_started=$(helper_pid)
}

hostd_stop() {
	local i
	[ -n "$hostd_pid" ] || return 0
	kill "$hostd_pid" 2>/dev/null
	# Bounded: 5 s, then SIGKILL (the helper gets EOF either way).
	for i in $(seq 50); do
		kill -0 "$hostd_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$hostd_pid" 2>/dev/null && kill -9 "$hostd_pid"
	# A helper still busy with a request that timed out reads its EOF only
	# afterwards: it was ours, end it (bounded: 5 s, then SIGKILL, only if
	# that pid is still a helper).
	if [ -n "$hp_started" ]; then
		for i in $(seq 50); do
			kill -0 "$hp_started" 2>/dev/null || break
			sleep 0.1
		done
		[ "$(cat "/proc/$hp_started/comm" 2>/dev/null)" = "$(basename "$helper" | cut -c1-15)" ] &&
			kill -9 "$hp_started"
	fi
	hostd_pid='' hp_started=''
	rm -f "$sock"
}

cleanup() {
	local be
	hostd_stop
	for be in iptables bpfilter nft; do ns_del "$be"; done
	# The rules files (tens of MB at 20k services); the logs and figures stay.
	rm -f "$work"/*.rules.*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

helper_pid() { ps -o pid= --ppid "$hostd_pid" 2>/dev/null | awk 'NR == 1 { print $1 }'; }

# timed BE FILE ARGS...: ARGS < FILE in bctl-BE, through the shim and the
# daemon when BE is bpfilter, bounded by --timeout; on success sets dt (wall
# seconds) and dcpu (CPU seconds of the command and its children, user and
# system: the kernel's work for ip_tables and nftables is system time of the
# command; bpfilter's helper is not its child, round_bpfilter adds its own).
# The clock runs inside the namespace, around the command alone: ip netns
# exec costs some 10 ms, as much as ip_tables' partial sync at 1k services.
timed() {
	local be=$1 file=$2 pre=() t; shift 2
	[ "$be" = bpfilter ] && pre=(env LD_PRELOAD="$shim" BPFILTER_HOSTD="$sock")
	# timeout around the command itself, which it waits for: a command
	# stuck in the kernel past the bound (nft at 20k services) dies when it
	# comes back, before the next one starts (-k: SIGKILL 10 s after TERM).
	# shellcheck disable=SC2016  # $EPOCHREALTIME and $@ are the inner bash's
	t=$(ip netns exec "bctl-$be" "${pre[@]}" bash -c \
		'l=$1; shift; t0=$EPOCHREALTIME; timeout -k 10 "$l" "$@" >&2 || exit
		 echo "$t0 $EPOCHREALTIME"; times' bash "$limit" "$@" \
		< "$file" 2>> "$work/$be.log") || { trc=$?; return 1; }
	# Line 1 the clock, line 3 the children's "XmY.YYYs XmY.YYYs" (times).
	read -r dt dcpu < <(awk 'function s(x) { sub(/s$/, "", x); split(x, m, "m"); return m[1] * 60 + m[2] }
		NR == 1 { gsub(/,/, "."); w = $2 - $1 } NR == 3 { c = s($1) + s($2) }
		END { printf "%.6f %.6f\n", w, c }' <<< "$t")
}

# CPU seconds PID has used so far (user and system), 0 if it is gone.
cpu_of() {
	awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%.6f\n", ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null ||
		echo 0
}

# ---- what the bpfilter helper holds -----------------------------------------
# bpf_mem PID: sets mem_progs mem_prog_kb mem_insns mem_jited_kb mem_maps
# mem_map_kb. Starts from the helper's fds and closes over the maps its
# programs use and the programs in its prog arrays: the leaves programs of a
# folded KUBE-SERVICES live only in a prog array (the helper closes their fds).
bpf_mem() {
	local hp=$1 id line i
	local -A pm pmap pxl pjit mm mtype seen_p seen_m
	local -a todo_p=() todo_m=()

	# Every program and map of the machine once (one bpftool call each).
	while read -r line; do
		case $line in
		[0-9]*:*) id=${line%%:*}; pmap[$id]= ;;
		*memlock*)
			[[ $line =~ xlated\ ([0-9]+)B ]] && pxl[$id]=${BASH_REMATCH[1]}
			[[ $line =~ jited\ ([0-9]+)B ]] && pjit[$id]=${BASH_REMATCH[1]}
			[[ $line =~ memlock\ ([0-9]+)B ]] && pm[$id]=${BASH_REMATCH[1]}
			[[ $line =~ map_ids\ ([0-9,]+) ]] && pmap[$id]=${BASH_REMATCH[1]//,/ } ;;
		esac
	done < <(bpftool prog show 2>/dev/null)
	while read -r line; do
		case $line in
		[0-9]*:*) id=${line%%:*}; line=${line#*: }; mtype[$id]=${line%% *} ;;
		*memlock*) [[ $line =~ memlock\ ([0-9]+)B ]] && mm[$id]=${BASH_REMATCH[1]} ;;
		esac
	done < <(bpftool map show 2>/dev/null)

	while read -r line id; do
		if [ "$line" = prog_id: ]; then todo_p+=("$id"); else todo_m+=("$id"); fi
	done < <(awk '$1 == "prog_id:" || $1 == "map_id:" { print $1, $2 }' /proc/"$hp"/fdinfo/* 2>/dev/null)
	# Bounded: each id is expanded once, and there are finitely many.
	for i in $(seq 100000); do
		if [ ${#todo_p[@]} -gt 0 ]; then
			id=${todo_p[-1]}; unset 'todo_p[-1]'
			[ -n "${seen_p[$id]:-}" ] && continue
			seen_p[$id]=1
			for line in ${pmap[$id]:-}; do todo_m+=("$line"); done
		elif [ ${#todo_m[@]} -gt 0 ]; then
			id=${todo_m[-1]}; unset 'todo_m[-1]'
			[ -n "${seen_m[$id]:-}" ] && continue
			seen_m[$id]=1
			[ "${mtype[$id]:-}" = prog_array ] || continue
			# "key: 00 00 00 00  value: 94 00 00 00": the value is a program id.
			for line in $(bpftool map dump id "$id" 2>/dev/null |
				      sed -n 's/.*value: \(..\) \(..\) \(..\) \(..\).*/\4\3\2\1/p' | sort -u); do
				line=$((16#$line))
				todo_p+=("$line")
			done
		else
			break
		fi
	done
	mem_progs=0 mem_prog_kb=0 mem_insns=0 mem_jited_kb=0 mem_maps=0 mem_map_kb=0
	local pb=0 jb=0 xb=0 mb=0
	for id in "${!seen_p[@]}"; do
		mem_progs=$((mem_progs + 1))
		pb=$((pb + ${pm[$id]:-0})) xb=$((xb + ${pxl[$id]:-0})) jb=$((jb + ${pjit[$id]:-0}))
	done
	for id in "${!seen_m[@]}"; do
		mem_maps=$((mem_maps + 1))
		mb=$((mb + ${mm[$id]:-0}))
	done
	mem_prog_kb=$(((pb + 1023) / 1024)) mem_jited_kb=$(((jb + 1023) / 1024))
	mem_map_kb=$(((mb + 1023) / 1024)) mem_insns=$((xb / 8))
}

# ---- one round of one backend ------------------------------------------------
# round_BE: the full load then the partial sync into a fresh bctl-BE;
# appends the seconds to $work/BE-full.t and BE-delta.t, or sets fail[BE]
# (with the reason) and returns 1.
declare -A fail

round_iptables() {
	ns_new iptables || { fail[iptables]="ip netns add failed"; return 1; }
	if ! timed iptables "$rules.ipt" "$ipt_cmd-restore"; then
		fail[iptables]="full load: $(why iptables)"
	else
		echo "$dt $dcpu" >> "$work/iptables-full.t"
		if timed iptables "$rules.ipt-add" "$ipt_cmd-restore" --noflush; then
			echo "$dt $dcpu" >> "$work/iptables-delta.t"
		else
			fail[iptables]="partial sync: $(why iptables)"
		fi
	fi
	ns_del iptables
	[ -z "${fail[iptables]:-}" ]
}

round_nft() {
	ns_new nft || { fail[nft]="ip netns add failed"; return 1; }
	if ! timed nft "$rules.nft" nft -f -; then
		fail[nft]="full load: $(why nft)"
	else
		echo "$dt $dcpu" >> "$work/nft-full.t"
		if timed nft "$rules.nft-add" nft -f -; then
			echo "$dt $dcpu" >> "$work/nft-delta.t"
		else
			fail[nft]="partial sync: $(why nft)"
		fi
	fi
	ns_del nft
	[ -z "${fail[nft]:-}" ]
}

# Why a command of BE failed: timed out, or the last line of its log.
why() {
	if [ "$trc" = 124 ]; then echo "timed out after ${limit} s"; else tail -n 1 "$work/$1.log"; fi
}

# Why bpfilter failed: timed out, or the helper's last line in hostd.log
# since byte $1 (without the generic ones).
bpf_reason() {
	[ "$trc" = 124 ] && { echo "timed out after ${limit} s"; return; }
	tail -c +"$(($1 + 1))" "$work/hostd.log" 2>/dev/null |
		grep -Ev 'install failed|verifier: processed' | tail -n 1 |
		sed 's/^bpfilter: //'
}

round_bpfilter() {
	local hp off c0 c1
	ns_new bpfilter || { fail[bpfilter]="ip netns add failed"; return 1; }
	# A fresh daemon and helper each round: the peak RSS is this round's.
	if ! hostd_start; then
		fail[bpfilter]="bpfilter-hostd did not start (see $work/hostd.log)"
		ns_del bpfilter
		return 1
	fi
	hp=$(helper_pid)
	off=$(stat -c %s "$work/hostd.log" 2>/dev/null || echo 0)
	c0=$(cpu_of "$hp")
	if ! timed bpfilter "$rules.ipt" "$ipt_cmd-restore"; then
		fail[bpfilter]="full load: $(bpf_reason "$off")"
	else
		c1=$(cpu_of "$hp")
		# Wall, CPU of the command and the helper, the helper's alone.
		awk -v w="$dt" -v a="$dcpu" -v b="$c0" -v c="$c1" \
			'BEGIN { printf "%s %.6f %.6f\n", w, a + c - b, c - b }' >> "$work/bpfilter-full.t"
		if timed bpfilter "$rules.ipt-add" "$ipt_cmd-restore" --noflush; then
			c0=$(cpu_of "$hp")
			awk -v w="$dt" -v a="$dcpu" -v b="$c1" -v c="$c0" \
				'BEGIN { printf "%s %.6f %.6f\n", w, a + c - b, c - b }' >> "$work/bpfilter-delta.t"
		else
			fail[bpfilter]="partial sync: $(bpf_reason "$off")"
		fi
	fi
	# The helper hostd runs now: a failed request may have restarted it.
	hp=$(helper_pid)
	if [ -z "${fail[bpfilter]:-}" ] && [ -n "$hp" ]; then
		awk '/^VmHWM:/ { print $2 }' "/proc/$hp/status" >> "$work/bpfilter-hwm.t"
		bpf_mem "$hp"
		echo "$mem_progs $mem_prog_kb $mem_insns $mem_jited_kb $mem_maps $mem_map_kb" \
			>> "$work/bpfilter-mem.t"
	fi
	hostd_stop
	ns_del bpfilter
	[ -z "${fail[bpfilter]:-}" ]
}

# ---- figures -------------------------------------------------------------------
# median FILE [COLUMN]: the median of a column (default 1), empty if none.
median() {
	[ -s "$1" ] || return 0
	awk -v c="${2:-1}" '{ print $c }' "$1" | sort -g | awk '{ a[NR] = $1 }
		END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      if (m == int(m)) printf "%d\n", m; else printf "%.6f\n", m }'
}
# fig BE KIND [COLUMN]: BE's median of KIND (full, delta), wall seconds
# (column 1) or CPU seconds (2), to the millisecond; FAIL, or - if none.
fig() {
	local v
	if [ -n "${fail[$1]:-}" ]; then echo FAIL; return; fi
	v=$(median "$work/$1-$2.t" "${3:-1}")
	if [ -n "$v" ]; then printf '%.3f\n' "$v"; else echo "-"; fi
}
# ratio A B: A / B to 2 decimals, FAIL if either failed, - if either is missing.
ratio() {
	if [ "$1" = FAIL ] || [ "$2" = FAIL ]; then echo FAIL; return; fi
	[[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] || { echo -; return; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'
}
# raw BE KIND [COLUMN]: the median at the precision it was measured, for the ratios.
raw() { if [ -n "${fail[$1]:-}" ]; then echo FAIL; else median "$work/$1-$2.t" "${3:-1}"; fi; }
# rounds BE KIND: every round's wall seconds, in round order.
rounds_of() { awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }' "$work/$1-$2.t" 2>/dev/null; }
# memfig COLUMN: the median of one bpf_mem figure over the rounds.
memfig() { median "$work/bpfilter-mem.t" "$1"; }

report() {
	local f=$1 n=$2 be v full delta fullc deltac
	full=$(ratio "$(raw bpfilter full)" "$(raw iptables full)")
	delta=$(ratio "$(raw bpfilter delta)" "$(raw iptables delta)")
	fullc=$(ratio "$(raw bpfilter full 2)" "$(raw iptables full 2)")
	deltac=$(ratio "$(raw bpfilter delta 2)" "$(raw iptables delta 2)")
	echo
	echo "### IPv$f $table table, $n services ($eps endpoints each; KUBE-MARK-MASQ: $markdesc)"
	echo
	echo "| backend | full load s | partial sync s | full load CPU s | partial sync CPU s | rounds: full / partial s |"
	echo "|---|---|---|---|---|---|"
	for be in iptables bpfilter nft; do
		[[ " $backends " == *" $be "* ]] || continue
		v="$(rounds_of "$be" full) / $(rounds_of "$be" delta)"
		[ -n "${fail[$be]:-}" ] && v="FAIL: ${fail[$be]}"
		echo "| $(name "$be") | $(fig "$be" full) | $(fig "$be" delta) | $(fig "$be" full 2) |" \
			"$(fig "$be" delta 2) | $v |"
	done
	echo
	echo "bpfilter / $ipt_name: full load $full, partial sync $delta (wall; CPU: $fullc, $deltac; below 1: bpfilter faster)"
	[ -z "${fail[bpfilter]:-}" ] && [[ " $backends " == *" bpfilter "* ]] &&
		echo "bpfilter's helper alone: full load $(fig bpfilter full 3) CPU s, partial sync $(fig bpfilter delta 3) CPU s"
	if [ -s "$work/bpfilter-mem.t" ]; then
		echo "bpfilter's helper after the partial sync: peak RSS (VmHWM) $(median "$work/bpfilter-hwm.t") kB;" \
			"$(memfig 1) BPF programs ($(memfig 3) instructions, $(memfig 4) KiB jited," \
			"memlock $(memfig 2) KiB), $(memfig 5) maps (memlock $(memfig 6) KiB)"
	fi
	echo
	echo "control: family=$f table=$table services=$n full_ratio=$full delta_ratio=$delta" \
		"iptables_full_s=$(fig iptables full) iptables_delta_s=$(fig iptables delta)" \
		"bpfilter_full_s=$(fig bpfilter full) bpfilter_delta_s=$(fig bpfilter delta)" \
		"nft_full_s=$(fig nft full) nft_delta_s=$(fig nft delta)" \
		"full_cpu_ratio=$fullc delta_cpu_ratio=$deltac"
	if [ -s "$work/bpfilter-mem.t" ]; then
		echo "control-mem: family=$f table=$table services=$n hwm_kb=$(median "$work/bpfilter-hwm.t")" \
			"helper_full_cpu_s=$(fig bpfilter full 3) helper_delta_cpu_s=$(fig bpfilter delta 3)" \
			"progs=$(memfig 1) prog_memlock_kb=$(memfig 2) insns=$(memfig 3) jited_kb=$(memfig 4)" \
			"maps=$(memfig 5) map_memlock_kb=$(memfig 6)"
	fi
}
name() {
	case $1 in
	iptables) echo "$ipt_name" ;;
	bpfilter) echo "bpfilter (shim + hostd)" ;;
	nft) echo "nftables (verdict map)" ;;
	esac
}

# ---- the run -------------------------------------------------------------------
if [ "$mark" = stand-in ]; then
	markdesc="stand-in without MARK (no bpfilter_kfunc.ko here)"
else
	markdesc="-j MARK --or-mark 0x4000"
fi
start=$(now)
log "bench-control: families=[$families] table=$table sizes=[$sizes] rounds=$rounds" \
	"endpoints=$eps mark=$mark backends=[$backends] kernel=$(uname -r)"
echo "## Control plane: kube-proxy's $table table, load and partial sync (medians of $rounds rounds)"
for f in $families; do
	if [ "$f" = 6 ]; then
		ipt_cmd=ip6tables-legacy ipt_name=ip6_tables fopt=-6
	else
		ipt_cmd=iptables-legacy ipt_name=ip_tables fopt=
	fi
	for n in $sizes; do
		rules=$work/f$f-$n.rules
		# shellcheck disable=SC2086  # $fopt, $markopt: one word or none
		for form in iptables iptables-add nft nft-add; do
			sh "$gen" $fopt $markopt -t "$table" -e "$eps" "$form" "$n" \
				> "$rules.${form/iptables/ipt}" || { echo "bench-control: kube_gen.sh failed" >&2; exit 1; }
		done
		rm -f "$work"/*.t
		fail=()
		# Bounded: rounds x backends, each command bounded by --timeout.
		for r in $(seq "$rounds"); do
			# This round's order: the backends rotated by the round.
			order=
			for i in $(seq 0 $((${#bes[@]} - 1))); do
				order="$order ${bes[(i + r - 1) % ${#bes[@]}]}"
			done
			for be in $order; do
				# A refusal is the answer: later rounds would repeat it.
				[ -n "${fail[$be]:-}" ] && continue
				log "IPv$f services=$n round=$r backend=$be"
				"round_$be" || log "  $be: FAIL: ${fail[$be]}"
			done
		done
		report "$f" "$n"
		rm -f "$rules".*
	done
done
log "bench-control: done in $(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"
exit 0
