// SPDX-License-Identifier: GPL-2.0
/* -m icmp, revision 0 (built into net/ipv4/netfilter/ip_tables.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/* icmp_match() and icmp_type_code_match(): (type == 0xFF || (type, code in range)) ^ invert. */
static int icmp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ipt_icmp *icmp = m->data;
	bool inv = icmp->invflags & IPT_ICMP_INV;
	uint32_t ok;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_need_l4(cg, false);
	if (icmp->type == 0xFF) {
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

static int icmp_check(struct context *ctx, const struct ipt_entry *e, const void *data)
{
	const struct ipt_icmp *icmp = data;

	(void)e;
	if (icmp->invflags & ~IPT_ICMP_INV) {
		bf_dbg(ctx, "match 'icmp': unknown invflags 0x%x", icmp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops icmp_match_ops = {
	.id = { .name = "icmp", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_icmp)),
	.usersize = sizeof(struct ipt_icmp),
	.proto = IPPROTO_ICMP,
	.check = icmp_check,
	.gen = icmp_gen,
	.needs = cg_needs_l4,
};
