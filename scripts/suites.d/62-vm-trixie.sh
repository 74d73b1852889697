#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM selftests on Debian 13 (trixie): its own cloud kernel, with the
# module built by trixie's compiler and headers, and its own iptables 1.8.11
# and glibc in the initramfs (scripts/vm/trixie.sh makes the root, cached
# after the first run). Against the stock ip_tables modules and against
# bpfilter.ko, in the four boots below, two at a time, as on 6.12.
# Each run prints "# vm: RELEASE", TAP and a "# Totals:" line (check.sh sums
# them); the suite fails if any run fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
fail()
{
	echo "# $*"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
}
make -s helper vm-bins || fail "cannot build the helper and the VM helpers"
read -r kver sysroot < <(bash scripts/vm/trixie.sh | tail -n1)
[ -n "${sysroot:-}" ] || fail "cannot prepare Debian 13 (scripts/vm/trixie.sh)"
bash scripts/vm/fetch-kernel.sh "$kver" > /dev/null &&
	SYSROOT=$sysroot bash scripts/vm/mkinitramfs.sh "$kver" "build/vm/$kver/initrd.gz" > /dev/null ||
	fail "cannot prepare the $kver VM"
# The sockopt fuzz runs its default bound on 6.12; here it shows the
# trixie-built module under the same fuzzer for a shorter one, and the
# differential NAT test compares 5 random nat tables and 3 IPv6 ones (20
# and 10 on 6.12).
# Each boot of scripts/vm/boots: its seconds against ip_tables and against
# bpfilter.ko, measured at cefb730, two boots at a time as here, on a
# machine that was not quiet (other builds and tests beside it, load
# average 5-9), so above what a quiet one takes. run.sh gives each three
# times that and a minute.
times="
filter 190 250
ext 135 190
ip6 95 175
nat 115 145
"
rc=0
VM_BOOT_TIMES=$times VM_FUZZ_SECONDS=${VM_FUZZ_SECONDS:-5} NAT_DIFF_SEEDS=${NAT_DIFF_SEEDS:-5} \
	bash scripts/vm/run-backends.sh "$kver" || rc=1
# The differential NAT test: the two nat boots' records of test_nat_diff.sh.
bash scripts/vm/natdiff.sh "build/vm/$kver/console-tests-nat-ip_tables.log" \
	"build/vm/$kver/console-tests-nat-bpfilter.log" || rc=1
exit $rc
