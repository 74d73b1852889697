// SPDX-License-Identifier: GPL-2.0
/* -m ah, revision 0 (net/ipv4/netfilter/ipt_ah.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_ah.h>

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
