// SPDX-License-Identifier: GPL-2.0
/* -m mark, revision 1 (net/netfilter/xt_mark.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_mark.h>

#include "codegen.h"
#include "match.h"

/* mark_mt(): ((skb->mark & mask) == mark) ^ invert, with the raw u8 invert. */
static int mark_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_mark_mtinfo1 *info = m->data;

	(void)rule;
	cg_u32_masked(cg, CG_OFF_MARK, info->mask, info->mark, info->invert);
	return cg->err;
}

static uint32_t mark_needs(const void *data)
{
	(void)data;
	return CG_NEED_MARK;
}

/* The match has no checkentry in the kernel (the MARK target has). */
const struct match_ops mark_match_ops = {
	.id = { .name = "mark", .revision = 1, .family = NFPROTO_UNSPEC },
	.size = XT_ALIGN(sizeof(struct xt_mark_mtinfo1)),
	.usersize = sizeof(struct xt_mark_mtinfo1),
	.gen = mark_gen,
	.needs = mark_needs,
};
