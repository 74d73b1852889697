// SPDX-License-Identifier: GPL-2.0
/*
 * Differential verdict test (issue 4): bpfilter's BPF programs against the
 * kernel's own ip_tables, on real packets.
 *
 * A seeded generator makes random filter rulesets (addresses with masks,
 * -i/-o with masks and '+', protocols, -f, tcp ports/ranges/flags/--syn/
 * --tcp-option, udp ports, icmp types/codes, every inversion, user chains
 * reached by jumps and gotos, RETURN, ACCEPT/DROP policies on INPUT,
 * FORWARD and OUTPUT) and random IPv4 packets (fragments, truncated
 * transport headers, odd header lengths, TCP options).
 *
 * Two identical sides, K and H, each a target namespace T and a sender
 * namespace S joined by two veth pairs (T:vd0-S:vd0p, T:vd1-S:vd1p):
 *  - K's T gets the ruleset with stock iptables-legacy-restore (real
 *    ip_tables); H's T gets it with the same command through the LD_PRELOAD
 *    shim and bpfilter-hostd, i.e. the helper with the bpf backend, which
 *    attaches its programs in H's T (hostd enters the requester's netns).
 *  - OUTPUT: T sends the packet from an IPPROTO_RAW socket; sendto() fails
 *    with EPERM exactly when LOCAL_OUT dropped it.
 *  - INPUT/FORWARD: S sends it over vd0p or vd1p; T delivers it locally
 *    (seen by raw sockets in T, which sit after LOCAL_IN), forwards it
 *    (seen by a packet socket in S) or drops it.
 * The outcomes must be equal, and after each ruleset iptables-legacy-save -c
 * in both T namespaces must print the same rules with the same packet and
 * byte counters. Checksums of complete transport headers are deliberately
 * wrong, so T never answers (no RST, no ICMP) and the only packets the
 * hooks see are ours.
 *
 * random_ext_rulesets does the same with a generator that also emits the
 * comment, multiport, iprange, mark, length, ttl, tos, dscp, ah, esp,
 * pkttype, devgroup, realm, mac, ecn, tcpmss and u32 matches (0-2 a rule,
 * random parameters and inversions, before or after -p and its -m
 * tcp/udp), -p sctp, dccp, udplite, ah, esp, and runs of rules bpfilter
 * folds into lookups (some with comments), of ah, esp, multiport, tcpmss
 * or ecn rules or of rules with a lone pkttype, devgroup, realm or mac
 * match; its packets add those protocols (SPIs and ports the rules name,
 * transport headers cut anywhere in their first 12 bytes), TCP ECE/CWR
 * flags and MSS options with values the tcpmss rules name (u32 tests
 * header fields, ports, flags and payload words through "@", and random
 * offsets past the end or wrapping), TTLs, TOS bytes, lengths and addresses on and
 * next to the rules' boundaries, and for OUTPUT a socket mark (SO_MARK, the
 * same on both sides); two thirds of them are aimed at some rule (its
 * addresses, interfaces, protocol, destination port, the frame its pkttype
 * or mac match wants). T has a raw socket for each of these protocols, so
 * none of them is answered with protocol unreachable (UDP-Lite and SCTP
 * checksums are spoiled too), and it sees forwarded packets with a TTL of 2
 * or more, so it never sends time exceeded. For pkttype, devgroup, realm
 * and mac (setup_ext(), the same on both sides): about half of S's
 * packets go as whole frames from a packet socket in S, to the broadcast MAC address
 * or a multicast one (PACKET_BROADCAST, PACKET_MULTICAST on T; often to
 * T's subnet broadcasts, 255.255.255.255, 224.0.0.1 or a group T is not
 * in), or to T from another sender's MAC address; T's own packets now and
 * then go to a broadcast or multicast address, which T loops back through
 * its INPUT (PACKET_LOOPBACK, no MAC header); T's vd0, vd1 and lo are in
 * device groups 5, 0x12 and 0x40000003; its routes carry realms (realm 5 to
 * 10.99.0.0/24, realms 3/9 on the default route, realm 7 on its local
 * 10.200.1.1), so INPUT, FORWARD and OUTPUT see different ones. -m mac and
 * --src-group are only in rules INPUT and FORWARD alone reach, --dst-group
 * only in those FORWARD and OUTPUT alone reach (ip_tables' comefrom: a user
 * chain's are the hooks of the jumps to it); an edit that jumps to such a
 * chain from elsewhere must fail on both sides alike. Rules with each of
 * these four (unicast, broadcast or multicast, and inverted pkttype; each
 * devgroup option and an inverted one; realm and mac either way) must have
 * counted packets on ip_tables' side. Its draws are all behind v->ext: the other tests'
 * streams are those seeds were recorded with. 6000 cases by default, 40
 * packets a ruleset.
 *
 * random_stateful_rulesets (fixture vd_ct) does it with conntrack state:
 * its rules add -m conntrack (--ctstate with every state and SNAT/DNAT,
 * --ctdir, --ctproto, the four addresses with masks, the four ports and
 * ranges, --ctstatus, --ctexpire with bounds far from any lifetime a flow
 * here can have), -m state and -m connmark (--mark with masks: T's
 * nftables table marks each new flow's entry by its protocol and server
 * port, see setup_ct()), 0-2 a rule, with three quarters of the
 * -s/-d/-i/-o options left out; its packets are flows to, from and across
 * T, whose later packets' state comes from the earlier ones: TCP
 * handshakes, data either way (some out of the window), FIN and RST closes,
 * bare ACKs picked up mid-stream, segments that open nothing (SYN|FIN, a
 * lone SYN|ACK); UDP requests and replies; ICMP echoes and a reply without
 * a request; ICMP errors quoting a flow's packet (RELATED, or INVALID when
 * about nothing confirmed or sent to a third address); flows to port 7777,
 * which T leaves untracked; flows through T's NAT (DNAT to T, SNAT from or
 * across it), so that SNAT/DNAT states hold and reply tuples are not the
 * original ones swapped. Each flow has its own client port or echo id; a
 * ruleset's flows are interleaved, each in order, and an edit may fall
 * among them; with them come rules of the usual stateful shape (a protocol,
 * conntrack matches, a verdict). Conntrack is on in both T whatever the
 * ruleset (an nftables table: what bpfilter.ko's hold does; hostd -C tells
 * the helper that it is held) and checks no checksums (spoiled, but in ICMP
 * errors, which nothing answers and NAT checks); the table counts the
 * states and NAT it gives: each must occur, and rules with a connmark
 * match not inverted must have counted packets. A mismatch lists its flow's
 * earlier packets. 5000 cases by default, up to 40 packets a ruleset.
 *
 * Usage: test_verdict_diff [-s seed] [-n cases] [-e ext-cases] [-c ct-cases]
 *        [-p packets-per-ruleset] [--soak] [-v] [--dump-ext N];
 *        env VERDICT_DIFF_SEED, VERDICT_DIFF_CASES, VERDICT_DIFF_EXT_CASES,
 *        VERDICT_DIFF_CT_CASES, VERDICT_DIFF_SEQS (edit_sequences' rulesets,
 *        each with SEQ_STEPS edits).
 * --dump-ext N prints random_ext_rulesets' first N rulesets (restore input,
 * the edit and the packets as comments) and runs nothing.
 * A mismatch is printed (and appended to /tmp/verdict-mismatches.txt) as the
 * iptables commands and the packet that reproduce it. The last lines are
 * "verdict-diff-ext: N cases, M mismatches" (random_ext_rulesets),
 * "verdict-diff-ct: N cases, M mismatches" (random_stateful_rulesets) and
 * "verdict-diff: N cases, M mismatches" (the others); the exit status is 0
 * only if every M is 0, N >= 1000 for the others and for ct, and N >= 3000
 * for ext.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "hostd.h"
#include "mbox_driver.h"
#include "vdiff.h"

#define VD_MIN_CASES		1000
#define VD_DEFAULT_CASES	3000
#define VD_DEFAULT_SEQS		16	/* edit_sequences: rulesets of SEQ_STEPS edits each */
#define VD_EXT_MIN_CASES	3000	/* random_ext_rulesets */
#define VD_EXT_DEFAULT_CASES	6000
#define VD_CT_MIN_CASES		1000	/* random_stateful_rulesets */
#define VD_CT_DEFAULT_CASES	5000
#define VD_SOAK_CASES		100000
#define VD_MISMATCH_FILE	"/tmp/verdict-mismatches.txt"
static const char rerun[] = "VERDICT_DIFF_SEED=<seed> build/selftests/test_verdict_diff";
#define VD_MAX_SHOWN		20	/* mismatches printed in full */

/* The run's parameters and results; shared with the harness' test child. */
struct vd_run {
	unsigned long seed;
	unsigned long want_cases;
	unsigned int per_ruleset;
	unsigned int sequences;		/* edit_sequences: rulesets, each with SEQ_STEPS edits */
	unsigned int ext_per_ruleset;	/* random_ext_rulesets */
	bool verbose;
	unsigned long cases, mismatches;
	unsigned long ext_want_cases;	/* random_ext_rulesets */
	unsigned long ext_cases, ext_mismatches;
	bool ext_ran;
	unsigned int ct_per_ruleset;	/* random_stateful_rulesets: packets at most */
	unsigned long ct_want_cases;	/* random_stateful_rulesets */
	unsigned long ct_cases, ct_mismatches;
	bool ct_ran;
	pid_t main_pid;
};

static struct vd_run *run;

/*
 * Protocols T has raw observer sockets for (no ICMP protocol-unreachable);
 * dccp, esp, ah, sctp and udplite only come from random_ext_rulesets.
 */
static const uint8_t observed_protos[] = { 1, 6, 17, 200, 33, 50, 51, 132, 136 };
#define NOBS (sizeof(observed_protos) / sizeof(observed_protos[0]))

_Static_assert(NOBS <= VD_MAX_OBS, "a raw socket in T for each observed protocol");

/*
 * ext: how S puts a packet on the wire. L2_RAW: from its IPPROTO_RAW socket
 * (T's MAC address, S's own as the source: PACKET_HOST on T); else as a
 * whole frame from a packet socket, to T's MAC address, to the broadcast
 * address or to a multicast one (PACKET_BROADCAST, PACKET_MULTICAST on T),
 * from the source address pkt.smac says.
 */
enum { L2_RAW, L2_HOST, L2_BCAST, L2_MCAST };

/* Senders' MAC addresses: vd0p's, vd1p's (each the same as its T peer's), two others. */
static const uint8_t s_macs[][ETH_ALEN] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 }, { 0x02, 0, 0, 0, 0, 0x12 },
	{ 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f },
};
#define NS_MACS (sizeof(s_macs) / sizeof(s_macs[0]))

/*
 * ext: T's device groups (setup_ext(); lo's is seen by its own packets to
 * itself) and the realms of its routes: 10.99.0.0/24 (vd0) has realm 5, the
 * default route (vd1) realms 3/9, T's local 10.200.1.1 realm 7. A packet's
 * realm is its route's: for OUTPUT that of the destination; for INPUT the
 * realm of the route back to its source, shifted up 16 bits; for FORWARD
 * both halves.
 */
#define VD_GROUP_VD0	5
#define VD_GROUP_VD1	0x12
#define VD_GROUP_LO	0x40000003	/* ip link takes no group above INT_MAX */

/*
 * A packet shape aimed at one rule of a large ruleset, so that its packets
 * hit rules deep in folded runs instead of only the policy (and at one rule
 * of an ext ruleset, so that its extension matches run often).
 */
struct vd_aim {
	uint32_t src, dst;	/* network order; 0: as generated */
	int dport;		/* -1: as generated */
	uint8_t proto;		/* 0: as generated */
	int path;		/* enum path; -1: as generated */
	uint8_t l2;		/* ext: L2_BCAST, L2_MCAST (-m pkttype); 0: as generated */
	uint8_t smac;		/* ext: 1 + index in s_macs[] (-m mac); 0: as generated */
};

#define VD_MAX_AIMS	96
#define VD_BIG_RULESET	(64 * 1024)	/* bytes of restore input printed in full */

#define VD_PORTS	16	/* ports remembered of a ruleset ... */
#define VD_EXT_PORTS	64	/* ... and of an ext ruleset (multiport lists) */
#define VD_SEEN		32

/* Values an ext ruleset's matches name, for packets on and next to them. */
struct vd_seen {
	uint32_t v[VD_SEEN];
	unsigned int n;
};

struct vd {
	struct rng rng;
	struct vd_side side[2];
	struct vd_hostd hd;		/* side H's daemon */
	char tmp[64];			/* ruleset file */
	struct buf rules;		/* iptables-restore input of the current ruleset */
	struct buf edit;		/* iptables command applied mid-ruleset, or empty */
	unsigned int edit_at;		/* ... before this packet */
	bool seq;			/* edit_sequences: @edit is the steps so far, one a line */
	unsigned int nchains;
	uint16_t ports[VD_EXT_PORTS];	/* ports the ruleset mentions */
	unsigned int nports;
	bool ext;			/* random_ext_rulesets: extensions, more protocols */
	unsigned int hooks;		/* hooks (HK_*) the rule being made is reached from */
	unsigned int reach[8];		/* ... those of each user chain, from the jumps so far */
	struct vd_seen spis, ttls, toses, lens, ips;	/* ext: values the rules name */
	struct vd_seen msses;		/* ext: MSS values tcpmss rules name */
	bool x_tcp;			/* ext: the rule being made is -p tcp (not inverted) */
	bool mp_fold;			/* ext: multiport rules of a run bpfilter folds */
	bool ct;			/* random_stateful_rulesets: conntrack rules, flows */
	unsigned int hz;		/* ct: the kernel's HZ; 0: unknown, no --ctexpire */
	struct pkt *script;		/* ct: the ruleset's packets in sending order, */
	struct pkt *draft;		/* ... and flow by flow before they are mixed */
	unsigned int flow_id;		/* ct: flows so far, for client ports and echo ids */
	uint16_t ip_id;			/* unique id of each packet, never 0 */
	unsigned int npackets;		/* packets of the current ruleset */
	struct vd_aim aims[VD_MAX_AIMS];	/* large and ext rulesets only */
	unsigned int naims;
	unsigned int hit_rules;		/* rules ip_tables counted, last ruleset */
	unsigned long hit_ct_rules;	/* ct: those with conntrack or state matches, all rulesets */
	unsigned long hit_connmark[2];	/* ct: those with connmark matches, not inverted */
	unsigned long hit_ext[17];	/* ext: those with ext_counted[]'s matches */
	unsigned long outcomes[5];	/* ip_tables side */
	unsigned long shown;
	FILE *report;			/* VD_MISMATCH_FILE */
};

/* T's local addresses are 10.99.0.254, 10.200.0.254, 10.99.0.1, 10.200.1.1, 192.168.1.1. */
static const char *const addrs[] = {
	"10.200.0.1", "10.200.0.2", "10.200.1.1", "10.200.1.77", "10.99.0.1", "10.99.0.2",
	"10.99.3.4", "192.168.1.1", "192.168.1.2", "172.16.5.5",
};
#define NADDRS (sizeof(addrs) / sizeof(addrs[0]))

/* T's own addresses (the ext generator's; gen_packet() keeps its own list). */
static const char *const t_addrs[] = {
	"10.99.0.1", "10.200.1.1", "192.168.1.1", "10.99.0.254", "10.200.0.254",
};
#define NT_ADDRS (sizeof(t_addrs) / sizeof(t_addrs[0]))

/* Is @a (network order) one of T's own addresses? */
static bool t_local(const void *a)
{
	struct in_addr in;
	unsigned int i;

	for (i = 0; i < NT_ADDRS; i++)
		if (inet_pton(AF_INET, t_addrs[i], &in) == 1 && !memcmp(&in, a, 4))
			return true;
	return false;
}

#define IP(a, b, c, d)	(((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define IPFMT		"%u.%u.%u.%u"
#define IPARG(x)	(x) >> 24, ((x) >> 16) & 255, ((x) >> 8) & 255, (x) & 255

static const char *const ifaces[] = { "vd0", "vd1", "vd+", "v+", "lo", "eth0", "vd10", "vd" };
#define NIFACES (sizeof(ifaces) / sizeof(ifaces[0]))

static const char *neg(struct vd *v, unsigned int one_in)
{
	return rnd(&v->rng, one_in) ? "" : "! ";
}

static uint16_t pick_port(struct vd *v)
{
	static const uint16_t common[] = { 22, 53, 80, 443, 1024, 8080, 65535, 0, 1 };
	uint16_t p;

	p = rnd(&v->rng, 2) ? common[rnd(&v->rng, 9)] : (uint16_t)rnd(&v->rng, 2000);
	if (v->nports < (v->ext ? VD_EXT_PORTS : VD_PORTS))
		v->ports[v->nports++] = p;
	return p;
}

/* " [!] --OPT A", or with @range " [!] --OPT A:B" for a second port B; @a is drawn already. */
static void gen_port_opt(struct vd *v, const char *opt, uint16_t a, bool range)
{
	uint16_t b;

	if (!range) {
		bprintf(&v->rules, " %s--%s %u", neg(v, 4), opt, a);
		return;
	}
	b = pick_port(v);
	if (b < a) {
		uint16_t t = a;

		a = b;
		b = t;
	}
	bprintf(&v->rules, " %s--%s %u:%u", neg(v, 4), opt, a, b);
}

static void gen_ports(struct vd *v, const char *opt)
{
	uint16_t a = pick_port(v);
	unsigned int k = rnd(&v->rng, 3);

	if (k)
		gen_port_opt(v, opt, a, k == 2);
}

static void gen_flags(struct vd *v, char *out, size_t len)
{
	static const char *const names[] = { "FIN", "SYN", "RST", "PSH", "ACK", "URG" };
	unsigned int i, m = rnd(&v->rng, 64), n = 0;

	out[0] = '\0';
	if (!m) {
		snprintf(out, len, "NONE");
		return;
	}
	if (m == 63) {
		snprintf(out, len, "ALL");
		return;
	}
	for (i = 0; i < 6; i++) {
		if (!(m & (1u << i)))
			continue;
		snprintf(out + strlen(out), len - strlen(out), "%s%s", n++ ? "," : "", names[i]);
	}
}

/*
 * Conntrack and state matches (random_stateful_rulesets); every draw below
 * happens only with v->ct set. A list is drawn as a mask of bits of
 * ct_states[]; -m state knows the first five.
 */
static const char *const ct_states[] = {
	"INVALID", "ESTABLISHED", "RELATED", "NEW", "UNTRACKED", "SNAT", "DNAT",
};

enum {
	C_STATE, C_DIR, C_PROTO, C_ORIGSRC, C_ORIGDST, C_REPLSRC, C_REPLDST, C_ORIGSRCPORT,
	C_ORIGDSTPORT, C_REPLSRCPORT, C_REPLDSTPORT, C_STATUS, C_EXPIRE,
};

/* The names of the bits of @mask, comma separated. */
static void gen_names(struct vd *v, const char *const *names, unsigned int n, unsigned int mask)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (mask & (1u << i))
			bprintf(&v->rules, "%s%s", k++ ? "," : "", names[i]);
}

/*
 * A list of the first @n of @names: half the time one of the @usual masks
 * (one a real ruleset would use, or one value alone: the one that decides),
 * else any.
 */
static void gen_list(struct vd *v, const char *const *names, unsigned int n,
		     const uint8_t *usual, unsigned int nusual)
{
	unsigned int m = usual[rnd(&v->rng, nusual)];

	if (rnd(&v->rng, 2))
		m = 1 + rnd(&v->rng, (1u << n) - 1);
	gen_names(v, names, n, m & ((1u << n) - 1) ?: 1);
}

/* A list of the first @n states (-m state knows five). */
static void gen_state_list(struct vd *v, unsigned int n)
{
	/* ESTABLISHED,RELATED; NEW; INVALID; ...; RELATED,NEW; SNAT; DNAT; ESTABLISHED,DNAT */
	static const uint8_t usual[] = {
		0x06, 0x08, 0x01, 0x02, 0x04, 0x10, 0x0e, 0x0c, 0x11, 0x20, 0x40, 0x42,
	};

	gen_list(v, ct_states, n, usual, sizeof(usual));
}

/* One option of " -m conntrack" (xt_conntrack revision 3, which iptables sends). */
static void gen_ct_option(struct vd *v, int kind)
{
	static const char *const protos[] = { "tcp", "udp", "icmp", "6", "17", "1", "200" };
	static const char *const status[] = {
		"NONE", "EXPECTED", "SEEN_REPLY", "ASSURED", "CONFIRMED",
	};
	static const char *const addr_opts[] = { "ctorigsrc", "ctorigdst", "ctreplsrc", "ctrepldst" };
	static const char *const port_opts[] = {
		"ctorigsrcport", "ctorigdstport", "ctreplsrcport", "ctrepldstport",
	};
	/*
	 * Far from every remaining lifetime a flow of this test can have (a
	 * timeout of conntrack's minus under a minute; before the entry is
	 * confirmed, its relative timeout less jiffies: 0 unless the host has
	 * been up for 2^31 jiffies), so that both sides see the same side of
	 * each bound.
	 */
	static const uint32_t expire[] = { 0, 5, 20, 45, 90, 200, 1000, 500000 };
	static const int masks[] = { 32, 24, 16, 8, 0 };
	unsigned int k, a, b;
	uint16_t port;

	switch (kind) {
	case C_STATE:
		bprintf(&v->rules, " %s--ctstate ", neg(v, 4));
		gen_state_list(v, 7);
		return;
	case C_DIR:
		/* --ctdir has no "!": REPLY is the inversion. */
		bprintf(&v->rules, " --ctdir %s", rnd(&v->rng, 2) ? "ORIGINAL" : "REPLY");
		return;
	case C_PROTO:
		bprintf(&v->rules, " %s--ctproto %s", neg(v, 4), protos[rnd(&v->rng, 7)]);
		return;
	case C_ORIGSRC:
	case C_ORIGDST:
	case C_REPLSRC:
	case C_REPLDST:
		bprintf(&v->rules, " %s--%s ", neg(v, 4), addr_opts[kind - C_ORIGSRC]);
		k = rnd(&v->rng, NADDRS + NT_ADDRS);
		bprintf(&v->rules, "%s/%d", k < NADDRS ? addrs[k] : t_addrs[k - NADDRS],
			masks[rnd(&v->rng, 5)]);
		return;
	case C_ORIGSRCPORT:
	case C_ORIGDSTPORT:
	case C_REPLSRCPORT:
	case C_REPLDSTPORT:
		port = pick_port(v);
		gen_port_opt(v, port_opts[kind - C_ORIGSRCPORT], port, !rnd(&v->rng, 3));
		return;
	case C_STATUS:
		bprintf(&v->rules, " %s--ctstatus ", neg(v, 4));
		/* ASSURED; SEEN_REPLY; CONFIRMED; EXPECTED; NONE; ASSURED,SEEN_REPLY */
		gen_list(v, status, 5, (const uint8_t[]){ 0x08, 0x04, 0x10, 0x02, 0x01, 0x0c }, 6);
		return;
	case C_EXPIRE:
		a = rnd(&v->rng, 8);
		b = a + rnd(&v->rng, 8 - a);
		bprintf(&v->rules, " %s--ctexpire %u", neg(v, 4), expire[a]);
		if (b != a)
			bprintf(&v->rules, ":%u", expire[b]);
		return;
	}
}

