#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m cgroup (issue 12): TCP connects from processes in a cgroup v2 group
# and outside it, counted in OUTPUT by --path and its inversion; a path
# that does not exist is refused by xt_cgroup's checkentry (EINVAL), which
# resolves paths in the caller's cgroup namespace. With bpfilter, xt_cgroup
# runs in the kernel through bpfilter_kfunc (hold.h). Counters must be the
# ones recorded from ip_tables.
#
#   C 10.253.20.1 --- 10.253.20.2 S
. "$(dirname "$0")/lib.sh"

C=cgC
S=cgS
NS="$IP netns exec $S"
# Not under /sys: ip netns exec mounts a sysfs of its own over it.
CG=/tmp/cgroup2

cleanup()
{
	for n in $C $S; do $IP netns del $n 2>/dev/null; done
	rmdir $CG/bpft/inner $CG/bpft 2>/dev/null
	umount $CG 2>/dev/null
}

# connect [CGROUP]: a TCP connect from S to C's closed port 9, from a process in CGROUP.
connect()
{
	$NS sh -c "${1:+echo \$\$ > $CG/$1/cgroup.procs; }nc -w 2 10.253.20.1 9 < /dev/null" \
		> /dev/null 2>&1
}

cleanup
mkdir -p $CG
check "cgroup2 mounted, a group and a subgroup" 0 sh -c "mount -t cgroup2 none $CG && mkdir -p $CG/bpft/inner"
ns_pair $C 10.253.20.1 $S 10.253.20.2
$NS ping -c 1 -W 2 10.253.20.1 > /dev/null 2>&1	# neighbours resolved

check "S: cgroup rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p tcp -m cgroup --path /bpft
-A OUTPUT -p tcp -m cgroup ! --path /bpft
-A OUTPUT -p tcp -m cgroup --path /bpft/inner
-A OUTPUT -p tcp -m cgroup --path /
COMMIT
RULES
expect "S: save round-trips the cgroup options" 0 sh -c "$NS $IPT_SAVE | grep cgroup" <<'OUT'
-A OUTPUT -p tcp -m cgroup --path "/bpft"
-A OUTPUT -p tcp -m cgroup ! --path "/bpft"
-A OUTPUT -p tcp -m cgroup --path "/bpft/inner"
-A OUTPUT -p tcp -m cgroup --path "/"
OUT
connect
connect bpft
connect bpft/inner
connect bpft/inner
expect "OUTPUT counters" 0 counts $S OUTPUT <<'OUT'
3 1 2 4 
OUT
expect "a path that does not exist: EINVAL" 1 klog $NS $IPT -w -A OUTPUT -m cgroup --path /nosuch <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
xt_cgroup: invalid path, errno=-2
OUT
cleanup
done_testing
