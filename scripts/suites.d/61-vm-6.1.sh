#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM selftests on Debian's 6.1 cloud kernel under QEMU (scripts/vm/):
# against bpfilter.ko. 6.1 has no BPF netfilter programs (Linux 6.4+), so
# bpfilter must refuse every table it cannot enforce (EOPNOTSUPP, a dmesg
# line) and accept only tables that behave as the initial accept-all one:
# NOBPF=1 states that expectation for this kernel explicitly (it is never
# auto-detected, so a kernel with BPF that refused rules could not pass the
# 6.12 suite). The tests: test_nobpf.sh and test_module_cycle.sh.
# Each run prints "# vm: RELEASE", TAP and a "# Totals:" line (check.sh sums
# them); the suite fails if any run fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
kver=$(bash scripts/vm/fetch-kernel.sh | grep '^6\.1\.' | tail -n1)
if [ -z "$kver" ]; then
	echo "# no /usr/src/linux-headers-6.1.*-cloud-amd64: run make setup"
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
# The boot takes 67 s with other work beside it (run.sh: a limit of three
# times that and a minute).
rc=0
for backend in bpfilter; do
	VM_QUIET=70 NOBPF=1 BACKEND=$backend bash scripts/vm/run.sh "$kver" tests || rc=1
done
exit $rc
