// SPDX-License-Identifier: GPL-2.0
/* -m length, revision 0 (net/netfilter/xt_length.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_length.h>

#include "codegen.h"
#include "family.h"
#include "match.h"
#include "table.h"

/*
 * length_mt(): (min <= skb_ip_totlen() <= max) ^ invert, raw u8 invert.
 * skb_ip_totlen() is tot_len, or skb->len when tot_len is 0: at these
 * hooks only a BIG TCP GSO packet has tot_len 0 (ip_rcv() drops others,
 * __ip_local_out() writes tot_len unless the packet is over 64k).
 * length_mt6() takes skb->len.
 */
static int length_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_length_info *info = m->data;
	uint32_t hit = cg_new_label(cg), have = cg_new_label(cg), whole = cg_new_label(cg);

	(void)rule;
	/* length_mt6(): skb->len. */
	if (cg->table->fam != &family_ipv4)
		cg_ja(cg, whole);
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH + 2));
	cg_emit(cg, CG_BE16(BPF_REG_1));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0), have);
	cg_place(cg, whole);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_place(cg, have);
	cg_jmp_if_in(cg, BPF_REG_1, info->min, info->max, hit);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
	return cg->err;
}

const struct match_ops length_match_ops = {
	.id = { .name = "length", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_length_info)),
	.usersize = sizeof(struct xt_length_info),
	.gen = length_gen,
};
