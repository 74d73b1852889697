#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package, as a fleet installs an out-of-tree module: `make deb`
# builds bpfilter-dkms (dh with dh-dkms), dpkg installs it (its postinst
# registers the source with DKMS), DKMS's kernel hook (`dkms autoinstall
# -k`, what a kernel or headers upgrade runs) builds the modules for each
# Debian kernel the VM suites use, their vermagic is checked, the module
# built for 6.12 is booted in the VM, where stock iptables filters packets
# with it (test_basic.sh, test_bpf_traffic.sh), and `dpkg --purge` leaves
# nothing behind. Refuses to run where bpfilter-dkms is installed already
# (it would replace the operator's). Prints "# Totals: pass:P fail:F".
set -u
cd "$(dirname "$0")/../.." || exit 1

ver=0.1
pkg=bpfilter-dkms
work=build/dkms
. scripts/tap.sh
finish() {
	tap_totals
	exit
}
ours=
cleanup() {
	[ -n "$ours" ] && dpkg --purge "$pkg" > /dev/null 2>&1
}
trap cleanup EXIT

echo "TAP version 13"
command -v dkms > /dev/null
ok $? "dkms is installed (make setup)"
[ "$fail" -eq 0 ] || finish

mkdir -p "$work"
dpkg -s "$pkg" > /dev/null 2>&1
[ $? -ne 0 ]
ok $? "$pkg is not installed on this machine already"
[ "$fail" -eq 0 ] || finish
make -s deb > "$work/deb.log" 2>&1
ok $? "make deb"
deb=$(ls build/deb/${pkg}_*_all.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { tail -n 30 "$work/deb.log" | sed 's/^/# /'; finish; }
ours=1
dpkg -i "$deb" > "$work/dpkg-i.log" 2>&1
ok $? "dpkg -i $(basename "$deb")"
[ "$fail" -eq 0 ] || { tail -n 30 "$work/dpkg-i.log" | sed 's/^/# /'; finish; }
dkms status "bpfilter/$ver" 2>/dev/null | grep -q .
ok $? "its postinst registered bpfilter/$ver with DKMS"
[ -f /usr/share/doc/$pkg/examples/bpfilter.conf ] && [ ! -e /etc/modprobe.d/bpfilter.conf ]
ok $? "the modprobe.d snippet is an example, not active"

installed=
kvers=$(bash scripts/vm/fetch-kernel.sh)
[ -n "$kvers" ]
ok $? "kernels with headers: $(echo $kvers)"
for kver in $kvers; do
	log=$work/install-$kver.log
	timeout 900 dkms autoinstall -k "$kver" > "$log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || tail -n 30 "$log" | sed 's/^/# /'
	ok "$rc" "dkms autoinstall -k $kver (the kernel hook) builds bpfilter/$ver"
	ko=$(ls "/lib/modules/$kver/updates/dkms/bpfilter.ko"* 2>/dev/null | head -n 1)
	kko=$(ls "/lib/modules/$kver/updates/dkms/bpfilter_kfunc.ko"* 2>/dev/null | head -n 1)
	installed="$installed $ko $kko"
	[ -n "$kko" ]
	ok $? "its kfunc module ${kko:-(none)} is installed too"
	[ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ]
	ok $? "installed module ${ko:-(none)} is built for $kver"
	dkms status "bpfilter/$ver" -k "$kver" 2>/dev/null | grep -q installed
	ok $? "dkms status says installed for $kver"
	case "$kver" in
	6.12.*)
		# The module as DKMS installed it, in the VM, filtering.
		for m in "$ko:bpfilter" "$kko:bpfilter_kfunc"; do
			case "${m%%:*}" in
			*.xz) xz -dc "${m%%:*}" > "$work/${m##*:}-$kver.ko" ;;
			*) cp "${m%%:*}" "$work/${m##*:}-$kver.ko" ;;
			esac
		done
		if BPFILTER_KO=$work/bpfilter-$kver.ko make -s vm-bins > /dev/null &&
		   bash scripts/vm/fetch-kernel.sh "$kver" > /dev/null &&
		   BPFILTER_KO=$work/bpfilter-$kver.ko \
		   BPFILTER_KFUNC_KO=$work/bpfilter_kfunc-$kver.ko bash scripts/vm/mkinitramfs.sh "$kver" \
			"$work/initrd-$kver.gz" > /dev/null; then
			# The boot's two tests take 43 s on a quiet machine.
			VM_QUIET=55 INITRD=$work/initrd-$kver.gz BACKEND=bpfilter \
				VM_TESTS="test_basic.sh test_bpf_traffic.sh" \
				bash scripts/vm/run.sh "$kver" tests > "$work/vm-$kver.log" 2>&1
			rc=$?
			grep -E '^(not )?ok' "$work/vm-$kver.log" | sed 's/^/# vm: /'
			sed -n 's/^.*# Totals: /# vm totals: /p' "$work/vm-$kver.log"
			grep -q '# Totals: pass:[1-9][0-9]* fail:0 ' "$work/vm-$kver.log" || rc=1
		else
			rc=1
		fi
		ok "$rc" "the DKMS-installed module filters in the $kver VM (test_basic, test_bpf_traffic)"
		;;
	esac
done

dpkg --purge "$pkg" > "$work/purge.log" 2>&1
ok $? "dpkg --purge $pkg"
ours=
left=
for ko in $installed /usr/src/bpfilter-$ver /var/lib/dkms/bpfilter /usr/share/doc/$pkg; do
	[ -e "$ko" ] && left="$left $ko"
done
[ -z "$left" ] && [ -z "$(dkms status bpfilter 2>/dev/null)" ] && ! dpkg -s "$pkg" > /dev/null 2>&1
ok $? "nothing left behind${left:+:$left}"
finish
