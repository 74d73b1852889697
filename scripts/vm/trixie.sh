#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trixie.sh
#
# Debian 13 (trixie) for the VM suite, from trixie's own apt sources:
#   - a minbase trixie root (debootstrap, cached in $BPFILTER_VM_CACHE,
#     default /var/cache/bpfilter-vm/trixie-root) with trixie's gcc,
#     linux-headers-cloud-amd64, iptables 1.8.11, iproute2, ipset and bpftool;
#   - bpfilter.ko and bpfilter_kfunc.ko built inside it for trixie's cloud
#     kernel (its kbuild tools and compiler are trixie's; the helper embedded
#     is the static net/bpfilter/bpfilter_umh of `make helper`), copied to
#     build/module/KVER/ as mk/module.mk does for the host's kernels;
#   - trixie's linux-image-KVER .deb in the cache, where fetch-kernel.sh
#     finds it.
# Prints "KVER ROOT". mkinitramfs.sh takes the user-space side (iptables and
# the libraries it runs with) from ROOT with SYSROOT=ROOT.
set -euo pipefail

cd "$(dirname "$0")/../.."
cache=${BPFILTER_VM_CACHE:-/var/cache/bpfilter-vm}
root=$cache/trixie-root
mirror=${MIRROR:-http://deb.debian.org/debian}
pkgs="make gcc linux-headers-cloud-amd64 iptables iproute2 ipset bpftool kmod"
stamp=$root/.bpfilter-root

if [ "$(id -u)" != 0 ]; then
	echo "trixie: run as root (debootstrap, chroot)" >&2
	exit 1
fi
if [ ! -f net/bpfilter/bpfilter_umh ]; then
	echo "trixie: no net/bpfilter/bpfilter_umh: run make helper" >&2
	exit 1
fi

# The root, once: a stamp names the packages it was made with.
if [ "$(cat "$stamp" 2>/dev/null)" != "$pkgs" ]; then
	command -v debootstrap > /dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			debootstrap >&2
	rm -rf "$root"
	mkdir -p "$cache"
	echo "trixie: debootstrap --variant=minbase trixie $root" >&2
	debootstrap --variant=minbase --include="$(echo "$pkgs" | tr ' ' ,)" \
		trixie "$root" "$mirror" > "$cache/trixie-debootstrap.log" 2>&1 || {
		tail -n 20 "$cache/trixie-debootstrap.log" >&2
		exit 1
	}
	echo "$pkgs" > "$stamp"
fi

hdr=$(ls -d "$root"/usr/src/linux-headers-*-cloud-amd64 | sort -V | tail -n1)
kver=${hdr##*/linux-headers-}
if [ -z "$kver" ]; then
	echo "trixie: no cloud kernel headers in $root" >&2
	exit 1
fi

# The kernel image, downloaded by trixie's apt into the cache.
if ! ls "$cache"/linux-image-"$kver"_*.deb > /dev/null 2>&1; then
	mkdir -p "$root/var/tmp/bpfilter-deb"
	chroot "$root" sh -c "cd /var/tmp/bpfilter-deb && apt-get download -q linux-image-$kver" >&2
	mv "$root"/var/tmp/bpfilter-deb/linux-image-"$kver"_*.deb "$cache/"
fi

# The module, in the root with trixie's compiler; the sources are copied
# in so that nothing of the host is mounted there. A file copied again only
# when it changed keeps kbuild's rebuild to what changed.
out=build/module/$kver
src=/var/tmp/bpfilter-src
mkdir -p "$out"
copy_in()
{
	mkdir -p "$(dirname "$2")"
	cmp -s "$1" "$2" || cp "$1" "$2"
}
srcs=$(make -s --no-print-directory module-srcs)
[ -n "$srcs" ]
for f in $srcs; do
	copy_in "$f" "$root$src/$f"
done
strip --strip-debug -o "$out/bpfilter_umh.trixie" net/bpfilter/bpfilter_umh
copy_in "$out/bpfilter_umh.trixie" "$root$src/bpfilter_umh"
echo "  MODULE  $kver (trixie)" >&2
chroot "$root" make -s -C "/usr/src/linux-headers-$kver" M="$src/net/bpfilter" \
	BPFILTER_UMH_BIN="$src/bpfilter_umh" modules >&2
cp "$root$src/net/bpfilter/bpfilter.ko" "$root$src/net/bpfilter/bpfilter_kfunc.ko" "$out/"
echo "$kver $root"
