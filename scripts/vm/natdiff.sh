#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# natdiff.sh CONTROL_LOG BPFILTER_LOG: the differential NAT test's verdict.
# test_nat_diff.sh prints, in each boot, a "# natdiff SEED ..." record per
# random nat table: restore's answer, the flows sent, R's conntrack tuples
# and iptables-legacy-save -c's dump. Here the two boots' records are
# compared seed by seed: one TAP result per seed, the differences of a
# failed one, and a "# Totals:" line for check.sh. Seeds missing from
# either boot fail, and so does a pair of logs without any.
set -u
a=${1:?usage: natdiff.sh CONTROL_LOG BPFILTER_LOG}
b=${2:?usage: natdiff.sh CONTROL_LOG BPFILTER_LOG}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$a" "$b"; do
	[ -f "$f" ] || { echo "# natdiff: no $f"; echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"; exit 1; }
done
# Seeds are numbers (IPv4's tables) and v6-N (IPv6's).
seeds() { sed -n 's/^# natdiff \([0-9a-z-]*\) .*/\1/p' "$1" | sort -Vu; }
seeds "$a" > "$tmp/a.seeds"
seeds "$b" > "$tmp/b.seeds"
pass=0
fail=0
n=0
result()
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		pass=$((pass + 1))
		echo "ok $n - natdiff: $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - natdiff: $2"
	fi
}

if [ ! -s "$tmp/a.seeds" ] || [ ! -s "$tmp/b.seeds" ]; then
	result fail "both boots recorded seeds ($(wc -l < "$tmp/a.seeds") and $(wc -l < "$tmp/b.seeds"))"
fi
for s in $(sort -Vu "$tmp/a.seeds" "$tmp/b.seeds"); do
	grep "^# natdiff $s " "$a" > "$tmp/a"
	grep "^# natdiff $s " "$b" > "$tmp/b"
	if ! grep -qx "$s" "$tmp/a.seeds" || ! grep -qx "$s" "$tmp/b.seeds"; then
		result fail "seed $s: recorded by one boot only"
	elif cmp -s "$tmp/a" "$tmp/b"; then
		result ok "seed $s: bpfilter's translations, conntrack tuples and counters are ip_tables'"
	else
		result fail "seed $s: bpfilter differs from ip_tables (- ip_tables, + bpfilter)"
		diff -u "$tmp/a" "$tmp/b" | tail -n +3 | grep '^[-+]' | head -n 40 | sed 's/^/#   /'
	fi
done
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