/*
 * "V[/M]": @x, maybe with a mask, the value then half the time cut down to
 * it (else bits outside the mask: never equal).
 */
static void gen_val_mask(struct vd *v, uint32_t x, const uint32_t *masks, unsigned int nmasks)
{
	uint32_t m = 0xffffffff;

	if (rnd(&v->rng, 2)) {
		m = masks[rnd(&v->rng, nmasks)];
		if (rnd(&v->rng, 2))
			x &= m;
	}
	bprintf(&v->rules, rnd(&v->rng, 3) ? "0x%x" : "%u", x);
	if (m != 0xffffffff)
		bprintf(&v->rules, "/0x%x", m);
}

/* " -m connmark [!] --mark V[/M]": the marks setup_ct()'s table gives flows, and others. */
static void gen_connmark(struct vd *v)
{
	static const uint32_t vals[] = { 0, 0x1, 0x11, 0x21, 0xff000000, 0x4010, 0x10, 0x4000 };
	static const uint32_t masks[] = { 0xff, 0xf, 0x1, 0xff000000, 0xffff, 0x10, 0xf0, 0 };
	const char *not = neg(v, 3);

	bprintf(&v->rules, " -m connmark %s--mark ", not);
	gen_val_mask(v, vals[rnd(&v->rng, 8)], masks, 8);
}

/*
 * @n matches on the packet's conntrack entry: " -m connmark", " -m state"
 * or " -m conntrack" with 1-3 different options, --ctstate most often, then
 * those for which every tracked packet has a value that varies along its
 * flow.
 */
static void gen_ct_matches(struct vd *v, unsigned int n)
{
	static const uint8_t weighted[] = {
		C_STATE, C_STATE, C_STATE, C_STATE, C_STATE, C_DIR, C_DIR, C_DIR, C_STATUS,
		C_STATUS, C_PROTO, C_ORIGSRC, C_ORIGDST, C_REPLSRC, C_REPLDST, C_ORIGSRCPORT,
		C_ORIGDSTPORT, C_REPLSRCPORT, C_REPLDSTPORT,
		C_EXPIRE,	/* last: left out when the kernel's HZ is unknown */
	};
	unsigned int i, k, w, used, nopt, nw = sizeof(weighted) - !v->hz;

	for (i = 0; i < n; i++) {
		if (!rnd(&v->rng, 6)) {
			gen_connmark(v);
			continue;
		}
		if (!rnd(&v->rng, 4)) {
			bprintf(&v->rules, " -m state %s--state ", neg(v, 4));
			gen_state_list(v, 5);
			continue;
		}
		bprintf(&v->rules, " -m conntrack");
		nopt = 1 + rnd(&v->rng, 3);
		used = 0;
		for (k = 0; k < nopt; k++) {
			/*
			 * iptables takes each option once: the next unused one
			 * instead; there are more kinds than options a match.
			 */
			w = rnd(&v->rng, nw);
			while (used & (1u << weighted[w]))
				w = (w + 1) % nw;
			used |= 1u << weighted[w];
			gen_ct_option(v, weighted[w]);
		}
	}
}

/*
 * 1-2 rules of the shape stateful rulesets are made of (a protocol at most,
 * conntrack matches and a verdict): gen_rule()'s other options would keep
 * most packets away from their conntrack matches.
 */
static void gen_ct_usual(struct vd *v, const char *chain)
{
	static const char *const protos[] = { "", "", " -p tcp", " -p udp", " -p icmp" };
	static const char *const targets[] = { " -j ACCEPT", " -j DROP", "" };
	unsigned int i, n = 1 + rnd(&v->rng, 2);

	for (i = 0; i < n; i++) {
		bprintf(&v->rules, "-A %s%s", chain, protos[rnd(&v->rng, 5)]);
		gen_ct_matches(v, 1 + !rnd(&v->rng, 3));
		bprintf(&v->rules, "%s\n", targets[rnd(&v->rng, 3)]);
	}
}

/*
 * Extension matches (random_ext_rulesets). Every draw below happens only
 * with v->ext set, so the other tests' streams stay what they were.
 */
enum {
	X_COMMENT, X_MULTIPORT, X_IPRANGE, X_MARK, X_LENGTH, X_TTL, X_TOS, X_DSCP, X_AH, X_ESP,
	X_PKTTYPE, X_DEVGROUP, X_REALM, X_MAC, X_ECN, X_TCPMSS, X_U32,
	X_N
};

/*
 * The hooks a rule is reached from (ip_tables' comefrom), as far as the
 * filter table goes: -m mac and devgroup's --src-group only in INPUT and
 * FORWARD, --dst-group only in FORWARD and OUTPUT; ip_tables refuses them
 * (EINVAL) in a rule some other hook reaches, a user chain's included.
 */
#define HK_IN	(1u << 1)	/* NF_INET_LOCAL_IN */
#define HK_FWD	(1u << 2)	/* NF_INET_FORWARD */
#define HK_OUT	(1u << 3)	/* NF_INET_LOCAL_OUT */

static unsigned int hook_bit(char hook)
{
	return hook == 'I' ? HK_IN : hook == 'F' ? HK_FWD : hook == 'O' ? HK_OUT : 0;
}

/* May the rule being made have --src-group (@dst: --dst-group), or -m mac? */
static bool hooks_allow(const struct vd *v, bool dst)
{
	return !(v->hooks & ~(dst ? HK_FWD | HK_OUT : HK_IN | HK_FWD));
}

static void seen_add(struct vd_seen *s, uint32_t x)
{
	if (s->n < VD_SEEN)
		s->v[s->n++] = x;
}

/* A value some rule names, or one next to it; next to @def if none does. */
static uint32_t seen_near(struct vd *v, const struct vd_seen *s, uint32_t def)
{
	uint32_t x = s->n ? s->v[rnd(&v->rng, s->n)] : def;

	return x + rnd(&v->rng, 3) - 1;
}

/* " -m comment --comment TEXT", quoted for iptables-restore and sh alike. */
static void gen_comment(struct vd *v)
{
	static const char *const texts[] = {
		"some text", "x", "", "allow ssh from the lab", "it's a \"quoted\" text",
		"a;b,c:d/e=f+g(h)[i]", "-j DROP", "--comment", "back\\slash", "! -p tcp",
	};
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789 .,:;_+=/-'\"\\()";
	static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.,:_+=/-";
	char text[256];
	unsigned int i, n;

	if (rnd(&v->rng, 3)) {
		snprintf(text, sizeof(text), "%s", texts[rnd(&v->rng, 10)]);
	} else {
		/* Up to 255 characters: the most xt_comment holds. */
		n = rnd(&v->rng, 2) ? 1 + rnd(&v->rng, 30) : 1 + rnd(&v->rng, 255);
		for (i = 0; i < n; i++)
			text[i] = chars[rnd(&v->rng, sizeof(chars) - 1)];
		text[n] = '\0';
	}
	bprintf(&v->rules, " -m comment --comment ");
	/* A plain word sometimes goes unquoted (also through sh: edits). */
	if (text[0] && !text[strspn(text, word)] && !rnd(&v->rng, 3)) {
		bprintf(&v->rules, "%s", text);
		return;
	}
	bprintf(&v->rules, "\"");
	for (i = 0; text[i]; i++)
		bprintf(&v->rules, "%s%c", strchr("\"\\", text[i]) ? "\\" : "", text[i]);
	bprintf(&v->rules, "\"");
}

/* " -m multiport [!] --Xports LIST": 1-15 ports, a range a:b (a < b) counting as two. */
static void gen_multiport(struct vd *v)
{
	static const char *const opts[] = {
		"sports", "dports", "ports", "source-ports", "destination-ports",
	};
	unsigned int n, used = 0, b;
	const char *not = neg(v, 3);
	unsigned int k = rnd(&v->rng, 5);
	uint16_t a;

	/* In a run that folds: destination ports, not inverted. */
	if (v->mp_fold) {
		not = "";
		k = k % 2 ? 1 : 4;
	}
	bprintf(&v->rules, " -m multiport %s--%s ", not, opts[k]);
	n = rnd(&v->rng, 2) ? 1 + rnd(&v->rng, 3) : 1 + rnd(&v->rng, 15);
	while (used < n) {
		a = pick_port(v);
		if (used + 2 <= n && a < 65535 && !rnd(&v->rng, 3)) {
			b = a + 1 + (rnd(&v->rng, 2) ? rnd(&v->rng, 8) : rnd(&v->rng, 3000));
			if (b > 65535)
				b = 65535;
			if (v->nports < VD_EXT_PORTS)
				v->ports[v->nports++] = b;
			bprintf(&v->rules, "%s%u:%u", used ? "," : "", a, b);
			used += 2;
		} else {
			bprintf(&v->rules, "%s%u", used ? "," : "", a);
			used++;
		}
	}
}

static uint32_t ip_host(const char *a)
{
	struct in_addr in;

	inet_pton(AF_INET, a, &in);
	return ntohl(in.s_addr);
}

/* " -m iprange" with a source and/or destination range around the test's addresses. */
static void gen_iprange(struct vd *v)
{
	static const char *const wide[] = {
		"10.0.0.0-10.255.255.255", "0.0.0.0-255.255.255.255", "10.99.0.0-10.200.255.255",
		"172.16.5.5-192.168.1.1",
	};
	unsigned int which = 1 + rnd(&v->rng, 3), i, k;
	uint32_t lo, hi, d;
	const char *not;

	bprintf(&v->rules, " -m iprange");
	for (i = 0; i < 2; i++) {
		if (!(which & (1u << i)))
			continue;
		not = neg(v, 3);
		bprintf(&v->rules, " %s--%s-range ", not, i ? "dst" : "src");
		if (!rnd(&v->rng, 8)) {
			bprintf(&v->rules, "%s", wide[rnd(&v->rng, 4)]);
			continue;
		}
		k = rnd(&v->rng, NADDRS + NT_ADDRS);
		lo = hi = ip_host(k < NADDRS ? addrs[k] : t_addrs[k - NADDRS]);
		d = rnd(&v->rng, 2) ? rnd(&v->rng, 3) : rnd(&v->rng, 300);
		lo -= d;
		d = rnd(&v->rng, 2) ? rnd(&v->rng, 3) : rnd(&v->rng, 300);
		hi += d;
		seen_add(&v->ips, lo);
		seen_add(&v->ips, hi);
		if (!rnd(&v->rng, 5)) {
			bprintf(&v->rules, IPFMT, IPARG(lo));	/* one address */
			continue;
		}
		if (!rnd(&v->rng, 8)) {
			d = lo;	/* reversed: never matches (iptables warns) */
			lo = hi;
			hi = d;
		}
		bprintf(&v->rules, IPFMT "-" IPFMT, IPARG(lo), IPARG(hi));
	}
}

static void gen_mark(struct vd *v)
{
	static const uint32_t vals[] = { 0, 1, 0x10, 0x4000, 0xffffffff, 0x11, 0x4010, 2 };
	static const uint32_t masks[] = { 0xffffffff, 0xff, 1, 0x10, 0xffff0000, 0, 0xf0, 0x4000 };
	const char *not = neg(v, 3);
	uint32_t m = vals[rnd(&v->rng, 8)];

	bprintf(&v->rules, " -m mark %s--mark ", not);
	bprintf(&v->rules, rnd(&v->rng, 3) ? "0x%x" : "%u", m);
	if (rnd(&v->rng, 2))
		bprintf(&v->rules, "/0x%x", masks[rnd(&v->rng, 8)]);
}

static uint32_t gen_len_value(struct vd *v)
{
	if (rnd(&v->rng, 4))
		return 20 + rnd(&v->rng, 140);
	return rnd(&v->rng, 2) ? rnd(&v->rng, 21) : rnd(&v->rng, 65536);
}

/* --length N, N:M (sometimes M < N: matches nothing), :M or N:. */
static void gen_length(struct vd *v)
{
	const char *not = neg(v, 3);
	uint32_t a = gen_len_value(v), b = gen_len_value(v), t;

	if (b < a && rnd(&v->rng, 6)) {
		t = a;
		a = b;
		b = t;
	}
	seen_add(&v->lens, a);
	seen_add(&v->lens, b);
	bprintf(&v->rules, " -m length %s--length ", not);
	switch (rnd(&v->rng, 5)) {
	case 0:
		bprintf(&v->rules, "%u", a);
		break;
	case 1:
		bprintf(&v->rules, ":%u", b);
		break;
	case 2:
		bprintf(&v->rules, "%u:", a);
		break;
	default:
		bprintf(&v->rules, "%u:%u", a, b);
	}
}

static void gen_ttl(struct vd *v)
{
	static const uint8_t common[] = { 0, 1, 2, 63, 64, 65, 128, 254, 255 };
	static const char *const modes[] = { "--ttl-eq", "! --ttl-eq", "--ttl-lt", "--ttl-gt" };
	unsigned int mode = rnd(&v->rng, 4);
	uint32_t n = rnd(&v->rng, 2) ? common[rnd(&v->rng, 9)] : rnd(&v->rng, 256);

	seen_add(&v->ttls, n);
	bprintf(&v->rules, " -m ttl %s %u", modes[mode], n);
}

static void gen_tos(struct vd *v)
{
	static const char *const names[] = {
		"Minimize-Delay", "Maximize-Throughput", "Maximize-Reliability", "Minimize-Cost",
		"Normal-Service", "minimize-delay", "MAXIMIZE-THROUGHPUT",
	};
	static const uint8_t named[] = { 0x10, 0x08, 0x04, 0x02, 0, 0x10, 0x08 };
	static const uint8_t vals[] = { 0, 0x10, 0x08, 0x04, 0x02, 0xff, 0xe0, 0x1c, 0x03, 0xb8 };
	static const uint8_t masks[] = { 0xff, 0x3f, 0x1c, 0x03, 0xfc, 0x1e, 0xe0, 0 };
	const char *not = neg(v, 3);
	unsigned int k;
	uint32_t t;

	bprintf(&v->rules, " -m tos %s--tos ", not);
	if (!rnd(&v->rng, 4)) {
		k = rnd(&v->rng, 7);
		seen_add(&v->toses, named[k]);
		bprintf(&v->rules, "%s", names[k]);
		return;
	}
	t = rnd(&v->rng, 3) ? vals[rnd(&v->rng, 10)] : rnd(&v->rng, 256);
	seen_add(&v->toses, t);
	bprintf(&v->rules, rnd(&v->rng, 3) ? "0x%02x" : "%u", t);
	if (rnd(&v->rng, 2))
		bprintf(&v->rules, "/0x%02x", masks[rnd(&v->rng, 8)]);
}

static void gen_dscp(struct vd *v)
{
	static const char *const classes[] = {
		"BE", "EF", "CS0", "CS1", "CS2", "CS3", "CS4", "CS5", "CS6", "CS7", "AF11", "AF12",
		"AF13", "AF21", "AF22", "AF23", "AF31", "AF32", "AF33", "AF41", "AF42", "AF43",
		"ef", "af41", "cs1",
	};
	static const uint8_t dscps[] = {
		0, 46, 0, 8, 16, 24, 32, 40, 48, 56, 10, 12, 14, 18, 20, 22, 26, 28, 30, 34, 36,
		38, 46, 34, 8,
	};
	const char *not = neg(v, 3);
	unsigned int k;
	uint32_t d;

	if (!rnd(&v->rng, 3)) {
		k = rnd(&v->rng, 25);
		seen_add(&v->toses, dscps[k] << 2);
		bprintf(&v->rules, " -m dscp %s--dscp-class %s", not, classes[k]);
		return;
	}
	d = rnd(&v->rng, 2) ? dscps[rnd(&v->rng, 25)] : rnd(&v->rng, 64);
	seen_add(&v->toses, d << 2);
	bprintf(&v->rules, " -m dscp %s--dscp ", not);
	bprintf(&v->rules, rnd(&v->rng, 3) ? "%u" : "0x%02x", d);
}

/* " -m ah|esp [[!] --ahspi|--espspi N[:M]]" (M < N sometimes: matches nothing). */
static void gen_spi(struct vd *v, const char *m)
{
	static const uint32_t common[] = {
		0, 1, 2, 255, 256, 0x10000, 0x7fffffff, 0xfffffffe, 0xffffffff, 1000,
	};
	const char *not;
	uint32_t a, b;

	bprintf(&v->rules, " -m %s", m);
	if (!rnd(&v->rng, 6))
		return;	/* any SPI, but the header must be there */
	not = neg(v, 3);
	a = rnd(&v->rng, 2) ? common[rnd(&v->rng, 10)] :
			      rnd(&v->rng, 2) ? rnd(&v->rng, 5000) : rnd(&v->rng, 0xffffffff);
	seen_add(&v->spis, a);
	bprintf(&v->rules, " %s--%sspi %u", not, m, a);
	if (rnd(&v->rng, 2))
		return;
	b = rnd(&v->rng, 6) ? a + rnd(&v->rng, 2 + rnd(&v->rng, 3000)) : a - 1 - rnd(&v->rng, 50);
	if (b < a && a - b > 1000)
		b = 0xffffffff;	/* a + ... wrapped */
	seen_add(&v->spis, b);
	bprintf(&v->rules, ":%u", b);
}

/*
 * " -m pkttype [!] --pkt-type NAME", aliases and case included; in INPUT
 * (where packets of every type arrive) broadcast and multicast more often.
 */
static void gen_pkttype(struct vd *v)
{
	static const char *const names[] = {
		"unicast", "broadcast", "multicast", "host", "bcast", "mcast", "Broadcast",
		"MULTICAST",
	};
	const char *not = neg(v, 3);
	unsigned int k = rnd(&v->rng, 4) ? rnd(&v->rng, 3) : rnd(&v->rng, 8);

	if (v->hooks == HK_IN && !k && rnd(&v->rng, 2))
		k = 1 + rnd(&v->rng, 2);
	bprintf(&v->rules, " -m pkttype %s--pkt-type %s", not, names[k]);
}

/*
 * " -m devgroup" with --src-group and/or --dst-group, each as the hooks the
 * rule is reached from allow (one of them always does: FORWARD allows both);
 * mostly the group of one of T's devices.
 */
static void gen_devgroup(struct vd *v)
{
	static const uint32_t groups[] = {
		VD_GROUP_VD0, VD_GROUP_VD1, VD_GROUP_LO, 0, 1, 4, 0x10, 0x40000000, 3, 0x13,
	};
	static const uint32_t masks[] = { 0xff, 0xf, 1, 4, 0x40000000, 0xfffffff0, 0x10, 0 };
	bool src = hooks_allow(v, false), dst = hooks_allow(v, true);
	unsigned int which = src && dst ? 1 + rnd(&v->rng, 3) : src ? 1 : 2, i;
	const char *not;

	bprintf(&v->rules, " -m devgroup");
	for (i = 0; i < 2; i++) {
		if (!(which & (1u << i)))
			continue;
		not = neg(v, 3);
		bprintf(&v->rules, " %s--%s-group ", not, i ? "dst" : "src");
		if (!rnd(&v->rng, 12))
			bprintf(&v->rules, "default");	/* 0, /etc/iproute2/group */
		else
			gen_val_mask(v, groups[rnd(&v->rng, 4) ? rnd(&v->rng, 3) : rnd(&v->rng, 10)],
				     masks, 8);
	}
}

/*
 * " -m realm [!] --realm ID[/MASK]": mostly a realm packets of the hooks
 * the rule is reached from have (see VD_GROUP_VD0; [0, 4) INPUT, [3, 7)
 * OUTPUT, [6, 12) FORWARD), else any of these or none of them.
 */
static void gen_realm(struct vd *v)
{
	static const uint32_t ids[] = {
		0x50000, 0x90000, 0x70000, 0, 5, 7, 0x30009, 0x50005, 0x90005, 0x70005, 0x50000,
		0x90000, 3, 9, 0x70007,
	};
	static const uint32_t masks[] = { 0xffff, 0xffff0000, 0xff, 1, 4, 0xf000f, 0 };
	const char *not = neg(v, 3);
	unsigned int k = rnd(&v->rng, 15);

	if (v->hooks == HK_IN && rnd(&v->rng, 4))
		k = rnd(&v->rng, 4);
	else if (v->hooks == HK_OUT && rnd(&v->rng, 4))
		k = 3 + rnd(&v->rng, 4);
	else if (v->hooks == HK_FWD && rnd(&v->rng, 4))
		k = 6 + rnd(&v->rng, 6);
	bprintf(&v->rules, " -m realm %s--realm ", not);
	if (!rnd(&v->rng, 12))
		bprintf(&v->rules, "cosmos");	/* 0, /etc/iproute2/rt_realms */
	else
		gen_val_mask(v, ids[k], masks, 7);
}

/* " -m mac [!] --mac-source MAC": a sender's, or one a word or a half-word away. */
static void gen_mac(struct vd *v)
{
	static const uint8_t others[][ETH_ALEN] = {
		{ 0x02, 0, 0, 1, 0, 0x10 }, { 0x02, 0, 0, 0, 1, 0x10 }, { 0, 0, 0, 0, 0, 0 },
	};
	const char *not = neg(v, 3);
	unsigned int k = rnd(&v->rng, NS_MACS + 3), i;
	const uint8_t *m = k < NS_MACS ? s_macs[k] : others[k - NS_MACS];
	const char *fmt = rnd(&v->rng, 4) ? "%s%02x" : "%s%02X";

	bprintf(&v->rules, " -m mac %s--mac-source ", not);
	for (i = 0; i < ETH_ALEN; i++)
		bprintf(&v->rules, fmt, i ? ":" : "", m[i]);
}

