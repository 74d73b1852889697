// SPDX-License-Identifier: GPL-2.0
/* -j LOG, revision 0 (net/netfilter/xt_LOG.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "target.h"

/* log_tg_check(): a syslog level, a terminated prefix (the logger is the module's). */
static int log_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_log_info *info = data;

	(void)r;
	if (info->level >= 8) {
		bf_dbg(ctx, "target 'LOG': level %u >= 8", info->level);
		return -EINVAL;
	}
	if (info->prefix[sizeof(info->prefix) - 1] != '\0') {
		bf_dbg(ctx, "target 'LOG': prefix is not null-terminated");
		return -EINVAL;
	}
	return 0;
}

/*
 * log_tg(): the kernel's nf_log_packet() writes the line, through
 * bpfilter.ko's kfunc, given the payload as it is; then XT_CONTINUE.
 */
static int log_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	(void)rule;
	if (cg->bi->kf_log < 0)
		return cg_unsupported(cg, "LOG: needs the kfuncs of bpfilter.ko");
	cg_call_kfunc_ctx_mem(cg, cg->bi->kf_log, t->data, sizeof(struct xt_log_info));
	return cg->err;
}

const struct target_ops log_target_ops = {
	.id = { .name = "LOG", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_log_info)),
	.usersize = sizeof(struct xt_log_info),
	.check = log_check,
	.gen = log_gen,
	.continues = true,
};
