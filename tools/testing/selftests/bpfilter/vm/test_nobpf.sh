#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter on a kernel without BPF netfilter programs (Debian 6.1, NOBPF=1):
# bpfilter never accepts rules it cannot enforce. A REPLACE whose table would
# need BPF fails with EOPNOTSUPP (stock iptables' message for it) and a
# dmesg line saying why, and leaves the table and its counters as they were;
# a REPLACE whose table behaves as the initial accept-all one (policies
# ACCEPT, no rule in a built-in chain; user chains are unreachable) needs no
# BPF and succeeds. ip_tables' validation runs before the backend, so invalid
# tables still get ip_tables' errnos. Reads, namespaces, privileges, a
# killed helper and concurrent readers work as everywhere.
#
# Only run with NOBPF=1 (61-vm-6.1.sh sets it explicitly, never detected):
# on a kernel with BPF netfilter programs these mutations must succeed.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
if [ "$BACKEND" != bpfilter ] || [ -z "${NOBPF:-}" ]; then
	fail "test_nobpf.sh needs BACKEND=bpfilter NOBPF=1 (got $BACKEND '${NOBPF:-}')"
	done_testing
	exit 1
fi

save_c()
{
	$IPT_SAVE -c 2>&1 | grep -v '^#'
}
# enforce_lines: how many times bpfilter said in dmesg that it cannot
# enforce a table.
enforce_lines()
{
	dmesg | grep -c "bpfilter: .*cannot enforce table 'filter': this kernel has no BPF netfilter programs"
}
# eopnotsupp NAME CMD...: CMD fails exactly as stock iptables-legacy does
# when IPT_SO_SET_REPLACE returns EOPNOTSUPP.
eopnotsupp()
{
	_name=$1
	shift
	expect "$_name: EOPNOTSUPP" 1 "$@" <<'EOF'
iptables: Operation not supported.
EOF
}
# ratelimit_pause: bpfilter.ko passes the helper's log lines to dmesg with
# pr_info_ratelimited() (10 lines per 5 s; a refusal logs 2), so a refusal
# whose dmesg line is checked waits for a fresh window first.
ratelimit_pause()
{
	sleep 6
}
# eopnotsupp_logged NAME CMD...: as eopnotsupp, and bpfilter says why in
# dmesg.
eopnotsupp_logged()
{
	ratelimit_pause
	_d0=$(enforce_lines)
	eopnotsupp "$@"
	ok_if "$1: dmesg says why" test "$(enforce_lines)" -gt "$_d0"
}

ok_if "kernel $(uname -r) is older than 6.4" \
	sh -c 'v=$(uname -r); maj=${v%%.*}; min=${v#*.}; min=${min%%.*}; [ $maj -lt 6 ] || { [ $maj -eq 6 ] && [ $min -lt 4 ]; }'

# --- the initial table reads back; accept-all edits succeed ---------------
expect "initial table: -S" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
ok_if "/proc/net/ip_tables_names lists filter" grep -qx filter /proc/net/ip_tables_names
check "-P INPUT ACCEPT (no BPF needed)" 0 $IPT -P INPUT ACCEPT
check "-F of empty chains (no BPF needed)" 0 $IPT -F
check "-Z (no BPF needed)" 0 $IPT -Z
check "restore of the default table (no BPF needed)" 0 sh -c "printf '%s\n' '*filter' \
	':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]' 'COMMIT' | $IPT_RESTORE"
check "-N, -E, -X of a user chain (unreachable: no BPF needed)" 0 sh -c \
	"$IPT -N tmp && $IPT -E tmp tmp2 && $IPT -X tmp2"

# A table with counters and an unreachable user chain holding rules: still
# accept-all, so it is accepted and every read shows it.
check "restore -c: counters and an unreachable user chain" 0 sh -c "printf '%s\n' '*filter' \
	':INPUT ACCEPT [5:500]' ':FORWARD ACCEPT [6:600]' ':OUTPUT ACCEPT [7:700]' ':idle - [0:0]' \
	'[1:10] -A idle -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j DROP' \
	'[2:20] -A idle -i eth+ -j RETURN' 'COMMIT' | $IPT_RESTORE -c"
expect "-S" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N idle
-A idle -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j DROP
-A idle -i eth+ -j RETURN
EOF
expect "-v -S" 0 $IPT -v -S <<'EOF'
-P INPUT ACCEPT -c 5 500
-P FORWARD ACCEPT -c 6 600
-P OUTPUT ACCEPT -c 7 700
-N idle
-A idle -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -c 1 10 -j DROP
-A idle -i eth+ -c 2 20 -j RETURN
EOF
expect "-L -n -v" 0 $IPT -L -n -v <<'EOF'
Chain INPUT (policy ACCEPT 5 packets, 500 bytes)
 pkts bytes target     prot opt in     out     source               destination         