/*
 * " -m ecn": in -p tcp rules any of [!] --ecn-tcp-cwr, [!] --ecn-tcp-ece and
 * [!] --ecn-ip-ect N (at least one), elsewhere only the last.
 */
static void gen_ecn(struct vd *v)
{
	unsigned int which = v->x_tcp ? 1 + rnd(&v->rng, 7) : 4;

	bprintf(&v->rules, " -m ecn");
	if (which & 1)
		bprintf(&v->rules, " %s--ecn-tcp-cwr", neg(v, 3));
	if (which & 2)
		bprintf(&v->rules, " %s--ecn-tcp-ece", neg(v, 3));
	if (which & 4)
		bprintf(&v->rules, " %s--ecn-ip-ect %u", neg(v, 3), rnd(&v->rng, 4));
}

/* " -m tcpmss [!] --mss N[:M]". */
static void gen_tcpmss(struct vd *v)
{
	static const uint16_t common[] = { 536, 1460, 1400, 0, 65535, 1220, 88, 9000 };
	uint32_t a = rnd(&v->rng, 3) ? common[rnd(&v->rng, 8)] : rnd(&v->rng, 65536), b;

	seen_add(&v->msses, a);
	bprintf(&v->rules, " -m tcpmss %s--mss %u", neg(v, 3), a);
	if (rnd(&v->rng, 2))
		return;
	/* libxt_tcpmss refuses a reversed range. */
	b = a + rnd(&v->rng, 2000);
	if (b > 65535)
		b = 65535;
	seen_add(&v->msses, b);
	bprintf(&v->rules, ":%u", b);
}

/* A u32 number, in decimal or hex as people write them. */
static void u32_num(struct vd *v, uint32_t x)
{
	bprintf(&v->rules, rnd(&v->rng, 2) ? "%u" : "0x%X", x);
}

/*
 * " -m u32 [!] --u32 TESTS": 1-3 tests joined by "&&", each a location and
 * 1-3 values or ranges. Locations are mostly what people write (IPv4
 * fields, the ports, flags and first payload word through the header
 * length, "@" chains), with values packets have; else random offsets near
 * and past the end of the packet, random operators (shifts up to 31, "@"
 * with offsets that wrap) and random values.
 */
static void gen_u32(struct vd *v)
{
	static const struct {
		const char *loc;
		uint32_t lo, hi;	/* values packets here often have */
	} known[] = {
		{ "0>>28", 4, 4 }, { "0>>24&0xF", 5, 5 }, { "0&0xFFFF", 20, 80 },
		{ "4&0x1FFF", 0, 0 }, { "4>>13&7", 0, 2 }, { "8>>24", 2, 64 },
		{ "8>>16&0xFF", 6, 17 }, { "12", 0x0a000000, 0x0affffff },
		{ "16", 0x0a630000, 0x0ac8ffff }, { "0>>22&0x3C@0>>16", 0, 1023 },
		{ "0>>22&0x3C@0&0xFFFF", 1, 2000 }, { "0>>22&0x3C@12>>26&0x3C@0", 0, 0x7fffffff },
		{ "0>>22&0x3C@12>>16&0x3F", 2, 2 }, { "0>>22&0x3C@4", 0, 0xffff },
		{ "6&0xFF", 1, 17 }, { "0>>22&0x3C@8", 0, 0xffffffff },
	};
	unsigned int ntests = rnd(&v->rng, 4) ? 1 : 2 + rnd(&v->rng, 2), nvals, nops, t, i, k;
	uint32_t lo, hi;

	bprintf(&v->rules, " -m u32 %s--u32 \"", neg(v, 3));
	for (t = 0; t < ntests; t++) {
		if (t)
			bprintf(&v->rules, "&&");
		if (rnd(&v->rng, 3)) {
			k = rnd(&v->rng, sizeof(known) / sizeof(known[0]));
			bprintf(&v->rules, "%s", known[k].loc);
			lo = known[k].lo;
			hi = known[k].hi;
		} else {
			u32_num(v, rnd(&v->rng, 2) ? rnd(&v->rng, 16) * 4 : rnd(&v->rng, 100));
			nops = rnd(&v->rng, 5);
			for (i = 0; i < nops; i++) {
				switch (rnd(&v->rng, 4)) {
				case 0:
					bprintf(&v->rules, "&");
					u32_num(v, rnd(&v->rng, 2) ? 0xff << (8 * rnd(&v->rng, 4)) :
							 rnd(&v->rng, 0xffffffff));
					break;
				case 1:
					bprintf(&v->rules, "<<%u", rnd(&v->rng, 32));
					break;
				case 2:
					bprintf(&v->rules, ">>%u", rnd(&v->rng, 32));
					break;
				default:
					bprintf(&v->rules, "@");
					u32_num(v, rnd(&v->rng, 4) ? rnd(&v->rng, 64) :
							 0xffffffff - rnd(&v->rng, 8));
				}
			}
			lo = 0;
			hi = rnd(&v->rng, 2) ? 0xffffffff : rnd(&v->rng, 256);
		}
		bprintf(&v->rules, "=");
		nvals = 1 + rnd(&v->rng, 3);
		for (i = 0; i < nvals; i++) {
			uint32_t a = lo + (hi > lo ? rnd(&v->rng, hi - lo + 1) : 0), b;

			if (i)
				bprintf(&v->rules, ",");
			if (!rnd(&v->rng, 3)) {
				/* The whole range packets have. */
				u32_num(v, lo);
				bprintf(&v->rules, ":");
				u32_num(v, hi);
				continue;
			}
			if (!rnd(&v->rng, 5))
				a = rnd(&v->rng, 0xffffffff);
			u32_num(v, a);
			if (rnd(&v->rng, 2))
				continue;
			b = rnd(&v->rng, 4) ? (hi > a ? hi : a) : a - rnd(&v->rng, 3);
			bprintf(&v->rules, ":");
			u32_num(v, b);
		}
	}
	bprintf(&v->rules, "\"");
}

/* The protocol a rule's text (from its -p on) names, and whether it is inverted. */
static int rule_proto(const char *seg, bool *inv)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {
		{ "tcp", 6 }, { "udplite", 136 }, { "udp", 17 }, { "icmp", 1 }, { "sctp", 132 },
		{ "dccp", 33 }, { "esp", 50 }, { "ah", 51 },
	};
	const char *p = strstr(seg, "-p ");
	unsigned int i;
	size_t n;

	*inv = false;
	if (!p)
		return 0;
	*inv = p >= seg + 2 && p[-2] == '!';
	p += 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i].name);
		if (!strncmp(p, names[i].name, n) && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return names[i].num;
	}
	return atoi(p);
}

static bool ext_fits(const struct vd *v, int kind, int proto, bool inv)
{
	switch (kind) {
	case X_DEVGROUP:
		return hooks_allow(v, false) || hooks_allow(v, true);
	case X_MAC:
		return hooks_allow(v, false);
	case X_MULTIPORT:
		return !inv && (proto == 6 || proto == 17 || proto == 136 || proto == 132 ||
				proto == 33);
	case X_AH:
		return !inv && proto == 51;
	case X_ESP:
		return !inv && proto == 50;
	case X_TCPMSS:
		return !inv && proto == 6;
	}
	return true;
}

static void gen_ext(struct vd *v, int kind)
{
	switch (kind) {
	case X_COMMENT:
		gen_comment(v);
		break;
	case X_MULTIPORT:
		gen_multiport(v);
		break;
	case X_IPRANGE:
		gen_iprange(v);
		break;
	case X_MARK:
		gen_mark(v);
		break;
	case X_LENGTH:
		gen_length(v);
		break;
	case X_TTL:
		gen_ttl(v);
		break;
	case X_TOS:
		gen_tos(v);
		break;
	case X_DSCP:
		gen_dscp(v);
		break;
	case X_AH:
		gen_spi(v, "ah");
		break;
	case X_ESP:
		gen_spi(v, "esp");
		break;
	case X_PKTTYPE:
		gen_pkttype(v);
		break;
	case X_DEVGROUP:
		gen_devgroup(v);
		break;
	case X_REALM:
		gen_realm(v);
		break;
	case X_MAC:
		gen_mac(v);
		break;
	case X_ECN:
		gen_ecn(v);
		break;
	case X_TCPMSS:
		gen_tcpmss(v);
		break;
	case X_U32:
		gen_u32(v);
		break;
	}
}

/* A protocol only random_ext_rulesets uses, by name or number, sometimes inverted. */
static void gen_ext_proto(struct vd *v)
{
	static const char *const names[] = {
		"ah", "esp", "sctp", "dccp", "udplite", "51", "50", "132", "33", "136",
	};
	const char *not = neg(v, 6);
	/* ah and esp twice as often: their own matches have the most to check. */
	unsigned int k = rnd(&v->rng, 4) ? rnd(&v->rng, 7) % 5 : rnd(&v->rng, 10);

	bprintf(&v->rules, " %s-p %s", not, names[k]);
}

/*
 * With @proto < 0, @npre extension matches that need no protocol (placed
 * before -p: their order against the protocol's own match is the blob's);
 * else the rest of a rule's 0-2, after the options of its protocol @proto
 * (inverted if @inv).
 */
static void gen_ext_matches(struct vd *v, int proto, bool inv, unsigned int npre)
{
	unsigned int n, i;
	int own = -1, kind;

	v->x_tcp = proto == 6 && !inv;
	if (proto < 0) {
		for (i = 0; i < npre; i++) {
			do
				kind = rnd(&v->rng, X_N);
			while (!ext_fits(v, kind, 0, true));
			gen_ext(v, kind);
		}
		return;
	}
	n = rnd(&v->rng, 10);
	n = n < 3 ? 0 : n < 7 ? 1 : 2;
	if (n + npre > 2)
		n = 2 - npre;
	/* A protocol's own match comes often: -p ah -m ah, -p sctp -m multiport. */
	if (!inv && proto == 51)
		own = X_AH;
	else if (!inv && proto == 50)
		own = X_ESP;
	else if (!inv && proto == 6)
		own = (int[]){ X_MULTIPORT, X_TCPMSS, X_ECN }[rnd(&v->rng, 3)];
	else if (ext_fits(v, X_MULTIPORT, proto, inv))
		own = X_MULTIPORT;
	if (own >= 0 && (proto == 6 || proto == 17 ? !rnd(&v->rng, 3) : rnd(&v->rng, 6))) {
		if (!n)
			n = 1;
	} else {
		own = -1;
	}
	for (i = 0; i < n; i++) {
		if (!i && own >= 0) {
			kind = own;
		} else {
			do
				kind = rnd(&v->rng, X_N);
			while (!ext_fits(v, kind, proto, inv));
		}
		gen_ext(v, kind);
	}
}

/* Add aim @a at a rule of built-in chain @hook ('U': a user chain): it passes that hook. */
static void ext_aim_add(struct vd *v, struct vd_aim a, char hook)
{
	static const char *const remote[] = { "172.16.5.5", "10.200.0.2", "10.99.0.2",
					      "10.99.3.4" };
	struct in_addr in;

	if (hook == 'O') {
		a.path = PATH_OUTPUT;
	} else if (hook == 'I' || hook == 'F') {
		if (a.path < 0)
			a.path = rnd(&v->rng, 2) ? PATH_VD0 : PATH_VD1;
		if (!a.dst) {
			inet_pton(AF_INET, hook == 'I' ? t_addrs[rnd(&v->rng, NT_ADDRS)] :
					  remote[rnd(&v->rng, 4)], &in);
			a.dst = in.s_addr;
		}
	}
	if (v->naims < VD_MAX_AIMS)
		v->aims[v->naims++] = a;
}

/*
 * An aim at an ext rule, from the -s/-d/-i/-o in @ip (@len bytes), its
 * protocol and the first destination port in @opts (its matches): two
 * thirds of the packets go where some rule looks, so that extension matches
 * run much more often than on random packets.
 */
static void gen_ext_aim(struct vd *v, char hook, const char *ip, size_t len, int proto, bool inv,
			const char *opts)
{
	static const char *const dports[] = {
		" --dport ", " --dports ", " --destination-ports ", " --ports ",
	};
	struct vd_aim a = { .dport = -1, .path = -1 };
	char buf[256], *tok, *save = NULL, *slash;
	const char *o = NULL;
	bool not = false;
	struct in_addr in;
	unsigned int i;
	int dmask = -1;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, ip);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "!")) {
			not = true;
			continue;
		}
		if (!strcmp(tok, "-s") || !strcmp(tok, "-d")) {
			bool src = tok[1] == 's';

			tok = strtok_r(NULL, " ", &save);
			if (!tok)
				break;
			slash = strchr(tok, '/');
			if (slash)
				*slash = '\0';
			if (!not && inet_pton(AF_INET, tok, &in) == 1)
				*(src ? &a.src : &a.dst) = in.s_addr;
			if (!not && !src && slash)
				dmask = atoi(slash + 1);
		} else if (!strcmp(tok, "-i")) {
			tok = strtok_r(NULL, " ", &save);
			if (tok && (!strcmp(tok, "vd0") || !strcmp(tok, "vd1")))
				a.path = (tok[2] == '1') ^ not ? PATH_VD1 : PATH_VD0;
		} else if (!strcmp(tok, "-o")) {
			/* T routes 10.99.0.0/24 out of vd0, the rest out of vd1. */
			tok = strtok_r(NULL, " ", &save);
			if (tok && !not && !strcmp(tok, "vd0"))
				o = "10.99.0.2";
			else if (tok && !not && !strcmp(tok, "vd1"))
				o = "172.16.5.5";
			else if (tok && !not && !strcmp(tok, "lo"))
				o = "10.200.1.1";
		}
		not = false;
	}
	if (o && !a.dst && inet_pton(AF_INET, o, &in) == 1)
		a.dst = in.s_addr;
	/* INPUT only sees T's own addresses: one inside -d's network, if any. */
	for (i = 0; hook == 'I' && a.dst && !t_local(&a.dst) && i < NT_ADDRS; i++) {
		inet_pton(AF_INET, t_addrs[i], &in);
		if (dmask >= 0 && dmask <= 32 &&
		    !((ntohl(in.s_addr) ^ ntohl(a.dst)) & (dmask ? ~0u << (32 - dmask) : 0)))
			a.dst = in.s_addr;
	}
	if (!inv && proto > 0)
		a.proto = proto;
	for (i = 0; i < sizeof(dports) / sizeof(dports[0]) && a.dport < 0; i++) {
		tok = strstr(opts, dports[i]);
		if (tok && tok > opts && tok[-1] != '!')
			a.dport = atoi(tok + strlen(dports[i]));
	}
	/* The rule so far (@ip runs on to its end): a frame -m pkttype or -m mac wants. */
	tok = strstr(ip, " --pkt-type ");
	if (tok && tok > ip && tok[-1] != '!') {
		if (!strncasecmp(tok + 12, "b", 1))
			a.l2 = L2_BCAST;
		else if (!strncasecmp(tok + 12, "m", 1))
			a.l2 = L2_MCAST;
	}
	tok = strstr(ip, " --mac-source ");
	if (tok && tok > ip && tok[-1] != '!') {
		unsigned int m[ETH_ALEN], k;

		if (sscanf(tok + 14, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
			   &m[5]) == ETH_ALEN)
			for (i = 0; i < NS_MACS && !a.smac; i++) {
				for (k = 0; k < ETH_ALEN && m[k] == s_macs[i][k]; k++)
					;
				if (k == ETH_ALEN)
					a.smac = 1 + i;
			}
	}
	/* Such frames are a few of all, and only S sends them: more packets, from S. */
	if ((a.l2 || a.smac) && a.path < 0 && hook != 'O')
		a.path = rnd(&v->rng, 2) ? PATH_VD0 : PATH_VD1;
	ext_aim_add(v, a, hook);
	for (i = 0; hook != 'O' && i < (a.l2 ? 2u : a.smac ? 1u : 0u); i++)
		ext_aim_add(v, a, hook);
}

/*
 * A run of 3-12 rules of one shape (-s, -d, -p --dport, -s/24 -p --dport)
 * and mostly one target in built-in chain @name, which bpfilter folds into
 * one lookup: some rules carry a comment (it always matches, so they fold
 * too), a few another extension match (which must keep them out of it).
 * Or a run of ah, esp, multiport, tcpmss or ecn rules: built-in chains are
 * where packets aimed at them get. Or a run of rules with a pkttype, devgroup, realm or
 * mac match alone, most of them only counting: among the other matches of
 * a random rule these would hardly ever decide.
 */
static void gen_ext_run(struct vd *v, const char *name)
{
	static const uint32_t bases[] = {
		IP(10, 200, 0, 0), IP(10, 200, 1, 0), IP(192, 168, 1, 0), IP(172, 16, 5, 0),
	};
	/* TCP's three times: its own matches are three (below). */
	static const int own[] = { 51, 50, 6, 17, 136, 132, 33, 6, 6 };
	static const int meta[] = { X_PKTTYPE, X_DEVGROUP, X_REALM, X_MAC };
	unsigned int n = 3 + rnd(&v->rng, 10), shape = rnd(&v->rng, 8), i;
	const char *target = rnd(&v->rng, 2) ? "DROP" : "ACCEPT";
	int proto = rnd(&v->rng, 2) ? 6 : 17, kind;
	uint32_t base = bases[rnd(&v->rng, 4)], a;
	struct vd_aim aim;
	bool iprange;
	uint16_t port;

	v->hooks = hook_bit(name[0]);
	if (shape >= 6) {
		for (i = 0; i < n; i++) {
			size_t at = v->rules.len;

			do
				kind = meta[rnd(&v->rng, 4)];
			while (!ext_fits(v, kind, 0, false));
			v->x_tcp = false;
			bprintf(&v->rules, "-A %s", name);
			gen_ext(v, kind);
			if (rnd(&v->rng, 3))
				bprintf(&v->rules, "\n");
			else
				bprintf(&v->rules, " -j %s\n", rnd(&v->rng, 8) ? target : "RETURN");
			gen_ext_aim(v, name[0], v->rules.p + at, 0, 0, false, v->rules.p + at);
		}
		return;
	}
	if (shape >= 4) {
		proto = own[rnd(&v->rng, 9)];
		kind = proto == 51 ? X_AH : proto == 50 ? X_ESP : X_MULTIPORT;
		/* TCP's: the ports, its MSS (twice as often) or its ECN bits. */
		if (proto == 6)
			kind = (int[]){ X_MULTIPORT, X_TCPMSS, X_ECN, X_TCPMSS }[rnd(&v->rng, 4)];
		v->x_tcp = proto == 6;
		/* Half the multiport runs only --dports: one lookup (codegen_set.c). */
		v->mp_fold = kind == X_MULTIPORT && rnd(&v->rng, 2);
		for (i = 0; i < n; i++) {
			size_t at = v->rules.len;

			bprintf(&v->rules, "-A %s -p %u", name, proto);
			gen_ext(v, kind);
			if (!rnd(&v->rng, 4))
				gen_comment(v);
			bprintf(&v->rules, " -j %s\n", rnd(&v->rng, 8) ? target : "RETURN");
			gen_ext_aim(v, name[0], "", 0, proto, false, v->rules.p + at);
		}
		v->mp_fold = false;
		return;
	}
	/* Address runs: a third of them (in part) of iprange rules. */
	iprange = shape < 2 && !rnd(&v->rng, 3);
	for (i = 0; i < n; i++) {
		aim = (struct vd_aim){ .dport = -1, .path = -1 };
		a = base + rnd(&v->rng, 256);
		port = pick_port(v);
		bprintf(&v->rules, "-A %s", name);
		if (shape < 2 && iprange && rnd(&v->rng, 4)) {
			/* A range instead: folded as the prefixes that cover it. */
			uint32_t b = a + rnd(&v->rng, 2) * rnd(&v->rng, 600);

			bprintf(&v->rules, " -m iprange --%s-range " IPFMT "-" IPFMT,
				shape ? "dst" : "src", IPARG(a), IPARG(b));
			a += rnd(&v->rng, b - a + 1);
			if (shape)
				aim.dst = htonl(a);
			else
				aim.src = htonl(a);
		} else if (shape == 0 || shape == 3) {
			if (shape == 3)
				a &= ~255u;
			bprintf(&v->rules, " -s " IPFMT "%s", IPARG(a), shape == 3 ? "/24" : "");
			aim.src = htonl(a + (shape == 3 ? rnd(&v->rng, 256) : 0));
		} else if (shape == 1) {
			bprintf(&v->rules, " -d " IPFMT, IPARG(a));
			aim.dst = htonl(a);
		}
		if (shape >= 2) {
			bprintf(&v->rules, " -p %s --dport %u", proto == 6 ? "tcp" : "udp", port);
			aim.proto = proto;
			aim.dport = port;
		}
		if (!rnd(&v->rng, 3)) {
			gen_comment(v);
		} else if (!rnd(&v->rng, 8)) {
			v->x_tcp = shape >= 2 && proto == 6;
			do
				kind = rnd(&v->rng, X_N);
			while (!ext_fits(v, kind, shape >= 2 ? proto : 0, shape < 2));
			gen_ext(v, kind);
		}
		bprintf(&v->rules, " -j %s\n", rnd(&v->rng, 8) ? target : "RETURN");
		ext_aim_add(v, aim, name[0]);
	}
}

/*
 * ext: leave out half of the -s/-d/-i/-o a rule would have, so that more
 * packets get as far as its extension matches; ct: three quarters, as a
 * flow's packets have fewer addresses to offer (no draw without either).
 */
static bool fewer_opts(struct vd *v)
{
	return (v->ext && rnd(&v->rng, 2)) || (v->ct && rnd(&v->rng, 4));
}

/*
 * One rule for chain @name; @chain is its user chain index, or -1 for a
 * built-in chain (then @hook says which: 'I', 'F', 'O').
 */
