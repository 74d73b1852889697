// SPDX-License-Identifier: GPL-2.0
/*
 * Differential ABI test of ip_tables: this kernel's real ip_tables against
 * the bpfilter helper (lib/abi_diff.h says how). This file holds what is
 * ip_tables' own: the iptables-legacy sessions recorded and replayed, the
 * matches whose every check is tried, the revision queries, and the
 * corruptions of struct ipt_ip and of the IPv4-only matches' payloads; the
 * tests themselves are lib/abi_diff_tests.h.
 *
 * The last test prints "abi-diff: N cases, M mismatches".
 */
#define _GNU_SOURCE
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_dscp.h>
#include <linux/netfilter/xt_ecn.h>
#include <linux/netfilter/xt_esp.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpmss.h>
#include <linux/netfilter/xt_u32.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv4/ipt_ah.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>

#include "kselftest_harness.h"
#include "abi_diff.h"

/* ---- Recorded iptables-legacy scenarios ---------------------------------- */

#define IPT "iptables-legacy -w 60 "

static const struct abi_scenario scenarios[] = {
	{ "append_tcp", { IPT "-A INPUT -p tcp --dport 22 -j ACCEPT", IPT "-S" } },
	{ "append_counters", {
		IPT "-A INPUT -p tcp --dport 22 -c 5 100 -j ACCEPT",
		IPT "-A OUTPUT -d 10.1.2.3 -c 7 7000 -j DROP",
		IPT "-L -v -n -x" } },
	{ "insert_delete", {
		IPT "-A INPUT -s 192.168.0.0/16 -j DROP",
		IPT "-I INPUT 1 -p udp --dport 53 -j ACCEPT",
		IPT "-I INPUT 2 -p icmp --icmp-type echo-request -j ACCEPT",
		IPT "-D INPUT 2",
		IPT "-D INPUT -s 192.168.0.0/16 -j DROP",
		IPT "-S" } },
	{ "replace_rule", {
		IPT "-A FORWARD -i eth0 -o eth1 -j ACCEPT",
		IPT "-R FORWARD 1 -i eth+ ! -o eth1 -j DROP",
		IPT "-R FORWARD 1 -p tcp --tcp-flags SYN,ACK SYN -j DROP" } },
	{ "udp_icmp_options", {
		IPT "-A INPUT -p udp --sport 53 -j ACCEPT",
		IPT "-A INPUT -p udp ! --dport 67:68 -j DROP",
		IPT "-A INPUT -p udp ! --sport 1 ! --dport 2 -j DROP",
		IPT "-A INPUT -p icmp --icmp-type any -j ACCEPT",
		IPT "-A INPUT -p icmp --icmp-type 3/4 -j DROP",
		IPT "-A INPUT -p icmp ! --icmp-type destination-unreachable -j DROP",
		IPT "-A INPUT -p icmp --icmp-type 8 -j ACCEPT" } },
	{ "addresses_interfaces", {
		IPT "-A INPUT -s 10.0.0.1 -d 10.0.0.2 -j ACCEPT",
		IPT "-A INPUT ! -s 10.0.0.0/255.255.0.255 ! -d 172.16.0.0/12 -j DROP",
		IPT "-A INPUT -i lo -j ACCEPT",
		IPT "-A INPUT ! -i veth+ -j DROP",
		IPT "-A FORWARD -i br0 -o + -j ACCEPT",
		IPT "-A OUTPUT ! -o eth0.100 -j ACCEPT",
		IPT "-A FORWARD -f -j DROP",
		IPT "-A FORWARD ! -f -p 47 -j ACCEPT",
		IPT "-A FORWARD ! -p tcp -j ACCEPT" } },
	{ "restore_rich", {
		"printf '%s\\n' '*filter' ':INPUT DROP [1:60]' ':FORWARD ACCEPT [2:120]' "
		"':OUTPUT ACCEPT [3:180]' ':chain_a - [0:0]' ':chain_b - [0:0]' "
		"'[4:400] -A INPUT -i lo -j ACCEPT' "
		"'[5:500] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT' "
		"'-A INPUT -s 10.0.0.0/8 -p udp -m udp --sport 53 -j chain_a' "
		"'-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT' "
		"'-A INPUT -i veth+ -g chain_b' "
		"'-A FORWARD -f -j DROP' "
		"'-A OUTPUT -o eth0 -d 192.168.1.0/24 -j DROP' "
		"'-A chain_a -p tcp -m tcp ! --syn -j RETURN' "
		"'-A chain_a -j chain_b' "
		"'-A chain_b -p udp -m udp ! --dport 1000:2000 -j DROP' "
		"'-A chain_b -j RETURN' 'COMMIT' | iptables-legacy-restore -w 60 -c",
		"iptables-legacy-save -c",
		IPT "-A chain_b -p tcp --dport 25 -j DROP",
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' 'COMMIT' "
		"| iptables-legacy-restore -w 60" } },
	{ "restore_noflush", {
		"printf '%s\\n' '*filter' ':x - [0:0]' '-A x -j ACCEPT' "
		"'-A INPUT -j x' 'COMMIT' | iptables-legacy-restore -w 60 -n",
		"printf '%s\\n' '*filter' '-A x -p udp -j DROP' 'COMMIT' "
		"| iptables-legacy-restore -w 60 -n",
		"iptables-legacy-save" } },
	{ "protocol_numbers", {
		IPT "-A INPUT -p 132 -j DROP",
		IPT "-A INPUT -p all -j ACCEPT",
		IPT "-A INPUT ! -p 17 -j ACCEPT",
		IPT "-A OUTPUT -p icmp -j DROP",
		IPT "-A OUTPUT -p udplite -j DROP" } },
	/* The matches beyond tcp/udp/icmp: every option and inversion. */
	{ "multiport_errors", {
		/* iptables refuses these itself: nothing but reads reach the kernel. */
		IPT "-A INPUT -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT ! -p tcp -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p icmp -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p all -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p udp -m multiport --ports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --dports 90:80 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --sports 1 --dports 2 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --dports 22 -j ACCEPT",
		IPT "-D INPUT -p tcp -m multiport --dports 23 -j ACCEPT",
		IPT "-S" } },
	{ "iprange_mark_length", {
		IPT "-A INPUT -m iprange ! --src-range 10.0.0.1-10.0.0.9 --dst-range 192.168.1.1-192.168.1.200 -j DROP",
		IPT "-A INPUT -m iprange --src-range 10.0.0.9-10.0.0.1 -j DROP",
		IPT "-A INPUT -m iprange ! --dst-range 1.2.3.4 -j DROP",
		IPT "-A INPUT -m mark --mark 0x10/0xff -j ACCEPT",
		IPT "-A INPUT -m mark ! --mark 7 -j ACCEPT",
		IPT "-A OUTPUT -m mark --mark 0xffffffff/0x0 -j ACCEPT",
		IPT "-A INPUT -m length ! --length 100:200 -j DROP",
		IPT "-A INPUT -m length --length 1500 -j DROP",
		IPT "-A INPUT -m length --length 200:100 -j DROP",
		IPT "-A OUTPUT -m length --length :64 -m mark ! --mark 1/1 -j DROP",
		IPT "-D INPUT -m mark ! --mark 7 -j ACCEPT",
		IPT "-S" } },
	{ "ttl_tos_dscp", {
		IPT "-A INPUT -m ttl --ttl-lt 5 -j DROP",
		IPT "-A INPUT -m ttl --ttl-gt 200 -j DROP",
		IPT "-A INPUT -m ttl --ttl-eq 64 -j ACCEPT",
		IPT "-A INPUT -m ttl ! --ttl-eq 1 -j ACCEPT",
		IPT "-A INPUT -m tos --tos 0x10/0x3f -j ACCEPT",
		IPT "-A INPUT -m tos ! --tos Minimize-Delay -j ACCEPT",
		IPT "-A OUTPUT -m tos --tos 0xff -j ACCEPT",
		IPT "-A INPUT -m dscp --dscp-class AF41 -j ACCEPT",
		IPT "-A INPUT -m dscp ! --dscp 0x3f -j ACCEPT",
		IPT "-A INPUT -m dscp --dscp 0x40 -j ACCEPT",
		IPT "-A FORWARD -m dscp --dscp-class EF -m ttl --ttl-lt 2 -m tos ! --tos 0/0xe0 -j DROP",
		IPT "-S" } },
	{ "ah_esp", {
		IPT "-A INPUT -p ah -m ah --ahspi 1:100 -j ACCEPT",
		IPT "-A INPUT -p ah -m ah ! --ahspi 5 -j ACCEPT",
		IPT "-A INPUT -p ah -m ah -j ACCEPT",
		/* Protocol errors only the kernel sees: EINVAL. */
		IPT "-A INPUT -m ah --ahspi 5 -j ACCEPT",
		IPT "-A INPUT ! -p ah -m ah --ahspi 5 -j ACCEPT",
		IPT "-A INPUT -p esp -m ah -j ACCEPT",
		IPT "-A INPUT -p esp -m esp ! --espspi 7 -j ACCEPT",
		IPT "-A INPUT -p esp -m esp --espspi 100:50 -j ACCEPT",
		IPT "-A OUTPUT -p 50 -m esp --espspi 0xffffffff -j ACCEPT",
		IPT "-A INPUT -p tcp -m esp --espspi 7 -j ACCEPT",
		IPT "-A INPUT -m esp --espspi 7 -j ACCEPT",
		IPT "-S" } },
	{ "meta_matches", {
		IPT "-A INPUT -m pkttype --pkt-type broadcast -j DROP",
		IPT "-A INPUT -m pkttype ! --pkt-type unicast -j ACCEPT",
		IPT "-A OUTPUT -m pkttype --pkt-type multicast -j ACCEPT",
		IPT "-A INPUT -m devgroup --src-group 7 -j ACCEPT",
		IPT "-A OUTPUT -m devgroup ! --dst-group 0x3/0xf -j ACCEPT",
		IPT "-A FORWARD -m devgroup --src-group 1 ! --dst-group 2 -j DROP",
		IPT "-A INPUT -m realm --realm 5 -j ACCEPT",
		IPT "-A OUTPUT -m realm ! --realm 0x50000/0xffff0000 -j ACCEPT",
		IPT "-A INPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT",
		IPT "-A FORWARD -m mac ! --mac-source 02:00:00:00:00:02 -j DROP",
		IPT "-D INPUT -m pkttype ! --pkt-type unicast -j ACCEPT",
		"iptables-legacy-save -c" } },
	{ "ecn_tcpmss", {
		IPT "-A INPUT -p tcp -m ecn --ecn-tcp-ece -j ACCEPT",
		IPT "-A INPUT -p tcp -m ecn ! --ecn-tcp-cwr ! --ecn-ip-ect 3 -j DROP",
		IPT "-A OUTPUT -m ecn --ecn-ip-ect 2 -j ACCEPT",
		/* TCP bits without -p tcp, or with ! -p tcp: EINVAL from checkentry. */
		IPT "-A INPUT -m ecn --ecn-tcp-ece -j ACCEPT",
		IPT "-A INPUT ! -p tcp -m ecn --ecn-tcp-cwr -j ACCEPT",
		IPT "-A INPUT -p udp -m ecn --ecn-tcp-cwr --ecn-ip-ect 1 -j ACCEPT",
		IPT "-A INPUT -p tcp --syn -m tcpmss --mss 1:536 -j DROP",
		IPT "-A FORWARD -p tcp -m tcpmss ! --mss 1460 -j ACCEPT",
		/* tcpmss is a TCP match: EINVAL elsewhere. */
		IPT "-A INPUT -m tcpmss --mss 1460 -j ACCEPT",
		IPT "-A INPUT -p udp -m tcpmss --mss 1460 -j ACCEPT",
		"iptables-legacy-save -c" } },
	{ "u32", {
		IPT "-A INPUT -m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x47455420\" -j DROP",
		IPT "-A OUTPUT -m u32 ! --u32 \"6&0xFF=6,17&&4&0x3FFF=0\" -j ACCEPT",
		IPT "-A FORWARD -m u32 --u32 \"0x0@0xfffffff0>>31=1:0xffffffff\" -j ACCEPT",
		/* Shifts of 32 or more: EINVAL from checkentry. */
		IPT "-A INPUT -m u32 --u32 \"0<<32=1\" -j ACCEPT",
		IPT "-A INPUT -m u32 --u32 \"0>>40=1\" -j ACCEPT",
		IPT "-D INPUT -m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x47455420\" -j DROP",
		"iptables-legacy-save -c" } },
	/* Devices or headers a hook does not have, also through a jump: EINVAL. */
	{ "meta_hooks", {
		IPT "-A OUTPUT -m devgroup --src-group 7 -j ACCEPT",
		IPT "-A INPUT -m devgroup --dst-group 7 -j ACCEPT",
		IPT "-N dg",
		IPT "-A dg -m devgroup --src-group 5 -j RETURN",
		IPT "-A OUTPUT -j dg",
		IPT "-A INPUT -j dg",
		IPT "-A OUTPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT",
		IPT "-N mc",
		IPT "-A mc -m mac --mac-source 02:00:00:00:00:03 -j RETURN",
		IPT "-A INPUT -j mc",
		IPT "-A OUTPUT -j mc",
		"iptables-legacy-save -c" } },
	{ "comment_combined", {
		IPT "-A INPUT -m comment --comment 'hello world' -j ACCEPT",
		IPT "-A INPUT -p tcp --dport 22 -m comment --comment "
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -j ACCEPT",
		IPT "-A INPUT -m comment --comment '' -j DROP",
		IPT "-N annotated",
		IPT "-A annotated -m comment --comment 'in a user chain' -j RETURN",
		IPT "-I INPUT 2 -m comment --comment jump -j annotated",
		IPT "-A INPUT -p tcp -m multiport --dports 80,443 -m comment --comment web "
		"-m mark --mark 1 -m length --length 0:1000 -m ttl --ttl-gt 1 -m tos --tos 0 "
		"-m dscp --dscp 0 -m iprange --src-range 1.1.1.1-1.1.1.2 -j ACCEPT",
		IPT "-R INPUT 1 -m comment --comment replaced -j DROP",
		IPT "-D INPUT -m comment --comment '' -j DROP",
		"iptables-legacy-save -c" } },
	/* One REPLACE holding every new match: the base of e_corrupt_matches. */
	{ "restore_matches", {
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' "
		"':OUTPUT ACCEPT [0:0]' "
		"'-A INPUT -p tcp -m multiport --dports 22,80:90,443 -j ACCEPT' "
		"'-A INPUT -m iprange ! --src-range 10.0.0.1-10.0.0.9 --dst-range 192.168.1.1-192.168.1.200 -j DROP' "
		"'-A INPUT -m mark --mark 0x10/0xff -j ACCEPT' "
		"'-A INPUT -m length ! --length 100:200 -j DROP' "
		"'-A INPUT -m ttl --ttl-lt 5 -j DROP' "
		"'-A INPUT -m tos --tos 0x10/0x3f -j ACCEPT' "
		"'-A INPUT -m dscp --dscp-class AF41 -j ACCEPT' "
		"'-A INPUT -p ah -m ah --ahspi 1:100 -j ACCEPT' "
		"'-A INPUT -p esp -m esp ! --espspi 7 -j ACCEPT' "
		"'-A INPUT -m comment --comment new-matches -j ACCEPT' "
		"'-A FORWARD -p udp -m comment --comment both -m multiport ! --ports 7,8:9 -m mark ! --mark 3 -j DROP' "
		"'-A FORWARD -m ttl --ttl-gt 1 -m dscp --dscp 1 -j ACCEPT' "
		"'-A OUTPUT -m dscp --dscp 2 -m ttl ! --ttl-eq 3 -j ACCEPT' "
		"'-A INPUT -p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece --ecn-ip-ect 1 -j ACCEPT' "
		"'-A INPUT -p tcp -m tcpmss ! --mss 1000:1460 -j DROP' "
		"'-A INPUT -m u32 --u32 \"0>>22&0x3C@0>>16=22,80:90&&0<<4>>28=5\" -j ACCEPT' "
		"'COMMIT' | iptables-legacy-restore -w 60",
		"iptables-legacy-save -c",
		IPT "-D FORWARD 1" } },
	/*
	 * The nat table's chains and validation. Its targets are held by
	 * bpfilter.ko, which this host lacks: only their refusals by
	 * translate_table() itself (hooks, table) are compared here; the VM
	 * tests run them.
	 */
	{ "nat_table", {
		IPT "-t nat -N DOCKER",
		IPT "-t nat -A PREROUTING -d 10.0.0.1 -j DOCKER",
		IPT "-t nat -A OUTPUT ! -d 127.0.0.0/8 -j DOCKER",
		IPT "-t nat -A DOCKER -i docker0 -j RETURN",
		IPT "-t nat -A INPUT -p tcp -j DNAT --to-destination 10.0.0.2",
		IPT "-t nat -A PREROUTING -j SNAT --to-source 10.0.0.2",
		IPT "-t nat -A OUTPUT -j MASQUERADE",
		IPT "-t nat -A POSTROUTING -p tcp -j REDIRECT --to-ports 80",
		IPT "-A INPUT -p tcp -j DNAT --to-destination 10.0.0.2",
		IPT "-A FORWARD -j MASQUERADE",
		IPT "-t nat -L -n -v -x",
		IPT "-t nat -S" } },
	/* One file, two tables: each COMMIT is its own replace, the failing one changes nothing. */
	{ "restore_tables", {
		"printf '%s\\n' '*raw' ':PREROUTING ACCEPT [0:0]' ':OUTPUT DROP [3:4]' "
		"'-A PREROUTING -s 10.0.0.0/8 -j ACCEPT' 'COMMIT' '*filter' ':INPUT DROP [0:0]' "
		"'-A INPUT -s 10.1.0.0/16 -j DROP' 'COMMIT' | iptables-legacy-restore -w 60 -c",
		"iptables-legacy-save -c",
		"printf '%s\\n' '*raw' ':PREROUTING DROP [0:0]' ':OUTPUT ACCEPT [0:0]' 'COMMIT' "
		"'*filter' ':INPUT ACCEPT [0:0]' '-A INPUT -j NOTRACK' 'COMMIT' "
		"| iptables-legacy-restore -w 60",
		"iptables-legacy-save" } },
	ABI_COMMON_SCENARIOS(IPT, "10.0.0.0/8"),
};


