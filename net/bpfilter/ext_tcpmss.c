// SPDX-License-Identifier: GPL-2.0
/* -m tcpmss, revision 0 (tcpmss_mt() in net/netfilter/xt_tcpmss.c). */
#define _GNU_SOURCE

#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_tcpmss.h>

#include "codegen.h"
#include "match.h"

/*
 * tcpmss_mt() from the prologue's option walk (CG_OFF_OPTST, CG_OFF_TCPMSS):
 * no whole header, doff < 5 or options cut short are a hotdrop; the first
 * MSS option gives (min <= mss <= max) ^ invert, none gives invert, with
 * the raw u8 invert.
 */
static int tcpmss_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_tcpmss_match_info *info = m->data;
	uint32_t hit = cg_new_label(cg), found = cg_new_label(cg), done = cg_new_label(cg);

	(void)rule;
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTST));
	cg_drop_if(cg, BPF_REG_1, true);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_TCPMSS));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_1, CG_TCPMSS_NONE, 0), found);
	if (!info->invert)
		cg_ja_fail(cg);
	else
		cg_ja(cg, done);
	cg_place(cg, found);
	cg_jmp_if_in(cg, BPF_REG_1, info->mss_min, info->mss_max, hit);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
	cg_place(cg, done);
	return cg->err;
}

static uint32_t tcpmss_needs(const void *data)
{
	(void)data;
	return CG_NEED_L4 | CG_NEED_TCPMSS;
}

const struct match_ops tcpmss_match_ops = {
	.id = { .name = "tcpmss", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_tcpmss_match_info)),
	.usersize = sizeof(struct xt_tcpmss_match_info),
	.proto = IPPROTO_TCP,
	.gen = tcpmss_gen,
	.needs = tcpmss_needs,
};