static void gen_rule(struct vd *v, int chain, char hook, const char *name)
{
	static const char *const icmp_types[] = {
		"any", "echo-request", "echo-reply", "3", "3/1", "destination-unreachable",
		"11/0", "5", "13", "port-unreachable",
	};
	static const int masks[] = { 32, 24, 16, 8, 0, 31, 12 };
	unsigned int p, npre = 0;
	bool ports = false, inv;
	size_t start = v->rules.len, ip, at;
	int proto;

	/* Known already: every jump to a user chain comes from those before it. */
	v->hooks = chain < 0 ? hook_bit(hook) : v->reach[chain];
	bprintf(&v->rules, "-A %s", name);
	if (!rnd(&v->rng, 3) && !fewer_opts(v))
		bprintf(&v->rules, " %s-s %s/%d", neg(v, 3), addrs[rnd(&v->rng, NADDRS)],
			masks[rnd(&v->rng, 7)]);
	if (!rnd(&v->rng, 3) && !fewer_opts(v))
		bprintf(&v->rules, " %s-d %s/%d", neg(v, 3), addrs[rnd(&v->rng, NADDRS)],
			masks[rnd(&v->rng, 7)]);
	/* iptables refuses -o in INPUT and -i in OUTPUT, not in user chains. */
	if (hook != 'I' && !rnd(&v->rng, 4) && !fewer_opts(v))
		bprintf(&v->rules, " %s-o %s", neg(v, 3), ifaces[rnd(&v->rng, NIFACES)]);
	if (hook != 'O' && !rnd(&v->rng, 4) && !fewer_opts(v))
		bprintf(&v->rules, " %s-i %s", neg(v, 3), ifaces[rnd(&v->rng, NIFACES)]);
	ip = v->rules.len;
	if (v->ext && !rnd(&v->rng, 4)) {
		npre = 1;
		gen_ext_matches(v, -1, false, npre);
	}
	at = v->rules.len;
	p = rnd(&v->rng, 12);
	if (p < 3) {
		char m[40], c[40];

		bprintf(&v->rules, " -p tcp");
		/* An explicit -m tcp hotdrops a short header even without options. */
		if (v->ext && !rnd(&v->rng, 4))
			bprintf(&v->rules, " -m tcp");
		gen_ports(v, "sport");
		gen_ports(v, "dport");
		if (!rnd(&v->rng, 3)) {
			gen_flags(v, m, sizeof(m));
			gen_flags(v, c, sizeof(c));
			bprintf(&v->rules, " %s--tcp-flags %s %s", neg(v, 3), m, c);
		} else if (!rnd(&v->rng, 4)) {
			bprintf(&v->rules, " %s--syn", neg(v, 3));
		}
		if (!rnd(&v->rng, 4)) {
			unsigned int o = rnd(&v->rng, 2) ? 1 + rnd(&v->rng, 8) :
							    1 + rnd(&v->rng, 254);

			bprintf(&v->rules, " %s--tcp-option %u", neg(v, 3), o);
		}
		ports = true;
	} else if (p < 5) {
		bprintf(&v->rules, " -p udp");
		if (v->ext && !rnd(&v->rng, 4))
			bprintf(&v->rules, " -m udp");
		gen_ports(v, "sport");
		gen_ports(v, "dport");
		ports = true;
	} else if (p < 7) {
		bprintf(&v->rules, " -p icmp");
		if (rnd(&v->rng, 4))
			bprintf(&v->rules, " %s--icmp-type %s", neg(v, 3),
				icmp_types[rnd(&v->rng, 10)]);
		ports = true;
	} else if (p == 7) {
		bprintf(&v->rules, " ! -p %s", (const char *[]){ "tcp", "udp", "icmp" }[rnd(&v->rng, 3)]);
	} else if (p == 8) {
		bprintf(&v->rules, " %s-p %u", neg(v, 3), rnd(&v->rng, 2) ? 200u : 17u);
	} else if (v->ext && rnd(&v->rng, 3)) {
		gen_ext_proto(v);
	}
	if (!ports && !rnd(&v->rng, 5))
		bprintf(&v->rules, " %s-f", neg(v, 2));
	if (v->ext) {
		proto = rule_proto(v->rules.p + at, &inv);
		gen_ext_matches(v, proto, inv, npre);
		gen_ext_aim(v, chain < 0 ? hook : 'U', v->rules.p + start, ip - start, proto, inv,
			    v->rules.p + at);
	}
	if (v->ct)
		gen_ct_matches(v, rnd(&v->rng, 3) ? 1 + !rnd(&v->rng, 4) : 0);

	p = rnd(&v->rng, 20);
	if (p < 6) {
		bprintf(&v->rules, " -j ACCEPT");
	} else if (p < 12) {
		bprintf(&v->rules, " -j DROP");
	} else if (p < 14) {
		bprintf(&v->rules, " -j RETURN");
	} else if (p < 18 && (int)v->nchains > chain + 1) {
		/* Forward only: no loops, as iptables would refuse them (ELOOP). */
		unsigned int to = chain + 1 + rnd(&v->rng, v->nchains - chain - 1);

		bprintf(&v->rules, " -%c c%u", rnd(&v->rng, 3) ? 'j' : 'g', to);
		v->reach[to] |= v->hooks;
	}
	/* else: no target, the rule only counts */
	bprintf(&v->rules, "\n");
}

static void gen_ruleset(struct vd *v)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	unsigned int c, i, n;
	int run_at, usual_at;

	v->rules.len = 0;
	v->nports = 0;
	v->naims = 0;
	v->spis.n = v->ttls.n = v->toses.n = v->lens.n = v->ips.n = v->msses.n = 0;
	memset(v->reach, 0, sizeof(v->reach));
	v->nchains = rnd(&v->rng, 5);
	bprintf(&v->rules, "*filter\n");
	for (c = 0; c < 3; c++)
		bprintf(&v->rules, ":%s %s [0:0]\n", builtin[c],
			rnd(&v->rng, 3) ? "ACCEPT" : "DROP");
	for (c = 0; c < v->nchains; c++)
		bprintf(&v->rules, ":c%u - [0:0]\n", c);
	for (c = 0; c < 3; c++) {
		n = rnd(&v->rng, 9);
		/* ext: sometimes a foldable run somewhere among them */
		run_at = v->ext && !rnd(&v->rng, 3) ? (int)rnd(&v->rng, n + 1) : -1;
		/* ct: rules of the usual stateful shape somewhere among them */
		usual_at = v->ct ? (int)rnd(&v->rng, n + 1) : -1;
		for (i = 0; i <= n; i++) {
			if ((int)i == run_at)
				gen_ext_run(v, builtin[c]);
			if ((int)i == usual_at)
				gen_ct_usual(v, builtin[c]);
			if (i < n)
				gen_rule(v, -1, builtin[c][0], builtin[c]);
		}
	}
	for (c = 0; c < v->nchains; c++) {
		char name[16];

		snprintf(name, sizeof(name), "c%u", c);
		n = rnd(&v->rng, 7);
		usual_at = v->ct ? (int)rnd(&v->rng, n + 1) : -1;
		for (i = 0; i <= n; i++) {
			if ((int)i == usual_at)
				gen_ct_usual(v, name);
			if (i < n)
				gen_rule(v, c, 'U', name);
		}
	}
	bprintf(&v->rules, "COMMIT\n");
}

/*
 * Sometimes one stock iptables command edits the loaded ruleset halfway
 * through its packets: libiptc then reads the counters, replaces the table
 * and adds the counters back (SET_ADD_COUNTERS), which must keep them
 * exactly as ip_tables does; -Z and -P go through the same path.
 */
static void gen_edit(struct vd *v)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	struct buf rules = v->rules;
	unsigned int b = rnd(&v->rng, 3), c;
	bool insert;
	char name[16];

	v->edit.len = 0;
	v->edit_at = rnd(&v->rng, v->npackets);
	switch (rnd(&v->rng, 8)) {
	case 0:
	case 1:
	case 2:
		/* A rule inserted at the top or appended to some chain. */
		v->rules = (struct buf){ 0 };
		if (v->nchains && rnd(&v->rng, 2)) {
			c = rnd(&v->rng, v->nchains);
			snprintf(name, sizeof(name), "c%u", c);
			gen_rule(v, c, 'U', name);
		} else {
			snprintf(name, sizeof(name), "%s", builtin[b]);
			gen_rule(v, -1, builtin[b][0], name);
		}
		/* "-A NAME rest\n" -> "-A NAME rest" or "-I NAME 1 rest" */
		v->rules.p[--v->rules.len] = '\0';
		insert = rnd(&v->rng, 2);
		bprintf(&v->edit, "-%c %s%s%s", insert ? 'I' : 'A', name, insert ? " 1" : "",
			v->rules.p + 3 + strlen(name));
		free(v->rules.p);
		v->rules = rules;
		return;
	case 3:
		bprintf(&v->edit, "-D %s 1", builtin[b]);	/* may fail: on both sides */
		return;
	case 4:
		bprintf(&v->edit, "-Z%s%s", b ? " " : "", b ? builtin[b] : "");
		return;
	case 5:
		bprintf(&v->edit, "-P %s %s", builtin[b], rnd(&v->rng, 2) ? "ACCEPT" : "DROP");
		return;
	}
	/* no edit */
}

struct pkt {
	unsigned char d[256];
	unsigned int len;
	enum path path;
	uint32_t mark;		/* SO_MARK of an OUTPUT packet (ext only) */
	uint8_t l2;		/* ext: how S sends it (L2_*) */
	uint8_t smac;		/* ext: a frame's source, 1 + index in s_macs[]; 0: its veth's */
	unsigned int flow;	/* ct: its flow's number in the ruleset, from 1, */
	int dir;		/* its direction in it (0 original, 1 reply) */
	bool nat;		/* ct: T's NAT may pass it on with these addresses: */
	unsigned char seen[8];
	char what[112];		/* ct: what it is in its flow */
};

static uint16_t pkt_port(struct vd *v)
{
	uint16_t p;

	if (v->nports && rnd(&v->rng, 4)) {
		p = v->ports[rnd(&v->rng, v->nports)];
		return p + (int)rnd(&v->rng, 3) - 1;
	}
	return rnd(&v->rng, 65536);
}

/* The SCTP checksum (CRC32c, stored little endian) of @len bytes at @t made wrong. */
static void spoil_crc32c(unsigned char *t, unsigned int len)
{
	uint32_t c = ~0u;
	unsigned int i, k;

	memset(t + 8, 0, 4);
	for (i = 0; i < len; i++) {
		c ^= t[i];
		for (k = 0; k < 8; k++)
			c = c >> 1 ^ (0x82f63b78 & -(c & 1));
	}
	c = ~c ^ 0x55555555;
	for (i = 0; i < 4; i++)
		t[8 + i] = c >> (8 * i);
}

/* The right checksum at @off of a complete transport header (the field zeroed first). */
static uint16_t l4_csum(unsigned char *h, unsigned int l4len, unsigned int off)
{
	unsigned char *t = h + (h[0] & 0xf) * 4;
	uint32_t sum = 0;

	t[off] = t[off + 1] = 0;
	if (h[9] != 1) {
		sum = vd_csum_add(sum, h + 12, 8);
		sum += h[9] + l4len;
	}
	sum = vd_csum_add(sum, t, l4len);
	return vd_csum_fold(sum);
}

/*
 * Make the checksum at @off of a complete transport header wrong: T then
 * drops the packet in TCP/UDP/ICMP without answering it, and a reply would
 * cross T's OUTPUT chain behind our back (ICMP replies are rate limited
 * globally, so they would not even be the same on both sides).
 */
static void spoil_csum(unsigned char *h, unsigned int l4len, unsigned int off)
{
	unsigned char *t = h + (h[0] & 0xf) * 4;
	uint16_t good = l4_csum(h, l4len, off), bad;

	/* x ^ 0x5555 is never x, nor its other ones' complement form (0 <-> 0xffff). */
	bad = good ^ 0x5555;
	if (!bad)
		bad = good ^ 0x0f0f;	/* 0 would mean "no checksum" for UDP */
	t[off] = bad >> 8;
	t[off + 1] = bad & 0xff;
}

/*
 * The IP header fields random_ext_rulesets' matches look at: addresses next
 * to iprange ends (unless @aimed at a rule), TTL and TOS on and next to the
 * values rules name, and a mark for OUTPUT.
 */
static void gen_ext_ip(struct vd *v, struct pkt *p, bool aimed)
{
	static const uint8_t ttls[] = { 0, 1, 2, 63, 64, 65, 128, 254, 255 };
	static const uint32_t marks[] = { 0, 1, 0x10, 0x4000, 0xffffffff };
	unsigned char *h = p->d;
	uint32_t a;
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (v->ips.n && !rnd(&v->rng, aimed ? 8 : 3)) {
			a = htonl(seen_near(v, &v->ips, 0));
			memcpy(h + 12 + 4 * i, &a, 4);
		}
	switch (rnd(&v->rng, 5)) {
	case 0:
		h[8] = 64;
		break;
	case 1:
		h[8] = rnd(&v->rng, 2) ? ttls[rnd(&v->rng, 9)] : rnd(&v->rng, 256);
		break;
	default:
		h[8] = seen_near(v, &v->ttls, 64);
	}
	/*
	 * A forwarded packet with TTL 0 or 1 never reaches FORWARD: T answers
	 * it with time exceeded, which would cross T's OUTPUT behind our back.
	 */
	if (p->path != PATH_OUTPUT && !t_local(h + 16) && h[8] < 2)
		h[8] = 2;
	switch (rnd(&v->rng, 5)) {
	case 0:
		h[1] = 0;
		break;
	case 1:
		h[1] = rnd(&v->rng, 256);
		break;
	default:
		/* A value a rule names, with a bit flipped, ECN bits or one off. */
		h[1] = seen_near(v, &v->toses, 0x10);
		if (!rnd(&v->rng, 3))
			h[1] ^= 1u << rnd(&v->rng, 8);
		else if (!rnd(&v->rng, 2))
			h[1] |= rnd(&v->rng, 4);
	}
	if (p->path == PATH_OUTPUT)
		p->mark = marks[rnd(&v->rng, 5)];
}

/*
 * Broadcast and multicast destinations: T's subnets' broadcasts and the
 * limited one; the all-hosts group, which T's devices are in, and a group
 * they are not in (dropped by T's routing, after PREROUTING).
 */
static const char *const bcast_addrs[] = { "10.99.0.255", "10.200.0.255", "255.255.255.255" };
static const char *const mcast_addrs[] = { "224.0.0.1", "224.0.0.1", "239.1.2.3" };

/*
 * How a packet from S gets to T (-m pkttype, -m mac): a quarter of them as
 * a frame to the broadcast address, a seventh to a multicast one, often
 * with a broadcast or multicast destination to go with it; some as a frame
 * to T from another sender's MAC address; the rest from S's raw sockets,
 * now and then to one of T's broadcast addresses (PACKET_HOST all the
 * same). T's own packets (OUTPUT) go to a broadcast or multicast
 * destination now and then: T loops them back to itself through INPUT
 * (PACKET_LOOPBACK, no MAC header). A packet @aim'ed at a rule with
 * -m pkttype or -m mac gets the frame it names (a multicast one to a group
 * T is in, if not to the rule's destination).
 */
static void gen_ext_l2(struct vd *v, struct pkt *p, const struct vd_aim *aim)
{
	unsigned int k = rnd(&v->rng, 40);
	const char *dst = NULL;
	bool keep = aim && aim->dst;	/* its destination stays, mostly */

	if (p->path == PATH_OUTPUT) {
		if (k < 4 && !keep)
			dst = k < 2 ? bcast_addrs[rnd(&v->rng, 3)] : mcast_addrs[rnd(&v->rng, 3)];
		if (dst)
			inet_pton(AF_INET, dst, p->d + 16);
		return;
	}
	if (aim && aim->l2)
		k = aim->l2 == L2_BCAST ? 0 : 10;
	if (aim && aim->l2 && rnd(&v->rng, 2))
		keep = false;
	if (k < 10) {
		p->l2 = L2_BCAST;
		if (!keep && rnd(&v->rng, 2))
			dst = bcast_addrs[rnd(&v->rng, 3)];
	} else if (k < 16) {
		p->l2 = L2_MCAST;
		if (!keep && rnd(&v->rng, 4))
			dst = mcast_addrs[aim && aim->l2 ? 0 : rnd(&v->rng, 3)];
	} else if (k < 21) {
		p->l2 = L2_HOST;
	} else if (k < 23 && !keep) {
		/* S's raw socket: to the subnet's broadcast, not the limited one (EACCES). */
		dst = bcast_addrs[rnd(&v->rng, 2)];
	}
	if (dst)
		inet_pton(AF_INET, dst, p->d + 16);
	if (aim && aim->smac) {
		p->smac = aim->smac;
		if (!p->l2)
			p->l2 = L2_HOST;
	} else if (p->l2 && !rnd(&v->rng, 3)) {
		p->smac = 1 + rnd(&v->rng, NS_MACS);
	}
}

/* The transport header of the protocols only random_ext_rulesets sends; its length. */
static unsigned int gen_ext_l4(struct vd *v, uint8_t proto, unsigned char *t,
			       const struct vd_aim *aim)
{
	uint16_t s, d;
	uint32_t spi;
	unsigned int i;

	for (i = 0; i < 16; i++)
		t[i] = rnd(&v->rng, 256);
	switch (proto) {
	case 50:	/* ESP: SPI, sequence number */
	case 51:	/* AH: next header, length, reserved, SPI, sequence number */
		spi = rnd(&v->rng, 4) ? seen_near(v, &v->spis, 256) : rnd(&v->rng, 0xffffffff);
		i = proto == 51 ? 4 : 0;
		t[i] = spi >> 24;
		t[i + 1] = spi >> 16;
		t[i + 2] = spi >> 8;
		t[i + 3] = spi;
		return proto == 51 ? 12 : 8;
	default:	/* SCTP, DCCP, UDP-Lite: the ports first */
		s = pkt_port(v);
		d = pkt_port(v);
		if (aim && aim->dport >= 0)
			d = aim->dport;
		t[0] = s >> 8;
		t[1] = s & 0xff;
		t[2] = d >> 8;
		t[3] = d & 0xff;
		if (proto == 136) {
			/* Coverage 0 (all, the checksum is then spoiled) or invalid (1-7). */
			t[4] = 0;
			t[5] = rnd(&v->rng, 3) ? 0 : 1 + rnd(&v->rng, 7);
			return 8;
		}
		if (proto == 33) {
			t[4] = 3 + rnd(&v->rng, 2);	/* data offset */
			t[5] &= 0xf0;			/* CsCov 0: all */
			t[8] &= 0xfe;			/* no extended sequence number */
		}
		return 12;
	}
}

/* An IPv4 header's fixed fields but the length and addresses; a fresh id, never 0. */
static void ip_header(struct vd *v, unsigned char *h, unsigned int ihl, uint16_t frag,
		      uint8_t proto)
{
	h[0] = 0x40 | ihl;
	if (++v->ip_id == 0)
		v->ip_id = 1;
	put16(h + 4, v->ip_id);
	put16(h + 6, frag);
	h[8] = 64;
	h[9] = proto;
}

static void set_len(struct pkt *p, unsigned int len)
{
	p->len = len;
	put16(p->d + 2, len);
}

/*
 * Stateful traffic (random_stateful_rulesets): flows between a client and a
 * server, to, from or across T, whose later packets conntrack judges by the
 * earlier ones; T tracks every packet (setup_ct()). Every flow has its own
 * client port or echo id, so no entry of an earlier ruleset is looked up.
 * Checksums are spoiled as everywhere here but in ICMP errors: T's
 * conntrack does not check them, and T's stack answers none of these
 * packets (nor ever an ICMP error).
 */
#define VD_CT_NOTRACK_PORT	7777	/* T's nftables table leaves it untracked */
#define VD_CT_MAX_FLOWS		16
#define VD_CT_MAX_PKTS		64	/* packets of one ruleset */

enum { CT_IN, CT_OUT, CT_FWD };		/* to T, from T, across T */

/*
 * T's nftables table NATs these (setup_ct()): to VD_CT_NAT_ADDR, one of T's
 * addresses, port VD_CT_DNAT_PORT goes to VD_CT_DNAT_TO port 80, and the
 * source of a flow to port VD_CT_SNAT_PORT becomes VD_CT_NAT_ADDR.
 */
#define VD_CT_NAT_ADDR		"10.200.0.254"
#define VD_CT_DNAT_TO		"10.99.0.1"
#define VD_CT_DNAT_PORT		8088
#define VD_CT_SNAT_PORT		8089

struct ct_flow {
	unsigned int n;			/* its number in the ruleset, from 1 */
	int kind;
	uint8_t proto;
	bool nat;			/* T's NAT changes its addresses */
	/*
	 * [dir][0] source, [dir][1] destination (host order) of its packets
	 * as sent in each direction (0 original, 1 reply); each side knows the
	 * other one as T passes its packets on, so without NAT the reply's
	 * are the original's swapped. icmp: the ports are the echo id.
	 */
	uint32_t addr[2][2];
	uint16_t port[2][2];
	uint16_t echo_seq;
	enum path path[2];		/* how the original and the reply direction are sent */
	uint32_t seq[2];		/* tcp: the next sequence number of client, server */
	struct pkt *last[2];		/* the last packet of client, server; NULL: none */
	struct pkt *out;		/* where its next packet goes, */
	unsigned int room;		/* and how many more fit */
};

/* One of T's addresses (@local) or one of the others', other than @not (host order). */
static uint32_t ct_addr(struct vd *v, bool local, uint32_t not)
{
	unsigned int n = local ? NT_ADDRS : NADDRS, k = rnd(&v->rng, n), i;
	uint32_t a, net;

	for (i = 0; i < n; i++, k = (k + 1) % n) {
		a = ip_host(local ? t_addrs[k] : addrs[k]);
		net = htonl(a);
		if (a != not && t_local(&net) == local)
			return a;
	}
	return not;	/* not reached: each kind has two addresses or more */
}

static bool ct_local(uint32_t a)
{
	uint32_t net = htonl(a);

	return t_local(&net);
}

