#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM selftests on Debian's 6.12 cloud kernel under QEMU (scripts/vm/):
# against the stock ip_tables modules (the reference) and against bpfilter.ko,
# in the four boots below, two at a time (scripts/vm/run-backends.sh).
# Each run prints "# vm: RELEASE", TAP and a "# Totals:" line (check.sh sums
# them); the suite fails if any run fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
kver=$(bash scripts/vm/fetch-kernel.sh | grep '^6\.12\.' | tail -n1)
if [ -z "$kver" ]; then
	echo "# no /usr/src/linux-headers-6.12.*-cloud-amd64: run make setup"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
make -s vm-bins &&
	bash scripts/vm/fetch-kernel.sh "$kver" > /dev/null &&
	bash scripts/vm/mkinitramfs.sh "$kver" "build/vm/$kver/initrd.gz" > /dev/null
if [ $? -ne 0 ]; then
	echo "# cannot prepare the $kver VM"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
# Each boot of scripts/vm/boots: its seconds on a quiet machine against
# ip_tables and against bpfilter.ko (the sum of its tests' times at
# 9401769, two boots at a time as here, and 10 s for the boot). run.sh
# gives each three times that and a minute.
times="
filter 140 180
ext 120 165
ip6 115 125
nat 140 130
"
rc=0
VM_BOOT_TIMES=$times bash scripts/vm/run-backends.sh "$kver" || rc=1
# The differential NAT test: the two nat boots' records of test_nat_diff.sh.
bash scripts/vm/natdiff.sh "build/vm/$kver/console-tests-nat-ip_tables.log" \
	"build/vm/$kver/console-tests-nat-bpfilter.log" || rc=1
exit $rc
