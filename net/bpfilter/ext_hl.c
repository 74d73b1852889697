// SPDX-License-Identifier: GPL-2.0
/* -m hl, revision 0 (net/netfilter/xt_hl.c): ttl's IPv6 twin. */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_hl.h>

#include "codegen.h"
#include "match.h"

/*
 * hl_mt6(): the rule fails on the opposite comparison of the hop limit
 * (byte 7 of the IPv6 header, always in the scratch copy); an unknown mode
 * never matches. Like ttl, hl has no checkentry on the kernels we run on
 * (6.12, 6.18): every mode is taken.
 */
static int hl_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	static const uint8_t fail_op[] = {
		[IP6T_HL_EQ] = BPF_JNE, [IP6T_HL_NE] = BPF_JEQ,
		[IP6T_HL_LT] = BPF_JGE, [IP6T_HL_GT] = BPF_JLE,
	};
	const struct ip6t_hl_info *info = m->data;

	(void)rule;
	if (info->mode > IP6T_HL_GT) {
		cg_ja_fail(cg);
		return cg->err;
	}
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 7));
	cg_jmp_fail(cg, CG_JMP_IMM(fail_op[info->mode], BPF_REG_1, info->hop_limit, 0));
	return cg->err;
}

const struct match_ops hl_match_ops = {
	.id = { .name = "hl", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_hl_info)),
	.usersize = sizeof(struct ip6t_hl_info),
	.gen = hl_gen,
};
