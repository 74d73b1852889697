#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# iptables-legacy-save / iptables-legacy-restore round trips, with and
# without -c (counters), --noflush, and a failing restore that must leave the
# table untouched. Outputs recorded against stock ip_tables.
. "$(dirname "$0")/lib.sh"

reset_table

rules=$TAP_DIR/rules.v4
cat > "$rules" <<'EOF'
*filter
:INPUT DROP [11:1100]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [22:2200]
:chain-a - [0:0]
:chain-b - [0:0]
[1:60] -A INPUT -i lo -j ACCEPT
[2:120] -A INPUT -p tcp -m tcp --dport 22 -j chain-a
[3:180] -A INPUT -s 10.0.0.0/8 ! -p udp -j chain-b
[4:240] -A INPUT -p icmp -m icmp --icmp-type 0 -j ACCEPT
[5:300] -A chain-a ! -s 192.168.0.0/16 -p tcp -m tcp --sport 1024:65535 --tcp-flags SYN,ACK SYN -j ACCEPT
[6:360] -A chain-a -j RETURN
[7:420] -A chain-b -p udp -m udp --dport 53 -j ACCEPT
[8:480] -A chain-b -g chain-a
COMMIT
EOF

check "restore -c" 0 $IPT_RESTORE -c "$rules"
expect "save -c shows the restored counters" 0 $IPT_SAVE -c <<'EOF'
*filter
:INPUT DROP [11:1100]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [22:2200]
:chain-a - [0:0]
:chain-b - [0:0]
[1:60] -A INPUT -i lo -j ACCEPT
[2:120] -A INPUT -p tcp -m tcp --dport 22 -j chain-a
[3:180] -A INPUT -s 10.0.0.0/8 ! -p udp -j chain-b
[4:240] -A INPUT -p icmp -m icmp --icmp-type 0 -j ACCEPT
[5:300] -A chain-a ! -s 192.168.0.0/16 -p tcp -m tcp --sport 1024:65535 --tcp-flags SYN,ACK SYN -j ACCEPT
[6:360] -A chain-a -j RETURN
[7:420] -A chain-b -p udp -m udp --dport 53 -j ACCEPT
[8:480] -A chain-b -g chain-a
COMMIT
EOF
expect "save without -c" 0 $IPT_SAVE <<'EOF'
*filter
:INPUT DROP [11:1100]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [22:2200]
:chain-a - [0:0]
:chain-b - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j chain-a
-A INPUT -s 10.0.0.0/8 ! -p udp -j chain-b
-A INPUT -p icmp -m icmp --icmp-type 0 -j ACCEPT
-A chain-a ! -s 192.168.0.0/16 -p tcp -m tcp --sport 1024:65535 --tcp-flags SYN,ACK SYN -j ACCEPT
-A chain-a -j RETURN
-A chain-b -p udp -m udp --dport 53 -j ACCEPT
-A chain-b -g chain-a
COMMIT
EOF
expect "save -t filter" 0 $IPT_SAVE -t filter <<'EOF'
*filter
:INPUT DROP [11:1100]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [22:2200]
:chain-a - [0:0]
:chain-b - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j chain-a
-A INPUT -s 10.0.0.0/8 ! -p udp -j chain-b
-A INPUT -p icmp -m icmp --icmp-type 0 -j ACCEPT
-A chain-a ! -s 192.168.0.0/16 -p tcp -m tcp --sport 1024:65535 --tcp-flags SYN,ACK SYN -j ACCEPT
-A chain-a -j RETURN
-A chain-b -p udp -m udp --dport 53 -j ACCEPT
-A chain-b -g chain-a
COMMIT
EOF

$IPT_SAVE -c > "$TAP_DIR/saved.c" 2>&1
check "flush before round trip" 0 $IPT -F
check "restore -c of save -c output" 0 $IPT_RESTORE -c "$TAP_DIR/saved.c"
run $IPT_SAVE -c
printf '%s\n' "$OUT" | grep -v '^#' > "$TAP_DIR/saved2.c"
grep -v '^#' "$TAP_DIR/saved.c" > "$TAP_DIR/saved1.c"
ok_if "save -c | restore -c | save -c is identical" cmp -s "$TAP_DIR/saved1.c" "$TAP_DIR/saved2.c"

check "restore without -c" 0 $IPT_RESTORE "$rules"
expect "restore without -c zeroes counters" 0 $IPT_SAVE -c <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:chain-a - [0:0]
:chain-b - [0:0]
[0:0] -A INPUT -i lo -j ACCEPT
[0:0] -A INPUT -p tcp -m tcp --dport 22 -j chain-a
[0:0] -A INPUT -s 10.0.0.0/8 ! -p udp -j chain-b
[0:0] -A INPUT -p icmp -m icmp --icmp-type 0 -j ACCEPT
[0:0] -A chain-a ! -s 192.168.0.0/16 -p tcp -m tcp --sport 1024:65535 --tcp-flags SYN,ACK SYN -j ACCEPT
[0:0] -A chain-a -j RETURN
[0:0] -A chain-b -p udp -m udp --dport 53 -j ACCEPT
[0:0] -A chain-b -g chain-a
COMMIT
EOF

check "restore --noflush appends" 0 sh -c "printf '*filter\n-A OUTPUT -d 203.0.113.9 -j DROP\n-N chain-c\nCOMMIT\n' | $IPT_RESTORE --noflush"
expect "-S OUTPUT after --noflush" 0 $IPT -S OUTPUT <<'EOF'
-P OUTPUT ACCEPT
-A OUTPUT -d 203.0.113.9/32 -j DROP
EOF

$IPT_SAVE 2>&1 | grep -v '^#' > "$TAP_DIR/before-bad"
expect "restore with an unknown target fails" 2 sh -c "printf '*filter\n-F\n-A INPUT -j ACCEPT\n-A INPUT -j no-such-chain\nCOMMIT\n' | $IPT_RESTORE" <<'EOF'
iptables-restore @IPT_VERSION@ (legacy): Couldn't load target `no-such-chain':No such file or directory

Error occurred at line: 4
Try `iptables-restore -h' or 'iptables-restore --help' for more information.
EOF
expect "restore with a chain loop fails at commit" 1 sh -c "printf '*filter\n-F\n-N x\n-A x -j x\n-A INPUT -j x\nCOMMIT\n' | $IPT_RESTORE" <<'EOF'
iptables-restore: line 6 failed
EOF
$IPT_SAVE 2>&1 | grep -v '^#' > "$TAP_DIR/after-bad"
ok_if "failed restore left the table unchanged" cmp -s "$TAP_DIR/before-bad" "$TAP_DIR/after-bad"

check "chain-c created by --noflush" 0 $IPT -S chain-c
check "restore --test of a good file" 0 $IPT_RESTORE --test "$rules"

check "restore of the empty table" 0 sh -c "printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' | $IPT_RESTORE"
expect "save of the empty table" 0 $IPT_SAVE <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
EOF

done_testing
