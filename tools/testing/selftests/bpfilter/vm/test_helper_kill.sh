#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The helper dies (kill -9) or hangs (SIGSTOP): the next command works, and
# the rules and their counters are still there (bpfilter only).
. "$(dirname "$0")/lib.sh"

if ! need_bpfilter "helper crash survival"; then
	done_testing
	exit 0
fi

gone()
{
	[ ! -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
save_c()
{
	$IPT_SAVE -c 2>&1 | grep -v '^#'
}

reset_table
check "restore -c a table with counters" 0 sh -c "printf '%s\n' '*filter' ':INPUT DROP [5:500]' ':kept - [0:0]' \
	'[1:10] -A INPUT -i lo -j ACCEPT' '[2:20] -A INPUT -p tcp --dport 22 -j kept' '[3:30] -A kept -s 10.0.0.0/8 -j ACCEPT' \
	'COMMIT' | $IPT_RESTORE -c"
before=$(save_c)

pid1=$(helper_pids | head -n1)
ok_if "a helper is running" test -n "$pid1"
check "kill -9 the helper" 0 kill -9 "$pid1"
ok_if "the helper is gone" wait_for gone "$pid1"
check "the next command works" 0 $IPT -S
ok_if "same rules and counters after the crash" test "$(save_c)" = "$before"
pid2=$(helper_pids | head -n1)
ok_if "a new helper runs" test -n "$pid2" -a "$pid2" != "$pid1"

n=1
while [ $n -le 3 ]; do
	p=$(helper_pids | head -n1)
	kill -9 "$p" 2>/dev/null
	wait_for gone "$p"
	check "command after kill #$((n + 1))" 0 $IPT -A kept -s 192.0.2.$n -j DROP
	n=$((n + 1))
done
expect "rules added between kills are kept" 0 $IPT -S kept <<'EOF'
-N kept
-A kept -s 10.0.0.0/8 -j ACCEPT
-A kept -s 192.0.2.1/32 -j DROP
-A kept -s 192.0.2.2/32 -j DROP
-A kept -s 192.0.2.3/32 -j DROP
EOF
check "undo those rules" 0 sh -c "$IPT -D kept 4 && $IPT -D kept 3 && $IPT -D kept 2"
# Stock ip_tables gives the same: rule counters are carried over, and so
# are the policy's from iptables 1.8.10 on; 1.8.9's libiptc zeroes it when
# it rewrites the table (both checked against stock ip_tables).
case "$IPT_VERSION" in
v1.8.[0-9]) policy='[0:0]' ;;
*) policy='[5:500]' ;;
esac
expect "counters as stock ip_tables keeps them" 0 save_c <<EOF
*filter
:INPUT DROP $policy
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:kept - [0:0]
[1:10] -A INPUT -i lo -j ACCEPT
[2:20] -A INPUT -p tcp -m tcp --dport 22 -j kept
[3:30] -A kept -s 10.0.0.0/8 -j ACCEPT
COMMIT
EOF
before=$(save_c)

# A helper that stops answering: the caller gets ETIMEDOUT within the bound
# (the module's timeout_ms, lowered here), the helper is replaced, and the
# next call works on the same table. iptables itself retries a failed first
# call once, so a hang costs it one timeout and no error.
BIN=$(dirname "$0")
param=/sys/module/bpfilter/parameters/timeout_ms
if [ -w "$param" ]; then
	old=$(cat "$param")
	echo 3000 > "$param"
	p=$(helper_pids | head -n1)
	kill -STOP "$p"
	t0=$(date +%s)
	expect "a sockopt to a stopped helper times out" 0 "$BIN/ipt_probe" info <<'EOF'
info: ETIMEDOUT
EOF
	t1=$(date +%s)
	ok_if "... within the bound (<= 20 s, took $((t1 - t0)) s)" test $((t1 - t0)) -le 20
	ok_if "the stopped helper was killed" wait_for gone "$p"
	expect "the next sockopt works" 0 "$BIN/ipt_probe" info <<'EOF'
info: 0
EOF
	ok_if "same rules and counters after the hang" test "$(save_c)" = "$before"
	p=$(helper_pids | head -n1)
	kill -STOP "$p"
	check "iptables -S through a hang (it retries once)" 0 $IPT -S
	ok_if "same rules and counters after the second hang" test "$(save_c)" = "$before"
	echo "$old" > "$param"
else
	fail "module parameter timeout_ms is writable"
fi

reset_table
done_testing
