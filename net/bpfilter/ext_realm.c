// SPDX-License-Identifier: GPL-2.0
/*
 * -m realm, revision 0 (net/netfilter/xt_realm.c): the routing realm of
 * the packet's route, skb_dst(skb)->tclassid, read from the dst_entry.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_realm.h>

#include "codegen.h"
#include "match.h"

/* realm_mt(): (id == (tclassid & mask)) ^ invert, with the raw u8 invert. */
static int realm_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_realm_info *info = m->data;
	const struct btf_info *bi = cg->bi;

	(void)rule;
	if (!bi->dst_tclassid || !bi->skb_refdst)
		return cg_unsupported(cg, "realm: this kernel has no route realms");
	/* skb_dst(): _skb_refdst & SKB_DST_PTRMASK. Every hook realm allows has a route. */
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, bi->skb_refdst));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, -2));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, bi->dst_tclassid));
	cg_probe_read(cg, CG_OFF_KARG, 4);
	cg_u32_masked(cg, CG_OFF_KARG, info->mask, info->id, info->invert);
	return cg->err;
}

const struct match_ops realm_match_ops = {
	.id = { .name = "realm", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_realm_info)),
	.usersize = sizeof(struct xt_realm_info),
	.hooks = (1u << NF_INET_POST_ROUTING) | (1u << NF_INET_FORWARD) |
		 (1u << NF_INET_LOCAL_OUT) | (1u << NF_INET_LOCAL_IN),
	.gen = realm_gen,
};
