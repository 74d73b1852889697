// SPDX-License-Identifier: GPL-2.0
/*
 * -m devgroup, revision 0 (net/netfilter/xt_devgroup.c): the group of the
 * input and output devices, net_device.group read through BTF.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_devgroup.h>

#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

#define HOOKS_SRC ((1u << NF_INET_PRE_ROUTING) | (1u << NF_INET_LOCAL_IN) | \
		   (1u << NF_INET_FORWARD))
#define HOOKS_DST ((1u << NF_INET_FORWARD) | (1u << NF_INET_LOCAL_OUT) | \
		   (1u << NF_INET_POST_ROUTING))

/* devgroup_mt_checkentry(): known flags; each side only where its device exists. */
static int devgroup_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_devgroup_info *info = data;

	(void)ctx;
	if (info->flags & ~(XT_DEVGROUP_MATCH_SRC | XT_DEVGROUP_INVERT_SRC |
			    XT_DEVGROUP_MATCH_DST | XT_DEVGROUP_INVERT_DST))
		return -EINVAL;
	if ((info->flags & XT_DEVGROUP_MATCH_SRC) && (r->comefrom & ~HOOKS_SRC))
		return -EINVAL;
	if ((info->flags & XT_DEVGROUP_MATCH_DST) && (r->comefrom & ~HOOKS_DST))
		return -EINVAL;
	return 0;
}

/* Fail unless ((group ^ @group) & @mask ? 1 : 0) == @inv, group that of state->in/out. */
static void devgroup_side(struct codegen *cg, uint32_t dev, uint32_t group, uint32_t mask,
			  bool inv)
{
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, cg->bi->nf_ctx_state));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, dev));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, BPF_REG_1, cg->bi->netdev_group));
	cg_emit(cg, CG_ALU32_IMM(BPF_XOR, BPF_REG_1, group));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, mask));
	cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JEQ : BPF_JNE, BPF_REG_1, 0, 0));
}

static int devgroup_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_devgroup_info *info = m->data;

	(void)rule;
	if (!cg->bi->netdev_group)
		return cg_unsupported(cg, "devgroup: this kernel's BTF has no net_device.group");
	if (info->flags & XT_DEVGROUP_MATCH_SRC)
		devgroup_side(cg, cg->bi->state_in, info->src_group, info->src_mask,
			      info->flags & XT_DEVGROUP_INVERT_SRC);
	if (info->flags & XT_DEVGROUP_MATCH_DST)
		devgroup_side(cg, cg->bi->state_out, info->dst_group, info->dst_mask,
			      info->flags & XT_DEVGROUP_INVERT_DST);
	return cg->err;
}

const struct match_ops devgroup_match_ops = {
	.id = { .name = "devgroup", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_devgroup_info)),
	.usersize = sizeof(struct xt_devgroup_info),
	.check = devgroup_check,
	.gen = devgroup_gen,
};
