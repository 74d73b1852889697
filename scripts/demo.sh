#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's main job (`make demo`, which builds everything first): boot
# Debian's 6.12 cloud kernel under QEMU with bpfilter.ko, `modprobe
# bpfilter`, run a short stock iptables-legacy session against it and show
# what the kernel and bpfilter report. Exits 0 only if every step worked.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

kver=${KVER:-$(bash scripts/vm/fetch-kernel.sh | grep '^6\.12\.' | tail -n1)}
if [ -z "$kver" ]; then
	echo "demo: no /usr/src/linux-headers-6.12.*-cloud-amd64; run make setup" >&2
	exit 1
fi
if [ ! -f "build/module/$kver/bpfilter.ko" ]; then
	echo "demo: no build/module/$kver/bpfilter.ko; run make (or make demo)" >&2
	exit 1
fi
make -s vm-bins || exit 1
bash scripts/vm/fetch-kernel.sh "$kver" > /dev/null || exit 1
bash scripts/vm/mkinitramfs.sh "$kver" "build/vm/$kver/initrd.gz" > /dev/null || exit 1
# The demo boot takes 13 s on a quiet machine (run.sh: a limit of three times that and a minute).
VM_QUIET=15 BACKEND=bpfilter bash scripts/vm/run.sh "$kver" demo
