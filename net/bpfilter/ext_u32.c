// SPDX-License-Identifier: GPL-2.0
/* -m u32, revision 0 (net/netfilter/xt_u32.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_u32.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

#define U32_ELEMS	(XT_U32_MAXSIZE + 1)
/* The match's scratch bytes: the word read, and "at" kept over calls. */
#define U32_WORD	CG_OFF_KARG
#define U32_AT		(CG_OFF_KARG + 8)

/* u32_mt_checkentry(): the counts index fixed arrays; shifts are below 32. */
static int u32_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_u32 *info = data;
	const struct xt_u32_test *ct;
	unsigned int i, j;

	(void)r;
	if (info->ntests > U32_ELEMS) {
		bf_dbg(ctx, "match 'u32': %u tests", info->ntests);
		return -EINVAL;
	}
	for (i = 0; i < info->ntests; i++) {
		ct = &info->tests[i];
		if (ct->nnums > U32_ELEMS || ct->nvalues > U32_ELEMS) {
			bf_dbg(ctx, "match 'u32': test %u has %u numbers, %u values", i,
			       ct->nnums, ct->nvalues);
			return -EINVAL;
		}
		for (j = 1; j < ct->nnums; j++) {
			if ((ct->location[j].nextop == XT_U32_LEFTSH ||
			     ct->location[j].nextop == XT_U32_RIGHTSH) &&
			    ct->location[j].number >= 32) {
				bf_dbg(ctx, "match 'u32': shift by %u", ct->location[j].number);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* r1 = ntohl() of the 4 packet bytes at r4, or go to @miss when the packet ends before. */
static void gen_word(struct codegen *cg, uint32_t miss)
{
	cg_read_packet(cg, U32_WORD, 4);
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0), miss);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, U32_WORD));
	cg_emit(cg, CG_BE32(BPF_REG_1));
}

/* Go to @miss if the 64-bit @reg + @add does not fit in 32 bits: a u32 sum that wraps. */
static void gen_miss_if_wraps(struct codegen *cg, int reg, int32_t add, uint32_t miss)
{
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, reg));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, add));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_3, 32));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_3, 0, 0), miss);
}

/* r@reg = @imm, zero-extended (a MOV64 immediate would sign-extend it). */
static void gen_mov32(struct codegen *cg, int reg, uint32_t imm)
{
	cg_emit(cg, CG_INSN(BPF_ALU | BPF_MOV | BPF_K, reg, 0, 0, (int32_t)imm));
}

/*
 * One "&&" operand of u32_match_it(): the word at location[0], the
 * operators in order (u32_check() bounds the shifts), then
 * the value ranges; any failed bound or read goes to @miss. Unknown
 * operators do nothing, as the kernel's switch.
 */
static void gen_test(struct codegen *cg, const struct xt_u32_test *ct, uint32_t miss)
{
	uint32_t ok = cg_new_label(cg);
	unsigned int i;

	gen_mov32(cg, BPF_REG_4, ct->location[0].number);
	gen_word(cg, miss);
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, U32_AT, 0));
	for (i = 1; i < ct->nnums; i++) {
		uint32_t number = ct->location[i].number;

		switch (ct->location[i].nextop) {
		case XT_U32_AND:
			cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, number));
			break;
		case XT_U32_LEFTSH:
			cg_emit(cg, CG_ALU32_IMM(BPF_LSH, BPF_REG_1, number));
			break;
		case XT_U32_RIGHTSH:
			cg_emit(cg, CG_ALU32_IMM(BPF_RSH, BPF_REG_1, number));
			break;
		case XT_U32_AT:
			/* at += val unless it wraps; at + 4 must not wrap either. */
			cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, U32_AT));
			cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_1));
			gen_miss_if_wraps(cg, BPF_REG_2, 4, miss);
			cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_2, U32_AT));
			/* at + pos + 4 <= skb->len: the read's own bound once it fits 32 bits. */
			gen_mov32(cg, BPF_REG_4, number);
			cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_4, BPF_REG_2));
			gen_miss_if_wraps(cg, BPF_REG_4, 4, miss);
			gen_word(cg, miss);
			break;
		}
	}
	for (i = 0; i < ct->nvalues; i++)
		cg_jmp_if_in(cg, BPF_REG_1, ct->value[i].min, ct->value[i].max, ok);
	cg_ja(cg, miss);
	cg_place(cg, ok);
}

/* u32_mt(): every test holds, ^ the raw u8 invert. */
static int u32_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_u32 *info = m->data;
	uint32_t hit = cg_new_label(cg), miss = cg_new_label(cg);
	unsigned int i;

	(void)rule;
	for (i = 0; i < info->ntests; i++)
		gen_test(cg, &info->tests[i], miss);
	cg_ja(cg, hit);
	cg_place(cg, miss);
	cg_result(cg, hit, info->invert != 1, info->invert != 0);
	return cg->err;
}

static uint32_t u32_needs(const void *data)
{
	(void)data;
	return CG_NEED_PKT;
}

const struct match_ops u32_match_ops = {
	.id = { .name = "u32", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_u32)),
	.usersize = sizeof(struct xt_u32),
	.check = u32_check,
	.gen = u32_gen,
	.needs = u32_needs,
};
