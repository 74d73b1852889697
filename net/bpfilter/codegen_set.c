// SPDX-License-Identifier: GPL-2.0
/*
 * Folding runs of similar rules into one map lookup (issue 5).
 *
 * Large rulesets are mostly long runs of rules that differ in one or two
 * fields: address blocklists (-s a.b.c.d[/len] -j DROP, or -m iprange
 * --src-range A-B, as the prefixes that cover it), port lists (-p tcp
 * --dport P -j ACCEPT, or -m multiport --dports P,Q:R), and per-source
 * services (-s net/len -p tcp --dport P -j ACCEPT). A run of consecutive
 * rules of one such shape, with the same protocol and the same verdict, is
 * compiled to a single lookup in a map
 * whose value is the index of the first rule of the run that matches the
 * packet: that rule is counted and the common verdict applies, exactly as
 * ipt_do_table() would have walked the run. Everything else about the run
 * (the protocol, the transport header checks of tcp/udp, hotdrops
 * included) is identical for all its rules, so it is checked once, in the
 * kernel's order, before the lookup.
 *
 * First match with prefixes of different lengths: an LPM trie returns the
 * longest matching prefix, not the first rule. Each prefix's value is
 * therefore the smallest rule index among it and every shorter prefix of
 * the run that contains it (with the same port): the prefixes matching a
 * packet form a chain of nested prefixes, and its longest element carries
 * the minimum over the chain, i.e. the first rule that matches. With a port
 * the key is the port then the address, and the prefix covers the port and
 * the address prefix.
 *
 * IPv6 runs fold alike, with 16-byte addresses; -p there is the protocol
 * ipv6_find_hdr() found behind the extension headers (CG_OFF_NH), and its
 * failure hotdrops as ip6_packet_match() does, after the addresses.
 *
 * A run of jumps by -p tcp|udp --dport (kube-proxy's KUBE-SERVICES) has
 * the protocol in its key (RUN_L4), in IPv4 and IPv6 tables alike, so TCP
 * and UDP rules share one run. In IPv6 a failed walk then hotdrops if any
 * rule of the run, of either protocol, has the packet's address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <bpf/bpf.h>

#include "codegen.h"
#include "family.h"
#include "match.h"
#include "rule.h"
#include "table.h"
#include "target.h"

/* Widest port range folded from one rule; wider ones stay rules. */
#define RUN_MAX_RANGE 1024

/*
 * The shape proto of a run of jumps by -p tcp|udp --dport: the protocol
 * is part of each key (proto << 16 | port), so KUBE-SERVICES' TCP and UDP
 * services fold into one run.
 */
#define RUN_L4	0xff

/* The shape of a rule: which fields it matches on. Rules of one run share it. */
struct run_shape {
	uint8_t proto;		/* 0: no protocol, no port; RUN_L4; else the destination port's */
	bool multiport;		/* the port from -m multiport --dports, not -m tcp/udp */
	int8_t addr;		/* 0: none, 1: -s, 2: -d */
	int verdict;
};

/* An IPv4 range is at most 62 prefixes (only IPv4 ranges fold; IPv6 ones stay rules). */
#define RUN_MAX_PREFIXES 62

/* What one rule contributes to a run: address prefixes, destination port ranges. */
struct run_item {
	struct run_shape shape;
	uint8_t l4;		/* the rule's protocol (with RUN_L4) */
	uint8_t naddrs;		/* 1 for -s/-d or none (0.0.0.0/0), more for iprange */
	struct { uint8_t addr[16]; uint8_t plen; } addrs[RUN_MAX_PREFIXES];	/* network order */
	uint8_t nranges;
	struct { uint16_t lo, hi; } ranges[XT_MULTI_PORTS];
};

/*
 * The range [lo, hi] (host order) as the fewest prefixes: iprange_mt4()'s
 * "lo <= addr <= hi" is then an LPM match like -s's.
 */
