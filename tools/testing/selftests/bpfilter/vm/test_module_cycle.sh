#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# 10 cycles (CYCLES) of unloading and loading the backend (rmmod bpfilter; modprobe
# bpfilter, or ip_tables' modules as the reference) without leaking memory,
# processes or tables. Runs after the filter-table tests (before test_raw
# and test_nat, whose namespaces' teardown moved MemAvailable by up to
# 36 MiB under it); it leaves the backend loaded and empty.
. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-10}
case "$BACKEND" in
bpfilter)
	unload="rmmod bpfilter"
	load="modprobe bpfilter"
	;;
*)
	# ip_tables pins iptable_filter while a table has more than its
	# initial entries: empty it first (bpfilter.ko drops its tables).
	# Earlier tests' raw and nat tables loaded modules that pin ip_tables.
	unload="$IPT -F && $IPT -X && for m in iptable_nat iptable_raw; do
		! grep -q \"^\$m \" /proc/modules || rmmod \$m || exit 1; done &&
		rmmod iptable_filter xt_tcpudp ip_tables"
	load="modprobe iptable_filter && modprobe xt_tcpudp"
	;;
esac

mem()
{
	awk '/^MemAvailable/ { print $2 }' /proc/meminfo
}
slab()
{
	awk '/^SUnreclaim/ { print $2 }' /proc/meminfo
}
# tmpfs pages (the helper's private copy of itself, its state) count here.
shmem()
{
	awk '/^Shmem:/ { print $2 }' /proc/meminfo
}
# bpf_objects: how many BPF programs, links and maps exist.
bpf_objects()
{
	for _o in prog link map; do
		bpftool $_o show 2>/dev/null | grep -Ec '^[0-9]+: '
	done | tr '\n' ' '
}
# nprocs: user processes (kernel threads, which come and go, have no
# cmdline).
nprocs()
{
	_c=0
	for _d in /proc/[0-9]*; do
		[ -n "$(head -c 1 "$_d/cmdline" 2>/dev/null)" ] && _c=$((_c + 1))
	done
	echo $_c
}
# One cycle; never runs iptables while nothing is loaded: iptables would
# then modprobe ip_tables itself.
cycle()
{
	sh -c "$unload" || return 1
	[ -z "$(helper_pids)" ] || return 2
	[ ! -e /proc/net/ip_tables_names ] || [ "$BACKEND" != bpfilter ] || return 3
	sh -c "$load" || return 4
	$IPT -S > /dev/null || return 5
}

if [ -n "${NOBPF:-}" ]; then
	# Rules in built-in chains are refused without BPF: a user chain.
	check "a user chain before unloading" 0 $IPT -N cycle
else
	check "a rule before unloading" 0 $IPT -A INPUT -s 192.0.2.77 -j DROP
fi
run cycle
ok_if "first unload/load cycle" test "$RC" -eq 0
diag "$OUT"
expect "a reload starts from the initial table" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
run cycle
sync
echo 3 > /proc/sys/vm/drop_caches
mem0=$(mem) slab0=$(slab) shm0=$(shmem) procs0=$(nprocs)
cp /proc/meminfo "$TAP_DIR/meminfo.0"
i=2 errs=0
while [ $i -lt "$CYCLES" ]; do
	$IPT -A INPUT -s 198.51.100.$i -j DROP > /dev/null 2>&1
	cycle
	rc=$?
	if [ $rc -ne 0 ]; then
		errs=$((errs + 1))
		diag "cycle $i failed at step $rc" "$(lsmod)"
	fi
	i=$((i + 1))
done
sync
echo 3 > /proc/sys/vm/drop_caches
mem1=$(mem) slab1=$(slab) shm1=$(shmem) procs1=$(nprocs)
cp /proc/meminfo "$TAP_DIR/meminfo.1"
# Every /proc/meminfo field that moved by 1 MiB or more, to point at a leak.
diag "$(awk 'NR == FNR { a[$1] = $2; next }
	{ d = $2 - a[$1]; if (d >= 1024 || d <= -1024) printf "%s %+d kB  ", $1, d }' \
	"$TAP_DIR/meminfo.0" "$TAP_DIR/meminfo.1")"
ok_if "$CYCLES unload/load cycles all worked" test "$errs" -eq 0
diag "MemAvailable ${mem0} -> ${mem1} kB, SUnreclaim ${slab0} -> ${slab1} kB," \
	"Shmem ${shm0} -> ${shm1} kB, processes ${procs0} -> ${procs1}"
# MemAvailable is rough (it moved by up to 16 MiB either way over 20 or 60
# cycles of a leak-free run, from page splits and caches): it only catches
# big leaks; slab, tmpfs, BPF objects and processes are counted exactly.
ok_if "no big memory leak (MemAvailable within 32 MiB)" test "$mem1" -ge $((mem0 - 32768))
ok_if "no slab leak (SUnreclaim within 1 MiB)" test "$slab1" -le $((slab0 + 1024))
ok_if "no tmpfs leak (Shmem within 1 MiB)" test "$shm1" -le $((shm0 + 1024))
ok_if "no leftover processes" test "$procs1" -le "$procs0"
# With the backend unloaded, no BPF program, link or map may remain.
if [ -z "${NOBPF:-}" ]; then
	check "a rule, so that there are BPF objects to free" 0 $IPT -A INPUT -s 192.0.2.78 -j DROP
fi
sh -c "$unload"
# (BPF objects are freed asynchronously after their last reference.)
no_bpf_objects()
{
	[ "$(bpf_objects)" = "0 0 0 " ]
}
ok_if "no BPF programs, links or maps left after unloading" wait_for no_bpf_objects
objs=$(bpf_objects)
sh -c "$load"
diag "BPF programs, links, maps after unloading: $objs"
run dmesg
ok_if "no WARN, BUG or oops in dmesg" sh -c "! printf '%s\n' \"\$1\" | grep -Eq 'WARNING: |BUG:|Oops|Call Trace'" sh "$OUT"
expect "table after the cycles" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF

done_testing
