#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -m recent (issue 11): the classic ssh brute-force limiter, --rcheck with
# --seconds/--reap/--rttl, --rdest, and the kernel's /proc/net/xt_recent/NAME
# files (format, +ADDR, -ADDR, /, errors, ip_list_tot, per namespace, gone
# with the last rule). With bpfilter the lists are xt_recent's own, held by
# bpfilter_kfunc.ko and consulted by the BPF program through its kfunc;
# with ip_tables xt_recent does it all (the reference). Both runs must give
# the outputs below, recorded from ip_tables.
#
#   C 10.253.11.1 --- 10.253.11.2 S
. "$(dirname "$0")/lib.sh"

C=rcC
S=rcS
NC="$IP netns exec $C"
NS="$IP netns exec $S"
BIN=$(dirname "$0")

cleanup()
{
	for n in $C $S rcX; do $IP netns del $n 2>/dev/null; done
}

# syn SPORT DPORT: one SYN from C to S (a raw segment: no connection, no retries).
syn()
{
	$NC "$BIN/tcp_flags" 10.253.11.1 10.253.11.2 "$1" "$2" 0x02
}

# lists NAME: S's /proc/net/xt_recent/NAME with the jiffies masked, each
# stamp list replaced by its length.
lists()
{
	$NS cat "/proc/net/xt_recent/$1" |
		sed 's/last_seen: [0-9]*/last_seen: J/; s/oldest_pkt: \([0-9]*\) \(.*\)$/oldest_pkt: \1 stamps:\2/' |
		awk '{ n = split($0, a, "stamps:"); if (n == 2) { c = split(a[2], s, ","); print a[1] "stamps=" c } else print }'
}

# recent_users: the use count of the xt_recent module.
recent_users()
{
	awk '$1 == "xt_recent" { print $3 }' /proc/modules
}

recent_unused()
{
	test "$(recent_users)" = 0
}

sorted_lists()
{
	lists "$1" | sort
}

cleanup
ns_pair $C 10.253.11.1 $S 10.253.11.2
$IP netns add rcX

check "S: ssh limiter rules" 0 $NS $IPT_RESTORE <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -m recent --set --name SSH --mask 255.255.255.255 --rsource
-A INPUT -p tcp -m tcp --dport 22 -m recent --update --seconds 60 --hitcount 4 --name SSH --mask 255.255.255.255 --rsource -j DROP
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 23 -m recent --rcheck --seconds 60 --reap --rttl --name TEL --mask 255.255.255.0 --rsource -j DROP
-A INPUT -p tcp -m tcp --dport 24 -m recent --set --name DST --mask 255.255.255.255 --rdest
-A INPUT -p tcp -m tcp --dport 25 -m recent ! --rcheck --name DST --mask 255.255.255.255 --rdest -j DROP
COMMIT
RULES
expect "S: save round-trips the recent options" 0 sh -c "$NS $IPT_SAVE | grep recent" <<'OUT'
-A INPUT -p tcp -m tcp --dport 22 -m recent --set --name SSH --mask 255.255.255.255 --rsource
-A INPUT -p tcp -m tcp --dport 22 -m recent --update --seconds 60 --hitcount 4 --name SSH --mask 255.255.255.255 --rsource -j DROP
-A INPUT -p tcp -m tcp --dport 23 -m recent --rcheck --seconds 60 --reap --rttl --name TEL --mask 255.255.255.0 --rsource -j DROP
-A INPUT -p tcp -m tcp --dport 24 -m recent --set --name DST --mask 255.255.255.255 --rdest
-A INPUT -p tcp -m tcp --dport 25 -m recent ! --rcheck --name DST --mask 255.255.255.255 --rdest -j DROP
OUT
expect "S: one list file per name" 0 sh -c "$NS ls /proc/net/xt_recent" <<'OUT'
DST
SSH
TEL
OUT
expect "S: list files are 0644 (ip_list_perms)" 0 sh -c \
	"$NS ls -l /proc/net/xt_recent/SSH | cut -c1-10" <<'OUT'
-rw-r--r--
OUT
expect "another namespace has no lists" 0 sh -c "$IP netns exec rcX ls /proc/net/xt_recent" <<'OUT'
OUT

# Three SYNs in 60 s pass; the fourth has 4 hits with --set's: dropped.
for p in 4001 4002 4003 4004; do
	check "C: SYN $p to 22" 0 syn $p 22
done
ok_if "ssh: three accepted" test "$(pkts $S INPUT 3)" = 3
ok_if "ssh: the fourth dropped by --update --hitcount 4" test "$(pkts $S INPUT 2)" = 1
ok_if "ssh: --set counted all four" test "$(pkts $S INPUT 1)" = 4
expect "SSH list: C with four stamps" 0 lists SSH <<'OUT'
src=10.253.11.1 ttl: 64 last_seen: J oldest_pkt: 5 stamps=5
OUT

# The list survives a replace that keeps a rule using it.
check "S: -A an unrelated rule (replace)" 0 $NS $IPT -w -A INPUT -p udp -j ACCEPT
expect "SSH list kept across the replace" 0 lists SSH <<'OUT'
src=10.253.11.1 ttl: 64 last_seen: J oldest_pkt: 5 stamps=5
OUT