/* ---- Corruptions of struct ipt_ip ---------------------------------------- */

#define IP4()	(&((struct ipt_entry *)E())->ip)

static void family_entry_ip(struct abi_mut *m)
{
	RESET();
	IP4()->flags |= 0x04;
	RUN("ip.flags|=0x04");
	RESET();
	IP4()->flags = IPT_F_FRAG | IPT_F_GOTO;
	RUN("ip.flags=FRAG|GOTO");
	RESET();
	IP4()->invflags |= 0x80;
	RUN("ip.invflags|=0x80");
	RESET();
	IP4()->invflags = IPT_INV_MASK;
	RUN("ip.invflags=0x7f");
	RESET();
	IP4()->proto = IPPROTO_UDP;
	RUN("ip.proto=17");
	RESET();
	IP4()->proto = 0;
	RUN("ip.proto=0");
	RESET();
	IP4()->invflags |= IPT_INV_PROTO;
	RUN("ip.invflags|=INV_PROTO");
}

/* ---- Corruptions of the matches beyond tcp/udp/icmp ---------------------- */

static const struct abi_match new_matches[] = {
	ABI_MATCH("comment", struct xt_comment_info, comment, 0, true, 0),
	ABI_MATCH("multiport", struct xt_multiport_v1, invert, 1, false, IPPROTO_TCP),
	ABI_MATCH("iprange", struct xt_iprange_mtinfo, flags, 1, false, 0),
	ABI_MATCH("mark", struct xt_mark_mtinfo1, invert, 1, true, 0),
	ABI_MATCH("length", struct xt_length_info, invert, 0, false, 0),
	ABI_MATCH("ttl", struct ipt_ttl_info, ttl, 0, false, 0),
	ABI_MATCH("tos", struct xt_tos_match_info, invert, 1, false, 0),
	ABI_MATCH("dscp", struct xt_dscp_info, invert, 0, false, 0),
	ABI_MATCH("ah", struct ipt_ah, invflags, 0, false, IPPROTO_AH),
	ABI_MATCH("esp", struct xt_esp, invflags, 0, false, IPPROTO_ESP),
	ABI_MATCH("ecn", struct xt_ecn_info, proto, 0, false, 0),
	ABI_MATCH("tcpmss", struct xt_tcpmss_match_info, invert, 0, false, IPPROTO_TCP),
	ABI_MATCH("u32", struct xt_u32, invert, 0, true, 0),
};

