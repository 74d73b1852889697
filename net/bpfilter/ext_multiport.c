// SPDX-License-Identifier: GPL-2.0
/* -m multiport, revision 1 (net/netfilter/xt_multiport.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_multiport.h>

#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

/* multiport_valid_ranges(): a range is a flagged port followed by an unflagged, larger one. */
static bool multiport_valid_ranges(const struct xt_multiport_v1 *mp)
{
	unsigned int i;

	for (i = 0; i < mp->count; i++) {
		if (!mp->pflags[i])
			continue;
		if (++i >= mp->count || mp->pflags[i] || mp->ports[i - 1] > mp->ports[i])
			return false;
	}
	return true;
}

/* multiport_mt_check(): one EINVAL for every way the payload or the entry is wrong. */
static int multiport_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_multiport_v1 *mp = data;
	bool proto = r->ip.proto == IPPROTO_TCP || r->ip.proto == IPPROTO_UDP ||
		     r->ip.proto == IPPROTO_UDPLITE || r->ip.proto == IPPROTO_SCTP ||
		     r->ip.proto == IPPROTO_DCCP;

	if (!proto || (r->ip.invflags & XT_INV_PROTO)) {
		bf_dbg(ctx, "match 'multiport': needs -p tcp, udp, udplite, sctp or dccp");
		return -EINVAL;
	}
	if (mp->flags > XT_MULTIPORT_EITHER || mp->count > XT_MULTI_PORTS ||
	    !multiport_valid_ranges(mp)) {
		bf_dbg(ctx, "match 'multiport': bad flags %u, count %u or ranges", mp->flags,
		       mp->count);
		return -EINVAL;
	}
	return 0;
}

/*
 * multiport_mt(): non-first fragments never match; the 4 bytes of ports
 * must be there (else hotdrop); then ports_match_v1(), which returns
 * "true ^ invert" on the first hit and "invert" otherwise, with the raw u8.
 */
static int multiport_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_multiport_v1 *mp = m->data;
	uint32_t hit = cg_new_label(cg);
	unsigned int i;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_need_l4(cg, true);
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_L4));
	cg_emit(cg, CG_BE16(BPF_REG_1));
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_2, CG_REG_PKT, CG_OFF_L4 + 2));
	cg_emit(cg, CG_BE16(BPF_REG_2));
	for (i = 0; i < mp->count; i++) {
		uint16_t lo = mp->ports[i], hi = lo;

		if (mp->pflags[i])
			hi = mp->ports[++i];
		if (mp->flags != XT_MULTIPORT_DESTINATION)
			cg_jmp_if_in(cg, BPF_REG_1, lo, hi, hit);
		if (mp->flags != XT_MULTIPORT_SOURCE)
			cg_jmp_if_in(cg, BPF_REG_2, lo, hi, hit);
	}
	cg_result(cg, hit, mp->invert != 1, mp->invert != 0);
	return cg->err;
}

static uint32_t multiport_needs(const void *data)
{
	(void)data;
	return CG_NEED_PORTS;
}

const struct match_ops multiport_match_ops = {
	.id = { .name = "multiport", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_multiport_v1)),
	.usersize = sizeof(struct xt_multiport_v1),
	.check = multiport_check,
	.gen = multiport_gen,
	.needs = multiport_needs,
};
