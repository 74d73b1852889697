#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sockopt_fuzz sends random and mutated blobs (seeded from fuzz_blob's corpus)
# through every iptables and ip6tables sockopt, as root from a namespace of its own and as
# an unprivileged user from a user and network namespace it creates. After
# the run: no WARN, BUG, oops or sanitizer report in the kernel log, the
# helper alive (or restarted: the next command works), the init namespace's
# tables (IPv4 and IPv6) unchanged and, with bpfilter, rmmod clean. VM_FUZZ_SECONDS (default
# 15; 5 against the ip_tables control, which only shows the test itself
# works) bounds each of the two runs; a longer campaign only raises it:
#   VM_FUZZ_SECONDS=1800 VM_TIMEOUT=4200 make vm-test KVER=... VM_TESTS=test_sockopt_fuzz
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
if [ "$BACKEND" = ip_tables ]; then
	SECS=${VM_FUZZ_SECONDS:-5}
else
	SECS=${VM_FUZZ_SECONDS:-15}
fi
SEED=${VM_FUZZ_SEED:-$(date +%s)}
# run's bound on one command: the fuzzer's own time, and a slow last call.
CMD_TIMEOUT=$((SECS + 120))

bad_log()
{
	dmesg | tail -n +"$1" | grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|refcount_t:|list_(add|del) corruption|Call Trace'
}

reset_table
check "init netns: a ruleset to keep" 0 sh -c "printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' \
	':keep - [0:0]' '-A INPUT -s 10.66.0.0/16 -p tcp -m tcp --dport 22 -j keep' \
	'-A keep -m comment --comment kept -j DROP' 'COMMIT' | $IPT_RESTORE"
before=$($IPT_SAVE | grep -v '^#')
before6=$(ip6tables-legacy-save 2>&1 | grep -v '^#')
mark=$(($(dmesg | wc -l) + 1))

diag "seed $SEED, $SECS s per run"
run "$BIN/sockopt_fuzz" -s "$SEED" -t "$SECS" "$BIN/corpus"
diag "root: $OUT"
ok_if "root: the fuzzer ran to its end" test "$RC" = 0
ok_if "root: ip6tables' sockopts were fuzzed too" sh -c 'printf "%s" "$1" | grep -q "IPv4 and IPv6"' \
	sh "$OUT"
run "$BIN/sockopt_fuzz" -U -s "$((SEED + 1))" -t "$SECS" "$BIN/corpus"
diag "unprivileged: $OUT"
ok_if "unprivileged: the fuzzer ran to its end" test "$RC" = 0
ok_if "unprivileged: its calls reached the kernel" test -n "$(printf '%s' "$OUT" | grep 'sockopt-fuzz: [1-9]')"

bad=$(bad_log $mark)
ok_if "no WARN, BUG or oops in the kernel log" test -z "$bad"
[ -n "$bad" ] && diag "$bad"
check "the next command works" 0 $IPT -S
if [ "$BACKEND" = bpfilter ]; then
	ok_if "a helper is running" test -n "$(helper_pids)"
fi
ok_if "the init namespace's table is unchanged" test "$($IPT_SAVE | grep -v '^#')" = "$before"
ok_if "the init namespace's IPv6 table is unchanged" \
	test "$(ip6tables-legacy-save 2>&1 | grep -v '^#')" = "$before6"

reset_table
if [ "$BACKEND" = bpfilter ]; then
	check "rmmod bpfilter after the fuzzing" 0 rmmod bpfilter
	ok_if "no WARN, BUG or oops after rmmod" test -z "$(bad_log $mark)"
	check "modprobe bpfilter again" 0 modprobe bpfilter
else
	# ip_tables loads a table's module when a call names it (iptable_%s):
	# the fuzzer's names leave nat, mangle, raw and security loaded, each
	# holding ip_tables; unload them as the tests after this one expect.
	check "rmmod the table modules the fuzzing loaded" 0 \
		sh -c 'for m in iptable_nat iptable_mangle iptable_raw iptable_security \
				ip6table_nat ip6table_mangle ip6table_raw ip6table_security; do
			! grep -q "^$m " /proc/modules || rmmod $m || exit 1
		done'
fi
done_testing
