// SPDX-License-Identifier: GPL-2.0
/*
 * Differential verdict test for IPv6: bpfilter's BPF programs against the
 * kernel's own ip6_tables, on real packets (test_verdict_diff.c is the IPv4
 * one; what both use is in lib/vdiff.c).
 *
 * A seeded generator makes random ip6tables filter rulesets (addresses with
 * prefix lengths, -i/-o with '+', -p tcp/udp/ipv6-icmp/ipv6-nonxt/esp/all
 * and numbers, extension header numbers too (never matched), every
 * inversion, tcp/udp ports and ranges, --tcp-flags, --syn, icmpv6 types and
 * codes, multiport, mark, comment, hl, mh types and ranges, eui64 (INPUT
 * and FORWARD only: ip6tables refuses it elsewhere), the family-free
 * matches and those with an IPv6 form (length, dscp, tos, ecn's IP bits,
 * pkttype, cpu, devgroup, mac, u32, esp, tcpmss, iprange), user chains reached by
 * jumps and gotos, RETURN, ACCEPT/DROP policies, and runs of 4 to 12 rules
 * in a built-in chain that bpfilter folds into one map lookup: -s or -d
 * prefixes (all /128: a hash; mixed lengths, nested: an LPM trie), -p
 * tcp/udp --dport ports or ranges, or multiport --dports, alone or with a
 * prefix) and random IPv6 packets:
 * TCP, UDP, ICMPv6, ESP, mobility headers (payload proto NONE or not),
 * traffic classes (DSCP and ECN bits),
 * next header NONE, an unknown protocol, with varied hop limits, sources
 * whose interface identifier is (or nearly is) the EUI-64 of S's MAC on
 * the link they are sent over, behind chains of up to 8
 * extension headers (hop-by-hop first, destination options, routing with
 * no segments left, AH, fragment), first and non-first fragments (also a
 * non-first fragment followed by an extension header, which ip6_tables
 * hotdrops when a -p rule is reached), extension and transport headers cut
 * short.
 *
 * Two identical sides, K and H, each a target namespace T and a sender
 * namespace S joined by two veth pairs (T:vd0-S:vd0p, T:vd1-S:vd1p):
 *  - K's T gets the ruleset with stock ip6tables-legacy-restore (real
 *    ip6_tables); H's T with the same command through the LD_PRELOAD shim
 *    and bpfilter-hostd (the helper, bpf backend, attaching in H's T).
 *  - OUTPUT: T sends the packet from an IPPROTO_RAW socket; sendto() fails
 *    with EPERM exactly when LOCAL_OUT dropped it.
 *  - INPUT/FORWARD: S sends it over vd0p or vd1p; T delivers it locally
 *    (seen by raw sockets in T for each next header, which sit after
 *    LOCAL_IN; the packet is known by its flow label, unique in the run),
 *    forwards it (seen by a packet socket in S) or drops it.
 * Outcomes must be equal, and after each ruleset ip6tables-legacy-save -c
 * of both T must print the same rules and counters. A ruleset with a run
 * must have left bpfilter's set maps (bpf_flt_set) behind, and with the
 * full number of cases rules of runs must have counted packets.
 *
 * T must never send anything of its own (it would cross OUTPUT behind our
 * back, and ICMPv6 errors are rate limited, so not alike on both sides):
 * no link-local addresses (no redirects, no router solicitations), MLD
 * reports over before the first ruleset, transport checksums spoiled (no
 * RST, no echo reply, no port unreachable), a raw socket for every next
 * header T gets (no parameter problem), no hop-by-hop header but the first
 * one, routing headers with no segments left, fragments that T would
 * reassemble only as last fragments or atomic ones, never cut short in
 * their fragment header (an ICMPv6 error each otherwise), and reassembly
 * off (ip6frag_high_thresh 0: no time exceeded).
 *
 * kube_services: kube-proxy's KUBE-SERVICES as ip6tables has it, runs of
 * 64 to 120 jumps by -d addr/128 -p tcp|udp --dport with TCP and UDP
 * services interleaved, which bpfilter folds into one lookup, reached from
 * every built-in chain, to chains that RETURN or decide; random packets
 * and, for each ruleset, packets to a TCP service's address, a UDP one's
 * and another one with walks that fail, headers cut short, fragments.
 *
 * Usage: test_verdict_diff6 [-s seed] [-n cases] [-p packets-per-ruleset] [-v];
 *        env VERDICT_DIFF_SEED, VERDICT_DIFF6_CASES.
 * Mismatches are printed and written to build/logs/verdict-mismatches6.txt
 * as the ip6tables commands and the packet bytes that reproduce them. The
 * last line is "verdict-diff6: N cases, M mismatches"; the exit status is
 * 0 only if M is 0 and N >= 1000.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "kselftest_harness.h"

#include "vdiff.h"

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO		11	/* linux/in6.h: a packet's flow label in a cmsg */
#endif

#define V6_MIN_CASES		1000
#define V6_DEFAULT_CASES	4000
#define V6_PER_RULESET		40
#define V6_MISMATCH_FILE	BPFILTER_SRCTREE "/build/logs/verdict-mismatches6.txt"
#define V6_MAX_SHOWN		20	/* rulesets with mismatches printed in full */
#define V6_MAX_EXT		8	/* extension headers a packet has at most */
#define V6_SEEN			32
#define V6_RUN_TAG		"--comment run"	/* on most rules of a folded run */

struct v6_run {
	unsigned long seed, want_cases, cases, mismatches;
	unsigned int per_ruleset;
	bool verbose;
	pid_t main_pid;
};

static struct v6_run *run;

/*
 * IPv6 matches whose rules must count packets in a run of V6_DEFAULT_CASES
 * or more (esp and tcpmss rules, behind -p and port tests, are reached too
 * seldom for that; their verdicts and counters are compared all the same).
 */
static const char *const ext_matches[] = { "-m frag", "-m hbh", "-m dst", "-m rt", "-m ah",
					    "-m ipv6header",
					    "-m hl", "-m mh", "-m eui64", "-m length", "-m dscp",
					    "-m tos", "-m ecn", "-m pkttype", "-m cpu", "-m u32",
					    "-m iprange" };
#define NEXT_MATCHES (sizeof(ext_matches) / sizeof(ext_matches[0]))

/* Next headers T has raw sockets for: every one T's packets can reach it with. */
static const uint8_t observed6[] = { 6, 17, 58, 59, 50, 51, 43, 44, 60, 200, 135 };
#define NOBS6 (sizeof(observed6) / sizeof(observed6[0]))

/* T's own addresses; S's own (fd00:5::5) is never a packet's. */
static const char *const t_addrs6[] = {
	"fd00:99::fe", "fd00:200::fe", "fd00:1::1", "fd00:200:1::1",
};
#define NT6 (sizeof(t_addrs6) / sizeof(t_addrs6[0]))

/* Others: on T's links (vd0 fd00:99::/64, vd1 fd00:200::/64) or routed out vd1. */
static const char *const o_addrs6[] = {
	"fd00:99::2", "fd00:99::3:4", "fd00:200::2", "fd00:200:1::77", "fd00:172::5",
	"2001:db8::1", "2001:db8:1::77", "fd00:99:0:1::9",
};
#define NO6 (sizeof(o_addrs6) / sizeof(o_addrs6[0]))

static const char *const ifaces6[] = { "vd0", "vd1", "vd+", "v+", "lo", "eth0", "vd10", "vd" };
#define NIFACES6 (sizeof(ifaces6) / sizeof(ifaces6[0]))

struct v6_addr {
	struct in6_addr a;
	unsigned int plen;
};

/* What a rule wants of a packet, for packets aimed at it. */
struct v6_aim {
	struct v6_addr s, d;	/* plen 0: any */
	int proto;		/* -1: any */
	int dport;		/* -1: any */
	int chain;		/* 0-2 built-in, 3 user */
	int xh;			/* an extension header its match looks for, or -1 */
	int hl;			/* the hop limit its -m hl names, or -1 */
	bool eui64;		/* it has -m eui64 */
};

#define V6_MAX_AIMS	64

struct pkt6 {
	unsigned char d[512];
	unsigned int len;
	enum path path;
	char what[160];		/* its headers, for reports */
};

struct vd6 {
	struct rng rng;
	struct vd_side side[2];
	struct vd_hostd hd;
	char tmp[64];			/* ruleset file */
	struct buf rules;		/* ip6tables-restore input of the current ruleset */
	struct in6_addr t_local[NT6], other[NO6];
	struct v6_addr seen[V6_SEEN];	/* addresses the ruleset's rules name */
	unsigned int nseen;
	struct v6_aim aims[V6_MAX_AIMS], cur;	/* the ruleset's rules, the rule being made */
	unsigned int naims;
	uint16_t ports[V6_SEEN];	/* ports they name */
	unsigned int nports;
	uint32_t label;			/* the last packet's flow label */
	unsigned int npackets;
	unsigned long outcomes[VD_NOUTCOMES];	/* ip6_tables side */
	unsigned long hit_rules;	/* rules ip6_tables counted, all rulesets */
	unsigned long ext_hits[NEXT_MATCHES];	/* of them, those with each of ext_matches[] */
	unsigned long hotdrop_kind;	/* packets of the kinds ip6_tables may hotdrop */
	bool has_run;			/* the ruleset has a run first in a chain (gen_run6()) */
	unsigned long run_rulesets;	/* rulesets with such a run: bpfilter must fold it */
	unsigned long folded;		/* of them, those that left set maps loaded */
	unsigned long run_hits;		/* rules with V6_RUN_TAG ip6_tables counted */
	unsigned long shown;
	FILE *report;
};

static const char *neg(struct vd6 *v, unsigned int one_in)
{
	return rnd(&v->rng, one_in) ? "" : "! ";
}

static void put_addr(struct buf *b, const struct in6_addr *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, s, sizeof(s));
	bprintf(b, "%s", s);
}

/* Rules. */

/* -s/-d with a prefix of length @plen (random if negative) of an address T sees. */
static void put_prefix(struct vd6 *v, const char *opt, const char *inv, int plen,
		       struct v6_addr *aim)
{
	static const unsigned int plens[] = { 128, 128, 64, 64, 48, 32, 16, 8, 0, 96, 112, 127 };
	struct v6_addr x;
	unsigned int k = rnd(&v->rng, NT6 + NO6);

	x.a = k < NT6 ? v->t_local[k] : v->other[k - NT6];
	if (plen >= 0)
		x.plen = plen;
	else
		x.plen = rnd(&v->rng, 4) ? plens[rnd(&v->rng, sizeof(plens) / sizeof(plens[0]))] :
					   rnd(&v->rng, 129);
	if (v->nseen < V6_SEEN)
		v->seen[v->nseen++] = x;
	*aim = x;
	bprintf(&v->rules, " %s%s ", inv, opt);
	put_addr(&v->rules, &x.a);
	bprintf(&v->rules, "/%u", x.plen);
}

static void gen_addr_opt(struct vd6 *v, const char *opt, struct v6_addr *aim)
{
	put_prefix(v, opt, neg(v, 4), -1, aim);
}