/* The veth T routes @a (not one of T's) out of, so where @a's packets come from. */
static enum path ct_route(uint32_t a)
{
	return (a >> 8) == (IP(10, 99, 0, 0) >> 8) ? PATH_VD0 : PATH_VD1;
}

static void ct_flow_init(struct vd *v, struct ct_flow *f, unsigned int n, struct pkt *out,
			 unsigned int room)
{
	static const uint8_t protos[] = { 6, 6, 6, 6, 17, 17, 17, 1, 1 };
	static const int kinds[] = { CT_IN, CT_IN, CT_OUT, CT_FWD };
	uint32_t c, s, nat_c, nat_s;
	uint16_t cp, sp, nat_sp;

	memset(f, 0, sizeof(*f));
	f->n = n;
	f->out = out;
	f->room = room;
	f->proto = protos[rnd(&v->rng, sizeof(protos))];
	f->kind = kinds[rnd(&v->rng, 4)];
	switch (f->kind) {
	case CT_IN:
		c = ct_addr(v, false, 0);
		s = ct_addr(v, true, 0);
		f->path[0] = rnd(&v->rng, 2) ? PATH_VD0 : PATH_VD1;
		f->path[1] = PATH_OUTPUT;
		break;
	case CT_OUT:
		c = ct_addr(v, true, 0);
		s = ct_addr(v, false, 0);
		f->path[0] = PATH_OUTPUT;
		f->path[1] = ct_route(s);
		break;
	default:
		c = ct_addr(v, false, 0);
		s = ct_addr(v, false, c);
		/* Mostly from where the client's address is routed. */
		f->path[0] = rnd(&v->rng, 4) ? ct_route(c) : rnd(&v->rng, 2) ? PATH_VD0 : PATH_VD1;
		f->path[1] = ct_route(s);
	}
	/* Unique for 28000 flows: no entry of an earlier ruleset is looked up. */
	cp = 32768 + v->flow_id++ % 28000;
	sp = rnd(&v->rng, 8) ? pkt_port(v) : VD_CT_NOTRACK_PORT;
	nat_c = c;
	nat_s = s;
	nat_sp = sp;
	/* Sometimes through T's NAT: tcp and udp to T (DNAT), from T or across it (SNAT). */
	if (f->proto != IPPROTO_ICMP && !rnd(&v->rng, 4)) {
		f->nat = true;
		if (f->kind == CT_IN) {
			s = ip_host(VD_CT_NAT_ADDR);
			sp = VD_CT_DNAT_PORT;
			nat_s = ip_host(VD_CT_DNAT_TO);
			nat_sp = 80;
		} else {
			sp = nat_sp = VD_CT_SNAT_PORT;
			nat_c = ip_host(VD_CT_NAT_ADDR);
		}
	}
	f->addr[0][0] = c;
	f->port[0][0] = cp;
	f->addr[0][1] = s;
	f->port[0][1] = sp;
	f->addr[1][0] = nat_s;
	f->port[1][0] = nat_sp;
	f->addr[1][1] = nat_c;
	f->port[1][1] = cp;
	f->seq[0] = rnd(&v->rng, 0xffffffff);
	f->seq[1] = rnd(&v->rng, 0xffffffff);
}

/* Begin @f's next packet, of @proto, from the client (@dir 0) or the server; NULL if full. */
static unsigned char *ct_begin(struct vd *v, struct ct_flow *f, int dir, uint8_t proto)
{
	struct pkt *p = f->out;

	if (!f->room)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->path = f->path[dir];
	p->flow = f->n;
	p->dir = dir;
	ip_header(v, p->d, 5, 0x4000, proto);
	put32(p->d + 12, f->addr[dir][0]);
	put32(p->d + 16, f->addr[dir][1]);
	/* As T passes it on: the addresses the other side sends to. */
	p->nat = f->nat;
	put32(p->seen, f->addr[!dir][1]);
	put32(p->seen + 4, f->addr[!dir][0]);
	return p->d + 20;
}

/* Finish it: @l4 transport bytes, the checksum at @csum spoiled, and what it is. */
static struct pkt *ct_end(struct ct_flow *f, int dir, unsigned int l4, unsigned int csum,
			  const char *fmt, ...)
{
	static const char *const kinds[] = { "to T", "from T", "across T" };
	struct pkt *p = f->out;
	const char *proto = f->proto == 6 ? "tcp" : f->proto == 17 ? "udp" : "icmp";
	va_list ap;
	int n;

	set_len(p, 20 + l4);
	spoil_csum(p->d, l4, csum);
	n = snprintf(p->what, sizeof(p->what), "flow %u (%s %s%s), %s: ", f->n, proto,
		     kinds[f->kind], f->nat ? " through NAT" : "",
		     dir ? "reply direction" : "original direction");
	va_start(ap, fmt);
	vsnprintf(p->what + n, sizeof(p->what) - n, fmt, ap);
	va_end(ap);
	f->last[dir] = p;
	f->out++;
	f->room--;
	return p;
}

static void ct_payload(struct vd *v, unsigned char *d, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		d[i] = rnd(&v->rng, 256);
}

#define TH_FIN	0x01
#define TH_SYN	0x02
#define TH_RST	0x04
#define TH_PSH	0x08
#define TH_ACK	0x10

/*
 * A TCP segment of @f from @dir with @flags and @len bytes of data, in
 * sequence, or with @skew far beyond the receiver's window (INVALID). No
 * window scaling: 64240 bytes are more than all the data a flow sends.
 */
static struct pkt *ct_tcp(struct vd *v, struct ct_flow *f, int dir, uint8_t flags,
			  unsigned int len, bool skew)
{
	static const char *const names[] = { "FIN", "SYN", "RST", "PSH", "ACK" };
	unsigned char *t = ct_begin(v, f, dir, IPPROTO_TCP);
	char fl[32] = "";
	unsigned int i;

	if (!t)
		return NULL;
	put16(t, f->port[dir][0]);
	put16(t + 2, f->port[dir][1]);
	put32(t + 4, f->seq[dir] + (skew ? 0x40000000 : 0));
	put32(t + 8, flags & TH_ACK ? f->seq[!dir] : 0);
	t[12] = 5 << 4;
	t[13] = flags;
	put16(t + 14, 64240);
	ct_payload(v, t + 20, len);
	/* SYN and FIN take a sequence number each. */
	if (!skew)
		f->seq[dir] += len + !!(flags & TH_SYN) + !!(flags & TH_FIN);
	for (i = 0; i < 5; i++)
		if (flags & (1u << i))
			snprintf(fl + strlen(fl), sizeof(fl) - strlen(fl), "%s%s", fl[0] ? "|" : "",
				 names[i]);
	return ct_end(f, dir, 20 + len, 16, "tcp %s, %u bytes%s", fl, len,
		      skew ? ", out of window" : "");
}

static struct pkt *ct_udp(struct vd *v, struct ct_flow *f, int dir)
{
	unsigned char *t = ct_begin(v, f, dir, IPPROTO_UDP);
	unsigned int len = rnd(&v->rng, 32);

	if (!t)
		return NULL;
	put16(t, f->port[dir][0]);
	put16(t + 2, f->port[dir][1]);
	put16(t + 4, 8 + len);
	ct_payload(v, t + 8, len);
	return ct_end(f, dir, 8 + len, 6, "udp, %u bytes", len);
}

/* An echo request from the client, or the server's reply to the last one. */
static struct pkt *ct_echo(struct vd *v, struct ct_flow *f, int dir)
{
	unsigned char *t = ct_begin(v, f, dir, IPPROTO_ICMP);

	if (!t)
		return NULL;
	t[0] = dir ? 0 : 8;
	put16(t + 4, f->port[0][0]);
	if (!dir)
		f->echo_seq++;
	put16(t + 6, f->echo_seq);
	ct_payload(v, t + 8, 16);
	return ct_end(f, dir, 24, 2, "icmp echo %s, sequence %u", dir ? "reply" : "request",
		      f->echo_seq);
}

/*
 * An ICMP error from @dir's side about @about, a packet of the other side
 * (its last if NULL): RELATED if that packet's entry is confirmed; INVALID
 * if not, or @astray (to a third address: conntrack checks the outer
 * destination against the entry).
 */
static struct pkt *ct_icmp_error(struct vd *v, struct ct_flow *f, int dir,
				 const struct pkt *about, bool astray)
{
	static const uint8_t types[][2] = { { 3, 3 }, { 3, 1 }, { 3, 10 }, { 11, 0 }, { 12, 0 } };
	unsigned int k = rnd(&v->rng, 5);
	unsigned char *t = ct_begin(v, f, dir, IPPROTO_ICMP), *q;
	struct pkt *p;
	uint32_t to;
	int ad;

	about = about ?: f->last[!dir];
	if (!t || !about)
		return NULL;
	q = t + 8;
	if (astray) {
		to = f->addr[dir][1];
		put32(f->out->d + 16, ct_addr(v, ct_local(to), to));
	}
	t[0] = types[k][0];
	t[1] = types[k][1];
	/*
	 * The IP header and 8 bytes of transport header, as ICMP quotes them:
	 * as the packet reached this side, after T's NAT.
	 */
	memcpy(q, about->d, 28);
	ad = about->dir;
	put32(q + 12, f->addr[!ad][1]);
	put32(q + 16, f->addr[!ad][0]);
	if (f->proto != IPPROTO_ICMP) {
		put16(q + 20, f->port[!ad][1]);
		put16(q + 22, f->port[!ad][0]);
	}
	p = ct_end(f, dir, 36, 2, "icmp %u/%u quoting the packet of id %u%s", t[0], t[1],
		   about->d[4] << 8 | about->d[5], astray ? ", to a third address" : "");
	/*
	 * A right checksum: no ICMP error is ever answered, and NAT drops a
	 * RELATED one with a wrong checksum, before the filter in PREROUTING.
	 */
	put16(t + 2, l4_csum(p->d, 36, 2));
	return p;
}

/* TCP: a handshake, data either way and a close; or a segment without a flow. */
static void ct_flow_tcp(struct vd *v, struct ct_flow *f)
{
	static const uint8_t stray[] = {
		TH_SYN | TH_FIN, TH_SYN | TH_ACK, TH_FIN, TH_RST, TH_FIN | TH_ACK, TH_SYN | TH_RST,
	};
	unsigned int i, n;
	struct pkt *syn;
	int d;

	switch (rnd(&v->rng, 10)) {
	case 0:
		/* Invalid flags, or no SYN to open a flow: INVALID. */
		ct_tcp(v, f, rnd(&v->rng, 2), stray[rnd(&v->rng, 6)], 0, false);
		return;
	case 1:
		/* A bare ACK is picked up mid-stream (nf_conntrack_tcp_loose): NEW. */
		ct_tcp(v, f, 0, TH_ACK, 0, false);
		ct_tcp(v, f, 1, TH_PSH | TH_ACK, 1 + rnd(&v->rng, 40), false);
		ct_tcp(v, f, 0, TH_ACK, 0, false);
		return;
	}
	syn = ct_tcp(v, f, 0, TH_SYN, 0, false);
	if (!syn)
		return;
	if (!rnd(&v->rng, 8)) {
		/* The same SYN again (a retransmission). */
		f->seq[0]--;
		ct_tcp(v, f, 0, TH_SYN, 0, false);
	}
	if (!rnd(&v->rng, 8)) {
		ct_icmp_error(v, f, 1, syn, !rnd(&v->rng, 4));
		return;
	}
	ct_tcp(v, f, 1, TH_SYN | TH_ACK, 0, false);
	if (rnd(&v->rng, 8))
		ct_tcp(v, f, 0, TH_ACK, 0, false);
	n = rnd(&v->rng, 4);
	for (i = 0; i < n; i++)
		ct_tcp(v, f, rnd(&v->rng, 2), TH_PSH | TH_ACK, 1 + rnd(&v->rng, 40),
		       !rnd(&v->rng, 10));
	d = rnd(&v->rng, 2);
	/* An error about a segment of the open flow (a route gone, a TTL run out). */
	if (!rnd(&v->rng, 5))
		ct_icmp_error(v, f, d, NULL, !rnd(&v->rng, 4));
	switch (rnd(&v->rng, 5)) {
	case 0:
		ct_tcp(v, f, d, TH_FIN | TH_ACK, 0, false);
		ct_tcp(v, f, !d, TH_ACK, 0, false);
		ct_tcp(v, f, !d, TH_FIN | TH_ACK, 0, false);
		ct_tcp(v, f, d, TH_ACK, 0, false);
		break;
	case 1:
		ct_tcp(v, f, d, TH_RST | TH_ACK, 0, false);
		ct_tcp(v, f, !d, TH_ACK, 0, false);
		break;
	case 2:
		ct_tcp(v, f, d, TH_ACK, 0, true);
		break;
	}
}

/* UDP: requests, replies, ICMP errors about them. */
static void ct_flow_udp(struct vd *v, struct ct_flow *f)
{
	struct pkt *req = ct_udp(v, f, 0), never;
	unsigned int i, n;

	if (!req)
		return;
	if (!rnd(&v->rng, 8)) {
		/* An error about a datagram never sent: take it back, keep a copy. */
		never = *req;
		f->out--;
		f->room++;
		f->last[0] = NULL;
		ct_icmp_error(v, f, 1, &never, false);
		return;
	}
	if (!rnd(&v->rng, 6))
		ct_udp(v, f, 0);	/* still unreplied: NEW again */
	if (rnd(&v->rng, 4))
		ct_udp(v, f, 1);
	n = rnd(&v->rng, 3);
	for (i = 0; i < n; i++)
		ct_udp(v, f, rnd(&v->rng, 2));
	/* Mostly the server's port unreachable; an error from the client too. */
	if (rnd(&v->rng, 2))
		ct_icmp_error(v, f, !!rnd(&v->rng, 4), NULL, !rnd(&v->rng, 4));
}

/* ICMP: echo requests and replies; a reply without a request is INVALID. */
static void ct_flow_icmp(struct vd *v, struct ct_flow *f)
{
	struct pkt *req;

	if (!rnd(&v->rng, 6)) {
		ct_echo(v, f, 1);
		return;
	}
	req = ct_echo(v, f, 0);
	if (!req)
		return;
	if (rnd(&v->rng, 4))
		ct_echo(v, f, 1);
	if (rnd(&v->rng, 2)) {
		ct_echo(v, f, 0);
		if (rnd(&v->rng, 2))
			ct_echo(v, f, 1);
	}
	if (!rnd(&v->rng, 6))
		ct_icmp_error(v, f, 1, req, false);
}

/*
 * The ruleset's flows, up to run->ct_per_ruleset packets: made flow by flow
 * in v->draft, then mixed into v->script, each flow's packets in order, so
 * that flows are open at the same time.
 */
static void gen_ct_flows(struct vd *v)
{
	unsigned int start[VD_CT_MAX_FLOWS], left[VD_CT_MAX_FLOWS], nflows = 0, total = 0;
	unsigned int i, k, r, live, max = run->ct_per_ruleset;
	struct ct_flow f;

	while (total < max && nflows < VD_CT_MAX_FLOWS) {
		ct_flow_init(v, &f, nflows + 1, v->draft + total, max - total);
		if (f.proto == 6)
			ct_flow_tcp(v, &f);
		else if (f.proto == 17)
			ct_flow_udp(v, &f);
		else
			ct_flow_icmp(v, &f);
		start[nflows] = total;
		left[nflows] = f.out - (v->draft + total);
		total += left[nflows++];
	}
	for (i = 0; i < total; i++) {
		/* The r-th of the flows with packets left sends its next one. */
		for (k = live = 0; k < nflows; k++)
			live += !!left[k];
		r = rnd(&v->rng, live);
		for (k = 0; k < nflows; k++)
			if (left[k] && !r--)
				break;
		v->script[i] = v->draft[start[k]++];
		left[k]--;
	}
	v->npackets = total;
}

/*
 * ext: the CWR and ECE flags -m ecn tests, and in two thirds of the packets
 * with options a well-formed MSS option (a value some tcpmss rule names, or
 * next to it), first or behind NOPs or other options the walk may skip.
 */
static void gen_ext_tcp(struct vd *v, unsigned char *t, unsigned int olen)
{
	unsigned int at;
	uint32_t mss;

	if (rnd(&v->rng, 2))
		t[13] |= rnd(&v->rng, 4) << 6;
	if (olen < 4 || !rnd(&v->rng, 3))
		return;
	mss = rnd(&v->rng, 4) ? seen_near(v, &v->msses, 1460) : rnd(&v->rng, 65536);
	at = rnd(&v->rng, 2) ? 0 : rnd(&v->rng, olen - 3);
	if (at && rnd(&v->rng, 2))
		memset(t + 20, 1, at);
	t[20 + at] = 2;
	t[21 + at] = 4;
	t[22 + at] = mss >> 8;
	t[23 + at] = mss;
}

static void gen_packet(struct vd *v, struct pkt *p)
{
	static const uint8_t protos[] = { 6, 6, 6, 17, 17, 1, 1, 1, 200, 17 };
	static const uint16_t frags[] = { 0x2000, 1, 2, 0x2005, 100, 0x4000 };
	static const uint8_t ext_protos[] = { 50, 51, 132, 33, 136, 50, 51 };
	unsigned int l4 = 0, hdr, ihl, i, pay = rnd(&v->rng, 24);
	uint8_t proto = protos[rnd(&v->rng, 10)];
	uint16_t frag = rnd(&v->rng, 5) ? (rnd(&v->rng, 3) ? 0 : 0x4000) : frags[rnd(&v->rng, 6)];
	const struct vd_aim *aim = NULL;
	unsigned char *h = p->d, *t;

	memset(p, 0, sizeof(*p));
	p->path = rnd(&v->rng, 10) < 4 ? PATH_OUTPUT : rnd(&v->rng, 10) < 7 ? PATH_VD0 : PATH_VD1;
	if (v->ext && rnd(&v->rng, 2))
		proto = ext_protos[rnd(&v->rng, 7)];
	/* Without aims the random stream is the one seeds were recorded with. */
	if (v->naims && rnd(&v->rng, 3)) {
		aim = &v->aims[rnd(&v->rng, v->naims)];
		if (aim->proto)
			proto = aim->proto;
		if (aim->path >= 0)
			p->path = aim->path;
		if (rnd(&v->rng, 4))
			frag = 0;
	}
	/* Rarely a header length other than 20: the transport header moves. */
	ihl = rnd(&v->rng, 15) ? 5 : rnd(&v->rng, 8);
	ip_header(v, h, ihl, frag, proto);
	inet_pton(AF_INET, addrs[rnd(&v->rng, NADDRS)], h + 12);
	inet_pton(AF_INET, addrs[rnd(&v->rng, NADDRS)], h + 16);
	if (rnd(&v->rng, 6) == 0)
		h[15] = rnd(&v->rng, 256);
	/* Packets from S: often to one of T's own addresses (INPUT). */
	if (p->path != PATH_OUTPUT && !rnd(&v->rng, 3)) {
		static const char *const local[] = { "10.99.0.1", "10.200.1.1", "192.168.1.1",
						     "10.99.0.254", "10.200.0.254" };

		inet_pton(AF_INET, local[rnd(&v->rng, 5)], h + 16);
	}
	if (aim && aim->src)
		memcpy(h + 12, &aim->src, 4);
	if (aim && aim->dst)
		memcpy(h + 16, &aim->dst, 4);
	if (v->ext) {
		gen_ext_ip(v, p, aim != NULL);
		gen_ext_l2(v, p, aim);
	}
	/* Options: NOPs then EOL, which ip_rcv accepts. */
	for (i = 20; i < ihl * 4; i++)
		h[i] = i + 1 < ihl * 4 ? 1 : 0;
	t = h + (ihl >= 5 ? ihl * 4 : 20);
	switch (proto) {
	case 6: {
		unsigned int olen = rnd(&v->rng, 3) ? 0 : 4 * (1 + rnd(&v->rng, 5));
		uint16_t s = pkt_port(v), d = pkt_port(v);

		/* ext: options more often, for tcpmss. */
		if (v->ext && !olen && rnd(&v->rng, 2))
			olen = 4;

		l4 = 20 + olen;
		t[0] = s >> 8;
		t[1] = s & 0xff;
		if (aim && aim->dport >= 0)
			d = aim->dport;
		t[2] = d >> 8;
		t[3] = d & 0xff;
		t[12] = (5 + olen / 4) << 4;
		if (!rnd(&v->rng, 10))
			t[12] = rnd(&v->rng, 16) << 4;	/* any doff, even < 5 */
		if (rnd(&v->rng, 2))
			t[13] = rnd(&v->rng, 64);
		else
			t[13] = rnd(&v->rng, 2) ? 0x02 : 0x10;
		for (i = 0; i < olen;) {
			static const uint8_t kinds[] = { 1, 1, 0, 2, 3, 4, 8, 5, 30 };
			uint8_t k = rnd(&v->rng, 5) ? kinds[rnd(&v->rng, 9)] : rnd(&v->rng, 256);

			t[20 + i++] = k;
			if (k >= 2 && i < olen)
				t[20 + i++] = rnd(&v->rng, 4) ? 2 + rnd(&v->rng, 8) :
								rnd(&v->rng, 3);
		}
		if (v->ext)
			gen_ext_tcp(v, t, olen);
		break;
	}
	case 17: {
		uint16_t s = pkt_port(v), d = pkt_port(v);

		l4 = 8;
		if (aim && aim->dport >= 0)
			d = aim->dport;
		t[0] = s >> 8;
		t[1] = s & 0xff;
		t[2] = d >> 8;
		t[3] = d & 0xff;
		break;
	}
	case 1:
		l4 = 8;
		t[0] = rnd(&v->rng, 3) ? (uint8_t[]){ 0, 3, 8, 11, 5, 13 }[rnd(&v->rng, 6)] :
					  rnd(&v->rng, 256);
		t[1] = rnd(&v->rng, 2) ? rnd(&v->rng, 4) : rnd(&v->rng, 256);
		break;
	case 50:
	case 51:
	case 132:
	case 33:
	case 136:
		l4 = gen_ext_l4(v, proto, t, aim);
		break;
	default:
		l4 = 8;
		break;
	}
	hdr = l4;
	/* Sometimes cut the transport header short (ip_tables hotdrops). */
	if (!rnd(&v->rng, 10))
		l4 = rnd(&v->rng, l4 + 1);
	else
		l4 += pay;
	if (v->ext) {
		bool newp = proto == 50 || proto == 51 || proto == 132 || proto == 33 ||
			    proto == 136;
		unsigned int target;

		/* The new protocols are cut more often: ah, esp, multiport hotdrop. */
		switch (rnd(&v->rng, newp ? 5 : 8)) {
		case 0:
			/* Short: ah reads 12 bytes, esp 8, multiport 4. */
			l4 = rnd(&v->rng, (hdr < 12 ? hdr : 12) + 1);
			break;
		case 1:
		case 2:
			/* A total length a rule names, or next to it. */
			target = seen_near(v, &v->lens, 60);
			if (target >= (unsigned int)(t - h) && target <= sizeof(p->d))
				l4 = target - (t - h);
			break;
		}
	}
	for (i = hdr; i < l4; i++)
		t[i] = rnd(&v->rng, 256);
	set_len(p, (t - h) + l4);
	if (ihl >= 5 && l4 >= hdr) {
		/* ESP and AH have no checksum: nothing in T handles them. */
		if (proto == 132)
			spoil_crc32c(t, l4);
		else if (proto != 50 && proto != 51)
			spoil_csum(h, l4, proto == 6 ? 16 : proto == 17 || proto == 136 ||
					  proto == 33 ? 6 : 2);
	}
}

