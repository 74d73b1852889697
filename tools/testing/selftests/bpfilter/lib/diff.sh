# SPDX-License-Identifier: GPL-2.0
#
# Shared by the host differential scripts (ct_diff.sh, limit_diff.sh,
# statistic_diff.sh): side K is stock iptables-legacy on the kernel's
# ip_tables, side H the same iptables through the shim and a bpfilter-hostd
# of its own. Source it from the repository root, after scripts/tap.sh.
#
#   diff_start TAG [HOSTD_ARGS...]  start the daemon; cleanup on exit
#   diff_hz                         export BPFILTER_HZ (the kernel's CONFIG_HZ)
#   ipt SIDE NS CMD...              run CMD in NS, through bpfilter on side H
#   diff_saves NS_K NS_H            save -c of both sides to $diff_save{K,H}
#   diff_compare                    counters of both saves equal: ok, $mism
#   diff_pair SIDE [VETH-OPTS...]   client ${TAG}cSIDE 10.88.0.1/24 --veth
#                                   ${TAG}SIDE-- server ${TAG}sSIDE 10.88.0.2/24
#   diff_restore FILE WHAT          restore FILE in both servers; $nrules
#   diff_report NAME NRULES MIN     compare the servers' saves, check that
#                                   MIN rules counted on side K, print
#                                   "NAME: N rules, M mismatches"
#
# Scripts add namespaces to diff_netns and background pids to diff_pids.
diff_root=$PWD
diff_netns=
diff_pids=

diff_cleanup()
{
	local p n

	for p in $diff_pids; do kill "$p" 2>/dev/null; done
	for n in $diff_netns; do ip netns del "$n" 2>/dev/null; done
	rm -f "$diff_sock" /tmp/"$diff_tag".*
}

diff_start()
{
	diff_tag=$1
	shift
	diff_sock=/tmp/$diff_tag.sock
	diff_saveK=/tmp/$diff_tag.saveK
	diff_saveH=/tmp/$diff_tag.saveH
	trap diff_cleanup EXIT
	diff_pids=$(build/shim/bpfilter-hostd "$@" -s "$diff_sock" -H net/bpfilter/bpfilter_umh \
		-l /tmp/"$diff_tag".log -b) || { ok 1 "bpfilter-hostd starts"; tap_totals; exit 1; }
}

# The module passes HZ to its helper; here the kernel's config says it. 1 if unknown.
diff_hz()
{
	local hz

	hz=$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')
	[ -n "$hz" ] || hz=$(sed -n 's/^CONFIG_HZ=//p' /boot/config-"$(uname -r)" 2>/dev/null)
	export BPFILTER_HZ=$hz
	[ -n "$hz" ]
}

ipt()
{
	local side=$1 ns=$2

	shift 2
	if [ "$side" = H ]; then
		ip netns exec "$ns" env LD_PRELOAD="$diff_root/build/shim/bpfilter_shim.so" \
			BPFILTER_HOSTD="$diff_sock" "$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

diff_saves()
{
	ipt K "$1" iptables-legacy-save -c | grep '^\[' > "$diff_saveK"
	ipt H "$2" iptables-legacy-save -c | grep '^\[' > "$diff_saveH"
}

diff_pair()
{
	local s=$1 c=${diff_tag}c$1 v=${diff_tag}s$1

	shift
	ip netns add $c
	ip netns add $v
	diff_netns="$diff_netns $c $v"
	ip -n $c link set lo up
	ip -n $v link set lo up
	ip link add ${diff_tag}$s netns $c "$@" type veth peer name ${diff_tag}$s netns $v
	ip -n $c addr add 10.88.0.1/24 brd + dev ${diff_tag}$s
	ip -n $v addr add 10.88.0.2/24 brd + dev ${diff_tag}$s
	ip -n $c link set ${diff_tag}$s up
	ip -n $v link set ${diff_tag}$s up
}

diff_restore()
{
	local s

	nrules=$(grep -c '^-A' "$1")
	for s in K H; do
		ipt $s ${diff_tag}s$s iptables-legacy-restore "$1"
		ok $? "$s: restore $nrules $2 rules"
	done
}

diff_report()
{
	local hit

	diff_saves ${diff_tag}sK ${diff_tag}sH
	hit=$(grep -vc '^\[0:0\]' "$diff_saveK")
	echo "# $hit of $2 rules counted packets on the ip_tables side"
	diff_compare
	[ "$hit" -ge "$3" ]
	ok $? "the traffic reaches enough rules ($hit of $2, at least $3)"
	echo "$1: $2 rules, $mism mismatches"
}

diff_compare()
{
	mism=$(diff "$diff_saveK" "$diff_saveH" | grep -c '^>')
	diff "$diff_saveK" "$diff_saveH" | sed 's/^/# /'
	ok $((mism != 0)) "every rule's counters equal to ip_tables' ($mism differ)"
}
