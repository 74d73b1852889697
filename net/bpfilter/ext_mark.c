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
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_MARK));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, info->mask));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, info->mark, 0), hit);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
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
