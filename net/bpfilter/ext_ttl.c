// SPDX-License-Identifier: GPL-2.0
/* -m ttl, revision 0 (net/netfilter/xt_hl.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>

#include "codegen.h"
#include "match.h"

/*
 * ttl_mt(): the rule fails on the opposite comparison; an unknown mode
 * never matches. The kernels we run on (6.12, 6.18) have no checkentry for
 * ttl: every mode is taken (6.1's EINVAL for an unknown one is gone).
 */
static int ttl_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	static const uint8_t fail_op[] = {
		[IPT_TTL_EQ] = BPF_JNE, [IPT_TTL_NE] = BPF_JEQ,
		[IPT_TTL_LT] = BPF_JGE, [IPT_TTL_GT] = BPF_JLE,
	};
	const struct ipt_ttl_info *info = m->data;

	(void)rule;
	if (info->mode > IPT_TTL_GT) {
		cg_ja_fail(cg);
		return cg->err;
	}
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH + 8));
	cg_jmp_fail(cg, CG_JMP_IMM(fail_op[info->mode], BPF_REG_1, info->ttl, 0));
	return cg->err;
}

static uint32_t ttl_needs(const void *data)
{
	(void)data;
	return CG_NEED_TTL;
}

const struct match_ops ttl_match_ops = {
	.id = { .name = "ttl", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_ttl_info)),
	.usersize = sizeof(struct ipt_ttl_info),
	.gen = ttl_gen,
	.needs = ttl_needs,
};
