// SPDX-License-Identifier: GPL-2.0
/*
 * -m pkttype, revision 0 (net/netfilter/xt_pkttype.c): the link-layer
 * class of the packet, skb->pkt_type, a bitfield read through BTF.
 */
#define _GNU_SOURCE

#include <linux/if_packet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_pkttype.h>

#include "codegen.h"
#include "family.h"
#include "match.h"
#include "table.h"

/*
 * pkttype_mt(): a looped-back packet counts as multicast if its IPv4
 * destination is, else as broadcast, and an IPv6 one always as multicast;
 * then (type == pkttype) ^ invert with the raw int invert, so any invert
 * but 0 and 1 always matches.
 */
static int pkttype_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_pkttype_info *info = m->data;
	const struct btf_info *bi = cg->bi;
	uint32_t hit = cg_new_label(cg), have = cg_new_label(cg);

	(void)rule;
	if (!bi->skb_pkt_type)
		return cg_unsupported(cg, "pkttype: this kernel's BTF has no sk_buff.pkt_type");
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, BPF_REG_1, bi->skb_pkt_type));
	cg_emit(cg, CG_ALU32_IMM(BPF_RSH, BPF_REG_2, bi->skb_pkt_type_shift));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_2, bi->skb_pkt_type_mask));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_2, PACKET_LOOPBACK, 0), have);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, PACKET_MULTICAST));
	if (cg->table->fam != &family_ipv4)
		cg_ja(cg, have);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, CG_REG_PKT, CG_OFF_IPH + 16));
	cg_emit(cg, CG_BE32(BPF_REG_3));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_3, 0xf0000000));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_3, 0xe0000000, 0), have);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, PACKET_BROADCAST));
	cg_place(cg, have);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_2, info->pkttype, 0), hit);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
	return cg->err;
}

const struct match_ops pkttype_match_ops = {
	.id = { .name = "pkttype", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_pkttype_info)),
	.usersize = sizeof(struct xt_pkttype_info),
	.gen = pkttype_gen,
};
