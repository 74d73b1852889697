// SPDX-License-Identifier: GPL-2.0
/*
 * Differential ABI test of ip6_tables: this kernel's real ip6_tables (level
 * SOL_IPV6 on AF_INET6 raw sockets) against the bpfilter helper (requests
 * with family NFPROTO_IPV6; lib/abi_diff.h says how). This file holds what
 * is ip6_tables' own: the ip6tables-legacy sessions recorded and replayed,
 * with only the extensions the helper serves for IPv6 (tcp, udp, icmp6,
 * multiport, mark, comment, limit, statistic; standard and ERROR targets),
 * the revision queries (those plus names neither has), and the corruptions
 * of struct ip6t_ip6 (every flag and inversion bit, the protocol, TOS) and
 * of limit's and statistic's payloads; the tests themselves are
 * lib/abi_diff_tests.h.
 *
 * The last test prints "abi-diff6: N cases, M mismatches".
 */
#define _GNU_SOURCE
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_statistic.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/netfilter_ipv6/ip6t_ah.h>
#include <linux/netfilter_ipv6/ip6t_frag.h>
#include <linux/netfilter_ipv6/ip6t_hl.h>
#include <linux/netfilter_ipv6/ip6t_ipv6header.h>
#include <linux/netfilter_ipv6/ip6t_mh.h>
#include <linux/netfilter_ipv6/ip6t_opts.h>
#include <linux/netfilter_ipv6/ip6t_rt.h>

#include "kselftest_harness.h"
#include "abi_diff.h"

/* ---- Recorded ip6tables-legacy scenarios --------------------------------- */

#define IP6T "ip6tables-legacy -w 60 "
#define IP6T_RESTORE "| ip6tables-legacy-restore -w 60"

