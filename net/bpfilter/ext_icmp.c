// SPDX-License-Identifier: GPL-2.0
/*
 * -m icmp and -m icmp6, revision 0 (built into ip_tables.c and
 * ip6_tables.c): the same payload, check and test, but for icmp's type
 * 0xFF ("any").
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/*
 * icmp_match() and icmp_type_code_match(): ((@any && type == 0xFF) ||
 * (type, code in range)) ^ invert; icmp6_match() has no "any".
 */
static int type_code_gen(struct codegen *cg, const struct match *m, bool any)
{
	const struct ipt_icmp *icmp = m->data;
	bool inv = icmp->invflags & IPT_ICMP_INV;
	uint32_t ok;

	cg_first_fragment(cg, false);
	cg_need_l4(cg, false);
	if (any && icmp->type == 0xFF) {
		if (inv)
			cg_ja_fail(cg);
		return cg->err;
	}
	if (!inv) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, icmp->type, 0));
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 1));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, icmp->code[0], 0));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, icmp->code[1], 0));
		return cg->err;
	}
	ok = cg_new_label(cg);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, icmp->type, 0), ok);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 1));
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, icmp->code[0], 0), ok);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, icmp->code[1], 0), ok);
	cg_ja_fail(cg);
	cg_place(cg, ok);
	return cg->err;
}

static int icmp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	(void)rule;
	return type_code_gen(cg, m, true);
}

static int icmp6_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	(void)rule;
	return type_code_gen(cg, m, false);
}

static int icmp_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ipt_icmp *icmp = data;

	(void)r;
	if (icmp->invflags & ~IPT_ICMP_INV) {
		bf_dbg(ctx, "match 'icmp': unknown invflags 0x%x", icmp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops icmp_match_ops = {
	.id = { .name = "icmp", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_icmp)),
	.usersize = sizeof(struct ipt_icmp),
	.proto = IPPROTO_ICMP,
	.check = icmp_check,
	.gen = icmp_gen,
	.needs = cg_needs_l4,
};

/* struct ip6t_icmp is struct ipt_icmp, IP6T_ICMP_INV is IPT_ICMP_INV. */
const struct match_ops icmp6_match_ops = {
	.id = { .name = "icmp6", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_icmp)),
	.usersize = sizeof(struct ip6t_icmp),
	.proto = IPPROTO_ICMPV6,
	.check = icmp_check,
	.gen = icmp6_gen,
	.needs = cg_needs_l4,
};
