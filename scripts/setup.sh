#!/bin/bash
# Install everything bpfilter needs to build and test on Debian bookworm.
# Idempotent: safe to run on every invocation of the README's commands.
set -euo pipefail

stamp=/var/lib/bpfilter-setup.stamp
want_version=8

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_version" ]; then
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive

if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat > /etc/apt/sources.list.d/bookworm-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

apt-get update -q

# Everything the build and every test calls, on top of a minbase system
# (scripts/fresh-machine.sh proves it): procps for sysctl, ps and pgrep,
# iputils-ping for the traffic tests, file for the static-helper check,
# debootstrap for the Debian 13 root of the trixie VM suite (scripts/vm/trixie.sh).
apt-get install -y -q --no-install-recommends \
	build-essential clang llvm libclang-rt-14-dev pkg-config make git \
	libelf-dev zlib1g-dev libmnl-dev \
	iptables nftables ipset iproute2 kmod cpio busybox-static \
	qemu-system-x86 python3 ca-certificates xz-utils gnuplot-nox \
	linux-source-6.1 bpftool dkms \
	procps iputils-ping file debhelper dh-dkms dpkg-dev debootstrap

apt-get install -y -q --no-install-recommends -t bookworm-backports libbpf-dev

# Kernel headers for the VM kernels: bookworm's 6.1 and bookworm-backports' 6.12.
h61=$(apt-cache depends linux-headers-cloud-amd64 | awk '/Depends: linux-headers-6/ {print $2; exit}')
h612=$(apt-cache -t bookworm-backports depends linux-headers-cloud-amd64 2>/dev/null | awk '/Depends: linux-headers-6.12/ {print $2; exit}')
apt-get install -y -q --no-install-recommends "$h61"
apt-get install -y -q --no-install-recommends -t bookworm-backports "$h612"

echo "$want_version" > "$stamp"