static void range_prefixes(uint32_t lo, uint32_t hi, struct run_item *it)
{
	uint64_t a = lo;

	while (a <= hi && it->naddrs < RUN_MAX_PREFIXES) {
		int bits = a ? __builtin_ctz((uint32_t)a) : 32;
		uint32_t be;

		while (bits && a + (1ull << bits) - 1 > hi)
			bits--;
		be = htonl((uint32_t)a);
		memcpy(it->addrs[it->naddrs].addr, &be, sizeof(be));
		it->addrs[it->naddrs++].plen = 32 - bits;
		a += 1ull << bits;
	}
}

/* A lone --src-range or --dst-range, not inverted, not empty: its prefixes into @it. */
static bool iprange_prefixes(const struct xt_iprange_mtinfo *ir, struct run_item *it)
{
	const union nf_inet_addr *min, *max;

	if (ir->flags == IPRANGE_SRC) {
		min = &ir->src_min;
		max = &ir->src_max;
		it->shape.addr = 1;
	} else if (ir->flags == IPRANGE_DST) {
		min = &ir->dst_min;
		max = &ir->dst_max;
		it->shape.addr = 2;
	} else {
		return false;
	}
	/* Reversed: it never matches (checkentry only warns); it stays a rule. */
	if (ntohl(min->ip) > ntohl(max->ip))
		return false;
	it->naddrs = 0;
	range_prefixes(ntohl(min->ip), ntohl(max->ip), it);
	/* The whole space is no prefix a set holds (as -s 0/0 is none). */
	return it->addrs[0].plen > 0;
}

/*
 * The port ranges of a multiport --dports match into @it: false unless
 * they are few enough to expand (ports_match_v1(): the first range that
 * holds the port matches; checkentry made every range lo <= hi).
 */
static bool multiport_ranges(const struct xt_multiport_v1 *mp, struct run_item *it)
{
	uint32_t width = 0;
	unsigned int i;

	if (mp->flags != XT_MULTIPORT_DESTINATION || mp->invert)
		return false;
	for (i = 0; i < mp->count && i < XT_MULTI_PORTS; i++) {
		uint16_t lo = mp->ports[i], hi = lo;

		if (mp->pflags[i] && i + 1 < mp->count)
			hi = mp->ports[++i];
		width += hi - lo + 1;
		it->ranges[it->nranges].lo = lo;
		it->ranges[it->nranges++].hi = hi;
	}
	return it->nranges && width <= RUN_MAX_RANGE;
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

/* Prefix length of the @alen-byte mask @m, or -1 if it is not a prefix. */
static int prefix_len(const uint8_t *m, unsigned int alen)
{
	unsigned int n = 0, i;

	while (n < 8 * alen && (m[n / 8] & (0x80 >> (n % 8))))
		n++;
	for (i = n; i < 8 * alen; i++)
		if (m[i / 8] & (0x80 >> (i % 8)))
			return -1;
	return n;
}

/* @a with the bits past its first @plen cleared, into @out (16 bytes). */
static void mask_addr(const uint8_t *a, unsigned int plen, uint8_t *out)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		unsigned int keep = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;

		out[i] = a[i] & (uint8_t)(0xff00 >> keep);
	}
}

/* Bytes of an address in the table's family. */
static unsigned int addr_len(const struct table *t)
{
	return t->fam == &family_ipv4 ? 4 : 16;
}

/*
 * Fill @it from rule @r of @t; false if the rule cannot be part of a folded
 * run. With @jumps, a jump to a user chain (not a goto, not to the next
 * entry) can be, with full-length addresses only: a run of jumps needs
 * keys that no two rules share (jump_run_distinct()).
 */