static const struct abi_scenario scenarios[] = {
	{ "append_tcp", { IP6T "-A INPUT -p tcp --dport 22 -j ACCEPT", IP6T "-S" } },
	{ "append_counters", {
		IP6T "-A INPUT -p tcp --dport 22 -c 5 100 -j ACCEPT",
		IP6T "-A OUTPUT -d 2001:db8::1:2:3 -c 7 7000 -j DROP",
		IP6T "-L -v -n -x" } },
	{ "insert_delete", {
		IP6T "-A INPUT -s fd00::/8 -j DROP",
		IP6T "-I INPUT 1 -p udp --dport 53 -j ACCEPT",
		IP6T "-I INPUT 2 -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT",
		IP6T "-D INPUT 2",
		IP6T "-D INPUT -s fd00::/8 -j DROP",
		IP6T "-S" } },
	{ "replace_rule", {
		IP6T "-A FORWARD -i eth0 -o eth1 -j ACCEPT",
		IP6T "-R FORWARD 1 -i eth+ ! -o eth1 -j DROP",
		IP6T "-R FORWARD 1 -p tcp --tcp-flags SYN,ACK SYN -j DROP" } },
	{ "udp_icmp_options", {
		IP6T "-A INPUT -p udp --sport 53 -j ACCEPT",
		IP6T "-A INPUT -p udp ! --dport 67:68 -j DROP",
		IP6T "-A INPUT -p udp ! --sport 1 ! --dport 2 -j DROP",
		IP6T "-A INPUT -p icmpv6 --icmpv6-type 1/4 -j DROP",
		IP6T "-A INPUT -p icmpv6 ! --icmpv6-type destination-unreachable -j DROP",
		IP6T "-A INPUT -p icmpv6 --icmpv6-type 128 -j ACCEPT",
		IP6T "-A INPUT -p ipv6-icmp --icmpv6-type neighbour-solicitation -j ACCEPT",
		IP6T "-A INPUT -p 58 -m icmp6 --icmpv6-type packet-too-big -j ACCEPT",
		/* -m icmp6 without -p icmpv6: EINVAL from the kernel. */
		IP6T "-A INPUT -m icmp6 --icmpv6-type 128 -j ACCEPT" } },
	{ "addresses_interfaces", {
		IP6T "-A INPUT -s 2001:db8::1 -d 2001:db8::2 -j ACCEPT",
		IP6T "-A INPUT ! -s 2001:db8::/ffff:ffff:0:ffff:: ! -d fc00::/7 -j DROP",
		IP6T "-A INPUT -i lo -j ACCEPT",
		IP6T "-A INPUT ! -i veth+ -j DROP",
		IP6T "-A FORWARD -i br0 -o + -j ACCEPT",
		IP6T "-A OUTPUT ! -o eth0.100 -j ACCEPT",
		IP6T "-A FORWARD -s ::/0 -d ::1/128 -j DROP",
		IP6T "-A FORWARD ! -p tcp -j ACCEPT",
		IP6T "-A FORWARD -p 47 -s 2001:db8:ffff:ffff:ffff:ffff:ffff:fff0/124 -j ACCEPT" } },
	/* The first base: user chains chain_a and chain_b (e_corrupt_semantics). */
	{ "restore_rich", {
		"printf '%s\\n' '*filter' ':INPUT DROP [1:60]' ':FORWARD ACCEPT [2:120]' "
		"':OUTPUT ACCEPT [3:180]' ':chain_a - [0:0]' ':chain_b - [0:0]' "
		"'[4:400] -A INPUT -i lo -j ACCEPT' "
		"'[5:500] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT' "
		"'-A INPUT -s fd00::/8 -p udp -m udp --sport 53 -j chain_a' "
		"'-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT' "
		"'-A INPUT -i veth+ -g chain_b' "
		"'-A FORWARD -s 2001:db8::/32 ! -d 2001:db8::/32 -j DROP' "
		"'-A OUTPUT -o eth0 -d 2001:db8:1::/48 -j DROP' "
		"'-A chain_a -p tcp -m tcp ! --syn -j RETURN' "
		"'-A chain_a -j chain_b' "
		"'-A chain_b -p udp -m udp ! --dport 1000:2000 -j DROP' "
		"'-A chain_b -j RETURN' 'COMMIT' " IP6T_RESTORE " -c",
		"ip6tables-legacy-save -c",
		IP6T "-A chain_b -p tcp --dport 25 -j DROP",
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' 'COMMIT' " IP6T_RESTORE } },
	{ "restore_noflush", {
		"printf '%s\\n' '*filter' ':x - [0:0]' '-A x -j ACCEPT' "
		"'-A INPUT -j x' 'COMMIT' " IP6T_RESTORE " -n",
		"printf '%s\\n' '*filter' '-A x -p udp -j DROP' 'COMMIT' " IP6T_RESTORE " -n",
		"ip6tables-legacy-save" } },
	{ "protocol_numbers", {
		IP6T "-A INPUT -p 132 -j DROP",
		IP6T "-A INPUT -p all -j ACCEPT",
		IP6T "-A INPUT ! -p 17 -j ACCEPT",
		IP6T "-A OUTPUT -p icmpv6 -j DROP",
		IP6T "-A OUTPUT -p udplite -j DROP",
		IP6T "-A OUTPUT -p 255 -j DROP",
		IP6T "-A OUTPUT ! -p ipv6-icmp -j DROP",
		IP6T "-A INPUT -p 0 -j ACCEPT",
		IP6T "-S" } },
	{ "multiport_errors", {
		/* iptables refuses some itself; the kernel the protocols. */
		IP6T "-A INPUT -m multiport --dports 22 -j ACCEPT",
		IP6T "-A INPUT ! -p tcp -m multiport --dports 22 -j ACCEPT",
		IP6T "-A INPUT -p icmpv6 -m multiport --dports 22 -j ACCEPT",
		IP6T "-A INPUT -p all -m multiport --dports 22 -j ACCEPT",
		IP6T "-A INPUT -p udp -m multiport --ports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j ACCEPT",
		IP6T "-A INPUT -p tcp -m multiport --dports 90:80 -j ACCEPT",
		IP6T "-A INPUT -p tcp -m multiport --sports 1 --dports 2 -j ACCEPT",
		IP6T "-A INPUT -p tcp -m multiport --dports 22 -j ACCEPT",
		IP6T "-D INPUT -p tcp -m multiport --dports 23 -j ACCEPT",
		IP6T "-S" } },
	{ "mark_comment", {
		IP6T "-A INPUT -m mark --mark 0x10/0xff -j ACCEPT",
		IP6T "-A INPUT -m mark ! --mark 7 -j ACCEPT",
		IP6T "-A OUTPUT -m mark --mark 0xffffffff/0x0 -j ACCEPT",
		IP6T "-A INPUT -m comment --comment 'hello world' -j ACCEPT",
		IP6T "-A INPUT -p tcp --dport 22 -m comment --comment "
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -j ACCEPT",
		IP6T "-A INPUT -m comment --comment '' -j DROP",
		IP6T "-N annotated",
		IP6T "-A annotated -m comment --comment 'in a user chain' -j RETURN",
		IP6T "-I INPUT 2 -m comment --comment jump -j annotated",
		IP6T "-R INPUT 1 -m comment --comment replaced -m mark --mark 1 -j DROP",
		IP6T "-D INPUT -m mark ! --mark 7 -j ACCEPT",
		"ip6tables-legacy-save -c" } },
	{ "limit_statistic", {
		IP6T "-A INPUT -m limit --limit 5/sec --limit-burst 10 -j ACCEPT",
		IP6T "-A INPUT -m limit -j ACCEPT",
		IP6T "-A INPUT -m limit --limit 10000/sec --limit-burst 10000 -j ACCEPT",
		IP6T "-A INPUT -m limit --limit 1/day --limit-burst 1 -j ACCEPT",
		IP6T "-A INPUT -m statistic --mode nth --every 3 --packet 1 -j DROP",
		IP6T "-A INPUT -m statistic --mode nth ! --every 2 --packet 1 -j DROP",
		IP6T "-A INPUT -m statistic --mode random --probability 0.5 -j ACCEPT",
		IP6T "-A INPUT -m statistic --mode random ! --probability 0.001 -j ACCEPT",
		IP6T "-A OUTPUT -p udp -m statistic --mode nth --every 10 --packet 9 -m limit --limit 7/min -j ACCEPT",
		IP6T "-D INPUT -m limit -j ACCEPT",
		IP6T "-R INPUT 1 -m limit --limit 2/hour --limit-burst 3 -j DROP",
		"ip6tables-legacy-save -c" } },
	{ "combined", {
		IP6T "-A INPUT -p tcp -s 2001:db8::/64 -i eth+ -m multiport --dports 80,443 "
		"-m comment --comment web -m mark --mark 1 -m limit --limit 10/sec "
		"-m statistic --mode nth --every 4 --packet 0 -j ACCEPT",
		IP6T "-A INPUT -p udp --dport 53 -m limit --limit 1/sec -m comment --comment dns -j ACCEPT",
		IP6T "-N rate",
		IP6T "-A rate -m limit --limit 3/min -j RETURN",
		IP6T "-A rate -j DROP",
		IP6T "-A INPUT -p icmpv6 --icmpv6-type echo-request -j rate",
		IP6T "-A OUTPUT -m statistic --mode random --probability 0.1 -j DROP",
		IP6T "-L -v -n -x",
		"ip6tables-legacy-save -c" } },
	/* Matches with an IPv6 form or none in particular, and their checkentry refusals. */
	{ "v6_forms", {
		IP6T "-A INPUT -m length --length 100:200 -m pkttype --pkt-type multicast "
		"-m cpu --cpu 0 -m u32 --u32 '6>>24=17' -j DROP",
		IP6T "-A INPUT -m tos --tos 0x10/0x3f -m dscp ! --dscp 10 -m iprange "
		"--src-range 2001:db8::1-2001:db8::ff ! --dst-range fd00::9-fd00::1 -j ACCEPT",
		IP6T "-A INPUT -p tcp -m ecn --ecn-tcp-cwr ! --ecn-ip-ect 2 -m tcpmss ! --mss 1:536 -j ACCEPT",
		IP6T "-A INPUT -p esp -m esp ! --espspi 100:200 -j DROP",
		IP6T "-A FORWARD -m devgroup --src-group 1 --dst-group 2 -m mac --mac-source 02:00:00:00:00:01 -j DROP",
		IP6T "-A INPUT -p udp -m ecn --ecn-tcp-cwr -j DROP",
		IP6T "-A INPUT ! -p tcp -m ecn --ecn-tcp-ece -j DROP",
		IP6T "-A INPUT -p udp -m tcpmss --mss 1:500 -j DROP",
		IP6T "-A OUTPUT -m mac --mac-source 02:00:00:00:00:01 -j DROP",
		IP6T "-A OUTPUT -m devgroup --src-group 1 -j DROP",
		IP6T "-A INPUT -m devgroup --dst-group 1 -j DROP",
		"ip6tables-legacy-save -c" } },
	/* One REPLACE holding every match: the base of e_corrupt_matches. */
	{ "restore_matches", {
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' "
		"':OUTPUT ACCEPT [0:0]' "
		"'-A INPUT -p tcp -m multiport --dports 22,80:90,443 -j ACCEPT' "
		"'-A INPUT -m mark --mark 0x10/0xff -j ACCEPT' "
		"'-A INPUT -m comment --comment new-matches -j ACCEPT' "
		"'-A INPUT -m limit --limit 5/sec --limit-burst 10 -j ACCEPT' "
		"'-A INPUT -m statistic --mode nth --every 3 --packet 1 -j DROP' "
		"'-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT' "
		"'-A INPUT -p udp -m udp --sport 53 -j ACCEPT' "
		"'-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT' "
		"'-A FORWARD -p udp -m comment --comment both -m multiport ! --ports 7,8:9 -m mark ! --mark 3 -j DROP' "
		"'-A FORWARD -m limit --limit 1/min -m statistic --mode random --probability 0.25 -j ACCEPT' "
		"'-A OUTPUT -m statistic --mode nth ! --every 2 --packet 0 -m limit --limit 3/hour --limit-burst 1 -j ACCEPT' "
		"'-A INPUT -m frag ! --fragid 5:9 --fragres --fragmore -j DROP' "
		"'-A INPUT -m hbh --hbh-len 16 --hbh-opts 1:4,0,30 -j DROP' "
		"'-A INPUT -m dst ! --dst-len 8 --dst-opts 30:2 -j DROP' "
		"'-A INPUT -m rt --rt-type 0 ! --rt-segsleft 1:3 --rt-len 24 --rt-0-res --rt-0-addrs ::1 -j DROP' "
		"'-A INPUT -m ah --ahspi 256:300 ! --ahlen 16 --ahres -j DROP' "
		"'-A INPUT -m ipv6header --header hop,frag,prot --soft -j DROP' "
		"'-A INPUT -m hl --hl-lt 5 -j DROP' "
		"'-A INPUT -p mh -m mh ! --mh-type 1:3 -j DROP' "
		"'COMMIT' " IP6T_RESTORE,
		"ip6tables-legacy-save -c",
		IP6T "-D FORWARD 1" } },
	/*
	 * ip6table_nat's chains and validation; the targets themselves need
	 * bpfilter.ko (the VM tests run them).
	 */
	{ "nat_table", {
		IP6T "-t nat -N DOCKER",
		IP6T "-t nat -A PREROUTING -d 2001:db8::1 -j DOCKER",
		IP6T "-t nat -A OUTPUT ! -d ::1 -j DOCKER",
		IP6T "-t nat -A DOCKER -i docker0 -j RETURN",
		IP6T "-t nat -A INPUT -p tcp -j DNAT --to-destination 2001:db8::2",
		IP6T "-t nat -A PREROUTING -j SNAT --to-source 2001:db8::2",
		IP6T "-t nat -A OUTPUT -j MASQUERADE",
		IP6T "-t nat -A POSTROUTING -p tcp -j REDIRECT --to-ports 80",
		IP6T "-A INPUT -p tcp -j DNAT --to-destination 2001:db8::2",
		IP6T "-A FORWARD -j MASQUERADE",
		IP6T "-t nat -L -n -v -x",
		IP6T "-t nat -S" } },
	/* One file, two tables: each COMMIT is its own replace, the failing one changes nothing. */
	{ "restore_tables", {
		"printf '%s\\n' '*raw' ':PREROUTING ACCEPT [0:0]' ':OUTPUT DROP [3:4]' "
		"'-A PREROUTING -s 2001:db8::/32 -j ACCEPT' 'COMMIT' '*filter' ':INPUT DROP [0:0]' "
		"'-A INPUT -s 2001:db8:1::/48 -j DROP' 'COMMIT' | ip6tables-legacy-restore -w 60 -c",
		"ip6tables-legacy-save -c",
		"printf '%s\\n' '*raw' ':PREROUTING DROP [0:0]' ':OUTPUT ACCEPT [0:0]' 'COMMIT' "
		"'*filter' ':INPUT ACCEPT [0:0]' '-A INPUT -j NOTRACK' 'COMMIT' "
		IP6T_RESTORE,
		"ip6tables-legacy-save" } },
	ABI_COMMON_SCENARIOS(IP6T, "fd00::/8"),
};


/* ---- Corruptions of struct ip6t_ip6 -------------------------------------- */

#define IP6()	(&((struct ip6t_entry *)E())->ipv6)

/*
 * Every bit of flags and invflags alone (IP6T_F_MASK and IP6T_INV_MASK
 * hold the valid ones; a policy must have none), the protocol's 16 bits,
 * and the fields ip6_tables copies without reading.
 */
static void family_entry_ip(struct abi_mut *m)
{
	static const uint16_t protos[] = { 0, IPPROTO_UDP, IPPROTO_ICMPV6,
					   0x100 | IPPROTO_TCP, 0xffff };
	unsigned int bit, j;

	for (bit = 0; bit < 8; bit++) {
		RESET();
		IP6()->flags |= 1u << bit;
		RUN("ipv6.flags|=0x%02x", 1u << bit);
		RESET();
		IP6()->invflags |= 1u << bit;
		RUN("ipv6.invflags|=0x%02x", 1u << bit);
	}
	RESET();
	IP6()->flags = IP6T_F_MASK;
	RUN("ipv6.flags=0x%02x", IP6T_F_MASK);
	RESET();
	IP6()->invflags = IP6T_INV_MASK;
	RUN("ipv6.invflags=0x%02x", IP6T_INV_MASK);
	for (j = 0; j < sizeof(protos) / sizeof(protos[0]); j++) {
		RESET();
		IP6()->proto = protos[j];
		RUN("ipv6.proto=0x%x", protos[j]);
	}
	RESET();
	IP6()->flags &= ~IP6T_F_PROTO;
	RUN("ipv6.flags without PROTO");
	RESET();
	IP6()->tos = 0xff;
	RUN("ipv6.tos=0xff");
	RESET();
	IP6()->flags |= IP6T_F_TOS;
	IP6()->tos = 0x10;
	IP6()->invflags |= IP6T_INV_TOS;
	RUN("ipv6 ! TOS 0x10");
	RESET();
	memset(IP6()->iniface, 0, sizeof(IP6()->iniface));
	strcpy(IP6()->iniface, "eth0");
	memset(IP6()->iniface_mask, 0, sizeof(IP6()->iniface_mask));
	RUN("iniface eth0 without its mask");
	RESET();
	IP6()->src.s6_addr[15] = 1;
	memset(IP6()->dmsk.s6_addr, 0xf0, sizeof(IP6()->dmsk.s6_addr));
	RUN("src ::1 without a mask, dst mask without an address");
}

/* ---- Corruptions of the matches beyond tcp/udp/icmp6 ---------------------- */

/* limit and statistic copy back only their user fields (usersize). */
static const struct abi_match new_matches[] = {
	ABI_MATCH("comment", struct xt_comment_info, comment, 0, true, 0),
	ABI_MATCH("multiport", struct xt_multiport_v1, invert, 1, false, IPPROTO_TCP),
	ABI_MATCH("mark", struct xt_mark_mtinfo1, invert, 1, true, 0),
	ABI_MATCH("limit", struct xt_rateinfo, burst, 0, true, 0),
	ABI_MATCH("statistic", struct xt_statistic_info, u, 0, true, 0),
	ABI_MATCH("frag", struct ip6t_frag, invflags, 0, false, 0),
	ABI_MATCH("hbh", struct ip6t_opts, optsnr, 0, false, 0),
	ABI_MATCH("dst", struct ip6t_opts, optsnr, 0, false, 0),
	ABI_MATCH("rt", struct ip6t_rt, addrnr, 0, false, 0),
	ABI_MATCH("ah", struct ip6t_ah, invflags, 0, false, 0),
	ABI_MATCH("ipv6header", struct ip6t_ipv6header_info, modeflag, 0, false, 0),
	ABI_MATCH("hl", struct ip6t_hl_info, hop_limit, 0, false, 0),
	ABI_MATCH("mh", struct ip6t_mh, invflags, 0, false, IPPROTO_MH),
};

/* Every bit alone of the invflags at payload offset @off: the match's mask. */
static void ext6_invflags(struct abi_mut *m, size_t off)
{
	unsigned int bit;

	for (bit = 0; bit < 8; bit++) {
		RESET();
		M()->data[off] |= 1u << bit;
		RUN("invflags|=0x%02x", 1u << bit);
	}
}

/*
 * The IPv6 extension matches' checkentries: invflags masks, hbh/dst's
 * option count and NSTRICT, rt's address count and the type 0 it needs
 * for --rt-0-*, ipv6header's hard-mode invflags, hl's modes.
 */
static void ext6_fields(struct abi_mut *m, const struct abi_match *nm)
{
	static const uint8_t counts[] = { 0, 1, 16, 17, 255 };
	unsigned int j;

	if (!strcmp(nm->name, "frag")) {
		ext6_invflags(m, offsetof(struct ip6t_frag, invflags));
		for (j = 0; j < 8; j++) {
			RESET();
			P(struct ip6t_frag)->flags = 1u << j;
			RUN("flags 0x%02x", 1u << j);
		}
	} else if (!strcmp(nm->name, "hbh") || !strcmp(nm->name, "dst")) {
		ext6_invflags(m, offsetof(struct ip6t_opts, invflags));
		for (j = 0; j < sizeof(counts); j++) {
			RESET();
			P(struct ip6t_opts)->optsnr = counts[j];
			RUN("optsnr %u", counts[j]);
		}
		for (j = 0; j < 8; j++) {
			RESET();
			P(struct ip6t_opts)->flags = 1u << j;
			RUN("flags 0x%02x", 1u << j);
		}
	} else if (!strcmp(nm->name, "rt")) {
		ext6_invflags(m, offsetof(struct ip6t_rt, invflags));
		for (j = 0; j < sizeof(counts); j++) {
			RESET();
			P(struct ip6t_rt)->addrnr = counts[j];
			RUN("addrnr %u", counts[j]);
		}
		for (j = 0; j < 8; j++) {
			RESET();
			P(struct ip6t_rt)->flags = 1u << j;
			RUN("flags 0x%02x", 1u << j);
		}
		RESET();
		P(struct ip6t_rt)->rt_type = 2;
		RUN("--rt-0-* with --rt-type 2");
		RESET();
		P(struct ip6t_rt)->invflags |= IP6T_RT_INV_TYP;
		RUN("--rt-0-* with ! --rt-type 0");
		RESET();
		P(struct ip6t_rt)->flags |= IP6T_RT_FST_NSTRICT;
		RUN("--rt-0-not-strict");
	} else if (!strcmp(nm->name, "ah")) {
		ext6_invflags(m, offsetof(struct ip6t_ah, invflags));
		RESET();
		P(struct ip6t_ah)->hdrres = 0xff;
		RUN("hdrres 0xff");
	} else if (!strcmp(nm->name, "ipv6header")) {
		static const uint8_t inv[] = { 0x01, 0x80, 0xff, 0xfe };

		for (j = 0; j < sizeof(inv); j++) {
			RESET();
			P(struct ip6t_ipv6header_info)->invflags = inv[j];
			RUN("soft, invflags 0x%02x", inv[j]);
			RESET();
			P(struct ip6t_ipv6header_info)->modeflag = 0;
			P(struct ip6t_ipv6header_info)->invflags = inv[j];
			RUN("hard, invflags 0x%02x", inv[j]);
		}
		RESET();
		P(struct ip6t_ipv6header_info)->modeflag = 0xff;
		RUN("modeflag 0xff");
	} else if (!strcmp(nm->name, "hl")) {
		for (j = 0; j < 8; j++) {
			RESET();
			P(struct ip6t_hl_info)->mode = j == 7 ? 0xff : j;
			RUN("mode %u", j == 7 ? 0xff : j);
		}
	} else if (!strcmp(nm->name, "mh")) {
		ext6_invflags(m, offsetof(struct ip6t_mh, invflags));
	}
}

/*
 * limit: burst 0 and an avg * burst that wraps are ERANGE; credits count
 * the kernel's HZ jiffies (BPFILTER_HZ for the helper), so the edges of
 * user2credits()'s two roundings are tried. statistic: mode and flags.
 */
static void family_match_fields(struct abi_mut *m, const struct abi_match *nm)
{
	static const struct { uint32_t avg, burst; } rates[] = {
		{ 2000, 0 }, { 0, 5 }, { 0, 0 }, { 0x80000000, 2 }, { 0xffffffff, 2 },
		{ 3, 0x55555556 }, { 1, 0xffffffff }, { 0x10000, 0x10000 },
		{ 134217, 1 }, { 134218, 1 }, { 134218, 32000 }, { 0xffffffff, 1 },
	};
	static const uint16_t modes[] = { XT_STATISTIC_MODE_RANDOM, XT_STATISTIC_MODE_NTH,
					  XT_STATISTIC_MODE_MAX + 1, 0x8000, 0xffff };
	static const uint16_t flags[] = { 0, XT_STATISTIC_INVERT, 2, 0x8001, 0xffff };
	static const uint32_t nth[][3] = {
		{ 0, 0, 0 }, { 1, 5, 0 }, { 3, 1, 7 }, { 0xffffffff, 0xffffffff, 0xffffffff },
	};
	unsigned int j;

	if (!strcmp(nm->name, "limit")) {
		for (j = 0; j < sizeof(rates) / sizeof(rates[0]); j++) {
			RESET();
			P(struct xt_rateinfo)->avg = rates[j].avg;
			P(struct xt_rateinfo)->burst = rates[j].burst;
			RUN("avg %u burst %u", rates[j].avg, rates[j].burst);
		}
		RESET();
		P(struct xt_rateinfo)->cost = 1;
		P(struct xt_rateinfo)->credit_cap = 0xffffffff;
		RUN("cost 1 and credit_cap from user space");
	} else if (!strcmp(nm->name, "statistic")) {
		for (j = 0; j < sizeof(modes) / sizeof(modes[0]); j++) {
			RESET();
			P(struct xt_statistic_info)->mode = modes[j];
			RUN("mode %u", modes[j]);
		}
		for (j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
			RESET();
			P(struct xt_statistic_info)->flags = flags[j];
			RUN("flags 0x%x", flags[j]);
		}
		for (j = 0; j < sizeof(nth) / sizeof(nth[0]); j++) {
			RESET();
			P(struct xt_statistic_info)->u.nth.every = nth[j][0];
			P(struct xt_statistic_info)->u.nth.packet = nth[j][1];
			P(struct xt_statistic_info)->u.nth.count = nth[j][2];
			RUN("nth every %u packet %u count %u", nth[j][0], nth[j][1], nth[j][2]);
		}
		RESET();
		P(struct xt_statistic_info)->mode = XT_STATISTIC_MODE_RANDOM;
		P(struct xt_statistic_info)->u.random.probability = 0x80000000;
		RUN("random mode, probability 0.5");
	}
	ext6_fields(m, nm);
}

/*
 * The matches of one entry are checked one after the other, each
 * completely: FORWARD has -m limit -m statistic, OUTPUT -m statistic
 * -m limit.
 */
static void family_several(struct abi_mut *m)
{
	static const char *const lim_stat[] = { "limit", "statistic" };
	static const char *const stat_lim[] = { "statistic", "limit" };
	static const int second[] = { 1, 1 }, third[] = { 2, 2 };
	uint32_t o[2];

#define STAT(match)	((struct xt_statistic_info *)(match)->data)
#define RATE(match)	((struct xt_rateinfo *)(match)->data)
	if (abi_mut_find(m, 2, lim_stat, second, o)) {
		RESET();
		RATE(M())->burst = 0;
		STAT(M_AT(o[1]))->mode = 2;
		RUN("1st match limit burst 0, 2nd match statistic mode 2");
		RESET();
		M()->u.user.revision = 1;
		STAT(M_AT(o[1]))->mode = 2;
		RUN("1st match limit revision 1, 2nd match statistic mode 2");
		RESET();
		STAT(M_AT(o[1]))->flags = 2;
		strcpy(abi_ent_target(m->f, E())->u.user.name, "NOSUCHTARGET");
		RUN("2nd match statistic flags 2 and target NOSUCHTARGET");
	}
	if (abi_mut_find(m, 2, stat_lim, third, o)) {
		RESET();
		STAT(M())->mode = 2;
		RATE(M_AT(o[1]))->burst = 0;
		RUN("1st match statistic mode 2, 2nd match limit burst 0");
		RESET();
		M_AT(o[1])->u.user.revision = 1;
		RUN("2nd match limit revision 1");
		RESET();
		M_AT(o[1])->u.match_size = 0;
		RUN("2nd match limit match_size 0");
	}
#undef RATE
#undef STAT
}

/* ---- Hand-made queries: what the helper serves for IPv6, and what neither has */

static const struct abi_rev mrev[] = {
	{ "tcp", 0 }, { "tcp", 1 }, { "tcp", 255 }, { "udp", 0 },
	{ "udp", 2 }, { "icmp6", 0 }, { "icmp6", 1 }, { "nosuchmatch", 0 },
	{ "", 0 }, { "TCP", 0 }, { "tcpx", 0 }, { "ICMP6", 0 },
	{ "tttttttttttttttttttttttttttt", 0 },
	{ "comment", 0 }, { "comment", 1 }, { "multiport", 0 },
	{ "multiport", 1 }, { "multiport", 2 }, { "mark", 0 }, { "mark", 1 },
	{ "mark", 2 }, { "limit", 0 }, { "limit", 1 }, { "statistic", 0 },
	{ "statistic", 1 }, { "MARK", 2 }, { "hl", 0 }, { "hl", 1 }, { "mh", 0 },
	{ "mh", 1 }, { "eui64", 0 }, { "eui64", 1 },
	/* ip_tables' own: neither ip6_tables nor the helper's IPv6 has them. */
	{ "icmp", 0 }, { "ttl", 0 },
};

static const struct abi_rev trev[] = {
	{ "", 0 }, { "", 1 }, { "ERROR", 0 }, { "ERROR", 1 },
	{ "NOSUCHTARGET", 0 }, { "ACCEPT", 0 }, { "DROP", 0 },
	{ "RETURN", 0 }, { "error", 0 }, { "MARK", 0 }, { "MARK", 1 },
	{ "MARK", 2 }, { "MARK", 3 }, { "mark", 2 }, { "CT", 0 }, { "CT", 1 },
	{ "CT", 2 }, { "CT", 3 }, { "NOTRACK", 0 }, { "NOTRACK", 1 },
};

static const struct abi_flag policy_flags[] = {
	{ IP6T_F_PROTO, "flag PROTO" }, { IP6T_F_TOS, "flag TOS" },
	{ IP6T_F_GOTO, "flag GOTO" },
};
static const char *const proto_matches[] = { "tcp", "udp", "icmp6" };
static const uint16_t protos[] = { 0, 6, 17, 58, 1, 132, 0x106, 0x111, 0x13a };
static const uint16_t match_protos[] = { 0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP,
					 IPPROTO_DCCP, IPPROTO_ESP, IPPROTO_AH,
					 IPPROTO_SCTP, IPPROTO_UDPLITE, 255,
					 IPPROTO_ICMPV6, 0x100 | IPPROTO_TCP };

static const struct abi_family abi_family = {
	.tag = "abi-diff6",
	.tool = "ip6tables",
	.ipt = "ip6tables-legacy",
	.nfproto_name = "NFPROTO_IPV6",
	.nfproto = NFPROTO_IPV6,
	.min_cases = 1000,
	ABI_LAYOUT(struct ip6t_entry, ipv6),
	.flag_goto = IP6T_F_GOTO,
	.init_size = 856,
	ABI_TABLES,
};

#include "abi_diff_tests.h"
