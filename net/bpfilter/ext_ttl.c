// SPDX-License-Identifier: GPL-2.0
/*
 * -m ttl and -m hl, revision 0 (net/netfilter/xt_hl.c): IPv4's TTL and
 * IPv6's hop limit, compared alike.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>
#include <linux/netfilter_ipv6/ip6t_hl.h>

#include "codegen.h"
#include "match.h"

/*
 * ttl_mt() and hl_mt6(): the rule fails on the opposite comparison of the
 * byte at scratch + @off; an unknown mode never matches. The kernels we
 * run on (6.12, 6.18) have no checkentry for either: every mode is taken
 * (6.1's EINVAL for an unknown one is gone). The modes are the same
 * numbers in both (IPT_TTL_* and IP6T_HL_*).
 */
static int compare_gen(struct codegen *cg, int off, uint8_t mode, uint8_t value)
{
	static const uint8_t fail_op[] = {
		[IPT_TTL_EQ] = BPF_JNE, [IPT_TTL_NE] = BPF_JEQ,
		[IPT_TTL_LT] = BPF_JGE, [IPT_TTL_GT] = BPF_JLE,
	};

	if (mode > IPT_TTL_GT) {
		cg_ja_fail(cg);
		return cg->err;
	}
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, off));
	cg_jmp_fail(cg, CG_JMP_IMM(fail_op[mode], BPF_REG_1, value, 0));
	return cg->err;
}

static int ttl_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ipt_ttl_info *info = m->data;

	(void)rule;
	return compare_gen(cg, CG_OFF_IPH + 8, info->mode, info->ttl);
}

/* The hop limit is byte 7 of the IPv6 header, always in the scratch copy. */
static int hl_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_hl_info *info = m->data;

	(void)rule;
	return compare_gen(cg, CG_OFF_IP6 + 7, info->mode, info->hop_limit);
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

const struct match_ops hl_match_ops = {
	.id = { .name = "hl", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_hl_info)),
	.usersize = sizeof(struct ip6t_hl_info),
	.gen = hl_gen,
};