static bool classify(const struct table *t, const struct rule *r, struct run_item *it,
		     bool jumps)
{
	const struct rule_ip *ip = &r->ip;
	const unsigned int alen = addr_len(t);
	bool s = !zero(ip->smsk, alen), d = !zero(ip->dmsk, alen);
	const struct match *m = NULL;
	unsigned int k, n = 0;
	uint8_t masked[16];
	int plen;

	memset(it, 0, sizeof(*it));
	it->naddrs = 1;
	if (jumps && r->target.kind == TARGET_JUMP) {
		if (r->target.jump_index == (uint32_t)(r - t->rules) + 1)
			return false;
		it->shape.verdict = CG_RUN_JUMP;
	} else {
		if (r->target.kind != TARGET_VERDICT ||
		    (r->target.verdict != -NF_DROP - 1 && r->target.verdict != -NF_ACCEPT - 1 &&
		     r->target.verdict != XT_RETURN))
			return false;
		it->shape.verdict = r->target.verdict;
	}
	/* RULE_F_GOTO is a flag: a goto never folds. */
	if ((ip->flags & ~RULE_F_PROTO) || ip->invflags || !zero(ip->iniface_mask, IFNAMSIZ) ||
	    !zero(ip->outiface_mask, IFNAMSIZ))
		return false;
	/* ip6_packet_match() tests a protocol with IP6T_F_PROTO alone: -p all tests one too. */
	if (!(ip->flags & RULE_F_PROTO) != !ip->proto)
		return false;

	/* At most one of -s / -d, a prefix mask, no address bits outside it. */
	if ((s && d) || (!s && !zero(ip->src, alen)) || (!d && !zero(ip->dst, alen)))
		return false;
	if (s || d) {
		const uint8_t *a = s ? ip->src : ip->dst;

		plen = prefix_len(s ? ip->smsk : ip->dmsk, alen);
		if (plen <= 0)
			return false;
		mask_addr(a, plen, masked);
		if (memcmp(masked, a, alen))
			return false;
		if (it->shape.verdict == CG_RUN_JUMP && plen != 8 * (int)alen)
			return false;
		memcpy(it->addrs[0].addr, a, alen);
		it->addrs[0].plen = plen;
		it->shape.addr = s ? 1 : 2;
	}

	/* Matches that hold for every packet (-m comment) test nothing: skip them. */
	for (k = 0; k < r->num_matches; k++) {
		if (r->matches[k].ops->always)
			continue;
		m = &r->matches[k];
		n++;
	}
	if (!n)
		/* An address alone; -p without a port match stays a rule. */
		return !ip->proto && it->shape.addr;
	if (n != 1)
		return false;
	/* IPv4 ranges fold as prefixes; IPv6 ones stay rules. */
	if (m->ops == &iprange_match_ops)
		return alen == 4 && it->shape.verdict != CG_RUN_JUMP && !ip->proto &&
		       !it->shape.addr && iprange_prefixes(m->data, it);
	it->shape.proto = ip->proto;
	if (m->ops == &multiport_match_ops) {
		it->shape.multiport = true;
		return multiport_ranges(m->data, it);
	}
	it->nranges = 1;
	if (ip->proto == IPPROTO_TCP && m->ops == &tcp_match_ops) {
		const struct xt_tcp *tcp = m->data;

		if (tcp->spts[0] || tcp->spts[1] != 0xffff || tcp->option || tcp->flg_mask ||
		    tcp->flg_cmp || tcp->invflags)
			return false;
		it->ranges[0].lo = tcp->dpts[0];
		it->ranges[0].hi = tcp->dpts[1];
	} else if (ip->proto == IPPROTO_UDP && m->ops == &udp_match_ops) {
		const struct xt_udp *udp = m->data;

		if (udp->spts[0] || udp->spts[1] != 0xffff || udp->invflags)
			return false;
		it->ranges[0].lo = udp->dpts[0];
		it->ranges[0].hi = udp->dpts[1];
	} else {
		return false;
	}
	it->l4 = ip->proto;
	if (it->shape.verdict == CG_RUN_JUMP)
		it->shape.proto = RUN_L4;
	/* An empty range never matches: it stays a rule. */
	return it->ranges[0].lo <= it->ranges[0].hi &&
	       it->ranges[0].hi - it->ranges[0].lo < RUN_MAX_RANGE;
}

/* A set key's port word for rule @it's port @port: with RUN_L4, its protocol too. */
static uint32_t key_port(const struct run_item *it, uint32_t port)
{
	return it->shape.proto == RUN_L4 ? (uint32_t)it->l4 << 16 | port : port;
}

static bool same_shape(const struct run_shape *a, const struct run_shape *b)
{
	return a->proto == b->proto && a->multiport == b->multiport && a->addr == b->addr &&
	       a->verdict == b->verdict;
}

