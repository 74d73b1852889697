#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Budgets of unprivileged users' namespaces (module parameters
# userns_max_netns, userns_max_entries): uid 65534 fills user+network
# namespaces with tables until refused with ENOMEM; a table over the rule
# budget is refused and the one in force stays; root's tables, in the init
# namespace and in namespaces root made, still work; a namespace that goes
# away gives its share back. ip_tables (the control) has no such budget:
# there the same user gets every namespace (its limit is the memory cgroup).
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
P=/sys/module/bpfilter/parameters
N=4
TRIES=6

if [ "$BACKEND" = bpfilter ]; then
	old_netns=$(cat $P/userns_max_netns)
	old_entries=$(cat $P/userns_max_entries)
	echo $N > $P/userns_max_netns
	echo 40 > $P/userns_max_entries
fi

# holder I: as uid 65534, a user and network namespace whose table gets one
# rule; the result goes to lim.I, then the namespace stays until killed.
holder()
{
	"$BIN/dropuid" 65534 unshare -U -r -n sh -c "export XTABLES_LOCKFILE=/tmp/xtables.lim.$1; \
		$IPT -A INPUT -s 10.$1.0.0/16 -j DROP > /tmp/lim.$1.out 2>&1; echo \$? > /tmp/lim.$1; \
		exec sleep 120" &
}

rm -f /tmp/lim.*
i=1
pids=
while [ $i -le $TRIES ]; do
	holder $i
	pids="$pids $!"
	WAIT_S=30 wait_for test -s /tmp/lim.$i
	i=$((i + 1))
done
ok=0
refused=0
i=1
while [ $i -le $TRIES ]; do
	case "$(cat /tmp/lim.$i 2>/dev/null)" in
	0) ok=$((ok + 1)) ;;
	*) grep -q "Memory allocation problem" /tmp/lim.$i.out && refused=$((refused + 1)) ;;
	esac
	i=$((i + 1))
done
diag "uid 65534: $ok namespaces with a rule, $refused refused"
[ $refused -gt 0 ] && diag "$(cat /tmp/lim.$TRIES.out)"
if [ "$BACKEND" = bpfilter ]; then
	ok_if "uid 65534 gets $N namespaces with tables" test $ok = $N
	ok_if "... and ENOMEM (\"Memory allocation problem\") past them" test $refused = $((TRIES - N))
	ok_if "the helper is still running" test -n "$(helper_pids)"
else
	ok_if "uid 65534 gets all $TRIES namespaces" test $ok = $TRIES
fi

reset_table
check "root: a rule in the init namespace" 0 $IPT -A INPUT -s 192.0.2.1 -j DROP
$IP netns add limroot
check "root: a rule in a namespace root made" 0 $IP netns exec limroot $IPT -A INPUT -s 192.0.2.2 -j DROP
expect "root: its table" 0 $IP netns exec limroot $IPT -S INPUT <<'EOF2'
-P INPUT ACCEPT
-A INPUT -s 192.0.2.2/32 -j DROP
EOF2
$IP netns del limroot

# The holders' namespaces go away: their share comes back.
kill $pids 2>/dev/null
for p in $pids; do
	kill -9 $p 2>/dev/null
done
for s in /proc/[0-9]*; do
	[ "$(cat $s/comm 2>/dev/null)" = sleep ] && kill -9 "${s#/proc/}" 2>/dev/null
done
sleep 2
check "uid 65534: a namespace again once the others are gone" 0 "$BIN/dropuid" 65534 \
	unshare -U -r -n sh -c "export XTABLES_LOCKFILE=/tmp/xtables.lim.z; $IPT -A INPUT -j ACCEPT"

# The rule budget (40): a 50-rule table is refused, the one in force stays.
awk 'BEGIN { print "*filter"; for (i = 0; i < 50; i++) printf "-A INPUT -s 10.1.1.%d/32 -j DROP\n", i + 1; print "COMMIT" }' > /tmp/lim.rules
run "$BIN/dropuid" 65534 unshare -U -r -n sh -c "export XTABLES_LOCKFILE=/tmp/xtables.lim.r; \
	$IPT -A INPUT -j ACCEPT; $IPT_RESTORE < /tmp/lim.rules; echo restore=\$?; $IPT -S INPUT"
diag "$(printf '%s\n' "$OUT" | head -n 5)"
if [ "$BACKEND" = bpfilter ]; then
	ok_if "uid 65534: a 50-rule table over the rule budget is refused" \
		test -n "$(printf '%s\n' "$OUT" | grep '^restore=[1-9]')"
	ok_if "... and the table in force stays" test "$(printf '%s\n' "$OUT" | grep -c '^-A INPUT')" = 1
else
	ok_if "uid 65534: a 50-rule table" test "$(printf '%s\n' "$OUT" | grep -c '^-A INPUT')" = 50
fi

if [ "$BACKEND" = bpfilter ]; then
	echo "$old_netns" > $P/userns_max_netns
	echo "$old_entries" > $P/userns_max_entries
fi
reset_table
done_testing
