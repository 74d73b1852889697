// SPDX-License-Identifier: GPL-2.0
/*
 * -m limit, revision 0 (net/netfilter/xt_limit.c): the kernel's token
 * bucket, its credits, rounding and u32 arithmetic, in BPF, with the bucket
 * in the table's rule state map (shared by every CPU and hook, new with each
 * replace as checkentry makes it new).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_limit.h>

#include "btf.h"
#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

/* The bucket: struct xt_limit_priv. prev 0 means "set at the replace" (below). */
struct limit_slot {
	uint64_t prev;		/* jiffies of the last update */
	uint32_t credit;
	uint32_t pad;
};

/* Attempts of the compare-and-swap of the credit before the packet fails closed. */
#define LIMIT_CAS_TRIES	8

/* CREDITS_PER_JIFFY: the largest power of two below 0xFFFFFFFF / (HZ * 86400). */
static uint32_t credits_per_jiffy(uint32_t hz)
{
	uint32_t max = 0xFFFFFFFFu / (hz * 60 * 60 * 24), p = 1;

	while (p * 2 <= max)
		p *= 2;
	return p;
}

/* user2credits(), with its overflow-saving division order. */
static uint32_t user2credits(uint32_t user, uint32_t hz)
{
	uint32_t cpj = credits_per_jiffy(hz);

	if (user > 0xFFFFFFFFu / (hz * cpj))
		return (user / XT_LIMIT_SCALE) * hz * cpj;
	return (user * hz * cpj) / XT_LIMIT_SCALE;
}

/*
 * limit_mt_check(): a burst, and no overflow of avg * burst in credits.
 * Credits are counted in HZ jiffies: without the kernel's HZ (no module)
 * the check cannot be made, and the rule is refused.
 */
static int limit_check(struct context *ctx, const struct rule *rule, const void *data)
{
	const struct xt_rateinfo *r = data;
	uint32_t hz = btf_kernel_hz();

	(void)rule;
	if (!hz) {
		bf_warn(ctx, "match 'limit': the kernel's HZ is unknown: refused");
		return -EOPNOTSUPP;
	}
	if (r->burst == 0 || user2credits(r->avg * r->burst, hz) < user2credits(r->avg, hz)) {
		bf_xt_info(ctx, "xt_limit: Overflow, try lower: %u/%u", r->avg, r->burst);
		return -ERANGE;
	}
	return 0;
}

/* The cap and cost the kernel uses: computed, unless the payload brings its own cost. */
static void limit_params(const struct xt_rateinfo *r, uint32_t hz, uint32_t *cap,
			 uint32_t *cost)
{
	*cap = r->credit_cap;
	*cost = r->cost;
	if (!r->cost) {
		*cap = user2credits(r->avg * r->burst, hz);
		*cost = user2credits(r->avg, hz);
	}
}

/*
 * Credits full, as checkentry leaves them. checkentry also sets prev to
 * jiffies; here prev is 0 and the first packet's update adds nothing, which
 * is what the kernel's does (its credit is already at the cap) unless the
 * bucket sat unused for so long (2^32 credits, 37 hours at HZ 250) that the
 * kernel's u32 increase wraps.
 */
static void limit_state_init(const void *data, void *slot)
{
	const struct xt_rateinfo *r = data;
	struct limit_slot *s = slot;

	s->prev = 0;
	s->credit = user2credits(r->avg * r->burst, btf_kernel_hz());
}

/*
 * limit_mt(): the fast path (no credit and no time passed: no match), then
 * prev exchanged for now, the increase added with u32 wrap, capped, the
 * cost taken if there is enough, and the credit compare-and-swapped; a
 * lost race recomputes from the new credit. r1 holds the slot throughout.
 */
