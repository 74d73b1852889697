#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A replace whose programs the verifier rejects (bpfilter.ko loaded with
# verifier_fault_file=F: while F exists the helper emits an instruction the
# verifier refuses): the command fails, dmesg carries the verifier's
# reason, and the old rules stay in force, unchanged (bpfilter only).
# Reloads the module: run it after the tests that keep state.
. "$(dirname "$0")/lib.sh"

if ! need_bpfilter "verifier rejection keeps the old rules"; then
	done_testing
	exit 0
fi

F=/tmp/bpfilter-verifier-fault
NS=vfault
NX="$IP netns exec $NS"

ping_lo()
{
	$NX ping -c 1 -W 1 127.0.0.1 > /dev/null 2>&1
}

ping_lo_blocked()
{
	! ping_lo
}

rm -f "$F"
$IP netns del $NS 2>/dev/null
check "rmmod bpfilter" 0 rmmod bpfilter
check "modprobe bpfilter verifier_fault_file=$F" 0 modprobe bpfilter verifier_fault_file=$F
ok_if "dmesg names the fault file" sh -c "dmesg | grep -q 'fail verification while $F exists'"
check "ip netns add $NS" 0 $IP netns add $NS
check "lo up in $NS" 0 $IP -n $NS link set lo up
ok_if "ping on lo passes" ping_lo
check "-A OUTPUT -p icmp -j DROP" 0 $NX $IPT -w -A OUTPUT -p icmp -j DROP
ok_if "ping on lo blocked" ping_lo_blocked

touch "$F"
dmesg -c > /dev/null 2>&1
check "a replace the verifier rejects fails" 1 $NX $IPT -w -A OUTPUT -p udp -j ACCEPT
ok_if "dmesg has the verifier's reason" sh -c "dmesg | grep -q 'verifier: '"
ok_if "dmesg says which program failed" sh -c "dmesg | grep -q 'verifier failed in program'"
ok_if "the old rules are unchanged" test "$($NX $IPT -w -S OUTPUT | grep -c '^-A')" = 1
ok_if "the old rules are still enforced" ping_lo_blocked
check "the counters still count" 0 sh -c "$NX $IPT -w -nvxL OUTPUT | awk 'NR == 3 { exit !(\$1 >= 2) }'"

rm -f "$F"
check "the same replace without the fault" 0 $NX $IPT -w -A OUTPUT -p udp -j ACCEPT
ok_if "ping still blocked by rule 1" ping_lo_blocked
check "-F" 0 $NX $IPT -w -F
ok_if "ping passes again" ping_lo

$IP netns del $NS
check "rmmod bpfilter" 0 rmmod bpfilter
check "modprobe bpfilter (no fault file)" 0 modprobe bpfilter
done_testing
