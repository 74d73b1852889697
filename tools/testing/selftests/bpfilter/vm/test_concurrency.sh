#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Concurrency: several iptables -w processes change the same table at once
# and the result is consistent (every rule present once, the table parses);
# raw sockopts from several processes at once (no xtables lock) all get their
# exact answers.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
WORKERS=6
PER_WORKER=8
reset_table
check "-N a chain for the workers" 0 $IPT -N conc

worker()
{
	_i=0
	while [ $_i -lt $PER_WORKER ]; do
		if [ $(( _i % 2 )) -eq 0 ]; then
			$IPT -w -A INPUT -s "10.$1.$_i.1" -p tcp --dport $((1000 + _i)) -j ACCEPT || return 1
		else
			$IPT -w -I conc -s "10.$1.$_i.1" -j RETURN || return 1
		fi
		$IPT -w -S conc > /dev/null || return 1
		_i=$((_i + 1))
	done
}

w=1
while [ $w -le $WORKERS ]; do
	( worker $w; echo $? > "$TAP_DIR/conc.$w" ) &
	w=$((w + 1))
done
wait

bad=0
w=1
while [ $w -le $WORKERS ]; do
	[ "$(cat "$TAP_DIR/conc.$w" 2>/dev/null)" = 0 ] || bad=$((bad + 1))
	w=$((w + 1))
done
ok_if "$WORKERS concurrent iptables -w workers all succeeded" test $bad -eq 0

run $IPT -S
printf '%s\n' "$OUT" > "$TAP_DIR/conc.rules"
missing=0
w=1
while [ $w -le $WORKERS ]; do
	i=0
	while [ $i -lt $PER_WORKER ]; do
		if [ $(( i % 2 )) -eq 0 ]; then
			rule="-A INPUT -s 10.$w.$i.1/32 -p tcp -m tcp --dport $((1000 + i)) -j ACCEPT"
		else
			rule="-A conc -s 10.$w.$i.1/32 -j RETURN"
		fi
		[ "$(grep -cxF -- "$rule" "$TAP_DIR/conc.rules")" = 1 ] || missing=$((missing + 1))
		i=$((i + 1))
	done
	w=$((w + 1))
done
ok_if "every rule present exactly once" test $missing -eq 0
ok_if "no other rules" test "$(grep -c '^-A ' "$TAP_DIR/conc.rules")" -eq $((WORKERS * PER_WORKER))
check "the table saves and restores" 0 sh -c "$IPT_SAVE > $TAP_DIR/conc.save && $IPT_RESTORE --test < $TAP_DIR/conc.save && $IPT_RESTORE < $TAP_DIR/conc.save"
run $IPT -S
ok_if "restore reproduced the same table" test "$OUT" = "$(cat "$TAP_DIR/conc.rules")"

# Raw sockopts at once: 4 processes x 25 probes, no lock.
prober()
{
	_i=0
	while [ $_i -lt 25 ]; do
		"$BIN/ipt_probe" info match=tcp/0 match=tcp/1 replace-short || return 1
		_i=$((_i + 1))
	done
}
p=1
while [ $p -le 4 ]; do
	prober > "$TAP_DIR/probe.$p" 2>&1 &
	p=$((p + 1))
done
wait
bad=0
p=1
while [ $p -le 4 ]; do
	n=$(grep -c -e '^info: 0$' -e '^match=tcp/0: 0$' -e '^match=tcp/1: EPROTONOSUPPORT$' \
		-e '^replace-short: EINVAL$' "$TAP_DIR/probe.$p")
	[ "$n" = 100 ] || { bad=$((bad + 1)); diag "prober $p: $n good answers of 100"; head -n 8 "$TAP_DIR/probe.$p" | sed 's/^/# /'; }
	p=$((p + 1))
done
ok_if "4 concurrent sockopt probers got 100 exact answers each" test $bad -eq 0

reset_table
done_testing