/* The set already built for the run [i, i + len) (a chain inlined again), or -1. */
static long find_set(const struct codegen *cg, uint32_t i, uint32_t len, bool addr_only)
{
	uint32_t k;

	for (k = 0; k < cg->nsets; k++)
		if (cg->sets[k].start == i && cg->sets[k].len == len &&
		    cg->sets[k].addr_only == addr_only)
			return k;
	return -1;
}

/* A run's key of one rule: port (0 without), address; the rule's index. */
struct run_key {
	uint8_t addr[16];
	uint32_t port;		/* key_port() */
	uint32_t rule;
};

static int cmp_run_key(const void *a, const void *b)
{
	const struct run_key *x = a, *y = b;
	int c = memcmp(x->addr, y->addr, sizeof(x->addr));

	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* Append the keys of rule @k (@it) to *@keys: 0 or -ENOMEM. */
static int run_keys_add(struct run_key **keys, uint32_t *n, uint32_t *cap,
			const struct run_item *it, uint32_t k)
{
	unsigned int a, r, nr = it->shape.proto ? it->nranges : 1;
	uint32_t p, lo, hi;

	for (a = 0; a < it->naddrs; a++) {
		for (r = 0; r < nr; r++) {
			lo = it->shape.proto ? it->ranges[r].lo : 0;
			hi = it->shape.proto ? it->ranges[r].hi : 0;
			for (p = lo; p <= hi; p++) {
				if (*n == *cap) {
					struct run_key *nk;

					*cap = *cap ? 2 * *cap : 256;
					nk = realloc(*keys, *cap * sizeof(*nk));
					if (!nk)
						return -ENOMEM;
					*keys = nk;
				}
				memset(&(*keys)[*n], 0, sizeof(**keys));
				memcpy((*keys)[*n].addr, it->addrs[a].addr, 16);
				(*keys)[*n].port = key_port(it, p);
				(*keys)[(*n)++].rule = k;
			}
		}
	}
	return 0;
}

/*
 * The longest prefix of the jump run [i, i + n) in which no two rules share
 * a key. Only then is the first rule that matches the only one: when its
 * chain returns, ipt_do_table() would test the run's later rules and none
 * would match, so the walk goes on after the run (cg_entry LEAVES).
 * 0 on ENOMEM (the run stays rules).
 */
static uint32_t jump_run_distinct(const struct codegen *cg, uint32_t i, uint32_t n)
{
	struct run_key *keys = NULL, *x, *y;
	uint32_t nkeys = 0, cap = 0, k, end = n;
	struct run_item it;

	for (k = i; k < i + n; k++) {
		classify(cg->table, &cg->table->rules[k], &it, true);
		if (run_keys_add(&keys, &nkeys, &cap, &it, k)) {
			end = 0;
			goto out;
		}
	}
	qsort(keys, nkeys, sizeof(*keys), cmp_run_key);
	for (k = 1; k < nkeys; k++) {
		x = &keys[k - 1];
		y = &keys[k];
		if (!memcmp(x->addr, y->addr, 16) && x->port == y->port && x->rule != y->rule &&
		    y->rule - i < end)
			end = y->rule - i;
	}
out:
	free(keys);
	return end;
}

uint32_t cg_run_length(const struct codegen *cg, uint32_t i, bool *jumps)
{
	const struct table *t = cg->table;
	const bool fold_jumps = cg->plan && cg->fold_jump_min;
	struct run_item first, it;
	uint32_t n;

	*jumps = false;
	if (!cg->fold_min || !classify(t, &t->rules[i], &first, fold_jumps))
		return 0;
	for (n = 1; i + n < t->num_entries; n++)
		if (!classify(t, &t->rules[i + n], &it, fold_jumps) ||
		    !same_shape(&it.shape, &first.shape))
			break;
	if (first.shape.verdict == CG_RUN_JUMP) {
		if (n < cg->fold_jump_min)
			return 0;
		n = jump_run_distinct(cg, i, n);
		if (n < cg->fold_jump_min)
			return 0;
		*jumps = true;
	} else if (n < cg->fold_min) {
		return 0;
	}
	/* Past the map budget of one program, new runs stay rules. */
	if (cg->nsets + 2 > CG_MAX_SETS && find_set(cg, i, n, false) < 0)
		return 0;
	return n;
}

static int set_add(struct cg_set *s, const uint8_t *addr, uint32_t port, uint8_t plen,
		   uint32_t index)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64;
		struct cg_set_elem *e = realloc(s->elems, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		s->elems = e;
		s->cap = cap;
	}
	s->elems[s->n] = (struct cg_set_elem){ .port = port, .plen = plen, .index = index };
	memcpy(s->elems[s->n++].addr, addr, s->alen);
	return 0;
}

