// SPDX-License-Identifier: GPL-2.0
/* -m cpu, revision 0 (net/netfilter/xt_cpu.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_cpu.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/* cpu_mt_check(): invert is 0 or 1. */
static int cpu_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_cpu_info *info = data;

	(void)ctx;
	(void)r;
	return info->invert & ~1u ? -EINVAL : 0;
}

/* cpu_mt(): (cpu == raw_smp_processor_id()) ^ invert. */
static int cpu_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_cpu_info *info = m->data;
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	cg_call_helper(cg, BPF_FUNC_get_smp_processor_id);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_0, info->cpu, 0), hit);
	cg_result(cg, hit, !info->invert, info->invert);
	return cg->err;
}

const struct match_ops cpu_match_ops = {
	.id = { .name = "cpu", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_cpu_info)),
	.usersize = sizeof(struct xt_cpu_info),
	.check = cpu_check,
	.gen = cpu_gen,
};
