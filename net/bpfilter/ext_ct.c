// SPDX-License-Identifier: GPL-2.0
/*
 * -j NOTRACK, revision 0, and -j CT --notrack, revisions 0 to 2, of the raw
 * table (net/netfilter/xt_CT.c). iptables 1.8 sends -j NOTRACK as CT
 * revision 2 with XT_CT_NOTRACK | XT_CT_NOTRACK_ALIAS.
 *
 * CT without --notrack attaches a conntrack template (zone, helper,
 * timeout policy, events) that xt_CT's checkentry allocates: bpfilter does
 * not make those, and refuses such rules with EOPNOTSUPP.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_CT.h>

#include "codegen.h"
#include "context.h"
#include "target.h"

/* xt_ct_tg_check(): with XT_CT_NOTRACK nothing else is looked at. */
static int ct_check_notrack(struct context *ctx, uint16_t flags, uint16_t allowed)
{
	if (flags & ~allowed)
		return -EINVAL;
	if (!(flags & XT_CT_NOTRACK)) {
		bf_warn(ctx, "CT: only --notrack is supported (zones, helpers, timeout "
			"policies and events are not): refused");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int ct_check_v0(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_ct_target_info *info = data;

	(void)r;
	return ct_check_notrack(ctx, info->flags, XT_CT_NOTRACK);
}

static int ct_check_v1(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_ct_target_info_v1 *info = data;

	(void)r;
	return ct_check_notrack(ctx, info->flags, XT_CT_NOTRACK);
}

static int ct_check_v2(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_ct_target_info_v1 *info = data;

	(void)r;
	return ct_check_notrack(ctx, info->flags, XT_CT_MASK);
}

/*
 * notrack_tg(): a packet conntrack has not seen gets skb->_nfct =
 * IP_CT_UNTRACKED through bpfilter.ko's kfunc (a program cannot write it),
 * then XT_CONTINUE. Later rules of this run that test the conntrack state
 * see it untracked too.
 */
static int notrack_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	uint32_t seen = cg_new_label(cg);

	(void)rule;
	(void)t;
	if (cg->bi->kf_notrack < 0)
		return cg_unsupported(cg, "NOTRACK: needs the kfuncs of bpfilter.ko");
	cg_ld_ctx(cg, BPF_REG_1);
	cg_call_module_kfunc(cg, cg->bi->kf_notrack);
	if (cg->needs & CG_NEED_CT) {
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_NFCT));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0), seen);
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 7));	/* IP_CT_UNTRACKED */
		cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_1, CG_OFF_NFCT));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_CTINFO));
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, CG_CT_UNTRACKED));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_CTSTATE));
		cg_place(cg, seen);
	}
	return cg->err;
}

/* xt_CT registers each of these per family: a bad revision is ENOENT. */
const struct target_ops notrack_target_ops = {
	.id = { .name = "NOTRACK", .revision = 0, .families = EXT_IPV4 | EXT_IPV6,
		.any_family = true },
	.size = 0,
	.usersize = 0,
	.table = "raw",
	.gen = notrack_gen,
	.continues = true,
};

const struct target_ops ct0_target_ops = {
	.id = { .name = "CT", .revision = 0, .families = EXT_IPV4 | EXT_IPV6,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_ct_target_info)),
	.usersize = offsetof(struct xt_ct_target_info, ct),
	.table = "raw",
	.check = ct_check_v0,
	.gen = notrack_gen,
	.continues = true,
};

const struct target_ops ct1_target_ops = {
	.id = { .name = "CT", .revision = 1, .families = EXT_IPV4 | EXT_IPV6,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_ct_target_info_v1)),
	.usersize = offsetof(struct xt_ct_target_info_v1, ct),
	.table = "raw",
	.check = ct_check_v1,
	.gen = notrack_gen,
	.continues = true,
};

const struct target_ops ct2_target_ops = {
	.id = { .name = "CT", .revision = 2, .families = EXT_IPV4 | EXT_IPV6,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_ct_target_info_v1)),
	.usersize = offsetof(struct xt_ct_target_info_v1, ct),
	.table = "raw",
	.check = ct_check_v2,
	.gen = notrack_gen,
	.continues = true,
};