Chain FORWARD (policy ACCEPT 6 packets, 600 bytes)
 pkts bytes target     prot opt in     out     source               destination         

Chain OUTPUT (policy ACCEPT 7 packets, 700 bytes)
 pkts bytes target     prot opt in     out     source               destination         

Chain idle (0 references)
 pkts bytes target     prot opt in     out     source               destination         
    1    10 DROP       6    --  *      *       10.0.0.0/8           0.0.0.0/0            tcp dpt:22
    2    20 RETURN     0    --  eth+   *       0.0.0.0/0            0.0.0.0/0           
EOF
expect "-L idle -n --line-numbers" 0 $IPT -L idle -n --line-numbers <<'EOF'
Chain idle (0 references)
num  target     prot opt source               destination         
1    DROP       6    --  10.0.0.0/8           0.0.0.0/0            tcp dpt:22
2    RETURN     0    --  0.0.0.0/0            0.0.0.0/0           
EOF
expect "iptables-legacy-save -c" 0 save_c <<'EOF'
*filter
:INPUT ACCEPT [5:500]
:FORWARD ACCEPT [6:600]
:OUTPUT ACCEPT [7:700]
:idle - [0:0]
[1:10] -A idle -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j DROP
[2:20] -A idle -i eth+ -j RETURN
COMMIT
EOF
check "-A to the unreachable user chain (no BPF needed)" 0 $IPT -A idle -s 192.0.2.9 -j DROP
check "-D it by number" 0 $IPT -D idle 3
check "-C finds a rule" 0 $IPT -C idle -i eth+ -j RETURN
before=$(save_c)
printf '%s\n' "$before" > "$TAP_DIR/nobpf.before"

# --- mutations that need BPF: refused, nothing changes ---------------------
eopnotsupp_logged "-A INPUT DROP" $IPT -A INPUT -s 192.0.2.1 -j DROP
eopnotsupp "-I OUTPUT tcp ACCEPT" $IPT -I OUTPUT -p tcp --dport 80 -j ACCEPT
eopnotsupp "-A INPUT unconditional ACCEPT" $IPT -A INPUT -j ACCEPT
eopnotsupp "-A FORWARD jump to the user chain" $IPT -A FORWARD -j idle
eopnotsupp_logged "-P INPUT DROP" $IPT -P INPUT DROP
eopnotsupp "-P FORWARD DROP with -w" $IPT -w -P FORWARD DROP
# The stateful extensions need BPF and bpfilter_kfunc's kfuncs: refused too.
eopnotsupp "-A INPUT -m conntrack --ctstate ESTABLISHED" \
	$IPT -A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
eopnotsupp "-A INPUT -m state --state NEW" $IPT -A INPUT -m state --state NEW -j ACCEPT
eopnotsupp "-A INPUT -m limit" $IPT -A INPUT -p icmp -m limit --limit 1/s -j ACCEPT
eopnotsupp "-A INPUT -j REJECT tcp-reset" $IPT -A INPUT -p tcp -j REJECT --reject-with tcp-reset
eopnotsupp "-A INPUT -j REJECT" $IPT -A INPUT -j REJECT
eopnotsupp "-A INPUT -j LOG" $IPT -A INPUT -j LOG --log-prefix "nobpf: "
eopnotsupp "-A OUTPUT -j NFLOG" $IPT -A OUTPUT -j NFLOG --nflog-group 3
eopnotsupp "-A INPUT -m addrtype" $IPT -A INPUT -m addrtype --dst-type BROADCAST -j DROP
eopnotsupp "-A OUTPUT -m owner" $IPT -A OUTPUT -m owner --uid-owner 0 -j ACCEPT
eopnotsupp "-A INPUT -m hashlimit" $IPT -A INPUT -m hashlimit --hashlimit-upto 5/sec --hashlimit-name nobpf -j ACCEPT
eopnotsupp "-A INPUT -m string" $IPT -A INPUT -m string --string nobpf --algo bm -j DROP
eopnotsupp "-A INPUT -m recent --set" $IPT -A INPUT -m recent --set --name nobpf
ok_if "the refused table's recent list is let go" test ! -e /proc/net/xt_recent/nobpf
ratelimit_pause
_d0=$(enforce_lines)
expect "restore of a table with a rule: EOPNOTSUPP" 1 sh -c "printf '%s\n' '*filter' \
	':INPUT ACCEPT [0:0]' '-A INPUT -p icmp -j DROP' 'COMMIT' | $IPT_RESTORE" <<'EOF'
