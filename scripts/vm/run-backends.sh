#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-backends.sh KVER: the selftests boot of KVER twice, against the stock
# ip_tables modules (the control) and against bpfilter.ko, both at once,
# then their output one after the other, ip_tables first (run.sh prints each
# boot's "# Totals:" line). Exits non-zero if either boot fails.
#
# Why at once: a TCG guest running the selftests keeps about 0.6 of a host
# core busy (the tests mostly wait on sockets, timers and sleeps), so two
# boots on two cores take 512 s where one after the other took 807 s (6.12).
# VM_SERIAL=1 runs them one after the other. The rest of the environment
# (VM_TESTS, VM_TIMEOUT, NAT_DIFF_SEEDS, ...) is run.sh's.
set -u
cd "$(dirname "$0")/../.." || exit 1
kver=${1:?usage: run-backends.sh KVER}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

rc=0
if [ -n "${VM_SERIAL:-}" ]; then
	for backend in ip_tables bpfilter; do
		BACKEND=$backend bash scripts/vm/run.sh "$kver" tests || rc=1
	done
	exit $rc
fi
BACKEND=ip_tables bash scripts/vm/run.sh "$kver" tests > "$out/ip_tables" 2>&1 &
pid=$!
BACKEND=bpfilter bash scripts/vm/run.sh "$kver" tests > "$out/bpfilter" 2>&1 || rc=1
wait "$pid" || rc=1
cat "$out/ip_tables" "$out/bpfilter"
exit $rc
