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
 * Usage: test_verdict_diff [-s seed] [-n cases] [-p packets-per-ruleset]
 *        [--soak] [-v]; env VERDICT_DIFF_SEED, VERDICT_DIFF_CASES.
 * A mismatch is printed (and appended to /tmp/verdict-mismatches.txt) as the
 * iptables commands and the packet that reproduce it. The last line is
 * "verdict-diff: N cases, M mismatches"; the exit status is 0 only if M is
 * 0 and N >= 1000.
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
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "hostd.h"
#include "mbox_driver.h"

#define VD_MIN_CASES		1000
#define VD_DEFAULT_CASES	3000
#define VD_SOAK_CASES		100000
#define VD_MISMATCH_FILE	"/tmp/verdict-mismatches.txt"
#define VD_MAX_SHOWN		20	/* mismatches printed in full */

/* The run's parameters and results; shared with the harness' test child. */
struct vd_run {
	unsigned long seed;
	unsigned long want_cases;
	unsigned int per_ruleset;
	bool verbose;
	unsigned long cases, mismatches;
	pid_t main_pid;
};

static struct vd_run *run;

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return n ? (uint32_t)((r->s * 0x2545F4914F6CDD1Dull) >> 32) % n : 0;
}

/* A growing text buffer. */
struct buf {
	char *p;
	size_t len, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		b->cap = b->cap ? b->cap * 2 + n : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
}

enum { SIDE_K, SIDE_H };
enum path { PATH_OUTPUT, PATH_VD0, PATH_VD1 };	/* sent by T, or by S over vd0p/vd1p */
enum outcome { OUT_DROPPED, OUT_SENT, OUT_LOCAL, OUT_FORWARDED, OUT_ERROR };

static const char *const outcome_name[] = {
	"dropped", "sent (OUTPUT accepted)", "delivered locally", "forwarded", "send error",
};

/* Protocols T has raw observer sockets for (no ICMP protocol-unreachable). */
static const uint8_t observed_protos[] = { 1, 6, 17, 200 };
#define NOBS (sizeof(observed_protos) / sizeof(observed_protos[0]))

struct side {
	char t[32], s[32];		/* namespace names */
	int out_sk;			/* IPPROTO_RAW in T */
	int in_sk[2];			/* IPPROTO_RAW in S bound to vd0p, vd1p */
	int obs_local[NOBS];		/* raw sockets in T: delivered locally */
	int obs_fwd;			/* packet socket in S: forwarded by T */
};

/*
 * A packet shape aimed at one rule of a large ruleset, so that its packets
 * hit rules deep in folded runs instead of only the policy.
 */
struct vd_aim {
	uint32_t src, dst;	/* network order; 0: as generated */
	int dport;		/* -1: as generated */
	uint8_t proto;		/* 0: as generated */
	int path;		/* enum path; -1: as generated */
};

#define VD_MAX_AIMS	96
#define VD_BIG_RULESET	(64 * 1024)	/* bytes of restore input printed in full */

struct vd {
	struct rng rng;
	struct side side[2];
	struct hostd hostd;
	char sock[108];
	char shim[PATH_MAX];
	char helper[PATH_MAX];
	char tmp[64];			/* ruleset file */
	struct buf rules;		/* iptables-restore input of the current ruleset */
	struct buf edit;		/* iptables command applied mid-ruleset, or empty */
	unsigned int edit_at;		/* ... before this packet */
	unsigned int nchains;
	uint16_t ports[16];		/* ports the ruleset mentions */
	unsigned int nports;
	uint16_t ip_id;			/* unique id of each packet, never 0 */
	unsigned int npackets;		/* packets of the current ruleset */
	struct vd_aim aims[VD_MAX_AIMS];	/* large rulesets only */
	unsigned int naims;
	unsigned int hit_rules;		/* rules ip_tables counted, last ruleset */
	unsigned long outcomes[5];	/* ip_tables side */
	unsigned long shown;
	int log_fd;			/* helper's stderr */
	FILE *report;			/* VD_MISMATCH_FILE */
};