/*
 * Build (or find) the set of the run [i, i + len) of shape @sh, or with
 * @addr_only the set of its addresses alone: its number in *out.
 */
static int build_set(struct codegen *cg, uint32_t i, uint32_t len, const struct run_shape *sh,
		     bool addr_only, uint32_t *out)
{
	long found = find_set(cg, i, len, addr_only);
	struct cg_set *s;
	struct run_item it;
	bool full = true;	/* every address a full one: a hash, not a trie */
	uint32_t k, p, r, a;
	int err = 0;

	if (found >= 0) {
		*out = found;
		return 0;
	}
	if (cg->nsets == cg->sets_cap) {
		uint32_t cap = cg->sets_cap ? 2 * cg->sets_cap : 8;
		struct cg_set *n = realloc(cg->sets, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		cg->sets = n;
		cg->sets_cap = cap;
	}
	s = &cg->sets[cg->nsets];
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->start = i;
	s->len = len;
	s->addr_only = addr_only;
	s->alen = addr_len(cg->table);
	for (k = i; k < i + len && !err; k++) {
		classify(cg->table, &cg->table->rules[k], &it, true);
		for (a = 0; a < it.naddrs && !err; a++) {
			const uint8_t *addr = it.addrs[a].addr;
			uint8_t plen = it.addrs[a].plen;

			full &= !sh->addr || plen == 8 * s->alen;
			if (!sh->proto || addr_only)
				err = set_add(s, addr, key_port(&it, 0), plen, k);
			for (r = 0; sh->proto && !addr_only && r < it.nranges; r++)
				for (p = it.ranges[r].lo; p <= it.ranges[r].hi && !err; p++)
					err = set_add(s, addr, key_port(&it, p), plen, k);
		}
	}
	if (err) {
		free(s->elems);
		return err;
	}
	s->l4_key = sh->proto == RUN_L4;
	if (s->l4_key)
		/* The protocol is in the key, also of the run's addresses alone. */
		s->type = sh->addr ? CG_SET_PORT_ADDR_HASH : CG_SET_PORT;
	else if (!sh->proto || addr_only)
		s->type = full ? CG_SET_ADDR_HASH : CG_SET_ADDR_LPM;
	else if (!sh->addr)
		s->type = CG_SET_PORT;
	else
		s->type = full ? CG_SET_PORT_ADDR_HASH : CG_SET_PORT_ADDR_LPM;
	*out = cg->nsets++;
	return 0;
}

static void emit_lookup(struct codegen *cg, uint32_t set, int addr_off);

/* Copy @len bytes of scratch from @src to @dst in @size (BPF_W, BPF_H) pieces. */
static void copy_scratch(struct codegen *cg, int dst, int src, unsigned int len, int size)
{
	const unsigned int step = size == BPF_W ? 4 : 2;
	unsigned int b;

	for (b = 0; b < len; b += step) {
		cg_emit(cg, CG_LDX(size, BPF_REG_1, CG_REG_PKT, src + b));
		cg_emit(cg, CG_STX(size, CG_REG_PKT, BPF_REG_1, dst + b));
	}
}

/*
 * Look the packet's address up in RUN_L4 address set @set as if it were a
 * packet of protocol @proto (emit_lookup()'s key with a fixed port word):
 * r0 = value or NULL.
 */
static void emit_l4_addr_lookup(struct codegen *cg, uint32_t set, int addr_off, uint8_t proto)
{
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_SETKEY, (int32_t)proto << 16));
	copy_scratch(cg, CG_OFF_SETKEY + 4, addr_off, cg->sets[set].alen, BPF_W);
	cg_lookup_set(cg, set, CG_OFF_SETKEY);
}

