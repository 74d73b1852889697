// SPDX-License-Identifier: GPL-2.0
/*
 * -m mac, revision 0 (net/netfilter/xt_mac.c): the Ethernet source address
 * of a received packet, read from its MAC header through skb->head.
 */
#define _GNU_SOURCE

#include <string.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_mac.h>

#include "codegen.h"
#include "match.h"

/*
 * mac_mt(): no match (whatever the invert) without an Ethernet device or a
 * whole MAC header before the network header; else ether_addr_equal() ^
 * invert, with the raw int invert.
 */
static int mac_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_mac_info *info = m->data;
	uint32_t hit = cg_new_label(cg), miss = cg_new_label(cg);
	uint32_t w;
	uint16_t h;
	int err;

	(void)rule;
	err = cg_eth_header(cg, "mac: this kernel's BTF lacks a member it reads", false);
	if (err)
		return err;
	/* eth_hdr(skb)->h_source */
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, ETH_ALEN));
	cg_probe_read(cg, CG_OFF_KARG, ETH_ALEN);
	memcpy(&w, info->srcaddr, 4);
	memcpy(&h, info->srcaddr + 4, 2);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_KARG));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_1, w, 0), miss);
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_KARG + 4));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, h, 0), hit);
	cg_place(cg, miss);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
	return cg->err;
}

const struct match_ops mac_match_ops = {
	.id = { .name = "mac", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_mac_info)),
	.usersize = sizeof(struct xt_mac_info),
	.hooks = (1u << NF_INET_PRE_ROUTING) | (1u << NF_INET_LOCAL_IN) |
		 (1u << NF_INET_FORWARD),
	.gen = mac_gen,
};