static void report(struct vd *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vd_vreport(v->report, fmt, ap);
	va_end(ap);
}

static void print_packet(struct vd *v, const struct pkt *p)
{
	static const char *const l2[] = { "", "T's MAC", "ff:ff:ff:ff:ff:ff", "a multicast MAC" };
	char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN], hex[800], ext[160] = "";
	const uint8_t *m;
	unsigned int n = 0;

	inet_ntop(AF_INET, p->d + 12, s, sizeof(s));
	inet_ntop(AF_INET, p->d + 16, d, sizeof(d));
	if (v->ext)
		n = snprintf(ext, sizeof(ext), " ttl %u tos 0x%02x", p->d[8], p->d[1]);
	if (v->ext && p->path == PATH_OUTPUT)
		snprintf(ext + n, sizeof(ext) - n, " mark 0x%x (SO_MARK)", p->mark);
	if (v->ext && p->path != PATH_OUTPUT && p->l2) {
		m = s_macs[p->smac ? p->smac - 1 : p->path - PATH_VD0];
		snprintf(ext + n, sizeof(ext) - n, " as a frame (packet socket) to %s from "
			 "%02x:%02x:%02x:%02x:%02x:%02x", l2[p->l2], m[0], m[1], m[2], m[3], m[4],
			 m[5]);
	}
	vd_hex(hex, sizeof(hex), p->d, p->len);
	report(v, "#   packet %s: %s -> %s proto %u frag 0x%02x%02x%s len %u:%s\n",
	       vd_path_name[p->path],
	       s, d, p->d[9], p->d[6], p->d[7], ext, p->len, hex);
	if (p->what[0])
		report(v, "#     %s\n", p->what);
}

/* ct: the packets of packet @i's flow that came before it and made its conntrack state. */
static void print_flow_before(struct vd *v, unsigned int i)
{
	unsigned int k, n = 0;

	for (k = 0; k < i; k++) {
		if (v->script[k].flow != v->script[i].flow)
			continue;
		if (!n++)
			report(v, "#   after these of its flow (their mismatches are reported "
			       "above):\n");
		print_packet(v, &v->script[k]);
	}
}

/* The ruleset as the iptables commands that build it. */
static void print_ruleset(struct vd *v)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/verdict-diff-ruleset-%lu.rules", v->shown);
	vd_print_ruleset(v->report, &v->rules, "iptables-legacy", VD_BIG_RULESET, path);
}

/* Run @cmd in side @s's T (H: through the shim); its output into @out if not NULL. */
static int run_in(struct vd *v, int s, const char *cmd, struct buf *out)
{
	return vd_run_in(v->side[s].t, s ? &v->hd : NULL, cmd, out);
}

static int setup_side(struct vd *v, int i)
{
	struct vd_side *sd = &v->side[i];
	const char *t = sd->t, *s = sd->s;
	int err;

	err = vd_side_netns(sd, "vd", i);
	if (!err)
		err = vd_side_links(sd);
	if (err)
		return err;
	if (vd_sh("ip -n %s addr add 10.99.0.254/24 dev vd0 && "
		  "ip -n %s addr add 10.200.0.254/24 dev vd1 && "
		  "ip -n %s addr add 10.99.0.1/32 dev lo && ip -n %s addr add 10.200.1.1/32 dev lo && "
		  "ip -n %s addr add 192.168.1.1/32 dev lo && ip -n %s route add default dev vd1",
		  t, t, t, t, t, t) ||
	    vd_sh("ip -n %s route add default dev vd0p metric 1 && "
		  "ip -n %s route add default dev vd1p metric 2", s, s))
		return -EIO;
	/*
	 * T forwards whatever is not local; no reverse-path filter and T's own
	 * addresses accepted as sources (sources are random, and a martian is
	 * dropped before any hook), no redirects, and fragments addressed to T
	 * are dropped
	 * before reassembly instead of expiring into ICMP behind our back.
	 */
	if (vd_sh("ip netns exec %s sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
		  "net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.vd0.rp_filter=0 "
		  "net.ipv4.conf.vd1.rp_filter=0 net.ipv4.conf.all.send_redirects=0 "
		  "net.ipv4.conf.vd0.send_redirects=0 net.ipv4.conf.vd1.send_redirects=0 "
		  "net.ipv4.conf.all.accept_local=1 net.ipv4.conf.vd0.accept_local=1 "
		  "net.ipv4.conf.vd1.accept_local=1 "
		  "net.ipv4.ipfrag_low_thresh=0 net.ipv4.ipfrag_high_thresh=0", t))
		return -EIO;
	return vd_side_sockets(sd, AF_INET, ETH_P_IP, observed_protos, NOBS);
}

/*
 * random_ext_rulesets' additions to both sides (setup() made them): T's
 * devices in groups, realms on T's routes (see VD_GROUP_VD0), broadcasts
 * allowed from its raw socket, and in S a packet socket for whole frames
 * (send_frame()). Only there: with a realm on a route T checks every
 * packet's source against its routes, which the other tests' packets were
 * recorded without.
 */
static int setup_ext(struct vd *v)
{
	static const char *const devs[] = { "vd0p", "vd1p" };
	unsigned int i, k;
	int one = 1;

	for (i = 0; i < 2; i++) {
		struct vd_side *sd = &v->side[i];
		const char *t = sd->t;

		if (vd_sh("ip -n %s link set vd0 group %u && ip -n %s link set vd1 group %u && "
			  "ip -n %s link set lo group %u", t, VD_GROUP_VD0, t, VD_GROUP_VD1, t,
			  VD_GROUP_LO) ||
		    vd_sh("ip -n %s route replace 10.99.0.0/24 dev vd0 proto kernel scope link "
			  "src 10.99.0.254 realm 5 && ip -n %s route replace default dev vd1 "
			  "realms 3/9 && ip -n %s route replace local 10.200.1.1 dev lo table local "
			  "proto kernel scope host src 10.200.1.1 realm 7", t, t, t))
			return -EIO;
		if (setsockopt(sd->out_sk, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)))
			return -errno;
		sd->l2_sk = vd_socket_in(sd->s, AF_PACKET, SOCK_RAW, 0, NULL);
		if (sd->l2_sk < 0)
			return -errno;
		for (k = 0; k < 2; k++) {
			struct ifreq ifr = { 0 };

			snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", devs[k]);
			if (ioctl(sd->l2_sk, SIOCGIFINDEX, &ifr))
				return -errno;
			sd->l2_ifindex[k] = ifr.ifr_ifindex;
		}
	}
	return 0;
}

/* What setup_ct()'s table counts (nftables "ct" expressions): states, NAT. */
static const char *const ct_counted[] = {
	"state invalid", "state established", "state related", "state new", "state untracked",
	"status snat", "status dnat",
};
#define NCOUNTED (sizeof(ct_counted) / sizeof(ct_counted[0]))

/*
 * Conntrack on in side @i's T for every packet whatever the ruleset, as
 * bpfilter.ko's hold would keep it (and xt_conntrack's checkentry does on
 * K): an nftables table whose ct expressions take conntrack. It also leaves
 * VD_CT_NOTRACK_PORT untracked (UNTRACKED), before conntrack; NATs the flows
 * ct_flow_init() sends to VD_CT_DNAT_PORT and VD_CT_SNAT_PORT, so that
 * --ctstate SNAT/DNAT hold and reply tuples are not the original ones
 * swapped; marks each new flow's entry (ct mark, for -m connmark) by its
 * protocol and server port, after conntrack and before the filter; and
 * counts the states conntrack gives, after it and before the filter, so
 * the counts say what the traffic exercised whatever the verdicts. Our
 * checksums are spoiled on purpose (ct_end()): conntrack must not call
 * those packets INVALID.
 */
static int setup_ct(struct vd *v, int i)
{
	static const char *const hooks[] = { "prerouting", "output" };
	unsigned int h, k;
	char cmd[128];
	FILE *f;

	if (vd_sh("ip netns exec %s sysctl -qw net.netfilter.nf_conntrack_checksum=0", v->side[i].t))
		return -EIO;
	snprintf(cmd, sizeof(cmd), "ip netns exec %s nft -f -", v->side[i].t);
	f = popen(cmd, "w");
	if (!f)
		return -errno;
	fprintf(f, "table ip vd_ct {\n");
	for (h = 0; h < 2; h++) {
		fprintf(f, " chain notrack_%s {\n  type filter hook %s priority raw;\n"
			"  meta l4proto { tcp, udp } th dport %d notrack\n"
			"  meta l4proto { tcp, udp } th sport %d notrack\n }\n", hooks[h], hooks[h],
			VD_CT_NOTRACK_PORT, VD_CT_NOTRACK_PORT);
		fprintf(f, " chain states_%s {\n  type filter hook %s priority mangle;\n",
			hooks[h], hooks[h]);
		for (k = 0; k < NCOUNTED; k++)
			fprintf(f, "  ct %s counter\n", ct_counted[k]);
		fprintf(f, " }\n");
	}
	/*
	 * Conntrack marks (-m connmark), set by a new flow's first packet,
	 * before the filter: by protocol, and server ports below 1024, and the
	 * NAT ports; UDP above 1023 keeps 0.
	 */
	for (h = 0; h < 2; h++)
		fprintf(f, " chain connmark_%s {\n  type filter hook %s priority mangle;\n"
			"  ct state new meta l4proto tcp ct mark set 0x1\n"
			"  ct state new meta l4proto tcp th dport < 1024 ct mark set 0x11\n"
			"  ct state new meta l4proto udp th dport < 1024 ct mark set 0x21\n"
			"  ct state new meta l4proto icmp ct mark set 0xff000000\n"
			"  ct state new meta l4proto { tcp, udp } th dport { %d, %d } "
			"ct mark set 0x4010\n }\n", hooks[h], hooks[h], VD_CT_DNAT_PORT,
			VD_CT_SNAT_PORT);
	fprintf(f, " chain nat_pre {\n  type nat hook prerouting priority dstnat;\n"
		"  ip daddr %s meta l4proto { tcp, udp } th dport %d dnat to %s:80\n }\n",
		VD_CT_NAT_ADDR, VD_CT_DNAT_PORT, VD_CT_DNAT_TO);
	fprintf(f, " chain nat_post {\n  type nat hook postrouting priority srcnat;\n"
		"  meta l4proto { tcp, udp } th dport %d snat to %s\n }\n", VD_CT_SNAT_PORT,
		VD_CT_NAT_ADDR);
	fprintf(f, "}\n");
	return pclose(f) ? -EIO : 0;
}

/* Side @s's T's packets of each of ct_counted[] (setup_ct()'s counters). */
static void ct_counts(struct vd *v, int s, unsigned long n[NCOUNTED])
{
	char key[8], val[16], name[32];
	struct buf out = { 0 };
	unsigned long c;
	unsigned int k;
	const char *l;

	run_in(v, s, "nft list table ip vd_ct", &out);
	for (l = out.p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (sscanf(l, " ct %7s %15s counter packets %lu", key, val, &c) != 3)
			continue;
		snprintf(name, sizeof(name), "%s %s", key, val);
		for (k = 0; k < NCOUNTED; k++)
			if (!strcmp(name, ct_counted[k]))
				n[k] += c;
	}
	free(out.p);
}

/*
 * The kernel's HZ, which bpfilter.ko hands its helper for --ctexpire and
 * hostd's helper takes from $BPFILTER_HZ; 0 if neither that nor the kernel's
 * config says.
 */
static unsigned int kernel_hz(void)
{
	const char *env = getenv("BPFILTER_HZ");
	unsigned int hz = 0;
	char line[32];
	FILE *f;

	if (env)
		return strtoul(env, NULL, 10);
	f = popen("{ zcat /proc/config.gz || cat /boot/config-$(uname -r); } 2>/dev/null | "
		  "sed -n 's/^CONFIG_HZ=//p'", "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		hz = strtoul(line, NULL, 10);
	pclose(f);
	return hz;
}

static void teardown(struct vd *v)
{
	vd_close_all(&v->hd, v->side, v->tmp, v->report, &v->rules);
	free(v->edit.p);
	free(v->script);
	free(v->draft);
	memset(v, 0, sizeof(*v));
}

/* Both sides and hostd; @ct: for random_stateful_rulesets (setup_ct(), hostd -C). */
static int setup(struct vd *v, bool ct)
{
	char hz[16];
	unsigned int i;
	int err;

	memset(v, 0, sizeof(*v));
	vd_prepare(&v->hd, v->side);
	v->rng.s = run->seed * 0x9E3779B97F4A7C15ull + 1;
	for (i = 0; i < 2; i++) {
		err = setup_side(v, i);
		if (!err && ct)
			err = setup_ct(v, i);
		if (err)
			goto fail;
	}
	if (ct) {
		v->script = calloc(VD_CT_MAX_PKTS, sizeof(*v->script));
		v->draft = calloc(VD_CT_MAX_PKTS, sizeof(*v->draft));
		if (!v->script || !v->draft) {
			err = -ENOMEM;
			goto fail;
		}
		/* hostd's helper inherits it; without it --ctexpire is not generated. */
		v->hz = kernel_hz();
		snprintf(hz, sizeof(hz), "%u", v->hz);
		if (v->hz)
			setenv("BPFILTER_HZ", hz, 1);
	}
	snprintf(v->tmp, sizeof(v->tmp), "/tmp/vd%d.rules", getpid());
	err = vd_hostd_start(&v->hd, "vd", "/tmp/verdict-diff-helper.log", ct);
	if (err)
		goto fail;
	return 0;
fail:
	teardown(v);
	return err;
}

/* Load the current ruleset on side @s; the restore's exit status. */
static int apply(struct vd *v, int s, struct buf *out)
{
	return vd_restore(v->side[s].t, s ? &v->hd : NULL, "iptables-legacy-restore", v->tmp,
			  &v->rules, out);
}

/*
 * Does @d (an IPv4 packet of @len bytes) carry @p's id, protocol and
 * addresses, or those T's NAT gives it?
 */
static bool same_packet(const unsigned char *d, ssize_t len, const struct pkt *p)
{
	return len >= 20 && !memcmp(d + 4, p->d + 4, 2) && d[9] == p->d[9] &&
	       (!memcmp(d + 12, p->d + 12, 8) || (p->nat && !memcmp(d + 12, p->seen, 8)));
}

/* Look at (and consume) what the observers of side @s hold: an outcome or OUT_DROPPED. */
static enum outcome observe(struct vd_side *sd, const void *pkt)
{
	const struct pkt *p = pkt;
	enum outcome found = OUT_DROPPED;
	unsigned char d[2048];
	unsigned int k, n;
	ssize_t len;

	for (k = 0; k < NOBS; k++)
		for (n = 0; n < 1000; n++) {
			len = recv(sd->obs_local[k], d, sizeof(d), 0);
			if (len < 0)
				break;
			if (p && same_packet(d, len, p))
				found = OUT_LOCAL;
		}
	for (n = 0; n < 1000; n++) {
		struct sockaddr_ll ll;
		socklen_t sl = sizeof(ll);

		len = recvfrom(sd->obs_fwd, d, sizeof(d), 0, (struct sockaddr *)&ll, &sl);
		if (len < 0)
			break;
		if (p && ll.sll_pkttype != PACKET_OUTGOING && same_packet(d, len, p))
			found = OUT_FORWARDED;
	}
	return found;
}

/*
 * ext: send @p from side @sd's S as an Ethernet frame (gen_ext_l2()): what
 * its IPPROTO_RAW socket would put on the wire (the IP header's checksum
 * and total length filled in), but to the destination and from the source
 * @p names.
 */
static ssize_t send_frame(struct vd_side *sd, const struct pkt *p)
{
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = sd->l2_ifindex[p->path - PATH_VD0], .sll_halen = ETH_ALEN,
	};
	unsigned int ihl = (p->d[0] & 0xf) * 4, i;
	unsigned char f[ETH_HLEN + sizeof(p->d)], *h = f + ETH_HLEN;
	uint32_t sum = 0;

	/* raw_send_hdrinc() refuses a header longer than the packet. */
	if (ihl >= 20 && ihl > p->len) {
		errno = EINVAL;
		return -1;
	}
	switch (p->l2) {
	case L2_BCAST:
		memcpy(f, bcast, ETH_ALEN);
		break;
	case L2_MCAST:
		/* 01:00:5e and the group's low 23 bits; the all-hosts group's if none. */
		f[0] = 0x01;
		f[1] = 0x00;
		f[2] = 0x5e;
		if ((p->d[16] & 0xf0) == 0xe0) {
			f[3] = p->d[17] & 0x7f;
			f[4] = p->d[18];
			f[5] = p->d[19];
		} else {
			f[3] = f[4] = 0;
			f[5] = 1;
		}
		break;
	default:
		memcpy(f, s_macs[p->path - PATH_VD0], ETH_ALEN);	/* T's peer veth's */
	}
	memcpy(f + ETH_ALEN, s_macs[p->smac ? p->smac - 1 : p->path - PATH_VD0], ETH_ALEN);
	f[12] = ETH_P_IP >> 8;
	f[13] = ETH_P_IP & 0xff;
	memcpy(h, p->d, p->len);
	if (ihl >= 20) {
		h[10] = h[11] = 0;
		sum = vd_csum_add(sum, h, ihl);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		put16(h + 10, ~sum);
	}
	memcpy(ll.sll_addr, f, ETH_ALEN);
	for (i = 0; i < 1000; i++) {
		ssize_t n = sendto(sd->l2_sk, f, ETH_HLEN + p->len, 0, (struct sockaddr *)&ll,
				   sizeof(ll));

		if (n >= 0 || errno != EAGAIN)
			return n;
		usleep(100);
	}
	return -1;
}

/* Send @pkt from side @sd: from its path's raw socket, or as a frame. */
static ssize_t send_one(struct vd_side *sd, const void *pkt, void *ctx)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	const struct pkt *p = pkt;
	struct vd *v = ctx;
	int sk = p->path == PATH_OUTPUT ? sd->out_sk : sd->in_sk[p->path - PATH_VD0];

	memcpy(&dst.sin_addr, p->d + 16, 4);
	/* The same mark on both sides; set for every ext OUTPUT packet, 0 included. */
	if (v->ext && p->path == PATH_OUTPUT &&
	    setsockopt(sk, SOL_SOCKET, SO_MARK, &p->mark, sizeof(p->mark))) {
		errno = EIO;	/* a send error, not a drop */
		return -1;
	}
	if (p->l2 && p->path != PATH_OUTPUT)
		return send_frame(sd, p);
	return sendto(sk, p->d, p->len, 0, (struct sockaddr *)&dst, sizeof(dst));
}

/* Send @p on both sides; their outcomes into @o. */
static void send_both(struct vd *v, const struct pkt *p, enum outcome o[2])
{
	vd_send_both(v->side, p->path, send_one, observe, p, v, o);
}

static void mismatch_header(struct vd *v, unsigned int round)
{
	report(v, "# MISMATCH (seed %lu, %sruleset %u); ruleset:\n", run->seed,
	       v->ext ? "random_ext_rulesets " : v->ct ? "random_stateful_rulesets " : "", round);
	print_ruleset(v);
	if (v->seq)
		report(v, "#   then, step by step (packets and both -c dumps after each):\n%s",
		       v->edit.p ? v->edit.p : "");
	else if (v->edit.len)
		report(v, "#   (before packet %u:) iptables-legacy %s\n", v->edit_at, v->edit.p);
}

static void header_cb(void *ctx, unsigned int round)
{
	mismatch_header(ctx, round);
}

/* Apply the ruleset's edit on both sides; false if they disagree. */
static bool apply_edit(struct vd *v, unsigned int round)
{
	struct buf out[2] = { { 0 }, { 0 } };
	char cmd[4096];
	int rc[2], s;

	snprintf(cmd, sizeof(cmd), "iptables-legacy -w %s", v->edit.p);
	for (s = 0; s < 2; s++)
		rc[s] = run_in(v, s, cmd, &out[s]);
	if (rc[0] != rc[1] && v->shown < VD_MAX_SHOWN) {
		mismatch_header(v, round);
		vd_report_exits(v->report, round, "the edit", rc, out);
	}
	free(out[0].p);
	free(out[1].p);
	return rc[0] == rc[1];
}

/*
 * The number of rules with non-zero counters in an iptables-save -c dump;
 * with @ct only those with a conntrack or state match.
 */
static unsigned int count_hit_rules(const struct buf *save, bool ct)
{
	const char *l, *end;
	unsigned int n = 0;

	for (l = save->p; l && *l; l = end + !!*end) {
		end = strchrnul(l, '\n');
		if (l[0] != '[' || !strncmp(l, "[0:0] -A", 8))
			continue;
		if (!ct || memmem(l, end - l, " -m conntrack ", 14) ||
		    memmem(l, end - l, " -m state ", 10))
			n++;
	}
	return n;
}

/*
 * ext: rules whose packet counts random_ext_rulesets reports, for the
 * matches that need the frames and setup_ext()'s groups and realms to
 * match at all (as iptables-save prints them; hit_ext[] in this order, the
 * second and third checked together).
 */
