// SPDX-License-Identifier: GPL-2.0
/*
 * Ruleset generators and probe packets for the benchmark shapes
 * (see shapes.h for what each shape is and what the sender's traffic does).
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>

#include "shapes.h"

/* Where rule sources come from: pools that never hold the sender (struct family). */
enum pool {
	POOL_BLOCK,	/* blocklist hosts (also the mixed BLOCK chain's) */
	POOL_CIDR,	/* the mixed BLOCK chain's networks */
	POOL_SERVICES,	/* the mixed SERVICES chain's networks */
	POOL_UDPSRC,	/* the mixed UDP_IN chain's hosts */
	POOL_COUNT,
};

/*
 * Everything the shapes write differently for IPv4 and IPv6; the generators
 * below only ever look here. Host i of a pool is its base address plus i in
 * the 32-bit word host_word, network k is the base plus k << net_shift in
 * net_word (no shape's index reaches past its pool, so none carries out of
 * that word).
 */
struct family {
	int af;
	const char *src, *dst, *src_net;	/* sender, receiver, the last rule's source */
	const char *pools[POOL_COUNT];
	unsigned int host_word, host_plen;
	unsigned int net_word, net_shift, net_plen;
	const char *loopback;			/* the anti-spoofing rule's source */
	struct {
		const char *proto;		/* -p and nft's name of ICMP */
		const char *match;		/* the iptables match of an ICMP type */
		unsigned int types[3];		/* echo request, unreachable, time exceeded */
	} icmp;
	const char *nft_family, *nft_saddr, *nft_addr_type, *nft_proto, *nft_icmp;
};

static const struct family families[] = {
	{
		.af = AF_INET,
		.src = BENCH_SRC_ADDR, .dst = BENCH_DST_ADDR, .src_net = BENCH_SRC_NET,
		/*
		 * 172.16.0.0/12 holds 1M hosts, more than 100k rules need;
		 * 100.64.0.0/10 16384 /24s; 198.18.0.0/15 is never the sender.
		 */
		.pools = { "172.16.0.0", "100.64.0.0", "192.168.0.0", "198.18.0.0" },
		.host_word = 0, .host_plen = 32, .net_word = 0, .net_shift = 8, .net_plen = 24,
		.loopback = "127.0.0.0/8",
		.icmp = { "icmp", "-m icmp --icmp-type", { 8, 3, 11 } },
		.nft_family = "ip", .nft_saddr = "ip saddr", .nft_addr_type = "ipv4_addr",
		.nft_proto = "ip protocol", .nft_icmp = "icmp",
	},
	{
		.af = AF_INET6,
		.src = BENCH6_SRC_ADDR, .dst = BENCH6_DST_ADDR, .src_net = BENCH6_SRC_NET,
		/* fd00:db8::/32, far from the sender's fd00:200::/126; networks are /64s. */
		.pools = { "fd00:db8:172:16::", "fd00:db8:100::", "fd00:db8:192::",
			   "fd00:db8:198:18::" },
		.host_word = 3, .host_plen = 128, .net_word = 1, .net_shift = 0, .net_plen = 64,
		.loopback = "::1/128",
		.icmp = { "ipv6-icmp", "-m icmp6 --icmpv6-type", { 128, 1, 3 } },
		/* meta l4proto: the protocol after the extension headers, as -p finds it. */
		.nft_family = "ip6", .nft_saddr = "ip6 saddr", .nft_addr_type = "ipv6_addr",
		.nft_proto = "meta l4proto", .nft_icmp = "icmpv6",
	},
};

#define ADDR_STRLEN	INET6_ADDRSTRLEN
/* Port-list ports: rule i < N-1 gets 1 + i % PORT_CYCLE, the last rule gets 65535. */
#define PORT_CYCLE	65534u
#define PORT_LAST	65535u
/* The stateful shape's tcp services (before its last rule, for N >= 10). */
static const uint16_t stateful_services[] = { 22, 25, 80, 443 };
#define N_SERVICES	(sizeof(stateful_services) / sizeof(stateful_services[0]))

