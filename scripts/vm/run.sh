#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KVER [tests|demo|bench]
#
# Boot Debian's KVER kernel under QEMU (TCG, 2 vCPUs, 1 GiB) with the
# initramfs of mkinitramfs.sh and run the selftests (or the demo) in it.
# Environment: BACKEND=bpfilter|ip_tables (default bpfilter), VM_TESTS="a b"
# (a subset of the test scripts), NOBPF=1 (the kernel lacks BPF netfilter
# programs: the tests expect bpfilter to refuse what it cannot enforce; set
# per kernel by the suite, never detected), VM_QUIET (seconds this boot
# takes on a quiet machine, as the suites measured it: the time limit is then
# three times that and a minute), VM_TIMEOUT (seconds: the limit itself, for
# a campaign; default 3 * VM_QUIET + 60, or 1800 without VM_QUIET: an ad hoc
# `make vm-test` of every test in one boot takes about 10 minutes), VM_BOOT
# (a name for the boot's console log, run-backends.sh's plan),
# INITRD (default build/vm/KVER/initrd.gz, built if missing), VM_FUZZ_SECONDS
# (each test_sockopt_fuzz run; raise VM_TIMEOUT with it for a long campaign),
# NAT_DIFF_SEEDS (how many random nat tables test_nat_diff.sh compares),
# NAT_SIZES / NAT_SECONDS (bench: the NAT benchmark's sizes and seconds),
# VM_APPEND (more kernel arguments, e.g. bpfilter.dyndbg=+p for the
# helper's debug lines).
#
# Prints "# vm: RELEASE" (from inside the guest), the guest's TAP, the
# dmesg lines worth reading, and "# Totals: pass:P fail:F ...". Exits non-zero
# on any failed test, on missing results (no end marker, a plan that does not
# match the results, a timeout) and on any WARN/BUG/oops/Call Trace in dmesg.
# The whole console log is kept in build/vm/KVER/console-MODE[-BOOT]-BACKEND[-nobpf].log.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
kver=${1:?usage: run.sh KVER [tests|demo]}
mode=${2:-tests}
backend=${BACKEND:-bpfilter}
kdir=build/vm/$kver/kernel
initrd=${INITRD:-build/vm/$kver/initrd.gz}
log=build/vm/$kver/console-$mode${VM_BOOT:+-$VM_BOOT}-$backend${NOBPF:+-nobpf}.log
quiet=${VM_QUIET:-}
# Three times the quiet time, so that a machine a third as fast (shared,
# busy) still passes, and a minute for QEMU's start and a slow first boot.
# Twice was not enough: with one core kept busy and more work beside it, the
# 6.12 nat boot took 312 s, 2.4 times its quiet 130 s.
if [ -n "$quiet" ]; then
	timeout_s=${VM_TIMEOUT:-$((3 * quiet + 60))}
else
	timeout_s=${VM_TIMEOUT:-1800}
fi

if [ ! -f "$kdir/vmlinuz" ]; then
	scripts/vm/fetch-kernel.sh "$kver" > /dev/null || exit 1
fi
if [ ! -f "$initrd" ]; then
	scripts/vm/mkinitramfs.sh "$kver" "$initrd" > /dev/null || exit 1
fi

tests=$(echo "${VM_TESTS:-}" | tr ' ' ',')
append="console=ttyS0 panic=-1 quiet loglevel=1 vm_mode=$mode vm_backend=$backend"
[ -n "$tests" ] && append="$append vm_tests=$tests"
[ -n "${NOBPF:-}" ] && append="$append vm_nobpf=1"
[ -n "${RECORD:-}" ] && append="$append vm_record=1"
[ -n "${VM_FUZZ_SECONDS:-}" ] && append="$append vm_fuzz_seconds=$VM_FUZZ_SECONDS"
[ -n "${NAT_DIFF_SEEDS:-}" ] && append="$append vm_nat_diff_seeds=$NAT_DIFF_SEEDS"
[ -n "${NAT_SIZES:-}" ] && append="$append vm_nat_sizes=$(echo "$NAT_SIZES" | tr ' ' ',')"
[ -n "${NAT_SECONDS:-}" ] && append="$append vm_nat_seconds=$NAT_SECONDS"
[ -n "${VM_APPEND:-}" ] && append="$append $VM_APPEND"