iptables-restore: line 4 failed
EOF
ok_if "restore: dmesg says why" test "$(enforce_lines)" -gt "$_d0"
expect "restore --noflush adding to INPUT: EOPNOTSUPP" 1 sh -c "printf '%s\n' '*filter' \
	'-A INPUT -p udp --dport 53 -j ACCEPT' 'COMMIT' | $IPT_RESTORE --noflush" <<'EOF'
iptables-restore: line 3 failed
EOF
ok_if "rules and counters unchanged after the refused mutations" test "$(save_c)" = "$before"
run dmesg
diag "$(printf '%s\n' "$OUT" | grep 'bpfilter:' | tail -n 3)"

# --- validation comes before the backend: ip_tables' own errors ------------
check "setup: an unreachable loop a -> b -> a (allowed)" 0 sh -c \
	"$IPT -N a && $IPT -N b && $IPT -A a -j b && $IPT -A b -j a"
expect "jump into the loop from INPUT: ELOOP, not EOPNOTSUPP" 1 klog $IPT -A INPUT -j a <<'EOF'
iptables: Too many levels of symbolic links.
EOF
expect "-m tcp without -p tcp: EINVAL, not EOPNOTSUPP" 1 klog $IPT -A INPUT -m tcp --dport 22 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: tcp match: only valid for protocol 6
EOF
expect "-m udp with -p tcp: EINVAL" 1 klog $IPT -A INPUT -p tcp -m udp --dport 53 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: udp match: only valid for protocol 17
EOF
expect "jump to a missing chain" 2 $IPT -A INPUT -j nochain <<'EOF'
iptables @IPT_VERSION@ (legacy): Couldn't load target `nochain':No such file or directory

Try `iptables -h' or 'iptables --help' for more information.
EOF
expect "unknown match" 2 $IPT -A INPUT -m nosuchmatch -j ACCEPT <<'EOF'
iptables @IPT_VERSION@ (legacy): Couldn't load match `nosuchmatch':No such file or directory

