// SPDX-License-Identifier: GPL-2.0
/* -j REJECT, revision 0 (net/ipv4/netfilter/ipt_REJECT.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>

#include "codegen.h"
#include "context.h"
#include "rule.h"
#include "target.h"

/* reject_tg_check(): no ECHOREPLY any more; a TCP reset only for -p tcp. */
static int reject_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct ipt_reject_info *info = data;

	if (info->with == IPT_ICMP_ECHOREPLY) {
		bf_dbg(ctx, "target 'REJECT': ECHOREPLY no longer supported");
		return -EINVAL;
	}
	if (info->with == IPT_TCP_RESET &&
	    (r->ip.proto != IPPROTO_TCP || (r->ip.invflags & XT_INV_PROTO))) {
		bf_dbg(ctx, "target 'REJECT': TCP_RESET invalid for non-tcp");
		return -EINVAL;
	}
	return 0;
}

/*
 * reject_tg(): the answer is sent by the kernel's own nf_send_reset() /
 * nf_send_unreach() through bpfilter.ko's kfunc, then NF_DROP. A type the
 * kernel does not know sends nothing and still drops.
 */
static int reject_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	const struct ipt_reject_info *info = t->data;

	(void)rule;
	if (info->with <= IPT_ICMP_ADMIN_PROHIBITED) {
		if (cg->bi->kf_reject < 0)
			return cg_unsupported(cg, "REJECT: needs the kfuncs of bpfilter.ko");
		cg_ld_ctx(cg, BPF_REG_1);
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, info->with));
		cg_call_module_kfunc(cg, cg->bi->kf_reject);
	}
	cg_exit_verdict(cg, CG_NF_DROP);
	return cg->err;
}

const struct target_ops reject_target_ops = {
	.id = { .name = "REJECT", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_reject_info)),
	.usersize = sizeof(struct ipt_reject_info),
	.hooks = (1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | (1 << NF_INET_LOCAL_OUT),
	.check = reject_check,
	.gen = reject_gen,
};
