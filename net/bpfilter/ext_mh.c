// SPDX-License-Identifier: GPL-2.0
/* -m mh, revision 0 (net/ipv6/netfilter/ip6t_mh.c): the Mobility Header. */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6t_mh.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

#ifndef IPPROTO_MH
#define IPPROTO_MH	135
#endif

/* struct ip6_mh (linux/ipv6.h): proto, hdrlen, type, reserved, checksum. */
#define MH_HDR_LEN	6
#define MH_OFF_PROTO	0
#define MH_OFF_TYPE	2

static int mh_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ip6t_mh *mh = data;

	(void)r;
	if (mh->invflags & ~IP6T_MH_INV_MASK) {
		bf_dbg(ctx, "match 'mh': unknown invflags 0x%x", mh->invflags);
		return -EINVAL;
	}
	return 0;
}

/*
 * mh_mt6(): a non-first fragment never matches; a packet without the 6
 * bytes of struct ip6_mh at the transport offset is a hotdrop, and so is
 * one whose payload proto is not IPPROTO_NONE (the kernel judges it
 * malformed, whatever the rule asks); then the type range ^ invert.
 *
 * The header is read from the packet (cg_read_packet()) rather than by
 * the prologue: only mh rules ever look at a mobility header, so no other
 * table pays for it.
 */
static int mh_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ip6t_mh *mh = m->data;
	const int hdr = CG_OFF_KARG;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, CG_OFF_THOFF));
	cg_read_or_hotdrop(cg, BPF_REG_4, hdr, MH_HDR_LEN);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, hdr + MH_OFF_PROTO));
	cg_emit(cg, CG_ALU64_IMM(BPF_XOR, BPF_REG_1, IPPROTO_NONE));
	cg_drop_if(cg, BPF_REG_1, true);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, hdr + MH_OFF_TYPE));
	cg_fail_unless_in(cg, BPF_REG_1, mh->types[0], mh->types[1],
			  mh->invflags & IP6T_MH_INV_TYPE);
	return cg->err;
}

static uint32_t mh_needs(const void *data)
{
	(void)data;
	return CG_NEED_PKT;
}

const struct match_ops mh_match_ops = {
	.id = { .name = "mh", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_mh)),
	.usersize = sizeof(struct ip6t_mh),
	.proto = IPPROTO_MH,
	.check = mh_check,
	.gen = mh_gen,
	.needs = mh_needs,
};
