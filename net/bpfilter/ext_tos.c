// SPDX-License-Identifier: GPL-2.0
/* -m tos, revision 1 (tos_mt() in net/netfilter/xt_dscp.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_dscp.h>

#include "codegen.h"
#include "match.h"

/* tos_mt(): ((DS field & tos_mask) == tos_value) ^ !!invert, in either family. */
static int tos_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_tos_match_info *info = m->data;
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	cg_ds_field(cg, BPF_REG_1);
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, info->tos_mask));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, info->tos_value, 0), hit);
	cg_result(cg, hit, !info->invert, !!info->invert);
	return cg->err;
}

/* No checkentry in the kernel: every value and mask is taken. */
const struct match_ops tos_match_ops = {
	.id = { .name = "tos", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_tos_match_info)),
	.usersize = sizeof(struct xt_tos_match_info),
	.gen = tos_gen,
};