Try `iptables -h' or 'iptables --help' for more information.
EOF
expect "delete a chain in use" 1 $IPT -X a <<'EOF'
iptables: Too many links.
EOF
expect "sockopt errnos" 0 "$BIN/ipt_probe" info info=nosuch replace-short match=tcp/0 match=tcp/1 match=nosuch/0 <<'EOF'
info: 0
info=nosuch: ENOENT
replace-short: EINVAL
match=tcp/0: 0
match=tcp/1: EPROTONOSUPPORT
match=nosuch/0: ENOENT
EOF
check "undo the loop" 0 sh -c "$IPT -F a && $IPT -F b && $IPT -X a && $IPT -X b"
ok_if "table unchanged after the validation errors" test "$(save_c)" = "$before"

# --- unprivileged callers: EPERM as ip_tables -------------------------------
expect "socket opened as root, sockopts after dropping to nobody" 0 "$BIN/ipt_probe" -u 65534 info replace-short <<'EOF'
info: EPERM
replace-short: EPERM
EOF
export XTABLES_LOCKFILE="$TAP_DIR/xtables.lock"
: > "$XTABLES_LOCKFILE"
chmod 666 "$XTABLES_LOCKFILE"
expect "unprivileged iptables -S" 3 "$BIN/dropuid" -r 65534 $IPT -S <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `filter': Permission denied (you must be root)
Perhaps iptables or your kernel needs to be upgraded.
EOF
expect "unprivileged iptables -P INPUT ACCEPT" 3 "$BIN/dropuid" -r 65534 $IPT -P INPUT ACCEPT <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `filter': Permission denied (you must be root)
Perhaps iptables or your kernel needs to be upgraded.
EOF
unset XTABLES_LOCKFILE
expect "userns root in its own netns: reads, -N works, -A INPUT refused" 1 unshare -U -r -n sh -c \
	"$IPT -N mine && $IPT -S && $IPT -A INPUT -j mine" <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N mine
iptables: Operation not supported.
EOF

# --- two namespaces: readable, independent, released on deletion ----------
check "$IP netns add nb1, nb2" 0 sh -c "$IP netns add nb1 && $IP netns add nb2"
N1="$IP netns exec nb1"
N2="$IP netns exec nb2"
expect "nb1 reads the initial table" 0 $N1 $IPT -L -n <<'EOF'
Chain INPUT (policy ACCEPT)
target     prot opt source               destination         

Chain FORWARD (policy ACCEPT)
target     prot opt source               destination         

Chain OUTPUT (policy ACCEPT)
target     prot opt source               destination         
EOF
# x_tables makes a namespace's tables on their first use; so does bpfilter.
ok_if "nb2 lists no table before its first use" \
	sh -c "! $N2 grep -q . /proc/net/ip_tables_names"
check "nb1: -N only1" 0 $N1 $IPT -N only1
eopnotsupp_logged "nb2: -A OUTPUT" $N2 $IPT -A OUTPUT -j DROP
ok_if "nb2 lists filter after its first use" $N2 grep -qx filter /proc/net/ip_tables_names
expect "nb1 has its chain" 0 $N1 $IPT_SAVE <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:only1 - [0:0]
COMMIT
EOF
expect "nb2 is independent" 0 $N2 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
ok_if "the initial netns is independent" test "$(save_c)" = "$before"
ino1=$(stat -L -c %i /run/netns/nb1)
state_file()
{
	_h=$(helper_pids | head -n1)
	[ -n "$_h" ] && [ -e "/proc/$_h/fd/4/$1.filter" ]
}
no_state_file()
{
	! state_file "$1"
}
ok_if "helper holds nb1's table" state_file "$ino1"
diag "state dir: $(ls "/proc/$(helper_pids | head -n1)/fd/4/" 2>&1 | tr '\n' ' ')"
check "$IP netns del nb1" 0 $IP netns del nb1
ok_if "deleting nb1 releases its table in the helper" wait_for no_state_file "$ino1"
diag "state dir: $(ls "/proc/$(helper_pids | head -n1)/fd/4/" 2>&1 | tr '\n' ' ')"
check "$IP netns del nb2" 0 $IP netns del nb2

# --- kill -9 of the helper --------------------------------------------------
gone()
{
	[ ! -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
pid1=$(helper_pids | head -n1)
ok_if "a helper is running" test -n "$pid1"
check "kill -9 the helper" 0 kill -9 "$pid1"
ok_if "the helper is gone" wait_for gone "$pid1"
check "the next command works" 0 $IPT -S
ok_if "same rules and counters after the crash" test "$(save_c)" = "$before"
pid2=$(helper_pids | head -n1)
ok_if "a new helper runs" test -n "$pid2" -a "$pid2" != "$pid1"
eopnotsupp_logged "the new helper refuses too" $IPT -A INPUT -j DROP

# --- concurrent readers (and refused writers) ------------------------------
READERS=6
ROUNDS=10
$IPT -v -S > "$TAP_DIR/nobpf.vS"
reader()
{
	_i=0
	while [ $_i -lt $ROUNDS ]; do
		[ "$($IPT -w -v -S 2>&1)" = "$(cat "$TAP_DIR/nobpf.vS")" ] || return 1
		$IPT -w -L -n -v > /dev/null || return 2
		$IPT_SAVE -c > /dev/null || return 3
		_i=$((_i + 1))
	done
}
writer()
{
	_i=0
	while [ $_i -lt $ROUNDS ]; do
		# Refused, every time, with EOPNOTSUPP's exit code.
		$IPT -w -A INPUT -s "10.$1.$_i.1" -j DROP > /dev/null 2>&1
		[ $? -eq 1 ] || return 1
		_i=$((_i + 1))
	done
}
w=1
while [ $w -le $READERS ]; do
	( reader; echo $? > "$TAP_DIR/nobpf.r$w" ) &
	w=$((w + 1))
done
( writer 1; echo $? > "$TAP_DIR/nobpf.w1" ) &
( writer 2; echo $? > "$TAP_DIR/nobpf.w2" ) &
wait
bad=0
for f in "$TAP_DIR"/nobpf.r* "$TAP_DIR"/nobpf.w*; do
	[ "$(cat "$f")" = 0 ] || { bad=$((bad + 1)); diag "$f: $(cat "$f")"; }
done
ok_if "$READERS concurrent readers saw the same table, 2 writers refused" test $bad -eq 0
ok_if "table unchanged after the concurrent run" test "$(save_c)" = "$before"

# --- what needs no BPF still changes the table -----------------------------
check "-Z" 0 $IPT -Z
check "-F, -X" 0 sh -c "$IPT -F && $IPT -X"
expect "back to the initial table, zero counters" 0 save_c <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
EOF

# --- IPv6: the same rules for ip6tables-legacy -----------------------------
expect "ip6tables-legacy -S: the initial table" 0 ip6tables-legacy -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
ok_if "/proc/net/ip6_tables_names lists filter" grep -qx filter /proc/net/ip6_tables_names
expect "ip6tables-legacy -A tcp DROP: EOPNOTSUPP" 1 \
	ip6tables-legacy -A INPUT -p tcp --dport 22 -j DROP <<'EOF'
ip6tables: Operation not supported.
EOF
expect "ip6tables-legacy -P INPUT DROP: EOPNOTSUPP" 1 ip6tables-legacy -P INPUT DROP <<'EOF'
ip6tables: Operation not supported.
EOF
check "ip6tables-legacy -N: an unreachable user chain needs no BPF" 0 ip6tables-legacy -N idle6
check "ip6tables-legacy -X" 0 ip6tables-legacy -X idle6
expect "the IPv6 table is the initial one" 0 ip6tables-legacy -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF

done_testing
