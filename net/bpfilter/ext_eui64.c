// SPDX-License-Identifier: GPL-2.0
/*
 * -m eui64, revision 0 (net/ipv6/netfilter/ip6t_eui64.c): the source
 * address's interface identifier is the EUI-64 of the sender's Ethernet
 * address, read from the MAC header through skb->head as -m mac does.
 */
#define _GNU_SOURCE

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>

#include "codegen.h"
#include "match.h"

/*
 * eui64_mt6(): no match without an Ethernet device; a hotdrop when the MAC
 * header is unset or shorter than ETH_HLEN (skb_mac_header_len(), a u32:
 * a MAC header after the network header is not "short"); no match unless
 * h_proto is ETH_P_IPV6 and the version 6; then saddr bytes 8-15 must be
 * h_source[0..2] with the universal/local bit flipped, ff, fe,
 * h_source[3..5]. The payload (an int) is never read: no options, no
 * inversion.
 */
static int eui64_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	static const struct { uint8_t saddr, mac, flip; } bytes[] = {
		{ 8, 0, 0x02 }, { 9, 1, 0 }, { 10, 2, 0 },
		{ 13, 3, 0 }, { 14, 4, 0 }, { 15, 5, 0 },
	};
	const int eth = CG_OFF_KARG;
	unsigned int i;
	int err;

	(void)rule;
	(void)m;
	err = cg_eth_header(cg, "eui64: this kernel's BTF lacks a member it reads", true);
	if (err)
		return err;
	cg_probe_read(cg, eth, ETH_HLEN);
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, eth + 2 * ETH_ALEN));
	cg_emit(cg, CG_BE16(BPF_REG_1));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, ETH_P_IPV6, 0));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_1, 4));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 6, 0));
	/* Bytes 11 and 12 of the address are the ff fe EUI-64 puts in the middle. */
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 8 + 11));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0xff, 0));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 8 + 12));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0xfe, 0));
	for (i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 8 + bytes[i].saddr));
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, CG_REG_PKT, eth + ETH_ALEN + bytes[i].mac));
		if (bytes[i].flip)
			cg_emit(cg, CG_ALU64_IMM(BPF_XOR, BPF_REG_2, bytes[i].flip));
		cg_jmp_fail(cg, CG_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 0));
	}
	return cg->err;
}

const struct match_ops eui64_match_ops = {
	.id = { .name = "eui64", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(int)),
	.usersize = sizeof(int),
	.hooks = (1u << NF_INET_PRE_ROUTING) | (1u << NF_INET_LOCAL_IN) |
		 (1u << NF_INET_FORWARD),
	.gen = eui64_gen,
};
