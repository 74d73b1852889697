#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Error paths: each command must fail with the message and exit code stock
# ip_tables gives (recorded against it), and leave the table as it was.
. "$(dirname "$0")/lib.sh"

reset_table
check "setup: user chains a, b and c" 0 sh -c "$IPT -N a && $IPT -N b && $IPT -N c && $IPT -A INPUT -s 10.9.9.9 -j a"
$IPT -S > "$TAP_DIR/errors.before"

expect "jump to a missing chain" 2 $IPT -A INPUT -j nochain <<'EOF'
iptables @IPT_VERSION@ (legacy): Couldn't load target `nochain':No such file or directory

Try `iptables -h' or 'iptables --help' for more information.
EOF
check "loop a -> b, unreachable: allowed" 0 $IPT -A a -j b
expect "loop b -> a reachable from INPUT" 1 $IPT -A b -j a <<'EOF'
iptables: Too many levels of symbolic links.
EOF
expect "loop through a goto" 1 $IPT -A b -g a <<'EOF'
iptables: Too many levels of symbolic links.
EOF
expect "self jump" 1 $IPT -A a -j a <<'EOF'
iptables: Too many levels of symbolic links.
EOF
check "undo a -> b" 0 $IPT -F a
expect "-m tcp without -p tcp" 1 klog $IPT -A INPUT -m tcp --dport 22 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: tcp match: only valid for protocol 6
EOF
expect "-m tcp with ! -p tcp" 1 klog $IPT -A INPUT ! -p tcp -m tcp --dport 22 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: tcp match: only valid for protocol 6
EOF
expect "-m udp with -p tcp" 1 klog $IPT -A INPUT -p tcp -m udp --dport 53 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: udp match: only valid for protocol 17
EOF
expect "-m icmp with -p udp" 1 klog $IPT -A INPUT -p udp -m icmp --icmp-type 8 -j ACCEPT <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: icmp match: only valid for protocol 1
EOF
expect "REJECT --reject-with tcp-reset with -p udp" 1 \
	klog $IPT -A INPUT -p udp -j REJECT --reject-with tcp-reset <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
ipt_REJECT: TCP_RESET invalid for non-tcp
EOF
expect "-m ecn --ecn-tcp-cwr with -p udp" 1 klog $IPT -A INPUT -p udp -m ecn --ecn-tcp-cwr <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
xt_ecn: cannot match TCP bits for non-tcp packets
EOF
expect "-m limit whose credits overflow: ERANGE" 1 \
	klog $IPT -A INPUT -m limit --limit 1/day --limit-burst 10000 <<'EOF'
iptables: Numerical result out of range.
xt_limit: Overflow, try lower: 864000000/10000
EOF
# x_tables names every hook a rule is reached from, in hook order.
check "setup: c reached from OUTPUT and INPUT" 0 sh -c "$IPT -A OUTPUT -j c && $IPT -A INPUT -j c"
expect "owner in a chain reached from INPUT and OUTPUT" 1 klog $IPT -A c -m owner --uid-owner 0 <<'EOF'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: owner match: used from hooks INPUT/OUTPUT, but only valid from OUTPUT/POSTROUTING
EOF
check "undo the jumps to c" 0 sh -c "$IPT -D OUTPUT -j c && $IPT -D INPUT -j c"
expect "unknown match" 2 $IPT -A INPUT -m nosuchmatch -j ACCEPT <<'EOF'
iptables @IPT_VERSION@ (legacy): Couldn't load match `nosuchmatch':No such file or directory

Try `iptables -h' or 'iptables --help' for more information.
EOF
expect "unknown target" 2 $IPT -A INPUT -j NOSUCHTARGET <<'EOF'
iptables @IPT_VERSION@ (legacy): Couldn't load target `NOSUCHTARGET':No such file or directory

Try `iptables -h' or 'iptables --help' for more information.
EOF
expect "delete a chain in use" 1 $IPT -X a <<'EOF'
iptables: Too many links.
EOF
expect "create an existing chain" 1 $IPT -N b <<'EOF'
iptables: Chain already exists.
EOF
expect "delete a missing chain" 1 $IPT -X nochain <<'EOF'
iptables: No chain/target/match by that name.
EOF
expect "rename to an existing name" 1 $IPT -E b c <<'EOF'
iptables: File exists.
EOF
expect "rename a missing chain" 1 $IPT -E nochain d <<'EOF'
iptables: No chain/target/match by that name.
EOF
expect "policy on a user chain" 1 $IPT -P a DROP <<'EOF'
iptables: Bad built-in chain name.
EOF
expect "list a missing chain" 1 $IPT -L nochain <<'EOF'
iptables: No chain/target/match by that name.
EOF
expect "insert past the end" 1 $IPT -I INPUT 5 -j ACCEPT <<'EOF'
iptables: Index of insertion too big.
EOF
expect "replace a missing rule number" 1 $IPT -R INPUT 3 -j ACCEPT <<'EOF'
iptables: Index of replacement too big.
EOF
expect "a table that does not exist" 3 $IPT -t nosuch -S <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `nosuch': Table does not exist (do you need to insmod?)
Perhaps iptables or your kernel needs to be upgraded.
EOF

run $IPT -S
printf '%s\n' "$OUT" > "$TAP_DIR/errors.after"
ok_if "failed commands left the table unchanged" cmp -s "$TAP_DIR/errors.before" "$TAP_DIR/errors.after"

done_testing