static const char *const shape_names[SHAPE_COUNT] = {
	[SHAPE_BLOCKLIST] = "blocklist",
	[SHAPE_PORTLIST] = "portlist",
	[SHAPE_MIXED] = "mixed",
	[SHAPE_STATEFUL] = "stateful",
};

/* How the mixed shape splits its N rules over its chains. */
struct mixed_layout {
	bool small;		/* N < 10: INPUT only, N-1 block rules + the last rule */
	uint32_t block, services, udp;
	uint32_t input_rules;	/* rules in INPUT (the policy is the next entry) */
};

/* How the stateful shape splits its N rules (all in INPUT). */
struct stateful_layout {
	bool ct;		/* the RELATED,ESTABLISHED rule (N >= 2) */
	uint32_t block;		/* blocklist rules after it */
	uint32_t services;	/* tcp services after those (N >= 10) */
	uint32_t input_rules;	/* = N: the last rule is the mixed shape's */
};

const char *shape_name(enum shape s)
{
	return (unsigned int)s < SHAPE_COUNT ? shape_names[s] : NULL;
}

int shape_parse(const char *name, enum shape *s)
{
	unsigned int i;

	for (i = 0; i < SHAPE_COUNT; i++) {
		if (!strcmp(name, shape_names[i])) {
			*s = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct family *family_of(int af)
{
	unsigned int i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].af == af)
			return &families[i];
	return NULL;
}

/* Host @idx (@net false) or network @idx of @pool, in network byte order. */
static void pool_addr(const struct family *fm, enum pool pool, uint32_t idx, bool net,
		      uint8_t out[16])
{
	unsigned int word = net ? fm->net_word : fm->host_word;
	uint32_t w;

	inet_pton(fm->af, fm->pools[pool], out);
	memcpy(&w, out + 4 * word, sizeof(w));
	w = htonl(ntohl(w) + (net ? idx << fm->net_shift : idx));
	memcpy(out + 4 * word, &w, sizeof(w));
}

/* pool_addr() as text in @buf (ADDR_STRLEN bytes). */
static const char *pool_str(const struct family *fm, enum pool pool, uint32_t idx, bool net,
			    char *buf)
{
	uint8_t a[16];

	pool_addr(fm, pool, idx, net, a);
	return inet_ntop(fm->af, a, buf, ADDR_STRLEN);
}

static uint32_t port_of(uint32_t i, uint32_t n)
{
	return i == n - 1 ? PORT_LAST : 1 + i % PORT_CYCLE;
}

static void mixed_layout(uint32_t n, struct mixed_layout *l)
{
	uint32_t rest;

	memset(l, 0, sizeof(*l));
	if (n < 10) {
		l->small = true;
		l->block = n - 1;
		l->input_rules = n;
		return;
	}
	/* Fixed part: 6 INPUT rules and 4 ICMP_IN rules. */
	rest = n - 10;
	l->block = rest * 6 / 10;
	l->services = rest / 4;
	l->udp = rest - l->block - l->services;
	l->input_rules = 6;
}

/* N = 1: the last rule; N < 10: the ct rule, N - 2 blocklist rules, the last rule. */
static void stateful_layout(uint32_t n, struct stateful_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->input_rules = n;
	if (n < 2)
		return;
	l->ct = true;
	l->services = n < 10 ? 0 : N_SERVICES;
	l->block = n - 2 - l->services;
}

/* BLOCK rule i: every 32nd a network (a /24 in IPv4) of POOL_CIDR, the others hosts. */
static void mixed_block_src(const struct family *fm, uint32_t i, char *buf, unsigned int *plen)
{
	if (i % 32 == 31) {
		pool_str(fm, POOL_CIDR, i / 32, true, buf);
		*plen = fm->net_plen;
	} else {
		pool_str(fm, POOL_BLOCK, i + 1, false, buf);
		*plen = fm->host_plen;
	}
}

/* The blocklist's first @count rules: "-s 172.16.x.y/32 -j DROP" in INPUT. */
static void ipt_block_rules(const struct family *fm, FILE *f, uint32_t count)
{
	char a[ADDR_STRLEN];
	uint32_t i;

	for (i = 0; i < count; i++)
		fprintf(f, "-A INPUT -s %s/%u -j DROP\n", pool_str(fm, POOL_BLOCK, i + 1, false, a),
			fm->host_plen);
}

/* The last rule of the mixed and stateful shapes: it accepts the sender's traffic. */
static void ipt_last_rule(const struct family *fm, FILE *f)
{
	fprintf(f, "-A INPUT -s %s -p udp -m udp --dport %u -j ACCEPT\n", fm->src_net,
		BENCH_UDP_PORT);
}

static void ipt_blocklist(const struct family *fm, FILE *f, uint32_t n)
{
	fputs("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	ipt_block_rules(fm, f, n);
	fputs("COMMIT\n", f);
}

static void ipt_portlist(const struct family *fm, FILE *f, uint32_t n)
{
	uint32_t i;

	(void)fm;
	fputs("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	for (i = 0; i < n; i++)
		fprintf(f, "-A INPUT -p tcp -m tcp --dport %u -j ACCEPT\n", port_of(i, n));
	fputs("COMMIT\n", f);
}

static void ipt_mixed(const struct family *fm, FILE *f, uint32_t n)
{
	char a[ADDR_STRLEN];
	struct mixed_layout l;
	unsigned int plen;
	uint32_t i;

	mixed_layout(n, &l);
	fputs("*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	if (l.small) {
		ipt_block_rules(fm, f, l.block);
		goto last;
	}
	fputs(":BLOCK - [0:0]\n:ICMP_IN - [0:0]\n:SERVICES - [0:0]\n:UDP_IN - [0:0]\n", f);
	fprintf(f, "-A INPUT -s %s ! -i lo -j DROP\n"
		"-A INPUT -p %s -j ICMP_IN\n"
		"-A INPUT -j BLOCK\n"
		"-A INPUT -p tcp -j SERVICES\n"
		"-A INPUT -p udp -j UDP_IN\n", fm->loopback, fm->icmp.proto);
	for (i = 0; i < 3; i++)
		fprintf(f, "-A ICMP_IN -p %s %s %u -j ACCEPT\n", fm->icmp.proto, fm->icmp.match,
			fm->icmp.types[i]);
	fprintf(f, "-A ICMP_IN -p %s -j DROP\n", fm->icmp.proto);
	for (i = 0; i < l.block; i++) {
		mixed_block_src(fm, i, a, &plen);
		fprintf(f, "-A BLOCK -s %s/%u -j DROP\n", a, plen);
	}
	for (i = 0; i < l.services; i++)
		fprintf(f, "-A SERVICES -s %s/%u -p tcp -m tcp --dport %u -j ACCEPT\n",
			pool_str(fm, POOL_SERVICES, i % 256, true, a), fm->net_plen,
			1 + i % 65535);
	for (i = 0; i < l.udp; i++)
		fprintf(f, "-A UDP_IN -s %s/%u -p udp -m udp --dport %u -j ACCEPT\n",
			pool_str(fm, POOL_UDPSRC, i + 1, false, a), fm->host_plen, 1 + i % 60000);
last:
	ipt_last_rule(fm, f);
	fputs("COMMIT\n", f);
}

static void ipt_stateful(const struct family *fm, FILE *f, uint32_t n)
{
	struct stateful_layout l;
	uint32_t i;

	stateful_layout(n, &l);
	fputs("*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	if (l.ct)
		fputs("-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n", f);
	ipt_block_rules(fm, f, l.block);
	for (i = 0; i < l.services; i++)
		fprintf(f, "-A INPUT -p tcp -m tcp --dport %u -j ACCEPT\n", stateful_services[i]);
	ipt_last_rule(fm, f);
	fputs("COMMIT\n", f);
}

/* Write "elements = { ... }" for @count strings produced by @elem (@n: the shape's N). */
static void nft_elements(const struct family *fm, FILE *f, uint32_t count, uint32_t n,
			 void (*elem)(const struct family *fm, uint32_t i, uint32_t n, char *buf))
{
	char buf[64];
	uint32_t i;

	fputs("\t\telements = {", f);
	for (i = 0; i < count; i++) {
		elem(fm, i, n, buf);
		fprintf(f, "%s%s%s", i ? "," : "", i % 8 ? " " : "\n\t\t\t", buf);
	}
	fputs("\n\t\t}\n", f);
}

static void elem_block(const struct family *fm, uint32_t i, uint32_t n, char *buf)
{
	(void)n;
	pool_str(fm, POOL_BLOCK, i + 1, false, buf);
}

static void elem_mixed_block(const struct family *fm, uint32_t i, uint32_t n, char *buf)
{
	char a[ADDR_STRLEN];
	unsigned int plen;

	(void)n;
	mixed_block_src(fm, i, a, &plen);
	snprintf(buf, 64, "%s/%u", a, plen);
}

static void elem_port(const struct family *fm, uint32_t i, uint32_t n, char *buf)
{
	/* Unique ports only: rules 0..N-2 cycle, the last one is PORT_LAST. */
	uint32_t uniq = n - 1 < PORT_CYCLE ? n - 1 : PORT_CYCLE;

	(void)fm;
	snprintf(buf, 64, "%u", i < uniq ? 1 + i : PORT_LAST);
}

static const char nft_input[] = "\tchain input {\n\t\ttype filter hook input priority 0; policy %s;\n";

static void nft_head(const struct family *fm, FILE *f)
{
	fprintf(f, "flush ruleset\ntable %s bench {\n", fm->nft_family);
}

/* The blocklist's first @count addresses as the set "block" (none when @count is 0). */
static void nft_block_set(const struct family *fm, FILE *f, uint32_t count)
{
	if (!count)
		return;
	fprintf(f, "\tset block {\n\t\ttype %s\n", fm->nft_addr_type);
	nft_elements(fm, f, count, count, elem_block);
	fputs("\t}\n", f);
}

/* The blocklist's first @count rules, one lookup in the set "block" or one rule each. */
static void nft_block_rules(const struct family *fm, FILE *f, uint32_t count, bool set)
{
	char a[ADDR_STRLEN];
	uint32_t i;

	if (set) {
		if (count)
			fprintf(f, "\t\t%s @block drop\n", fm->nft_saddr);
		return;
	}
	for (i = 0; i < count; i++)
		fprintf(f, "\t\t%s %s drop\n", fm->nft_saddr,
			pool_str(fm, POOL_BLOCK, i + 1, false, a));
}

/* ipt_last_rule() in nft, closing the input chain and the table. */
static void nft_last_rule(const struct family *fm, FILE *f)
{
	fprintf(f, "\t\t%s %s udp dport %u accept\n\t}\n}\n", fm->nft_saddr, fm->src_net,
		BENCH_UDP_PORT);
}

static void nft_blocklist(const struct family *fm, FILE *f, uint32_t n, bool set)
{
	nft_head(fm, f);
	if (set)
		nft_block_set(fm, f, n);
	fprintf(f, nft_input, "accept");
	nft_block_rules(fm, f, n, set);
	fputs("\t}\n}\n", f);
}

static void nft_portlist(const struct family *fm, FILE *f, uint32_t n, bool set)
{
	uint32_t i, uniq;

	nft_head(fm, f);
	if (set) {
		uniq = n - 1 < PORT_CYCLE ? n : PORT_CYCLE + 1;
		fputs("\tset ports {\n\t\ttype inet_service\n", f);
		nft_elements(fm, f, uniq, n, elem_port);
		fputs("\t}\n", f);
	}
	fprintf(f, nft_input, "accept");
	if (set)
		fputs("\t\ttcp dport @ports accept\n", f);
	else
		for (i = 0; i < n; i++)
			fprintf(f, "\t\ttcp dport %u accept\n", port_of(i, n));
	fputs("\t}\n}\n", f);
}

static void nft_mixed(const struct family *fm, FILE *f, uint32_t n, bool set)
{
	static const char *const icmp_names[] = {
		"echo-request", "destination-unreachable", "time-exceeded",
	};
	char a[ADDR_STRLEN];
	struct mixed_layout l;
	unsigned int plen;
	uint32_t i;

	mixed_layout(n, &l);
	nft_head(fm, f);
	if (l.small) {
		fprintf(f, nft_input, "drop");
		nft_block_rules(fm, f, l.block, false);
		goto last;
	}
	if (set && l.block) {
		fprintf(f, "\tset block {\n\t\ttype %s\n\t\tflags interval\n", fm->nft_addr_type);
		nft_elements(fm, f, l.block, n, elem_mixed_block);
		fputs("\t}\n", f);
	}
	/* nft names the three ICMP and ICMPv6 types alike (struct family's icmp.types). */
	fputs("\tchain icmp_in {\n", f);
	for (i = 0; i < 3; i++)
		fprintf(f, "\t\t%s type %s accept\n", fm->nft_icmp, icmp_names[i]);
	fputs("\t\tdrop\n\t}\n", f);
	fputs("\tchain block {\n", f);
	if (set && l.block) {
		fprintf(f, "\t\t%s @block drop\n", fm->nft_saddr);
	} else {
		for (i = 0; i < l.block; i++) {
			mixed_block_src(fm, i, a, &plen);
			fprintf(f, "\t\t%s %s/%u drop\n", fm->nft_saddr, a, plen);
		}
	}
	fputs("\t}\n\tchain services {\n", f);
	for (i = 0; i < l.services; i++)
		fprintf(f, "\t\t%s %s/%u tcp dport %u accept\n", fm->nft_saddr,
			pool_str(fm, POOL_SERVICES, i % 256, true, a), fm->net_plen,
			1 + i % 65535);
	fputs("\t}\n\tchain udp_in {\n", f);
	for (i = 0; i < l.udp; i++)
		fprintf(f, "\t\t%s %s udp dport %u accept\n", fm->nft_saddr,
			pool_str(fm, POOL_UDPSRC, i + 1, false, a), 1 + i % 60000);
	fputs("\t}\n", f);
	fprintf(f, nft_input, "drop");
	fprintf(f, "\t\t%s %s iifname != \"lo\" drop\n"
		"\t\t%s %s jump icmp_in\n"
		"\t\tjump block\n"
		"\t\t%s tcp jump services\n"
		"\t\t%s udp jump udp_in\n", fm->nft_saddr, fm->loopback, fm->nft_proto,
		fm->icmp.proto, fm->nft_proto, fm->nft_proto);
last:
	nft_last_rule(fm, f);
}

static void nft_stateful(const struct family *fm, FILE *f, uint32_t n, bool set)
{
	struct stateful_layout l;
	uint32_t i;

	stateful_layout(n, &l);
	nft_head(fm, f);
	if (set)
		nft_block_set(fm, f, l.block);
	fprintf(f, nft_input, "drop");
	if (l.ct)
		fputs("\t\tct state established,related accept\n", f);
	nft_block_rules(fm, f, l.block, set);
	for (i = 0; i < l.services; i++)
		fprintf(f, "\t\ttcp dport %u accept\n", stateful_services[i]);
	nft_last_rule(fm, f);
}

int shape_write(FILE *f, int af, enum shape s, uint32_t n, enum shape_format fmt)
{
	const struct family *fm = family_of(af);
	bool set = fmt == FMT_NFT_SET;

	if (!fm)
		return -EAFNOSUPPORT;
	if (!n || (unsigned int)s >= SHAPE_COUNT)
		return -EINVAL;
	switch (s) {
	case SHAPE_BLOCKLIST:
		fmt == FMT_IPTABLES ? ipt_blocklist(fm, f, n) : nft_blocklist(fm, f, n, set);
		break;
	case SHAPE_PORTLIST:
		fmt == FMT_IPTABLES ? ipt_portlist(fm, f, n) : nft_portlist(fm, f, n, set);
		break;
	case SHAPE_MIXED:
		fmt == FMT_IPTABLES ? ipt_mixed(fm, f, n) : nft_mixed(fm, f, n, set);
		break;
	default:
		fmt == FMT_IPTABLES ? ipt_stateful(fm, f, n) : nft_stateful(fm, f, n, set);
		break;
	}
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

static uint16_t csum16(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

/*
 * Build a packet @src -> the family's receiver with a UDP or TCP header to
 * @dport: the network header is the only part that differs by family.
 */
static void build_pkt(const struct family *fm, struct probe_pkt *p, const uint8_t *src,
		      int proto, uint16_t dport)
{
	uint32_t l4len = proto == IPPROTO_TCP ? sizeof(struct tcphdr) : sizeof(struct udphdr) + 4;
	uint8_t *l4;

	memset(p->data, 0, sizeof(p->data));
	if (fm->af == AF_INET) {
		struct iphdr *ip = (struct iphdr *)p->data;

		p->len = sizeof(*ip) + l4len;
		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = proto;
		ip->tot_len = htons(p->len);
		memcpy(&ip->saddr, src, sizeof(ip->saddr));
		inet_pton(AF_INET, fm->dst, &ip->daddr);
		ip->check = csum16(ip, sizeof(*ip));
		l4 = (uint8_t *)(ip + 1);
	} else {
		struct ip6_hdr *ip6 = (struct ip6_hdr *)p->data;

		p->len = sizeof(*ip6) + l4len;
		ip6->ip6_flow = htonl(6u << 28);
		ip6->ip6_plen = htons(l4len);
		ip6->ip6_nxt = proto;
		ip6->ip6_hlim = 64;
		memcpy(&ip6->ip6_src, src, sizeof(ip6->ip6_src));
		inet_pton(AF_INET6, fm->dst, &ip6->ip6_dst);
		l4 = (uint8_t *)(ip6 + 1);
	}
	/* No transport checksum: nothing on the BPF_PROG_TEST_RUN path checks it. */
	if (proto == IPPROTO_TCP) {
		struct tcphdr *th = (struct tcphdr *)l4;

		th->source = htons(40000);
		th->dest = htons(dport);
		th->doff = 5;
		th->syn = 1;
		th->window = htons(512);
	} else {
		struct udphdr *uh = (struct udphdr *)l4;

		uh->source = htons(40000);
		uh->dest = htons(dport);
		uh->len = htons(l4len);
	}
}

int shape_probe(int af, enum shape s, uint32_t n, enum probe which, struct probe_pkt *p)
{
	const struct family *fm = family_of(af);
	bool last = which == PROBE_LAST;
	uint8_t sender[16], blocked[16];
	struct stateful_layout sl;
	struct mixed_layout l;
	uint32_t input_rules;

	if (!fm)
		return -EAFNOSUPPORT;
	if (!n || (unsigned int)s >= SHAPE_COUNT)
		return -EINVAL;
	inet_pton(af, fm->src, sender);
	switch (s) {
	case SHAPE_BLOCKLIST:
		/* Rule i drops host i + 1 of the pool: the last rule host n. */
		pool_addr(fm, POOL_BLOCK, n, false, blocked);
		build_pkt(fm, p, last ? blocked : sender, IPPROTO_UDP, BENCH_UDP_PORT);
		p->verdict = last ? 0 : 1;
		p->entry = last ? n - 1 : n;
		break;
	case SHAPE_PORTLIST:
		/* Port 0 is in no rule; PORT_LAST only in the last one. */
		build_pkt(fm, p, sender, IPPROTO_TCP, last ? PORT_LAST : 0);
		p->verdict = 1;
		p->entry = last ? n - 1 : n;
		break;
	default:
		/* Both end in ipt_last_rule() before a DROP policy. */
		if (s == SHAPE_MIXED) {
			mixed_layout(n, &l);
			input_rules = l.input_rules;
		} else {
			stateful_layout(n, &sl);
			input_rules = sl.input_rules;
		}
		build_pkt(fm, p, sender, IPPROTO_UDP, last ? BENCH_UDP_PORT : BENCH_UDP_PORT + 1);
		p->verdict = last ? 1 : 0;
		p->entry = last ? input_rules - 1 : input_rules;
		break;
	}
	return 0;
}