static uint16_t pick_port6(struct vd6 *v)
{
	static const uint16_t common[] = { 22, 53, 80, 443, 1024, 8080, 65535, 0, 1 };
	uint16_t p;

	p = rnd(&v->rng, 2) ? common[rnd(&v->rng, 9)] : (uint16_t)rnd(&v->rng, 2000);
	if (v->nports < V6_SEEN)
		v->ports[v->nports++] = p;
	return p;
}

static void gen_port6(struct vd6 *v, const char *opt)
{
	uint16_t a = pick_port6(v), b;

	if (!strcmp(opt, "dport"))
		v->cur.dport = a;
	if (rnd(&v->rng, 3)) {
		bprintf(&v->rules, " %s--%s %u", neg(v, 4), opt, a);
		return;
	}
	b = pick_port6(v);
	bprintf(&v->rules, " %s--%s %u:%u", neg(v, 4), opt, a < b ? a : b, a < b ? b : a);
}

static void gen_tcp_flags(struct vd6 *v)
{
	static const char *const f[] = { "FIN", "SYN", "RST", "PSH", "ACK", "URG" };
	unsigned int mask = rnd(&v->rng, 64) ?: 0x3f, comp = rnd(&v->rng, 64) & mask, i;
	char m[40] = "", c[40] = "";

	for (i = 0; i < 6; i++) {
		if (mask & 1u << i)
			snprintf(m + strlen(m), sizeof(m) - strlen(m), "%s%s", m[0] ? "," : "", f[i]);
		if (comp & 1u << i)
			snprintf(c + strlen(c), sizeof(c) - strlen(c), "%s%s", c[0] ? "," : "", f[i]);
	}
	bprintf(&v->rules, " %s--tcp-flags %s %s", neg(v, 4), m, c[0] ? c : "NONE");
}

static void gen_multiport6(struct vd6 *v)
{
	static const char *const opts[] = { "dports", "sports", "ports" };
	unsigned int n = 1 + rnd(&v->rng, 5), i;
	uint16_t a, b;

	bprintf(&v->rules, " -m multiport %s--%s ", neg(v, 4), opts[rnd(&v->rng, 3)]);
	for (i = 0; i < n; i++) {
		a = pick_port6(v);
		if (rnd(&v->rng, 3)) {
			bprintf(&v->rules, "%s%u", i ? "," : "", a);
			continue;
		}
		/* libxt_multiport takes no range of one port. */
		b = pick_port6(v);
		if (a == b)
			bprintf(&v->rules, "%s%u", i ? "," : "", a);
		else
			bprintf(&v->rules, "%s%u:%u", i ? "," : "", a < b ? a : b, a < b ? b : a);
	}
}

static void gen_icmp6_type(struct vd6 *v)
{
	static const char *const named[] = {
		"echo-request", "echo-reply", "destination-unreachable", "no-route",
		"packet-too-big", "time-exceeded", "parameter-problem", "neighbour-solicitation",
		"router-advertisement", "port-unreachable", "ttl-zero-during-transit",
	};
	static const uint8_t types[] = { 1, 2, 3, 4, 128, 129, 133, 135, 200, 255, 0 };
	uint8_t t = types[rnd(&v->rng, sizeof(types))];

	bprintf(&v->rules, " -m icmp6 %s--icmpv6-type ", neg(v, 4));
	switch (rnd(&v->rng, 3)) {
	case 0:
		bprintf(&v->rules, "%s", named[rnd(&v->rng, sizeof(named) / sizeof(named[0]))]);
		break;
	case 1:
		bprintf(&v->rules, "%u", t);
		break;
	default:
		bprintf(&v->rules, "%u/%u", t, rnd(&v->rng, 4) ? rnd(&v->rng, 5) : 255);
	}
}

/* Hop limits rules name and packets carry: the edges of every mode. */
static const uint8_t hls6[] = { 64, 64, 1, 2, 63, 65, 128, 254, 255, 0 };

static void gen_hl(struct vd6 *v)
{
	static const char *const modes[] = { "--hl-eq", "! --hl-eq", "--hl-lt", "--hl-gt" };

	v->cur.hl = hls6[rnd(&v->rng, sizeof(hls6))];
	bprintf(&v->rules, " -m hl %s %d", modes[rnd(&v->rng, 4)], v->cur.hl);
}

/* -p mh and, unless inverted, mostly -m mh with a type or a range, by number or name. */
static void gen_mh(struct vd6 *v)
{
	static const char *const protos[] = { "mh", "ipv6-mh", "mobility-header", "135" };
	static const char *const named[] = {
		"binding-refresh-request", "hoti", "careof-test-init", "hot", "cot",
		"binding-update", "ba", "binding-error",
	};
	bool inv = !rnd(&v->rng, 6);
	unsigned int a = rnd(&v->rng, 9), b = rnd(&v->rng, 9);

	bprintf(&v->rules, " %s-p %s", inv ? "! " : "", protos[rnd(&v->rng, 4)]);
	if (inv)
		return;
	v->cur.proto = 135;
	if (!rnd(&v->rng, 5))
		return;
	bprintf(&v->rules, " -m mh");
	if (!rnd(&v->rng, 5))
		return;
	if (!rnd(&v->rng, 8))
		a = rnd(&v->rng, 256);
	bprintf(&v->rules, " %s--mh-type ", neg(v, 3));
	if (a < 8 && rnd(&v->rng, 2))
		bprintf(&v->rules, "%s", named[a]);
	else
		bprintf(&v->rules, "%u", a);
	if (!rnd(&v->rng, 3))
		bprintf(&v->rules, ":%u", a > b ? a : b);
}

/* -p and what goes with it. */
/* A u32 or a range of them for --fragid / --ahspi / --espspi, near what packets carry. */
static void gen_u32_range(struct vd6 *v, const char *opt, uint32_t base, uint32_t span)
{
	uint32_t a = base + rnd(&v->rng, span), b = base + rnd(&v->rng, span);

	if (!rnd(&v->rng, 8))
		a = rnd(&v->rng, 2) ? 0 : 0xffffffff;
	if (rnd(&v->rng, 2))
		bprintf(&v->rules, " %s--%s %u", neg(v, 4), opt, a);
	else
		bprintf(&v->rules, " %s--%s %u:%u", neg(v, 4), opt, a < b ? a : b, a < b ? b : a);
}

static void gen_proto6(struct vd6 *v)
{
	static const char *const protos[] = {
		"tcp", "udp", "ipv6-icmp", "icmpv6", "ipv6-nonxt", "esp", "all", "6", "17", "58",
		"59", "50", "200", "0", "60", "44",
	};
	const char *p = protos[rnd(&v->rng, sizeof(protos) / sizeof(protos[0]))];
	/* ip6tables refuses "! -p all": it would never match. */
	bool inv = !rnd(&v->rng, 5) && strcmp(p, "all") && strcmp(p, "0"), tcp = !strcmp(p, "tcp") || !strcmp(p, "6"),
	     udp = !strcmp(p, "udp") || !strcmp(p, "17");

	if (!rnd(&v->rng, 6)) {
		gen_mh(v);
		return;
	}
	bprintf(&v->rules, " %s-p %s", inv ? "! " : "", p);
	if (inv)
		return;
	/* Packets aimed at it carry it, if it can be their last header. */
	v->cur.proto = tcp ? 6 : udp ? 17 : !strcmp(p, "esp") || !strcmp(p, "50") ? 50 :
		       !strcmp(p, "ipv6-nonxt") || !strcmp(p, "59") ? 59 :
		       !strcmp(p, "200") ? 200 : strstr(p, "icmp") || !strcmp(p, "58") ? 58 : -1;
	if ((tcp || udp) && !rnd(&v->rng, 4)) {
		gen_multiport6(v);
		return;
	}
	if (tcp || udp) {
		bprintf(&v->rules, " -m %s", tcp ? "tcp" : "udp");
		if (rnd(&v->rng, 2))
			gen_port6(v, "sport");
		if (rnd(&v->rng, 3))
			gen_port6(v, "dport");
		if (tcp && !rnd(&v->rng, 3))
			gen_tcp_flags(v);
		else if (tcp && !rnd(&v->rng, 3))
			bprintf(&v->rules, " %s--syn", neg(v, 3));
		if (tcp && !rnd(&v->rng, 6))
			bprintf(&v->rules, " %s--tcp-option %u", neg(v, 3), rnd(&v->rng, 2) ? 2 :
				1 + rnd(&v->rng, 9));
		/* A third of the TCP packets carry an MSS option (l4_hdr()). */
		if (tcp && !rnd(&v->rng, 3))
			bprintf(&v->rules, " -m tcpmss %s--mss %u:%u", neg(v, 2), rnd(&v->rng, 600),
				600 + rnd(&v->rng, 1000));
	} else if ((!strcmp(p, "esp") || !strcmp(p, "50")) && rnd(&v->rng, 4)) {
		bprintf(&v->rules, " -m esp");
		gen_u32_range(v, "espspi", 0x100, 0x100);
	} else if ((!strcmp(p, "ipv6-icmp") || !strcmp(p, "icmpv6") || !strcmp(p, "58")) &&
		   rnd(&v->rng, 4)) {
		gen_icmp6_type(v);
	}
}

/* --hbh-opts / --dst-opts: what packets' options headers hold (Pad1, PadN, type 30). */
static void gen_opts_list(struct vd6 *v, const char *opt)
{
	static const uint8_t types[] = { 0, 1, 1, 30, 30 };
	unsigned int n = 1 + rnd(&v->rng, 3), i;

	bprintf(&v->rules, " --%s ", opt);
	for (i = 0; i < n; i++) {
		uint8_t t = types[rnd(&v->rng, sizeof(types))];

		if (t && rnd(&v->rng, 2))
			bprintf(&v->rules, "%s%u:%u", i ? "," : "", t, rnd(&v->rng, 7));
		else
			bprintf(&v->rules, "%s%u", i ? "," : "", t);
	}
}

/* -m ipv6header: a set of header kinds, hard or --soft. */
static void gen_ipv6header(struct vd6 *v)
{
	static const char *const kinds[] = { "hop", "dst", "route", "frag", "auth", "esp", "none",
					     "prot" };
	unsigned int set = rnd(&v->rng, 256) ?: 0x80, i;
	bool first = true;

	/* Mostly what packets are: one or two headers, then the protocol. */
	if (rnd(&v->rng, 2))
		set = (1u << rnd(&v->rng, 5)) | (rnd(&v->rng, 3) ? 0x80 : 0) |
		      (rnd(&v->rng, 4) ? 0x01 : 1u << (5 + rnd(&v->rng, 2)));
	bprintf(&v->rules, " -m ipv6header %s--header ", neg(v, 3));
	for (i = 0; i < 8; i++) {
		if (!(set & 0x80u >> i))
			continue;
		bprintf(&v->rules, "%s%s", first ? "" : ",", kinds[i]);
		first = false;
	}
	if (rnd(&v->rng, 3))
		bprintf(&v->rules, " --soft");
}

