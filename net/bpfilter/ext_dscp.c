// SPDX-License-Identifier: GPL-2.0
/* -m dscp, revision 0 (dscp_mt() in net/netfilter/xt_dscp.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_dscp.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int dscp_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_dscp_info *info = data;

	(void)r;
	if (info->dscp > XT_DSCP_MAX) {
		bf_dbg(ctx, "match 'dscp': dscp %u out of range", info->dscp);
		return -EDOM;
	}
	return 0;
}

/* dscp_mt(), dscp_mt6(): (DS field >> XT_DSCP_SHIFT == dscp) ^ !!invert. */
static int dscp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_dscp_info *info = m->data;
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	cg_ds_field(cg, BPF_REG_1);
	cg_emit(cg, CG_ALU32_IMM(BPF_RSH, BPF_REG_1, XT_DSCP_SHIFT));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, info->dscp, 0), hit);
	cg_result(cg, hit, !info->invert, !!info->invert);
	return cg->err;
}

const struct match_ops dscp_match_ops = {
	.id = { .name = "dscp", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_dscp_info)),
	.usersize = sizeof(struct xt_dscp_info),
	.check = dscp_check,
	.gen = dscp_gen,
};
