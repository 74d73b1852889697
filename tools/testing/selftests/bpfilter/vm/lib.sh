#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the VM selftests: TAP output and command checks.
#
# Every test script sources this file, calls check/expect/... for each case
# and ends with done_testing. The TAP numbering is shared by all scripts of a
# run (a counter file), so the runner's output is one flat TAP stream that the
# host counts. BACKEND is ip_tables (the stock kernel, the reference) or
# bpfilter (bpfilter.ko); the expected outputs below were recorded against
# stock ip_tables and must be the same for bpfilter.

BACKEND=${BACKEND:-bpfilter}
# NOBPF=1: this kernel has no BPF netfilter programs (set by 61-vm-6.1.sh,
# never detected); bpfilter must refuse what it cannot enforce.
NOBPF=${NOBPF:-}
TAP_DIR=${TAP_DIR:-/tmp/tap}
# Bound on any single command: a stuck sockopt must fail the test, not hang it.
CMD_TIMEOUT=${CMD_TIMEOUT:-60}
IPT=iptables-legacy
# The versions iptables and ipset name in their messages (v1.8.9 and v7.17
# on bookworm, v1.8.11 and v7.22 on trixie): expected outputs write them as
# @IPT_VERSION@ and @IPSET_VERSION@.
IPT_VERSION=$($IPT -V 2>/dev/null | sed -n 's/^iptables \(v[^ ]*\) .*/\1/p')
IPSET_VERSION=$(ipset -v 2>/dev/null | sed -n 's/^ipset \(v[^,]*\),.*/\1/p')
IPT_SAVE=iptables-legacy-save
IPT_RESTORE=iptables-legacy-restore
# busybox sh prefers its own applets over PATH: name iproute2's ip in full.
IP=/usr/sbin/ip
HELPER_COMM=${HELPER_COMM:-bpfilter_umh}
SCRIPT=$(basename "$0")

mkdir -p "$TAP_DIR"

tap_next()
{
	_n=$(cat "$TAP_DIR/count" 2>/dev/null || echo 0)
	_n=$((_n + 1))
	echo "$_n" > "$TAP_DIR/count"
}

# pass NAME / fail NAME / skip NAME REASON: one TAP result line.
pass()
{
	tap_next
	echo "ok $_n - $SCRIPT: $1"
}

fail()
{
	tap_next
	echo "not ok $_n - $SCRIPT: $1"
	echo "$_n $SCRIPT: $1" >> "$TAP_DIR/failed"
}

skip()
{
	tap_next
	echo "ok $_n - $SCRIPT: $1 # SKIP $2"
}

diag()
{
	printf '%s\n' "$@" | sed 's/^/# /'
}

# run CMD...: run CMD with a bound, stdout and stderr together in $OUT, the
# exit code in $RC.
run()
{
	case "$(type "$1" 2>/dev/null)" in
	*function*)
		# timeout can only bound programs; shell functions run as they are.
		OUT=$("$@" 2>&1)
		;;
	*)
		OUT=$(timeout "$CMD_TIMEOUT" "$@" 2>&1)
		;;
	esac
	RC=$?
	timed_out "$RC" "$@"
}

# timed_out RC CMD...: if RC is timeout's (124, or busybox's 143), say where
# the command and bpfilter's helper were waiting, and the kernel log's tail:
# a command that hangs must leave more than its name in the console log.
timed_out()
{
	case "$1" in 124 | 143) ;; *) return 0 ;; esac
	shift
	diag "timed out after ${CMD_TIMEOUT}s: $*"
	for _h in $(helper_pids); do
		for _t in /proc/"$_h"/task/*; do
			diag "helper thread ${_t##*/}: $(cat "$_t/stat" 2>/dev/null | cut -d' ' -f3) wchan $(cat "$_t/wchan" 2>/dev/null)"
			cat "$_t/stack" 2>/dev/null | sed 's/^/#   /'
		done
	done
	dmesg | tail -n 30 | sed 's/^/# dmesg: /'
}