/* T's local addresses are 10.99.0.254, 10.200.0.254, 10.99.0.1, 10.200.1.1, 192.168.1.1. */
static const char *const addrs[] = {
	"10.200.0.1", "10.200.0.2", "10.200.1.1", "10.200.1.77", "10.99.0.1", "10.99.0.2",
	"10.99.3.4", "192.168.1.1", "192.168.1.2", "172.16.5.5",
};
#define NADDRS (sizeof(addrs) / sizeof(addrs[0]))

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
	if (v->nports < 16)
		v->ports[v->nports++] = p;
	return p;
}

static void gen_ports(struct vd *v, const char *opt)
{
	uint16_t a = pick_port(v), b;

	switch (rnd(&v->rng, 3)) {
	case 0:
		return;
	case 1:
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
	bool ports = false;
	unsigned int p;

	bprintf(&v->rules, "-A %s", name);
	if (!rnd(&v->rng, 3))
		bprintf(&v->rules, " %s-s %s/%d", neg(v, 3), addrs[rnd(&v->rng, NADDRS)],
			masks[rnd(&v->rng, 7)]);
	if (!rnd(&v->rng, 3))
		bprintf(&v->rules, " %s-d %s/%d", neg(v, 3), addrs[rnd(&v->rng, NADDRS)],
			masks[rnd(&v->rng, 7)]);
	/* iptables refuses -o in INPUT and -i in OUTPUT, not in user chains. */
	if (hook != 'I' && !rnd(&v->rng, 4))
		bprintf(&v->rules, " %s-o %s", neg(v, 3), ifaces[rnd(&v->rng, NIFACES)]);
	if (hook != 'O' && !rnd(&v->rng, 4))
		bprintf(&v->rules, " %s-i %s", neg(v, 3), ifaces[rnd(&v->rng, NIFACES)]);
	p = rnd(&v->rng, 12);
	if (p < 3) {
		char m[40], c[40];

		bprintf(&v->rules, " -p tcp");
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
	}
	if (!ports && !rnd(&v->rng, 5))
		bprintf(&v->rules, " %s-f", neg(v, 2));

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
	}
	/* else: no target, the rule only counts */
	bprintf(&v->rules, "\n");
}