/* -m frag, hbh, dst, rt, ah (the extension headers ipv6_find_hdr() finds) or ipv6header. */
static void gen_exthdr_match(struct vd6 *v)
{
	static const unsigned int lens[] = { 8, 16, 24, 12, 20 };

	switch (rnd(&v->rng, 7)) {
	case 5:
	case 6:
		gen_ipv6header(v);
		break;
	case 0:
		v->cur.xh = 44;
		bprintf(&v->rules, " -m frag");
		if (rnd(&v->rng, 2))
			gen_u32_range(v, "fragid", 0, 8);
		if (!rnd(&v->rng, 4))
			bprintf(&v->rules, " --fragres");
		switch (rnd(&v->rng, 5)) {
		case 0:
			bprintf(&v->rules, " --fragfirst");
			break;
		case 1:
			bprintf(&v->rules, " --fragmore");
			break;
		case 2:
			bprintf(&v->rules, " --fraglast");
			break;
		}
		if (!rnd(&v->rng, 4))
			bprintf(&v->rules, " %s--fraglen %u", neg(v, 3), lens[rnd(&v->rng, 5)]);
		break;
	case 1:
	case 2: {
		const char *name = rnd(&v->rng, 2) ? "hbh" : "dst";
		char o[16];

		v->cur.xh = strcmp(name, "hbh") ? 60 : 0;
		bprintf(&v->rules, " -m %s", name);
		if (rnd(&v->rng, 2))
			bprintf(&v->rules, " %s--%s-len %u", neg(v, 3), name, lens[rnd(&v->rng, 3)]);
		if (rnd(&v->rng, 2)) {
			snprintf(o, sizeof(o), "%s-opts", name);
			gen_opts_list(v, o);
		}
		break;
	}
	case 3: {
		bool zero = rnd(&v->rng, 2);

		v->cur.xh = 43;
		bprintf(&v->rules, " -m rt");
		if (zero || rnd(&v->rng, 2))
			bprintf(&v->rules, " %s--rt-type %u", zero ? "" : neg(v, 3), zero ? 0 : 2);
		if (rnd(&v->rng, 2))
			bprintf(&v->rules, " %s--rt-segsleft %s", neg(v, 4),
				rnd(&v->rng, 2) ? "0" : rnd(&v->rng, 2) ? "0:3" : "1:9");
		if (!rnd(&v->rng, 3))
			bprintf(&v->rules, " %s--rt-len %u", neg(v, 3), lens[rnd(&v->rng, 3)]);
		if (zero && !rnd(&v->rng, 3))
			bprintf(&v->rules, " --rt-0-res");
		if (zero && !rnd(&v->rng, 3))
			bprintf(&v->rules, " --rt-0-addrs %s", rnd(&v->rng, 3) ? "::" : "::1");
		break;
	}
	default:
		v->cur.xh = 51;
		bprintf(&v->rules, " -m ah");
		if (rnd(&v->rng, 2))
			gen_u32_range(v, "ahspi", 0x100, 0x100);
		if (rnd(&v->rng, 2))
			bprintf(&v->rules, " %s--ahlen %u", neg(v, 3), lens[2 + rnd(&v->rng, 3)]);
		if (!rnd(&v->rng, 3))
			bprintf(&v->rules, " --ahres");
	}
}

/* The MACs vd_side_links() gives S's vd0p and vd1p: the source of what S sends over each. */
static const unsigned char s_mac6[2][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
};

static void pick_addr(struct vd6 *v, unsigned char *out, bool local_bias);

/*
 * A match the kernel has for both families (or for none in particular):
 * length, dscp, tos, ecn's IP bits, pkttype, cpu, devgroup (src in INPUT
 * and FORWARD, dst in FORWARD and OUTPUT), mac (INPUT, FORWARD), iprange
 * over addresses rules and packets use, u32 on the next header byte. (connmark needs conntrack, which bpfilter-hostd
 * cannot hold: the VM tests have it.)
 */
static void gen_famfree6(struct vd6 *v, int chain)
{
	static const char *const types[] = { "unicast", "multicast", "broadcast" };
	unsigned int k = rnd(&v->rng, 10), a, b;
	unsigned char lo[16], hi[16], t[16];

	switch (k) {
	case 0:
		a = 40 + rnd(&v->rng, 120);
		b = a + rnd(&v->rng, 200);
		bprintf(&v->rules, " -m length %s--length %u:%u", neg(v, 4), a, b);
		break;
	case 1:
		bprintf(&v->rules, " -m dscp %s--dscp %u", neg(v, 4), rnd(&v->rng, 2) ? 0 :
			rnd(&v->rng, 64));
		break;
	case 2:
		bprintf(&v->rules, " -m tos %s--tos 0x%02x/0x%02x", neg(v, 4),
			rnd(&v->rng, 2) ? 0 : rnd(&v->rng, 256), rnd(&v->rng, 2) ? 0xff :
			rnd(&v->rng, 256));
		break;
	case 3:
		/* Most packets have ECN bits 0. */
		bprintf(&v->rules, " -m ecn %s--ecn-ip-ect %u", neg(v, 4), rnd(&v->rng, 2) ? 0 :
			rnd(&v->rng, 4));
		break;
	case 4:
		bprintf(&v->rules, " -m pkttype %s--pkt-type %s", neg(v, 4),
			types[rnd(&v->rng, 4) ? 0 : rnd(&v->rng, 3)]);
		break;
	case 5:
		bprintf(&v->rules, " -m cpu %s--cpu %u", neg(v, 4), rnd(&v->rng, 2));
		break;
	case 6:
		if (chain == 3)
			break;
		bprintf(&v->rules, " -m devgroup %s--%s-group %u", neg(v, 4),
			chain == 0 || (chain == 1 && rnd(&v->rng, 2)) ? "src" : "dst",
			rnd(&v->rng, 3) ? 0 : 1);
		break;
	case 7:
		if (chain > 1)
			break;
		a = rnd(&v->rng, 2);
		bprintf(&v->rules, " -m mac %s--mac-source %02x:%02x:%02x:%02x:%02x:%02x",
			neg(v, 4), s_mac6[a][0], s_mac6[a][1], s_mac6[a][2], s_mac6[a][3],
			s_mac6[a][4], s_mac6[a][5]);
		break;
	case 8:
		/* Mostly in order, at times reversed (never matches, as in the kernel). */
		pick_addr(v, lo, false);
		pick_addr(v, hi, false);
		if (memcmp(lo, hi, 16) > 0 && rnd(&v->rng, 8)) {
			memcpy(t, lo, 16);
			memcpy(lo, hi, 16);
			memcpy(hi, t, 16);
		}
		bprintf(&v->rules, " -m iprange %s--%s-range ", neg(v, 4), rnd(&v->rng, 2) ? "src" :
			"dst");
		put_addr(&v->rules, (const struct in6_addr *)lo);
		bprintf(&v->rules, "-");
		put_addr(&v->rules, (const struct in6_addr *)hi);
		break;
	default:
		/* The 4 bytes at offset 6: next header, then the hop limit. */
		bprintf(&v->rules, " -m u32 %s--u32 \"6>>24=%u\"", neg(v, 4),
			observed6[rnd(&v->rng, NOBS6)]);
		break;
	}
}

/* @chain: 0-2 built-in (INPUT, FORWARD, OUTPUT), 3 a user chain; jumps to c@first..c@nuser-1. */
static void gen_rule6(struct vd6 *v, int chain, const char *name, unsigned int first,
		      unsigned int nuser)
{
	/* An extension header match, half of them alone: packets that carry it reach more. */
	bool xm = !rnd(&v->rng, 4), bare = xm && rnd(&v->rng, 2);
	unsigned int k;

	v->cur = (struct v6_aim){ .proto = -1, .dport = -1, .chain = chain, .xh = -1 };
	bprintf(&v->rules, "-A %s", name);
	v->cur.hl = -1;
	if (!bare && rnd(&v->rng, 2))
		gen_addr_opt(v, "-s", &v->cur.s);
	if (!bare && rnd(&v->rng, 2))
		gen_addr_opt(v, "-d", &v->cur.d);
	/* ip6tables refuses -i in OUTPUT and -o in INPUT. */
	if (chain != 2 && !rnd(&v->rng, 3))
		bprintf(&v->rules, " %s-i %s", neg(v, 4), ifaces6[rnd(&v->rng, NIFACES6)]);
	if (chain != 0 && !rnd(&v->rng, 3))
		bprintf(&v->rules, " %s-o %s", neg(v, 4), ifaces6[rnd(&v->rng, NIFACES6)]);
	if (!bare && rnd(&v->rng, 3))
		gen_proto6(v);
	if (xm)
		gen_exthdr_match(v);
	if (!rnd(&v->rng, 6))
		gen_hl(v);
	/* Built-in INPUT and FORWARD only: a user chain may be reached from OUTPUT. */
	if (chain < 2 && !rnd(&v->rng, 8)) {
		v->cur.eui64 = true;
		bprintf(&v->rules, " -m eui64");
	}
	if (!rnd(&v->rng, 3))
		gen_famfree6(v, chain);
	if (!rnd(&v->rng, 12))
		bprintf(&v->rules, " -m mark %s--mark 0x%x/0x%x", neg(v, 3), rnd(&v->rng, 2),
			rnd(&v->rng, 2) ? 1 : 0xffffffff);
	if (!rnd(&v->rng, 12))
		bprintf(&v->rules, " -m comment --comment \"c%u\"", rnd(&v->rng, 100));
	k = rnd(&v->rng, 10);
	if (k < 3)
		bprintf(&v->rules, " -j ACCEPT");
	else if (k < 6)
		bprintf(&v->rules, " -j DROP");
	else if (k < 7)
		bprintf(&v->rules, " -j RETURN");
	else if (k < 9 && first < nuser)
		bprintf(&v->rules, " -%c c%u", rnd(&v->rng, 3) ? 'j' : 'g',
			first + rnd(&v->rng, nuser - first));
	bprintf(&v->rules, "\n");
	if (v->naims < V6_MAX_AIMS)
		v->aims[v->naims++] = v->cur;
}

/*
 * A run of rules of one shape and one verdict that bpfilter folds into one
 * map lookup (codegen_set.c): they differ in their prefix or their
 * destination ports only. Most carry a comment, which tests nothing.
 */
