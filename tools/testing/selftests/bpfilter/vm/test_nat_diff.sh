#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The differential NAT test (issue 14): random nat tables, the same in
# every boot (seeded), each restored into a router namespace R and judged
# by the first packets of the same flows, forwarded from C through R to S
# and sent by R itself. For each seed the test prints, as "# natdiff SEED"
# lines, what iptables-legacy-restore said (and the kernel log lines a
# refusal left, klog), what was sent, the tuples R's
# conntrack keeps for every flow (the translation each one got) and
# iptables-legacy-save -c's dump (every rule's counters). The suite boots
# the VM with ip_tables and with bpfilter and compares the two records seed
# by seed (scripts/vm/natdiff.sh): any difference is a failure there.
# Here, in one boot, each seed must record: the restore ends (no timeout),
# and the tuples recorded are all of R's entries, at most one a flow.
#
#   C --- 10.254.9.2 R 10.254.10.1 --- S
#
# C sends as 10.254.9.1, .3, .4 and .5, to S's 10.254.10.2 and .3, to
# 10.254.12.0/24 (routed to S) and to R. Then the same for IPv6, in
# ip6tables' nat table, over the same plan in IPv6 addresses (10.254.X.Y is
# fd00:254:X::Y, each /24 a /64), half as many seeds, recorded as v6-SEED.
#
# The flows come from flow_probe (raw sockets: any source address, no socket
# to answer), one packet each, in one order from one CPU, so statistic's
# nth counters and port choices see them in the same order in every boot.
# Port choices the kernel makes at random (SNAT and MASQUERADE to a port
# range that does not hold the flow's port) are recorded as "~" and the
# range's thousand: the generator gives those ranges whole thousands, and
# never asks for random ports without a range.
#
# NAT_DIFF_SEEDS: how many IPv4 seeds (default 20; run.sh passes it into
# the VM, e.g. NAT_DIFF_SEEDS=500 VM_TIMEOUT=3600 for a campaign).
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$0")
PROBE=${FLOW_PROBE:-$BIN/flow_probe}
SEEDS=${NAT_DIFF_SEEDS:-20}

C=ndC
R=ndR
S=ndS

cleanup()
{
	ns_kill $C $R $S
	printf 'netns del %s\n' $C $R $S | $IP -force -batch - 2>/dev/null
}

# A new C, R and S for family $FAM: a fresh conntrack table and a fresh
# nat table each seed. Nothing answers a flow but R itself: the flows'
# addresses are R's neighbours with made-up link addresses (C's and S's
# own addresses are others), and R listens on every TCP port a flow can
# reach it on. An RST would end a TCP flow's entry at a time of its own.
# (One ip batch per namespace: under TCG each command's process costs more
# than its work.) IPv6's addresses skip DAD, and C knows R's link address:
# a packet from an address C does not have would wait for a neighbour
# solicitation C cannot send yet.
net_up()
{
	cleanup
	$IP -batch - <<-EOF || return 1
	netns add $C
	netns add $R
	netns add $S
	link add c0 netns $C type veth peer name rc0 netns $R address 02:00:00:00:09:02
	link add rs0 netns $R type veth peer name s0 netns $S
	EOF
	in_fam <<-EOF | $IP -n $C -batch - || return 1
	link set lo up
	addr add 10.254.9.100/24 dev c0 $NODAD
	link set c0 up
	neigh add 10.254.9.2 lladdr 02:00:00:00:09:02 dev c0 nud permanent
	route add default via 10.254.9.2
	EOF
	in_fam <<-EOF | $IP -n $S -batch - || return 1
	link set lo up
	addr add 10.254.10.100/24 dev s0 $NODAD
	link set s0 up
	EOF
	in_fam <<-EOF | $IP -n $R -batch - || return 1
	link set lo up
	addr add 10.254.9.2/24 dev rc0 $NODAD
	addr add 10.254.10.1/24 dev rs0 $NODAD
	link set rc0 up
	link set rs0 up
	route add 10.254.12.0/24 via 10.254.10.2
	neigh add 10.254.9.1 lladdr 02:00:00:00:09:01 dev rc0 nud permanent
	neigh add 10.254.9.3 lladdr 02:00:00:00:09:03 dev rc0 nud permanent
	neigh add 10.254.9.4 lladdr 02:00:00:00:09:04 dev rc0 nud permanent
	neigh add 10.254.9.5 lladdr 02:00:00:00:09:05 dev rc0 nud permanent
	neigh add 10.254.10.2 lladdr 02:00:00:00:10:02 dev rs0 nud permanent
	neigh add 10.254.10.3 lladdr 02:00:00:00:10:03 dev rs0 nud permanent
	EOF
	rm -f /tmp/natdiff.listen
	$IP netns exec $R sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward
		echo 1 > /proc/sys/net/ipv6/conf/all/forwarding
		for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done
		exec "$0" listen 53 80 8080 7000 7001 7002 5000 7070 7071 7072 > /tmp/natdiff.listen' "$PROBE" &
	wait_for grep -q listening /tmp/natdiff.listen
}

