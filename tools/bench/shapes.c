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
#include <netinet/tcp.h>
#include <netinet/udp.h>

#include "shapes.h"

/* Blocklist sources: 172.16.0.0/12 holds 1M addresses, more than 100k rules need. */
#define BLOCK_BASE	0xac100000u	/* 172.16.0.0 */
/* Mixed /24 sources: 100.64.0.0/10 holds 16384 /24s, disjoint from BLOCK_BASE's. */
#define CIDR_BASE	0x64400000u	/* 100.64.0.0 */
/* Mixed UDP_IN sources: 198.18.0.0/15, never the sender. */
#define UDPSRC_BASE	0xc6120000u	/* 198.18.0.0 */
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

static const char *ip4(uint32_t host, char *buf)
{
	struct in_addr a = { .s_addr = htonl(host) };

	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
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

/* BLOCK rule i: every 32nd is a /24 out of CIDR_BASE, the others /32s out of BLOCK_BASE. */
static void mixed_block_src(uint32_t i, char *buf, unsigned int *plen)
{
	if (i % 32 == 31) {
		ip4(CIDR_BASE + (i / 32) * 256, buf);
		*plen = 24;
	} else {
		ip4(BLOCK_BASE + i + 1, buf);
		*plen = 32;
	}
}

/* The blocklist's first @count rules: "-s 172.16.x.y/32 -j DROP" in INPUT. */
static void ipt_block_rules(FILE *f, uint32_t count)
{
	char a[INET_ADDRSTRLEN];
	uint32_t i;

	for (i = 0; i < count; i++)
		fprintf(f, "-A INPUT -s %s/32 -j DROP\n", ip4(BLOCK_BASE + i + 1, a));
}

/* The last rule of the mixed and stateful shapes: it accepts the sender's traffic. */
static void ipt_last_rule(FILE *f)
{
	fprintf(f, "-A INPUT -s %s -p udp -m udp --dport %u -j ACCEPT\n", BENCH_SRC_NET,
		BENCH_UDP_PORT);
}

static void ipt_blocklist(FILE *f, uint32_t n)
{
	fputs("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	ipt_block_rules(f, n);
	fputs("COMMIT\n", f);
}

static void ipt_portlist(FILE *f, uint32_t n)
{
	uint32_t i;

	fputs("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	for (i = 0; i < n; i++)
		fprintf(f, "-A INPUT -p tcp -m tcp --dport %u -j ACCEPT\n", port_of(i, n));
	fputs("COMMIT\n", f);
}

static void ipt_mixed(FILE *f, uint32_t n)
{
	char a[INET_ADDRSTRLEN];
	struct mixed_layout l;
	unsigned int plen;
	uint32_t i;

	mixed_layout(n, &l);
	fputs("*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	if (l.small) {
		ipt_block_rules(f, l.block);
		goto last;
	}
	fputs(":BLOCK - [0:0]\n:ICMP_IN - [0:0]\n:SERVICES - [0:0]\n:UDP_IN - [0:0]\n", f);
	fputs("-A INPUT -s 127.0.0.0/8 ! -i lo -j DROP\n"
	      "-A INPUT -p icmp -j ICMP_IN\n"
	      "-A INPUT -j BLOCK\n"
	      "-A INPUT -p tcp -j SERVICES\n"
	      "-A INPUT -p udp -j UDP_IN\n", f);
	fputs("-A ICMP_IN -p icmp -m icmp --icmp-type 8 -j ACCEPT\n"
	      "-A ICMP_IN -p icmp -m icmp --icmp-type 3 -j ACCEPT\n"
	      "-A ICMP_IN -p icmp -m icmp --icmp-type 11 -j ACCEPT\n"
	      "-A ICMP_IN -p icmp -j DROP\n", f);
	for (i = 0; i < l.block; i++) {
		mixed_block_src(i, a, &plen);
		fprintf(f, "-A BLOCK -s %s/%u -j DROP\n", a, plen);
	}
	for (i = 0; i < l.services; i++)
		fprintf(f, "-A SERVICES -s 192.168.%u.0/24 -p tcp -m tcp --dport %u -j ACCEPT\n",
			i % 256, 1 + i % 65535);
	for (i = 0; i < l.udp; i++)
		fprintf(f, "-A UDP_IN -s %s/32 -p udp -m udp --dport %u -j ACCEPT\n",
			ip4(UDPSRC_BASE + i + 1, a), 1 + i % 60000);
last:
	ipt_last_rule(f);
	fputs("COMMIT\n", f);
}

static void ipt_stateful(FILE *f, uint32_t n)
{
	struct stateful_layout l;
	uint32_t i;

	stateful_layout(n, &l);
	fputs("*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n", f);
	if (l.ct)
		fputs("-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n", f);
	ipt_block_rules(f, l.block);
	for (i = 0; i < l.services; i++)
		fprintf(f, "-A INPUT -p tcp -m tcp --dport %u -j ACCEPT\n", stateful_services[i]);
	ipt_last_rule(f);
	fputs("COMMIT\n", f);
}

/* Write "elements = { ... }" for @count strings produced by @elem (@n: the shape's N). */
static void nft_elements(FILE *f, uint32_t count, uint32_t n,
			 void (*elem)(uint32_t i, uint32_t n, char *buf))
{
	char buf[64];
	uint32_t i;

	fputs("\t\telements = {", f);
	for (i = 0; i < count; i++) {
		elem(i, n, buf);
		fprintf(f, "%s%s%s", i ? "," : "", i % 8 ? " " : "\n\t\t\t", buf);
	}
	fputs("\n\t\t}\n", f);
}

static void elem_block(uint32_t i, uint32_t n, char *buf)
{
	(void)n;
	ip4(BLOCK_BASE + i + 1, buf);
}

static void elem_mixed_block(uint32_t i, uint32_t n, char *buf)
{
	char a[INET_ADDRSTRLEN];
	unsigned int plen;

	(void)n;
	mixed_block_src(i, a, &plen);
	snprintf(buf, 64, "%s/%u", a, plen);
}

static void elem_port(uint32_t i, uint32_t n, char *buf)
{
	/* Unique ports only: rules 0..N-2 cycle, the last one is PORT_LAST. */
	uint32_t uniq = n - 1 < PORT_CYCLE ? n - 1 : PORT_CYCLE;

	snprintf(buf, 64, "%u", i < uniq ? 1 + i : PORT_LAST);
}

static const char nft_head[] = "flush ruleset\ntable ip bench {\n";
static const char nft_input[] = "\tchain input {\n\t\ttype filter hook input priority 0; policy %s;\n";

/* The blocklist's first @count addresses as the set "block" (none when @count is 0). */
static void nft_block_set(FILE *f, uint32_t count)
{
	if (!count)
		return;
	fputs("\tset block {\n\t\ttype ipv4_addr\n", f);
	nft_elements(f, count, count, elem_block);
	fputs("\t}\n", f);
}

/* The blocklist's first @count rules, one lookup in the set "block" or one rule each. */
static void nft_block_rules(FILE *f, uint32_t count, bool set)
{
	char a[INET_ADDRSTRLEN];
	uint32_t i;

	if (set) {
		if (count)
			fputs("\t\tip saddr @block drop\n", f);
		return;
	}
	for (i = 0; i < count; i++)
		fprintf(f, "\t\tip saddr %s drop\n", ip4(BLOCK_BASE + i + 1, a));
}

/* ipt_last_rule() in nft, closing the input chain and the table. */
static void nft_last_rule(FILE *f)
{
	fprintf(f, "\t\tip saddr %s udp dport %u accept\n\t}\n}\n", BENCH_SRC_NET,
		BENCH_UDP_PORT);
}

static void nft_blocklist(FILE *f, uint32_t n, bool set)
{
	fputs(nft_head, f);
	if (set)
		nft_block_set(f, n);
	fprintf(f, nft_input, "accept");
	nft_block_rules(f, n, set);
	fputs("\t}\n}\n", f);
}

static void nft_portlist(FILE *f, uint32_t n, bool set)
{
	uint32_t i, uniq;

	fputs(nft_head, f);
	if (set) {
		uniq = n - 1 < PORT_CYCLE ? n : PORT_CYCLE + 1;
		fputs("\tset ports {\n\t\ttype inet_service\n", f);
		nft_elements(f, uniq, n, elem_port);
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

static void nft_mixed(FILE *f, uint32_t n, bool set)
{
	char a[INET_ADDRSTRLEN];
	struct mixed_layout l;
	unsigned int plen;
	uint32_t i;

	mixed_layout(n, &l);
	fputs(nft_head, f);
	if (l.small) {
		fprintf(f, nft_input, "drop");
		nft_block_rules(f, l.block, false);
		goto last;
	}
	if (set && l.block) {
		fputs("\tset block {\n\t\ttype ipv4_addr\n\t\tflags interval\n", f);
		nft_elements(f, l.block, n, elem_mixed_block);
		fputs("\t}\n", f);
	}
	fputs("\tchain icmp_in {\n"
	      "\t\ticmp type echo-request accept\n"
	      "\t\ticmp type destination-unreachable accept\n"
	      "\t\ticmp type time-exceeded accept\n"
	      "\t\tdrop\n\t}\n", f);
	fputs("\tchain block {\n", f);
	if (set && l.block) {
		fputs("\t\tip saddr @block drop\n", f);
	} else {
		for (i = 0; i < l.block; i++) {
			mixed_block_src(i, a, &plen);
			fprintf(f, "\t\tip saddr %s/%u drop\n", a, plen);
		}
	}
	fputs("\t}\n\tchain services {\n", f);
	for (i = 0; i < l.services; i++)
		fprintf(f, "\t\tip saddr 192.168.%u.0/24 tcp dport %u accept\n", i % 256,
			1 + i % 65535);
	fputs("\t}\n\tchain udp_in {\n", f);
	for (i = 0; i < l.udp; i++)
		fprintf(f, "\t\tip saddr %s udp dport %u accept\n", ip4(UDPSRC_BASE + i + 1, a),
			1 + i % 60000);
	fputs("\t}\n", f);
	fprintf(f, nft_input, "drop");
	fputs("\t\tip saddr 127.0.0.0/8 iifname != \"lo\" drop\n"
	      "\t\tip protocol icmp jump icmp_in\n"
	      "\t\tjump block\n"
	      "\t\tip protocol tcp jump services\n"
	      "\t\tip protocol udp jump udp_in\n", f);
last:
	nft_last_rule(f);
}

static void nft_stateful(FILE *f, uint32_t n, bool set)
{
	struct stateful_layout l;
	uint32_t i;

	stateful_layout(n, &l);
	fputs(nft_head, f);
	if (set)
		nft_block_set(f, l.block);
	fprintf(f, nft_input, "drop");
	if (l.ct)
		fputs("\t\tct state established,related accept\n", f);
	nft_block_rules(f, l.block, set);
	for (i = 0; i < l.services; i++)
		fprintf(f, "\t\ttcp dport %u accept\n", stateful_services[i]);
	nft_last_rule(f);
}

int shape_write(FILE *f, enum shape s, uint32_t n, enum shape_format fmt)
{
	bool set = fmt == FMT_NFT_SET;

	if (!n || (unsigned int)s >= SHAPE_COUNT)
		return -EINVAL;
	switch (s) {
	case SHAPE_BLOCKLIST:
		fmt == FMT_IPTABLES ? ipt_blocklist(f, n) : nft_blocklist(f, n, set);
		break;
	case SHAPE_PORTLIST:
		fmt == FMT_IPTABLES ? ipt_portlist(f, n) : nft_portlist(f, n, set);
		break;
	case SHAPE_MIXED:
		fmt == FMT_IPTABLES ? ipt_mixed(f, n) : nft_mixed(f, n, set);
		break;
	default:
		fmt == FMT_IPTABLES ? ipt_stateful(f, n) : nft_stateful(f, n, set);
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

/* Build an IPv4 packet src -> BENCH_DST_ADDR with a UDP or TCP header to @dport. */
static void build_pkt(struct probe_pkt *p, uint32_t src, int proto, uint16_t dport)
{
	struct iphdr *ip = (struct iphdr *)p->data;
	uint32_t l4len = proto == IPPROTO_TCP ? sizeof(struct tcphdr) : sizeof(struct udphdr) + 4;

	memset(p->data, 0, sizeof(p->data));
	p->len = sizeof(*ip) + l4len;
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons(p->len);
	ip->saddr = htonl(src);
	inet_pton(AF_INET, BENCH_DST_ADDR, &ip->daddr);
	if (proto == IPPROTO_TCP) {
		struct tcphdr *th = (struct tcphdr *)(ip + 1);

		th->source = htons(40000);
		th->dest = htons(dport);
		th->doff = 5;
		th->syn = 1;
		th->window = htons(512);
	} else {
		struct udphdr *uh = (struct udphdr *)(ip + 1);

		uh->source = htons(40000);
		uh->dest = htons(dport);
		uh->len = htons(l4len);
	}
	ip->check = csum16(ip, sizeof(*ip));
}

int shape_probe(enum shape s, uint32_t n, enum probe which, struct probe_pkt *p)
{
	struct stateful_layout sl;
	struct in_addr sender;
	struct mixed_layout l;
	bool last = which == PROBE_LAST;
	uint32_t input_rules;

	if (!n || (unsigned int)s >= SHAPE_COUNT)
		return -EINVAL;
	inet_pton(AF_INET, BENCH_SRC_ADDR, &sender);
	switch (s) {
	case SHAPE_BLOCKLIST:
		build_pkt(p, last ? BLOCK_BASE + n : ntohl(sender.s_addr), IPPROTO_UDP,
			  BENCH_UDP_PORT);
		p->verdict = last ? 0 : 1;
		p->entry = last ? n - 1 : n;
		break;
	case SHAPE_PORTLIST:
		/* Port 0 is in no rule; PORT_LAST only in the last one. */
		build_pkt(p, ntohl(sender.s_addr), IPPROTO_TCP, last ? PORT_LAST : 0);
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
		build_pkt(p, ntohl(sender.s_addr), IPPROTO_UDP,
			  last ? BENCH_UDP_PORT : BENCH_UDP_PORT + 1);
		p->verdict = last ? 1 : 0;
		p->entry = last ? input_rules - 1 : input_rules;
		break;
	}
	return 0;
}