static void gen_run6(struct vd6 *v, int chain, const char *name)
{
	static const char *const verdicts[] = { "ACCEPT", "DROP", "RETURN" };
	/* A prefix alone; -p with ports alone; both; multiport, alone or with a prefix. */
	unsigned int shape = rnd(&v->rng, 5), n = 4 + rnd(&v->rng, 9), i;
	const char *dir = rnd(&v->rng, 2) ? "-s" : "-d", *tcp = rnd(&v->rng, 2) ? "tcp" : "udp";
	const char *verdict = verdicts[rnd(&v->rng, 3)];
	bool full = rnd(&v->rng, 2);	/* all /128: a hash, else an LPM trie */

	for (i = 0; i < n; i++) {
		v->cur = (struct v6_aim){ .proto = -1, .dport = -1, .chain = chain, .xh = -1,
					  .hl = -1 };
		bprintf(&v->rules, "-A %s", name);
		if (shape != 1 && shape != 3)
			put_prefix(v, dir, "", full ? 128 : 8 + rnd(&v->rng, 121),
				   dir[1] == 's' ? &v->cur.s : &v->cur.d);
		if (shape) {
			uint16_t lo = pick_port6(v), width = rnd(&v->rng, 3) ? 0 : rnd(&v->rng, 40);

			v->cur.proto = tcp[0] == 't' ? 6 : 17;
			v->cur.dport = lo;
			if (lo > 65534 - width)
				lo = 65534 - width;
			if (shape < 3)
				bprintf(&v->rules, " -p %s -m %s --dport %u:%u", tcp, tcp, lo,
					lo + width);
			else
				bprintf(&v->rules, " -p %s -m multiport --dports %u,%u:%u", tcp,
					pick_port6(v), lo, lo + width + 1);
		}
		if (rnd(&v->rng, 4))
			bprintf(&v->rules, " -m comment " V6_RUN_TAG);
		bprintf(&v->rules, " -j %s\n", verdict);
		if (v->naims < V6_MAX_AIMS)
			v->aims[v->naims++] = v->cur;
	}
}

static void gen_ruleset6(struct vd6 *v)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	unsigned int nuser = rnd(&v->rng, 4), c, i, n;
	/* A third of the rulesets have a run in a built-in chain, half of them first in it. */
	unsigned int run_chain = rnd(&v->rng, 9), run_at = rnd(&v->rng, 2) ? 0 : rnd(&v->rng, 7);

	/* Code after a rule that takes every packet is never made: only a first run must fold. */
	v->has_run = run_chain < 3 && !run_at;
	v->rules.len = 0;
	v->nseen = v->nports = v->naims = 0;
	bprintf(&v->rules, "*filter\n");
	for (c = 0; c < 3; c++)
		bprintf(&v->rules, ":%s %s [0:0]\n", builtin[c], rnd(&v->rng, 3) ? "ACCEPT" : "DROP");
	for (c = 0; c < nuser; c++)
		bprintf(&v->rules, ":c%u - [0:0]\n", c);
	for (c = 0; c < 3; c++) {
		n = rnd(&v->rng, 7);
		for (i = 0; i <= n; i++) {
			if (c == run_chain && i == (run_at < n ? run_at : n))
				gen_run6(v, c, builtin[c]);
			if (i < n)
				gen_rule6(v, c, builtin[c], 0, nuser);
		}
	}
	for (c = 0; c < nuser; c++) {
		char name[8];

		snprintf(name, sizeof(name), "c%u", c);
		n = rnd(&v->rng, 5);
		/* A user chain jumps only to those after it: no loops. */
		for (i = 0; i < n; i++)
			gen_rule6(v, 3, name, c + 1, nuser);
	}
	bprintf(&v->rules, "COMMIT\n");
}

/* Packets. */

static bool is_local(struct vd6 *v, const unsigned char *a)
{
	unsigned int i;

	for (i = 0; i < NT6; i++)
		if (!memcmp(&v->t_local[i], a, 16))
			return true;
	return false;
}

/* An address: T's, another, one a rule names (inside or just outside its prefix), or near one. */
static void pick_addr(struct vd6 *v, unsigned char *out, bool local_bias)
{
	unsigned int k = rnd(&v->rng, 10), bit;
	struct v6_addr *s;

	if (local_bias && k < 4) {
		memcpy(out, &v->t_local[rnd(&v->rng, NT6)], 16);
		return;
	}
	if (k < 6 || !v->nseen) {
		memcpy(out, rnd(&v->rng, 3) ? (void *)&v->other[rnd(&v->rng, NO6)] :
		       (void *)&v->t_local[rnd(&v->rng, NT6)], 16);
		if (!rnd(&v->rng, 4)) {
			bit = 16 + rnd(&v->rng, 112);
			out[bit / 8] ^= 0x80 >> (bit % 8);
		}
		return;
	}
	s = &v->seen[rnd(&v->rng, v->nseen)];
	memcpy(out, &s->a, 16);
	/* Just past the prefix, or somewhere in the host part. */
	if (s->plen >= 16 && s->plen < 128 && rnd(&v->rng, 2)) {
		bit = s->plen + (rnd(&v->rng, 2) ? 0 : rnd(&v->rng, 128 - s->plen));
		out[bit / 8] ^= 0x80 >> (bit % 8);
	} else if (s->plen > 16 && !rnd(&v->rng, 3)) {
		bit = 16 + rnd(&v->rng, s->plen - 16);	/* outside it */
		out[bit / 8] ^= 0x80 >> (bit % 8);
	}
}

/* An address in @x's prefix (any if its length is 0): @x with host bits flipped. */
static void aim_addr(struct vd6 *v, unsigned char *out, const struct v6_addr *x, bool local_bias)
{
	unsigned int from = x->plen > 16 ? x->plen : 16, bit, n;

	if (!x->plen) {
		pick_addr(v, out, local_bias);
		return;
	}
	memcpy(out, &x->a, 16);
	for (n = rnd(&v->rng, 3); n && from < 128; n--) {
		bit = from + rnd(&v->rng, 128 - from);
		out[bit / 8] ^= 0x80 >> (bit % 8);
	}
}

static uint16_t pkt_port6(struct vd6 *v)
{
	if (v->nports && rnd(&v->rng, 4))
		return v->ports[rnd(&v->rng, v->nports)] + (int)rnd(&v->rng, 3) - 1;
	return rnd(&v->rng, 65536);
}

static void what(struct pkt6 *p, const char *fmt, ...)
{
	size_t n = strlen(p->what);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->what + n, sizeof(p->what) - n, fmt, ap);
	va_end(ap);
}

/*
 * An options header (hop-by-hop, destination options) of 8, 16 or 24
 * bytes: options of type 30 (unknown, "skip it") and one run of padding
 * (Pad1, PadN) of at most 7 bytes at the end, as ip6_parse_tlv() wants.
 */
static unsigned int opts_hdr(struct vd6 *v, unsigned char *h)
{
	unsigned int len = 8 * (1 + (rnd(&v->rng, 4) ? 0 : 1 + rnd(&v->rng, 2))), at = 2, rem, l;

	h[1] = len / 8 - 1;
	memset(h + 2, 0, len - 2);
	while ((rem = len - at) > 0) {
		if (rem > 7 || (rem >= 2 && rnd(&v->rng, 2))) {
			l = rnd(&v->rng, (rem - 2 < 9 ? rem - 2 : 9) + 1);
			if (rem - 2 - l > 7)
				l = rem - 2 - rnd(&v->rng, 8);
			h[at] = 30;
			h[at + 1] = l;
			for (rem = 0; rem < l; rem++)
				h[at + 2 + rem] = rnd(&v->rng, 256);
			at += 2 + l;
			continue;
		}
		if (rem >= 3 && rnd(&v->rng, 2))
			at++;		/* Pad1, then PadN */
		else if (rem == 1) {
			at++;		/* Pad1 */
			continue;
		}
		h[at] = 1;		/* PadN */
		h[at + 1] = len - at - 2;
		at = len;
	}
	return len;
}

/*
 * A transport header for @nh at @t (its destination port @dport unless -1);
 * its length. The checksum is spoiled later, once the packet is complete.
 */
static unsigned int l4_hdr(struct vd6 *v, uint8_t nh, unsigned char *t, int dport)
{
	static const uint8_t icmp_types[][2] = {
		{ 128, 0 }, { 129, 0 }, { 1, 0 }, { 1, 4 }, { 2, 0 }, { 3, 0 }, { 3, 1 },
		{ 4, 1 }, { 133, 0 }, { 135, 0 }, { 200, 7 }, { 255, 255 },
	};
	static const uint8_t flags[] = { 0x02, 0x12, 0x10, 0x11, 0x04, 0x18, 0x03, 0x3f, 0x00, 0x29 };
	unsigned int k;

	switch (nh) {
	case 6:
		memset(t, 0, 20);
		put16(t, pkt_port6(v));
		put16(t + 2, dport >= 0 ? dport : pkt_port6(v));
		put32(t + 4, rnd(&v->rng, 0xffffffff));
		t[12] = 5 << 4;
		t[13] = rnd(&v->rng, 3) ? flags[rnd(&v->rng, sizeof(flags))] : rnd(&v->rng, 256);
		put16(t + 14, 1024);
		if (rnd(&v->rng, 3))
			return 20;
		/* An MSS option, for tcpmss and --tcp-option. */
		t[12] = 6 << 4;
		t[20] = 2;
		t[21] = 4;
		put16(t + 22, 400 + rnd(&v->rng, 1200));
		return 24;
	case 17:
		put16(t, pkt_port6(v));
		put16(t + 2, dport >= 0 ? dport : pkt_port6(v));
		put16(t + 6, 0);
		return 8;
	case 58:
		k = rnd(&v->rng, sizeof(icmp_types) / 2);
		t[0] = rnd(&v->rng, 5) ? icmp_types[k][0] : rnd(&v->rng, 256);
		t[1] = rnd(&v->rng, 5) ? icmp_types[k][1] : rnd(&v->rng, 256);
		memset(t + 2, 0, 6);
		put16(t + 4, rnd(&v->rng, 65536));
		return 8;
	case 59:
		return 0;
	default:	/* esp: an SPI (often near --espspi's) and a sequence number; 200: 8 bytes */
		put32(t, rnd(&v->rng, 2) ? 0x100 + rnd(&v->rng, 0x100) : rnd(&v->rng, 0xffffffff));
		put32(t + 4, rnd(&v->rng, 0xffffffff));
		return 8;
	}
}

/*
 * A mobility header at @off of @p, 8 to 24 bytes as its hdrlen says, with
 * the payload proto ip6t_mh wants (IPPROTO_NONE) or, now and then for
 * packets T does not take itself, another one (ip6t_mh hotdrops it; T
 * would answer it with a parameter problem were mip6 built in). Its
 * checksum is right: T's raw socket for it checks it.
 */
static unsigned int mh_hdr(struct vd6 *v, unsigned char *t, bool local)
{
	unsigned int len = 8 * (1 + rnd(&v->rng, 3)), k;

	memset(t, 0, len);
	t[0] = local || rnd(&v->rng, 4) ? 59 : rnd(&v->rng, 2) ? 6 : rnd(&v->rng, 256);
	t[1] = len / 8 - 1;
	t[2] = rnd(&v->rng, 5) ? rnd(&v->rng, 9) : rnd(&v->rng, 256);
	for (k = 6; k < len; k++)
		t[k] = rnd(&v->rng, 4) ? 0 : rnd(&v->rng, 256);
	return len;
}

