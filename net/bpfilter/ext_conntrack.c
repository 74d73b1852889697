// SPDX-License-Identifier: GPL-2.0
/*
 * -m conntrack, revisions 1, 2 and 3 (net/netfilter/xt_conntrack.c); iptables
 * sends -m state as revision 3 with only --ctstate.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/xt_conntrack.h>

#include "codegen.h"
#include "match.h"

/* What the three payload revisions share, read from each at its own offsets. */
struct ct_opts {
	uint16_t match_flags, invert_flags, state_mask;
};

/* Options tested from the packet's ctinfo alone; the others read struct nf_conn. */
#define CT_FLAGS_DONE	(XT_CONNTRACK_STATE | XT_CONNTRACK_DIRECTION | XT_CONNTRACK_STATE_ALIAS)

/* The state bits of xt_conntrack, mapped onto CG_OFF_CTSTATE's. */
static uint32_t ct_state_mask(uint16_t mask)
{
	return (mask & (CG_CT_INVALID | CG_CT_TRACKED)) |
	       (mask & XT_CONNTRACK_STATE_UNTRACKED ? CG_CT_UNTRACKED : 0);
}

/*
 * conntrack_mt(), in its order: the state test; without an entry, the match
 * holds iff it tested the state; then the direction.
 */
static int ct_gen(struct codegen *cg, const struct ct_opts *o)
{
	uint32_t hit = cg_new_label(cg), tracked = cg_new_label(cg);

	if (!cg->bi->skb_nfct)
		return cg_unsupported(cg, "conntrack: this kernel has no conntrack");
	if (o->match_flags & ~CT_FLAGS_DONE)
		return cg_unsupported(cg, "conntrack: --ctproto, --ctorig*, --ctrepl*, "
				      "--ctstatus and --ctexpire are not translated yet");
	if ((o->match_flags & XT_CONNTRACK_STATE) &&
	    (o->state_mask & (XT_CONNTRACK_STATE_SNAT | XT_CONNTRACK_STATE_DNAT)))
		return cg_unsupported(cg, "conntrack: --ctstate SNAT/DNAT is not translated yet");

	if (o->match_flags & XT_CONNTRACK_STATE) {
		bool inv = o->invert_flags & XT_CONNTRACK_STATE;

		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_CTSTATE));
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, ct_state_mask(o->state_mask)));
		cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
	}
	/* ct == NULL: INVALID or UNTRACKED are the only state bits without an entry. */
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_CTSTATE));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JSET, BPF_REG_1, CG_CT_TRACKED, 0), tracked);
	if (o->match_flags & XT_CONNTRACK_STATE)
		cg_ja(cg, hit);
	else
		cg_ja_fail(cg);
	cg_place(cg, tracked);
	if (o->match_flags & XT_CONNTRACK_DIRECTION) {
		/* CTINFO2DIR(): ORIGINAL below IP_CT_IS_REPLY; inverted means REPLY. */
		bool reply = o->invert_flags & XT_CONNTRACK_DIRECTION;

		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_CTINFO));
		cg_jmp_fail(cg, CG_JMP32_IMM(reply ? BPF_JLT : BPF_JGE, BPF_REG_1,
					     IP_CT_IS_REPLY, 0));
	}
	cg_place(cg, hit);
	return cg->err;
}

static int ct1_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_conntrack_mtinfo1 *i = m->data;
	struct ct_opts o = { i->match_flags, i->invert_flags, i->state_mask };

	(void)rule;
	return ct_gen(cg, &o);
}

static int ct2_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_conntrack_mtinfo2 *i = m->data;
	struct ct_opts o = { i->match_flags, i->invert_flags, i->state_mask };

	(void)rule;
	return ct_gen(cg, &o);
}

static int ct3_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_conntrack_mtinfo3 *i = m->data;
	struct ct_opts o = { i->match_flags, i->invert_flags, i->state_mask };

	(void)rule;
	return ct_gen(cg, &o);
}

static uint32_t ct_needs(const void *data)
{
	(void)data;
	return CG_NEED_CT;
}

/*
 * The kernel's checkentry only turns conntrack on (nf_ct_netns_get()):
 * every payload is taken. .conntrack makes the module hold conntrack.
 */
#define CONNTRACK_OPS(rev, type, genfn) {					\
	.id = { .name = "conntrack", .revision = rev, .family = NFPROTO_UNSPEC },	\
	.size = XT_ALIGN(sizeof(type)),						\
	.usersize = sizeof(type),						\
	.gen = genfn,								\
	.needs = ct_needs,							\
	.conntrack = true,							\
}

const struct match_ops conntrack1_match_ops =
	CONNTRACK_OPS(1, struct xt_conntrack_mtinfo1, ct1_gen);
const struct match_ops conntrack2_match_ops =
	CONNTRACK_OPS(2, struct xt_conntrack_mtinfo2, ct2_gen);
const struct match_ops conntrack3_match_ops =
	CONNTRACK_OPS(3, struct xt_conntrack_mtinfo3, ct3_gen);
