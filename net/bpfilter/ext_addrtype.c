// SPDX-License-Identifier: GPL-2.0
/*
 * -m addrtype, revisions 0 and 1 (net/netfilter/xt_addrtype.c). The type
 * of an address is the routing tables' answer, inet_dev_addr_type(), which
 * only the kernel can give: the kfunc bpfilter_addrtype() asks it, and the
 * masks and inversions are tested here, in BPF.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_addrtype.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

#define HOOKS_IN	((1u << NF_INET_PRE_ROUTING) | (1u << NF_INET_LOCAL_IN))
#define HOOKS_OUT	((1u << NF_INET_POST_ROUTING) | (1u << NF_INET_LOCAL_OUT))

/* addrtype_mt_checkentry_v1(): one interface limit, on a hook that has that interface. */
static int addrtype1_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_addrtype_info_v1 *info = data;
	const char *why = NULL;

	if ((info->flags & XT_ADDRTYPE_LIMIT_IFACE_IN) &&
	    (info->flags & XT_ADDRTYPE_LIMIT_IFACE_OUT))
		why = "both incoming and outgoing interface limitation cannot be selected";
	else if ((r->comefrom & HOOKS_IN) && (info->flags & XT_ADDRTYPE_LIMIT_IFACE_OUT))
		why = "output interface limitation not valid in PREROUTING and INPUT";
	else if ((r->comefrom & HOOKS_OUT) && (info->flags & XT_ADDRTYPE_LIMIT_IFACE_IN))
		why = "input interface limitation not valid in POSTROUTING and OUTPUT";
	if (!why)
		return 0;
	bf_xt_info(ctx, "xt_addrtype: %s", why);
	return -EINVAL;
}

/*
 * One side of addrtype_mt_v0/v1(): fail the rule unless
 * !!(mask & (1 << type of the address at IPv4 header offset @off)) ^ @inv.
 */
static void addrtype_side(struct codegen *cg, int off, uint16_t mask, bool inv, uint32_t iface)
{
	uint32_t hit = cg_new_label(cg), miss = cg_new_label(cg);

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, CG_REG_PKT, CG_OFF_IPH + off));
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, iface));
	cg_call_module_kfunc(cg, cg->bi->kf_addrtype);
	/* A type beyond the mask's 16 bits is in no mask. */
	cg_jmp(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_0, 15, 0), miss);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 1));
	cg_emit(cg, CG_ALU64_REG(BPF_LSH, BPF_REG_2, BPF_REG_0));
	cg_jmp(cg, CG_JMP_IMM(BPF_JSET, BPF_REG_2, mask, 0), hit);
	cg_place(cg, miss);
	cg_result(cg, hit, !inv, inv);
}

static int addrtype_gen_masks(struct codegen *cg, uint16_t src, bool src_inv, uint16_t dst,
			      bool dst_inv, uint32_t iface)
{
	if (cg->bi->kf_addrtype < 0)
		return cg_unsupported(cg, "addrtype: needs the kfuncs of bpfilter.ko");
	if (src)
		addrtype_side(cg, 12, src, src_inv, iface);
	if (dst)
		addrtype_side(cg, 16, dst, dst_inv, iface);
	return cg->err;
}

/* addrtype_mt_v0(): no device; "ret &= match ^ invert" keeps bit 0 of the raw u32 invert. */
static int addrtype0_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_addrtype_info *info = m->data;

	(void)rule;
	return addrtype_gen_masks(cg, info->source, info->invert_source & 1, info->dest,
				  info->invert_dest & 1, 0);
}

static int addrtype1_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_addrtype_info_v1 *info = m->data;
	uint32_t iface = info->flags & XT_ADDRTYPE_LIMIT_IFACE_IN ? 1 :
			 info->flags & XT_ADDRTYPE_LIMIT_IFACE_OUT ? 2 : 0;

	(void)rule;
	return addrtype_gen_masks(cg, info->source, info->flags & XT_ADDRTYPE_INVERT_SOURCE,
				  info->dest, info->flags & XT_ADDRTYPE_INVERT_DEST, iface);
}

const struct match_ops addrtype0_match_ops = {
	.id = { .name = "addrtype", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_addrtype_info)),
	.usersize = sizeof(struct xt_addrtype_info),
	.gen = addrtype0_gen,
};

const struct match_ops addrtype1_match_ops = {
	.id = { .name = "addrtype", .revision = 1, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_addrtype_info_v1)),
	.usersize = sizeof(struct xt_addrtype_info_v1),
	.check = addrtype1_check,
	.gen = addrtype1_gen,
};
