// SPDX-License-Identifier: GPL-2.0
/* -m mark, revision 1, and -j MARK, revision 2 (net/netfilter/xt_mark.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_mark.h>

#include "codegen.h"
#include "match.h"
#include "target.h"

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

/* Neither the match nor the target has a checkentry in the kernel. */
const struct match_ops mark_match_ops = {
	.id = { .name = "mark", .revision = 1, .families = EXT_UNSPEC,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_mark_mtinfo1)),
	.usersize = sizeof(struct xt_mark_mtinfo1),
	.gen = mark_gen,
	.needs = mark_needs,
};

/*
 * mark_tg(): skb->mark = (skb->mark & ~mask) ^ mark, through bpfilter.ko's
 * kfunc (a program cannot write skb->mark), then XT_CONTINUE. --set-mark,
 * --and-mark, --or-mark and --xor-mark are this too (iptables turns them
 * into mask and mark). The scratch copy that later -m mark rules test
 * changes the same way.
 */
static int mark_tg_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	const struct xt_mark_tginfo2 *info = t->data;

	(void)rule;
	if (cg->bi->kf_mark < 0)
		return cg_unsupported(cg, "MARK: needs the kfuncs of bpfilter.ko");
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, info->mask));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, info->mark));
	cg_call_module_kfunc(cg, cg->bi->kf_mark);
	if (cg->needs & CG_NEED_MARK) {
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_MARK));
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, ~info->mask));
		cg_emit(cg, CG_ALU32_IMM(BPF_XOR, BPF_REG_1, info->mark));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_MARK));
	}
	return cg->err;
}

const struct target_ops mark_target_ops = {
	.id = { .name = "MARK", .revision = 2, .families = EXT_UNSPEC,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_mark_tginfo2)),
	.usersize = sizeof(struct xt_mark_tginfo2),
	.gen = mark_tg_gen,
	.continues = true,
};