# in_fam: the IPv4 plan's text (addresses, prefixes, NAT targets) in
# family $FAM's. For 6, 10.254.X.Y is fd00:254:X::Y, a /24 a /64, a longer
# prefix keeps its host bits (/28 is /124), and a NAT target's address (or
# range) goes in brackets before a port.
in_fam()
{
	if [ "$FAM" != 6 ]; then
		cat
		return
	fi
	sed -E 's/(--to-(destination|source) )(10\.254\.[0-9.]+(-10\.254\.[0-9.]+)?)(:[0-9-]+)/\1[\3]\5/
		s/10\.254\.([0-9]+)\.([0-9]+)/fd00:254:\1::\2/g
		s#/24( |$)#/64\1#g
		s#/28( |$)#/124\1#g
		s#/30( |$)#/126\1#g'
}

# The nat table for seed $1, in iptables-restore's form.
gen_rules()
{
	awk -v seed="$1" -v v6="$([ "$FAM" = 6 ] && echo 1)" '
	function pick(n) { return int(rand() * n) }
	function chance(p) { return rand() < p }
	# One word of list, at random; in a word, "@" and "_" stand for spaces.
	function one(list,   a, n, w) {
		n = split(list, a, " ")
		w = a[pick(n) + 1]
		gsub("[@_]", " ", w)
		return w
	}
	# The matches of a rule in a chain of hook h (pre, in, out, post, or ""
	# for a user chain); sets proto.
	function matches(h,   m, w) {
		m = ""
		proto = ""
		if (chance(0.5)) {
			proto = chance(0.67) ? "udp" : "tcp"
			m = m " -p " proto
			if (chance(0.6))
				m = m one("@--dport_53 @--dport_8080 @--sport_40000:40015 @!_--dport_53 @-m_multiport_--dports_53,80,7000:7001 @--dport_7000:7001")
		}
		if (chance(0.3))
			m = m (chance(0.2) ? " !" : "") " -s " one("10.254.9.1 10.254.9.0/24 10.254.9.4/30 10.254.10.0/24 10.254.10.1")
		if (chance(0.3))
			m = m (chance(0.2) ? " !" : "") " -d " one("10.254.10.2 10.254.10.0/24 10.254.9.2 10.254.12.0/24 10.254.10.3")
		if ((h == "pre" || h == "in") && chance(0.2))
			m = m (chance(0.2) ? " !" : "") " -i " one("rc0 rs0 rc+ lo")
		if ((h == "out" || h == "post") && chance(0.2))
			m = m (chance(0.2) ? " !" : "") " -o " one("rc0 rs0 rs+ lo")
		if (chance(0.15))
			m = m one("@-m_mark_--mark_0x1/0x1 @-m_mark_!_--mark_0x2/0x3 @-m_mark_--mark_0x3")
		# bpfilter has addrtype for IPv4 only (IPv6 tables with it: ENOENT).
		if (chance(0.1)) {
			w = one("@-m_addrtype_--dst-type_LOCAL @-m_addrtype_--src-type_LOCAL @-m_addrtype_!_--dst-type_UNICAST")
			if (!v6)
				m = m w
		}
		if (chance(0.12)) {
			e = 2 + pick(2)
			m = m " -m statistic --mode nth --every " e " --packet " pick(e)
		}
		if (chance(0.1))
			m = m " -m comment --comment \"rule " nrule "\""
		return m
	}
	# A port suffix for a NAT target: only rules with -p may have one.
	function ports(list) { return proto != "" && chance(0.5) ? one(list) : "" }
	# The target of a rule in chain index ci (side: dst, src or any; h as above).
	function target(ci, side, h,   r, t, k, n, ok) {
		r = rand()
		if (r < 0.3) {
			if (side == "dst") {
				t = rand()
				if (t < 0.6)
					return "-j DNAT --to-destination " one("10.254.10.2 10.254.10.3 10.254.9.1 10.254.10.2-10.254.10.3 10.254.12.7") ports(":8080 :7000-7002 :53")
				if (t < 0.8)
					return "-j REDIRECT" (proto != "" && chance(0.6) ? " --to-ports " one("7070 7070-7072") : "")
				return "-j NETMAP --to " one("10.254.10.0/24 10.254.12.0/28")
			}
			if (side == "src") {
				t = rand()
				if (t < 0.5)
					return "-j SNAT --to-source " one("10.254.10.1 10.254.9.2 10.254.10.1-10.254.10.4 10.254.20.1") ports(":31000-31999 :40000-41999") (chance(0.2) ? " --persistent" : "")
				if (t < 0.8 && h == "post") {
					t = proto != "" && chance(0.5) ? " --to-ports " one("32000-32999 32000-32999@--random 32000-32999@--random-fully 40000-41999") : ""
					return "-j MASQUERADE" t
				}
				return "-j NETMAP --to " one("10.254.20.0/24 10.254.9.0/30")
			}
		}
		if (r < 0.5)
			return "-j MARK " one("@--set-xmark_0x1/0x1 @--or-mark_0x2 @--and-mark_0xfffffffe @--set-mark_0x3 @--xor-mark_0x1")
		if (r < 0.58)
			return "-j ACCEPT"
		if (r < 0.64 && ci >= 0)
			return "-j RETURN"
		if (r < 0.85 && nuser > 0) {
			# A jump to a later user chain whose targets suit this side;
			# now and then any user chain, which ip_tables refuses when
			# the hooks do not suit a target or the jump makes a loop.
			for (n = 0; n < 8; n++) {
				k = pick(nuser)
				ok = k > ci && (side == "any" ? uside[k] == "any" : uside[k] != (side == "dst" ? "src" : "dst"))
				if (ok || chance(0.04))
					return "-j U" k
			}
		}
		return ""
	}
	BEGIN {
		srand(seed)
		nuser = pick(4)
		for (k = 0; k < nuser; k++)
			uside[k] = one("dst src any")
		print "*nat"
		split("PREROUTING INPUT OUTPUT POSTROUTING", bc, " ")
		split("pre in out post", bh, " ")
		split("dst src dst src", bs, " ")
		for (i = 1; i <= 4; i++)
			print ":" bc[i] " " (chance(0.02) ? "DROP" : "ACCEPT") " [0:0]"
		for (k = 0; k < nuser; k++)
			print ":U" k " - [0:0]"
		nrule = 0
		for (i = 1; i <= 4; i++) {
			n = pick(6)
			for (j = 0; j < n; j++) {
				nrule++
				m = matches(bh[i])
				print "-A " bc[i] m " " target(-1, bs[i], bh[i])
			}
		}
		for (k = 0; k < nuser; k++) {
			n = 1 + pick(4)
			for (j = 0; j < n; j++) {
				nrule++
				m = matches("")
				print "-A U" k m " " target(k, uside[k], "")
			}
		}
		print "COMMIT"
	}' | in_fam
}

