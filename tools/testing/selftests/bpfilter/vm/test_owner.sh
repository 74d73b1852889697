#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m owner (issue 12): TCP connects that S makes as root and as processes
# of other uids, gids and supplementary groups, and the TCP resets and ICMP
# errors its kernel sends (no socket file), counted by S's OUTPUT rules for
# each option and inversion; a DROP by uid. With bpfilter the kfunc
# bpfilter_owner() runs xt_owner's match. Counters must be the ones
# recorded from ip_tables. checkentry: ids must map in the namespace's user
# namespace, and only its own user namespace may name them (EINVAL).
#
#   C 10.253.13.1 --- 10.253.13.2 S
. "$(dirname "$0")/lib.sh"
BIN=$(dirname "$0")

C=owC
S=owS
NC="$IP netns exec $C"
NS="$IP netns exec $S"
UPID=

cleanup()
{
	[ -n "$UPID" ] && kill "$UPID" 2>/dev/null
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
}

# send [DROPUID-ARGS...]: a TCP connect from S to C's closed port 9 (a SYN,
# answered by a reset), as root or through dropuid. A dropped SYN is sent
# again after 1 s and 3 s: the 2 s timeout sees two.
send()
{
	if [ $# -eq 0 ]; then
		$NS sh -c 'nc -w 2 10.253.13.1 9 < /dev/null' > /dev/null 2>&1
	else
		$NS "$BIN/dropuid" "$@" sh -c 'nc -w 2 10.253.13.1 9 < /dev/null' > /dev/null 2>&1
	fi
}

cleanup
ns_pair $C 10.253.13.1 $S 10.253.13.2
$NC ping -c 1 -W 2 10.253.13.2 > /dev/null 2>&1	# neighbours resolved

check "S: owner rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000-1999
-A OUTPUT -d 10.253.13.1/32 -m owner ! --uid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 0
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 2000
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 3000 --suppl-groups
-A OUTPUT -d 10.253.13.1/32 -m owner ! --gid-owner 3000-3005 --suppl-groups
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 3000
-A OUTPUT -d 10.253.13.1/32 -m owner --socket-exists
-A OUTPUT -d 10.253.13.1/32 -m owner ! --socket-exists
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000 --gid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner ! --uid-owner 0 ! --gid-owner 2000
-A OUTPUT -d 10.253.13.1/32 -p tcp -m owner --uid-owner 1001 -j DROP
COMMIT
RULES
expect "S: save round-trips the owner options" 0 sh -c "$NS $IPT_SAVE | grep owner" <<'OUT'
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000-1999
-A OUTPUT -d 10.253.13.1/32 -m owner ! --uid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 0
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 2000
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 3000 --suppl-groups
-A OUTPUT -d 10.253.13.1/32 -m owner ! --gid-owner 3000-3005 --suppl-groups
-A OUTPUT -d 10.253.13.1/32 -m owner --gid-owner 3000
-A OUTPUT -d 10.253.13.1/32 -m owner --socket-exists
-A OUTPUT -d 10.253.13.1/32 -m owner ! --socket-exists
-A OUTPUT -d 10.253.13.1/32 -m owner --uid-owner 1000 --gid-owner 1000
-A OUTPUT -d 10.253.13.1/32 -m owner ! --uid-owner 0 ! --gid-owner 2000
-A OUTPUT -d 10.253.13.1/32 -p tcp -m owner --uid-owner 1001 -j DROP
OUT

send
send 1000
send -g 3000 1000
send 1500
send -g 3002,4000 2000
send 1001
# The kernel's own answer, from a socket without a file: a reset for a closed port.
run $NC sh -c 'nc -w 2 10.253.13.2 7 < /dev/null'
sleep 0.5
expect "OUTPUT counters" 0 counts $S OUTPUT <<'OUT'
2 5 6 1 1 1 6 0 8 0 2 6 2 
OUT

# checkentry: ids that do not map in the namespace's user namespace, and a
# caller whose user namespace does not own the network namespace.
expect "uid range upside down: EINVAL" 1 klog $NS $IPT -w -A OUTPUT -m owner --uid-owner 7-3 <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
OUT
unshare -U -r -n sleep 30 &
UPID=$!
sleep 0.5
expect "userns root: a uid its namespace maps" 0 nsenter -t $UPID -U -n --preserve-credentials \
	$IPT -w -A OUTPUT -m owner --uid-owner 0 <<'OUT'
OUT
expect "userns root: a uid its namespace does not map: EINVAL" 1 klog nsenter -t $UPID -U -n \
	--preserve-credentials $IPT -w -A OUTPUT -m owner --gid-owner 5 <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
OUT
expect "init root in that namespace: EINVAL" 1 klog nsenter -t $UPID -n \
	$IPT -w -A OUTPUT -m owner --uid-owner 0 <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
OUT
# Every replace checks every rule again: the uid rule above fails it now.
expect "init root in that namespace: any replace: EINVAL" 1 klog nsenter -t $UPID -n \
	$IPT -w -A OUTPUT -m owner --socket-exists <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
OUT
expect "userns root: --socket-exists" 0 nsenter -t $UPID -U -n --preserve-credentials \
	$IPT -w -A OUTPUT -m owner --socket-exists <<'OUT'
OUT
expect "owner in INPUT: EINVAL" 1 klog $NS $IPT -w -A INPUT -m owner --socket-exists <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
x_tables: ip_tables: owner match: used from hooks INPUT, but only valid from OUTPUT/POSTROUTING
OUT
cleanup
done_testing
