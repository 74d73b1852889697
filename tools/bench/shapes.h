/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruleset shapes of the benchmark (issue 5) and the packets that probe them.
 *
 * Every shape is generated for N rules in three formats: iptables-restore,
 * nft with one rule per iptables rule ("plain"), and nft with the natural
 * runs folded into a set ("set"). All rules live in the filter table's
 * INPUT path. The end-to-end sender is BENCH_SRC_ADDR sending UDP to
 * BENCH_DST_ADDR:BENCH_UDP_PORT; each shape says what that traffic does:
 *
 *   blocklist  N x "-s 172.16.x.y -j DROP", policy ACCEPT. The sender's
 *              address is in none of them: its packets walk all N rules and
 *              are accepted by the policy (the "matches none" case).
 *   portlist   N x "-p tcp --dport P -j ACCEPT", policy ACCEPT. The sender
 *              sends UDP, which every rule rejects on its protocol: the
 *              packets walk all N rules and are accepted by the policy.
 *   mixed      a server ruleset with user chains (anti-spoofing, ICMP_IN,
 *              BLOCK (/32 and /24 sources), SERVICES (tcp port + source),
 *              UDP_IN (udp port + source)), policy DROP; the last INPUT rule
 *              accepts the sender's UDP traffic: its packets walk every
 *              chain and are accepted by the last rule.
 *   stateful   a stateful server: "-m conntrack --ctstate RELATED,ESTABLISHED
 *              -j ACCEPT" first, then the blocklist, then services (4 tcp
 *              ports and the mixed shape's last rule), policy DROP. The
 *              sender's flow is never answered, so conntrack keeps it
 *              UNREPLIED and each of its packets is NEW: it passes the first
 *              rule, walks the blocklist and is accepted by the last rule.
 *              Conntrack must be on (the benchmark turns it on for every
 *              backend, no firewall included).
 *
 * IPv6 (family AF_INET6: ip6tables-restore input, nft "table ip6"): the same
 * rules, rule for rule, with IPv6 addresses. The sender is BENCH6_SRC_ADDR
 * in BENCH6_SRC_NET; the sources come from fd00:db8::/32, a documentation
 * prefix's digits in ULA space, which never holds the sender: blocklist
 * hosts fd00:db8:172:16::x/128, mixed BLOCK networks fd00:db8:100:k::/64
 * where IPv4 has /24s, SERVICES fd00:db8:192:k::/64, UDP_IN hosts
 * fd00:db8:198:18::x; the anti-spoofing rule names ::1/128 and ICMP_IN
 * tests ICMPv6 types 128, 1 and 3 (echo request, destination unreachable,
 * time exceeded) where IPv4 has ICMP 8, 3 and 11. shapes.c's struct family
 * holds every difference.
 *
 * For BPF_PROG_TEST_RUN each shape defines two packets (IPv4 or IPv6):
 * "last" matches the last rule (and no earlier one), "none" matches no rule
 * and gets the policy (BPF_PROG_TEST_RUN packets have no conntrack entry,
 * so the stateful shape's first rule lets them pass as it lets NEW packets
 * pass). shape_probe() also gives the entry index (in GET_ENTRIES blob
 * order) whose counter that packet must bump, so the benchmark can check
 * that the measured program really walked to the end.
 */
#ifndef BPFILTER_BENCH_SHAPES_H
#define BPFILTER_BENCH_SHAPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_SRC_ADDR	"10.200.0.1"
#define BENCH_DST_ADDR	"10.200.0.2"
#define BENCH_UDP_PORT	5001
/* The sender's /30, as the mixed shape's last rule names it. */
#define BENCH_SRC_NET	"10.200.0.0/30"
/* The same for IPv6 (bench.sh --family 6). */
#define BENCH6_SRC_ADDR	"fd00:200::1"
#define BENCH6_DST_ADDR	"fd00:200::2"
#define BENCH6_SRC_NET	"fd00:200::/126"

enum shape {
	SHAPE_BLOCKLIST,
	SHAPE_PORTLIST,
	SHAPE_MIXED,
	SHAPE_STATEFUL,
	SHAPE_COUNT,
};

enum shape_format {
	FMT_IPTABLES,	/* iptables-restore input for the filter table */
	FMT_NFT,	/* nft -f input, one nft rule per iptables rule */
	FMT_NFT_SET,	/* nft -f input, runs of one match shape folded into sets */
};

enum probe {
	PROBE_LAST,	/* matches the last rule only */
	PROBE_NONE,	/* matches no rule: the policy decides */
};

/* A crafted packet (IPv4 or IPv6 header onward) and what the ruleset must do with it. */
struct probe_pkt {
	uint8_t data[64];
	uint32_t len;
	int verdict;		/* expected NF_DROP (0) or NF_ACCEPT (1) */
	uint32_t entry;		/* blob index of the entry that decides it */
};

/* "blocklist", "portlist", "mixed", "stateful"; NULL for an unknown shape. */
const char *shape_name(enum shape s);
/* Parse a shape name: 0 with *s set, or -EINVAL. */
int shape_parse(const char *name, enum shape *s);
/*
 * Write shape @s with @n rules (n >= 1) for address family @af (AF_INET or
 * AF_INET6) to @f in @fmt: 0 or -errno.
 */
int shape_write(FILE *f, int af, enum shape s, uint32_t n, enum shape_format fmt);
/* Fill @p with the @af probe @which for shape @s at @n rules: 0 or -errno. */
int shape_probe(int af, enum shape s, uint32_t n, enum probe which, struct probe_pkt *p);

#endif /* BPFILTER_BENCH_SHAPES_H */
