// SPDX-License-Identifier: GPL-2.0
/* -m iprange, revision 1 (net/netfilter/xt_iprange.c). */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_iprange.h>

#include "codegen.h"
#include "match.h"

/* One side of iprange_mt4(): fail unless (min <= ntohl(addr) <= max) ^ inv. */
static void gen_range(struct codegen *cg, int off, const union nf_inet_addr *min,
		      const union nf_inet_addr *max, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH + off));
	cg_emit(cg, CG_BE32(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, ntohl(min->ip), ntohl(max->ip), inv);
}

static int iprange_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_iprange_mtinfo *info = m->data;

	(void)rule;
	if (info->flags & IPRANGE_SRC)
		gen_range(cg, 12, &info->src_min, &info->src_max, info->flags & IPRANGE_SRC_INV);
	if (info->flags & IPRANGE_DST)
		gen_range(cg, 16, &info->dst_min, &info->dst_max, info->flags & IPRANGE_DST_INV);
	return cg->err;
}

/* The kernel registers no checkentry: any flags are taken, unknown bits ignored. */
const struct match_ops iprange_match_ops = {
	.id = { .name = "iprange", .revision = 1, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_iprange_mtinfo)),
	.usersize = sizeof(struct xt_iprange_mtinfo),
	.gen = iprange_gen,
};
