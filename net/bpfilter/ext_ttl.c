// SPDX-License-Identifier: GPL-2.0
/* -m ttl, revision 0 (net/netfilter/xt_hl.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int ttl_check(struct context *ctx, const struct ipt_ip *ip, const void *data)
{
	const struct ipt_ttl_info *info = data;

	(void)ip;
	if (info->mode > IPT_TTL_GT) {
		bf_dbg(ctx, "match 'ttl': unknown mode %u", info->mode);
		return -EINVAL;
	}
	return 0;
}

/* ttl_mt(): the rule fails on the opposite comparison. */
static int ttl_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	static const uint8_t fail_op[] = {
		[IPT_TTL_EQ] = BPF_JNE, [IPT_TTL_NE] = BPF_JEQ,
		[IPT_TTL_LT] = BPF_JGE, [IPT_TTL_GT] = BPF_JLE,
	};
	const struct ipt_ttl_info *info = m->data;

	(void)rule;
	if (info->mode > IPT_TTL_GT)
		return -EINVAL;
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
	.id = { .name = "ttl", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_ttl_info)),
	.usersize = sizeof(struct ipt_ttl_info),
	.check = ttl_check,
	.gen = ttl_gen,
	.needs = ttl_needs,
};
