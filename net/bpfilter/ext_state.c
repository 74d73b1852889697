// SPDX-License-Identifier: GPL-2.0
/* -m state, revision 0 (net/netfilter/xt_state.c), as raw blobs send it. */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/xt_state.h>

#include "codegen.h"
#include "match.h"

/* state_mt(): statemask & statebit, with xt_state's UNTRACKED bit mapped. */
static int state_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_state_info *info = m->data;
	uint32_t mask = (info->statemask & (CG_CT_INVALID | CG_CT_TRACKED)) |
			(info->statemask & XT_STATE_UNTRACKED ? CG_CT_UNTRACKED : 0);

	(void)rule;
	if (!cg->bi->skb_nfct)
		return cg_unsupported(cg, "state: this kernel has no conntrack");
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_CTSTATE));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, mask));
	cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, 0, 0));
	return cg->err;
}

static uint32_t state_needs(const void *data)
{
	(void)data;
	return CG_NEED_CT;
}

/* Its checkentry only turns conntrack on (nf_ct_netns_get()). */
const struct match_ops state_match_ops = {
	.id = { .name = "state", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_state_info)),
	.usersize = sizeof(struct xt_state_info),
	.gen = state_gen,
	.needs = state_needs,
	.conntrack = true,
};
