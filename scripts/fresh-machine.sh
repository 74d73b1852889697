#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's two commands on a machine with nothing but the base system:
# a minbase Debian bookworm (debootstrap --variant=minbase) in a chroot, a
# fresh clone of this checkout's HEAD in it, then, inside the chroot,
#   bash scripts/run.sh demo
#   bash scripts/run.sh check
# exactly as a new user types them. Not part of `make check` (about 40
# minutes on 2 cores: the chroot installs every dependency from scratch).
# Prints the check's "N passed, N failed" line last; exits non-zero if
# either failed.
#
#   bash scripts/fresh-machine.sh [DIR]   (default /var/tmp/bpfilter-fresh; wiped)
#
# BUSY_CORES=N is passed on to the check (scripts/check.sh): the fresh
# machine with N cores kept busy.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src=$PWD
root=${1:-/var/tmp/bpfilter-fresh}
mirror=${MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" != 0 ]; then
	echo "fresh-machine: run as root (debootstrap, chroot, mounts)" >&2
	exit 1
fi
command -v debootstrap > /dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap ||
	exit 1

umount_all()
{
	local m

	# Deepest first; the mounts are rslave, so nothing reaches the host.
	for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2> /dev/null
	done
}
trap umount_all EXIT

umount_all
rm -rf "$root"
mkdir -p "$root"
echo "fresh-machine: debootstrap --variant=minbase bookworm $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 || {
	tail -n 20 "$root.debootstrap.log"
	exit 1
}
echo "nameserver ${NAMESERVER:-$(awk '/^nameserver/ { print $2; exit }' /etc/resolv.conf)}" \
	> "$root/etc/resolv.conf"
# A machine's / is a mount: ip netns exec remounts it (--make-rslave).
mount --bind "$root" "$root" && mount --make-private "$root" || exit 1
for m in proc sys dev; do
	mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m" || exit 1
done
mount -t tmpfs tmpfs "$root/run" || exit 1
mount -t tmpfs tmpfs "$root/tmp" || exit 1

# The checkout as a new user gets it: committed files only, no build/.
git clone -q "$src" "$root/root/bpfilter" || exit 1
echo "fresh-machine: $(git -C "$root/root/bpfilter" log --oneline -1)"
for tool in make gcc clang qemu-system-x86_64 iptables-legacy sysctl ping file; do
	chroot "$root" /bin/bash -c "command -v $tool" > /dev/null &&
		echo "fresh-machine: note: $tool is already in the minbase system"
done

# readme_command demo|check: the README's command in the chroot, as a new
# user with a clean environment; its log is $root.NAME.log, its exit code $rc.
readme_command()
{
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb BUSY_CORES="${BUSY_CORES:-0}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/bpfilter && bash scripts/run.sh $1" 2>&1 |
		tee "$root.$1.log"
	rc=${PIPESTATUS[0]}
	echo "fresh-machine: $1 exited $rc"
}

readme_command demo
demo_rc=$rc
readme_command check
check_rc=$rc
tail -n 1 "$root.check.log"
[ "$demo_rc" = 0 ] && [ "$check_rc" = 0 ]
