// SPDX-License-Identifier: GPL-2.0
/*
 * -m connmark, revision 1 (net/netfilter/xt_connmark.c): the mark of the
 * packet's conntrack entry, nf_conn.mark, read at its BTF offset. Like
 * xt_connmark's checkentry, a rule with it holds conntrack on.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_connmark.h>

#include "codegen.h"
#include "match.h"

/* connmark_mt(): no entry (untracked too), no match; else ((mark & mask) == mark) ^ invert. */
static int connmark_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_connmark_mtinfo1 *info = m->data;

	(void)rule;
	if (!cg->bi->skb_nfct || !cg->bi->ct_mark)
		return cg_unsupported(cg, "connmark: this kernel has no conntrack marks");
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, CG_OFF_NFCT));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, -8));	/* NFCT_PTRMASK */
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 0));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, cg->bi->ct_mark));
	cg_probe_read(cg, CG_OFF_KARG, 4);
	cg_u32_masked(cg, CG_OFF_KARG, info->mask, info->mark, info->invert);
	return cg->err;
}

static uint32_t connmark_needs(const void *data)
{
	(void)data;
	return CG_NEED_CT;
}

const struct match_ops connmark_match_ops = {
	.id = { .name = "connmark", .revision = 1, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_connmark_mtinfo1)),
	.usersize = sizeof(struct xt_connmark_mtinfo1),
	.gen = connmark_gen,
	.needs = connmark_needs,
	.conntrack = true,
};