/* Set the checksum (bytes 4-5) of the mobility header at @off of @p, up to its end. */
static void mh_csum(struct pkt6 *p, unsigned int off)
{
	unsigned int len = p->len - off;
	unsigned char *t = p->d + off, ph[8];
	uint32_t sum;

	if (len < 6)
		return;
	t[4] = t[5] = 0;
	put32(ph, len);
	put32(ph + 4, 135);
	sum = vd_csum_add(0, p->d + 8, 32);
	sum = vd_csum_add(sum, ph, 8);
	put16(t + 4, vd_csum_fold(vd_csum_add(sum, t, len)));
}

/*
 * Make the interface identifier of @p's source the modified EUI-64 of the
 * MAC it is sent with (RFC 4291: the universal/local bit flipped, ff fe in
 * the middle), now and then of the other link's MAC, with the bit left
 * alone or one bit off.
 */
static void eui64_src(struct vd6 *v, struct pkt6 *p)
{
	const unsigned char *mac = s_mac6[(p->path - PATH_VD0) ^ !rnd(&v->rng, 5)];
	unsigned char *a = p->d + 16;
	unsigned int bit;

	a[0] = mac[0] ^ 0x02;
	a[1] = mac[1];
	a[2] = mac[2];
	a[3] = 0xff;
	a[4] = 0xfe;
	memcpy(a + 5, mac + 3, 3);
	switch (rnd(&v->rng, 8)) {
	case 0:
		a[0] ^= 0x02;
		break;
	case 1:
		bit = rnd(&v->rng, 64);
		a[bit / 8] ^= 0x80 >> (bit % 8);
		break;
	}
}

/* Spoil the checksum of the complete transport header at @off of @p (TCP, UDP, ICMPv6). */
static void spoil_l4(struct pkt6 *p, uint8_t nh, unsigned int off)
{
	unsigned int l4len = p->len - off, at = nh == 6 ? 16 : nh == 17 ? 6 : 2;
	unsigned char *t = p->d + off, ph[8];
	uint16_t good, bad;
	uint32_t sum;

	t[at] = t[at + 1] = 0;
	put32(ph, l4len);
	put32(ph + 4, nh);
	sum = vd_csum_add(0, p->d + 8, 32);
	sum = vd_csum_add(sum, ph, 8);
	good = vd_csum_fold(vd_csum_add(sum, t, l4len));
	/* Never the right one nor its other form (0 <-> 0xffff); 0 is "none" for UDP. */
	bad = good ^ 0x5555;
	if (!bad)
		bad = good ^ 0x0f0f;
	put16(t + at, bad);
}

static void gen_packet6(struct vd6 *v, struct pkt6 *p)
{
	static const uint8_t finals[] = { 6, 6, 6, 17, 17, 17, 58, 58, 59, 50, 200, 135 };
	static const uint8_t exts[] = { 60, 60, 43, 51, 44, 44 };
	unsigned char *d = p->d, *nhp;
	unsigned int next, k, n, cut_from, l4_at, nfh = 0, fh_at[V6_MAX_EXT];
	const struct v6_aim *aim = NULL;
	bool local, first_frag = true;
	int want_xh;
	uint8_t nh;

	memset(p, 0, sizeof(*p));
	p->path = rnd(&v->rng, 3);
	/* Half of them aimed at a rule: its addresses, protocol, port, chain's path. */
	if (v->naims && rnd(&v->rng, 2)) {
		aim = &v->aims[rnd(&v->rng, v->naims)];
		if (aim->chain == 2)
			p->path = PATH_OUTPUT;
		else if (aim->chain < 2)
			p->path = PATH_VD0 + rnd(&v->rng, 2);
		aim_addr(v, d + 24, &aim->d, aim->chain == 0);
		aim_addr(v, d + 8, &aim->s, aim->chain == 2);
	} else {
		pick_addr(v, d + 24, p->path != PATH_OUTPUT);
		pick_addr(v, d + 8, p->path == PATH_OUTPUT);
	}
	if (p->path != PATH_OUTPUT && (aim && aim->eui64 ? rnd(&v->rng, 4) : !rnd(&v->rng, 6)))
		eui64_src(v, p);
	local = is_local(v, d + 24);
	if (++v->label > 0xfffff)
		v->label = 1;
	/* Mostly traffic class 0; else DSCP and ECN bits for dscp, tos and ecn rules. */
	put32(d, 6u << 28 | (rnd(&v->rng, 3) ? 0 : rnd(&v->rng, 256)) << 20 | v->label);
	/* Near the hop limit a rule names; T answers one it would forward with 1 or 0. */
	d[7] = aim && aim->hl >= 0 && rnd(&v->rng, 2) ? aim->hl + (int)rnd(&v->rng, 3) - 1 :
	       rnd(&v->rng, 8) ? hls6[rnd(&v->rng, sizeof(hls6))] : rnd(&v->rng, 256);
	if (p->path != PATH_OUTPUT && !local && d[7] < 2)
		d[7] = 2 + rnd(&v->rng, 3);
	next = 40;
	nhp = d + 6;
	k = rnd(&v->rng, 20);
	n = k < 9 ? 0 : k < 14 ? 1 : k < 17 ? 2 : k < 19 ? 3 + rnd(&v->rng, 2) :
	    5 + rnd(&v->rng, V6_MAX_EXT - 4);
	/* Aimed at a rule that looks for an extension header: mostly with it first. */
	want_xh = aim && aim->xh >= 0 && rnd(&v->rng, 4) ? aim->xh : -1;
	if (want_xh >= 0 && !n)
		n = 1 + rnd(&v->rng, 2);
	cut_from = 40;
	for (k = 0; k < n; k++) {
		unsigned char *h = d + next;

		/* Hop-by-hop only first: T answers a later one with an ICMPv6 error. */
		nh = !k && want_xh >= 0 ? want_xh : !k && !rnd(&v->rng, 3) ? 0 :
		     exts[rnd(&v->rng, sizeof(exts))];
		*nhp = nh;
		nhp = h;
		switch (nh) {
		case 0:
		case 60:
			next += opts_hdr(v, h);
			what(p, "%s ", nh ? "dstopts" : "hbh");
			if (!nh)
				cut_from = next;	/* a short one goes before any hook */
			break;
		case 43:
			h[1] = rnd(&v->rng, 4) ? 0 : 2;
			h[2] = rnd(&v->rng, 2) ? 0 : 2;	/* type 0 or 2, no segments left */
			h[3] = 0;
			memset(h + 4, 0, (h[1] + 1) * 8 - 4);
			if (!rnd(&v->rng, 4))
				h[4 + rnd(&v->rng, 4)] = 1 + rnd(&v->rng, 255);
			if (h[1] && !rnd(&v->rng, 3))
				h[23] = 1;	/* the address ::1 */
			next += (h[1] + 1) * 8;
			what(p, "rthdr ");
			break;
		case 51:
			h[1] = 1 + rnd(&v->rng, 3);	/* (len + 2) * 4 bytes */
			h[2] = h[3] = 0;
			if (!rnd(&v->rng, 4))
				h[2 + rnd(&v->rng, 2)] = 1 + rnd(&v->rng, 255);
			put32(h + 4, 0x100 + rnd(&v->rng, 0x100));
			memset(h + 8, 0, (h[1] + 2) * 4 - 8);
			next += (h[1] + 2) * 4;
			what(p, "ah ");
			break;
		default: {	/* 44 */
			/* T would reassemble a local one: only last fragments or atomic ones. */
			uint16_t off = rnd(&v->rng, 2) ? 0 : 1 + rnd(&v->rng, 300);
			bool more = !local && rnd(&v->rng, 2);

			h[1] = 0;
			put16(h + 2, off << 3 | more);
			/* Ids near the rules' (gen_u32_range()), reserved bits now and then. */
			put32(h + 4, rnd(&v->rng, 2) ? rnd(&v->rng, 10) : rnd(&v->rng, 0xffffffff));
			if (!rnd(&v->rng, 6))
				h[1] = 1 + rnd(&v->rng, 255);
			fh_at[nfh++] = next;
			next += 8;
			if (off)
				first_frag = false;
			what(p, "frag(off %u%s) ", off * 8, more ? " M" : "");
		}
		}
	}
	/* After a non-first fragment, now and then an extension header (ip6_tables hotdrops it). */
	nh = !first_frag && !rnd(&v->rng, 3) ? exts[rnd(&v->rng, 4)] :
	     aim && aim->proto >= 0 && rnd(&v->rng, 4) ? aim->proto :
	     finals[rnd(&v->rng, sizeof(finals))];
	*nhp = nh;
	l4_at = next;
	if (nh == 60 || nh == 43 || nh == 51) {
		memset(d + next, 0, 8);
		d[next] = 6;
		next += 8;
		what(p, "%u after the fragment ", nh);
		v->hotdrop_kind++;
	} else if (nh == 135) {
		next += mh_hdr(v, d + next, local);
		what(p, "mh(proto %u, type %u)", d[l4_at], d[l4_at + 2]);
	} else {
		next += l4_hdr(v, nh, d + next, aim && rnd(&v->rng, 4) ? aim->dport : -1);
		what(p, "%u", nh);
	}
	/* No neighbour discovery message T would take (and answer) from this. */
	if (nh == 58 && d[7] == 255)
		d[7] = 254;
	n = rnd(&v->rng, 3) ? 0 : rnd(&v->rng, 17);
	for (k = 0; k < n; k++)
		d[next + k] = rnd(&v->rng, 256);
	p->len = next + n;
	if (first_frag && (nh == 6 || nh == 17 || nh == 58))
		spoil_l4(p, nh, l4_at);
	else if (first_frag && nh == 135)
		mh_csum(p, l4_at);
	/* Cut short: in an extension header or in the transport header. */
	if (!rnd(&v->rng, 5) && next > cut_from) {
		k = cut_from + rnd(&v->rng, next - cut_from);
		/* T answers a fragment header cut short with an ICMPv6 error. */
		for (n = 0; n < nfh; n++)
			if (local && k >= fh_at[n] && k < fh_at[n] + 8)
				k = next;
		if (k < next) {
			p->len = k;
			what(p, " cut at %u", k);
			v->hotdrop_kind++;
		}
	}
	put16(d + 4, p->len - 40);
}

/* Observing. */

static bool same_label(const struct pkt6 *p, uint32_t flowinfo_be)
{
	return (ntohl(flowinfo_be) & 0xfffff) == ((p->d[1] & 0xf) << 16 | p->d[2] << 8 | p->d[3]);
}

/* Look at (and consume) what side @sd's observers hold: an outcome or OUT_DROPPED. */
static enum outcome observe6(struct vd_side *sd, const void *pkt)
{
	const struct pkt6 *p = pkt;
	enum outcome found = OUT_DROPPED;
	unsigned char d[2048], cbuf[256];
	unsigned int k, n;
	ssize_t len;

