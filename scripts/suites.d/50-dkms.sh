#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's DKMS install, as an operator runs it: the source tree copied
# to /usr/src/bpfilter-VERSION, `dkms install` for each Debian kernel the VM
# suites use, the installed module's vermagic checked, then the module DKMS
# installed for 6.12 booted in the VM, where stock iptables filters packets
# with it (test_basic.sh, test_bpf_traffic.sh). The version is
# 0.1-selftest, so an operator's own bpfilter/0.1 is never touched, and
# everything is removed afterwards (`dkms remove --all`).
# Prints "# Totals: pass:P fail:F".
set -u
cd "$(dirname "$0")/../.." || exit 1

ver=0.1-selftest
usrsrc=/usr/src/bpfilter-$ver
work=build/dkms
. scripts/tap.sh
finish() {
	tap_totals
	exit
}
cleanup() {
	dkms remove "bpfilter/$ver" --all > /dev/null 2>&1
	rm -rf "$usrsrc"
}
trap cleanup EXIT

echo "TAP version 13"
command -v dkms > /dev/null
ok $? "dkms is installed (make setup)"
[ "$fail" -eq 0 ] || finish

# The tree as it stands: the tracked files of the checkout, build/ excluded.
cleanup
mkdir -p "$usrsrc" "$work"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$usrsrc"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$usrsrc"
fi
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$usrsrc/dkms.conf"
dkms add "bpfilter/$ver" > "$work/add.log" 2>&1
ok $? "dkms add bpfilter/$ver"
[ "$fail" -eq 0 ] || { sed 's/^/# /' "$work/add.log"; finish; }

installed=
kvers=$(bash scripts/vm/fetch-kernel.sh)
[ -n "$kvers" ]
ok $? "kernels with headers: $(echo $kvers)"
for kver in $kvers; do
	log=$work/install-$kver.log
	timeout 900 dkms install "bpfilter/$ver" -k "$kver" > "$log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || tail -n 30 "$log" | sed 's/^/# /'
	ok "$rc" "dkms install bpfilter/$ver -k $kver"
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
			INITRD=$work/initrd-$kver.gz BACKEND=bpfilter \
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

dkms remove "bpfilter/$ver" --all > "$work/remove.log" 2>&1
ok $? "dkms remove bpfilter/$ver --all"
left=
for ko in $installed; do
	[ -e "$ko" ] && left="$left $ko"
done
[ -z "$left" ] && [ -z "$(dkms status "bpfilter/$ver" 2>/dev/null)" ]
ok $? "nothing left behind${left:+:$left}"
finish
