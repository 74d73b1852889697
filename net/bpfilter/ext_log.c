// SPDX-License-Identifier: GPL-2.0
/* -j LOG, revision 0 (net/netfilter/xt_LOG.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "target.h"

/* log_tg_check(): a syslog level, a terminated prefix (the logger is the module's). */
static int log_check(struct context *ctx, const struct ipt_entry *e, const void *data)
{
	const struct xt_log_info *info = data;

	(void)e;
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
 * bpfilter.ko's kfunc, given the payload as it is (copied to the scratch
 * area: the kfunc reads memory the program owns); then XT_CONTINUE.
 */
static int log_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	unsigned int i;

	(void)rule;
	if (cg->bi->kf_log < 0)
		return cg_unsupported(cg, "LOG: needs the kfuncs of bpfilter.ko");
	for (i = 0; i < sizeof(struct xt_log_info); i += 4) {
		int32_t word;

		memcpy(&word, (const char *)t->data + i, 4);
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_KARG + i, word));
	}
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, CG_OFF_KARG));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, sizeof(struct xt_log_info)));
	cg_call_module_kfunc(cg, cg->bi->kf_log);
	return cg->err;
}

const struct target_ops log_target_ops = {
	.id = { .name = "LOG", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_log_info)),
	.usersize = sizeof(struct xt_log_info),
	.check = log_check,
	.gen = log_gen,
	.continues = true,
};
