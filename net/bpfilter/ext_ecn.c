// SPDX-License-Identifier: GPL-2.0
/* -m ecn, revision 0 (ecn_mt4() in net/netfilter/xt_ecn.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_ecn.h>

#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

/* The CWR and ECE bits of the TCP flags byte (struct tcphdr byte 13). */
#define ECN_TCP_FLAGS	13
#define ECN_TCP_ECE	0x40
#define ECN_TCP_CWR	0x80

static int ecn_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_ecn_info *info = data;

	if ((info->operation & XT_ECN_OP_MATCH_MASK) || (info->invert & XT_ECN_OP_MATCH_MASK)) {
		bf_dbg(ctx, "match 'ecn': unknown operation 0x%x or invert 0x%x",
		       info->operation, info->invert);
		return -EINVAL;
	}
	if ((info->operation & (XT_ECN_OP_MATCH_ECE | XT_ECN_OP_MATCH_CWR)) &&
	    (r->ip.proto != IPPROTO_TCP || (r->ip.invflags & XT_INV_PROTO))) {
		bf_xt_info(ctx, "xt_ecn: cannot match TCP bits for non-tcp packets");
		return -EINVAL;
	}
	return 0;
}

/* Fail the rule unless the TCP flag @bit is set, or clear when inverted (match_tcp()). */
static void gen_tcp_bit(struct codegen *cg, uint8_t bit, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_KARG + ECN_TCP_FLAGS));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, bit));
	cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
}

/*
 * ecn_mt4(): the IP test, then the TCP bits from the 20 bytes at the
 * transport offset. match_tcp() does not skip fragments (its rule is -p tcp;
 * a non-first fragment's first bytes are read as a header) and a packet
 * without those bytes does not match: no hotdrop.
 */
static int ecn_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_ecn_info *info = m->data;
	uint32_t hit;

	(void)rule;
	if (info->operation & XT_ECN_OP_MATCH_IP) {
		hit = cg_new_label(cg);
		/* match_ip(), match_ipv6(): the DS field's low bits. */
		cg_ds_field(cg, BPF_REG_1);
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, XT_ECN_IP_MASK & 0xff));
		cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, info->ip_ect, 0), hit);
		cg_result(cg, hit, !(info->invert & XT_ECN_OP_MATCH_IP),
			  info->invert & XT_ECN_OP_MATCH_IP);
	}
	if (!(info->operation & (XT_ECN_OP_MATCH_ECE | XT_ECN_OP_MATCH_CWR)))
		return cg->err;
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, CG_OFF_THOFF));
	cg_read_packet(cg, CG_OFF_KARG, 20);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0));
	if (info->operation & XT_ECN_OP_MATCH_ECE)
		gen_tcp_bit(cg, ECN_TCP_ECE, info->invert & XT_ECN_OP_MATCH_ECE);
	if (info->operation & XT_ECN_OP_MATCH_CWR)
		gen_tcp_bit(cg, ECN_TCP_CWR, info->invert & XT_ECN_OP_MATCH_CWR);
	return cg->err;
}

static uint32_t ecn_needs(const void *data)
{
	const struct xt_ecn_info *info = data;

	return (info->operation & (XT_ECN_OP_MATCH_ECE | XT_ECN_OP_MATCH_CWR)) ? CG_NEED_PKT : 0;
}

const struct match_ops ecn_match_ops = {
	.id = { .name = "ecn", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_ecn_info)),
	.usersize = sizeof(struct xt_ecn_info),
	.check = ecn_check,
	.gen = ecn_gen,
	.needs = ecn_needs,
};
