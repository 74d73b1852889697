#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -j MARK (xt_mark's mark_tg, revision 2) in the filter table: every option
# form, the new mark seen by the later rules of the chain and of a user
# chain, and by the kernel after the hook (OUTPUT's mark is still on the
# packet at INPUT, over lo in the same namespace). With bpfilter the
# program calls bpfilter.ko's kfunc; with ip_tables xt_mark sets it (the
# reference).
. "$(dirname "$0")/lib.sh"

N=mkN
NN="$IP netns exec $N"

cleanup()
{
	$IP netns del $N 2>/dev/null
}

cleanup
$IP netns add $N
$IP -n $N link set lo up

# Echo requests and replies both leave through OUTPUT with mark 0 and come
# back through INPUT: 0x105 after the first rule, then in "marked"
# 0x105 & 0xff = 0x5, | 0x30 = 0x35, ^ 0x1 = 0x34, (0x34 & ~0xf) ^ 0x7 =
# 0x37. OUTPUT's third rule tests the mark the user chain left (0x37, not
# 0x105); INPUT accepts only packets that still carry 0x37.
check "restore MARK rules" 0 $NN $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:marked - [0:0]
-A INPUT -p icmp -m mark --mark 0x37 -j ACCEPT
-A INPUT -p icmp -j DROP
-A OUTPUT -p icmp -j MARK --set-xmark 0x105/0xffff
-A OUTPUT -p icmp -m mark --mark 0x105 -j marked
-A OUTPUT -p icmp -m mark --mark 0x5/0xff -j DROP
-A marked -j MARK --and-mark 0xff
-A marked -j MARK --or-mark 0x30
-A marked -j MARK --xor-mark 0x1
-A marked -j MARK --set-mark 0x7/0xf
-A marked -m mark --mark 0x37 -j RETURN
-A marked -j DROP
COMMIT
RULES
expect "iptables saves every form as --set-xmark" 0 $NN $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N marked
-A INPUT -p icmp -m mark --mark 0x37 -j ACCEPT
-A INPUT -p icmp -j DROP
-A OUTPUT -p icmp -j MARK --set-xmark 0x105/0xffff
-A OUTPUT -p icmp -m mark --mark 0x105 -j marked
-A OUTPUT -p icmp -m mark --mark 0x5/0xff -j DROP
-A marked -j MARK --set-xmark 0x0/0xffffff00
-A marked -j MARK --set-xmark 0x30/0x30
-A marked -j MARK --set-xmark 0x1/0x0
-A marked -j MARK --set-xmark 0x7/0xf
-A marked -m mark --mark 0x37 -j RETURN
-A marked -j DROP
EOF
ok_if "ping 127.0.0.1: requests and replies marked 0x37 all the way" \
	$NN ping -c 2 -W 2 127.0.0.1
ok_if "OUTPUT's rules counted 4, 4, 0 (the user chain's mark)" \
	test "$(counts $N OUTPUT)" = "4 4 0 "
ok_if "marked: every MARK ran, RETURN on 0x37, no DROP" \
	test "$(counts $N marked)" = "4 4 4 4 4 0 "
ok_if "INPUT saw the mark OUTPUT set: 4 accepted, none dropped" \
	test "$(counts $N INPUT)" = "4 0 "

# A mark that the rules leave otherwise drops: the later rule sees it.
check "MARK to 0x5 and nothing else" 0 $NN $IPT -w -R OUTPUT 1 -p icmp -j MARK --set-mark 0x5
ok_if "ping now fails (OUTPUT's DROP on 0x5/0xff)" sh -c "! $NN ping -c 1 -W 1 127.0.0.1 > /dev/null"
ok_if "... counted by OUTPUT's third rule" test "$(pkts $N OUTPUT 3)" = 1
cleanup
done_testing