/*
 * The checks before a RUN_L4 run's lookup, per the packet's protocol as
 * tcp_mt() and udp_mt() make them: a TCP or UDP first fragment with its
 * whole header goes on to the lookup; a later fragment never matches (TCP:
 * offset 1 is a hotdrop); a header cut short is a hotdrop. A hotdrop only
 * for a rule of the packet's protocol whose address matched: the run's
 * addresses with their protocol (or, without addresses, its protocols)
 * are a set of their own.
 *
 * IPv6: ip6_packet_match() tests the addresses, then hotdrops when the
 * extension header walk failed, whatever the rule's protocol. So such a
 * packet is dropped if its address is one of the run's with either
 * protocol (the same set, looked up as TCP's and as UDP's: the run needs
 * no third map), or at once in a run without addresses.
 */
static int gen_l4_checks(struct codegen *cg, uint32_t i, uint32_t len,
			 const struct run_shape *sh, int addr_off, uint32_t skip)
{
	const bool v4 = cg->table->fam == &family_ipv4;
	uint32_t lookup = cg_new_label(cg), tcp = cg_new_label(cg);
	uint32_t hotdrop = cg_new_label(cg), drop = cg_new_label(cg);
	uint32_t nh_bad = cg_new_label(cg), aset;
	int err;

	if (cg->err)
		return cg->err;
	cg_ld_proto(cg, BPF_REG_1);
	if (!v4)
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, CG_NH_BAD, 0), sh->addr ? nh_bad : drop);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, IPPROTO_TCP, 0), tcp);
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, IPPROTO_UDP, 0), skip);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, CG_REG_FRAG));
	cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_2, CG_REG_L4ERR));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 0), lookup);
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 0, 0), skip);
	cg_ja(cg, hotdrop);
	cg_place(cg, tcp);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, CG_REG_FRAG));
	cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_2, CG_REG_L4ERR));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 0), lookup);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGT, CG_REG_FRAG, 1, 0), skip);
	cg_place(cg, hotdrop);
	err = build_set(cg, i, len, sh, true, &aset);
	if (err)
		return err;
	emit_lookup(cg, aset, addr_off);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), skip);
	if (!v4 && sh->addr) {
		/* Jumps go forward only: the failed walk's lookups come before the drop. */
		cg_ja(cg, drop);
		cg_place(cg, nh_bad);
		emit_l4_addr_lookup(cg, aset, addr_off, IPPROTO_TCP);
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0), drop);
		emit_l4_addr_lookup(cg, aset, addr_off, IPPROTO_UDP);
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), skip);
	}
	cg_place(cg, drop);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, lookup);
	return cg->err;
}

