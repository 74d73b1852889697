#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-backends.sh KVER: the selftests of KVER in several short boots, each
# twice, against the stock ip_tables modules (the control) and against
# bpfilter.ko, VM_JOBS boots at a time (default 2); then their output in
# the plan's order, each boot's ip_tables run before its bpfilter run
# (run.sh prints each run's "# Totals:" line). Exits non-zero if any fails.
#
# The boots and their tests are scripts/vm/boots' (every guest test but
# test_nobpf.sh, 6.1's, in exactly one). Their times come from the suite
# in VM_BOOT_TIMES, a boot a line:
#   NAME IPT_S BPF_S
# what the boot takes on a quiet machine of this kind (2 cores) against
# ip_tables and against bpfilter.ko, measured with this script; each run's
# time limit follows from its own figure (run.sh, VM_QUIET), so a slow or
# shared machine costs minutes, not a red run.
# A boot's console log is build/vm/KVER/console-tests-NAME-BACKEND.log.
#
# Why several boots at once: a TCG guest running the selftests keeps about
# 0.6 of a host core busy (the tests mostly wait on sockets, timers and
# sleeps), so two boots on two cores take little more than one. Why short
# boots: a boot that runs twice as long on a busy machine stays within its
# limit, and the slowest boot bounds the whole suite less.
# The longest boots start first. VM_SERIAL=1 runs one boot at a time. The
# rest of the environment (VM_TIMEOUT, NAT_DIFF_SEEDS, ...) is run.sh's.
set -u
cd "$(dirname "$0")/../.." || exit 1
kver=${1:?usage: run-backends.sh KVER}
times=${VM_BOOT_TIMES:?run-backends.sh: set VM_BOOT_TIMES (NAME IPT_S BPF_S a line)}
# The plan: NAME IPT_S BPF_S TEST... a line; a boot without times is none.
plan=$(sed -z 's/\n[ \t]\+/ /g' scripts/vm/boots | grep -v '^#' |
	awk 'NR == FNR { if (NF == 3) t[$1] = $2 " " $3; next }
	     NF >= 2 { if (!($1 in t)) { print "# no times for boot " $1; next }
		       $1 = $1 " " t[$1]; print }' <(echo "$times") -)
if echo "$plan" | grep -q '^# no times'; then
	echo "$plan" | grep '^# no times' | sed 's/^/# run-backends.sh: /'
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
jobs=${VM_JOBS:-2}
[ -n "${VM_SERIAL:-}" ] && jobs=1
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

# One run a line, longest first: SECONDS NAME BACKEND TESTS.
runs=$(echo "$plan" | awk 'NF >= 4 && $1 !~ /^#/ {
	t = ""; for (i = 4; i <= NF; i++) t = t " " $i
	print $2, $1, "ip_tables", t; print $3, $1, "bpfilter", t }' | sort -k1,1nr)
if [ -z "$runs" ]; then
	echo "# run-backends.sh: no boot in scripts/vm/boots"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi

planned=$(echo "$plan" | awk 'NF >= 4 && $1 !~ /^#/ {
	for (i = 4; i <= NF; i++) { sub(/\.sh$/, "", $i); print $i } }' | sort)
present=$(ls tools/testing/selftests/bpfilter/vm/ | sed -n 's/^\(test_.*\)\.sh$/\1/p' |
	grep -vx test_nobpf | sort)
if [ "$planned" != "$present" ]; then
	echo "# run-backends.sh: the boots do not hold every guest test exactly once:"
	diff <(echo "$planned") <(echo "$present") | sed -n 's/^[<>]/#   &/p'
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi

declare -A rcs
running=0
while read -r quiet name backend tests; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done_pid
		rcs[$done_pid]=$?
		running=$((running - 1))
	fi
	VM_BOOT=$name VM_QUIET=$quiet VM_TESTS=$tests BACKEND=$backend \
		bash scripts/vm/run.sh "$kver" tests > "$out/$name-$backend" 2>&1 &
	echo "$!" > "$out/$name-$backend.pid"
	running=$((running + 1))
done <<< "$runs"
while [ "$running" -gt 0 ]; do
	wait -n -p done_pid
	rcs[$done_pid]=$?
	running=$((running - 1))
done

rc=0
for name in $(echo "$plan" | awk 'NF >= 4 && $1 !~ /^#/ { print $1 }'); do
	for backend in ip_tables bpfilter; do
		echo "# vm: boot $name, backend $backend"
		cat "$out/$name-$backend"
		[ "${rcs[$(cat "$out/$name-$backend.pid")]:-1}" = 0 ] || rc=1
	done
done
exit $rc