# The flows: $1 = fwd (from C, through R) or local (from R itself), in
# family $FAM.
flows()
{
	awk -v kind="$1" 'BEGIN {
		if (kind == "fwd") {
			split("10.254.9.1 10.254.9.3 10.254.9.4 10.254.9.5", src, " ")
			split("10.254.10.2 10.254.10.3 10.254.9.2 10.254.10.1 10.254.12.5 10.254.12.9 10.254.10.2", dst, " ")
			for (i = 0; i < 28; i++)
				printf "%s %s %d %s %d\n", i % 3 == 2 ? "tcp" : "udp", src[i % 4 + 1],
					40000 + i, dst[i % 7 + 1], substr("53   80   8080 7000 7001 5000 ", (i % 6) * 5 + 1, 4) + 0
		} else {
			split("10.254.10.1 10.254.9.2", src, " ")
			split("10.254.10.2 10.254.12.5 10.254.9.2 10.254.10.3 10.254.10.1", dst, " ")
			for (i = 0; i < 10; i++)
				printf "%s %s %d %s %d\n", i % 2 ? "tcp" : "udp", src[i % 2 + 1],
					41000 + i, dst[i % 5 + 1], substr("53   80   8080 7000 5000 ", (i * 3 % 5) * 5 + 1, 4) + 0
		}
	}' | in_fam
}

# R's conntrack entries: protocol, both tuples and the mark, sorted. States
# and flags go: whether R's SYN-ACK or an ICMP error has gone yet is timing.
# A reply destination port in 30000-39999 was chosen at random from one of
# the generator's ranges of whole thousands (the flows' own ports are
# 40000-41999): "~" and the thousand.
ct_tuples()
{
	$IP netns exec $R cat /proc/net/nf_conntrack |
		sed 's/^ipv[46] *[0-9]* \([a-z]*\) *[0-9]* [0-9]* \([A-Z_]* \)\{0,1\}/\1 /; s/\[[A-Z]*\] //g; s/ zone=.*//; s/ use=.*//' |
		awk '{
			for (i = 1; i <= NF; i++)
				if ($i ~ /^dport=/ && ++d == 2) {
					p = substr($i, 7) + 0
					if (p >= 30000 && p < 40000)
						$i = "dport=~" int(p / 1000)
				}
			d = 0
			print
		}' | sort
}

