// SPDX-License-Identifier: GPL-2.0
/* -m rt, revision 0 (net/ipv6/netfilter/ip6t_rt.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <string.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_rt.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int rt_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_rt *info = data;

	(void)r;
	if (info->invflags & ~IP6T_RT_INV_MASK) {
		bf_dbg(ctx, "match 'rt': unknown invflags 0x%x", info->invflags);
		return -EINVAL;
	}
	/*
	 * Upstream's bound on the list (2025); an empty list with --rt-0-addrs
	 * (which Debian's 6.1 also refuses) is taken, as on mainline.
	 */
	if (info->addrnr > IP6T_RT_HOPS) {
		bf_dbg(ctx, "match 'rt': %u addresses, at most %u", info->addrnr, IP6T_RT_HOPS);
		return -EINVAL;
	}
	if ((info->flags & (IP6T_RT_RES | IP6T_RT_FST_MASK)) &&
	    (!(info->flags & IP6T_RT_TYP) || info->rt_type != 0 ||
	     (info->invflags & IP6T_RT_INV_TYP))) {
		bf_dbg(ctx, "match 'rt': --rt-type 0 required before --rt-0-*");
		return -EINVAL;
	}
	return 0;
}

/*
 * The strict address list of a type 0 header: exactly info->addrnr
 * addresses, equal in order. They lie inside the length already checked
 * against the packet, so the reads cannot fail. r3: the header's offset.
 */
static void gen_addrs(struct codegen *cg, const struct ip6t_rt *info)
{
	const int a = CG_OFF_KARG;	/* one address of the header */
	unsigned int k, w;

	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_3, a + 16));
	for (k = 0; k < info->addrnr; k++) {
		const uint8_t *want = info->addrs[k].s6_addr;

		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, a + 16));
		cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_4, 8 + 16 * k));
		cg_read_or_hotdrop(cg, BPF_REG_4, a, 16);
		for (w = 0; w < 4; w++) {
			uint32_t v;

			memcpy(&v, want + 4 * w, sizeof(v));
			cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, a + 4 * w));
			cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_1, (int32_t)v, 0));
		}
	}
}

/*
 * rt_mt6(): the first routing header ipv6_find_hdr() finds (none: no
 * match; a header in the way cut short: hotdrop), its first 4 bytes and
 * the whole length it claims (short: hotdrop); segments left in range ^
 * invert, --rt-len and --rt-type ^ invert; then for type 0 the reserved
 * word (cut short: hotdrop) and the address list.
 */
static int rt_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_rt *info = m->data;
	const int rh = CG_OFF_KARG;

	(void)rule;
	if (info->flags & IP6T_RT_FST_NSTRICT)
		return cg_unsupported(cg, "rt --rt-0-not-strict");
	cg_ip6_ext_hdr(cg, IPPROTO_ROUTING, rh, 4, rh + 24);

	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, rh + 3));
	cg_fail_unless_in(cg, BPF_REG_1, info->segsleft[0], info->segsleft[1],
			  info->invflags & IP6T_RT_INV_SGS);
	if (info->flags & IP6T_RT_LEN)
		cg_jmp_fail(cg, CG_JMP32_IMM((info->invflags & IP6T_RT_INV_LEN) ? BPF_JEQ : BPF_JNE,
					     BPF_REG_2, (int32_t)info->hdrlen, 0));
	if (info->flags & IP6T_RT_TYP) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, rh + 2));
		cg_jmp_fail(cg, CG_JMP32_IMM((info->invflags & IP6T_RT_INV_TYP) ? BPF_JEQ : BPF_JNE,
					     BPF_REG_1, (int32_t)info->rt_type, 0));
	}
	if (info->flags & IP6T_RT_RES) {
		/* Inside the 8 bytes the length check covered: the read cannot fail. */
		cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
		cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_4, 4));
		cg_read_or_hotdrop(cg, BPF_REG_4, rh + 4, 4);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, rh + 4));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0));
	}
	if (info->flags & IP6T_RT_FST) {
		/* More than (hdrlen - 8) / 16 addresses fails, and so does fewer (strict). */
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, CG_REG_PKT, rh + 1));
		cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
		cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_2, 3));
		cg_emit(cg, CG_ALU64_IMM(BPF_SUB, BPF_REG_2, 8));
		cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_2, 4));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_2, info->addrnr, 0));
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, rh + 24));
		gen_addrs(cg, info);
	}
	return cg->err;
}

const struct match_ops rt_match_ops = {
	.id = { .name = "rt", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_rt)),
	.usersize = sizeof(struct ip6t_rt),
	.check = rt_check,
	.gen = rt_gen,
	.needs = cg_needs_ip6_ext,
};