	for (k = 0; k < NOBS6; k++)
		for (n = 0; n < 1000; n++) {
			struct sockaddr_in6 from;
			struct iovec iov = { d, sizeof(d) };
			struct msghdr m = {
				.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				.msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
			};
			struct cmsghdr *cm;

			if (recvmsg(sd->obs_local[k], &m, 0) < 0)
				break;
			if (!p || memcmp(&from.sin6_addr, p->d + 8, 16))
				continue;
			for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
				uint32_t fi;

				if (cm->cmsg_level != IPPROTO_IPV6 || cm->cmsg_type != IPV6_FLOWINFO)
					continue;
				memcpy(&fi, CMSG_DATA(cm), 4);
				if (same_label(p, fi))
					found = OUT_LOCAL;
			}
		}
	for (n = 0; n < 1000; n++) {
		struct sockaddr_ll ll;
		socklen_t sl = sizeof(ll);
		uint32_t fi;

		len = recvfrom(sd->obs_fwd, d, sizeof(d), 0, (struct sockaddr *)&ll, &sl);
		if (len < 0)
			break;
		if (!p || ll.sll_pkttype == PACKET_OUTGOING || len < 40 ||
		    memcmp(d + 8, p->d + 8, 32))
			continue;
		memcpy(&fi, d, 4);
		if (same_label(p, fi))
			found = OUT_FORWARDED;
	}
	return found;
}

static ssize_t send6(struct vd_side *sd, const void *pkt, void *ctx)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6 };
	const struct pkt6 *p = pkt;
	int sk = p->path == PATH_OUTPUT ? sd->out_sk : sd->in_sk[p->path - PATH_VD0];

	memcpy(&dst.sin6_addr, p->d + 24, 16);
	return sendto(sk, p->d, p->len, 0, (struct sockaddr *)&dst, sizeof(dst));
}

static void send_both6(struct vd6 *v, const struct pkt6 *p, enum outcome o[2])
{
	vd_send_both(v->side, p->path, send6, observe6, p, v, o);
}

/* Reports. */

static void print_packet6(struct vd6 *v, const struct pkt6 *p)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], hex[1400];

	inet_ntop(AF_INET6, p->d + 8, s, sizeof(s));
	inet_ntop(AF_INET6, p->d + 24, d, sizeof(d));
	vd_hex(hex, sizeof(hex), p->d, p->len);
	vd_report(v->report, "#   packet %s: %s -> %s, %s, len %u:%s\n", vd_path_name[p->path], s, d,
		p->what, p->len, hex);
}

static void mismatch_header6(void *ctx, unsigned int round)
{
	struct vd6 *v = ctx;
	char keep[64];

	snprintf(keep, sizeof(keep), "/tmp/verdict-diff6-ruleset-%lu.rules", v->shown);
	vd_report(v->report, "# MISMATCH (seed %lu, ruleset %u); ruleset:\n", run->seed, round);
	vd_print_ruleset(v->report, &v->rules, "ip6tables-legacy", 64 * 1024, keep);
}

/* One ruleset and v->npackets packets through both sides; the number of mismatches. */
/*
 * bpfilter's set maps (codegen_set.c names them bpf_flt_set) loaded now: H's
 * programs hold them while they are attached, and nothing else here makes them.
 */
static unsigned int count_set_maps(void)
{
	struct bpf_map_info info;
	unsigned int n = 0, k;
	__u32 id = 0;

	for (k = 0; k < 100000 && !bpf_map_get_next_id(id, &id); k++) {
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_map_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "bpf_flt_set"))
			n++;
		close(fd);
	}
	return n;
}

static unsigned int round6(struct vd6 *v, unsigned int round)
{
	struct vd_round r = {
		.report = v->report, .round = round, .quiet = v->shown >= V6_MAX_SHOWN,
		.header = mismatch_header6, .ctx = v, .tables = "ip6_tables", .side = v->side,
		.hd = &v->hd,
	};
	struct buf save[2] = { { 0 }, { 0 } };
	unsigned int i;
	bool show;

	gen_ruleset6(v);
	if (!vd_round_restore(&r, "ip6tables-legacy-restore", v->tmp, &v->rules))
		goto out;
	if (v->has_run) {
		bool folded = count_set_maps() > 0;

		v->run_rulesets++;
		v->folded += folded;
		if (!folded)
			printf("# ruleset %u: its run was not folded:\n%s", round, v->rules.p);
	}
	for (i = 0; i < v->npackets; i++) {
		enum outcome o[2];
		struct pkt6 p;

		gen_packet6(v, &p);
		send_both6(v, &p, o);
		if (!vd_round_case(&r, i, o, v->outcomes, &show))
			continue;
		run->cases++;
		if (show)
			print_packet6(v, &p);
	}
	vd_round_saves(&r, "ip6tables-legacy-save -c -t filter", save, &v->rules, 64 * 1024,
		       v->npackets);
	v->hit_rules += vd_count_hit_with(&save[0], "");
	for (i = 0; i < NEXT_MATCHES; i++)
		v->ext_hits[i] += vd_count_hit_with(&save[0], ext_matches[i]);
	v->run_hits += vd_count_hit_with(&save[0], V6_RUN_TAG);
out:
	return vd_round_end(&r, save, run->verbose, &v->shown);
}

/* Setup. */

static int setup_side6(struct vd6 *v, int i)
{
	static const char *const quiet =
		"net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.all.addr_gen_mode=1 "
		"net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0 "
		"net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_ra=0 "
		"net.ipv6.conf.all.accept_ra=0";
	struct vd_side *sd = &v->side[i];
	const char *t = sd->t, *s = sd->s;
	unsigned int k;
	int on = 1, err;

	err = vd_side_netns(sd, "v6", i);
	if (err)
		return err;
	/*
	 * Before any device: no link-local addresses (so no redirects and no
	 * router solicitations), no DAD; T forwards and reassembles nothing.
	 */
	if (vd_sh("ip netns exec %s sysctl -qw %s && ip netns exec %s sysctl -qw %s "
		  "net.ipv6.conf.all.forwarding=1 net.ipv6.conf.default.forwarding=1 "
		  "net.ipv6.ip6frag_low_thresh=0 net.ipv6.ip6frag_high_thresh=0",
		  s, quiet, t, quiet) || vd_side_links(sd) ||
	    vd_sh("ip -n %s addr add fd00:99::fe/64 dev vd0 nodad && "
		  "ip -n %s addr add fd00:200::fe/64 dev vd1 nodad && "
		  "ip -n %s addr add fd00:1::1/128 dev lo && "
		  "ip -n %s addr add fd00:200:1::1/128 dev lo && "
		  "ip -n %s -6 route add default dev vd1", t, t, t, t, t) ||
	    vd_sh("ip -n %s addr add fd00:5::5/128 dev lo && "
		  "ip -n %s -6 route add default dev vd0p metric 1 && "
		  "ip -n %s -6 route add default dev vd1p metric 2", s, s, s))
		return -EIO;
	err = vd_side_sockets(sd, AF_INET6, ETH_P_IPV6, observed6, NOBS6);
	if (err)
		return err;
	/* The flow label of each packet, in a control message. */
	for (k = 0; k < NOBS6; k++)
		if (setsockopt(sd->obs_local[k], IPPROTO_IPV6, IPV6_FLOWINFO, &on, sizeof(on)))
			return -errno;
	return 0;
}

static void teardown6(struct vd6 *v)
{
	vd_close_all(&v->hd, v->side, v->tmp, v->report, &v->rules);
	memset(v, 0, sizeof(*v));
}

static int setup6(struct vd6 *v)
{
	unsigned int i;
	int err;

	memset(v, 0, sizeof(*v));
	vd_prepare(&v->hd, v->side);
	for (i = 0; i < NT6; i++)
		inet_pton(AF_INET6, t_addrs6[i], &v->t_local[i]);
	for (i = 0; i < NO6; i++)
		inet_pton(AF_INET6, o_addrs6[i], &v->other[i]);
	v->rng.s = run->seed * 0x9E3779B97F4A7C15ull + 0x6;
	v->npackets = run->per_ruleset;
	for (i = 0; i < 2; i++) {
		err = setup_side6(v, i);
		if (err)
			goto fail;
	}
	snprintf(v->tmp, sizeof(v->tmp), "/tmp/vd6-%d.rules", getpid());
	err = vd_hostd_start(&v->hd, "vd6-", "/tmp/verdict-diff6-helper.log", false);
	if (err)
		goto fail;
	/* The MLD reports of T's new addresses and groups cross OUTPUT: let them pass first. */
	usleep(2500 * 1000);
	return 0;
fail:
	teardown6(v);
	return err;
}

FIXTURE(vd6) {
	struct vd6 v;
};

FIXTURE_SETUP(vd6)
{
	ASSERT_EQ(0, setup6(&self->v)) TH_LOG("setup failed (namespaces, sockets or hostd)");
}

FIXTURE_TEARDOWN(vd6)
{
	teardown6(&self->v);
}

/*
 * The comparison must be able to fail: INPUT dropping on one side only shows
 * as different outcomes, and the same the other way round.
 */
TEST_F(vd6, detects_a_difference)
{
	const char *ns[2] = { self->v.side[0].t, self->v.side[1].t };
	static const char *const drop = "*filter\n:INPUT DROP [0:0]\nCOMMIT\n";
	static const char *const accept = "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n";
	struct vd6 *v = &self->v;
	struct buf out = { 0 }, rules[2] = { { 0 }, { 0 } };
	enum outcome o[2];
	struct pkt6 p;
	int i, s, n;

	for (i = 0; i < 2; i++) {
		for (s = 0; s < 2; s++) {
			rules[s].len = 0;
			bprintf(&rules[s], "%s", s == i ? drop : accept);
			ASSERT_EQ(0, vd_restore(ns[s], s ? &v->hd : NULL,
						"ip6tables-legacy-restore", v->tmp, &rules[s], &out));
		}
		n = 0;
		do
			gen_packet6(v, &p);
		while ((p.d[6] != 59 || p.len != 40) && ++n < 100000);
		ASSERT_GT(100000, n);
		p.path = PATH_VD0;
		memcpy(p.d + 24, &v->t_local[0], 16);
		send_both6(v, &p, o);
		EXPECT_EQ(OUT_DROPPED, o[i]);
		EXPECT_EQ(OUT_LOCAL, o[!i]);
	}
	free(out.p);
	free(rules[0].p);
	free(rules[1].p);
}

/* A packet from S over vd1 with @len bytes after the IPv6 header, the first next header @nh. */
static void mk_packet(struct vd6 *v, struct pkt6 *p, const char *src, uint8_t nh,
		      const unsigned char *l4, unsigned int len, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->path = PATH_VD1;
	if (++v->label > 0xfffff)
		v->label = 1;
	put32(p->d, 6u << 28 | v->label);
	put16(p->d + 4, len);
	p->d[6] = nh;
	p->d[7] = 64;
	inet_pton(AF_INET6, src, p->d + 8);
	memcpy(p->d + 24, &v->t_local[0], 16);
	memcpy(p->d + 40, l4, len);
	p->len = 40 + len;
	snprintf(p->what, sizeof(p->what), "%s", what);
}

/*
 * The cases ip6_tables hotdrops, each once: a -p rule whose addresses match
 * drops a packet whose extension headers are cut short or that has another
 * one after a non-first fragment; the tcp and icmp6 matches drop one whose
 * header is cut short, the mh match one cut short or whose payload proto
 * is not NONE. Both sides must drop them, and count alike; with other
 * addresses the same packets are delivered.
 */
