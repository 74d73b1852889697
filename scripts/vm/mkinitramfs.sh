#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUT
#
# Build the test VM's initramfs for kernel KVER (unpacked by fetch-kernel.sh
# into build/vm/KVER/kernel) into OUT (a gzip'd cpio):
#   busybox (static) as the shell and base tools, /init from scripts/vm/init;
#   the guest modules the tests need (netfilter, veth) with their
#   dependencies, decompressed so busybox modprobe can load them;
#   bpfilter.ko (build/module/KVER/bpfilter.ko, or $BPFILTER_KO) in
#   /lib/modules/KVER/updates, so `modprobe bpfilter` works;
#   xtables-legacy-multi with its iptables-legacy* links and plugins, iproute2's
#   ip, ipset, bpftool, and every shared library they need, from the host or,
#   with SYSROOT=DIR, from that Debian root (trixie.sh's: that release's own
#   iptables and glibc);
#   the VM selftests (tools/testing/selftests/bpfilter/vm) and their C helpers
#   (build/vm/bin, built by mk/vm.mk);
#   with BENCH=1 also the NAT benchmark's guest side (tools/bench/
#   nat_bench_guest.sh, its rules' generator tools/bench/kube_gen.sh,
#   build/bench/bench-conn), nft and nf_tables' modules.
set -euo pipefail

cd "$(dirname "$0")/../.."
kver=${1:?usage: mkinitramfs.sh KVER OUT}
out=${2:?usage: mkinitramfs.sh KVER OUT}
kdir=build/vm/$kver/kernel
ko=${BPFILTER_KO:-build/module/$kver/bpfilter.ko}
# Its programs' kfuncs, a module of their own (net/bpfilter/Kbuild says why).
kfunc_ko=${BPFILTER_KFUNC_KO:-$(dirname "$ko")/bpfilter_kfunc.ko}
tests=tools/testing/selftests/bpfilter/vm
bindir=build/vm/bin

if [ ! -f "$kdir/lib/modules/$kver/modules.dep" ]; then
	echo "mkinitramfs: no kernel in $kdir; run scripts/vm/fetch-kernel.sh $kver" >&2
	exit 1
fi
vm_bins="dropuid ipt_probe ipt_probe32 tcp_flags flow_probe nflog_listen sig_storm sockopt_fuzz"
for b in $vm_bins; do
	if [ ! -x "$bindir/$b" ]; then
		echo "mkinitramfs: $bindir/$b missing; run make vm-bins" >&2
		exit 1
	fi
done

