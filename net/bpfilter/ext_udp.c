// SPDX-License-Identifier: GPL-2.0
/* -m udp, revision 0 (net/netfilter/xt_tcpudp.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

/* udp_mt(): the same checks as tcp_mt() without flags and options. */
static int udp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_udp *udp = m->data;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_need_l4(cg, false);
	cg_port_range(cg, 0, udp->spts[0], udp->spts[1], udp->invflags & XT_UDP_INV_SRCPT);
	cg_port_range(cg, 2, udp->dpts[0], udp->dpts[1], udp->invflags & XT_UDP_INV_DSTPT);
	return cg->err;
}

static int udp_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_udp *udp = data;

	(void)r;
	if (udp->invflags & ~XT_UDP_INV_MASK) {
		bf_dbg(ctx, "match 'udp': unknown invflags 0x%x", udp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops udp_match_ops = {
	.id = { .name = "udp", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_udp)),
	.usersize = sizeof(struct xt_udp),
	.proto = IPPROTO_UDP,
	.check = udp_check,
	.gen = udp_gen,
	.needs = cg_needs_l4,
};
