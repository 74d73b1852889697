#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Callers interrupted by signal storms during large GET_ENTRIES and REPLACE
# calls: nothing is written into a caller after its syscall has returned
# (sig_storm guards the memory the call may write), the calls that return
# report real results, and the table is intact afterwards. With bpfilter the
# helper writes the caller's memory with process_vm_writev(), so a caller
# that left on a signal while the helper was still working would be written
# late (or, after pid reuse, another process would be).
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
RULES=10000

reset_table
awk -v n=$RULES 'BEGIN {
	print "*filter"
	for (i = 0; i < n; i++)
		printf "-A INPUT -s 10.9.%d.%d/32 -p tcp -m tcp --dport 9 -j DROP\n", i / 250, i % 250 + 1
	print "COMMIT"
}' > "$TAP_DIR/sig.rules"
check "restore $RULES rules" 0 sh -c "$IPT_RESTORE < $TAP_DIR/sig.rules"

# storm OP ITER: run sig_storm and check its line.
storm()
{
	run "$BIN/sig_storm" "$1" "$2"
	diag "$1: $OUT"
	line=$(printf '%s\n' "$OUT" | grep '^calls ')
	set -- $line
	# calls C ok O eintr E other X signalled S late L
	ok_if "$op: sig_storm ran" test -n "$line"
	ok_if "$op: no byte written after a call returned" test "${12:-1}" = 0
	ok_if "$op: no call failed but with EINTR" test "${8:-1}" = 0
	ok_if "$op: some calls succeeded" test "${4:-0}" -gt 0
	ok_if "$op: signals arrived during calls" test "${10:-0}" -gt 0
}

op=get
storm get 30
op=replace
storm replace 8

run $IPT -S INPUT
ok_if "the table still holds its $RULES rules" test "$(printf '%s\n' "$OUT" | grep -c -- '-j DROP')" -eq $RULES
if [ "$BACKEND" = bpfilter ]; then
	ok_if "the helper is still running" test -n "$(helper_pids)"
fi
reset_table
done_testing