root=$(mktemp -d "${TMPDIR:-/tmp}/bpfilter-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,root,selftests}
mkdir -p "$root/sys/fs/bpf" "$root/var"
ln -s ../run "$root/var/run"

# busybox applets; the real tools copied below take precedence via PATH.
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
for applet in modprobe insmod rmmod lsmod depmod modinfo poweroff; do
	ln -sf ../bin/busybox "$root/sbin/$applet"
done

# copy_from SYS FILE [DEST]: copy FILE of the root SYS (empty: the host)
# to DEST (default: the same path) in the image, with the libraries SYS's
# loader resolves for it; a library already in the image is kept.
copy_from()
{
	local sys=$1 f=$2 dest=${3:-$2} lib

	mkdir -p "$root$(dirname "$dest")"
	cp -L "$sys$f" "$root$dest"
	{ if [ -n "$sys" ]; then chroot "$sys" ldd "$f"; else ldd "$f"; fi 2>/dev/null || true; } |
	awk '/=> \// { print $3 } /^\t\/lib64\// { print $1 }' |
	while read -r lib; do
		if [ ! -e "$root$lib" ]; then
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$sys$lib" "$root$lib"
		fi
	done
}

# The user space the tests drive: first, so that its libraries are the
# ones in the image.
sys=${SYSROOT:-}
copy_from "$sys" /usr/sbin/xtables-legacy-multi
for l in iptables-legacy iptables-legacy-save iptables-legacy-restore \
	 ip6tables-legacy ip6tables-legacy-save ip6tables-legacy-restore \
	 iptables iptables-save iptables-restore; do
	ln -sf xtables-legacy-multi "$root/usr/sbin/$l"
done
for so in "$sys"/usr/lib/x86_64-linux-gnu/xtables/*.so; do
	copy_from "$sys" "${so#"$sys"}"
done
copy_from "$sys" /usr/sbin/ip
copy_from "$sys" /usr/sbin/ipset
copy_from "$sys" /usr/sbin/bpftool
# glibc's dynamic loader, at the path every binary names.
cp -L "$sys/lib64/ld-linux-x86-64.so.2" "$root/lib64/"

for f in /etc/protocols /etc/services; do
	cp "$([ -f "$sys$f" ] && echo "$sys$f" || echo "$f")" "$root/etc/"
done
# Names resolve from files only: `iptables -L` without -n must not send DNS
# queries over lo (slow, and traffic that rule counters would see).
cat > "$root/etc/nsswitch.conf" <<'NS'
passwd: files
group: files
hosts: files
networks: files
protocols: files
services: files
NS
printf '127.0.0.1\tlocalhost\n' > "$root/etc/hosts"
: > "$root/etc/networks"
cat > "$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat > "$root/etc/group" <<'GR'
root:x:0:
nogroup:x:65534:
GR

# Guest modules: netfilter and veth, closed over modules.dep, decompressed.
mdir=$kdir/lib/modules/$kver
rmdir=$root/lib/modules/$kver
mkdir -p "$rmdir"
cp "$mdir"/modules.order "$mdir"/modules.builtin* "$rmdir/" 2>/dev/null || true
# nf_log_syslog and nfnetlink_log are loaded by name (request_module), by
# xt_LOG, xt_NFLOG and bpfilter_kfunc; so are ipset's set types (by ipset),
# textsearch's algorithms (by xt_string) and br_netfilter (by xt_physdev).
want=$(cd "$mdir" && ls kernel/net/netfilter/x_tables.ko* kernel/net/netfilter/xt_*.ko* \
	kernel/net/netfilter/nf_log_syslog.ko* kernel/net/netfilter/nfnetlink_log.ko* \
	kernel/net/netfilter/ipset/*.ko* kernel/lib/ts_*.ko* kernel/net/bridge/*.ko* \
	kernel/net/ipv4/netfilter/*.ko* kernel/net/ipv6/netfilter/*.ko* \
	kernel/drivers/net/veth.ko* \
	$([ -n "${BENCH:-}" ] && echo kernel/net/netfilter/nf_tables.ko* kernel/net/netfilter/nft_*.ko*))
closure=$(awk -v want="$want" '
	BEGIN { n = split(want, w, "\n"); for (i = 1; i <= n; i++) need[w[i]] = 1 }
	{ sub(":", "", $1); deps[$1] = $0 }
	END {
		changed = 1
		while (changed) {
			changed = 0
			for (m in need) {
				k = split(deps[m], d, " ")
				for (i = 2; i <= k; i++)
					if (!(d[i] in need)) { need[d[i]] = 1; changed = 1 }
			}
		}
		for (m in need) print m
	}' "$mdir/modules.dep")
for m in $closure; do
	mkdir -p "$rmdir/$(dirname "$m")"
	case "$m" in
	*.xz) xz -dc "$mdir/$m" > "$rmdir/${m%.xz}" ;;
	*.zst) zstd -qdc "$mdir/$m" > "$rmdir/${m%.zst}" ;;
	*.gz) gzip -dc "$mdir/$m" > "$rmdir/${m%.gz}" ;;
	*) cp "$mdir/$m" "$rmdir/$m" ;;
	esac
done
if [ -f "$ko" ]; then
	mkdir -p "$rmdir/updates"
	cp "$ko" "$rmdir/updates/bpfilter.ko"
	[ -f "$kfunc_ko" ] && cp "$kfunc_ko" "$rmdir/updates/bpfilter_kfunc.ko"
	echo "mkinitramfs: $kver: with $ko" >&2
else
	echo "mkinitramfs: $kver: no $ko (bpfilter backend will fail to load)" >&2
fi
depmod -b "$root" "$kver"

# The selftests and the guest side of the demo.
cp "$tests"/*.sh "$root/selftests/"
# Built on the host; a host library the image lacks (libmnl) comes along.
for b in $vm_bins; do
	copy_from "" "$bindir/$b" "/selftests/$b"
done
# sockopt_fuzz's seeds: fuzz_blob's corpus of valid replace blobs.
mkdir -p "$root/selftests/corpus"
python3 tools/testing/selftests/bpfilter/fuzz_seeds.py "$root/selftests/corpus" > /dev/null || exit 1
if [ -n "${BENCH:-}" ]; then
	copy_from "$sys" /usr/sbin/nft
	copy_from "" build/bench/bench-conn /selftests/bench-conn
	cp tools/bench/nat_bench_guest.sh "$root/selftests/nat_bench.sh"
	cp tools/bench/kube_gen.sh "$root/selftests/kube_gen.sh"
fi
cp scripts/vm/init "$root/init"
cp scripts/vm/demo-guest.sh "$root/selftests/demo.sh"
chmod 755 "$root/init" "$root"/selftests/*

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
