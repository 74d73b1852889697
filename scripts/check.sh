#!/bin/bash
# Run every test suite in scripts/suites.d/ in order and sum their results.
#
# Each suite is a script that prints kselftest-style output ending in a line
# "# Totals: pass:P fail:F ..." (the kselftest harness prints it; other suites
# print it themselves). A suite that exits non-zero without such a line counts
# as one failure. The last line is "N passed, N failed"; before it, a line
# per suite and, for a suite that failed, its first failures and problems,
# so that the end of the output (all that a CI report may keep) says what
# failed.
#
# BUSY_CORES=N keeps N cores busy with a loop for the whole run: the suite's
# own load test (README gives its time with BUSY_CORES=1), which shows that
# the VM boots' limits hold on a shared, slower machine.
set -u
cd "$(dirname "$0")/.."
logdir=build/logs
mkdir -p "$logdir"

busy=
for ((i = 0; i < ${BUSY_CORES:-0}; i++)); do
	sh -c 'while :; do :; done' &
	busy="$busy $!"
done
if [ -n "$busy" ]; then
	trap 'kill $busy 2> /dev/null' EXIT
	trap 'exit 130' INT TERM
	echo "# check: ${BUSY_CORES} busy loop(s) beside the suite"
fi
check_start=$(date +%s)

total_pass=0
total_fail=0
only=${1:-}
summary=()

for suite in scripts/suites.d/*.sh; do
	name=$(basename "$suite" .sh)
	if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then
		continue
	fi
	echo "=== suite $name"
	start=$(date +%s)
	bash "$suite" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	pass=0
	fail=0
	found=0
	while read -r p f; do
		pass=$((pass + p))
		fail=$((fail + f))
		found=1
	done < <(sed -n 's/^.*# Totals: pass:\([0-9]*\) fail:\([0-9]*\).*$/\1 \2/p' "$logdir/$name.log")
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		echo "# suite $name exited $rc without reporting a failure: counted as one"
		fail=$((fail + 1))
	fi
	if [ "$found" -eq 0 ] && [ "$rc" -eq 0 ]; then
		echo "# suite $name reported no totals: counted as one failure"
		fail=$((fail + 1))
	fi
	line="$name: $pass passed, $fail failed ($(( $(date +%s) - start ))s)"
	echo "=== suite $line"
	summary+=("# summary: $line")
	if [ "$fail" -ne 0 ]; then
		while IFS= read -r line; do
			summary+=("#   $name: $line")
		done < <(grep -E '^(not ok|# vm: PROBLEM|# suite )' "$logdir/$name.log" | cut -c1-200 |
			head -n 12)
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
done

printf '%s\n' "${summary[@]}"
echo "# check: $(( $(date +%s) - check_start ))s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