# -cpu qemu64,-cx16: this QEMU's TCG (7.2) corrupts SLUB's lockless
# cmpxchg16b fast path now and then (double faults, random oopses within a
# minute); without CX16 the guest kernel takes SLUB's locked path and runs
# clean. qemu64 is also the cheapest model to emulate.
start=$(date +%s)
# A guest kernel that dies before init prints "# vm:" ran none of our code
# (init prints it before anything loads a module): TCG has panicked that
# early under load (an int3 in early text patching). Such a boot is tried
# once more, and said so; anything later counts as it is.
for attempt in 1 2; do
	timeout --foreground -k 10 "$timeout_s" \
		qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64,-cx16 -m 1G -smp 2 \
		-nographic -no-reboot -nodefaults -serial stdio -display none \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" -append "$append" \
		< /dev/null 2>&1 | tr -d '\r' | sed 's/^.*\(# vm: \)/\1/' > "$log"
	qrc=${PIPESTATUS[0]}
	grep -q '^# vm: ' "$log" && break
	[ "$attempt" -eq 1 ] || break
	echo "# vm: the guest kernel died before init ran (boot attempt 1); booting again"
	grep -E -m1 'Kernel panic|Oops' "$log" | sed 's/^/# console: /'
done
elapsed=$(( $(date +%s) - start ))

problems=0
problem()
{
	echo "# vm: PROBLEM: $*"
	problems=$((problems + 1))
}

if ! grep -q '^# vm: ' "$log"; then
	problem "the guest printed no '# vm:' line (boot failed?); console log: $log"
	tail -n 30 "$log" | sed 's/^/# console: /'
fi
# The guest's own output, dmesg excepted.
sed -n '/^# vm: /,/^# dmesg begin$/p' "$log" | grep -v '^# dmesg begin$'

dmesg_txt=$(sed -n '/^# dmesg begin$/,/^# dmesg end$/p' "$log")
bad_re='WARNING: |BUG:|Oops|Call Trace|general protection fault|kernel BUG|UBSAN|KASAN|refcount_t: |list_add corruption|list_del corruption|INFO: task .* blocked|Kernel panic'
if [ -z "$dmesg_txt" ]; then
	problem "no dmesg from the guest"
fi
# Outside the dmesg dump too: an oops on the console before the end.
if grep -Eq "$bad_re" "$log"; then
	problem "kernel warnings/oopses in the guest:"
	grep -E -A20 "$bad_re" "$log" | head -n 80 | sed 's/^/# dmesg: /'
fi
echo "$dmesg_txt" | grep -Ei 'bpfilter|ip_tables|x_tables' | grep -v 'vm_backend=' | head -n 40 | sed 's/^/# dmesg: /'

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	problem "timed out after ${timeout_s}s"
fi
done_line=$(grep '^# vm-done rc=' "$log" | tail -n1)
if [ -z "$done_line" ]; then
	problem "the guest did not finish (no '# vm-done'); last console lines:"
	tail -n 20 "$log" | sed 's/^/# console: /'
elif [ "${done_line#\# vm-done rc=}" != 0 ]; then
	echo "# vm: guest job exited ${done_line#\# vm-done rc=}"
fi

# Count the guest's results; a plan that disagrees means lost results.
pass=$(grep -Ec '^ok [0-9]+ ' "$log")
skip=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$log")
fail=$(grep -Ec '^not ok [0-9]+ ' "$log")
pass=$((pass - skip))
if [ "$mode" = tests ]; then
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | tail -n1)
	if [ -z "$plan" ] || [ "$plan" -ne $((pass + skip + fail)) ]; then
		problem "plan '${plan:-none}' does not match $((pass + skip + fail)) results"
	fi
elif [ "${done_line#\# vm-done rc=}" != 0 ]; then
	fail=$((fail + 1))
fi
fail=$((fail + problems))
if [ "$mode" != tests ] && [ "$fail" -eq 0 ]; then
	pass=$((pass + 1))
fi

echo "# vm: $kver $mode${VM_BOOT:+ boot=$VM_BOOT} backend=$backend: ${elapsed}s" \
	"(quiet ${quiet:-?}s, limit ${timeout_s}s), console log $log"
# A boot that took half again its quiet time says so: the plan's figure is
# out of date, or the machine was busy; either is worth knowing before a
# limit is reached.
if [ -n "$quiet" ] && [ "$((2 * elapsed))" -gt "$((3 * quiet))" ]; then
	echo "# vm: note: this boot took ${elapsed}s, over 1.5 times its quiet ${quiet}s"
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -eq 0 ] && [ -n "$done_line" ] && [ "${done_line#\# vm-done rc=}" = 0 ]
