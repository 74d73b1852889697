// SPDX-License-Identifier: GPL-2.0
/*
 * -m ah, revision 0: IPv4's (net/ipv4/netfilter/ipt_ah.c) reads the
 * transport header; IPv6's (net/ipv6/netfilter/ip6t_ah.c) finds the AH
 * among the extension headers and has its own payload.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_ah.h>
#include <linux/netfilter_ipv6/ip6t_ah.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int ah_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ipt_ah *ah = data;

	(void)r;
	if (ah->invflags & ~IPT_AH_INV_MASK) {
		bf_dbg(ctx, "match 'ah': unknown invflags 0x%x", ah->invflags);
		return -EINVAL;
	}
	return 0;
}

/*
 * ah_mt(): non-first fragments never match, a packet without the 12 bytes
 * of struct ip_auth_hdr is a hotdrop, then spi_match() on the SPI (bytes 4-7).
 */
static int ah_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ipt_ah *ah = m->data;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_need_l4(cg, false);
	cg_l4_u32_range(cg, 4, ah->spis[0], ah->spis[1], ah->invflags & IPT_AH_INV_SPI);
	return cg->err;
}

static uint32_t ah_needs(const void *data)
{
	(void)data;
	return CG_NEED_AH;
}

const struct match_ops ah_match_ops = {
	.id = { .name = "ah", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_ah)),
	.usersize = sizeof(struct ipt_ah),
	.proto = IPPROTO_AH,
	.check = ah_check,
	.gen = ah_gen,
	.needs = ah_needs,
};

static int ah6_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_ah *ah = data;

	(void)r;
	if (ah->invflags & ~IP6T_AH_INV_MASK) {
		bf_dbg(ctx, "match 'ah': unknown invflags 0x%x", ah->invflags);
		return -EINVAL;
	}
	return 0;
}

/*
 * ah_mt6(): the first AH ipv6_find_hdr() finds (none: no match; a header in
 * the way cut short: hotdrop), its 12 bytes and the length it claims,
 * (hdrlen + 2) * 4 (short: hotdrop); spi_match() ^ invert, --ahlen unless
 * 0 ^ invert, and with --ahres a zero reserved field.
 */
static int ah6_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_ah *ah = m->data;
	const int hdr = CG_OFF_KARG;

	(void)rule;
	cg_ip6_ext_hdr(cg, IPPROTO_AH, hdr, 12, hdr + 16);

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, hdr + 4));
	cg_emit(cg, CG_BE32(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, ah->spis[0], ah->spis[1],
			  ah->invflags & IP6T_AH_INV_SPI);
	if (ah->hdrlen)
		cg_jmp_fail(cg, CG_JMP32_IMM((ah->invflags & IP6T_AH_INV_LEN) ? BPF_JEQ : BPF_JNE,
					     BPF_REG_2, (int32_t)ah->hdrlen, 0));
	if (ah->hdrres) {
		cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, hdr + 2));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0));
	}
	return cg->err;
}

const struct match_ops ah6_match_ops = {
	.id = { .name = "ah", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_ah)),
	.usersize = sizeof(struct ip6t_ah),
	.check = ah6_check,
	.gen = ah6_gen,
	.needs = cg_needs_ip6_ext,
};
