// SPDX-License-Identifier: GPL-2.0
/*
 * -m hbh and -m dst, revision 0 (net/ipv6/netfilter/ip6t_hbh.c): one
 * match for the hop-by-hop and the destination options header.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_opts.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int hbh_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_opts *info = data;

	(void)r;
	if (info->invflags & ~IP6T_OPTS_INV_MASK) {
		bf_dbg(ctx, "match 'hbh/dst': unknown invflags 0x%x", info->invflags);
		return -EINVAL;
	}
	if (info->optsnr > IP6T_OPTS_OPTSNR) {
		bf_dbg(ctx, "match 'hbh/dst': %u options, at most %u", info->optsnr,
		       IP6T_OPTS_OPTSNR);
		return -EINVAL;
	}
	if (info->flags & IP6T_OPTS_NSTRICT) {
		bf_dbg(ctx, "match 'hbh/dst': not strict is not implemented (as in the kernel)");
		return -EINVAL;
	}
	return 0;
}

/*
 * One option of the strict list, @k of @n: r3 is its offset, r2 the header
 * bytes left (u32), r5 the header's end check base (skb->len). A failed
 * read or check fails the rule, as hbh_mt6()'s break and return false do.
 */
static void gen_option(struct codegen *cg, uint16_t opt, unsigned int k, unsigned int n)
{
	const int ob = CG_OFF_KARG;	/* the option's type and length bytes */
	uint32_t pad1 = cg_new_label(cg), step = cg_new_label(cg);

	/* "type field exists?" */
	cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JLT, BPF_REG_2, 1, 0));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_2, ob + 8));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_3, ob + 16));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
	cg_read_packet(cg, ob, 1);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 0));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, ob + 8));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, ob + 16));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, ob));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, opt >> 8, 0));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0), pad1);
	/* "length field exists?" */
	cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JLT, BPF_REG_2, 2, 0));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_4, 1));
	cg_read_packet(cg, ob + 1, 1);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 0));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, ob + 8));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, ob + 16));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, ob + 1));
	if ((opt & 0xff) != 0xff)
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, opt & 0xff, 0));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, 2));
	cg_ja(cg, step);
	cg_place(cg, pad1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 1));
	cg_place(cg, step);
	/* r1 = optlen. (ptr > skb->len - optlen || hdrlen < optlen), in u32, fails unless last. */
	if (k + 1 < n) {
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, CG_OFF_SKBLEN));
		cg_emit(cg, CG_ALU32_REG(BPF_SUB, BPF_REG_4, BPF_REG_1));
		cg_jmp_fail(cg, CG_JMP32_REG(BPF_JGT, BPF_REG_3, BPF_REG_4, 0));
		cg_jmp_fail(cg, CG_JMP32_REG(BPF_JLT, BPF_REG_2, BPF_REG_1, 0));
	}
	cg_emit(cg, CG_ALU32_REG(BPF_ADD, BPF_REG_3, BPF_REG_1));
	cg_emit(cg, CG_ALU32_REG(BPF_SUB, BPF_REG_2, BPF_REG_1));
}

/*
 * hbh_mt6(): the first header of the kind ipv6_find_hdr() finds (none: no
 * match; a header in the way cut short: hotdrop), its first two bytes and
 * the whole length it claims (short: hotdrop); then --hbh-len/--dst-len
 * ^ invert, and the strict option list: each option's type, and its
 * length unless the list says any (0xff), in order from the header's
 * third byte.
 */
static void opts_gen(struct codegen *cg, const struct match *m, uint8_t nexthdr)
{
	const struct ip6t_opts *info = m->data;
	const int oh = CG_OFF_KARG;
	unsigned int k;

	cg_ip6_ext_hdr(cg, nexthdr, oh, 2, oh + 24);
	if (info->flags & IP6T_OPTS_LEN) {
		bool inv = info->invflags & IP6T_OPTS_INV_LEN;

		cg_jmp_fail(cg, CG_JMP_IMM(inv ? BPF_JEQ : BPF_JNE, BPF_REG_2, info->hdrlen, 0));
	}
	if (!(info->flags & IP6T_OPTS_OPTS))
		return;
	/* ptr += 2; hdrlen -= 2: r3 the option's offset, r2 the bytes left. */
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, 2));
	cg_emit(cg, CG_ALU64_IMM(BPF_SUB, BPF_REG_2, 2));
	for (k = 0; k < info->optsnr; k++)
		gen_option(cg, info->opts[k], k, info->optsnr);
}

static int hbh_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	(void)rule;
	opts_gen(cg, m, IPPROTO_HOPOPTS);
	return cg->err;
}

static int dst_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	(void)rule;
	opts_gen(cg, m, IPPROTO_DSTOPTS);
	return cg->err;
}

const struct match_ops hbh_match_ops = {
	.id = { .name = "hbh", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_opts)),
	.usersize = sizeof(struct ip6t_opts),
	.check = hbh_check,
	.gen = hbh_gen,
	.needs = cg_needs_ip6_ext,
};

const struct match_ops dst_match_ops = {
	.id = { .name = "dst", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_opts)),
	.usersize = sizeof(struct ip6t_opts),
	.check = hbh_check,
	.gen = dst_gen,
	.needs = cg_needs_ip6_ext,
};
