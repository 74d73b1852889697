// SPDX-License-Identifier: GPL-2.0
/* -m tcp, revision 0 (net/netfilter/xt_tcpudp.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/*
 * tcp_find_option(): the prologue walked the options once (codegen.c,
 * gen_tcp_option_walk()); here, in tcp_mt()'s order: a bad doff or options
 * cut short are a hotdrop, else the kind is or is not in the set.
 */
static void gen_tcp_option(struct codegen *cg, uint8_t option, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTST));
	cg_drop_if(cg, BPF_REG_1, true);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTSET + 8 * (option / 64)));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_1, option % 64));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, 1));
	/* found: match iff !invert; not found: match iff invert. */
	cg_jmp_fail(cg, CG_JMP_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
}

/* tcp_mt(), check for check in its order, so that hotdrop happens exactly when it does there. */
static int tcp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_tcp *tcp = m->data;

	(void)rule;
	cg_first_fragment(cg, true);
	cg_need_l4(cg, false);
	cg_port_range(cg, 0, tcp->spts[0], tcp->spts[1], tcp->invflags & XT_TCP_INV_SRCPT);
	cg_port_range(cg, 2, tcp->dpts[0], tcp->dpts[1], tcp->invflags & XT_TCP_INV_DSTPT);
	/* NF_INVF(XT_TCP_INV_FLAGS, (th[13] & flg_mask) == flg_cmp) must hold. */
	if (tcp->flg_mask || tcp->flg_cmp || (tcp->invflags & XT_TCP_INV_FLAGS)) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 13));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, tcp->flg_mask));
		cg_jmp_fail(cg, CG_JMP_IMM((tcp->invflags & XT_TCP_INV_FLAGS) ? BPF_JEQ : BPF_JNE,
					   BPF_REG_1, tcp->flg_cmp, 0));
	}
	if (tcp->option)
		gen_tcp_option(cg, tcp->option, tcp->invflags & XT_TCP_INV_OPTION);
	return cg->err;
}

/* The option walk only for rules with --tcp-option: most tables have none. */
static uint32_t tcp_needs(const void *data)
{
	const struct xt_tcp *tcp = data;

	return CG_NEED_L4 | (tcp->option ? CG_NEED_TCPOPT : 0);
}

static int tcp_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_tcp *tcp = data;

	(void)r;
	if (tcp->invflags & ~XT_TCP_INV_MASK) {
		bf_dbg(ctx, "match 'tcp': unknown invflags 0x%x", tcp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops tcp_match_ops = {
	.id = { .name = "tcp", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_tcp)),
	.usersize = sizeof(struct xt_tcp),
	.proto = IPPROTO_TCP,
	.check = tcp_check,
	.gen = tcp_gen,
	.needs = tcp_needs,
};
