// SPDX-License-Identifier: GPL-2.0
/* -m iprange, revision 1 (net/netfilter/xt_iprange.c). */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_iprange.h>

#include "codegen.h"
#include "family.h"
#include "match.h"
#include "table.h"

/* One side of iprange_mt4(): fail unless (min <= ntohl(addr) <= max) ^ inv. */
static void gen_range4(struct codegen *cg, int off, const union nf_inet_addr *min,
		       const union nf_inet_addr *max, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH + off));
	cg_emit(cg, CG_BE32(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, ntohl(min->ip), ntohl(max->ip), inv);
}

/*
 * Go to @out if the 128-bit address at scratch + @off is below @bound
 * (@below) or above it (!@below): iprange_ipv6_lt(), word by word from
 * the most significant, in host order.
 */
static void gen_cmp6(struct codegen *cg, int off, const union nf_inet_addr *bound, bool below,
		     uint32_t out)
{
	uint32_t inside = cg_new_label(cg);
	unsigned int i;

	for (i = 0; i < 4; i++) {
		uint32_t w = ntohl(bound->ip6[i]);

		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, off + 4 * i));
		cg_emit(cg, CG_BE32(BPF_REG_1));
		cg_jmp(cg, CG_JMP32_IMM(below ? BPF_JLT : BPF_JGT, BPF_REG_1, w, 0), out);
		if (i < 3)
			cg_jmp(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_1, w, 0), inside);
	}
	cg_place(cg, inside);
}

/* One side of iprange_mt6(): fail unless (!(addr < min) && !(max < addr)) ^ inv. */
static void gen_range6(struct codegen *cg, int off, const union nf_inet_addr *min,
		       const union nf_inet_addr *max, bool inv)
{
	uint32_t out = cg_new_label(cg), done = cg_new_label(cg);

	gen_cmp6(cg, CG_OFF_IP6 + off, min, true, out);
	gen_cmp6(cg, CG_OFF_IP6 + off, max, false, out);
	if (inv)
		cg_ja_fail(cg);
	else
		cg_ja(cg, done);
	cg_place(cg, out);
	if (!inv)
		cg_ja_fail(cg);
	cg_place(cg, done);
}

static int iprange_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_iprange_mtinfo *info = m->data;
	const bool v4 = cg->table->fam == &family_ipv4;

	(void)rule;
	if (info->flags & IPRANGE_SRC)
		(v4 ? gen_range4 : gen_range6)(cg, v4 ? 12 : 8, &info->src_min, &info->src_max,
					       info->flags & IPRANGE_SRC_INV);
	if (info->flags & IPRANGE_DST)
		(v4 ? gen_range4 : gen_range6)(cg, v4 ? 16 : 24, &info->dst_min, &info->dst_max,
					       info->flags & IPRANGE_DST_INV);
	return cg->err;
}

/* The kernel registers no checkentry: any flags are taken, unknown bits ignored. */
const struct match_ops iprange_match_ops = {
	.id = { .name = "iprange", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_iprange_mtinfo)),
	.usersize = sizeof(struct xt_iprange_mtinfo),
	.gen = iprange_gen,
};