static int limit_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_rateinfo *r = m->data;
	uint32_t hz = cg->bi->hz, cap, cost, cpj;
	uint32_t slow = cg_new_label(cg), have_prev = cg_new_label(cg);
	uint32_t hit = cg_new_label(cg), next;
	unsigned int t;
	int err;

	/* limit_check() refused the rule without HZ. */
	if (!hz)
		return cg_unsupported(cg, "limit: without the kernel's HZ");
	cpj = credits_per_jiffy(hz);
	limit_params(r, hz, &cap, &cost);
	cg_call_helper(cg, BPF_FUNC_jiffies64);
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_0, CG_OFF_KARG));
	err = cg_rule_state(cg, rule->index, m - rule->matches);
	if (err)
		return err;
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_0));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, CG_OFF_KARG));
	/* if (credit < cost && prev == jiffies) return false; */
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_4, BPF_REG_1, offsetof(struct limit_slot, credit)));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JGE, BPF_REG_4, cost, 0), slow);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct limit_slot, prev)));
	cg_jmp_fail(cg, CG_JMP_REG(BPF_JEQ, BPF_REG_2, BPF_REG_3, 0));
	cg_place(cg, slow);
	/* credit_increase = (u32)((now - xchg(&prev, now)) * CREDITS_PER_JIFFY) */
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, BPF_REG_3));
	cg_emit(cg, CG_ATOMIC_XCHG64(BPF_REG_1, BPF_REG_2, offsetof(struct limit_slot, prev)));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_2, 0, 0), have_prev);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, BPF_REG_3));
	cg_place(cg, have_prev);
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_3, BPF_REG_2));
	cg_emit(cg, CG_ALU64_IMM(BPF_MUL, BPF_REG_3, cpj));
	cg_emit(cg, CG_ALU32_REG(BPF_MOV, BPF_REG_3, BPF_REG_3));
	for (t = 0; t < LIMIT_CAS_TRIES; t++) {
		uint32_t take = cg_new_label(cg), swap = cg_new_label(cg);

		next = cg_new_label(cg);
		/* new = min(old + increase, cap) (u32); take the cost if there is enough */
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_4, BPF_REG_1, offsetof(struct limit_slot, credit)));
		cg_emit(cg, CG_MOV64_REG(BPF_REG_5, BPF_REG_4));
		cg_emit(cg, CG_ALU32_REG(BPF_ADD, BPF_REG_5, BPF_REG_3));
		cg_emit(cg, CG_JMP32_IMM(BPF_JLE, BPF_REG_5, cap, 1));
		cg_emit(cg, CG_ALU32_IMM(BPF_MOV, BPF_REG_5, cap));
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 0));
		cg_jmp(cg, CG_JMP32_IMM(BPF_JLT, BPF_REG_5, cost, 0), swap);
		cg_place(cg, take);
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 1));
		cg_emit(cg, CG_ALU32_IMM(BPF_SUB, BPF_REG_5, cost));
		cg_place(cg, swap);
		/* cmpxchg(&credit, old, new): r0 expected in, actual out */
		cg_emit(cg, CG_MOV64_REG(BPF_REG_0, BPF_REG_4));
		cg_emit(cg, CG_INSN(BPF_STX | BPF_ATOMIC | BPF_W, BPF_REG_1, BPF_REG_5,
				    offsetof(struct limit_slot, credit), BPF_CMPXCHG));
		cg_jmp(cg, CG_JMP32_REG(BPF_JNE, BPF_REG_0, BPF_REG_4, 0), next);
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_2, 0, 0), hit);
		cg_ja_fail(cg);
		cg_place(cg, next);
	}
	/* Lost every race: fail closed, the rule does not match this packet. */
	cg_ja_fail(cg);
	cg_place(cg, hit);
	return cg->err;
}

const struct match_ops limit_match_ops = {
	.id = { .name = "limit", .revision = 0, .families = EXT_UNSPEC,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_rateinfo)),
	.usersize = offsetof(struct xt_rateinfo, prev),
	.check = limit_check,
	.gen = limit_gen,
	.state_init = limit_state_init,
};