/* The payload fields each IPv4 match's checkentry reads (EINVAL, EDOM). */
static void family_match_fields(struct abi_mut *m, const struct abi_match *nm)
{
	unsigned int j;
	size_t len;

	if (!strcmp(nm->name, "ttl")) {
		/*
		 * xt_hl.c's ttl_mt_check() refuses modes above
		 * IPT_TTL_GT in the 6.1 sources; whatever the reference
		 * kernel does is what counts here.
		 */
		static const uint8_t modes[] = { IPT_TTL_EQ, IPT_TTL_NE, IPT_TTL_GT,
						 IPT_TTL_GT + 1, 0x80, 0xff };

		for (j = 0; j < ARRAY_SIZE(modes); j++) {
			RESET();
			P(struct ipt_ttl_info)->mode = modes[j];
			RUN("mode %u", modes[j]);
		}
		RESET();
		P(struct ipt_ttl_info)->ttl = 0;
		RUN("ttl 0");
	} else if (!strcmp(nm->name, "dscp")) {
		static const uint8_t v[] = { 0, XT_DSCP_MAX, XT_DSCP_MAX + 1, 0x80, 0xff };

		for (j = 0; j < ARRAY_SIZE(v); j++) {
			RESET();
			P(struct xt_dscp_info)->dscp = v[j];
			RUN("dscp 0x%02x", v[j]);
		}
		RESET();
		P(struct xt_dscp_info)->invert = 0xff;
		RUN("invert 0xff");
		len = abi_mut_resize_match(m, 8);
		if (len) {
			P(struct xt_dscp_info)->dscp = 0x40;
			RUN_LEN(len, "payload +8 and dscp 0x40");
		}
		RESET();
		P(struct xt_dscp_info)->dscp = 0x40;
		M()->u.user.revision = 1;
		RUN("revision 1 and dscp 0x40");
	} else if (!strcmp(nm->name, "ah") || !strcmp(nm->name, "esp")) {
		/* struct ipt_ah and struct xt_esp have the same layout. */
		static const uint8_t inv[] = { 0, 0x01, 0x02, 0x03, 0x80, 0xff };

		for (j = 0; j < ARRAY_SIZE(inv); j++) {
			RESET();
			P(struct xt_esp)->invflags = inv[j];
			RUN("invflags 0x%02x", inv[j]);
		}
		RESET();
		P(struct xt_esp)->spis[0] = 0xffffffff;
		P(struct xt_esp)->spis[1] = 0;
		RUN("spi range reversed");
		RESET();
		P(struct xt_esp)->invflags = 0x02;
		IP4()->proto = 0;
		RUN("invflags 0x02 and -p 0");
	} else if (!strcmp(nm->name, "ecn")) {
		/* Each bit of operation and invert; the TCP bits against -p. */
		for (j = 0; j < 8; j++) {
			RESET();
			P(struct xt_ecn_info)->operation = 1u << j;
			RUN("operation 0x%02x", 1u << j);
			RESET();
			P(struct xt_ecn_info)->invert = 1u << j;
			RUN("invert 0x%02x", 1u << j);
		}
		RESET();
		IP4()->proto = IPPROTO_UDP;
		RUN("-p udp");
		RESET();
		IP4()->invflags |= IPT_INV_PROTO;
		RUN("! -p tcp");
		RESET();
		IP4()->proto = 0;
		P(struct xt_ecn_info)->operation = XT_ECN_OP_MATCH_IP;
		RUN("-p 0 and only --ecn-ip-ect");
		RESET();
		P(struct xt_ecn_info)->operation = 0;
		P(struct xt_ecn_info)->ip_ect = 0xff;
		RUN("no operation, ip_ect 0xff");
		RESET();
		IP4()->proto = 0;
		P(struct xt_ecn_info)->operation = 0x40;
		RUN("-p 0 and operation 0x40: which error first");
	} else if (!strcmp(nm->name, "tcpmss")) {
		RESET();
		P(struct xt_tcpmss_match_info)->invert = 0xff;
		P(struct xt_tcpmss_match_info)->mss_min = 0xffff;
		RUN("invert 0xff, min 0xffff above max");
	} else if (!strcmp(nm->name, "u32")) {
		/* Counts past the arrays and shift counts, in each test. */
		static const uint8_t counts[] = { 0, 10, 11, 12, 255 };
		static const uint32_t shifts[] = { 0, 31, 32, 33, 0xffffffff };
		struct xt_u32_test *t;

		for (j = 0; j < ARRAY_SIZE(counts); j++) {
			RESET();
			P(struct xt_u32)->ntests = counts[j];
			RUN("ntests %u", counts[j]);
			RESET();
			P(struct xt_u32)->tests[1].nnums = counts[j];
			RUN("tests[1].nnums %u", counts[j]);
			RESET();
			P(struct xt_u32)->tests[0].nvalues = counts[j];
			RUN("tests[0].nvalues %u", counts[j]);
		}
		for (j = 0; j < ARRAY_SIZE(shifts); j++) {
			RESET();
			t = &P(struct xt_u32)->tests[1];
			t->location[2].number = shifts[j];
			RUN("tests[1] >> %u", shifts[j]);
			RESET();
			t = &P(struct xt_u32)->tests[1];
			t->location[1].number = shifts[j];
			RUN("tests[1] << %u", shifts[j]);
			/* Not an operator: location[0], or past nnums. */
			RESET();
			t = &P(struct xt_u32)->tests[1];
			t->location[0].nextop = XT_U32_LEFTSH;
			t->location[0].number = shifts[j];
			RUN("tests[1] location[0] %u with nextop <<", shifts[j]);
			RESET();
			t = &P(struct xt_u32)->tests[1];
			t->location[3].nextop = XT_U32_RIGHTSH;
			t->location[3].number = shifts[j];
			RUN("tests[1] location[3] (past nnums) >> %u", shifts[j]);
			RESET();
			t = &P(struct xt_u32)->tests[5];
			t->location[1].nextop = XT_U32_RIGHTSH;
			t->location[1].number = shifts[j];
			t->nnums = 2;
			RUN("tests[5] (past ntests) >> %u", shifts[j]);
		}
		RESET();
		t = &P(struct xt_u32)->tests[0];
		t->location[1].nextop = 200;
		t->location[1].number = 0xffffffff;
		RUN("unknown operator 200");
		RESET();
		P(struct xt_u32)->ntests = 11;
		P(struct xt_u32)->tests[10].nnums = 12;
		RUN("ntests 11, tests[10].nnums 12");
		RESET();
		P(struct xt_u32)->invert = 0xff;
		RUN("invert 0xff");
	} else if (!strcmp(nm->name, "iprange")) {
		static const uint8_t fl[] = { 0, IPRANGE_SRC, IPRANGE_DST_INV, 0xff };

		for (j = 0; j < ARRAY_SIZE(fl); j++) {
			RESET();
			P(struct xt_iprange_mtinfo)->flags = fl[j];
			RUN("flags 0x%02x", fl[j]);
		}
		RESET();
		P(struct xt_iprange_mtinfo)->src_min.ip = htonl(0xffffffff);
		RUN("src range reversed");
		RESET();
		memset(&P(struct xt_iprange_mtinfo)->src_min.ip6[1], 0x77, 12);
		RUN("junk in the IPv6 part of the addresses");
	} else if (!strcmp(nm->name, "length")) {
		RESET();
		P(struct xt_length_info)->min = 0xffff;
		P(struct xt_length_info)->max = 0;
		RUN("min > max");
		RESET();
		P(struct xt_length_info)->invert = 2;
		RUN("invert 2");
	} else if (!strcmp(nm->name, "tos")) {
		RESET();
		P(struct xt_tos_match_info)->tos_mask = 0;
		P(struct xt_tos_match_info)->tos_value = 0xff;
		RUN("value outside the mask");
		RESET();
		P(struct xt_tos_match_info)->invert = 0xff;
		RUN("invert 0xff");
	}
}