# klog CMD...: run CMD (bounded), then print after its output the netfilter
# lines it put in the kernel log (x_tables', the xt modules', bpfilter's),
# without timestamps; CMD's exit code. "Run `dmesg' for more information"
# must find there what ip_tables prints. printk's "callbacks suppressed"
# notes are left out: bpfilter ratelimits as the kernel does, silently. A
# marker written to /dev/kmsg bounds the lines: the ring buffer may be full
# and rotating. The helper's lines about namespaces that went away are left
# out too: it looks at them when idle, every 2 s, so on a slow machine
# they fall inside any command's window without being that command's.
klog()
{
	_mark="bpfilter-selftest klog $(cat /proc/sys/kernel/random/uuid)"
	echo "$_mark" > /dev/kmsg
	timeout "$CMD_TIMEOUT" "$@" 2>&1
	_rc=$?
	timed_out "$_rc" "$@"
	dmesg | sed -n "/$_mark\$/,\$p" | sed '1d; s/^\[[^]]*\] //' |
		grep -E '^(x_tables|xt_|ipt_|ip6t_|bpfilter)' | grep -v ' callbacks suppressed$' |
		grep -Ev "^bpfilter: helper: bpf: netns [0-9]+: (nothing but bpfilter keeps it alive|no task, mount or file of it|cannot enter it to look|cannot count its)"
	return $_rc
}

# pkts NS CHAIN N: the packets counted by rule N (1-based) of CHAIN in namespace NS.
pkts()
{
	$IP netns exec "$1" $IPT -w -nvxL "$2" | awk -v r="$3" 'NR == r + 2 { print $1 }'
}

# counts NS CHAIN: the packet counters of all of CHAIN's rules in namespace NS, one line.
counts()
{
	$IP netns exec "$1" $IPT -w -nvxL "$2" | awk 'NR > 2 { printf "%s ", $1 } END { print "" }'
}

# ns_kill NS...: kill every process in the namespaces NS (servers and their
# children): a process left in a namespace keeps it, and its table, alive.
ns_kill()
{
	for _ns in "$@"; do
		_pids=$($IP netns pids "$_ns" 2>/dev/null)
		[ -n "$_pids" ] && kill -9 $_pids 2>/dev/null
	done
}

# ask NS DST PORT [SECS]: what a server answers a TCP connection from NS
# ("" if none in SECS, default 3; 1 is enough to see a SYN dropped).
ask()
{
	$IP netns exec "$1" sh -c "nc -w ${4:-3} $2 $3 < /dev/null" 2>/dev/null
}

# text_server NS PORT TEXT: a TCP server in NS that answers every
# connection to PORT with TEXT (in the background; ns_kill ends it).
text_server()
{
	printf '#!/bin/sh\necho %s\n' "$3" > "/tmp/srv-$3.sh"
	chmod +x "/tmp/srv-$3.sh"
	$IP netns exec "$1" nc -ll -p "$2" -e "/tmp/srv-$3.sh" &
}

# tcp_ct NS PATTERN: NS's IPv4 TCP conntrack entries matching PATTERN, without
# the state, timeout and what follows the status, ephemeral ports as PORT.
tcp_ct()
{
	$IP netns exec "$1" cat /proc/net/nf_conntrack | grep -- "$2" |
		sed 's/^ipv4 *2 tcp *6 [0-9]* [A-Z_]* //; s/ mark=.*//;
		     s/port=[3-6][0-9][0-9][0-9][0-9]/port=PORT/g'
}

# ns_pair C CADDR S SADDR: namespaces C and S (made anew, lo up) joined by a
# veth pair named ${C}0 / ${S}0, with CADDR and SADDR (/24) on its ends.
ns_pair()
{
	for _ns in "$1" "$3"; do
		$IP netns del "$_ns" 2>/dev/null
		$IP netns add "$_ns"
		$IP -n "$_ns" link set lo up
	done
	$IP link add "${1}0" netns "$1" type veth peer name "${3}0" netns "$3"
	$IP -n "$1" addr add "$2/24" dev "${1}0"
	$IP -n "$3" addr add "$4/24" dev "${3}0"
	$IP -n "$1" link set "${1}0" up
	$IP -n "$3" link set "${3}0" up
}

# ok_if NAME COND...: pass if the shell condition COND... is true.
ok_if()
{
	_name=$1
	shift
	if "$@"; then
		pass "$_name"
	else
		fail "$_name"
		diag "condition failed: $*"
	fi
}

# check NAME WANT_RC CMD...: CMD exits with WANT_RC (output not compared).
check()
{
	_name=$1
	_want=$2
	shift 2
	run "$@"
	if [ "$RC" -eq "$_want" ]; then
		pass "$_name"
	else
		fail "$_name"
		diag "command: $*" "exit code $RC, want $_want" "output:" "$OUT"
	fi
}