int cg_gen_run(struct codegen *cg, uint32_t i, uint32_t len, uint32_t skip, bool count)
{
	const bool v4 = cg->table->fam == &family_ipv4;
	struct run_item it;
	uint32_t set, aset, lookup, hotdrop;
	int addr_off, err;

	if (!classify(cg->table, &cg->table->rules[i], &it, true))
		return -EINVAL;
	err = build_set(cg, i, len, &it.shape, false, &set);
	if (err)
		return err;
	if (v4)
		addr_off = CG_OFF_IPH + (it.shape.addr == 2 ? 16 : 12);
	else
		addr_off = CG_OFF_IP6 + (it.shape.addr == 2 ? 24 : 8);
	if (it.shape.proto == RUN_L4) {
		err = gen_l4_checks(cg, i, len, &it.shape, addr_off, skip);
		if (err)
			return err;
	} else if (it.shape.proto) {
		lookup = cg_new_label(cg);
		hotdrop = cg_new_label(cg);
		/* ip_packet_match(), ip6_packet_match(): -p; IPv6's failed walk hotdrops. */
		cg_ld_proto(cg, BPF_REG_1);
		if (!v4)
			cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, CG_NH_BAD, 0), hotdrop);
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, it.shape.proto, 0), skip);
		/*
		 * tcp_mt()/udp_mt() before the ports: a first fragment with its
		 * header goes to the lookup. Other fragments never match (tcp:
		 * offset 1 is a hotdrop), a short header is a hotdrop; but only
		 * for a rule whose addresses matched (ip_packet_match() runs
		 * first), so with addresses in the shape, a hotdrop needs one of
		 * the run's addresses to match.
		 */
		if (it.shape.multiport) {
			/* multiport_mt(): later fragments fail; only the 4 port bytes are needed. */
			cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 0, 0), skip);
			cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_L4ERR, CG_L4_NONE, 0), lookup);
		} else {
			cg_emit(cg, CG_MOV64_REG(BPF_REG_1, CG_REG_FRAG));
			cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_1, CG_REG_L4ERR));
			cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0), lookup);
			cg_jmp(cg, CG_JMP_IMM(it.shape.proto == IPPROTO_TCP ? BPF_JGT : BPF_JNE,
					      CG_REG_FRAG, it.shape.proto == IPPROTO_TCP ? 1 : 0, 0),
			       skip);
		}
		cg_place(cg, hotdrop);
		if (it.shape.addr) {
			err = build_set(cg, i, len, &it.shape, true, &aset);
			if (err)
				return err;
			emit_lookup(cg, aset, addr_off);
			cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), skip);
		}
		cg_exit_verdict(cg, CG_NF_DROP);
		cg_place(cg, lookup);
	}
	emit_lookup(cg, set, addr_off);
	/* No rule of the run matches: on to the rule after it. */
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), skip);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, BPF_REG_0, 0));
	if (count) {
		/* The index for the caller: cg_counter_reg() takes r1. */
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_RULE));
		cg_counter_reg(cg, BPF_REG_1, i, i + len);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_RULE));
	}
	return cg->err;
}

/* Build the key of set @set from the packet and look it up: r0 = value or NULL. */
static void emit_lookup(struct codegen *cg, uint32_t set, int addr_off)
{
	const unsigned int alen = cg->sets[set].alen;
	const int k = CG_OFF_SETKEY;

	switch (cg->sets[set].type) {
	case CG_SET_ADDR_HASH:
		copy_scratch(cg, k, addr_off, alen, BPF_W);
		break;
	case CG_SET_ADDR_LPM:
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, k, 8 * alen));
		copy_scratch(cg, k + 4, addr_off, alen, BPF_W);
		break;
	case CG_SET_PORT:
	case CG_SET_PORT_ADDR_HASH:
		if (cg->sets[set].l4_key && cg->sets[set].addr_only) {
			cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 0));
		} else {
			cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 2));
			cg_emit(cg, CG_BE16(BPF_REG_1));
		}
		if (cg->sets[set].l4_key) {
			/* key_port(): the protocol above the port. */
			cg_ld_proto(cg, BPF_REG_2);
			cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_2, 16));
			cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_1, BPF_REG_2));
		}
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, k));
		if (cg->sets[set].type == CG_SET_PORT)
			break;
		copy_scratch(cg, k + 4, addr_off, alen, BPF_W);
		break;
	case CG_SET_PORT_ADDR_LPM:
		/* prefixlen, port (big endian), address: 2-byte pieces keep accesses aligned */
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, k, 16 + 8 * alen));
		copy_scratch(cg, k + 4, CG_OFF_L4 + 2, 2, BPF_H);
		copy_scratch(cg, k + 6, addr_off, alen, BPF_H);
		break;
	}
	cg_lookup_set(cg, set, k);
}

/* Order of elements: port, prefix length, address, rule index. */
static int cmp3(const struct cg_set_elem *x, uint32_t port, uint8_t plen, const uint8_t *addr)
{
	if (x->port != port)
		return x->port < port ? -1 : 1;
	if (x->plen != plen)
		return x->plen < plen ? -1 : 1;
	return memcmp(x->addr, addr, sizeof(x->addr));
}