/*
 * The matches of one entry are checked one after the other, each
 * completely: FORWARD has -m ttl --ttl-gt 1 -m dscp --dscp 1, OUTPUT
 * -m dscp -m ttl.
 */
static void family_several(struct abi_mut *m)
{
	static const char *const ttl_dscp[] = { "ttl", "dscp" };
	static const char *const dscp_ttl[] = { "dscp", "ttl" };
	static const int second[] = { 1, 1 }, third[] = { 2, 2 };
	uint32_t o[2];

	if (abi_mut_find(m, 2, ttl_dscp, second, o)) {
		RESET();
		M()->data[0] = 9;
		M_AT(o[1])->data[0] = 0x40;
		RUN("1st match ttl mode 9, 2nd match dscp 0x40");
	}
	if (abi_mut_find(m, 2, dscp_ttl, third, o)) {
		RESET();
		M()->data[0] = 0x40;
		M_AT(o[1])->data[0] = 9;
		RUN("1st match dscp 0x40, 2nd match ttl mode 9");
		RESET();
		M()->data[0] = 0x40;
		M_AT(o[1])->u.user.revision = 1;
		RUN("1st match dscp 0x40, 2nd match ttl revision 1");
	}
}

/* ---- Hand-made queries ---------------------------------------------------- */