static const char *const ext_counted[] = {
	"-m pkttype --pkt-type unicast", "-m pkttype --pkt-type broadcast",
	"-m pkttype --pkt-type multicast", "-m pkttype ! --pkt-type", "-m devgroup --src-group",
	"-m devgroup --dst-group", "-m devgroup ! ", "-m realm --realm", "-m realm ! --realm",
	"-m mac --mac-source", "-m mac ! --mac-source", "--ecn-tcp-", "--ecn-ip-ect", "-m tcpmss --mss",
	"-m tcpmss ! --mss", "-m u32 --u32", "-m u32 ! --u32",
};
#define NEXT_COUNTED (sizeof(ext_counted) / sizeof(ext_counted[0]))
_Static_assert(NEXT_COUNTED == sizeof(((struct vd *)0)->hit_ext) / sizeof(unsigned long),
	       "one hit_ext[] for each of ext_counted[]");

/* A random ruleset and maybe an edit (the regular rounds). */
static void gen_random(struct vd *v)
{
	gen_ruleset(v);
	gen_edit(v);
}

/* A random ruleset with conntrack matches, its flows, and maybe an edit among them. */
static void gen_stateful(struct vd *v)
{
	gen_ruleset(v);
	gen_ct_flows(v);
	gen_edit(v);
}

/*
 * One ruleset from @gen and v->npackets packets; the number of mismatches.
 * v->hit_rules says how many rules ip_tables counted.
 */
static unsigned int round_one(struct vd *v, unsigned int round, void (*gen)(struct vd *v))
{
	struct vd_round r = {
		.report = v->report, .round = round, .quiet = v->shown >= VD_MAX_SHOWN,
		.header = header_cb, .ctx = v, .tables = "ip_tables", .side = v->side, .hd = &v->hd,
	};
	struct buf save[2] = { { 0 }, { 0 } };
	unsigned int i;
	bool show;

	v->hit_rules = 0;
	gen(v);
	if (!vd_round_restore(&r, "iptables-legacy-restore", v->tmp, &v->rules))
		goto out;

	for (i = 0; i < v->npackets; i++) {
		enum outcome o[2];
		struct pkt p;

		if (v->edit.len && i == v->edit_at && !apply_edit(v, round)) {
			r.bad++;
			r.shown = true;
		}
		if (v->ct)
			p = v->script[i];	/* made with the ruleset: its flows */
		else
			gen_packet(v, &p);
		send_both(v, &p, o);
		/* A packet the stack refuses before any hook is not a case. */
		if (!vd_round_case(&r, i, o, v->outcomes, &show))
			continue;
		if (v->ct)
			run->ct_cases++;
		else if (v->ext)
			run->ext_cases++;
		else
			run->cases++;
		if (!show)
			continue;
		print_packet(v, &p);
		if (v->ct)
			print_flow_before(v, i);
	}

	/* Both dumps must be real ones, and the same. */
	vd_round_saves(&r, "iptables-legacy-save -c -t filter", save, &v->rules, VD_BIG_RULESET,
		       v->npackets);
	v->hit_rules = count_hit_rules(&save[0], false);
	if (v->ct) {
		v->hit_ct_rules += count_hit_rules(&save[0], true);
		v->hit_connmark[0] += vd_count_hit_with(&save[0], "-m connmark ");
		v->hit_connmark[1] += vd_count_hit_with(&save[0], "-m connmark --mark");
	}
	for (i = 0; v->ext && i < NEXT_COUNTED; i++)
		v->hit_ext[i] += vd_count_hit_with(&save[0], ext_counted[i]);
out:
	return vd_round_end(&r, save, run->verbose && v->rules.len <= VD_BIG_RULESET, &v->shown);
}

/* Large rulesets (issue 5): big enough to need folding and map lookups. */

static uint32_t ip4(uint32_t host)
{
	return htonl(host);
}

static void add_aim(struct vd *v, int path, uint8_t proto, uint32_t src, uint32_t dst, int dport)
{
	if (v->naims < VD_MAX_AIMS)
		v->aims[v->naims++] = (struct vd_aim){
			.src = src ? ip4(src) : 0, .dst = dst ? ip4(dst) : 0,
			.dport = dport, .proto = proto, .path = path,
		};
}

/* A packet from S into T (INPUT) on either veth, to one of T's addresses. */
static int in_path(unsigned int k)
{
	return k & 1 ? PATH_VD1 : PATH_VD0;
}

/* Start a large ruleset with these built-in chain policies; no aims yet. */
static void large_begin(struct vd *v, const char *in, const char *fwd, const char *out)
{
	v->rules.len = 0;
	v->naims = 0;
	bprintf(&v->rules, "*filter\n:INPUT %s [0:0]\n:FORWARD %s [0:0]\n:OUTPUT %s [0:0]\n",
		in, fwd, out);
}

/* Load an empty table with these policies on side @s: 0 or the restore's exit status. */
static int apply_policies(struct vd *v, int s, const char *in, const char *fwd, const char *out)
{
	large_begin(v, in, fwd, out);
	bprintf(&v->rules, "COMMIT\n");
	return apply(v, s, NULL);
}

/* The one iptables command applied halfway through a large ruleset's packets. */
static void large_edit(struct vd *v, const char *cmd)
{
	v->edit.len = 0;
	bprintf(&v->edit, "%s", cmd);
	v->edit_at = v->npackets / 2;
}

#define T_LOCAL		IP(10, 99, 0, 1)
#define FWD_DST		IP(172, 16, 5, 5)	/* routed out of vd1 by T */

/*
 * 100k INPUT rules: /32 source blocklist broken by a /24 ACCEPT every 997
 * rules (it shadows the /32s after it, so first match and not longest
 * prefix must win) and a udp rule every 25000; 20k OUTPUT -d rules.
 */
static void gen_large_blocklist(struct vd *v)
{
	const unsigned int n = 100000, nout = 20000;
	unsigned int i, k;

	large_begin(v, "ACCEPT", "ACCEPT", "ACCEPT");
	for (i = 0; i < n; i++) {
		uint32_t a = IP(10, 0, 0, 0) + i;

		if (i % 25000 == 24999)
			bprintf(&v->rules, "-A INPUT -p udp --dport 53 -j ACCEPT\n");
		else if (i % 997 == 0)
			bprintf(&v->rules, "-A INPUT -s " IPFMT "/24 -j ACCEPT\n", IPARG(a & ~255u));
		else
			bprintf(&v->rules, "-A INPUT -s " IPFMT " -j DROP\n", IPARG(a));
	}
	for (i = 0; i < nout; i++)
		bprintf(&v->rules, "-A OUTPUT -d " IPFMT " -j DROP\n", IPARG(IP(10, 2, 0, 0) + i));
	bprintf(&v->rules, "COMMIT\n");
	for (k = 0; k < 56; k++) {
		/* Spread over the list, the last rule, and a few just past it. */
		i = k < 48 ? rnd(&v->rng, n) : k < 52 ? n - 1 : n + k;
		add_aim(v, in_path(k), k % 3 ? 17 : 0, IP(10, 0, 0, 0) + i, T_LOCAL,
			k % 5 ? -1 : 53);
	}
	for (k = 0; k < 24; k++)
		add_aim(v, PATH_OUTPUT, 0, 0, IP(10, 2, 0, 0) + rnd(&v->rng, nout + 100), -1);
	large_edit(v, "-I INPUT 1 -s 10.0.0.7 -j ACCEPT");
}

/*
 * 30k INPUT port rules in blocks of 5000: tcp --dport, udp --dport and
 * source+udp --dport runs, broken every 4000 rules by a port range; DROP
 * policies; 5000 FORWARD tcp --dport rules.
 */
static void gen_large_portlist(struct vd *v)
{
	const unsigned int n = 30000, nfwd = 5000;
	unsigned int i, k;

	large_begin(v, "DROP", "DROP", "ACCEPT");
	for (i = 0; i < n; i++) {
		unsigned int port = 1 + (i * 7919u) % 65535;

		if (i % 4000 == 3999)
			bprintf(&v->rules, "-A INPUT -p tcp --dport %u:%u -j DROP\n", port,
				port + 500 > 65535 ? 65535 : port + 500);
		else if ((i / 5000) % 3 == 2)
			bprintf(&v->rules, "-A INPUT -s 10.%u.0.0/16 -p udp --dport %u -j ACCEPT\n",
				i % 200, port);
		else
			bprintf(&v->rules, "-A INPUT -p %s --dport %u -j ACCEPT\n",
				(i / 5000) % 3 ? "udp" : "tcp", port);
	}
	for (i = 0; i < nfwd; i++)
		bprintf(&v->rules, "-A FORWARD -p tcp --dport %u -j ACCEPT\n", 1 + i * 3);
	bprintf(&v->rules, "COMMIT\n");
	for (k = 0; k < 64; k++) {
		i = rnd(&v->rng, n);
		if ((i / 5000) % 3 == 2)
			add_aim(v, in_path(k), 17, IP(10, i % 200, k, 9), T_LOCAL,
				1 + (i * 7919u) % 65535);
		else
			add_aim(v, in_path(k), (i / 5000) % 3 ? 17 : 6, 0, T_LOCAL,
				1 + (i * 7919u) % 65535);
	}
	for (k = 0; k < 24; k++)
		add_aim(v, PATH_VD0, 6, 0, FWD_DST, 1 + rnd(&v->rng, nfwd + 10) * 3);
	large_edit(v, "-Z INPUT");
}

/*
 * A 20k-rule server ruleset with user chains: a BLOCK chain used from INPUT
 * and FORWARD (/32s with a /24 every 32, a RETURN, then -d rules), SERVICES
 * (source /24 + tcp port), UDP_IN reached by a goto, ICMP_IN; DROP policies.
 */
static void gen_large_mixed(struct vd *v)
{
	const unsigned int nblock = 12000, nsvc = 5000, nudp = 3000;
	unsigned int i, k;

	large_begin(v, "DROP", "DROP", "ACCEPT");
	bprintf(&v->rules, ":BLOCK - [0:0]\n:SERVICES - [0:0]\n:UDP_IN - [0:0]\n:ICMP_IN - [0:0]\n");
	bprintf(&v->rules, "-A INPUT -s 127.0.0.0/8 ! -i lo -j DROP\n"
		"-A INPUT -p icmp -j ICMP_IN\n-A INPUT -j BLOCK\n-A INPUT -p tcp -j SERVICES\n"
		"-A INPUT -p udp -g UDP_IN\n-A INPUT -s 10.200.0.0/16 -j ACCEPT\n"
		"-A FORWARD -i vd0 -j BLOCK\n-A FORWARD -p tcp -j SERVICES\n"
		"-A FORWARD -o vd1 -p udp -j ACCEPT\n"
		"-A ICMP_IN -p icmp --icmp-type echo-request -j ACCEPT\n"
		"-A ICMP_IN -p icmp --icmp-type 3 -j ACCEPT\n"
		"-A ICMP_IN -p icmp --icmp-type 11/0 -j ACCEPT\n-A ICMP_IN -j RETURN\n");
	for (i = 0; i < nblock; i++) {
		uint32_t a = IP(10, 3, 0, 0) + i * 3;

		if (i % 32 == 31)
			bprintf(&v->rules, "-A BLOCK -s " IPFMT "/24 -j DROP\n", IPARG(a & ~255u));
		else
			bprintf(&v->rules, "-A BLOCK -s " IPFMT " -j DROP\n", IPARG(a));
		if (i == nblock / 2)
			bprintf(&v->rules, "-A BLOCK -s 10.3.64.0/18 -j RETURN\n");
	}
	for (i = 0; i < 100; i++)
		bprintf(&v->rules, "-A BLOCK -d 172.16.5.%u -j DROP\n", 10 + i);
	for (i = 0; i < nsvc; i++)
		bprintf(&v->rules, "-A SERVICES -s 192.168.%u.0/24 -p tcp --dport %u -j ACCEPT\n",
			i % 250, 1000 + i);
	for (i = 0; i < nudp; i++)
		bprintf(&v->rules, "-A UDP_IN -s 198.18.%u.%u -p udp --dport %u -j ACCEPT\n",
			i / 250, i % 250, 2000 + i % 700);
	bprintf(&v->rules, "COMMIT\n");
	for (k = 0; k < 32; k++) {
		i = rnd(&v->rng, nblock + 50);
		add_aim(v, k % 4 ? in_path(k) : PATH_VD0, 0, IP(10, 3, 0, 0) + i * 3,
			k % 4 ? T_LOCAL : FWD_DST, -1);
	}
	for (k = 0; k < 32; k++) {
		i = rnd(&v->rng, nsvc + 20);
		add_aim(v, k % 4 ? in_path(k) : PATH_VD0, 6, IP(192, 168, i % 250, 7),
			k % 4 ? T_LOCAL : FWD_DST, 1000 + i);
	}
	for (k = 0; k < 24; k++) {
		i = rnd(&v->rng, nudp + 20);
		add_aim(v, in_path(k), 17, IP(198, 18, i / 250, i % 250), T_LOCAL, 2000 + i % 700);
	}
	for (k = 0; k < 8; k++)
		add_aim(v, in_path(k), 1, 0, T_LOCAL, -1);
	large_edit(v, "-D BLOCK 1");
}

/*
 * 30k INPUT rules that fold into nothing (source, destination and
 * interface rules alternate, every run has length 1): the chain is cut into
 * several programs chained by tail calls.
 */
static void gen_large_unfoldable(struct vd *v)
{
	const unsigned int n = 30000;
	unsigned int i, k;

	large_begin(v, "ACCEPT", "ACCEPT", "ACCEPT");
	for (i = 0; i < n; i++) {
		uint32_t a = IP(10, 4, 0, 0) + i;

		switch (i % 3) {
		case 0:
			bprintf(&v->rules, "-A INPUT -s " IPFMT " -j DROP\n", IPARG(a));
			break;
		case 1:
			bprintf(&v->rules, "-A INPUT -s " IPFMT " -p udp -j ACCEPT\n", IPARG(a));
			break;
		default:
			bprintf(&v->rules, "-A INPUT -s " IPFMT " -i vd%u -j DROP\n", IPARG(a),
				i % 2);
		}
	}
	bprintf(&v->rules, "COMMIT\n");
	for (k = 0; k < 64; k++)
		add_aim(v, in_path(k), k % 2 ? 17 : 0, IP(10, 4, 0, 0) + rnd(&v->rng, n + 20),
			T_LOCAL, -1);
	large_edit(v, "-R INPUT 2 -s 10.4.0.1 -p tcp -j DROP");
}

FIXTURE(vd) {
	struct vd v;
};

FIXTURE_SETUP(vd)
{
	ASSERT_EQ(0, setup(&self->v, false)) TH_LOG("setup failed (namespaces, sockets or hostd)");
}

FIXTURE_TEARDOWN(vd)
{
	teardown(&self->v);
}

/*
 * The comparison itself must be able to fail: a DROP policy on one side
 * only must show up as different outcomes and different counters.
 */
TEST_F(vd, detects_a_difference)
{
	static const char *const paths[] = { "OUTPUT", "INPUT" };
	struct vd *v = &self->v;
	enum outcome o[2];
	struct pkt p;
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, apply_policies(v, SIDE_H, "ACCEPT", "ACCEPT", "ACCEPT"));
		ASSERT_EQ(0, apply_policies(v, SIDE_K, i ? "DROP" : "ACCEPT", "ACCEPT",
					    i ? "ACCEPT" : "DROP"));
		do
			gen_packet(v, &p);
		while (p.d[0] != 0x45 || p.d[6] || p.d[7]);
		p.path = i ? PATH_VD0 : PATH_OUTPUT;
		inet_pton(AF_INET, "10.99.0.1", p.d + 16);	/* local to T */
		send_both(v, &p, o);
		EXPECT_EQ(OUT_DROPPED, o[SIDE_K]) TH_LOG("%s", paths[i]);
		EXPECT_EQ(i ? OUT_LOCAL : OUT_SENT, o[SIDE_H]) TH_LOG("%s", paths[i]);
	}
	/* And the other way round: bpfilter's drop is seen too. */
	ASSERT_EQ(0, apply_policies(v, SIDE_H, "ACCEPT", "DROP", "ACCEPT"));
	ASSERT_EQ(0, apply_policies(v, SIDE_K, "ACCEPT", "ACCEPT", "ACCEPT"));
	do
		gen_packet(v, &p);
	while (p.d[0] != 0x45 || p.d[6] || p.d[7]);
	p.path = PATH_VD0;
	inet_pton(AF_INET, "172.16.5.5", p.d + 16);	/* forwarded out vd1 */
	inet_pton(AF_INET, "10.200.0.2", p.d + 12);
	send_both(v, &p, o);
	EXPECT_EQ(OUT_FORWARDED, o[SIDE_K]);
	EXPECT_EQ(OUT_DROPPED, o[SIDE_H]);
}

/*
 * The rounds of a random test: rulesets from @gen with @per_ruleset packets
 * (at most) until @want cases, counted in *cases and *mismatches by
 * round_one(); then every kind of outcome must have occurred. @tag begins
 * its lines. Returns the number of rulesets.
 */
static unsigned int random_rounds(struct __test_metadata *_metadata, struct vd *v,
				  const char *tag, void (*gen)(struct vd *v), unsigned long want,
				  unsigned int per_ruleset, unsigned long *cases,
				  unsigned long *mismatches)
{
	unsigned long max_rounds;
	unsigned int round = 0;

	/* Bounded even if most packets were refused before any hook. */
	max_rounds = 4 * want / per_ruleset + 10;
	v->npackets = per_ruleset;
	while (*cases < want && round < max_rounds) {
		*mismatches += round_one(v, ++round, gen);
		if (run->verbose || !(round % 16))
			printf("# %s%u rulesets, %lu cases, %lu mismatches\n", tag, round, *cases,
			       *mismatches);
	}
	vd_print_outcomes(tag, "ip_tables", v->outcomes);
	/* A run without every kind of outcome proves less than it claims. */
	EXPECT_TRUE(vd_every_outcome(v->outcomes));
	EXPECT_EQ(0, *mismatches);
	EXPECT_LE(want, *cases);
	return round;
}

/* Large for --soak runs; the suite bounds the default run itself. */
TEST_F_TIMEOUT(vd, random_rulesets, 86400)
{
	struct vd *v = &self->v;

	v->report = vd_open_report(VD_MISMATCH_FILE, "w", "verdict-diff", run->seed, rerun);
	TH_LOG("seed %lu, %lu cases wanted, %u packets per ruleset", run->seed, run->want_cases,
	       run->per_ruleset);
	random_rounds(_metadata, v, "", gen_random, run->want_cases, run->per_ruleset,
		      &run->cases, &run->mismatches);
}

/*
 * Large rulesets through both: folded runs must keep ip_tables' first-match
 * verdicts and every one of their per-rule counters, an edit on a large
 * table included.
 */
TEST_F_TIMEOUT(vd, large_rulesets, 3600)
{
	static void (*const gens[])(struct vd *v) = {
		gen_large_blocklist, gen_large_portlist, gen_large_mixed, gen_large_unfoldable,
	};
	static const char *const names[] = {
		"100k blocklist", "30k port list", "20k mixed", "30k unfoldable",
	};
	struct vd *v = &self->v;
	unsigned long cases, bad;
	unsigned int i;

	v->report = fopen(VD_MISMATCH_FILE, "a");
	v->npackets = 400;
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		cases = run->cases;
		bad = round_one(v, 100000 + i, gens[i]);
		run->mismatches += bad;
		printf("# large ruleset %s: %lu cases, %lu mismatches, %u rules counted\n",
		       names[i], run->cases - cases, bad, v->hit_rules);
		EXPECT_EQ(0, bad) TH_LOG("%s", names[i]);
		/* Packets must mostly be cases, and reach many rules, or this proves little. */
		EXPECT_LE(cases + v->npackets / 2, run->cases) TH_LOG("%s", names[i]);
		EXPECT_LE(20, v->hit_rules) TH_LOG("%s", names[i]);
	}
}

/*
 * Edit sequences (issue 30): a random ruleset, then steps of the edits that
 * move rules and counters around, each followed by packets and a
 * comparison of both sides' -c dumps: rules inserted and deleted at the
 * top, middle and end; chains added with a jump, removed, renamed (a
 * rename moves the chain, and every rule after it, in the blob) and
 * emptied; a chain of -d rules that grows past the fold threshold and
 * shrinks below it, and kube-proxy's partial sync of a chain of jumps
 * that grows past and shrinks below the threshold of folded jump runs
 * (iptables-restore --noflush, as kube-proxy writes it); -Z and -P.
 * Every edit goes through stock iptables-legacy or iptables-legacy-restore
 * on both sides, and its exit status must be the same.
 */
enum seq_kind {
	SEQ_INSERT_TOP, SEQ_INSERT_MID, SEQ_APPEND, SEQ_DELETE, SEQ_NEW_CHAIN, SEQ_DEL_CHAIN,
	SEQ_RENAME, SEQ_FLUSH, SEQ_FOLD_RUN, SEQ_JUMP_RUN, SEQ_ZERO, SEQ_POLICY, SEQ_KINDS
};

static const char *const seq_kind_names[SEQ_KINDS] = {
	"insert at the top", "insert in the middle", "append", "delete", "new chain",
	"chain removed", "chain renamed", "chain emptied", "fold run resized",
	"jump run (partial sync)", "-Z", "-P",
};

#define SEQ_STEPS	8	/* edits of a sequence */
#define SEQ_PACKETS	24	/* packets after each */
#define SEQ_FOLD_BASE	IP(10, 200, 7, 0)	/* the fold run's -d addresses */
#define SEQ_SVC_DST	IP(172, 16, 9, 9)	/* the jump run's -d, a port per rule */
#define SEQ_SVC_PORT	2000

/* What a sequence has made so far. */
struct seq_state {
	unsigned int nnew;		/* chains e0, e1... made (some removed) */
	bool live[8];			/* ... which of them exist, jumped to from INPUT */
	bool renamed;			/* c0 is now c0x */
	bool fold, jump;		/* chain fr (OUTPUT), ks (FORWARD, INPUT) exist */
	unsigned int arg;		/* the new or removed chain of the step being made */
	unsigned long ok[SEQ_KINDS];	/* edits of each kind both sides took */
	unsigned long hit_fold, hit_jump;	/* their rules with counts, after each step */
};

