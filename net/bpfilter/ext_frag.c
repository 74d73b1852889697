// SPDX-License-Identifier: GPL-2.0
/* -m frag, revision 0 (net/ipv6/netfilter/ip6t_frag.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_frag.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

#define FRAG_OFF_MASK	0xfff8	/* ntohs(frag_off) & ~0x7: the fragment offset */
#define FRAG_RES_BITS	0x0006	/* the two reserved bits of frag_off */
#define FRAG_MF		0x0001	/* IP6_MF */

static int frag_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_frag *info = data;

	(void)r;
	if (info->invflags & ~IP6T_FRAG_INV_MASK) {
		bf_dbg(ctx, "match 'frag': unknown invflags 0x%x", info->invflags);
		return -EINVAL;
	}
	return 0;
}

/*
 * frag_mt6(): the first fragment header ipv6_find_hdr() finds (none: no
 * match; a header in the way cut short: hotdrop), its 8 bytes (short:
 * hotdrop), then the id range ^ invert and each flag asked for. --fraglen
 * (IP6T_FRAG_LEN) is parsed by ip6tables but never tested by the kernel.
 */
static int frag_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_frag *info = m->data;
	const int fh = CG_OFF_KARG;

	(void)rule;
	cg_ip6_ext_hdr(cg, IPPROTO_FRAGMENT, fh, 8, fh + 8);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, fh + 4));
	cg_emit(cg, CG_BE32(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, info->ids[0], info->ids[1],
			  info->invflags & IP6T_FRAG_INV_IDS);
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_2, CG_REG_PKT, fh + 2));
	cg_emit(cg, CG_BE16(BPF_REG_2));
	if (info->flags & IP6T_FRAG_RES) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, fh + 1));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSET, BPF_REG_2, FRAG_RES_BITS, 0));
	}
	if (info->flags & IP6T_FRAG_FST)
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSET, BPF_REG_2, FRAG_OFF_MASK, 0));
	if (info->flags & IP6T_FRAG_MF) {
		cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_2));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, FRAG_MF));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0));
	}
	if (info->flags & IP6T_FRAG_NMF)
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JSET, BPF_REG_2, FRAG_MF, 0));
	return cg->err;
}

const struct match_ops frag_match_ops = {
	.id = { .name = "frag", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_frag)),
	.usersize = sizeof(struct ip6t_frag),
	.check = frag_check,
	.gen = frag_gen,
	.needs = cg_needs_ip6_ext,
};
