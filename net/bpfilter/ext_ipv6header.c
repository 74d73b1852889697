// SPDX-License-Identifier: GPL-2.0
/* -m ipv6header, revision 0 (net/ipv6/netfilter/ip6t_ipv6header.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_ipv6header.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/* Scratch of the walk: the header's first two bytes, then its state. */
#define IH_HDR		(CG_OFF_KARG)
#define IH_TEMP		(CG_OFF_KARG + 8)	/* u32: the MASK_* bits seen */
#define IH_PTR		(CG_OFF_KARG + 12)	/* u32: the header's offset */
#define IH_NH		(CG_OFF_KARG + 16)	/* u32: its kind */
/*
 * Headers the walk reads: twice the prologue's walk, as this one goes on
 * past fragments. The kernel's loop is bounded by the packet only.
 */
#define IH_MAX_HEADERS	(2 * CG_IP6_MAX_EXTHDRS)

static int ipv6header_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_ipv6header_info *info = data;

	(void)r;
	/* invflags is 0 or 0xff in hard mode */
	if (!info->modeflag && info->invflags != 0x00 && info->invflags != 0xFF) {
		bf_dbg(ctx, "match 'ipv6header': invflags 0x%x without --soft", info->invflags);
		return -EINVAL;
	}
	return 0;
}

/* Jump to @label if r1 is one of nf_ip6_ext_hdr()'s kinds. */
static void jmp_if_nf_ext(struct codegen *cg, uint32_t label)
{
	static const uint8_t ext[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
				       IPPROTO_ESP, IPPROTO_AH, IPPROTO_NONE, IPPROTO_DSTOPTS };
	unsigned int i;

	for (i = 0; i < sizeof(ext); i++)
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, ext[i], 0), label);
}

static void or_temp(struct codegen *cg, uint32_t bits)
{
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, CG_REG_PKT, IH_TEMP));
	cg_emit(cg, CG_ALU32_IMM(BPF_OR, BPF_REG_2, bits));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_2, IH_TEMP));
}

/* A header kind (r1) that ends the walk: NONE and ESP, noted in temp. */
static void end_at(struct codegen *cg, uint8_t nexthdr, uint32_t bits, uint32_t eval)
{
	uint32_t other = cg_new_label(cg);

	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, nexthdr, 0), other);
	or_temp(cg, bits);
	cg_ja(cg, eval);
	cg_place(cg, other);
}

/*
 * One turn of ipv6header_mt6()'s loop; @eval: its end, where temp is
 * judged. @last: a header to read here is one more than we walk: drop.
 */
static void gen_turn(struct codegen *cg, uint32_t eval, bool last)
{
	static const struct { uint8_t nh; uint8_t mask; } kinds[] = {
		{ IPPROTO_HOPOPTS, MASK_HOPOPTS }, { IPPROTO_ROUTING, MASK_ROUTING },
		{ IPPROTO_FRAGMENT, MASK_FRAGMENT }, { IPPROTO_AH, MASK_AH },
		{ IPPROTO_DSTOPTS, MASK_DSTOPTS },
	};
	uint32_t ext = cg_new_label(cg), room = cg_new_label(cg);
	uint32_t opt = cg_new_label(cg), len = cg_new_label(cg);
	unsigned int i;

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, IH_NH));
	jmp_if_nf_ext(cg, ext);
	cg_ja(cg, eval);
	cg_place(cg, ext);
	end_at(cg, IPPROTO_NONE, MASK_NONE, eval);
	/* len = skb->len - ptr, never negative here: under 2 bytes, no match. */
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, CG_REG_PKT, IH_PTR));
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_3));
	cg_jmp(cg, CG_JMP_IMM(BPF_JSGE, BPF_REG_2, 2, 0), room);
	cg_ja_fail(cg);
	cg_place(cg, room);
	end_at(cg, IPPROTO_ESP, MASK_ESP, eval);
	if (last) {
		cg_exit_verdict(cg, CG_NF_DROP);
		return;
	}
	cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
	cg_read_or_hotdrop(cg, BPF_REG_4, IH_HDR, 2);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, IH_NH));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		uint32_t skip = cg_new_label(cg);

		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, kinds[i].nh, 0), skip);
		or_temp(cg, kinds[i].mask);
		cg_place(cg, skip);
	}
	/* The header's length: 8 for a fragment, ipv6_authlen(), ipv6_optlen(). */
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, CG_REG_PKT, IH_HDR + 1));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, IPPROTO_FRAGMENT, 0), opt);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 8));
	cg_ja(cg, len);
	cg_place(cg, opt);
	cg_ip6_optlen(cg);
	cg_place(cg, len);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, IH_HDR));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, IH_NH));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, CG_REG_PKT, IH_PTR));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_3, IH_PTR));
	/* if (ptr > skb->len) break; */
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_jmp(cg, CG_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_2, 0), eval);
}

/*
 * ipv6header_mt6(): its own walk from the fixed header, through later
 * fragments too, noting each kind of header; then the protocol bit and
 * the soft (--soft: the headers asked for are there, or not) or hard
 * (exactly those headers, or not) test. The walk is unrolled for
 * IH_MAX_HEADERS headers: a longer chain is dropped (fail closed).
 */
static int ipv6header_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_ipv6header_info *info = m->data;
	uint32_t eval = cg_new_label(cg), proto = cg_new_label(cg), hit = cg_new_label(cg);
	unsigned int k;

	(void)rule;
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, IH_TEMP, 0));
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, IH_PTR, 40));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 6));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, IH_NH));
	for (k = 0; k <= IH_MAX_HEADERS; k++)
		gen_turn(cg, eval, k == IH_MAX_HEADERS);
	cg_place(cg, eval);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, IH_NH));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, CG_REG_PKT, IH_TEMP));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, IPPROTO_NONE, 0), proto);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, IPPROTO_ESP, 0), proto);
	cg_emit(cg, CG_ALU32_IMM(BPF_OR, BPF_REG_2, MASK_PROTO));
	cg_place(cg, proto);
	if (info->modeflag) {
		/* !((temp ^ matchflags ^ invflags) & matchflags) */
		cg_emit(cg, CG_ALU32_IMM(BPF_XOR, BPF_REG_2,
					 (uint8_t)(info->matchflags ^ info->invflags)));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSET, BPF_REG_2, info->matchflags, 0));
		return cg->err;
	}
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_2, info->matchflags, 0), hit);
	cg_result(cg, hit, !info->invflags, info->invflags);
	return cg->err;
}

static uint32_t ipv6header_needs(const void *data)
{
	(void)data;
	return CG_NEED_PKT;
}

const struct match_ops ipv6header_match_ops = {
	.id = { .name = "ipv6header", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_ipv6header_info)),
	.usersize = sizeof(struct ip6t_ipv6header_info),
	.check = ipv6header_check,
	.gen = ipv6header_gen,
	.needs = ipv6header_needs,
};