TEST_F(vd6, hotdrops)
{
	static const unsigned char dst_cut[] = { 6, 1 };	/* says 16 bytes */
	static const unsigned char frag_dst[] = { 60, 0, 0, 8 | 0, 0, 0, 0, 1, 6, 0, 1, 4 };
	static const unsigned char tcp_cut[] = { 0, 1, 0, 80, 0, 0, 0, 0, 0, 0 };
	static const unsigned char icmp_cut[] = { 128, 0, 0x12, 0x34 };
	static const unsigned char udp[] = { 0, 9, 0, 9, 0, 8, 0x12, 0x34 };
	static const unsigned char frag_tcp[] = { 6, 0, 0, 8, 0, 0, 0, 2, 0, 1, 0, 80 };
	/* Mobility headers of 16 bytes (hdrlen 1), binding updates (type 5). */
	static const unsigned char mh_cut[] = { 59, 1, 5, 0 };
	static const unsigned char mh_tcp[16] = { 6, 1, 5 };
	static const unsigned char mh_bu[16] = { 59, 1, 5 };
	static const struct {
		const char *src;
		uint8_t nh;
		const unsigned char *l4;
		unsigned int len;
		enum outcome want;
		const char *what;
	} cases[] = {
		{ "fd00:200::2", 60, dst_cut, sizeof(dst_cut), OUT_DROPPED, "dstopts cut short" },
		{ "fd00:200::3", 60, dst_cut, sizeof(dst_cut), OUT_LOCAL, "the same, other source" },
		{ "fd00:200::2", 44, frag_dst, sizeof(frag_dst), OUT_DROPPED,
		  "frag(off 8) then dstopts" },
		{ "fd00:200::2", 6, tcp_cut, sizeof(tcp_cut), OUT_DROPPED, "tcp cut at 10" },
		{ "fd00:200::2", 58, icmp_cut, sizeof(icmp_cut), OUT_DROPPED, "icmpv6 cut at 4" },
		{ "fd00:200::2", 17, udp, sizeof(udp), OUT_LOCAL, "udp" },
		{ "fd00:200::2", 44, frag_tcp, sizeof(frag_tcp), OUT_LOCAL, "frag(off 8) then tcp" },
		{ "fd00:200::2", 135, mh_cut, sizeof(mh_cut), OUT_DROPPED, "mh cut at 4" },
		{ "fd00:200::2", 135, mh_tcp, sizeof(mh_tcp), OUT_DROPPED, "mh, payload proto 6" },
		{ "fd00:200::2", 135, mh_bu, sizeof(mh_bu), OUT_LOCAL, "mh binding update" },
	};
	const char *ns[2] = { self->v.side[0].t, self->v.side[1].t };
	struct vd6 *v = &self->v;
	struct buf save[2] = { { 0 }, { 0 } };
	enum outcome o[2];
	struct pkt6 p;
	unsigned int i;

	v->rules.len = 0;
	bprintf(&v->rules, "*filter\n:INPUT ACCEPT [0:0]\n"
		"-A INPUT -s fd00:200::2/128 -p udp -j ACCEPT\n"
		"-A INPUT -s fd00:200::2/128 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		"-A INPUT -s fd00:200::2/128 -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT\n"
		"-A INPUT -s fd00:200::2/128 -p mh -m mh --mh-type 5 -j ACCEPT\n"
		"COMMIT\n");
	ASSERT_TRUE(vd_restore_both(NULL, ns, &v->hd, "ip6tables-legacy-restore", v->tmp,
				    &v->rules, 0));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mk_packet(v, &p, cases[i].src, cases[i].nh, cases[i].l4, cases[i].len,
			  cases[i].what);
		if (cases[i].nh == 135)
			mh_csum(&p, 40);
		send_both6(v, &p, o);
		EXPECT_EQ(cases[i].want, o[SIDE_K]) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(o[SIDE_K], o[SIDE_H]) TH_LOG("%s", cases[i].what);
	}
	vd_save_both(ns, &v->hd, "ip6tables-legacy-save -c -t filter", save);
	EXPECT_TRUE(vd_saves_equal(save)) TH_LOG("ip6_tables:\n%s\nbpfilter:\n%s", save[0].p,
						 save[1].p);
	free(save[0].p);
	free(save[1].p);
}

/*
 * kube-proxy's KUBE-SERVICES in ip6tables (issue 30): a run of 64 to 120
 * jumps (CG_FOLD_JUMP_MIN and more), -d addr/128 -p tcp|udp -m comment
 * -m tcp|udp --dport P -j c<k>, TCP and UDP services interleaved (every
 * tenth a UDP one, others now and then), no two with the same address,
 * protocol and port; INPUT, FORWARD and OUTPUT jump to it, some after a
 * rule of their own, and go on with random rules; the service chains
 * hold random rules and RETURN, ACCEPT or DROP.
 */
#define KUBE_MIN_SVCS	64
#define KUBE_MAX_SVCS	120
#define KUBE_ROUNDS	12

struct kube_svc {
	struct in6_addr a;
	uint8_t proto;
	uint16_t port;
};

static bool kube_key_used(const struct kube_svc *svc, unsigned int n, const struct kube_svc *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!memcmp(&svc[i].a, &s->a, 16) && svc[i].proto == s->proto &&
		    svc[i].port == s->port)
			return true;
	return false;
}

static void gen_kube_svc6(struct vd6 *v, struct kube_svc *svc, unsigned int i,
			  unsigned int nchains)
{
	static const uint16_t ports[] = { 53, 80, 443, 8080, 9153, 22 };
	struct kube_svc *s = &svc[i];
	unsigned int k;

	do {
		k = rnd(&v->rng, 10);
		/* T's own addresses (INPUT), others it routes (FORWARD), or fd00:96::x. */
		if (k < 3) {
			s->a = v->t_local[rnd(&v->rng, NT6)];
		} else if (k < 6) {
			s->a = v->other[rnd(&v->rng, NO6)];
		} else {
			inet_pton(AF_INET6, "fd00:96::", &s->a);
			s->a.s6_addr[15] = rnd(&v->rng, 200);
		}
		s->proto = i % 10 == 3 || !rnd(&v->rng, 5) ? 17 : 6;
		s->port = rnd(&v->rng, 2) ? ports[rnd(&v->rng, 6)] : 1 + rnd(&v->rng, 2000);
	} while (kube_key_used(svc, i, s));
	bprintf(&v->rules, "-A KUBE-SERVICES -d ");
	put_addr(&v->rules, &s->a);
	bprintf(&v->rules, "/128 -p %s", s->proto == 6 ? "tcp" : "udp");
	if (rnd(&v->rng, 4))
		bprintf(&v->rules, " -m comment --comment \"default/svc-%u:p cluster IP\"", i);
	bprintf(&v->rules, " -m %s --dport %u -j c%u\n", s->proto == 6 ? "tcp" : "udp", s->port,
		rnd(&v->rng, nchains));
	if (v->nseen < V6_SEEN)
		v->seen[v->nseen++] = (struct v6_addr){ s->a, 128 };
	if (v->nports < V6_SEEN)
		v->ports[v->nports++] = s->port;
	/* Packets aimed at services, yet room for the chains' rules. */
	if (v->naims < 40 && rnd(&v->rng, 2))
		v->aims[v->naims++] = (struct v6_aim){ .d = { s->a, 128 }, .proto = s->proto,
						       .dport = s->port, .chain = 3, .xh = -1,
						       .hl = -1 };
}

static unsigned int gen_kube6(struct vd6 *v, struct kube_svc *svc)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	static const char *const ends[] = { "ACCEPT", "DROP", "RETURN" };
	unsigned int nchains = 3 + rnd(&v->rng, 4), n, c, i, k;
	char name[8];

	n = KUBE_MIN_SVCS + rnd(&v->rng, KUBE_MAX_SVCS - KUBE_MIN_SVCS + 1);
	v->rules.len = 0;
	v->nseen = v->nports = v->naims = 0;
	bprintf(&v->rules, "*filter\n");
	for (c = 0; c < 3; c++)
		bprintf(&v->rules, ":%s %s [0:0]\n", builtin[c], rnd(&v->rng, 3) ? "ACCEPT" : "DROP");
	bprintf(&v->rules, ":KUBE-SERVICES - [0:0]\n");
	for (c = 0; c < nchains; c++)
		bprintf(&v->rules, ":c%u - [0:0]\n", c);
	for (c = 0; c < 3; c++) {
		if (!rnd(&v->rng, 4))
			gen_rule6(v, c, builtin[c], 0, 0);
		bprintf(&v->rules, "-A %s -j KUBE-SERVICES\n", builtin[c]);
		for (k = rnd(&v->rng, 3); k; k--)
			gen_rule6(v, c, builtin[c], 0, 0);
	}
	for (i = 0; i < n; i++)
		gen_kube_svc6(v, svc, i, nchains);
	if (rnd(&v->rng, 2))
		gen_rule6(v, 3, "KUBE-SERVICES", 0, 0);
	for (c = 0; c < nchains; c++) {
		snprintf(name, sizeof(name), "c%u", c);
		/* A chain jumps only to those after it: no loops. */
		for (k = rnd(&v->rng, 4); k; k--)
			gen_rule6(v, 3, name, c + 1, nchains);
		k = rnd(&v->rng, 4);
		if (k)
			bprintf(&v->rules, "-A %s -j %s\n", name, ends[k - 1]);
	}
	bprintf(&v->rules, "COMMIT\n");
	return n;
}

/* What the packets aimed at the run's edges did on the kernel's side. */
struct kube_stats {
	unsigned long rulesets, folded, svc_hits;
	/* Walks that fail, to a service's address and to no service's. */
	unsigned long walk_fail_svc, walk_fail_svc_dropped;
	unsigned long walk_fail_other, walk_fail_other_passed;
	unsigned long cases, mismatches;	/* apart from random_rulesets' */
};

/*
 * The packets of kind @kind (see kube_round6()) to @dst by @path; @s the
 * service whose protocol and port the transport header has.
 */