static const struct abi_rev mrev[] = {
	{ "tcp", 0 }, { "tcp", 1 }, { "tcp", 255 }, { "udp", 0 },
	{ "udp", 2 }, { "icmp", 0 }, { "icmp", 1 }, { "nosuchmatch", 0 },
	{ "", 0 }, { "TCP", 0 }, { "tcpx", 0 },
	{ "tttttttttttttttttttttttttttt", 0 },
	{ "comment", 0 }, { "comment", 1 }, { "multiport", 0 },
	{ "multiport", 1 }, { "multiport", 2 }, { "iprange", 0 },
	{ "iprange", 1 }, { "mark", 0 }, { "mark", 1 }, { "mark", 2 },
	{ "MARK", 2 }, { "length", 0 }, { "length", 1 }, { "ttl", 0 },
	{ "ttl", 1 }, { "hl", 0 }, { "tos", 0 }, { "tos", 1 },
	{ "TOS", 0 }, { "dscp", 0 }, { "dscp", 1 }, { "DSCP", 0 },
	{ "ah", 0 }, { "ah", 1 }, { "esp", 0 }, { "esp", 255 },
};

static const struct abi_rev trev[] = {
	{ "", 0 }, { "", 1 }, { "ERROR", 0 }, { "ERROR", 1 },
	{ "NOSUCHTARGET", 0 }, { "ACCEPT", 0 }, { "DROP", 0 },
	{ "RETURN", 0 }, { "error", 0 }, { "CT", 0 }, { "CT", 1 }, { "CT", 2 },
	{ "CT", 3 }, { "NOTRACK", 0 }, { "NOTRACK", 1 }, { "DNAT", 0 }, { "DNAT", 2 },
	{ "DNAT", 3 }, { "SNAT", 1 }, { "MASQUERADE", 0 }, { "MASQUERADE", 1 },
	{ "REDIRECT", 0 }, { "NETMAP", 0 }, { "NETMAP", 1 },
};

static const struct abi_flag policy_flags[] = { { IPT_F_FRAG, "-f" } };
static const char *const proto_matches[] = { "tcp", "udp", "icmp" };
static const uint16_t protos[] = { 0, 6, 17, 1, 132 };
static const uint16_t match_protos[] = { 0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP,
					 IPPROTO_DCCP, IPPROTO_ESP, IPPROTO_AH,
					 IPPROTO_SCTP, IPPROTO_UDPLITE, 255 };

static const struct abi_family abi_family = {
	.tag = "abi-diff",
	.tool = "iptables",
	.ipt = "iptables-legacy",
	.nfproto_name = "NFPROTO_IPV4",
	.nfproto = NFPROTO_IPV4,
	.min_cases = 200,
	ABI_LAYOUT(struct ipt_entry, ip),
	.flag_goto = IPT_F_GOTO,
	.init_size = 632,
	ABI_TABLES,
};

#include "abi_diff_tests.h"