static int cmp_elem(const void *a, const void *b)
{
	const struct cg_set_elem *x = a, *y = b;
	int c = cmp3(x, y->port, y->plen, y->addr);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Index of the element (port, plen, addr) in the sorted, deduplicated @e[0..n), or -1. */
static long find_elem(const struct cg_set_elem *e, uint32_t n, uint32_t port, uint8_t plen,
		      const uint8_t *addr)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = cmp3(&e[mid], port, plen, addr);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Sort, keep the smallest index of duplicates and, for prefixes, fold in
 * the smallest index of every shorter prefix that contains them (see the
 * top of this file). Shorter prefixes sort first, so theirs are final.
 */
static void set_normalize(struct cg_set *s)
{
	uint32_t i, n = 0;
	int p;

	qsort(s->elems, s->n, sizeof(*s->elems), cmp_elem);
	for (i = 0; i < s->n; i++)
		if (!n || cmp3(&s->elems[n - 1], s->elems[i].port, s->elems[i].plen,
			       s->elems[i].addr))
			s->elems[n++] = s->elems[i];
	s->n = n;
	if (s->type != CG_SET_ADDR_LPM && s->type != CG_SET_PORT_ADDR_LPM)
		return;
	for (i = 0; i < s->n; i++) {
		struct cg_set_elem *e = &s->elems[i];
		uint8_t shorter[16];

		for (p = e->plen - 1; p > 0; p--) {
			long a;

			mask_addr(e->addr, p, shorter);
			a = find_elem(s->elems, i, e->port, p, shorter);

			if (a >= 0) {
				if (s->elems[a].index < e->index)
					e->index = s->elems[a].index;
				break;
			}
		}
	}
}

/* The map key of @e in set @s, into @key: its size (emit_lookup()'s layout). */
static uint32_t elem_key(const struct cg_set *s, const struct cg_set_elem *e, uint8_t *key)
{
	uint32_t v, port = e->port;
	uint16_t be = htons((uint16_t)e->port);

	switch (s->type) {
	case CG_SET_ADDR_HASH:
		memcpy(key, e->addr, s->alen);
		return s->alen;
	case CG_SET_ADDR_LPM:
		v = e->plen;
		memcpy(key, &v, 4);
		memcpy(key + 4, e->addr, s->alen);
		return 4 + s->alen;
	case CG_SET_PORT:
		memcpy(key, &port, 4);
		return 4;
	case CG_SET_PORT_ADDR_HASH:
		memcpy(key, &port, 4);
		memcpy(key + 4, e->addr, s->alen);
		return 4 + s->alen;
	case CG_SET_PORT_ADDR_LPM:
		v = 16 + e->plen;
		memcpy(key, &v, 4);
		memcpy(key + 4, &be, 2);
		memcpy(key + 6, e->addr, s->alen);
		return 6 + s->alen;
	}
	return 0;
}

int codegen_sets_create(struct codegen *cg)
{
	LIBBPF_OPTS(bpf_map_create_opts, lpm, .map_flags = BPF_F_NO_PREALLOC);
	uint8_t key[24];
	uint32_t k, i, ksz;

	for (k = 0; k < cg->nsets; k++) {
		struct cg_set *s = &cg->sets[k];
		bool is_lpm = s->type == CG_SET_ADDR_LPM || s->type == CG_SET_PORT_ADDR_LPM;
		struct cg_set_elem dummy = {};

		if (s->fd >= 0)
			continue;
		set_normalize(s);
		ksz = elem_key(s, &dummy, key);
		s->fd = bpf_map_create(is_lpm ? BPF_MAP_TYPE_LPM_TRIE : BPF_MAP_TYPE_HASH,
				       "bpf_flt_set", ksz, 4, s->n ? s->n : 1, is_lpm ? &lpm : NULL);
		if (s->fd < 0)
			return -errno;
		for (i = 0; i < s->n; i++) {
			elem_key(s, &s->elems[i], key);
			if (bpf_map_update_elem(s->fd, key, &s->elems[i].index, BPF_ANY))
				return -errno;
		}
	}
	return 0;
}
