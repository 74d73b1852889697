#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Permissions: CAP_NET_ADMIN in the user namespace that owns the socket's
# network namespace is required (EPERM otherwise), exactly as ip_tables. Also
# the exact errnos of single sockopts, via ipt_probe.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
reset_table
check "setup: one rule" 0 $IPT -A INPUT -s 192.0.2.55 -j DROP
$IPT -S > "$TAP_DIR/privs.before"

expect "sockopt errnos as root" 0 "$BIN/ipt_probe" info info=nosuch replace-short counters-short match=tcp/0 match=tcp/1 match=udp/0 match=icmp/0 match=nosuch/0 <<'EOF'
info: 0
info=nosuch: ENOENT
replace-short: EINVAL
counters-short: EINVAL
match=tcp/0: 0
match=tcp/1: EPROTONOSUPPORT
match=udp/0: 0
match=icmp/0: 0
match=nosuch/0: ENOENT
EOF

expect "socket opened as root, sockopts after dropping to nobody" 0 "$BIN/ipt_probe" -u 65534 info replace-short counters-short match=tcp/0 <<'EOF'
info: EPERM
replace-short: EPERM
counters-short: EPERM
match=tcp/0: EPERM
EOF

# iptables takes its lock before anything else: give nobody a lock file it
# may open, so that what is tested is the kernel's answer.
export XTABLES_LOCKFILE="$TAP_DIR/xtables.lock"
: > "$XTABLES_LOCKFILE"
chmod 666 "$XTABLES_LOCKFILE"

expect "unprivileged iptables -S" 3 "$BIN/dropuid" 65534 $IPT -S <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `filter': Permission denied (you must be root)
Perhaps iptables or your kernel needs to be upgraded.
EOF
expect "unprivileged iptables -S with CAP_NET_RAW" 3 "$BIN/dropuid" -r 65534 $IPT -S <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `filter': Permission denied (you must be root)
Perhaps iptables or your kernel needs to be upgraded.
EOF
expect "unprivileged iptables -A with CAP_NET_RAW" 3 "$BIN/dropuid" -r 65534 $IPT -A INPUT -j ACCEPT <<'EOF'
iptables @IPT_VERSION@ (legacy): can't initialize iptables table `filter': Permission denied (you must be root)
Perhaps iptables or your kernel needs to be upgraded.
EOF
expect "unprivileged iptables-save" 1 "$BIN/dropuid" -r 65534 $IPT_SAVE <<'EOF'
Failed to list table names in /proc/net/ip_tables_names: Permission denied
EOF
unset XTABLES_LOCKFILE

run $IPT -S
printf '%s\n' "$OUT" > "$TAP_DIR/privs.after"
ok_if "unprivileged attempts left the table unchanged" cmp -s "$TAP_DIR/privs.before" "$TAP_DIR/privs.after"

# Root of a new user namespace that owns a new network namespace: allowed
# there (ns_capable on the netns' user namespace), and only there.
expect "userns root in its own netns: -A and -S" 0 unshare -U -r -n sh -c "$IPT -A INPUT -s 198.51.100.1 -j DROP && $IPT -S" <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-A INPUT -s 198.51.100.1/32 -j DROP
EOF
expect "userns root in its own netns: sockopts" 0 unshare -U -r -n "$BIN/ipt_probe" info replace-short <<'EOF'
info: 0
replace-short: EINVAL
EOF
# The same as a user with no privilege at all (uid 65534), who creates the
# user namespace itself, with matches whose checkentries the kernel runs
# in the caller's context (bpfilter.ko holds them): nothing the module does
# for the call may need the caller's own permissions.
expect "unprivileged user's own userns: string and hashlimit" 0 "$BIN/dropuid" 65534 \
	unshare -U -r -n sh -c "export XTABLES_LOCKFILE=/tmp/xtables.65534; \
	$IPT -A INPUT -m string --string foo --algo bm -j DROP && \
	$IPT -A INPUT -m hashlimit --hashlimit-above 5/sec --hashlimit-name fz -j DROP && $IPT -S" <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-A INPUT -m string --string "foo" --algo bm -j DROP
-A INPUT -m hashlimit --hashlimit-above 5/sec --hashlimit-burst 5 --hashlimit-name fz -j DROP
EOF
expect "socket of the initial netns used from a new user namespace" 0 "$BIN/ipt_probe" -U info replace-short <<'EOF'
info: EPERM
replace-short: EPERM
EOF

run $IPT -S
printf '%s\n' "$OUT" > "$TAP_DIR/privs.after"
ok_if "user namespace tables did not touch this one" cmp -s "$TAP_DIR/privs.before" "$TAP_DIR/privs.after"

# A 32-bit caller: stock ip_tables (without XTABLES_COMPAT, whose GET_INFO
# layout is the same for i386) answers; bpfilter.ko refuses 32-bit callers
# with EOPNOTSUPP and says so in dmesg, rather than risk a wrong answer.
if [ "$BACKEND" = bpfilter ]; then
	expect "32-bit caller refused" 0 "$BIN/ipt_probe32" <<'EOF'
info32: -95
EOF
	ok_if "... with a dmesg line" sh -c "dmesg | grep -q 'bpfilter: ipt_probe32.*32-bit'"
else
	expect "32-bit caller" 0 "$BIN/ipt_probe32" <<'EOF'
info32: 0
EOF
fi

done_testing