static void gen_ruleset(struct vd *v)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	unsigned int c, i, n;

	v->rules.len = 0;
	v->nports = 0;
	v->naims = 0;
	v->nchains = rnd(&v->rng, 5);
	bprintf(&v->rules, "*filter\n");
	for (c = 0; c < 3; c++)
		bprintf(&v->rules, ":%s %s [0:0]\n", builtin[c],
			rnd(&v->rng, 3) ? "ACCEPT" : "DROP");
	for (c = 0; c < v->nchains; c++)
		bprintf(&v->rules, ":c%u - [0:0]\n", c);
	for (c = 0; c < 3; c++) {
		n = rnd(&v->rng, 9);
		for (i = 0; i < n; i++)
			gen_rule(v, -1, builtin[c][0], builtin[c]);
	}
	for (c = 0; c < v->nchains; c++) {
		char name[16];

		snprintf(name, sizeof(name), "c%u", c);
		n = rnd(&v->rng, 7);
		for (i = 0; i < n; i++)
			gen_rule(v, c, 'U', name);
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
	unsigned char d[128];
	unsigned int len;
	enum path path;
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

static uint32_t csum_add(uint32_t sum, const unsigned char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
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
	uint32_t sum = 0;
	uint16_t good, bad;

	t[off] = t[off + 1] = 0;
	if (h[9] != 1) {
		sum = csum_add(sum, h + 12, 8);
		sum += h[9] + l4len;
	}
	sum = csum_add(sum, t, l4len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	good = ~sum & 0xffff;
	/* x ^ 0x5555 is never x, nor its other ones' complement form (0 <-> 0xffff). */
	bad = good ^ 0x5555;
	if (!bad)
		bad = good ^ 0x0f0f;	/* 0 would mean "no checksum" for UDP */
	t[off] = bad >> 8;
	t[off + 1] = bad & 0xff;
}

static void gen_packet(struct vd *v, struct pkt *p)
{
	static const uint8_t protos[] = { 6, 6, 6, 17, 17, 1, 1, 1, 200, 17 };
	static const uint16_t frags[] = { 0x2000, 1, 2, 0x2005, 100, 0x4000 };
	unsigned int l4 = 0, hdr, ihl, i, pay = rnd(&v->rng, 24);
	uint8_t proto = protos[rnd(&v->rng, 10)];
	uint16_t frag = rnd(&v->rng, 5) ? (rnd(&v->rng, 3) ? 0 : 0x4000) : frags[rnd(&v->rng, 6)];
	const struct vd_aim *aim = NULL;
	unsigned char *h = p->d, *t;

	memset(p, 0, sizeof(*p));
	p->path = rnd(&v->rng, 10) < 4 ? PATH_OUTPUT : rnd(&v->rng, 10) < 7 ? PATH_VD0 : PATH_VD1;
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
	h[0] = 0x40 | ihl;
	if (++v->ip_id == 0)
		v->ip_id = 1;
	h[4] = v->ip_id >> 8;
	h[5] = v->ip_id & 0xff;
	h[6] = frag >> 8;
	h[7] = frag & 0xff;
	h[8] = 64;
	h[9] = proto;
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
	/* Options: NOPs then EOL, which ip_rcv accepts. */
	for (i = 20; i < ihl * 4; i++)
		h[i] = i + 1 < ihl * 4 ? 1 : 0;
	t = h + (ihl >= 5 ? ihl * 4 : 20);
	switch (proto) {
	case 6: {
		unsigned int olen = rnd(&v->rng, 3) ? 0 : 4 * (1 + rnd(&v->rng, 5));
		uint16_t s = pkt_port(v), d = pkt_port(v);

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
	for (i = hdr; i < l4; i++)
		t[i] = rnd(&v->rng, 256);
	p->len = (t - h) + l4;
	h[2] = p->len >> 8;
	h[3] = p->len & 0xff;
	if (ihl >= 5 && l4 >= hdr)
		spoil_csum(h, l4, proto == 6 ? 16 : proto == 17 ? 6 : 2);
}

static void report(struct vd *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (v->report) {
		va_start(ap, fmt);
		vfprintf(v->report, fmt, ap);
		va_end(ap);
		fflush(v->report);
	}
}

static void print_packet(struct vd *v, const struct pkt *p)
{
	static const char *const how[] = {
		"from T's raw socket (OUTPUT)", "from S over vd0p (arrives on vd0)",
		"from S over vd1p (arrives on vd1)",
	};
	char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN], hex[400];
	unsigned int i, n = 0;

	inet_ntop(AF_INET, p->d + 12, s, sizeof(s));
	inet_ntop(AF_INET, p->d + 16, d, sizeof(d));
	for (i = 0; i < p->len && n + 4 < sizeof(hex); i++)
		n += snprintf(hex + n, sizeof(hex) - n, "%s%02x", i % 4 ? "" : " ", p->d[i]);
	report(v, "#   packet %s: %s -> %s proto %u frag 0x%02x%02x len %u:%s\n", how[p->path], s,
	       d, p->d[9], p->d[6], p->d[7], p->len, hex);
}

/* The ruleset as the iptables commands that build it. */
static void print_ruleset(struct vd *v)
{
	char *line, *save = NULL, *copy = strndup(v->rules.p, v->rules.len);
	char chain[32], policy[16];

	if (!copy)
		return;
	if (v->rules.len > VD_BIG_RULESET) {
		char path[64];
		FILE *f;

		/* Too long to read as commands: keep it as a restore file. */
		snprintf(path, sizeof(path), "/tmp/verdict-diff-ruleset-%lu.rules", v->shown);
		f = fopen(path, "w");
		if (f) {
			fwrite(v->rules.p, 1, v->rules.len, f);
			fclose(f);
		}
		report(v, "#   iptables-legacy-restore < %s  (%zu bytes, kept)\n", path,
		       v->rules.len);
		free(copy);
		return;
	}
	report(v, "#   iptables-legacy -F; iptables-legacy -X\n");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == ':' && sscanf(line, ":%31s %15s", chain, policy) == 2) {
			if (strcmp(policy, "-"))
				report(v, "#   iptables-legacy -P %s %s\n", chain, policy);
			else
				report(v, "#   iptables-legacy -N %s\n", chain);
		} else if (line[0] == '-') {
			report(v, "#   iptables-legacy %s\n", line);
		}
	}
	free(copy);
}

/* Run @cmd in side @s's T (H: through the shim); its output into @out if not NULL. */
static int run_in(struct vd *v, int s, const char *cmd, struct buf *out)
{
	char full[PATH_MAX * 3];
	char line[4096];
	FILE *f;
	int st;

	snprintf(full, sizeof(full), "ip netns exec %s env %s%s %s%s %s 2>&1", v->side[s].t,
		 s ? "LD_PRELOAD=" : "", s ? v->shim : "",
		 s ? HOSTD_ENV_SOCK "=" : "", s ? v->sock : "", cmd);
	f = popen(full, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (out && line[0] != '#')
			bprintf(out, "%s", line);
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A non-blocking socket created inside namespace @name, bound to @dev if not NULL. */
static int socket_in(const char *name, int domain, int type, int proto, const char *dev)
{
	char path[128];
	int self, fd, sk = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (self >= 0 && fd >= 0 && !setns(fd, CLONE_NEWNET)) {
		sk = socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
		if (sk >= 0 && dev &&
		    setsockopt(sk, SOL_SOCKET, SO_BINDTODEVICE, dev, strlen(dev) + 1)) {
			close(sk);
			sk = -1;
		}
		if (setns(self, CLONE_NEWNET))
			abort();
	}
	if (fd >= 0)
		close(fd);
	if (self >= 0)
		close(self);
	return sk;
}

static int setup_side(struct vd *v, int i)
{
	struct side *sd = &v->side[i];
	const char *t = sd->t, *s = sd->s;
	unsigned int k;

	snprintf(sd->t, sizeof(sd->t), "vdT%c%d", i ? 'H' : 'K', getpid());
	snprintf(sd->s, sizeof(sd->s), "vdS%c%d", i ? 'H' : 'K', getpid());
	if (sh("ip netns add %s && ip netns add %s", t, s))
		return -EIO;
	/*
	 * Each veth end has its peer's MAC address, so frames sent without ARP
	 * (arp off: a NOARP neighbour carries the device's own address) are
	 * PACKET_HOST on the other side.
	 */
	if (sh("ip -n %s link add vd0 address 02:00:00:00:00:10 type veth peer name vd0p "
	       "address 02:00:00:00:00:10 netns %s && "
	       "ip -n %s link add vd1 address 02:00:00:00:00:11 type veth peer name vd1p "
	       "address 02:00:00:00:00:11 netns %s", t, s, t, s) ||
	    sh("ip -n %s link set lo up && ip -n %s link set vd0 up arp off && "
	       "ip -n %s link set vd1 up arp off && ip -n %s link set lo up && "
	       "ip -n %s link set vd0p up arp off && ip -n %s link set vd1p up arp off",
	       t, t, t, s, s, s) ||
	    sh("ip -n %s addr add 10.99.0.254/24 dev vd0 && "
	       "ip -n %s addr add 10.200.0.254/24 dev vd1 && "
	       "ip -n %s addr add 10.99.0.1/32 dev lo && ip -n %s addr add 10.200.1.1/32 dev lo && "
	       "ip -n %s addr add 192.168.1.1/32 dev lo && ip -n %s route add default dev vd1",
	       t, t, t, t, t, t) ||
	    sh("ip -n %s route add default dev vd0p metric 1 && "
	       "ip -n %s route add default dev vd1p metric 2", s, s))
		return -EIO;
	/*
	 * T forwards whatever is not local; no reverse-path filter and T's own
	 * addresses accepted as sources (sources are random, and a martian is
	 * dropped before any hook), no redirects, and fragments addressed to T
	 * are dropped
	 * before reassembly instead of expiring into ICMP behind our back.
	 */
	if (sh("ip netns exec %s sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
	       "net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.vd0.rp_filter=0 "
	       "net.ipv4.conf.vd1.rp_filter=0 net.ipv4.conf.all.send_redirects=0 "
	       "net.ipv4.conf.vd0.send_redirects=0 net.ipv4.conf.vd1.send_redirects=0 "
	       "net.ipv4.conf.all.accept_local=1 net.ipv4.conf.vd0.accept_local=1 "
	       "net.ipv4.conf.vd1.accept_local=1 "
	       "net.ipv4.ipfrag_low_thresh=0 net.ipv4.ipfrag_high_thresh=0", t))
		return -EIO;
	sd->out_sk = socket_in(t, AF_INET, SOCK_RAW, IPPROTO_RAW, NULL);
	sd->in_sk[0] = socket_in(s, AF_INET, SOCK_RAW, IPPROTO_RAW, "vd0p");
	sd->in_sk[1] = socket_in(s, AF_INET, SOCK_RAW, IPPROTO_RAW, "vd1p");
	sd->obs_fwd = socket_in(s, AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP), NULL);
	if (sd->out_sk < 0 || sd->in_sk[0] < 0 || sd->in_sk[1] < 0 || sd->obs_fwd < 0)
		return -errno;
	for (k = 0; k < NOBS; k++) {
		sd->obs_local[k] = socket_in(t, AF_INET, SOCK_RAW, observed_protos[k], NULL);
		if (sd->obs_local[k] < 0)
			return -errno;
	}
	return 0;
}

static void teardown(struct vd *v)
{
	unsigned int i, k;

	if (v->hostd.pid)
		hostd_stop(&v->hostd);
	for (i = 0; i < 2; i++) {
		struct side *sd = &v->side[i];
		int *fds[] = { &sd->out_sk, &sd->in_sk[0], &sd->in_sk[1], &sd->obs_fwd };

		for (k = 0; k < 4; k++)
			if (*fds[k] >= 0)
				close(*fds[k]);
		for (k = 0; k < NOBS; k++)
			if (sd->obs_local[k] >= 0)
				close(sd->obs_local[k]);
		if (sd->t[0])
			sh("ip netns del %s 2>/dev/null", sd->t);
		if (sd->s[0])
			sh("ip netns del %s 2>/dev/null", sd->s);
	}
	if (v->tmp[0])
		unlink(v->tmp);
	if (v->log_fd >= 0)
		close(v->log_fd);
	if (v->report)
		fclose(v->report);
	free(v->rules.p);
	free(v->edit.p);
	memset(v, 0, sizeof(*v));
}

static int setup(struct vd *v)
{
	char backend[64], *argv[3] = { NULL, backend, NULL };
	struct mbox_driver_opts opts = { 0 };
	unsigned int i, k;
	int err;

	memset(v, 0, sizeof(*v));
	v->log_fd = -1;
	for (i = 0; i < 2; i++) {
		struct side *sd = &v->side[i];

		sd->out_sk = sd->in_sk[0] = sd->in_sk[1] = sd->obs_fwd = -1;
		for (k = 0; k < NOBS; k++)
			sd->obs_local[k] = -1;
	}
	v->rng.s = run->seed * 0x9E3779B97F4A7C15ull + 1;
	for (i = 0; i < 2; i++) {
		err = setup_side(v, i);
		if (err)
			goto fail;
	}
	err = hostd_shim_path(v->shim, sizeof(v->shim));
	if (!err && access(v->shim, R_OK))
		err = -ENOENT;
	if (!err)
		err = mbox_driver_helper_path(v->helper, sizeof(v->helper));
	if (err)
		goto fail;
	argv[0] = v->helper;
	/* VERDICT_DIFF_BACKEND=store checks the checker: nothing enforced, mismatches. */
	snprintf(backend, sizeof(backend), "--backend=%s",
		 getenv("VERDICT_DIFF_BACKEND") ?: "bpf");
	opts.helper = v->helper;
	opts.argv = argv;
	/* The helper's log (one line per replace) goes to a file, not the TAP output. */
	v->log_fd = open("/tmp/verdict-diff-helper.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			 0600);
	if (v->log_fd >= 0)
		opts.stderr_fd = v->log_fd;
	snprintf(v->sock, sizeof(v->sock), "/tmp/vd%d.sock", getpid());
	snprintf(v->tmp, sizeof(v->tmp), "/tmp/vd%d.rules", getpid());
	err = hostd_start(&v->hostd, v->sock, &opts);
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
	char cmd[256];
	FILE *f;

	f = fopen(v->tmp, "w");
	if (!f)
		return -errno;
	if (fwrite(v->rules.p, 1, v->rules.len, f) != v->rules.len) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "iptables-legacy-restore -w < %s", v->tmp);
	return run_in(v, s, cmd, out);
}

/* Does @d (an IPv4 packet of @len bytes) carry @p's id, protocol and addresses? */
static bool same_packet(const unsigned char *d, ssize_t len, const struct pkt *p)
{
	return len >= 20 && !memcmp(d + 4, p->d + 4, 2) && d[9] == p->d[9] &&
	       !memcmp(d + 12, p->d + 12, 8);
}

/* Look at (and consume) what the observers of side @s hold: an outcome or OUT_DROPPED. */
static enum outcome observe(struct side *sd, const struct pkt *p)
{
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

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to @ms for side @s's packet to show up at an observer. */
static enum outcome wait_observed(struct side *sd, const struct pkt *p, int ms)
{
	long end = now_ms() + ms;
	struct pollfd pfd[NOBS + 1];
	enum outcome o;
	unsigned int k;

	for (k = 0; k < NOBS; k++)
		pfd[k] = (struct pollfd){ .fd = sd->obs_local[k], .events = POLLIN };
	pfd[NOBS] = (struct pollfd){ .fd = sd->obs_fwd, .events = POLLIN };
	for (;;) {
		o = observe(sd, p);
		if (o != OUT_DROPPED || now_ms() >= end)
			return o;
		poll(pfd, NOBS + 1, end - now_ms() > 0 ? end - now_ms() : 0);
	}
}

/* Send @p on both sides; their outcomes into @o. */
static void send_both(struct vd *v, const struct pkt *p, enum outcome o[2])
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	int s;

	memcpy(&dst.sin_addr, p->d + 16, 4);
	for (s = 0; s < 2; s++) {
		struct side *sd = &v->side[s];
		int sk = p->path == PATH_OUTPUT ? sd->out_sk : sd->in_sk[p->path - PATH_VD0];

		observe(sd, NULL);	/* leftovers of earlier cases */
		if (sendto(sk, p->d, p->len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			/* Only LOCAL_OUT's NF_DROP turns into EPERM. */
			o[s] = errno == EPERM && p->path == PATH_OUTPUT ? OUT_DROPPED : OUT_ERROR;
			continue;
		}
		/*
		 * veth hands the frame to the peer's backlog, which is processed
		 * when sendto() re-enables bottom halves: the answer is almost
		 * always there already; the wait only covers a busy softirq.
		 */
		o[s] = p->path == PATH_OUTPUT ? OUT_SENT : wait_observed(sd, p, 5);
	}
	/* Before calling a drop a mismatch, give a late packet more time. */
	for (s = 0; s < 2; s++)
		if (o[s] == OUT_DROPPED && o[!s] != OUT_DROPPED && p->path != PATH_OUTPUT)
			o[s] = wait_observed(&v->side[s], p, 300);
}

/* Drop "# ..." comment lines of a save (timestamps). */
static void strip_comments(struct buf *b)
{
	char *line = b->p, *w = b->p, *nl;

	if (!b->p)
		return;
	b->p[b->len] = '\0';
	while (*line) {
		nl = strchrnul(line, '\n');
		if (*nl)
			nl++;
		if (line[0] != '#') {
			memmove(w, line, nl - line);
			w += nl - line;
		}
		line = nl;
	}
	b->len = w - b->p;
	b->p[b->len] = '\0';
}

static void mismatch_header(struct vd *v, unsigned int round)
{
	report(v, "# MISMATCH (seed %lu, ruleset %u); ruleset:\n", run->seed, round);
	print_ruleset(v);
	if (v->edit.len)
		report(v, "#   (before packet %u:) iptables-legacy %s\n", v->edit_at, v->edit.p);
}

/* Apply the ruleset's edit on both sides; false if they disagree. */
static bool apply_edit(struct vd *v, unsigned int round)
{
	struct buf out[2] = { { 0 }, { 0 } };
	char cmd[1024];
	int rc[2], s;

	snprintf(cmd, sizeof(cmd), "iptables-legacy -w %s", v->edit.p);
	for (s = 0; s < 2; s++)
		rc[s] = run_in(v, s, cmd, &out[s]);
	if (rc[0] != rc[1] && v->shown < VD_MAX_SHOWN) {
		mismatch_header(v, round);
		report(v, "# ruleset %u: the edit exits %d on ip_tables, %d via bpfilter\n", round,
		       rc[0], rc[1]);
		for (s = 0; s < 2; s++)
			if (out[s].len)
				report(v, "#   %s: %.*s", s ? "bpfilter" : "ip_tables",
				       (int)out[s].len, out[s].p);
	}
	free(out[0].p);
	free(out[1].p);
	return rc[0] == rc[1];
}

/* The number of rules with non-zero counters in an iptables-save -c dump. */
static unsigned int count_hit_rules(const struct buf *save)
{
	const char *l;
	unsigned int n = 0;

	for (l = save->p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (l[0] == '[' && strncmp(l, "[0:0] -A", 8))
			n++;
	return n;
}

/* Report the first line where two dumps differ (large rulesets). */
static void report_first_difference(struct vd *v, const struct buf save[2])
{
	const char *a = save[0].p ?: "", *b = save[1].p ?: "";
	unsigned int line = 1;
	size_t i = 0, start = 0;

	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	report(v, "# first difference, line %u:\n#   ip_tables: %.*s\n#   bpfilter:  %.*s\n", line,
	       (int)strcspn(a + start, "\n"), a + start, (int)strcspn(b + start, "\n"), b + start);
}

/* A random ruleset and maybe an edit (the regular rounds). */
static void gen_random(struct vd *v)
{
	gen_ruleset(v);
	gen_edit(v);
}

/*
 * One ruleset from @gen and v->npackets packets; the number of mismatches.
 * v->hit_rules says how many rules ip_tables counted.
 */
static unsigned int round_one(struct vd *v, unsigned int round, void (*gen)(struct vd *v))
{
	struct buf save[2] = { { 0 }, { 0 } }, out[2] = { { 0 }, { 0 } };
	unsigned int i, bad = 0;
	bool shown = false;
	int rc[2], s;

	v->hit_rules = 0;
	gen(v);
	for (s = 0; s < 2; s++)
		rc[s] = apply(v, s, &out[s]);
	if (rc[0] || rc[1]) {
		/* ip_tables refusing our ruleset is a generator bug, also a failure. */
		report(v, "# ruleset %u: iptables-legacy-restore exit %d on ip_tables, "
		       "%d via bpfilter\n", round, rc[0], rc[1]);
		for (s = 0; s < 2; s++)
			if (out[s].len)
				report(v, "#   %s: %.*s", s ? "bpfilter" : "ip_tables",
				       (int)out[s].len, out[s].p);
		mismatch_header(v, round);
		bad++;
		goto out;
	}

	for (i = 0; i < v->npackets; i++) {
		enum outcome o[2];
		struct pkt p;

		if (v->edit.len && i == v->edit_at && !apply_edit(v, round)) {
			bad++;
			shown = true;
		}
		gen_packet(v, &p);
		send_both(v, &p, o);
		/* A packet the stack refuses before any hook is not a case. */
		if (o[0] == OUT_ERROR && o[1] == OUT_ERROR)
			continue;
		run->cases++;
		v->outcomes[o[0]]++;
		if (o[0] == o[1])
			continue;
		bad++;
		if (v->shown >= VD_MAX_SHOWN)
			continue;
		if (!shown)
			mismatch_header(v, round);
		shown = true;
		report(v, "# ruleset %u packet %u: ip_tables: %s, bpfilter: %s\n", round, i,
		       outcome_name[o[0]], outcome_name[o[1]]);
		print_packet(v, &p);
	}

	for (s = 0; s < 2; s++) {
		run_in(v, s, "iptables-legacy-save -c -t filter", &save[s]);
		strip_comments(&save[s]);
	}
	/* Both dumps must be real ones, and the same. */
	if (!save[0].p || !save[1].p || !strstr(save[0].p, "\nCOMMIT") ||
	    save[0].len != save[1].len || memcmp(save[0].p, save[1].p, save[0].len)) {
		bad++;
		if (v->shown < VD_MAX_SHOWN) {
			if (!shown)
				mismatch_header(v, round);
			if (v->rules.len > VD_BIG_RULESET)
				report_first_difference(v, save);
			else
				report(v, "# ruleset %u: counters differ after its %u packets\n"
				       "# ip_tables (iptables-legacy-save -c):\n%.*s"
				       "# bpfilter (iptables-legacy-save -c):\n%.*s", round,
				       v->npackets, (int)save[0].len, save[0].p ? save[0].p : "",
				       (int)save[1].len, save[1].p ? save[1].p : "");
			shown = true;
		}
	}
	v->hit_rules = count_hit_rules(&save[0]);
	if (run->verbose && save[0].p && v->rules.len <= VD_BIG_RULESET)
		printf("%.*s", (int)save[0].len, save[0].p);
out:
	if (shown || bad)
		v->shown++;
	for (s = 0; s < 2; s++) {
		free(save[s].p);
		free(out[s].p);
	}
	return bad;
}

/* Large rulesets (issue 5): big enough to need folding and map lookups. */

static uint32_t ip4(uint32_t host)
{
	return htonl(host);
}

#define IP(a, b, c, d)	(((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define IPFMT		"%u.%u.%u.%u"
#define IPARG(x)	(x) >> 24, ((x) >> 16) & 255, ((x) >> 8) & 255, (x) & 255

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
	ASSERT_EQ(0, setup(&self->v)) TH_LOG("setup failed (namespaces, sockets or hostd)");
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

/* Large for --soak runs; the suite bounds the default run itself. */
TEST_F_TIMEOUT(vd, random_rulesets, 86400)
{
	struct vd *v = &self->v;
	unsigned long max_rounds;
	unsigned int round = 0;

	v->report = fopen(VD_MISMATCH_FILE, "w");
	if (v->report) {
		fprintf(v->report, "# verdict-diff mismatches, seed %lu (rerun: "
			"VERDICT_DIFF_SEED=%lu build/selftests/test_verdict_diff)\n",
			run->seed, run->seed);
		fflush(v->report);
	}
	TH_LOG("seed %lu, %lu cases wanted, %u packets per ruleset", run->seed, run->want_cases,
	       run->per_ruleset);
	/* Bounded even if most packets were refused before any hook. */
	max_rounds = 4 * run->want_cases / run->per_ruleset + 10;
	v->npackets = run->per_ruleset;
	while (run->cases < run->want_cases && round < max_rounds) {
		run->mismatches += round_one(v, ++round, gen_random);
		if (run->verbose || !(round % 16))
			printf("# %u rulesets, %lu cases, %lu mismatches\n", round, run->cases,
			       run->mismatches);
	}
	printf("# ip_tables outcomes: %lu dropped, %lu sent by OUTPUT, %lu delivered, "
	       "%lu forwarded, %lu send errors\n", v->outcomes[OUT_DROPPED], v->outcomes[OUT_SENT],
	       v->outcomes[OUT_LOCAL], v->outcomes[OUT_FORWARDED], v->outcomes[OUT_ERROR]);
	/* A run without every kind of outcome proves less than it claims. */
	EXPECT_NE(0, v->outcomes[OUT_DROPPED]);
	EXPECT_NE(0, v->outcomes[OUT_SENT]);
	EXPECT_NE(0, v->outcomes[OUT_LOCAL]);
	EXPECT_NE(0, v->outcomes[OUT_FORWARDED]);
	EXPECT_EQ(0, run->mismatches);
	EXPECT_LE(run->want_cases, run->cases);
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
 * The harness exit()s with its own status; the summary line must come after
 * its totals, and a run that is too short fails even if its tests passed.
 */
static void print_summary(void)
{
	if (getpid() != run->main_pid)
		return;
	printf("verdict-diff: %lu cases, %lu mismatches\n", run->cases, run->mismatches);
	fflush(stdout);
	if (run->mismatches || run->cases < VD_MIN_CASES)
		_exit(1);
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "soak", no_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* Shared: the harness runs each test in a child. */
	run = mmap(NULL, sizeof(*run), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run == MAP_FAILED)
		return 1;
	run->seed = env_ul("VERDICT_DIFF_SEED", 1);
	run->want_cases = env_ul("VERDICT_DIFF_CASES", VD_DEFAULT_CASES);
	run->per_ruleset = 20;
	while ((opt = getopt_long(argc, argv, "s:n:p:v", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			run->want_cases = VD_SOAK_CASES;
			break;
		case 's':
			run->seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			run->want_cases = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			run->per_ruleset = strtoul(optarg, NULL, 0) ?: 1;
			break;
		case 'v':
			run->verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n cases] [-p packets-per-ruleset] "
				"[--soak] [-v]\n", argv[0]);
			return 2;
		}
	}
	/* A closed pipe on stdout (| head) must not skip the teardown. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# verdict-diff: seed %lu, %lu cases (VERDICT_DIFF_SEED, VERDICT_DIFF_CASES)\n",
	       run->seed, run->want_cases);
	run->main_pid = getpid();
	if (atexit(print_summary))
		return 1;
	/* It exits: print_summary() has the last word. */
	return test_harness_run(1, argv);
}