# ct_count: how many entries R's conntrack holds (0 before conntrack is on).
ct_count()
{
	$IP netns exec $R cat /proc/sys/net/netfilter/nf_conntrack_count 2>/dev/null || echo 0
}

# ct_settled: R's tuples once R's conntrack holds as many entries as it
# will (its count stays the same for 0.3 s). Each read() of
# /proc/net/nf_conntrack restarts its walk of the hash table that all
# namespaces share at a position counted from the table's start: when other
# namespaces' entries go meanwhile (the previous seed's namespaces are torn
# down in the background) one read can skip an entry of R's. So the tuples
# are the union of reads, until it holds all of R's entries (at most ten).
ct_settled()
{
	_n=$(ct_count)
	_i=0
	while [ $_i -lt 10 ]; do
		sleep 0.3
		_m=$(ct_count)
		[ "$_m" = "$_n" ] && break
		_n=$_m
		_i=$((_i + 1))
	done
	: > /tmp/natdiff.ct
	_i=0
	while [ $_i -lt 10 ]; do
		ct_tuples >> /tmp/natdiff.ct
		sort -u -o /tmp/natdiff.ct /tmp/natdiff.ct
		[ "$(grep -c . /tmp/natdiff.ct)" -ge "$_n" ] && break
		sleep 0.3
		_i=$((_i + 1))
	done
	cat /tmp/natdiff.ct
}

# record SEED TEXT...: one line of the seed's record.
record()
{
	_s=$1
	shift
	printf '%s\n' "$@" | sed "s/^/# natdiff $_s /"
}

# IPv4's seeds, then IPv6's (half as many, the same tables in IPv6's
# addresses, recorded as seeds v6-N).
for FAM in 4 6; do
	if [ "$FAM" = 4 ]; then
		n=$SEEDS tag= restore=$IPT_RESTORE save=$IPT_SAVE
	else
		n=$(((SEEDS + 1) / 2)) tag=v6- restore=ip6tables-legacy-restore save=ip6tables-legacy-save
	fi
	NODAD=$([ "$FAM" = 6 ] && echo nodad)
	restored=0
	for s in $(seq 1 "$n"); do
		if ! net_up; then
			fail "seed $tag$s: namespaces"
			continue
		fi
		gen_rules "$s" > /tmp/natdiff.rules
		run klog $IP netns exec $R $restore /tmp/natdiff.rules
		record "$tag$s" "restore rc=$RC" "$OUT"
		if [ "$RC" -ne 0 ] && [ "$RC" -ne 1 ] && [ "$RC" -ne 2 ]; then
			fail "seed $tag$s: $restore ended with $RC"
			diag "$OUT"
			continue
		fi
		if [ "$RC" -ne 0 ]; then
			pass "seed $tag$s: refused: $(printf '%s\n' "$OUT" | head -n1)"
			continue
		fi
		restored=$((restored + 1))
		flows fwd | $IP netns exec $C "$PROBE" > /tmp/natdiff.fwd 2>&1
		frc=$?
		flows local | $IP netns exec $R "$PROBE" > /tmp/natdiff.local 2>&1
		lrc=$?
		record "$tag$s" "fwd rc=$frc" "$(cat /tmp/natdiff.fwd)" "local rc=$lrc" "$(cat /tmp/natdiff.local)"
		sent=$(sed -n 's/^flow_probe: sent \([0-9]*\).*/\1/p' /tmp/natdiff.fwd /tmp/natdiff.local |
			awk '{ n += $1 } END { print n + 0 }')
		tuples=$(ct_settled)
		record "$tag$s" "$tuples"
		record "$tag$s" "$($IP netns exec $R $save -c -t nat | grep -v '^#')"
		entries=$(printf '%s\n' "$tuples" | grep -c .)
		# The record holds every entry R has, at most one a flow: fewer
		# when a NAT target switched no conntrack on, a policy dropped a
		# flow or no tuple was free (the other boot must agree).
		count=$(ct_count)
		ok_if "seed $tag$s: restored; $sent flows sent, $entries conntrack entries recorded" \
			test "$entries" -eq "$count" -a "$entries" -le "$sent" -a "$sent" -gt 0
		[ "$entries" -eq "$count" ] || diag "R counts $count entries" "$tuples" \
			"R's conntrack statistics, per CPU:" "$($IP netns exec $R cat /proc/net/stat/nf_conntrack)"
	done
	# The generator makes valid tables most of the time: a run that
	# restores few of them tests little.
	ok_if "IPv$FAM: most seeds restored ($restored of $n)" test $((restored * 3)) -ge $((n * 2))
done
cleanup
done_testing
