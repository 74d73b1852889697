// SPDX-License-Identifier: GPL-2.0
/* -j NFLOG, revision 0 (net/netfilter/xt_NFLOG.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_NFLOG.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "target.h"

/* nflog_tg_check(): known flags, a terminated prefix (the logger is the module's). */
static int nflog_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_nflog_info *info = data;

	(void)r;
	if (info->flags & ~XT_NFLOG_MASK) {
		bf_dbg(ctx, "target 'NFLOG': unknown flags 0x%x", info->flags);
		return -EINVAL;
	}
	if (info->prefix[sizeof(info->prefix) - 1] != '\0') {
		bf_dbg(ctx, "target 'NFLOG': prefix is not null-terminated");
		return -EINVAL;
	}
	return 0;
}

/*
 * nflog_tg(): nf_log_packet() with a ULOG loginfo, through bpfilter.ko's
 * kfunc, so nfnetlink_log sends the packet to the group's listener in the
 * packet's namespace; then XT_CONTINUE.
 */
static int nflog_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	(void)rule;
	if (cg->bi->kf_nflog < 0)
		return cg_unsupported(cg, "NFLOG: needs the kfuncs of bpfilter.ko");
	cg_call_kfunc_ctx_mem(cg, cg->bi->kf_nflog, t->data, sizeof(struct xt_nflog_info));
	return cg->err;
}

const struct target_ops nflog_target_ops = {
	.id = { .name = "NFLOG", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_nflog_info)),
	.usersize = sizeof(struct xt_nflog_info),
	.check = nflog_check,
	.gen = nflog_gen,
	.continues = true,
};