# ipt_expected: an expected output (stdin), recorded with bookworm's
# iptables 1.8.9, as the running iptables prints it: its versions in, and
# from 1.8.10 on, -L's prot column by name also with -n ("tcp", "all" for
# 0), as getprotobynumber() names it.
ipt_expected()
{
	sed "s/@IPT_VERSION@/$IPT_VERSION/g; s/@IPSET_VERSION@/$IPSET_VERSION/g" |
	case "$IPT_VERSION" in
	v1.8.[0-9]) cat ;;
	*)
		awk 'BEGIN {
			while ((getline l < "/etc/protocols") > 0)
				if (split(l, f, /[ \t]+/) >= 2 && l !~ /^#/ && !(f[2] in name))
					name[f[2]] = f[1]
			name[0] = "all"
		}
		# The prot column: its invert mark, then a number, then opt.
		match($0, /[ !][0-9]+ +(--|-f|!f)  /) {
			s = substr($0, RSTART, RLENGTH)
			n = substr(s, 2) + 0
			opt = s
			sub(/^[ !][0-9]+ +/, "", opt)
			if (n in name)
				$0 = substr($0, 1, RSTART - 1) substr(s, 1, 1) \
				     sprintf("%-4s ", name[n]) opt substr($0, RSTART + RLENGTH)
		}
		{ print }' ;;
	esac
}

# expect NAME WANT_RC CMD... <<EOF ... EOF: CMD exits with WANT_RC and prints
# exactly the text on stdin (stdout and stderr together; lines starting with
# "# " such as iptables-save's timestamps are dropped from both sides), in
# the running iptables' form (ipt_expected).
expect()
{
	_name=$1
	_want=$2
	shift 2
	_exp=$(grep -v '^# ' | ipt_expected)
	run "$@"
	_got=$(printf '%s\n' "$OUT" | grep -v '^# ')
	if [ -n "${RECORD:-}" ]; then
		# Developer aid: print what the reference backend answered.
		printf '=== %s (rc %s)\n%s\n' "$_name" "$RC" "$_got" >&2
	fi
	if [ "$RC" -eq "$_want" ] && [ "$_got" = "$_exp" ]; then
		pass "$_name"
		return 0
	fi
	fail "$_name"
	diag "command: $*" "exit code $RC, want $_want"
	printf '%s\n' "$_exp" > "$TAP_DIR/exp"
	printf '%s\n' "$_got" > "$TAP_DIR/got"
	diff -u "$TAP_DIR/exp" "$TAP_DIR/got" | sed 's/^/# /'
	return 1
}

# reset_table [CMD]: the initial filter table (no rules, no user chains,
# ACCEPT policies, zero counters) in the current network namespace, through
# CMD (default $IPT; ip6tables-legacy for IPv6's).
reset_table()
{
	_ipt=${1:-$IPT}
	$_ipt -w -F
	$_ipt -w -X
	$_ipt -w -P INPUT ACCEPT
	$_ipt -w -P FORWARD ACCEPT
	$_ipt -w -P OUTPUT ACCEPT
	$_ipt -w -Z
}

# helper_pids: the pid of bpfilter's usermode helper (none with ip_tables):
# the module's read-only helper_pid parameter, else a process named
# $HELPER_COMM.
helper_pids()
{
	_p=$(cat /sys/module/bpfilter/parameters/helper_pid 2>/dev/null)
	if [ -n "$_p" ]; then
		[ "$_p" != 0 ] && echo "$_p"
		return 0
	fi
	for _d in /proc/[0-9]*; do
		[ "$(cat "$_d/comm" 2>/dev/null)" = "$HELPER_COMM" ] && echo "${_d#/proc/}"
	done
}

# wait_for COND... : poll the shell condition COND... every 0.2 s for up to
# WAIT_S seconds (default 20); true once it holds.
wait_for()
{
	_tries=$(( ${WAIT_S:-20} * 5 ))
	while [ "$_tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		_tries=$((_tries - 1))
	done
	return 1
}

# need_bpfilter NAME: skip NAME with ip_tables, where there is no helper.
need_bpfilter()
{
	[ "$BACKEND" = bpfilter ] && return 0
	skip "$1" "needs bpfilter.ko (BACKEND=$BACKEND)"
	return 1
}

# done_testing: marks the script as complete; the runner fails a script that
# exits without reaching it.
done_testing()
{
	touch "$TAP_DIR/done.$SCRIPT"
}
