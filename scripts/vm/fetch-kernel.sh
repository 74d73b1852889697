#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh KVER [OUTDIR]
#
# Download Debian's linux-image-KVER with apt-get download (cached, so reruns
# do not download again) and unpack its vmlinuz and /lib/modules/KVER tree into
# OUTDIR (default build/vm/KVER/kernel). Prints OUTDIR on success.
#
# With no KVER, lists the kernel releases the VM suites use: one per installed
# /usr/src/linux-headers-*-cloud-amd64, so the VM kernels always match what the
# module is built for.
set -euo pipefail

cd "$(dirname "$0")/../.."

if [ $# -eq 0 ]; then
	for d in /usr/src/linux-headers-*-cloud-amd64; do
		[ -d "$d" ] && basename "$d" | sed 's/^linux-headers-//'
	done | sort -V
	exit 0
fi

kver=$1
out=${2:-build/vm/$kver/kernel}
cache=${BPFILTER_VM_CACHE:-/var/cache/bpfilter-vm}

if [ -f "$out/vmlinuz" ] && [ -f "$out/lib/modules/$kver/modules.dep" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
deb=$(ls "$cache"/linux-image-"$kver"_*.deb "$cache"/linux-image-"$kver"-unsigned_*.deb 2>/dev/null |
	head -n1 || true)
if [ -z "$deb" ]; then
	# The 6.12 images live in bookworm-backports; apt-get download picks the
	# candidate from whichever suite has it. The -unsigned package has the
	# same files and is the fallback if the signed one is not available.
	(
		cd "$cache"
		apt-get download -q "linux-image-$kver" >&2 ||
			apt-get download -q -t bookworm-backports "linux-image-$kver" >&2 ||
			apt-get download -q "linux-image-$kver-unsigned" >&2
	)
	deb=$(ls "$cache"/linux-image-"$kver"*.deb | head -n1)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
# Debian 13 ships the modules under /usr/lib/modules, 12 under /lib/modules.
mods=$tmp/lib/modules/$kver
[ -d "$mods" ] || mods=$tmp/usr/lib/modules/$kver
if [ ! -f "$tmp/boot/vmlinuz-$kver" ] || [ ! -d "$mods" ]; then
	echo "fetch-kernel: $deb has no vmlinuz-$kver or /lib/modules/$kver" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out/lib/modules"
cp "$tmp/boot/vmlinuz-$kver" "$out/vmlinuz"
mv "$mods" "$out/lib/modules/$kver"
# The package ships no modules.dep (the postinst makes it): build it here.
depmod -b "$out" "$kver"
echo "$out"
