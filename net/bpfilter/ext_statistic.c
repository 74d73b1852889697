// SPDX-License-Identifier: GPL-2.0
/*
 * -m statistic, revision 0 (net/netfilter/xt_statistic.c): --mode random
 * draws from bpf_get_prandom_u32() as the kernel draws from
 * get_random_u32(); --mode nth keeps the kernel's counter in the table's
 * rule state map, made anew by each replace as checkentry allocates it anew,
 * starting from the payload's count.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_statistic.h>

#include "codegen.h"
#include "context.h"
#include "match.h"
#include "rule.h"

/* Attempts of the compare-and-swap of the nth counter before the packet is dropped. */
#define NTH_CAS_TRIES	8

/* statistic_mt_check(): a known mode and flags. */
static int statistic_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_statistic_info *info = data;

	(void)ctx;
	(void)r;
	if (info->mode > XT_STATISTIC_MODE_MAX || info->flags & ~XT_STATISTIC_MASK)
		return -EINVAL;
	return 0;
}

/* atomic_set(&master->count, nth.count), as checkentry does. */
static void statistic_state_init(const void *data, void *slot)
{
	const struct xt_statistic_info *info = data;

	memcpy(slot, &info->u.nth.count, sizeof(info->u.nth.count));
}

/*
 * statistic_mt(): random: (prandom & 0x7FFFFFFF) < probability; nth: the
 * counter goes count -> (count == every ? 0 : count + 1) by compare-and-swap
 * and the packet is the nth when it lands on 0. Either result is then
 * inverted by XT_STATISTIC_INVERT. The kernel retries a lost swap for as
 * long as it takes; after NTH_CAS_TRIES lost races the packet is dropped
 * rather than counted twice or let through unjudged.
 */
static int statistic_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_statistic_info *info = m->data;
	bool inv = info->flags & XT_STATISTIC_INVERT;
	uint32_t hit = cg_new_label(cg), miss = cg_new_label(cg), next;
	unsigned int t;
	int err;

	if (info->mode == XT_STATISTIC_MODE_RANDOM) {
		cg_call_helper(cg, BPF_FUNC_get_prandom_u32);
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_0, 0x7FFFFFFF));
		cg_emit(cg, CG_ALU32_IMM(BPF_MOV, BPF_REG_1, info->u.random.probability));
		cg_jmp(cg, CG_JMP32_REG(BPF_JLT, BPF_REG_0, BPF_REG_1, 0), hit);
		cg_result(cg, hit, !inv, inv);
		return cg->err;
	}
	err = cg_rule_state(cg, rule->index, m - rule->matches);
	if (err)
		return err;
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_0));
	for (t = 0; t < NTH_CAS_TRIES; t++) {
		uint32_t swap = cg_new_label(cg);

		next = cg_new_label(cg);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_4, BPF_REG_1, 0));
		cg_emit(cg, CG_ALU32_IMM(BPF_MOV, BPF_REG_5, 0));
		cg_emit(cg, CG_ALU32_IMM(BPF_MOV, BPF_REG_2, info->u.nth.every));
		cg_jmp(cg, CG_JMP32_REG(BPF_JEQ, BPF_REG_4, BPF_REG_2, 0), swap);
		cg_emit(cg, CG_MOV64_REG(BPF_REG_5, BPF_REG_4));
		cg_emit(cg, CG_ALU32_IMM(BPF_ADD, BPF_REG_5, 1));
		cg_place(cg, swap);
		cg_emit(cg, CG_MOV64_REG(BPF_REG_0, BPF_REG_4));
		cg_emit(cg, CG_INSN(BPF_STX | BPF_ATOMIC | BPF_W, BPF_REG_1, BPF_REG_5, 0,
				    BPF_CMPXCHG));
		cg_jmp(cg, CG_JMP32_REG(BPF_JNE, BPF_REG_0, BPF_REG_4, 0), next);
		cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_5, 0, 0), hit);
		cg_ja(cg, miss);
		cg_place(cg, next);
	}
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, miss);
	cg_result(cg, hit, !inv, inv);
	return cg->err;
}

const struct match_ops statistic_match_ops = {
	.id = { .name = "statistic", .revision = 0, .families = EXT_UNSPEC,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_statistic_info)),
	.usersize = offsetof(struct xt_statistic_info, master),
	.check = statistic_check,
	.gen = statistic_gen,
	.state_init = statistic_state_init,
};