static void kube_packet6(struct vd6 *v, struct pkt6 *p, unsigned int kind, enum path path,
			 const struct in6_addr *dst, const struct kube_svc *s)
{
	/* A later fragment followed by destination options (said 8 bytes, 4 there). */
	static const unsigned char frag_dst[] = { 60, 0, 0, 8, 0, 0, 0, 1, 6, 0, 1, 4 };
	static const unsigned char dst_1[] = { 6 };	/* 1 byte of destination options */
	static const unsigned char dst_cut[] = { 6, 1 };	/* says 16 bytes */
	unsigned char h[40] = { 0 };
	unsigned int l4len = s->proto == 6 ? 20 : 8, off = 0;
	uint8_t nh = s->proto;

	put16(h, 1000 + rnd(&v->rng, 1000));
	put16(h + 2, s->port);
	switch (kind) {
	case 0:
		mk_packet(v, p, "fd00:200::2", 44, frag_dst, sizeof(frag_dst),
			  "frag(off 8), dstopts");
		break;
	case 1:
		mk_packet(v, p, "fd00:200::2", 60, dst_1, sizeof(dst_1), "dstopts cut at 1");
		break;
	case 2:
		mk_packet(v, p, "fd00:200::2", 60, dst_cut, sizeof(dst_cut),
			  "dstopts cut at 2, tcp");
		break;
	case 3:
		/* The transport header cut short: the ports and a little more, or the ports. */
		mk_packet(v, p, "fd00:200::2", nh, h, s->proto == 6 ? 10 : 4, "l4 cut short");
		break;
	case 4:
		/* A later fragment: tcp_mt()/udp_mt() never match it. */
		memmove(h + 8, h, 8);
		memset(h, 0, 8);
		h[0] = nh;
		put16(h + 2, 2 << 3);
		put32(h + 4, 3);
		mk_packet(v, p, "fd00:200::2", 44, h, 16, "frag(off 16), l4");
		break;
	case 5:
		/* An atomic fragment (offset 0, no more): a whole packet to T. */
		memmove(h + 8, h, 4);
		memset(h, 0, 8);
		h[0] = nh;
		put32(h + 4, 4);
		off = 48;
		if (nh == 6)
			h[8 + 12] = 5 << 4;
		mk_packet(v, p, "fd00:200::2", 44, h, 8 + l4len, "atomic frag, l4");
		break;
	default:
		off = 40;
		if (nh == 6)
			h[12] = 5 << 4;
		mk_packet(v, p, "fd00:200::2", nh, h, l4len, "l4");
	}
	p->path = path;
	if (path == PATH_OUTPUT)
		memcpy(p->d + 8, &v->t_local[1], 16);
	memcpy(p->d + 24, dst, 16);
	/* T must not answer: a complete transport header's checksum is spoiled. */
	if (off)
		spoil_l4(p, nh, off);
}

#define KUBE_KINDS	7

/* Send @p through both sides and judge it as case *@np of round @r: counted in @st? */
static bool kube_case6(struct vd6 *v, struct vd_round *r, unsigned int *np, struct pkt6 *p,
		       enum outcome *o, struct kube_stats *st)
{
	bool show;

	send_both6(v, p, o);
	if (!vd_round_case(r, (*np)++, o, v->outcomes, &show))
		return false;
	st->cases++;
	if (show)
		print_packet6(v, p);
	return true;
}

/*
 * One kube-proxy-shaped ruleset (gen_kube6()): random packets, many aimed
 * at services, then each kind of kube_packet6() by each path to a TCP
 * service's address, a UDP one's and one no service has. Its mismatches.
 */
static unsigned int kube_round6(struct vd6 *v, unsigned int round, struct kube_stats *st)
{
	struct vd_round r = {
		.report = v->report, .round = round, .quiet = v->shown >= V6_MAX_SHOWN,
		.header = mismatch_header6, .ctx = v, .tables = "ip6_tables", .side = v->side,
		.hd = &v->hd,
	};
	struct buf save[2] = { { 0 }, { 0 } };
	struct kube_svc svc[KUBE_MAX_SVCS], none = { 0 };
	const struct kube_svc *to[3] = { NULL, NULL, &none };
	unsigned int n, i, k, d, path, np = 0;
	enum outcome o[2];
	struct pkt6 p;

	n = gen_kube6(v, svc);
	inet_pton(AF_INET6, "fd00:96::ffff", &none.a);
	for (i = 0; i < n; i++)
		if (!to[svc[i].proto == 17])
			to[svc[i].proto == 17] = &svc[i];
	if (!vd_round_restore(&r, "ip6tables-legacy-restore", v->tmp, &v->rules))
		goto out;
	st->rulesets++;
	if (count_set_maps())
		st->folded++;
	else
		printf("# kube ruleset %u: its run of jumps was not folded\n", round);
	for (i = 0; i < v->npackets; i++) {
		gen_packet6(v, &p);
		kube_case6(v, &r, &np, &p, o, st);
	}
	for (d = 0; d < 3 && to[0] && to[1]; d++) {
		for (k = 0; k < KUBE_KINDS; k++) {
			for (path = PATH_OUTPUT; path <= PATH_VD1; path++) {
				/* To no service: the protocol and port of one that exists. */
				kube_packet6(v, &p, k, path, &to[d]->a, to[d < 2 ? d : k % 2]);
				if (!kube_case6(v, &r, &np, &p, o, st) || k > 1)
					continue;
				if (d < 2) {
					st->walk_fail_svc++;
					st->walk_fail_svc_dropped += o[SIDE_K] == OUT_DROPPED;
				} else {
					st->walk_fail_other++;
					st->walk_fail_other_passed += o[SIDE_K] != OUT_DROPPED;
				}
			}
		}
	}
	vd_round_saves(&r, "ip6tables-legacy-save -c -t filter", save, &v->rules, 64 * 1024, np);
	st->svc_hits += vd_count_hit_with(&save[0], "-A KUBE-SERVICES -d ");
out:
	st->mismatches += r.bad;
	return vd_round_end(&r, save, run->verbose, &v->shown);
}

/*
 * kube-proxy-shaped rulesets: bpfilter folds each run of jumps across TCP
 * and UDP services (its set maps are loaded), and judges and counts
 * every packet as ip6_tables does: services matched, fragments and headers
 * cut short, and walks that fail (a hotdrop at a service's address,
 * whatever its protocol; past the run elsewhere).
 */
TEST_F_TIMEOUT(vd6, kube_services, 1800)
{
	struct vd6 *v = &self->v;
	struct kube_stats st = { 0 };
	unsigned int round;

	for (round = 1; round <= KUBE_ROUNDS; round++)
		run->mismatches += kube_round6(v, round, &st);
	printf("# kube: %lu rulesets, %lu folded, %lu cases, %lu mismatches, %lu service rules "
	       "counted packets; failed walks: %lu of %lu to a service's address dropped, %lu of "
	       "%lu to others not\n", st.rulesets, st.folded, st.cases, st.mismatches, st.svc_hits,
	       st.walk_fail_svc_dropped, st.walk_fail_svc, st.walk_fail_other_passed,
	       st.walk_fail_other);
	EXPECT_EQ(KUBE_ROUNDS, st.rulesets);
	EXPECT_LT(KUBE_ROUNDS * v->npackets, st.cases);
	EXPECT_EQ(st.rulesets, st.folded);
	EXPECT_LT(st.rulesets, st.svc_hits);
	/* Both sides of the failed walk were reached, not only decided before the run. */
	EXPECT_LT(0, st.walk_fail_svc_dropped);
	EXPECT_LT(0, st.walk_fail_other_passed);
	EXPECT_EQ(0, st.mismatches);
}

TEST_F_TIMEOUT(vd6, random_rulesets, 86400)
{
	struct vd6 *v = &self->v;
	unsigned long max_rounds = 4 * run->want_cases / run->per_ruleset + 10;
	unsigned int round = 0, k;

	mkdir(BPFILTER_SRCTREE "/build", 0755);
	mkdir(BPFILTER_SRCTREE "/build/logs", 0755);
	v->report = vd_open_report(V6_MISMATCH_FILE, "w", "verdict-diff6", run->seed,
				   "VERDICT_DIFF_SEED=<seed> build/selftests/test_verdict_diff6");
	TH_LOG("seed %lu, %lu cases wanted, %u packets per ruleset", run->seed, run->want_cases,
	       run->per_ruleset);
	/* Bounded even if most packets were refused before any hook. */
	while (run->cases < run->want_cases && round < max_rounds) {
		run->mismatches += round6(v, ++round);
		if (run->verbose || !(round % 10))
			printf("# %u rulesets, %lu cases, %lu mismatches\n", round, run->cases,
			       run->mismatches);
	}
	vd_print_outcomes("", "ip6_tables", v->outcomes);
	printf("# %lu rules counted packets; %lu packets cut short or with a header after a "
	       "non-first fragment\n", v->hit_rules, v->hotdrop_kind);
	printf("# of them with");
	for (k = 0; k < NEXT_MATCHES; k++)
		printf(" %s: %lu%s", ext_matches[k], v->ext_hits[k], k + 1 < NEXT_MATCHES ? "," : "\n");
	printf("# %lu rulesets with a run of similar rules, %lu of them folded; %lu rules of "
	       "runs counted packets\n", v->run_rulesets, v->folded, v->run_hits);
	/* A run without every kind of outcome proves less than it claims. */
	EXPECT_TRUE(vd_every_outcome(v->outcomes));
	EXPECT_LE(round, v->hit_rules);
	for (k = 0; run->want_cases >= V6_DEFAULT_CASES && k < NEXT_MATCHES; k++) {
		if (!v->ext_hits[k])
			TH_LOG("no %s rule ever matched", ext_matches[k]);
		EXPECT_LT(0, v->ext_hits[k]);
	}
	/* Every run folds: each shape gen_run6() makes is one codegen_set.c folds. */
	EXPECT_EQ(v->run_rulesets, v->folded);
	if (run->want_cases >= V6_DEFAULT_CASES)
		EXPECT_LT(0, v->run_hits);
	EXPECT_EQ(0, run->mismatches);
	EXPECT_LE(run->want_cases, run->cases);
}

/* After the harness' totals: the summary line, and a run too short fails. */
static void print_summary6(void)
{
	if (getpid() != run->main_pid)
		return;
	printf("verdict-diff6: %lu cases, %lu mismatches\n", run->cases, run->mismatches);
	fflush(stdout);
	if (run->mismatches || run->cases < V6_MIN_CASES)
		_exit(1);
}

int main(int argc, char **argv)
{
	struct v6_run r = {
		.seed = vd_env_ul("VERDICT_DIFF_SEED", 1),
		.want_cases = vd_env_ul("VERDICT_DIFF6_CASES", V6_DEFAULT_CASES),
		.per_ruleset = V6_PER_RULESET, .main_pid = getpid(),
	};
	cpu_set_t cpus;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:p:v")) != -1) {
		if (opt == 'v')
			r.verbose = true;
		else if (opt == 's')
			r.seed = strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			r.want_cases = strtoul(optarg, NULL, 0);
		else if (opt == 'p')
			r.per_ruleset = strtoul(optarg, NULL, 0) ?: 1;
		else {
			fprintf(stderr, "usage: %s [-s seed] [-n cases] [-p packets-per-ruleset] "
				"[-v]\n", argv[0]);
			return 2;
		}
	}
	/*
	 * One CPU for the sender and all it forks: veth delivers in the
	 * sender's context, so both sides see each packet on the same CPU and
	 * -m cpu judges alike.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() > 0 ? sched_getcpu() : 0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		perror("sched_setaffinity");
	/* Shared with the harness' test children, which count the cases. */
	run = vd_shared(sizeof(*run));
	if (!run || vd_start(print_summary6))
		return 1;
	*run = r;
	printf("# verdict-diff6: seed %lu, %lu cases (VERDICT_DIFF_SEED, VERDICT_DIFF6_CASES)\n",
	       run->seed, run->want_cases);
	return test_harness_run(1, argv);
}
