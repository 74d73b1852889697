#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Network namespaces hold independent tables; deleting a namespace releases
# its table (with bpfilter: the helper drops it, and its saved state).
. "$(dirname "$0")/lib.sh"

reset_table
check "init netns: one rule" 0 $IPT -A INPUT -s 192.0.2.100 -j DROP
check "$IP netns add ns1" 0 $IP netns add ns1
check "$IP netns add ns2" 0 $IP netns add ns2
N1="$IP netns exec ns1"
N2="$IP netns exec ns2"

expect "ns1 starts with the initial table" 0 $N1 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
check "ns1: -A and -P" 0 sh -c "$N1 $IPT -A INPUT -s 10.1.1.1 -j DROP && $N1 $IPT -P FORWARD DROP"
check "ns2: -N and -A" 0 sh -c "$N2 $IPT -N only2 && $N2 $IPT -A OUTPUT -p udp --dport 53 -j only2"
expect "ns1 table" 0 $N1 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD DROP
-P OUTPUT ACCEPT
-A INPUT -s 10.1.1.1/32 -j DROP
EOF
expect "ns2 table" 0 $N2 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N only2
-A OUTPUT -p udp -m udp --dport 53 -j only2
EOF
expect "init netns table untouched" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-A INPUT -s 192.0.2.100/32 -j DROP
EOF
ok_if "ns1 lists filter in /proc/net/ip_tables_names" $N1 grep -qx filter /proc/net/ip_tables_names
expect "iptables-save in ns1" 0 $N1 $IPT_SAVE <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s 10.1.1.1/32 -j DROP
COMMIT
EOF

# With bpfilter the helper keeps a saved copy of each namespace's table in
# its state directory (fd 4), named after the namespace's inode number.
ino1=$(stat -L -c %i /run/netns/ns1)
state_file()
{
	_h=$(helper_pids | head -n1)
	[ -n "$_h" ] && [ -e "/proc/$_h/fd/4/$1.filter" ]
}
no_state_file()
{
	! state_file "$1"
}
# state_count_le N: at most N entries in the helper's state directory.
state_count_le()
{
	_h=$(helper_pids | head -n1)
	[ -n "$_h" ] && [ "$(ls "/proc/$_h/fd/4/" | wc -l)" -le "$1" ]
}
if need_bpfilter "helper holds ns1's table"; then
	ok_if "helper holds ns1's table" state_file "$ino1"
	diag "state dir: $(ls "/proc/$(helper_pids | head -n1)/fd/4/" 2>&1 | tr '\n' ' ')"
fi

check "$IP netns del ns1" 0 $IP netns del ns1
if need_bpfilter "deleting ns1 releases its table in the helper"; then
	ok_if "deleting ns1 releases its table in the helper" wait_for no_state_file "$ino1"
fi
expect "ns2 unaffected by ns1's deletion" 0 $N2 $IPT -S OUTPUT <<'EOF'
-P OUTPUT ACCEPT
-A OUTPUT -p udp -m udp --dport 53 -j only2
EOF
check "$IP netns add ns1 again" 0 $IP netns add ns1
expect "a new ns1 starts from the initial table" 0 $N1 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
check "$IP netns del ns1, ns2" 0 sh -c "$IP netns del ns1 && $IP netns del ns2"

# Namespaces that come and go with large tables must not pile up in the
# helper: its resident size after 12 cycles (50 rules each) stays within 1 MiB of the size
# after the first 4.
rules=$TAP_DIR/netns-rules
{
	echo '*filter'
	echo ':many - [0:0]'
	i=0
	while [ $i -lt 50 ]; do
		echo "-A many -s 10.$((i / 250)).$((i % 250)).1 -p tcp --dport $((i + 1)) -j ACCEPT"
		i=$((i + 1))
	done
	echo 'COMMIT'
} > "$rules"
cycle()
{
	$IP netns add cyc && $IP netns exec cyc $IPT_RESTORE "$rules" && $IP netns del cyc
}
rss()
{
	awk '/^VmRSS/ { print $2 }' "/proc/$(helper_pids | head -n1)/status" 2>/dev/null
}
if need_bpfilter "helper memory stable over 12 namespace lifetimes"; then
	c=0 errs=0
	while [ $c -lt 4 ]; do cycle || errs=$((errs + 1)); c=$((c + 1)); done
	wait_for state_count_le 2
	rss0=$(rss)
	while [ $c -lt 12 ]; do cycle || errs=$((errs + 1)); c=$((c + 1)); done
	wait_for state_count_le 2
	rss1=$(rss)
	diag "helper VmRSS: ${rss0:-?} kB after 4 cycles, ${rss1:-?} kB after 12; $errs failed cycles"
	ok_if "helper memory stable over 12 namespace lifetimes" \
		test "$errs" = 0 -a -n "$rss0" -a -n "$rss1" -a "${rss1:-0}" -le $(( ${rss0:-0} + 1024 ))
	ok_if "no namespace state left behind" wait_for state_count_le 2
	diag "state dir: $(ls "/proc/$(helper_pids | head -n1)/fd/4/" 2>&1 | tr '\n' ' ')"
fi

done_testing