# Writes: -ADDR removes, +ADDR adds with ttl 0, / flushes, the rest is refused.
check "-10.253.11.1 removes C" 0 sh -c "echo -10.253.11.1 | $NS tee /proc/net/xt_recent/SSH"
expect "SSH list empty" 0 lists SSH <<'OUT'
OUT
check "C: SYN to 22 after the removal" 0 syn 4005 22
ok_if "ssh: accepted again" test "$(pkts $S INPUT 3)" = 4
check "+10.253.11.9 adds an address" 0 sh -c "echo +10.253.11.9 | $NS tee /proc/net/xt_recent/SSH"
expect "SSH list: C again, and .9 with ttl 0" 0 sorted_lists SSH <<'OUT'
src=10.253.11.1 ttl: 64 last_seen: J oldest_pkt: 1 stamps=1
src=10.253.11.9 ttl: 0 last_seen: J oldest_pkt: 1 stamps=1
OUT
check "a write without +, - or / is refused" 1 sh -c "echo 10.253.11.9 | $NS tee /proc/net/xt_recent/SSH"
check "a bad address is refused" 1 sh -c "echo +10.253.11.x | $NS tee /proc/net/xt_recent/SSH"
check "/ flushes" 0 sh -c "echo / | $NS tee /proc/net/xt_recent/SSH"
expect "SSH list empty after the flush" 0 lists SSH <<'OUT'
OUT

# ip_list_tot (100): the 101st address evicts the least recently seen.
check "101 addresses written" 0 sh -c "i=1; while [ \$i -le 101 ]; do echo +10.9.0.\$i; i=\$((i + 1)); done |
	while read a; do echo \$a > /tmp/rc.w; $NS cp /tmp/rc.w /proc/net/xt_recent/SSH || exit 1; done"
ok_if "ip_list_tot: 100 entries kept" test "$(lists SSH | wc -l)" = 100
ok_if "ip_list_tot: the first one evicted, the second kept" \
	test "$(lists SSH | grep -c 'src=10\.9\.0\.[12] ')" = 1 -a "$(lists SSH | grep -c 'src=10\.9\.0\.2 ')" = 1
check "/ flushes again" 0 sh -c "echo / | $NS tee /proc/net/xt_recent/SSH"

# --rcheck --rttl with a /24 mask: an entry from 10.253.11.0 (the masked
# source) with C's TTL drops; a SYN with another TTL is not that entry.
check "+10.253.11.0 in TEL" 0 sh -c "echo +10.253.11.0 | $NS tee /proc/net/xt_recent/TEL"
check "C: SYN to 23" 0 syn 4006 23
ok_if "tel: ttl 0 entry matches any TTL: dropped" test "$(pkts $S INPUT 4)" = 1
expect "TEL list holds the masked address" 0 lists TEL <<'OUT'
src=10.253.11.0 ttl: 0 last_seen: J oldest_pkt: 1 stamps=1
OUT

# --rdest: the list holds S's address; ! --rcheck drops until it is there.
check "C: SYN to 25 (no DST entry yet)" 0 syn 4007 25
ok_if "! --rcheck without an entry: dropped" test "$(pkts $S INPUT 6)" = 1
check "C: SYN to 24 (--set --rdest)" 0 syn 4008 24
check "C: SYN to 25 again" 0 syn 4009 25
ok_if "! --rcheck with the entry: not dropped" test "$(pkts $S INPUT 6)" = 1
expect "DST list holds the destination" 0 lists DST <<'OUT'
src=10.253.11.2 ttl: 64 last_seen: J oldest_pkt: 1 stamps=1
OUT

# Rules gone, lists gone (with the last rule naming them).
check "S: delete the DST rules" 0 sh -c "$NS $IPT -w -D INPUT 6 && $NS $IPT -w -D INPUT 5"
expect "DST list file gone with its last rule" 0 sh -c "$NS ls /proc/net/xt_recent" <<'OUT'
SSH
TEL
OUT
check "S: -F" 0 $NS $IPT -w -F
expect "no list files after -F" 0 sh -c "$NS ls /proc/net/xt_recent" <<'OUT'
OUT

# checkentry's errors, as xt_recent gives them.
expect "--set with --seconds: EINVAL" 1 klog $NS $IPT -w -A INPUT -m recent --set --seconds 5 <<'OUT'
iptables: Invalid argument. Run `dmesg' for more information.
OUT
expect "--reap without --seconds: iptables refuses it" 2 $NS $IPT -w -A INPUT -m recent --rcheck --reap <<'OUT'
iptables @IPT_VERSION@ (legacy): recent: option "--reap" also requires "--seconds".

Try `iptables -h' or 'iptables --help' for more information.
OUT
# Linux 6.12 took out the 255 bound of --hitcount (the kernel's own
# checkentry decides, with either backend).
check "--hitcount 300 (6.12: no bound)" 0 $NS $IPT -w -A INPUT -m recent --rcheck --hitcount 300 --name BIG
ok_if "its list exists" $NS test -f /proc/net/xt_recent/BIG
check "S: -F" 0 $NS $IPT -w -F
ok_if "xt_recent's module parameters are there" test -r /sys/module/xt_recent/parameters/ip_list_tot
check "S: -F" 0 $NS $IPT -w -F
ok_if "no rule uses xt_recent any more" test "$(recent_users)" = 0
# A namespace that goes away with its lists lets them go too.
check "rcX: a recent rule" 0 $IP netns exec rcX $IPT -w -A INPUT -m recent --set --name GONE
ok_if "rcX: its list file" $IP netns exec rcX test -f /proc/net/xt_recent/GONE
ok_if "xt_recent in use" test "$(recent_users)" -ge 1
$IP netns del rcX
ok_if "namespace deleted: xt_recent no longer used" wait_for recent_unused
cleanup
done_testing