/* A rule for @chain (user chain @c or -1) as gen_rule() makes it, without "-A NAME". */
static void seq_rule(struct vd *v, struct buf *out, int c, char hook, const char *name)
{
	struct buf rules = v->rules;

	v->rules = (struct buf){ 0 };
	gen_rule(v, c, hook, name);
	/* "-A NAME rest\n" -> "rest" */
	v->rules.p[--v->rules.len] = '\0';
	bprintf(out, "%s", v->rules.p + 3 + strlen(name));
	free(v->rules.p);
	v->rules = rules;
}

/*
 * The next step: a shell command for both sides (stock iptables-legacy or
 * -restore of v->tmp's file, written here) into @cmd; its kind.
 */
static enum seq_kind seq_edit(struct vd *v, struct seq_state *st, struct buf *cmd)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	enum seq_kind kind = rnd(&v->rng, SEQ_KINDS);
	unsigned int b = rnd(&v->rng, 3), n, i, k;
	struct buf in = { 0 };
	char name[16];
	int c = -1;
	FILE *f;

	cmd->len = 0;
	/* A user chain of the ruleset sometimes, with the hooks that reach it. */
	if (v->nchains && rnd(&v->rng, 2)) {
		c = rnd(&v->rng, v->nchains);
		snprintf(name, sizeof(name), "c%d%s", c, st->renamed && !c ? "x" : "");
	} else {
		snprintf(name, sizeof(name), "%s", builtin[b]);
	}
	switch (kind) {
	case SEQ_INSERT_TOP:
	case SEQ_INSERT_MID:
	case SEQ_APPEND:
		bprintf(cmd, "iptables-legacy -w %s %s%s ", kind == SEQ_APPEND ? "-A" : "-I", name,
			kind == SEQ_INSERT_TOP ? " 1" : kind == SEQ_INSERT_MID ? " 2" : "");
		seq_rule(v, cmd, c, c < 0 ? builtin[b][0] : 'U', name);
		break;
	case SEQ_DELETE:
		/* The first, the second, or past the end: then both refuse it. */
		bprintf(cmd, "iptables-legacy -w -D %s %u", name, 1 + rnd(&v->rng, 3));
		break;
	case SEQ_NEW_CHAIN:
	case SEQ_DEL_CHAIN:
		/* One or the other: removed if one is there, two times in three. */
		for (k = 0; k < st->nnew && !st->live[k]; k++)
			;
		kind = k < st->nnew && (st->nnew == 8 || rnd(&v->rng, 3)) ? SEQ_DEL_CHAIN :
									     SEQ_NEW_CHAIN;
		if (kind == SEQ_DEL_CHAIN) {
			bprintf(&in, "*filter\n-D INPUT -j e%u\n-F e%u\n-X e%u\nCOMMIT\n", k, k,
				k);
			st->arg = k;
			break;
		}
		if (st->nnew == 8)
			return seq_edit(v, st, cmd);
		k = st->arg = st->nnew++;
		bprintf(&in, "*filter\n:e%u - [0:0]\n", k);
		for (n = 1 + rnd(&v->rng, 3), i = 0; i < n; i++) {
			bprintf(&in, "-A e%u ", k);
			snprintf(name, sizeof(name), "e%u", k);
			seq_rule(v, &in, -1, 'I', name);
			bprintf(&in, "\n");
		}
		bprintf(&in, "-I INPUT %u -j e%u\nCOMMIT\n", rnd(&v->rng, 2) ? 1 : 2, k);
		break;
	case SEQ_RENAME:
		if (!v->nchains)
			return seq_edit(v, st, cmd);
		bprintf(cmd, "iptables-legacy -w -E %s %s", st->renamed ? "c0x" : "c0",
			st->renamed ? "c0" : "c0x");
		break;
	case SEQ_FLUSH:
		bprintf(cmd, "iptables-legacy -w -F %s", name);
		break;
	case SEQ_FOLD_RUN:
		/* 2 to 7 rules: below and past CG_FOLD_MIN (4); one address in four a gap. */
		bprintf(&in, "*filter\n:fr - [0:0]\n");
		for (n = 2 + rnd(&v->rng, 6), i = 0; i < n; i++)
			bprintf(&in, "-A fr -d " IPFMT "/32 -j %s\n",
				IPARG(SEQ_FOLD_BASE + 4 * i + rnd(&v->rng, 3)),
				rnd(&v->rng, 3) ? "DROP" : "ACCEPT");
		if (!st->fold)
			bprintf(&in, "-I OUTPUT 1 -j fr\n");
		bprintf(&in, "COMMIT\n");
		break;
	case SEQ_JUMP_RUN:
		/*
		 * kube-proxy's partial sync: ks declared (flushed) and written
		 * whole, 60 to 68 services around CG_FOLD_JUMP_MIN (64), each
		 * jumping to one of eight service chains, written again too.
		 */
		bprintf(&in, "*filter\n:ks - [0:0]\n");
		for (k = 0; k < 8; k++)
			bprintf(&in, ":ks%u - [0:0]\n", k);
		/* Services on a forwarded address and on one of T's (INPUT). */
		for (n = 60 + rnd(&v->rng, 9), i = 0; i < n; i++)
			bprintf(&in, "-A ks -d " IPFMT "/32 -p %s -m %s --dport %u -j ks%u\n",
				IPARG(i % 2 ? SEQ_SVC_DST : T_LOCAL), i % 10 == 9 ? "udp" : "tcp",
				i % 10 == 9 ? "udp" : "tcp", SEQ_SVC_PORT + i / 2, i % 8);
		for (k = 0; k < 8; k++) {
			/* Accept some sources; the others return, on to FORWARD's rules. */
			bprintf(&in, "-A ks%u -s 10.99.0.%u/31 -j ACCEPT\n", k, 2 * k);
			if (k % 3 == 2)
				bprintf(&in, "-A ks%u -j DROP\n", k);
		}
		/* Reached from two hooks: a chain that returns goes on in each its own way. */
		if (!st->jump)
			bprintf(&in, "-I FORWARD 1 -j ks\n-I INPUT %u -j ks\n",
				rnd(&v->rng, 2) ? 1 : 2);
		bprintf(&in, "COMMIT\n");
		break;
	case SEQ_ZERO:
		bprintf(cmd, "iptables-legacy -w -Z");
		if (rnd(&v->rng, 2))
			bprintf(cmd, " %s", name);
		break;
	case SEQ_POLICY:
		bprintf(cmd, "iptables-legacy -w -P %s %s", builtin[b],
			rnd(&v->rng, 2) ? "ACCEPT" : "DROP");
		break;
	case SEQ_KINDS:
		break;
	}
	if (in.len) {
		f = fopen(v->tmp, "w");
		if (f) {
			fwrite(in.p, 1, in.len, f);
			fclose(f);
		}
		bprintf(cmd, "iptables-legacy-restore -w --noflush < %s", v->tmp);
		/* The report shows the input, a line each. */
		for (i = 0; i < in.len; i++)
			if (in.p[i] == '\n' && i + 1 < in.len)
				in.p[i] = '|';
	}
	bprintf(&v->edit, "#     %s%s%.*s\n", cmd->p, in.len ? ": " : "", (int)in.len, in.p);
	free(in.p);
	return kind;
}

/* What step @kind, which both sides took, made of the ruleset. */
static void seq_took(struct seq_state *st, enum seq_kind kind)
{
	st->ok[kind]++;
	if (kind == SEQ_NEW_CHAIN || kind == SEQ_DEL_CHAIN)
		st->live[st->arg] = kind == SEQ_NEW_CHAIN;
	else if (kind == SEQ_RENAME)
		st->renamed = !st->renamed;
	else if (kind == SEQ_FOLD_RUN)
		st->fold = true;
	else if (kind == SEQ_JUMP_RUN)
		st->jump = true;
}

/* Aims for the chains a sequence may make: packets that hit their rules. */
static void seq_aims(struct vd *v)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		add_aim(v, PATH_OUTPUT, i % 2 ? 17 : 0, 0, SEQ_FOLD_BASE + 2 * i, -1);
	for (i = 0; i < 48; i++)
		add_aim(v, in_path(i), i % 10 == 9 ? 17 : 6, i < 24 ? IP(10, 99, 0, i % 16) : 0,
			i % 4 < 2 ? SEQ_SVC_DST : T_LOCAL, SEQ_SVC_PORT + rnd(&v->rng, 36));
}

/* One ruleset and a sequence of edits: the number of mismatches. */
static unsigned int round_sequence(struct vd *v, unsigned int round, struct seq_state *st)
{
	struct vd_round r = {
		.report = v->report, .round = round, .quiet = v->shown >= VD_MAX_SHOWN,
		.header = header_cb, .ctx = v, .tables = "ip_tables", .side = v->side, .hd = &v->hd,
	};
	struct buf save[2] = { { 0 }, { 0 } }, out[2] = { { 0 }, { 0 } }, cmd = { 0 };
	unsigned int step, i;
	enum seq_kind kind;
	int rc[2], s;
	bool show;

	memset(st->live, 0, sizeof(st->live));
	st->nnew = 0;
	st->renamed = st->fold = st->jump = false;
	v->edit.len = 0;
	bprintf(&v->edit, "%s", "");
	gen_ruleset(v);
	seq_aims(v);
	if (!vd_round_restore(&r, "iptables-legacy-restore", v->tmp, &v->rules))
		goto out;
	for (step = 0; step < SEQ_STEPS; step++) {
		kind = seq_edit(v, st, &cmd);
		for (s = 0; s < 2; s++) {
			out[s].len = 0;
			rc[s] = run_in(v, s, cmd.p, &out[s]);
		}
		if (rc[0] != rc[1] && vd_round_mismatch(&r))
			vd_report_exits(v->report, round, "a step", rc, out);
		if (!rc[0] && !rc[1])
			seq_took(st, kind);
		for (i = 0; i < SEQ_PACKETS; i++) {
			enum outcome o[2];
			struct pkt p;

			gen_packet(v, &p);
			send_both(v, &p, o);
			if (!vd_round_case(&r, i, o, v->outcomes, &show))
				continue;
			run->cases++;
			if (show)
				print_packet(v, &p);
		}
		/* After every step: the same rules, the same counters. */
		vd_round_saves(&r, "iptables-legacy-save -c -t filter", save, &v->rules,
			       VD_BIG_RULESET, SEQ_PACKETS);
		v->hit_rules = count_hit_rules(&save[0], false);
		st->hit_fold += vd_count_hit_with(&save[0], "-A fr ");
		st->hit_jump += vd_count_hit_with(&save[0], "-A ks -d");
		if (step + 1 < SEQ_STEPS) {
			free(save[0].p);
			free(save[1].p);
			save[0] = save[1] = (struct buf){ 0 };
		}
	}
out:
	free(out[0].p);
	free(out[1].p);
	free(cmd.p);
	return vd_round_end(&r, save, run->verbose && v->rules.len <= VD_BIG_RULESET, &v->shown);
}

TEST_F_TIMEOUT(vd, edit_sequences, 3600)
{
	struct vd *v = &self->v;
	struct seq_state st = {};
	unsigned long bad = 0, cases = run->cases;
	unsigned int round, k;

	v->report = fopen(VD_MISMATCH_FILE, "a");
	/* Its own point of the seed's stream: the other tests' rulesets stay theirs. */
	v->rng.s = run->seed * 0x9E3779B97F4A7C15ull + 0x5e9;
	v->seq = true;
	v->npackets = SEQ_PACKETS;
	for (round = 1; round <= run->sequences; round++) {
		bad += round_sequence(v, 200000 + round, &st);
		if (run->verbose || !(round % 8))
			printf("# edit sequences: %u, %lu cases, %lu mismatches\n", round,
			       run->cases - cases, bad);
	}
	v->seq = false;
	run->mismatches += bad;
	for (k = 0; k < SEQ_KINDS; k++)
		printf("# edit sequences: %-24s %lu taken by both\n", seq_kind_names[k], st.ok[k]);
	EXPECT_EQ(0, bad);
	/* Each kind of edit must have happened, or this proves less than it claims. */
	for (k = 0; k < SEQ_KINDS; k++) {
		EXPECT_LT(0, st.ok[k]) TH_LOG("no edit of kind %u (%s) taken", k,
					      seq_kind_names[k] ?: "?");
	}
	EXPECT_LE(run->sequences * SEQ_STEPS * SEQ_PACKETS / 2, run->cases - cases);
	/* And packets must have been judged by the runs. */
	printf("# edit sequences: fold run rules counting %lu, jump run rules %lu (sum of steps)\n",
	       st.hit_fold, st.hit_jump);
	EXPECT_LT(0, st.hit_fold);
	EXPECT_LT(0, st.hit_jump);
}

/* random_ext_rulesets' generator starts from its own point of the seed's stream. */
static uint64_t ext_seed(void)
{
	return run->seed * 0x9E3779B97F4A7C15ull + 0xe47;
}

/*
 * random_rulesets with the extension matches and protocols (the top of this
 * file says which); its cases and mismatches are counted on their own.
 */
TEST_F_TIMEOUT(vd, random_ext_rulesets, 86400)
{
	struct vd *v = &self->v;
	unsigned int i;

	char rerun_ext[160];

	snprintf(rerun_ext, sizeof(rerun_ext), "%s; its rulesets: --dump-ext N", rerun);
	v->report = vd_open_report(VD_MISMATCH_FILE, "a", "random_ext_rulesets", run->seed,
				   rerun_ext);
	ASSERT_EQ(0, setup_ext(v)) TH_LOG("setup failed (groups, realms or packet sockets)");
	v->ext = true;
	v->rng.s = ext_seed();
	run->ext_ran = true;
	TH_LOG("seed %lu, %lu cases wanted, %u packets per ruleset", run->seed,
	       run->ext_want_cases, run->ext_per_ruleset);
	random_rounds(_metadata, v, "ext: ", gen_random, run->ext_want_cases,
		      run->ext_per_ruleset, &run->ext_cases, &run->ext_mismatches);
	EXPECT_LE(VD_EXT_MIN_CASES, run->ext_cases);
	printf("# ext: rules that counted packets (ip_tables):");
	for (i = 0; i < NEXT_COUNTED; i++)
		printf("%s \"%s\" %lu", i ? "," : "", ext_counted[i], v->hit_ext[i]);
	printf("\n");
	/*
	 * Broadcasts and multicasts that never arrive, groups, realms or MACs
	 * never seen, prove less. Broadcast and multicast rules count few
	 * packets, hit or miss: the two together.
	 */
	for (i = 0; i < NEXT_COUNTED; i++) {
		if (!v->hit_ext[i])
			printf("# ext: no packets counted by \"%s\" rules\n", ext_counted[i]);
		if (i != 1 && i != 2)
			EXPECT_NE(0, v->hit_ext[i]);
	}
	EXPECT_NE(0, v->hit_ext[1] + v->hit_ext[2]);
}

/* random_stateful_rulesets' own fixture: conntrack on in both T (setup_ct()), hostd -C. */
FIXTURE(vd_ct) {
	struct vd v;
};

FIXTURE_SETUP(vd_ct)
{
	ASSERT_EQ(0, setup(&self->v, true))
		TH_LOG("setup failed (namespaces, nftables, sockets or hostd)");
}

FIXTURE_TEARDOWN(vd_ct)
{
	teardown(&self->v);
}

/*
 * random_rulesets with conntrack and state matches and flows instead of
 * single packets (the top of this file says which); counted on its own.
 */
TEST_F_TIMEOUT(vd_ct, random_stateful_rulesets, 86400)
{
	struct vd *v = &self->v;
	unsigned long counts[NCOUNTED] = { 0 };
	unsigned int rounds, k;

	v->report = vd_open_report(VD_MISMATCH_FILE, "a", "random_stateful_rulesets", run->seed,
				   rerun);
	v->ct = true;
	/* Its own point of the seed's stream, as random_ext_rulesets has. */
	v->rng.s = run->seed * 0x9E3779B97F4A7C15ull + 0xc7;
	run->ct_ran = true;
	TH_LOG("seed %lu, %lu cases wanted, up to %u packets per ruleset%s", run->seed,
	       run->ct_want_cases, run->ct_per_ruleset,
	       v->hz ? "" : " (the kernel's HZ is unknown: no --ctexpire)");
	rounds = random_rounds(_metadata, v, "ct: ", gen_stateful, run->ct_want_cases,
			       run->ct_per_ruleset, &run->ct_cases, &run->ct_mismatches);
	ct_counts(v, SIDE_K, counts);
	printf("# ct: packets on ip_tables' side by conntrack");
	for (k = 0; k < NCOUNTED; k++)
		printf("%s %s %lu", k ? "," : ":", ct_counted[k], counts[k]);
	printf("; %lu rules with conntrack or state matches counted packets, %lu with connmark "
	       "(%lu not inverted)\n", v->hit_ct_rules, v->hit_connmark[0], v->hit_connmark[1]);
	/*
	 * Flows that never reach some state or NAT, or rulesets whose conntrack
	 * matches hardly ever hold, prove less than they claim.
	 */
	for (k = 0; k < NCOUNTED; k++)
		EXPECT_NE(0, counts[k]) TH_LOG("no packets with ct %s", ct_counted[k]);
	EXPECT_LE(rounds, v->hit_ct_rules);
	EXPECT_NE(0, v->hit_connmark[1]) TH_LOG("no packets counted by -m connmark --mark rules");
	EXPECT_LE(VD_CT_MIN_CASES, run->ct_cases);
}

/*
 * --dump-ext N: random_ext_rulesets' first N rulesets as iptables-restore
 * input, each with its edit and packets as comments; nothing is run. As long
 * as every ruleset loads, these are exactly the test's.
 */
static int dump_ext(unsigned long n)
{
	struct vd *v = calloc(1, sizeof(*v));
	unsigned int r, i;
	struct pkt p;

	if (!v)
		return 1;
	v->ext = true;
	v->rng.s = ext_seed();
	v->npackets = run->ext_per_ruleset;
	for (r = 1; r <= n; r++) {
		gen_random(v);
		printf("# random_ext_rulesets ruleset %u\n%.*s", r, (int)v->rules.len, v->rules.p);
		if (v->edit.len)
			printf("# edit before packet %u: iptables-legacy %s\n", v->edit_at,
			       v->edit.p);
		for (i = 0; i < v->npackets; i++) {
			gen_packet(v, &p);
			print_packet(v, &p);
		}
	}
	free(v->rules.p);
	free(v->edit.p);
	free(v);
	return 0;
}

/*
 * The harness exit()s with its own status; the summary lines must come after
 * its totals, and a run that is too short fails even if its tests passed.
 */
static void print_summary(void)
{
	if (getpid() != run->main_pid)
		return;
	if (run->ext_ran)
		printf("verdict-diff-ext: %lu cases, %lu mismatches\n", run->ext_cases,
		       run->ext_mismatches);
	if (run->ct_ran)
		printf("verdict-diff-ct: %lu cases, %lu mismatches\n", run->ct_cases,
		       run->ct_mismatches);
	printf("verdict-diff: %lu cases, %lu mismatches\n", run->cases, run->mismatches);
	fflush(stdout);
	if (run->mismatches || run->cases < VD_MIN_CASES)
		_exit(1);
	if (run->ext_ran && (run->ext_mismatches || run->ext_cases < VD_EXT_MIN_CASES))
		_exit(1);
	if (run->ct_ran && (run->ct_mismatches || run->ct_cases < VD_CT_MIN_CASES))
		_exit(1);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "soak", no_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'n' },
		{ "ext-cases", required_argument, NULL, 'e' },
		{ "ct-cases", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dump-ext", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long dump = 0;
	int opt;

	/* Shared: the harness runs each test in a child. */
	run = vd_shared(sizeof(*run));
	if (!run)
		return 1;
	run->seed = vd_env_ul("VERDICT_DIFF_SEED", 1);
	run->want_cases = vd_env_ul("VERDICT_DIFF_CASES", VD_DEFAULT_CASES);
	run->sequences = vd_env_ul("VERDICT_DIFF_SEQS", VD_DEFAULT_SEQS);
	run->ext_want_cases = vd_env_ul("VERDICT_DIFF_EXT_CASES", VD_EXT_DEFAULT_CASES);
	run->ct_want_cases = vd_env_ul("VERDICT_DIFF_CT_CASES", VD_CT_DEFAULT_CASES);
	run->per_ruleset = 20;
	/* Rules with extension matches are reached less often: more packets each. */
	run->ext_per_ruleset = 40;
	/* Flows of a few packets each: a ruleset sees about ten of them. */
	run->ct_per_ruleset = 40;
	while ((opt = getopt_long(argc, argv, "s:n:e:c:p:v", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			run->want_cases = VD_SOAK_CASES;
			run->ext_want_cases = VD_SOAK_CASES;
			run->ct_want_cases = VD_SOAK_CASES;
			break;
		case 's':
			run->seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			run->want_cases = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			run->ext_want_cases = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			run->ct_want_cases = strtoul(optarg, NULL, 0);
			break;
		case 'D':
			dump = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			run->per_ruleset = strtoul(optarg, NULL, 0) ?: 1;
			run->ext_per_ruleset = run->per_ruleset;
			run->ct_per_ruleset = run->per_ruleset < VD_CT_MAX_PKTS ?
					      run->per_ruleset : VD_CT_MAX_PKTS;
			break;
		case 'v':
			run->verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n cases] [-e ext-cases] [-c ct-cases] "
				"[-p packets-per-ruleset] [--soak] [-v] [--dump-ext N]\n", argv[0]);
			return 2;
		}
	}
	if (dump)
		return dump_ext(dump);
	run->main_pid = getpid();
	if (vd_start(print_summary))
		return 1;
	printf("# verdict-diff: seed %lu, %lu cases, %lu ext cases, %lu ct cases "
	       "(VERDICT_DIFF_SEED, VERDICT_DIFF_CASES, VERDICT_DIFF_EXT_CASES, "
	       "VERDICT_DIFF_CT_CASES)\n", run->seed, run->want_cases, run->ext_want_cases,
	       run->ct_want_cases);
	/* It exits: print_summary() has the last word. */
	return test_harness_run(1, argv);
}
