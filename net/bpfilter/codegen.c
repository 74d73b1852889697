// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF program builder (see codegen.h for the pipeline and the register
 * and stack convention).
 *
 * Failing closed. ip_tables cannot fail to inspect a packet that reached its
 * hook: ip_rcv()/__ip_local_out() guarantee a complete IPv4 header in the
 * linear area. Every path where the generated program cannot inspect the
 * packet (dynptr creation fails, the IPv4 header cannot be copied, a counter
 * slot cannot be looked up) therefore returns NF_DROP: none of them happens
 * for a packet ip_tables would judge, and when one does happen the ruleset
 * cannot be evaluated, so dropping is the only answer that never lets
 * through a packet the ruleset would drop. Truncated transport headers are
 * the one place where ip_tables itself drops (hotdrop); the match generators
 * do the same, in the same order of checks.
 *
 * Control flow. ip_tables walks entries in blob order and keeps a jump stack
 * of return points. The generator walks the same way at generation time:
 * a jump to a user chain inlines that chain's code at the call site with a
 * label for the return point pushed on a static stack, a goto inlines it
 * without pushing, RETURN jumps to the innermost return label or, with an
 * empty stack, to the hook's underflow block. Every jump between rules is
 * therefore forward (the only loops are the prologue's bounded search for
 * a free counters element and TCP option walk), which the verifier checks
 * in one pass. mark_source_chains() has
 * rejected loops, so inlining terminates; its cost is bounded by
 * CG_MAX_INSNS (-E2BIG beyond).
 *
 * Scale. Runs of similar rules (address or port lists) become one map
 * lookup each (codegen_set.c), so big tables of the common shapes cost a
 * few lookups per packet and a small program.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "codegen.h"
#include "family.h"
#include "log.h"
#include "match.h"
#include "rule.h"
#include "table.h"
#include "target.h"

/* The MSS option (include/net/tcp.h, not in the UAPI headers). */
#define TCPOPT_MSS	2
#define TCPOLEN_MSS	4

#define CG_NO_LABEL UINT32_MAX

/* What codegen needs on top of struct codegen while walking a hook. */
struct cg_walk {
	uint32_t *frames;	/* return labels, innermost last */
	uint32_t *rets;		/* per frame: the rule it returns to (struct cg_entry) */
	uint32_t nframes;
	bool in_underflow;	/* generating the underflow block itself */
};

void codegen_init(struct codegen *cg, const struct btf_info *bi)
{
	memset(cg, 0, sizeof(*cg));
	cg->bi = bi;
	cg->fold_min = CG_FOLD_MIN;
	cg->fail_label = CG_NO_LABEL;
	cg->underflow_label = CG_NO_LABEL;
	cg->count_exit[0] = cg->count_exit[1] = CG_NO_LABEL;
	cg->cx_first = UINT32_MAX;
	cg->leaf_hi = UINT32_MAX;
	cg->ja_end = UINT32_MAX;
	cg->cont_fd = -1;
	cg->state_fd = -1;
	cg->runs_fd = -1;
	cg->after = UINT32_MAX;
}

void codegen_free(struct codegen *cg)
{
	uint32_t k;

	for (k = 0; k < cg->nsets; k++) {
		if (cg->sets[k].fd >= 0 && !cg->sets[k].fd_shared)
			close(cg->sets[k].fd);
		free(cg->sets[k].elems);
	}
	free(cg->sets);
	free(cg->insns);
	free(cg->labels);
	free(cg->fixups);
	codegen_init(cg, cg->bi);
}

static int grow(void **buf, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*buf, (size_t)ncap * elem);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	return 0;
}

static void set_err(struct codegen *cg, int err)
{
	if (!cg->err)
		cg->err = err;
}

/*
 * Code after an exit or an unconditional jump is unreachable until a label
 * that something jumps to is placed; the verifier rejects unreachable
 * instructions, so emitters drop them (cg->dead).
 */
void cg_emit(struct codegen *cg, struct bpf_insn insn)
{
	if (cg->err || cg->dead)
		return;
	if (cg->len >= CG_MAX_INSNS) {
		set_err(cg, -E2BIG);
		return;
	}
	if (grow((void **)&cg->insns, &cg->cap, cg->len + 1, sizeof(insn))) {
		set_err(cg, -ENOMEM);
		return;
	}
	cg->insns[cg->len++] = insn;
	if (insn.code == (BPF_JMP | BPF_EXIT) || insn.code == (BPF_JMP | BPF_JA) ||
	    insn.code == (BPF_JMP32 | BPF_JA))
		cg->dead = true;
}

uint32_t cg_new_label(struct codegen *cg)
{
	if (cg->err)
		return 0;
	if (grow((void **)&cg->labels, &cg->labels_cap, cg->nlabels + 1, sizeof(*cg->labels))) {
		set_err(cg, -ENOMEM);
		return 0;
	}
	cg->labels[cg->nlabels] = (struct cg_label){ .pos = CG_NO_LABEL };
	return cg->nlabels++;
}

void cg_place(struct codegen *cg, uint32_t label)
{
	const struct cg_fixup *f = cg->nfixups ? &cg->fixups[cg->nfixups - 1] : NULL;

	if (cg->err)
		return;
	/*
	 * A jump to the next instruction (a chain's RETURN right before its
	 * return point) is a nop the verifier would remove, one at a time
	 * with a move of the whole program: big tables load many times
	 * slower. Nothing else can target it: it goes where it falls.
	 */
	if (cg->ja_end == cg->len && f && f->kind == CG_FIX_JA && f->label == label &&
	    f->insn + 1 == cg->len) {
		cg->len--;
		cg->nfixups--;
	}
	/*
	 * A label that something jumps to, here now: the jump before it is no
	 * longer removable. One nothing jumps to never will (jumps go forward).
	 */
	if (cg->labels[label].used)
		cg->ja_end = UINT32_MAX;
	cg->labels[label].pos = cg->len;
	/* All jumps are forward: every reference to @label is already emitted. */
	if (cg->labels[label].used)
		cg->dead = false;
}

static void add_fixup(struct codegen *cg, enum cg_fixup_kind kind, uint32_t insn, uint32_t label)
{
	/* Nothing is emitted while dead: neither may a fixup be recorded. */
	if (cg->err || cg->dead)
		return;
	if (grow((void **)&cg->fixups, &cg->fixups_cap, cg->nfixups + 1, sizeof(*cg->fixups))) {
		set_err(cg, -ENOMEM);
		return;
	}
	cg->fixups[cg->nfixups++] = (struct cg_fixup){ .kind = kind, .insn = insn, .label = label };
}

static void jump_to(struct codegen *cg, struct bpf_insn insn, uint32_t label,
		    enum cg_fixup_kind kind)
{
	if (cg->err || cg->dead)
		return;
	add_fixup(cg, kind, cg->len, label);
	cg->labels[label].used = true;
	cg_emit(cg, insn);
}

void cg_jmp(struct codegen *cg, struct bpf_insn insn, uint32_t label)
{
	jump_to(cg, insn, label, CG_FIX_JMP);
}

void cg_ja(struct codegen *cg, uint32_t label)
{
	uint32_t n = cg->nfixups;

	jump_to(cg, CG_JA(0), label, CG_FIX_JA);
	if (cg->nfixups != n)
		cg->ja_end = cg->len;
}

void cg_jmp_fail(struct codegen *cg, struct bpf_insn insn)
{
	if (!cg->dead)
		cg->fail_used = true;
	cg_jmp(cg, insn, cg->fail_label);
}

void cg_ja_fail(struct codegen *cg)
{
	if (!cg->dead)
		cg->fail_used = true;
	cg_ja(cg, cg->fail_label);
}

/* Give back the runs element taken by the prologue (every exit after it). */
static void gen_release_level(struct codegen *cg)
{
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_RUN_BUSY - CG_RUN_SCRATCH, 0));
}

void cg_exit_verdict(struct codegen *cg, int verdict)
{
	if (cg->level_held)
		gen_release_level(cg);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_0, verdict));
	cg_emit(cg, CG_EXIT());
}

void cg_drop_if(struct codegen *cg, int reg, bool if_nonzero)
{
	uint32_t skip = cg_new_label(cg);

	cg_jmp(cg, CG_JMP_IMM(if_nonzero ? BPF_JEQ : BPF_JNE, reg, 0, 0), skip);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, skip);
}

void cg_first_fragment(struct codegen *cg, bool tcp)
{
	uint32_t first;

	if (!tcp) {
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 0, 0));
		return;
	}
	/* tcp_mt(): offset 1 would let a fragment overwrite the TCP flags. */
	first = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, CG_REG_FRAG, 0, 0), first);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 1, 0));
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, first);
}

void cg_need_l4(struct codegen *cg, bool ports_only)
{
	uint32_t ok = cg_new_label(cg);

	if (!ports_only) {
		cg_drop_if(cg, CG_REG_L4ERR, true);
		return;
	}
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_L4ERR, CG_L4_NONE, 0), ok);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, ok);
}

void cg_fail_unless_in(struct codegen *cg, int reg, uint32_t min, uint32_t max, bool inv)
{
	uint32_t ok;

	if (!inv) {
		if (min)
			cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JLT, reg, min, 0));
		if (max != UINT32_MAX)
			cg_jmp_fail(cg, CG_JMP32_IMM(BPF_JGT, reg, max, 0));
		return;
	}
	ok = cg_new_label(cg);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JLT, reg, min, 0), ok);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JGT, reg, max, 0), ok);
	cg_ja_fail(cg);
	cg_place(cg, ok);
}

void cg_jmp_if_in(struct codegen *cg, int reg, uint32_t min, uint32_t max, uint32_t label)
{
	uint32_t out;

	if (min == max) {
		cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, reg, min, 0), label);
		return;
	}
	out = cg_new_label(cg);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JLT, reg, min, 0), out);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JLE, reg, max, 0), label);
	cg_place(cg, out);
}

void cg_port_range(struct codegen *cg, int off, uint16_t min, uint16_t max, bool inv)
{
	if (min == 0 && max == 0xffff && !inv)
		return;
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + off));
	cg_emit(cg, CG_BE16(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, min, max, inv);
}

void cg_l4_u32_range(struct codegen *cg, int off, uint32_t min, uint32_t max, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + off));
	cg_emit(cg, CG_BE32(BPF_REG_1));
	cg_fail_unless_in(cg, BPF_REG_1, min, max, inv);
}

void cg_result(struct codegen *cg, uint32_t hit, bool on_hit, bool on_miss)
{
	uint32_t done = cg_new_label(cg);

	if (on_miss)
		cg_ja(cg, done);
	else
		cg_ja_fail(cg);
	cg_place(cg, hit);
	if (!on_hit)
		cg_ja_fail(cg);
	cg_place(cg, done);
}

void cg_u32_masked(struct codegen *cg, int off, uint32_t mask, uint32_t value, uint32_t invert)
{
	uint32_t hit = cg_new_label(cg);

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, off));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, mask));
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_1, value, 0), hit);
	cg_result(cg, hit, invert != 1, invert != 0);
}

void cg_call_module_kfunc(struct codegen *cg, int32_t btf_id)
{
	cg_emit(cg, CG_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 1, btf_id));
	cg->mod_kfuncs = true;
}

void cg_ld_ctx(struct codegen *cg, int reg)
{
	cg_emit(cg, CG_LDX(BPF_DW, reg, BPF_REG_10, CG_STK_CTX));
}

void cg_ld_skb(struct codegen *cg, int reg)
{
	cg_ld_ctx(cg, reg);
	cg_emit(cg, CG_LDX(BPF_DW, reg, reg, cg->bi->nf_ctx_skb));
}

void cg_probe_read(struct codegen *cg, int dst, uint32_t len)
{
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, dst));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, len));
	cg_call_helper(cg, BPF_FUNC_probe_read_kernel);
	/* The object is held by the packet: a failed read is a bug; fail closed. */
	cg_drop_if(cg, BPF_REG_0, true);
}

void cg_call_kfunc_ctx_mem(struct codegen *cg, int32_t btf_id, const void *mem, uint32_t size)
{
	uint32_t i;

	if (size > CG_KARG_SIZE || size % 4) {
		cg->err = -EINVAL;
		return;
	}
	/* The verifier wants memory the program owns: a copy, not the rule's data. */
	for (i = 0; i < size; i += 4) {
		int32_t word;

		memcpy(&word, (const char *)mem + i, 4);
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_KARG + i, word));
	}
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, CG_OFF_KARG));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, size));
	cg_call_module_kfunc(cg, btf_id);
}

int cg_unsupported(struct codegen *cg, const char *what)
{
	cg->err_what = what;
	return -EOPNOTSUPP;
}

uint32_t cg_needs_l4(const void *data)
{
	(void)data;
	return CG_NEED_L4;
}

uint32_t cg_needs_ip6_ext(const void *data)
{
	(void)data;
	return CG_NEED_IP6_EXT;
}

/* The extension headers the walk notes, in the order of their CG_OFF_XHDR slots. */
static const uint8_t xhdr_kinds[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
				      IPPROTO_AH, IPPROTO_DSTOPTS };

static int xhdr_slot(uint8_t nexthdr)
{
	unsigned int i;

	for (i = 0; i < sizeof(xhdr_kinds); i++)
		if (xhdr_kinds[i] == nexthdr)
			return CG_OFF_XHDR + 4 * i;
	return -1;
}

void cg_read_or_hotdrop(struct codegen *cg, int reg, int dst, uint32_t len)
{
	if (reg != BPF_REG_4)
		cg_emit(cg, CG_MOV64_REG(BPF_REG_4, reg));
	cg_read_packet(cg, dst, len);
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_0, 63));
	cg_drop_if(cg, BPF_REG_0, true);
}

int cg_eth_header(struct codegen *cg, const char *who, bool hotdrop)
{
	const struct btf_info *bi = cg->bi;
	uint32_t have = cg_new_label(cg);

	if (!bi->skb_dev || !bi->skb_head || !bi->skb_mac_header || !bi->skb_network_header ||
	    !bi->netdev_type)
		return cg_unsupported(cg, who);
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, bi->skb_dev));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 0));
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_2, BPF_REG_2, bi->netdev_type));
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_2, ARPHRD_ETHER, 0));
	/* skb_mac_header_was_set(), then ETH_HLEN bytes before the network header. */
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_3, BPF_REG_1, bi->skb_mac_header));
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_2, BPF_REG_1, bi->skb_network_header));
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_3));
	if (hotdrop) {
		uint32_t set = cg_new_label(cg);

		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_3, 0xffff, 0), set);
		cg_exit_verdict(cg, CG_NF_DROP);
		cg_place(cg, set);
		/* skb_mac_header_len() is a u32: a MAC header after the network header is long. */
		cg_jmp(cg, CG_JMP32_IMM(BPF_JGE, BPF_REG_2, ETH_HLEN, 0), have);
		cg_exit_verdict(cg, CG_NF_DROP);
	} else {
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_3, 0xffff, 0));
		cg_jmp(cg, CG_JMP_IMM(BPF_JSGE, BPF_REG_2, ETH_HLEN, 0), have);
		cg_ja_fail(cg);
	}
	cg_place(cg, have);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, bi->skb_head));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2));
	return cg->err;
}

void cg_ip6_optlen(struct codegen *cg)
{
	uint32_t auth = cg_new_label(cg), done = cg_new_label(cg);

	/* AH: (hdrlen + 2) * 4 bytes (ipv6_authlen()); others (hdrlen + 1) * 8. */
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, IPPROTO_AH, 0), auth);
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_2, 3));
	cg_ja(cg, done);
	cg_place(cg, auth);
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, 2));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_2, 2));
	cg_place(cg, done);
}

void cg_ip6_ext_hdr(struct codegen *cg, uint8_t nexthdr, int dst, uint32_t len, int off_slot)
{
	int slot = xhdr_slot(nexthdr);
	uint32_t have = cg_new_label(cg), fits = cg_new_label(cg);
	bool auth = nexthdr == IPPROTO_AH;

	if (slot < 0) {
		cg->err = -EINVAL;
		return;
	}
	/* Where the prologue's walk first saw it; if not, how the walk ended. */
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_4, CG_REG_PKT, slot));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_4, 0, 0), have);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_0, CG_REG_PKT, CG_OFF_XEND));
	cg_drop_if(cg, BPF_REG_0, true);
	cg_ja_fail(cg);
	cg_place(cg, have);
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_4, off_slot));
	cg_read_or_hotdrop(cg, BPF_REG_4, dst, len);
	if (nexthdr == IPPROTO_FRAGMENT)
		return;
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, CG_REG_PKT, dst + 1));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, auth ? 2 : 1));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_2, auth ? 2 : 3));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, off_slot));
	/* ptr <= skb->len: the header's first bytes were read. */
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_1, BPF_REG_3));
	cg_jmp(cg, CG_JMP_REG(BPF_JGE, BPF_REG_1, BPF_REG_2, 0), fits);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, fits);
}

void cg_ld_imm64(struct codegen *cg, int reg, uint64_t imm)
{
	cg_emit(cg, CG_INSN(BPF_LD | BPF_DW | BPF_IMM, reg, 0, 0, (int32_t)(uint32_t)imm));
	cg_emit(cg, CG_INSN(0, 0, 0, 0, (int32_t)(uint32_t)(imm >> 32)));
}

static void ld_map_label(struct codegen *cg, int reg, enum cg_fixup_kind kind, uint32_t label)
{
	add_fixup(cg, kind, cg->len, label);
	cg_emit(cg, CG_INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, 0));
	cg_emit(cg, CG_INSN(0, 0, 0, 0, 0));
}

static void ld_map(struct codegen *cg, int reg, enum cg_fixup_kind kind)
{
	add_fixup(cg, kind, cg->len, 0);
	cg_emit(cg, CG_INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, 0));
	cg_emit(cg, CG_INSN(0, 0, 0, 0, 0));
}

void cg_call_helper(struct codegen *cg, int id)
{
	cg_emit(cg, CG_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id));
}

/* r0 = bpf_map_lookup_elem(map @kind number @label, @base + @off). */
static void lookup_elem_label(struct codegen *cg, enum cg_fixup_kind kind, uint32_t label,
			      int base, int16_t off)
{
	ld_map_label(cg, BPF_REG_1, kind, label);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, base));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, off));
	cg_call_helper(cg, BPF_FUNC_map_lookup_elem);
}

static void lookup_elem(struct codegen *cg, enum cg_fixup_kind kind, int base, int16_t off)
{
	lookup_elem_label(cg, kind, 0, base, off);
}

void cg_lookup_set(struct codegen *cg, uint32_t k, int16_t off)
{
	lookup_elem_label(cg, CG_FIX_MAP_SET, k, CG_REG_PKT, off);
}

static void call_kfunc(struct codegen *cg, int32_t btf_id)
{
	cg_emit(cg, CG_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, btf_id));
}

const char *codegen_hook_name(unsigned int hook)
{
	switch (hook) {
	case NF_INET_PRE_ROUTING:
		return "PREROUTING";
	case NF_INET_LOCAL_IN:
		return "INPUT";
	case NF_INET_FORWARD:
		return "FORWARD";
	case NF_INET_LOCAL_OUT:
		return "OUTPUT";
	case NF_INET_POST_ROUTING:
		return "POSTROUTING";
	}
	return "?";
}

/* Copy the 16-byte name of the device at state->in or ->out (@member) to @off, or zeros. */
static void gen_devname(struct codegen *cg, uint32_t member, int off)
{
	const struct btf_info *bi = cg->bi;

	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, off, 0));
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, off + 8, 0));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, member));
	/* ipt_do_table(): no device is nulldevname, 16 zero bytes. */
	cg_emit(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 4));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_2, bi->netdev_name));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_3, off));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_2, bi->netdev_name + 8));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_3, off + 8));
}

/* bpf_dynptr_read(scratch + @dst, r2 (set by caller), dynptr, r4 (set by caller), 0) */
static void call_dynptr_read(struct codegen *cg, int dst)
{
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, dst));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, BPF_REG_10));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, CG_STK_DYNPTR));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_5, 0));
	cg_call_helper(cg, BPF_FUNC_dynptr_read);
}

void cg_read_packet(struct codegen *cg, int dst, uint32_t len)
{
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, len));
	call_dynptr_read(cg, dst);
}

/* A dynptr over the skb at CG_STK_DYNPTR, or NF_DROP: it cannot fail for a packet at these hooks. */
static void gen_dynptr_from_skb(struct codegen *cg)
{
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 0));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, BPF_REG_10));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, CG_STK_DYNPTR));
	call_kfunc(cg, cg->bi->kf_dynptr_from_skb);
	/* Cannot see the packet: fail closed (see the top of this file). */
	cg_drop_if(cg, BPF_REG_0, true);
}

/* r@reg = the packet offset of a header: 0, or the u64 in scratch slot @off_slot. */
static void gen_header_off(struct codegen *cg, int reg, int off_slot)
{
	if (off_slot < 0)
		cg_emit(cg, CG_MOV64_IMM(reg, 0));
	else
		cg_emit(cg, CG_LDX(BPF_DW, reg, CG_REG_PKT, off_slot));
}

/* Copy @len bytes at r0 to scratch + @dst. */
static void gen_copy_header(struct codegen *cg, int dst, int len)
{
	int i;

	for (i = 0; i < len; i += 8) {
		int size = len - i >= 8 ? BPF_DW : BPF_W;

		cg_emit(cg, CG_LDX(size, BPF_REG_1, BPF_REG_0, i));
		cg_emit(cg, CG_STX(size, CG_REG_PKT, BPF_REG_1, dst + i));
	}
}

/*
 * A header as gen_read_header() reads it: its length, the kernel struct
 * that types it, and the loads that copy the bytes rules read (codegen.h,
 * CG_OFF_IPH and CG_OFF_L4). Loads through a typed pointer must each fit
 * in one member (or cover whole bitfields), hence a list.
 */
struct cg_header {
	int len;
	int32_t btf_type;
	unsigned int nloads;
	struct { uint8_t off, size; } loads[5];
};

/*
 * Copy the header @h at the packet offset given by @off_slot (see
 * gen_header_off()) to scratch + @dst, or go to @fail if the packet is
 * shorter (ip_tables: skb_header_pointer() == NULL).
 *
 * The bytes are nearly always in the linear area: then they are loaded
 * through skb->data, typed by bpf_rdonly_cast() (the verifier turns the
 * cast into a move and the loads into fault-safe loads), which costs no
 * call. Otherwise bpf_dynptr_slice() finds them in the fragments, or fails
 * where skb_header_pointer() fails. The paths copy with separate loads:
 * the verifier does not let one load see two kinds of pointer.
 */
static void gen_read_header(struct codegen *cg, int dst, const struct cg_header *h,
			    int off_slot, uint32_t fail)
{
	uint32_t slow = cg_new_label(cg), done = cg_new_label(cg);
	unsigned int i;

	gen_header_off(cg, BPF_REG_2, off_slot);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, BPF_REG_2));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, h->len));
	if (cg->slow_reads)
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 0));
	else
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, CG_STK_HEADLEN));
	cg_jmp(cg, CG_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_1, 0), slow);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, CG_STK_DATA));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, h->btf_type));
	call_kfunc(cg, cg->bi->kf_rdonly_cast);
	for (i = 0; i < h->nloads; i++) {
		cg_emit(cg, CG_LDX(h->loads[i].size, BPF_REG_1, BPF_REG_0, h->loads[i].off));
		cg_emit(cg, CG_STX(h->loads[i].size, CG_REG_PKT, BPF_REG_1, dst + h->loads[i].off));
	}
	cg_ja(cg, done);

	cg_place(cg, slow);
	gen_dynptr_from_skb(cg);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_10));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, CG_STK_DYNPTR));
	gen_header_off(cg, BPF_REG_2, off_slot);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, dst));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_4, h->len));
	call_kfunc(cg, cg->bi->kf_dynptr_slice);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), fail);
	/* From the skb, or already in @dst when the slice had to copy. */
	gen_copy_header(cg, dst, h->len);
	cg_place(cg, done);
}

/* r@reg = optlen, doff * 4 - 20, from the doff byte at scratch + @doff (doff >= 5). */
static void gen_optlen(struct codegen *cg, int reg, int doff)
{
	cg_emit(cg, CG_LDX(BPF_B, reg, CG_REG_PKT, doff));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, reg, 4));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, reg, 2));
	cg_emit(cg, CG_ALU64_IMM(BPF_SUB, reg, 20));
}

/*
 * After the option walk (r2 unused): CG_OFF_TCPMSS = the MSS of the first
 * visited position (the lowest: the walk only moves forward) holding kind 2,
 * length 4 and room for 4 bytes in optlen, the one tcpmss_mt() returns at.
 * Straight-line code, one block per position: a branch inside the loop
 * would multiply the states the verifier explores there.
 */
static void gen_tcpmss_scan(struct codegen *cg, int doff, int visited, uint32_t done)
{
	int p;

	gen_optlen(cg, BPF_REG_2, doff);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, visited));
	for (p = 0; p + TCPOLEN_MSS <= 40; p++) {
		uint32_t next = cg_new_label(cg);

		/* Past optlen for this position, so for every later one. */
		cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_2, p + TCPOLEN_MSS, 0), done);
		cg_emit(cg, CG_MOV64_REG(BPF_REG_0, BPF_REG_3));
		cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_0, p));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_0, 1));
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), next);
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_0, CG_REG_PKT, CG_OFF_OPTS + p));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, TCPOPT_MSS, 0), next);
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_0, CG_REG_PKT, CG_OFF_OPTS + p + 1));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, TCPOLEN_MSS, 0), next);
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_0, CG_REG_PKT, CG_OFF_OPTS + p + 2));
		cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_0, 8));
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTS + p + 3));
		cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_0, CG_OFF_TCPMSS));
		cg_ja(cg, done);
		cg_place(cg, next);
	}
}

/*
 * The TCP option walk of tcp_find_option(), once per packet: the positions
 * it visits do not depend on the kind looked for, so the set of kinds seen
 * there answers every --tcp-option rule with one bit test. (A walk per rule
 * would be a verifier loop per rule, and the verifier's pending-branch stack
 * overflows with a few hundred of them.) CG_OFF_OPTST says whether the walk
 * happened (0) or the kernel would hotdrop a rule that asks (1: doff < 5,
 * 2: options cut short); 3: no complete TCP header.
 *
 * tcpmss_mt() walks the same positions and takes the first well-formed MSS
 * option (CG_OFF_TCPMSS). It does not skip fragments: a non-first fragment's
 * first bytes are read as a TCP header, so with CG_NEED_TCPMSS such packets
 * are walked too (tcp_mt() never looks at their OPTSET).
 */
static void gen_tcp_option_walk(struct codegen *cg)
{
	uint32_t done = cg_new_label(cg), loop = cg_new_label(cg), twobyte = cg_new_label(cg);
	uint32_t doff_ok = cg_new_label(cg), some = cg_new_label(cg), one = cg_new_label(cg);
	uint32_t read_ok = cg_new_label(cg), have_hdr = cg_new_label(cg);
	bool mss = cg->needs & CG_NEED_TCPMSS;
	uint32_t walked = mss ? cg_new_label(cg) : done;
	/*
	 * The prologue's use of CG_OFF_KARG: the header's doff byte, kept over
	 * calls, and a bit for each position the loop visits (tcpmss).
	 */
	const int doff = CG_OFF_KARG + 12, visited = CG_OFF_KARG + 16;
	int i;

	for (i = 0; i < 32; i += 8)
		cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTSET + i, 0));
	for (i = 0; i < 40; i += 8)
		cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTS + i, 0));
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTST, 3));
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_TCPMSS, CG_TCPMSS_NONE));
	cg_ld_proto(cg, BPF_REG_1);
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, IPPROTO_TCP, 0), done);
	if (!mss)
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_L4ERR, CG_L4_FULL, 0), done);
	/* The headers may have been read without one (gen_read_header()). */
	if (!(cg->needs & CG_NEED_PKT))
		gen_dynptr_from_skb(cg);
	/* r8 == FULL only for first fragments whose whole TCP header was read. */
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 12));
	cg_emit(cg, CG_STX(BPF_B, CG_REG_PKT, BPF_REG_1, doff));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, CG_REG_L4ERR, CG_L4_FULL, 0), have_hdr);
	if (mss) {
		/* A first fragment without the whole header: skb_header_pointer() fails. */
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, CG_REG_FRAG, 0, 0), done);
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, CG_OFF_THOFF));
		cg_read_packet(cg, CG_OFF_KARG, 20);
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0), done);
	}
	cg_place(cg, have_hdr);

	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTST, 1));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, doff));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_1, 4));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_1, 2));
	cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_1, 20, 0), doff_ok);
	cg_ja(cg, done);
	cg_place(cg, doff_ok);
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTST, 0));
	cg_emit(cg, CG_ALU64_IMM(BPF_SUB, BPF_REG_1, 20));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 0), some);
	cg_ja(cg, done);
	cg_place(cg, some);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_2, BPF_REG_1));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_4, CG_REG_PKT, CG_OFF_THOFF));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_4, 20));
	call_dynptr_read(cg, CG_OFF_OPTS);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), read_ok);
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_OPTST, 2));
	cg_ja(cg, done);
	cg_place(cg, read_ok);

	/* r2 = optlen again (the call clobbered r1-r5), r1 = i = 0. */
	gen_optlen(cg, BPF_REG_2, doff);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 0));
	if (mss)
		cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, visited, 0));

	cg_place(cg, loop);
	cg_jmp(cg, CG_JMP_REG(BPF_JGE, BPF_REG_1, BPF_REG_2, 0), walked);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_1, 40, 0), walked);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, CG_OFF_OPTS));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_1));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_4, BPF_REG_3, 0));
	if (mss) {
		/* VISITED |= 1 << i: no branch in the loop (see gen_tcpmss_scan()). */
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_5, 1));
		cg_emit(cg, CG_ALU64_REG(BPF_LSH, BPF_REG_5, BPF_REG_1));
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_0, CG_REG_PKT, visited));
		cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_5));
		cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_0, visited));
	}
	/* OPTSET[kind / 64] |= 1 << (kind % 64) */
	cg_emit(cg, CG_MOV64_REG(BPF_REG_5, BPF_REG_4));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_5, 63));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_0, 1));
	cg_emit(cg, CG_ALU64_REG(BPF_LSH, BPF_REG_0, BPF_REG_5));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_5, BPF_REG_4));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_5, 6));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_5, 3));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, CG_OFF_OPTSET));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_5));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_5, BPF_REG_3, 0));
	cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_5, BPF_REG_0));
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_3, BPF_REG_5, 0));
	cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_4, 2, 0), twobyte);
	/* EOL and NOP are one byte. */
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	cg_ja(cg, loop);

	cg_place(cg, twobyte);
	/* i += op[i + 1] ?: 1; past optlen the walk ends whatever the byte. */
	cg_emit(cg, CG_MOV64_REG(BPF_REG_5, BPF_REG_1));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_5, 1));
	cg_jmp(cg, CG_JMP_REG(BPF_JGE, BPF_REG_5, BPF_REG_2, 0), walked);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_5, 40, 0), walked);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, CG_REG_PKT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, CG_OFF_OPTS));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_5));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_4, BPF_REG_3, 0));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_4, 0, 0), one);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_4, 1));
	cg_place(cg, one);
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_4));
	cg_ja(cg, loop);
	if (mss) {
		cg_place(cg, walked);
		gen_tcpmss_scan(cg, doff, visited, done);
	}
	cg_place(cg, done);
}

/*
 * nf_ct_get() and the state bit of xt_conntrack/xt_state (CG_OFF_CTSTATE),
 * from skb->_nfct: the conntrack entry with ctinfo in its low 3 bits. No
 * entry is INVALID, or UNTRACKED with ctinfo IP_CT_UNTRACKED. r1 is the skb.
 */
static void gen_ct_state(struct codegen *cg)
{
	uint32_t tracked = cg_new_label(cg), store = cg_new_label(cg);

	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, cg->bi->skb_nfct));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_3, CG_OFF_NFCT));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_4, 7));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_4, CG_OFF_CTINFO));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, -8));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_5, CG_CT_INVALID));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_3, 0, 0), tracked);
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_4, 7, 0), store);	/* IP_CT_UNTRACKED */
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_5, CG_CT_UNTRACKED));
	cg_ja(cg, store);
	cg_place(cg, tracked);
	/* 1 << (ctinfo % IP_CT_IS_REPLY + 1) */
	cg_emit(cg, CG_ALU64_IMM(BPF_MOD, BPF_REG_4, 3));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_4, 1));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_5, 1));
	cg_emit(cg, CG_ALU64_REG(BPF_LSH, BPF_REG_5, BPF_REG_4));
	cg_place(cg, store);
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_5, CG_OFF_CTSTATE));
}

/* bpf_probe_read_kernel(scratch + @dst, @len, ct + @off), ct at CG_STK_CT; drop if it fails. */
static void gen_ct_read(struct codegen *cg, int dst, uint32_t len, uint32_t off)
{
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, CG_STK_CT));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	cg_probe_read(cg, dst, len);
}

/*
 * The fields of the packet's conntrack entry the conntrack match reads
 * (CG_OFF_CTSTATUS, _CTEXPIRES, _CTTUPLE), for tracked packets only. struct
 * nf_conn is not a type the program can be given (it may live in a
 * module's BTF), so its bytes are copied by offset (btf.c).
 */
static void gen_ct_entry(struct codegen *cg)
{
	const struct btf_info *bi = cg->bi;
	uint32_t done = cg_new_label(cg);
	unsigned int dir;

	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, CG_OFF_NFCT));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, -8));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 0), done);
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_3, CG_STK_CT));
	gen_ct_read(cg, CG_OFF_CTSTATUS, 8, bi->ct_status);
	for (dir = 0; dir < 2; dir++)
		gen_ct_read(cg, CG_OFF_CTTUPLE + 40 * dir, bi->ct_tuple_size,
			    bi->ct_tuple + dir * bi->ct_tuple_stride);
	if (bi->hz) {
		/* nf_ct_expires(): max((s32)(timeout - (u32)jiffies), 0), then / HZ. */
		cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_CTEXPIRES, 0));
		gen_ct_read(cg, CG_OFF_CTEXPIRES, 4, bi->ct_timeout);
		cg_call_helper(cg, BPF_FUNC_jiffies64);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_CTEXPIRES));
		cg_emit(cg, CG_ALU32_REG(BPF_SUB, BPF_REG_1, BPF_REG_0));
		cg_emit(cg, CG_JMP32_IMM(BPF_JSGE, BPF_REG_1, 0, 1));
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 0));
		cg_emit(cg, CG_ALU64_IMM(BPF_DIV, BPF_REG_1, bi->hz));
		cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_1, CG_OFF_CTEXPIRES));
	}
	cg_place(cg, done);
}

/* HOOK2MANIP(): is @hook's manip type SRC (POSTROUTING, INPUT), not DST? */
static bool hook_manip_src(unsigned int hook)
{
	return hook == NF_INET_POST_ROUTING || hook == NF_INET_LOCAL_IN;
}

/*
 * The nat table's gate (table_kind.nat): nf_nat_inet_fn() consults the
 * table only for a tracked connection's first packet in each direction of
 * translation: ctinfo NEW, RELATED or RELATED_REPLY and no binding of this
 * hook's manip type yet (nf_nat_initialized()). Every other packet passes
 * untouched and uncounted: nf_nat's hook right after translates it.
 */
static void gen_nat_gate(struct codegen *cg)
{
	const struct btf_info *bi = cg->bi;
	uint32_t pass = cg_new_label(cg), consult = cg_new_label(cg);
	bool src = hook_manip_src(cg->hook);

	if (!bi->ct_ok) {
		cg_unsupported(cg, "nat: this kernel's BTF has no struct nf_conn");
		return;
	}
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, bi->skb_nfct));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_4, BPF_REG_3));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_4, 7));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, -8));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 0), pass);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_4, IP_CT_ESTABLISHED, 0), pass);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_4, IP_CT_ESTABLISHED_REPLY, 0), pass);
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_3, CG_STK_CT));
	gen_ct_read(cg, CG_OFF_CTSTATUS, 8, bi->ct_status);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_CTSTATUS));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, src ? IPS_SRC_NAT_DONE : IPS_DST_NAT_DONE));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0), consult);
	cg_place(cg, pass);
	cg_exit_verdict(cg, CG_NF_ACCEPT);
	cg_place(cg, consult);
}

/* IPv4: the header (too short: ip_rcv() would never pass it; drop), fragment offset, thoff. */
static void gen_ipv4_header(struct codegen *cg, const struct cg_header *iph)
{
	uint32_t short_iph = cg_new_label(cg), iph_ok = cg_new_label(cg);

	gen_read_header(cg, CG_OFF_IPH, iph, -1, short_iph);
	cg_ja(cg, iph_ok);
	cg_place(cg, short_iph);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, iph_ok);

	cg_emit(cg, CG_LDX(BPF_H, CG_REG_FRAG, CG_REG_PKT, CG_OFF_IPH + 6));
	cg_emit(cg, CG_BE16(CG_REG_FRAG));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, CG_REG_FRAG, 0x1fff));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, 0x0f));
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_1, 2));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_1, CG_OFF_THOFF));
}

/* Jump to @label if @reg is one of ipv6_ext_hdr()'s headers but NEXTHDR_NONE. */
static void jmp_if_ext_hdr(struct codegen *cg, int reg, uint32_t label)
{
	static const uint8_t ext[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
				       IPPROTO_AH, IPPROTO_DSTOPTS };
	unsigned int i;

	for (i = 0; i < sizeof(ext); i++)
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, reg, ext[i], 0), label);
}

/*
 * ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL) as ip6_packet_match()
 * calls it, once per packet: CG_OFF_NH, CG_OFF_THOFF and r9, or
 * CG_NH_BAD where it returns an error with fragoff 0 (a header cut
 * short, a later fragment followed by another extension header), and
 * past CG_IP6_MAX_EXTHDRS headers: fail closed. r8 holds the offset.
 *
 * ipv6_find_hdr() with a target header walks the same chain, reading the
 * same bytes of each header, up to the first header of that kind; it
 * fails with -ENOENT at the protocol or at a later fragment before it,
 * and with -EBADMSG where a read fails. So with CG_NEED_IP6_EXT the walk
 * notes the offset of the first header of each kind once it has read it
 * (CG_OFF_XHDR) and how it ended for the kinds it did not see (CG_OFF_XEND).
 */
static void note_xhdr(struct codegen *cg)
{
	unsigned int i;

	/* r1: the header just read, r8 its offset; only r3 is clobbered. */
	for (i = 0; i < sizeof(xhdr_kinds); i++) {
		uint32_t skip = cg_new_label(cg);
		int slot = xhdr_slot(xhdr_kinds[i]);

		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, xhdr_kinds[i], 0), skip);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, CG_REG_PKT, slot));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_3, 0, 0), skip);
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, CG_REG_L4ERR, slot));
		cg_place(cg, skip);
	}
}

static void gen_ipv6_walk(struct codegen *cg)
{
	const int hdr = CG_OFF_SETKEY;	/* free until the rules: the header's first 4 bytes */
	uint32_t found = cg_new_label(cg), bad = cg_new_label(cg), done = cg_new_label(cg);
	uint32_t later_bad = cg_new_label(cg);
	bool note = cg->needs & CG_NEED_IP6_EXT;
	unsigned int k;

	if (note) {
		for (k = 0; k < sizeof(xhdr_kinds); k++)
			cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_XHDR + 4 * k, 0));
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_XEND, 1));
	}
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IP6 + 6));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_NH));
	cg_emit(cg, CG_MOV64_IMM(CG_REG_L4ERR, 40));
	for (k = 0; k < CG_IP6_MAX_EXTHDRS; k++) {
		uint32_t ext = cg_new_label(cg), two = cg_new_label(cg), read = cg_new_label(cg);
		uint32_t notfrag = cg_new_label(cg), opt = cg_new_label(cg);
		uint32_t next = cg_new_label(cg), later = cg_new_label(cg);

		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_NH));
		jmp_if_ext_hdr(cg, BPF_REG_1, ext);
		cg_ja(cg, found);
		cg_place(cg, ext);
		/* The routing and fragment headers are read 4 bytes deep, the others 2. */
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, IPPROTO_ROUTING, 0), read);
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, IPPROTO_FRAGMENT, 0), two);
		cg_place(cg, read);
		cg_emit(cg, CG_MOV64_REG(BPF_REG_4, CG_REG_L4ERR));
		cg_read_packet(cg, hdr, 4);
		cg_jmp(cg, CG_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 0), bad);
		cg_ja(cg, next);
		cg_place(cg, two);
		cg_emit(cg, CG_MOV64_REG(BPF_REG_4, CG_REG_L4ERR));
		cg_read_packet(cg, hdr, 2);
		cg_jmp(cg, CG_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 0), bad);
		cg_place(cg, next);

		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_NH));
		if (note)
			note_xhdr(cg);
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_2, CG_REG_PKT, hdr + 1));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, IPPROTO_FRAGMENT, 0), notfrag);
		/* Fragment header: 8 bytes; a later fragment ends the walk (ipv6_find_hdr()). */
		cg_emit(cg, CG_LDX(BPF_H, BPF_REG_3, CG_REG_PKT, hdr + 2));
		cg_emit(cg, CG_BE16(BPF_REG_3));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_3, 0xfff8));
		cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_3, 0, 0), later);
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 8));
		cg_ja(cg, opt);
		cg_place(cg, later);
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, hdr));
		jmp_if_ext_hdr(cg, BPF_REG_1, note ? later_bad : bad);
		/* Its protocol, with the offset; *offset is left alone: thoff 0. */
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_NH));
		cg_emit(cg, CG_MOV64_REG(CG_REG_FRAG, BPF_REG_3));
		cg_emit(cg, CG_MOV64_IMM(CG_REG_L4ERR, 0));
		cg_ja(cg, found);
		cg_place(cg, notfrag);
		cg_ip6_optlen(cg);
		cg_place(cg, opt);
		cg_emit(cg, CG_ALU64_REG(BPF_ADD, CG_REG_L4ERR, BPF_REG_2));
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, hdr));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_1, CG_OFF_NH));
	}
	/* A last header that is not the protocol yet: more than we walk. */
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_NH));
	jmp_if_ext_hdr(cg, BPF_REG_1, bad);
	cg_place(cg, found);
	if (note)
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_XEND, 0));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, CG_REG_L4ERR, CG_OFF_THOFF));
	cg_ja(cg, done);
	/* A later fragment before another extension header: -ENOENT for any other target. */
	cg_place(cg, later_bad);
	if (note)
		cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_XEND, 0));
	cg_place(cg, bad);
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_NH, CG_NH_BAD));
	cg_emit(cg, CG_MOV64_IMM(CG_REG_FRAG, 0));
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_THOFF, 0));
	cg_place(cg, done);
}

/*
 * IPv6: the fixed header (too short: ipv6_rcv() would never pass it;
 * drop), then the protocol behind the extension headers if a rule tests
 * it or reads the transport header.
 */
static void gen_ipv6_header(struct codegen *cg)
{
	const struct cg_header ip6h = { 40, cg->bi->ty_ipv6hdr, 5,
		{ { 0, BPF_DW }, { 8, BPF_DW }, { 16, BPF_DW }, { 24, BPF_DW }, { 32, BPF_DW } } };
	uint32_t short_iph = cg_new_label(cg), iph_ok = cg_new_label(cg);

	if (cg->bi->ty_ipv6hdr < 0) {
		cg->err = -EOPNOTSUPP;
		return;
	}
	/* The walk reads the packet with bpf_dynptr_read(). */
	gen_dynptr_from_skb(cg);
	gen_read_header(cg, CG_OFF_IP6, &ip6h, -1, short_iph);
	cg_ja(cg, iph_ok);
	cg_place(cg, short_iph);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, iph_ok);

	cg_emit(cg, CG_MOV64_IMM(CG_REG_FRAG, 0));
	cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_THOFF, 0));
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_NH, CG_NH_BAD));
	if (cg->need_proto || (cg->needs & (CG_NEED_ANY_L4 | CG_NEED_IP6_EXT)))
		gen_ipv6_walk(cg);
}

/*
 * Prologue: the packet context of codegen.h. Packet bytes are copied to the
 * scratch area by gen_read_header() (data starts at the IPv4 header at these
 * hooks), so later code deals only in scalars. What no rule of the table
 * reads is not fetched (table_needs()): for an address-only ruleset that is
 * the IPv4 header alone, the cost of a small table.
 */
static void gen_prologue(struct codegen *cg)
{
	const struct btf_info *bi = cg->bi;
	/* frag_off, ihl, protocol, saddr, daddr; the ttl only if a rule reads it. */
	struct cg_header iph = { 20, bi->ty_iphdr, 4,
		{ { 0, BPF_DW }, { 9, BPF_B }, { 12, BPF_W }, { 16, BPF_W } } };
	/* Ports; doff and flags (a bitfield word). */
	const struct cg_header tcph = { 20, bi->ty_tcphdr, 3,
		{ { 0, BPF_H }, { 2, BPF_H }, { 12, BPF_H } } };
	/* Ports, or icmp type and code: an icmphdr is as long. */
	const struct cg_header udph = { 8, bi->ty_udphdr, 2, { { 0, BPF_H }, { 2, BPF_H } } };
	/*
	 * Headers of which rules read the first 4 bytes (ports, the ESP SPI) or
	 * bytes 4-7 (the AH SPI), loaded through a udphdr, as long as the
	 * kernel's match reads: multiport 4 bytes, esp 8, ah 12.
	 */
	const struct cg_header ports = { 4, bi->ty_udphdr, 2, { { 0, BPF_H }, { 2, BPF_H } } };
	const struct cg_header esph = { 8, bi->ty_udphdr, 2, { { 0, BPF_H }, { 2, BPF_H } } };
	const struct cg_header ahh = { 12, bi->ty_udphdr, 2, { { 4, BPF_H }, { 6, BPF_H } } };
	const bool v6 = cg->table->fam != &family_ipv4;
	/* IPv6: AH is an extension header ipv6_find_hdr() walks past, never the protocol. */
	const struct { uint8_t proto; const struct cg_header *h; uint32_t need; } l4[] = {
		{ IPPROTO_TCP, &tcph, CG_NEED_L4 | CG_NEED_PORTS },	/* tcp_mt() */
		{ IPPROTO_UDP, &udph, CG_NEED_L4 | CG_NEED_PORTS },	/* udp_mt() */
		{ v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, &udph, CG_NEED_L4 }, /* icmp(6)_match() */
		{ IPPROTO_UDPLITE, &ports, CG_NEED_PORTS },		/* multiport_mt() */
		{ IPPROTO_SCTP, &ports, CG_NEED_PORTS },
		{ IPPROTO_DCCP, &ports, CG_NEED_PORTS },
		{ IPPROTO_ESP, &esph, CG_NEED_ESP },			/* esp_mt() */
		{ v6 ? IPPROTO_NONE : IPPROTO_AH, &ahh, v6 ? 0 : CG_NEED_AH }, /* ah_mt() */
	};
	const unsigned int nl4 = sizeof(l4) / sizeof(l4[0]);
	uint32_t done, read[sizeof(l4) / sizeof(l4[0])], take, next, shared, cut;
	bool own[sizeof(l4) / sizeof(l4[0])], use[sizeof(l4) / sizeof(l4[0])];
	unsigned int i, j;

	if (cg->needs & CG_NEED_TTL) {
		iph.loads[iph.nloads].off = 8;
		iph.loads[iph.nloads++].size = BPF_B;
	}
	/* Tests of the load-failure path: a read above the stack frame. */
	if (cg->inject_fault)
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_0, BPF_REG_10, 8));
	/* The context, reloaded after the calls below and for a tail call (gen_continue()). */
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_1, CG_STK_CTX));

	/*
	 * Take this CPU's first free runs element (codegen.h): key
	 * cpu * CG_LEVELS + level, owned once an exchange of CG_RUN_BUSY
	 * with 1 returns 0. An exchange, not a test and a store: a task can
	 * be preempted between those (preempt=full) and another run take the
	 * same element meanwhile. Owned, the element is this run's alone
	 * until its exit stores 0: its scratch area needs no atomics, and
	 * at level 0 neither do this CPU's counters.
	 */
	cg_call_helper(cg, BPF_FUNC_get_smp_processor_id);
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_0));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	cg_emit(cg, CG_STX(BPF_W, BPF_REG_10, BPF_REG_1, CG_STK_CNTKEY));
	cg_emit(cg, CG_ALU64_IMM(BPF_MUL, BPF_REG_0, CG_LEVELS));
	cg_emit(cg, CG_STX(BPF_W, BPF_REG_10, BPF_REG_0, CG_STK_KEY));
	/* r8, the level tried, is free until the transport header is read. */
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_8, 0));
	take = cg_new_label(cg);
	next = cg_new_label(cg);
	cg_place(cg, next);
	lookup_elem(cg, CG_FIX_MAP_RUNS, BPF_REG_10, CG_STK_KEY);
	/* Every possible CPU has its elements; without one nothing is counted: fail closed. */
	cg_drop_if(cg, BPF_REG_0, false);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 1));
	cg_emit(cg, CG_ATOMIC_XCHG64(BPF_REG_0, BPF_REG_1, CG_RUN_BUSY));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 0), take);
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_8, 1));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, BPF_REG_10, CG_STK_KEY));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	cg_emit(cg, CG_STX(BPF_W, BPF_REG_10, BPF_REG_1, CG_STK_KEY));
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_8, CG_LEVELS, 0), next);
	/* Nested CG_LEVELS deep on this CPU: fail closed. */
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, take);
	cg_emit(cg, CG_MOV64_REG(CG_REG_PKT, BPF_REG_0));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, CG_REG_PKT, CG_RUN_SCRATCH));
	cg->level_held = true;
	/* Nested (level > 0): the shared counters element, with atomic adds (gen_count_at()). */
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_8, CG_OFF_SHARED));
	shared = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_8, 0, 0), shared);
	cg_emit(cg, CG_ST(BPF_W, BPF_REG_10, CG_STK_CNTKEY, CG_CNT_SHARED));
	cg_place(cg, shared);
	lookup_elem(cg, CG_FIX_MAP_COUNTERS, BPF_REG_10, CG_STK_CNTKEY);
	cg_drop_if(cg, BPF_REG_0, false);
	cg_emit(cg, CG_MOV64_REG(CG_REG_CNT, BPF_REG_0));
	/*
	 * The elements of the later chunks this program counts in: which
	 * ones is known once its rules are, so their lookups are a block at
	 * the end (gen_cnt_lookups()) that jumps back here, the one backward
	 * jump: @cnt_back is marked used before anything jumps to it.
	 */
	if (cg->cnt_nchunks > 1) {
		cg->cnt_lookups = cg_new_label(cg);
		cg->cnt_back = cg_new_label(cg);
		cg_ja(cg, cg->cnt_lookups);
		if (!cg->err)
			cg->labels[cg->cnt_back].used = true;
		cg_place(cg, cg->cnt_back);
	}

	/*
	 * skb->len is what ip_tables counts; skb->data (the IPv4 header at
	 * these hooks) and skb_headlen() let gen_read_header() read linear
	 * headers without a call.
	 */
	cg_ld_skb(cg, BPF_REG_1);
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, BPF_REG_1, bi->skb_len));
	cg_emit(cg, CG_STX(BPF_DW, CG_REG_PKT, BPF_REG_2, CG_OFF_SKBLEN));
	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, BPF_REG_1, bi->skb_data_len));
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_3));
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_2, CG_STK_HEADLEN));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, bi->skb_data));
	cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_3, CG_STK_DATA));
	if (cg->table->kind && cg->table->kind->nat) {
		gen_nat_gate(cg);
		cg_ld_skb(cg, BPF_REG_1);
	}
	if (cg->needs & CG_NEED_MARK) {
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_3, BPF_REG_1, bi->skb_mark));
		cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, BPF_REG_3, CG_OFF_MARK));
	}
	if (cg->needs & CG_NEED_CT)
		gen_ct_state(cg);
	if (cg->needs & CG_NEED_CT_ENTRY)
		gen_ct_entry(cg);

	if (cg->table->fam == &family_ipv4)
		gen_ipv4_header(cg, &iph);
	else
		gen_ipv6_header(cg);
	if (cg->err)
		return;

	/* For rules that read packet bytes themselves (cg_read_packet()). */
	if (cg->needs & CG_NEED_PKT)
		gen_dynptr_from_skb(cg);

	/* Device names only when a rule looks at them: most rulesets never do. */
	if (cg->need_indev || cg->need_outdev) {
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, CG_STK_CTX));
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, bi->nf_ctx_state));
	}
	if (cg->need_indev)
		gen_devname(cg, bi->state_in, CG_OFF_INDEV);
	if (cg->need_outdev)
		gen_devname(cg, bi->state_out, CG_OFF_OUTDEV);

	/*
	 * The transport header the packet's protocol match would read, only
	 * for first fragments (port, icmp, esp and ah matches never look at
	 * others), and only when some rule has such a match. A header cut
	 * short may still hold the ports that multiport reads: then those.
	 */
	cg_emit(cg, CG_MOV64_IMM(CG_REG_L4ERR, CG_L4_NONE));
	if (!(cg->needs & CG_NEED_ANY_L4))
		return;
	done = cg_new_label(cg);
	cut = (cg->needs & CG_NEED_PORTS) ? cg_new_label(cg) : done;
	for (i = 0; i < 3; i++)
		cg_emit(cg, CG_ST(BPF_DW, CG_REG_PKT, CG_OFF_L4 + 8 * i, 0));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 0, 0), done);
	cg_ld_proto(cg, BPF_REG_1);
	for (i = 0; i < nl4; i++) {
		use[i] = cg->needs & l4[i].need;
		if (!use[i])
			continue;
		/* One read per header: protocols of the same shape share theirs. */
		for (j = 0; !use[j] || l4[j].h != l4[i].h; j++)
			;
		own[i] = j == i;
		read[i] = own[i] ? cg_new_label(cg) : read[j];
		cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, l4[i].proto, 0), read[i]);
	}
	cg_ja(cg, done);
	for (i = 0; i < nl4; i++) {
		bool cut_ports = (cg->needs & CG_NEED_PORTS) && l4[i].h->len > ports.len;

		if (!use[i] || !own[i])
			continue;
		cg_place(cg, read[i]);
		gen_read_header(cg, CG_OFF_L4, l4[i].h, CG_OFF_THOFF, cut_ports ? cut : done);
		cg_emit(cg, CG_MOV64_IMM(CG_REG_L4ERR, CG_L4_FULL));
		cg_ja(cg, done);
	}
	if (cg->needs & CG_NEED_PORTS) {
		cg_place(cg, cut);
		gen_read_header(cg, CG_OFF_L4, &ports, CG_OFF_THOFF, done);
		cg_emit(cg, CG_MOV64_IMM(CG_REG_L4ERR, CG_L4_PORTS));
	}
	cg_place(cg, done);
	if (cg->needs & (CG_NEED_TCPOPT | CG_NEED_TCPMSS))
		gen_tcp_option_walk(cg);
}

void cg_ld_proto(struct codegen *cg, int reg)
{
	if (cg->table->fam == &family_ipv4)
		cg_emit(cg, CG_LDX(BPF_B, reg, CG_REG_PKT, CG_OFF_IPH + 9));
	else
		cg_emit(cg, CG_LDX(BPF_W, reg, CG_REG_PKT, CG_OFF_NH));
}

void cg_ds_field(struct codegen *cg, int reg)
{
	if (cg->table->fam == &family_ipv4) {
		cg_emit(cg, CG_LDX(BPF_B, reg, CG_REG_PKT, CG_OFF_IPH + 1));
		return;
	}
	/* The traffic class: the 8 bits after the version nibble. */
	cg_emit(cg, CG_LDX(BPF_H, reg, CG_REG_PKT, CG_OFF_IP6));
	cg_emit(cg, CG_BE16(reg));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, reg, 4));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, reg, 0xff));
}

void cg_addr_masked(struct codegen *cg, int off, const uint8_t *want, const uint8_t *mask,
		    unsigned int words, bool inv)
{
	uint32_t w[4], m[4], differ = CG_NO_LABEL;
	bool any = inv;
	unsigned int i;

	memcpy(w, want, 4 * words);
	memcpy(m, mask, 4 * words);
	for (i = 0; i < words; i++)
		any |= w[i] || m[i];
	if (!any)
		return;
	if (inv)
		differ = cg_new_label(cg);
	for (i = 0; i < words; i++) {
		struct bpf_insn ne;

		if (!w[i] && !m[i])
			continue;
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, off + 4 * i));
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, (int32_t)m[i]));
		ne = CG_JMP32_IMM(BPF_JNE, BPF_REG_1, (int32_t)w[i], 0);
		if (inv)
			cg_jmp(cg, ne, differ);
		else
			cg_jmp_fail(cg, ne);
	}
	/* Inverted: every word equal fails the rule. */
	if (inv) {
		cg_ja_fail(cg);
		cg_place(cg, differ);
	}
}

/* ifname_compare_aligned(): (name ^ want) & mask over IFNAMSIZ bytes. */
static void gen_iface(struct codegen *cg, int off, const char *want, const unsigned char *mask,
		      bool inv)
{
	uint64_t w[2], m[2];
	bool first = true;
	unsigned int i;

	memcpy(w, want, sizeof(w));
	memcpy(m, mask, sizeof(m));
	if (!m[0] && !m[1] && !inv)
		return;
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_1, 0));
	for (i = 0; i < 2; i++) {
		if (!m[i])
			continue;
		cg_emit(cg, CG_LDX(BPF_DW, first ? BPF_REG_1 : BPF_REG_3, CG_REG_PKT, off + 8 * i));
		cg_ld_imm64(cg, BPF_REG_2, w[i]);
		cg_emit(cg, CG_ALU64_REG(BPF_XOR, first ? BPF_REG_1 : BPF_REG_3, BPF_REG_2));
		cg_ld_imm64(cg, BPF_REG_2, m[i]);
		cg_emit(cg, CG_ALU64_REG(BPF_AND, first ? BPF_REG_1 : BPF_REG_3, BPF_REG_2));
		if (!first)
			cg_emit(cg, CG_ALU64_REG(BPF_OR, BPF_REG_1, BPF_REG_3));
		first = false;
	}
	cg_jmp_fail(cg, CG_JMP_IMM(inv ? BPF_JEQ : BPF_JNE, BPF_REG_1, 0, 0));
}

/*
 * Does the extension's generator hold for this table's family? Every one
 * does for IPv4; for IPv6 those registered for it, and the NFPROTO_UNSPEC
 * ones whose test reads nothing of the network header.
 */
static bool ext_translates(const struct codegen *cg, const struct ext_id *id)
{
	return cg->table->fam == &family_ipv4 || (id->families & EXT_IPV6) || id->any_family;
}

/*
 * ip6_packet_match()'s protocol: ipv6_find_hdr()'s error hotdrops; the
 * protocol found matches @proto, or any for -p all (0) unless inverted.
 */
static void gen_ip6_proto(struct codegen *cg, const struct rule_ip *ip)
{
	bool inv = ip->invflags & IPT_INV_PROTO;

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_NH));
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, CG_NH_BAD));
	cg_emit(cg, CG_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_1));
	cg_drop_if(cg, BPF_REG_2, false);
	if (inv)
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_1, ip->proto, 0));
	else if (ip->proto)
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, ip->proto, 0));
}

/* ip_packet_match() / ip6_packet_match(), field by field. */
static void gen_ip(struct codegen *cg, const struct rule_ip *ip)
{
	uint8_t inv = ip->invflags;

	if (cg->table->fam != &family_ipv4) {
		cg_addr_masked(cg, CG_OFF_IP6 + 8, ip->src, ip->smsk, 4, inv & IPT_INV_SRCIP);
		cg_addr_masked(cg, CG_OFF_IP6 + 24, ip->dst, ip->dmsk, 4, inv & IPT_INV_DSTIP);
		gen_iface(cg, CG_OFF_INDEV, ip->iniface, ip->iniface_mask, inv & IPT_INV_VIA_IN);
		gen_iface(cg, CG_OFF_OUTDEV, ip->outiface, ip->outiface_mask,
			  inv & IPT_INV_VIA_OUT);
		if (ip->flags & RULE_F_PROTO)
			gen_ip6_proto(cg, ip);
		return;
	}
	cg_addr_masked(cg, CG_OFF_IPH + 12, ip->src, ip->smsk, 1, inv & IPT_INV_SRCIP);
	cg_addr_masked(cg, CG_OFF_IPH + 16, ip->dst, ip->dmsk, 1, inv & IPT_INV_DSTIP);
	gen_iface(cg, CG_OFF_INDEV, ip->iniface, ip->iniface_mask, inv & IPT_INV_VIA_IN);
	gen_iface(cg, CG_OFF_OUTDEV, ip->outiface, ip->outiface_mask, inv & IPT_INV_VIA_OUT);
	if (ip->proto) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_IPH + 9));
		cg_jmp_fail(cg, CG_JMP_IMM((inv & IPT_INV_PROTO) ? BPF_JEQ : BPF_JNE, BPF_REG_1,
					   ip->proto, 0));
	}
	/* NF_INVF(IPT_INV_FRAG, (flags & IPT_F_FRAG) && !fragoff) fails the rule. */
	if (ip->flags & RULE_F_FRAG)
		cg_jmp_fail(cg, CG_JMP_IMM((inv & IPT_INV_FRAG) ? BPF_JNE : BPF_JEQ, CG_REG_FRAG,
					   0, 0));
	else if (inv & IPT_INV_FRAG)
		cg_ja_fail(cg);
}

/*
 * +1 packet, +skb->len bytes to the counters at @base + @off (ADD_COUNTER
 * in ipt_do_table()): plain adds in this CPU's element, which a level-0
 * run alone touches, atomic ones in the shared element of nested runs
 * (codegen.h).
 */
static void gen_count_at(struct codegen *cg, int base, int16_t off)
{
	uint32_t atomic = cg_new_label(cg), done = cg_new_label(cg);

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, CG_REG_PKT, CG_OFF_SHARED));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_2, 0, 0), atomic);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, base, off));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
	cg_emit(cg, CG_STX(BPF_DW, base, BPF_REG_2, off));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, base, off + 8));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_3));
	cg_emit(cg, CG_STX(BPF_DW, base, BPF_REG_2, off + 8));
	cg_ja(cg, done);
	cg_place(cg, atomic);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, 1));
	cg_emit(cg, CG_ATOMIC_ADD64(base, BPF_REG_2, off));
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, CG_REG_PKT, CG_OFF_SKBLEN));
	cg_emit(cg, CG_ATOMIC_ADD64(base, BPF_REG_3, off + 8));
	cg_place(cg, done);
}

/* r1 = this run's element of counters chunk @c > 0, spilled by gen_cnt_lookups(). */
static void gen_ld_chunk(struct codegen *cg, uint32_t c)
{
	/* Unreachable code is not emitted: it needs no lookup either. */
	if (!cg->dead)
		cg->cnt_used |= 1u << c;
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, CG_STK_CNTPTR(c)));
}

/* Count a match of rule @index: its slot in the counters element of this run (codegen.h). */
static void gen_counter(struct codegen *cg, uint32_t index)
{
	uint32_t c = index / cg->cnt_chunk;
	uint32_t off = (index - c * cg->cnt_chunk) * 16;
	int base = CG_REG_CNT;

	if (c) {
		gen_ld_chunk(cg, c);
		base = BPF_REG_1;
	}
	if (off + 8 <= SHRT_MAX) {
		gen_count_at(cg, base, (int16_t)off);
		return;
	}
	if (base != BPF_REG_1)
		cg_emit(cg, CG_MOV64_REG(BPF_REG_1, base));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)off));
	gen_count_at(cg, BPF_REG_1, 0);
}

/*
 * cg_counter_reg() in a table of several counters chunks: r3, a rule
 * index in [@first, @end), picks the element of its chunk (compares
 * against the boundaries of the chunks that range spans) and becomes
 * the offset in it.
 */
static void counter_reg_chunks(struct codegen *cg, uint32_t first, uint32_t end)
{
	const uint32_t per = cg->cnt_chunk;
	uint32_t lo = first / per, hi = (end - 1) / per, c;
	uint32_t ok = cg_new_label(cg), count = cg_new_label(cg);

	/* As with one chunk, and below too: the verifier must see r3 within the chunk. */
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_3, (int32_t)end, 0), ok);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, ok);
	if (lo) {
		ok = cg_new_label(cg);
		cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_3, (int32_t)(lo * per), 0), ok);
		cg_exit_verdict(cg, CG_NF_DROP);
		cg_place(cg, ok);
	}
	for (c = hi; c > lo; c--) {
		uint32_t below = cg_new_label(cg);

		cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_3, (int32_t)(c * per), 0), below);
		cg_emit(cg, CG_ALU64_IMM(BPF_SUB, BPF_REG_3, (int32_t)(c * per)));
		gen_ld_chunk(cg, c);
		cg_ja(cg, count);
		cg_place(cg, below);
	}
	if (lo) {
		cg_emit(cg, CG_ALU64_IMM(BPF_SUB, BPF_REG_3, (int32_t)(lo * per)));
		gen_ld_chunk(cg, lo);
	} else {
		cg_emit(cg, CG_MOV64_REG(BPF_REG_1, CG_REG_CNT));
	}
	cg_place(cg, count);
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_3, 4));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_3));
	gen_count_at(cg, BPF_REG_1, 0);
}

void cg_counter_reg(struct codegen *cg, int reg, uint32_t first, uint32_t end)
{
	uint32_t ok;

	cg_emit(cg, CG_MOV64_REG(BPF_REG_3, reg));
	if (cg->cnt_nchunks > 1) {
		if (first >= end || end > cg->table->num_entries) {
			set_err(cg, -EINVAL);
			return;
		}
		counter_reg_chunks(cg, first, end);
		return;
	}
	ok = cg_new_label(cg);
	/*
	 * Set values are rule indexes of this table; the bound also lets the
	 * verifier check the access. Anything else cannot be counted: drop.
	 */
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_3, (int32_t)cg->table->num_entries, 0), ok);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, ok);
	cg_emit(cg, CG_ALU64_IMM(BPF_LSH, BPF_REG_3, 4));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, CG_REG_CNT));
	cg_emit(cg, CG_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_3));
	gen_count_at(cg, BPF_REG_1, 0);
}

/*
 * The lookups of the later counters chunks' elements the program counts
 * in, the prologue jumped to (codegen.h): key chunk * (ncpus + 1) + the
 * slot of chunk 0's (CG_STK_CNTKEY, shared or this CPU's), the pointer
 * spilled to CG_STK_CNTPTR(chunk); a failed lookup drops, as chunk 0's.
 */
static void gen_cnt_lookups(struct codegen *cg)
{
	int ncpus = libbpf_num_possible_cpus();
	uint32_t c;

	if (cg->cnt_nchunks <= 1)
		return;
	if (ncpus <= 0) {
		set_err(cg, ncpus ? ncpus : -EINVAL);
		return;
	}
	cg_place(cg, cg->cnt_lookups);
	for (c = 1; c < cg->cnt_nchunks; c++) {
		if (!(cg->cnt_used & (1u << c)))
			continue;
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, BPF_REG_10, CG_STK_CNTKEY));
		cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)(c * (uint32_t)(ncpus + 1))));
		cg_emit(cg, CG_STX(BPF_W, BPF_REG_10, BPF_REG_1, CG_STK_KEY));
		lookup_elem(cg, CG_FIX_MAP_COUNTERS, BPF_REG_10, CG_STK_KEY);
		cg_drop_if(cg, BPF_REG_0, false);
		cg_emit(cg, CG_STX(BPF_DW, BPF_REG_10, BPF_REG_0, CG_STK_CNTPTR(c)));
	}
	cg_ja(cg, cg->cnt_back);
}

/* The state slot of match @k of @r: how many stateful matches come before it. */
static uint32_t state_slot(const struct rule *r, uint32_t k)
{
	uint32_t j, n = 0;

	for (j = 0; j < k; j++)
		n += r->matches[j].ops->state_init != NULL;
	return n;
}

int codegen_rule_state_create(const struct table *t)
{
	unsigned char slot[CG_STATE_SIZE];
	uint32_t i, k, key;
	bool any = false;
	int fd;

	for (i = 0; i < t->num_entries && !any; i++)
		for (k = 0; k < t->rules[i].num_matches; k++)
			any |= t->rules[i].matches[k].ops->state_init != NULL;
	if (!any)
		return -1;
	if (t->num_entries > UINT32_MAX / CG_STATE_PER_RULE)
		return -E2BIG;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpf_flt_state", sizeof(uint32_t), CG_STATE_SIZE,
			    t->num_entries * CG_STATE_PER_RULE, NULL);
	if (fd < 0)
		return -errno;
	for (i = 0; i < t->num_entries; i++) {
		for (k = 0; k < t->rules[i].num_matches; k++) {
			const struct match *m = &t->rules[i].matches[k];

			if (!m->ops->state_init)
				continue;
			key = state_slot(&t->rules[i], k);
			if (key >= CG_STATE_PER_RULE)
				continue;
			key += i * CG_STATE_PER_RULE;
			memset(slot, 0, sizeof(slot));
			m->ops->state_init(m->data, slot);
			if (bpf_map_update_elem(fd, &key, slot, BPF_ANY)) {
				int err = -errno;

				close(fd);
				return err;
			}
		}
	}
	return fd;
}

int cg_rule_state(struct codegen *cg, uint32_t rule, uint32_t k)
{
	uint32_t slot = state_slot(&cg->table->rules[rule], k);

	if (slot >= CG_STATE_PER_RULE)
		return cg_unsupported(cg, "more than 4 stateful matches in one rule");
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_SETKEY, rule * CG_STATE_PER_RULE + slot));
	lookup_elem(cg, CG_FIX_MAP_STATE, CG_REG_PKT, CG_OFF_SETKEY);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	return cg->err;
}

int codegen_runs_create(void)
{
	int ncpus = libbpf_num_possible_cpus(), fd;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpf_flt_run", sizeof(uint32_t), CG_RUN_SIZE,
			    ncpus * CG_LEVELS, NULL);
	return fd < 0 ? -errno : fd;
}

/* Is @fd an array map of @value_size bytes and @max_entries elements? */
static bool array_fits(int fd, uint32_t value_size, uint32_t max_entries)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);

	return !bpf_map_get_info_by_fd(fd, &info, &len) && info.type == BPF_MAP_TYPE_ARRAY &&
	       info.value_size == value_size && info.max_entries == max_entries;
}

bool codegen_runs_fit(int fd)
{
	int ncpus = libbpf_num_possible_cpus();

	return ncpus > 0 && array_fits(fd, CG_RUN_SIZE, (uint32_t)ncpus * CG_LEVELS);
}

uint64_t codegen_runs_bytes(unsigned int ncpus)
{
	return (uint64_t)ncpus * CG_LEVELS * CG_RUN_SIZE;
}

/* The spilled chunk pointers stay within the 512 bytes of a BPF stack frame. */
_Static_assert(-CG_STK_CNTPTR(CG_CNT_MAX_CHUNKS - 1) <= 512, "counters chunks: stack");
_Static_assert(CG_CNT_MAX_CHUNKS <= 32, "counters chunks: struct codegen's cnt_used");

uint32_t codegen_counters_chunk(uint32_t num_entries, uint32_t *nchunks)
{
	uint32_t n = (num_entries + CG_CNT_MAX_ENTRIES - 1) / CG_CNT_MAX_ENTRIES;

	if (n <= 1) {
		*nchunks = 1;
		return num_entries;
	}
	*nchunks = n;
	/* Equal chunks: the padding of the last one is at most n * 4 entries. */
	return ((num_entries + n - 1) / n + 3) & ~3u;
}

/* Value size of a counters element: whole cache lines (codegen.h). */
static uint32_t counters_value_size(uint32_t num_entries)
{
	uint32_t n, per = codegen_counters_chunk(num_entries, &n);

	return (per * (uint32_t)sizeof(struct xt_counters) + 63) & ~63u;
}

/* Elements of a counters map for @num_entries entries on @ncpus CPUs. */
static uint32_t counters_elems(uint32_t num_entries, unsigned int ncpus)
{
	uint32_t n;

	codegen_counters_chunk(num_entries, &n);
	return n * (ncpus + 1);
}

int codegen_counters_create(uint32_t num_entries)
{
	int ncpus = libbpf_num_possible_cpus(), fd;
	uint32_t n;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	codegen_counters_chunk(num_entries, &n);
	if (!num_entries || n > CG_CNT_MAX_CHUNKS)
		return -E2BIG;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpf_flt_cnt", sizeof(uint32_t),
			    counters_value_size(num_entries), counters_elems(num_entries, ncpus),
			    NULL);
	return fd < 0 ? -errno : fd;
}

bool codegen_counters_fit(int fd, uint32_t num_entries)
{
	int ncpus = libbpf_num_possible_cpus();

	return ncpus > 0 && array_fits(fd, counters_value_size(num_entries),
				       counters_elems(num_entries, ncpus));
}

uint64_t codegen_counters_bytes(uint32_t num_entries, unsigned int ncpus)
{
	return (uint64_t)counters_elems(num_entries, ncpus) * counters_value_size(num_entries);
}

/*
 * The layout comes from the map, not from @n: callers may want only the
 * first entries (tools/bench). Element key holds entries chunk * per ..,
 * chunk = key / (ncpus + 1), per = what one value holds (all of them in a
 * one-chunk map).
 */
int codegen_counters_sum(int fd, uint32_t n, struct xt_counters *out)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), key, i, per, nchunks, first;
	struct xt_counters *v;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	if (bpf_map_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (!info.max_entries || info.max_entries % ((uint32_t)ncpus + 1))
		return -EINVAL;
	nchunks = info.max_entries / ((uint32_t)ncpus + 1);
	per = info.value_size / sizeof(*v);
	if ((uint64_t)per * nchunks < n)
		return -EINVAL;
	v = malloc(info.value_size);
	if (!v)
		return -ENOMEM;
	for (key = 0; key < info.max_entries; key++) {
		first = key / ((uint32_t)ncpus + 1) * per;
		if (first >= n)
			break;
		if (bpf_map_lookup_elem(fd, &key, v)) {
			err = -errno;
			break;
		}
		for (i = 0; i < per && first + i < n; i++) {
			out[first + i].pcnt += v[i].pcnt;
			out[first + i].bcnt += v[i].bcnt;
		}
	}
	free(v);
	return err;
}

static int gen_seq(struct codegen *cg, struct cg_walk *w, uint32_t start);

/*
 * What the prologue must fetch for the rules of @t: device names only if a
 * rule tests them, and what the rules' matches say they read (match_ops.needs).
 */
static void table_needs(struct codegen *cg, const struct table *t)
{
	static const unsigned char any[IFNAMSIZ];
	uint32_t i, k;

	cg->need_indev = false;
	cg->need_outdev = false;
	cg->need_proto = false;
	cg->needs = 0;
	for (i = 0; i < t->num_entries; i++) {
		const struct rule *r = &t->rules[i];
		const struct rule_ip *ip = &r->ip;

		if (memcmp(ip->iniface_mask, any, IFNAMSIZ) || (ip->invflags & IPT_INV_VIA_IN))
			cg->need_indev = true;
		if (memcmp(ip->outiface_mask, any, IFNAMSIZ) || (ip->invflags & IPT_INV_VIA_OUT))
			cg->need_outdev = true;
		if (ip->flags & RULE_F_PROTO)
			cg->need_proto = true;
		for (k = 0; k < r->num_matches; k++) {
			const struct match *m = &r->matches[k];

			if (m->ops->needs)
				cg->needs |= m->ops->needs(m->data);
		}
	}
}

/*
 * The target of @r at index @i, after its matches and counter. Sets
 * *terminal when control never continues with the next entry.
 */
/* The program's verdict for a standard ACCEPT or DROP target, else -1. */
static int final_verdict(const struct target *t)
{
	if (t->kind != TARGET_VERDICT)
		return -1;
	if (t->verdict == -NF_DROP - 1)
		return CG_NF_DROP;
	if (t->verdict == -NF_ACCEPT - 1)
		return CG_NF_ACCEPT;
	return -1;
}

static int gen_target(struct codegen *cg, struct cg_walk *w, const struct rule *r, uint32_t i,
		      bool *terminal)
{
	const struct table *t = cg->table;
	int err, verdict;
	uint32_t ret;

	*terminal = true;
	switch (r->target.kind) {
	case TARGET_ERROR:
		/* ipt_error(): NF_DROP. */
		cg_exit_verdict(cg, CG_NF_DROP);
		return 0;
	case TARGET_VERDICT:
		verdict = final_verdict(&r->target);
		if (verdict >= 0) {
			cg_exit_verdict(cg, verdict);
			return 0;
		}
		if (r->target.verdict == XT_RETURN) {
			if (w->nframes)
				cg_ja(cg, w->frames[w->nframes - 1]);
			else if (!w->in_underflow)
				cg_ja(cg, cg->underflow_label);
			else
				/* The underflow is an unconditional policy: unreachable. */
				cg_exit_verdict(cg, CG_NF_DROP);
			return 0;
		}
		/* QUEUE and others: BPF netfilter programs return only DROP/ACCEPT. */
		return -EOPNOTSUPP;
	case TARGET_JUMP:
		if (r->target.jump_index == i + 1) {
			/* ipt_do_table(): a jump to the next entry pushes nothing. */
			*terminal = false;
			return 0;
		}
		if (r->target.jump_index >= t->num_entries)
			return -EINVAL;
		if (r->ip.flags & RULE_F_GOTO)
			return gen_seq(cg, w, r->target.jump_index);
		if (w->nframes >= cg->stacksize) {
			/* ipt_do_table(): jump stack overflow is NF_DROP. */
			cg_exit_verdict(cg, CG_NF_DROP);
			return 0;
		}
		ret = cg_new_label(cg);
		if (cg->err)
			return cg->err;
		w->rets[w->nframes] = i + 1;
		w->frames[w->nframes++] = ret;
		err = gen_seq(cg, w, r->target.jump_index);
		w->nframes--;
		if (err)
			return err;
		cg_place(cg, ret);
		*terminal = false;
		return 0;
	case TARGET_OTHER:
		/* The extension's own generator: a verdict, or on to the next rule. */
		if (r->target.ops->gen && ext_translates(cg, &r->target.ops->id)) {
			*terminal = !r->target.ops->continues;
			return r->target.ops->gen(cg, r, &r->target);
		}
		break;
	}
	return -EOPNOTSUPP;
}

/*
 * A matched rule whose target is ACCEPT or DROP: its index to the scratch
 * area and a jump to the program's one count-and-exit block of that
 * verdict (gen_count_exits()), two instructions instead of the counting
 * code in each rule. The block reads the index as an unknown bounded
 * scalar, so the verifier prunes every later arrival there.
 */
static bool gen_count_exit(struct codegen *cg, const struct rule *r, uint32_t i)
{
	int v = final_verdict(&r->target);

	if (v < 0)
		return false;
	if (cg->count_exit[v] == CG_NO_LABEL)
		cg->count_exit[v] = cg_new_label(cg);
	cg_emit(cg, CG_ST(BPF_W, CG_REG_PKT, CG_OFF_RULE, (int32_t)i));
	cg_ja(cg, cg->count_exit[v]);
	if (i < cg->cx_first)
		cg->cx_first = i;
	if (i >= cg->cx_end)
		cg->cx_end = i + 1;
	return true;
}

/* The count-and-exit blocks gen_count_exit() jumped to. */
static void gen_count_exits(struct codegen *cg)
{
	int v;

	for (v = CG_NF_DROP; v <= CG_NF_ACCEPT; v++) {
		if (cg->count_exit[v] == CG_NO_LABEL)
			continue;
		cg_place(cg, cg->count_exit[v]);
		cg_emit(cg, CG_LDX(BPF_W, BPF_REG_1, CG_REG_PKT, CG_OFF_RULE));
		cg_counter_reg(cg, BPF_REG_1, cg->cx_first, cg->cx_end);
		cg_exit_verdict(cg, v);
	}
}

/* One entry: ip header checks, matches, counter, target. */
static int gen_rule(struct codegen *cg, struct cg_walk *w, uint32_t i, bool *stop)
{
	const struct rule *r = &cg->table->rules[i];
	uint32_t saved_fail = cg->fail_label, next, tramp = CG_NO_LABEL;
	bool saved_used = cg->fail_used, terminal = false, conditional;
	bool long_target;
	uint32_t k;
	int err = 0;

	next = cg_new_label(cg);
	/*
	 * A jump or goto inlines a whole chain between the checks and @next,
	 * too far for a conditional jump's 16-bit offset: the checks then go
	 * to a trampoline that jumps to @next with an unconditional jump.
	 */
	long_target = r->target.kind == TARGET_JUMP && r->target.jump_index != i + 1;
	if (long_target)
		tramp = cg_new_label(cg);
	if (cg->err)
		return cg->err;
	cg->fail_label = long_target ? tramp : next;
	cg->fail_used = false;

	gen_ip(cg, &r->ip);
	for (k = 0; k < r->num_matches && !cg->err; k++) {
		const struct match *m = &r->matches[k];

		/* The extension's own generator (match_ops.gen): none, no translation. */
		if (!m->ops->gen || !ext_translates(cg, &m->ops->id)) {
			err = -EOPNOTSUPP;
			goto out;
		}
		err = m->ops->gen(cg, r, m);
		if (err)
			goto out;
	}
	conditional = cg->fail_used;
	if (long_target && conditional) {
		uint32_t body = cg_new_label(cg);

		cg_ja(cg, body);
		cg_place(cg, tramp);
		cg_ja(cg, next);
		cg_place(cg, body);
	}
	if (gen_count_exit(cg, r, i)) {
		terminal = true;
	} else {
		gen_counter(cg, i);
		err = gen_target(cg, w, r, i, &terminal);
		if (err)
			goto out;
	}
	cg_place(cg, next);
	*stop = terminal && !conditional;
out:
	cg->fail_label = saved_fail;
	cg->fail_used = saved_used;
	return err ? err : cg->err;
}

/*
 * The entry of @p for a program of @hook at @kind, @start, @len with the
 * jump stack @rets (@nframes return rules), @depth tail calls from the
 * hook's first program, at continuation slot @slot or, with UINT32_MAX, at
 * new ones (made, with its slots, if new): its index, or -errno (-E2BIG
 * past the tail call limit).
 */
static long plan_add(struct cg_plan *p, unsigned int hook, enum cg_entry_kind kind,
		     uint32_t start, uint32_t len, uint32_t depth, const uint32_t *rets,
		     uint32_t nframes, uint32_t slot)
{
	struct cg_entry *e;
	uint32_t k;

	for (k = 0; k < p->nentries; k++) {
		e = &p->entries[k];
		if (e->kind == kind && e->hook == hook && e->start == start && e->len == len &&
		    e->depth == depth && (slot == UINT32_MAX || e->slot == slot) &&
		    e->nframes == nframes && !memcmp(e->frames, rets, nframes * sizeof(*rets)))
			return k;
	}
	if (depth >= CG_MAX_SEGS)
		return -E2BIG;
	if (grow((void **)&p->entries, &p->entries_cap, p->nentries + 1, sizeof(*e)))
		return -ENOMEM;
	e = &p->entries[p->nentries];
	*e = (struct cg_entry){ .kind = kind, .hook = hook, .start = start, .len = len,
				.slot = slot == UINT32_MAX ? p->nslots : slot, .depth = depth,
				.nframes = nframes };
	e->frames = calloc(nframes + 1, sizeof(*e->frames));
	if (!e->frames)
		return -ENOMEM;
	memcpy(e->frames, rets, nframes * sizeof(*rets));
	if (slot == UINT32_MAX)
		p->nslots += kind == CG_ENTRY_LEAVES ? len : 1;
	return p->nentries++;
}

/*
 * The entry of cg->plan for a program this one tail-calls, at @kind,
 * @start, @len with the jump stack @w, at new slots: its index, or -errno.
 * Such a program names slots of this hook's own: it is not the same in
 * other hooks (cg->own_entries).
 */
static long plan_entry(struct codegen *cg, const struct cg_walk *w, enum cg_entry_kind kind,
		       uint32_t start, uint32_t len)
{
	cg->own_entries = true;
	return plan_add(cg->plan, cg->hook, kind, start, len, cg->ent.depth + 1, w->rets,
			w->nframes, UINT32_MAX);
}

/*
 * The after block (struct cg_after) that a LEAVES program of run [@start,
 * @start + @len) at tail call depth @depth, whose chains return with the
 * jump stack @rets, takes in @hook: the first one of that run, stack and
 * depth that @hook has not taken with other return rules. Its index, or
 * p->nafters if none (after_take() makes it).
 */
static uint32_t after_find(const struct cg_plan *p, unsigned int hook, uint32_t start,
			   uint32_t len, uint32_t depth, const uint32_t *rets, uint32_t nframes)
{
	const size_t fsize = nframes * sizeof(*rets);
	const struct cg_after *a;
	uint32_t k;

	for (k = 0; k < p->nafters; k++) {
		a = &p->afters[k];
		if (a->start == start && a->len == len && a->nframes == nframes &&
		    a->depth == depth && (!a->frames[hook] || !memcmp(a->frames[hook], rets, fsize)))
			break;
	}
	return k;
}

/*
 * Take after block @k (after_find()'s answer for these arguments) for
 * @hook: made if it is p->nafters, its return rules of @hook set. @k, or
 * -errno.
 */
static long after_take(struct cg_plan *p, uint32_t k, unsigned int hook, uint32_t start,
		       uint32_t len, uint32_t depth, const uint32_t *rets, uint32_t nframes)
{
	const size_t fsize = nframes * sizeof(*rets);
	struct cg_after *a;

	if (k == p->nafters) {
		if (grow((void **)&p->afters, &p->afters_cap, p->nafters + 1, sizeof(*a)))
			return -ENOMEM;
		p->afters[p->nafters++] = (struct cg_after){ .start = start, .len = len,
							     .nframes = nframes, .depth = depth,
							     .base = p->nslots };
		p->nslots += NF_INET_NUMHOOKS;
	}
	a = &p->afters[k];
	if (!a->frames[hook]) {
		a->frames[hook] = malloc(fsize + 1);
		if (!a->frames[hook])
			return -ENOMEM;
		memcpy(a->frames[hook], rets, fsize);
	}
	return k;
}

/*
 * @hook's program after the run of after block @a: a SEQ entry at rule
 * @end with the block's return rules of @hook, in slot base + @hook. Its
 * index, or -errno.
 */
static long plan_after_entry(struct cg_plan *p, uint32_t a, unsigned int hook, uint32_t end)
{
	const struct cg_after *af = &p->afters[a];

	return plan_add(p, hook, CG_ENTRY_SEQ, end, 0, af->depth + 1, af->frames[hook],
			af->nframes, af->base + hook);
}

/*
 * Tail call into slot r3 of the continuation array. It cannot fail while
 * the array is held (see codegen_load_hook()); if it did, NF_DROP (fail
 * closed). The next program takes its own level; ours is given back first.
 */
static void gen_tail_call_r3(struct codegen *cg)
{
	gen_release_level(cg);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, CG_STK_CTX));
	ld_map(cg, BPF_REG_2, CG_FIX_MAP_CONT);
	cg_call_helper(cg, BPF_FUNC_tail_call);
	/* Our level is already given back: a plain NF_DROP exit. */
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_0, CG_NF_DROP));
	cg_emit(cg, CG_EXIT());
}

/* Go on at rule @i with the jump stack @w, in a program of its own (a SEQ entry). */
static void gen_continue(struct codegen *cg, const struct cg_walk *w, uint32_t i)
{
	long e = plan_entry(cg, w, CG_ENTRY_SEQ, i, 0);

	if (e < 0) {
		set_err(cg, (int)e);
		return;
	}
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, (int32_t)cg->plan->entries[e].slot));
	gen_tail_call_r3(cg);
}

/*
 * Go on at rule @end, after the run of this LEAVES program, with the jump
 * stack @w: through the run's after block, in the slot of the hook the
 * packet is at, so that the code is the same in every hook.
 */
static void gen_continue_after(struct codegen *cg, const struct cg_walk *w, uint32_t end)
{
	struct cg_plan *p = cg->plan;
	const struct cg_entry *en = &cg->ent;
	long a, e;

	a = after_find(p, cg->hook, en->start, en->len, en->depth, w->rets, w->nframes);
	a = after_take(p, (uint32_t)a, cg->hook, en->start, en->len, en->depth, w->rets,
		       w->nframes);
	e = a < 0 ? a : plan_after_entry(p, (uint32_t)a, cg->hook, end);
	if (e < 0) {
		set_err(cg, (int)e);
		return;
	}
	cg->after = (uint32_t)a;
	cg_ld_ctx(cg, BPF_REG_3);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_3, BPF_REG_3, cg->bi->nf_ctx_state));
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_3, BPF_REG_3, cg->bi->state_hook));
	cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)p->afters[a].base));
	gen_tail_call_r3(cg);
}

/*
 * A foldable run [i, i + len): one lookup finds the first rule of the run
 * that matches; it is counted and the run's common target follows. A miss
 * continues after the run, as if each rule had failed in turn. A run of
 * jumps tail-calls the program that holds the matched rule's chain (slot
 * = the LEAVES entry's first + rule - i); what follows the run is another
 * program, which the leaves go on with (gen_leaves()).
 */
static int gen_folded_run(struct codegen *cg, struct cg_walk *w, uint32_t i, uint32_t len,
			  bool jumps)
{
	uint32_t skip = cg_new_label(cg);
	bool terminal;
	long e;
	int err;

	if (cg->err)
		return cg->err;
	err = cg_gen_run(cg, i, len, skip, true);
	if (err)
		return err;
	if (jumps) {
		e = plan_entry(cg, w, CG_ENTRY_LEAVES, i, len);
		if (e < 0)
			return (int)e;
		cg_emit(cg, CG_MOV64_REG(BPF_REG_3, BPF_REG_1));
		cg_emit(cg, CG_ALU64_IMM(BPF_ADD, BPF_REG_3,
					 (int32_t)cg->plan->entries[e].slot - (int32_t)i));
		gen_tail_call_r3(cg);
	} else {
		/* Only verdict targets are folded: nothing here depends on @i itself. */
		err = gen_target(cg, w, &cg->table->rules[i], i, &terminal);
		if (err)
			return err;
	}
	cg_place(cg, skip);
	return cg->err;
}

/*
 * End the segment before rule @i of the built-in chain? Only between its
 * own rules (depth 1, empty jump stack), never before the first one, once
 * the program or its map budget is big enough.
 */
static bool seg_cut_here(const struct codegen *cg, const struct cg_walk *w, uint32_t start,
			 uint32_t i)
{
	if (!cg->plan || !cg->seg_insns || cg->depth != 1 || w->nframes || w->in_underflow ||
	    i == start)
		return false;
	return cg->len - cg->prologue_len >= cg->seg_insns || cg->nsets + 2 > CG_MAX_SETS;
}

/* Entries from @start on, as ipt_do_table() walks them, until control cannot fall through. */
static int gen_seq(struct codegen *cg, struct cg_walk *w, uint32_t start)
{
	const struct table *t = cg->table;
	bool stop = false;
	uint32_t i;
	int err = 0;

	/* Gotos recurse without pushing; bound the C stack anyway. */
	if (++cg->depth > 4096) {
		err = -E2BIG;
		goto out;
	}
	for (i = start; !stop; i++) {
		uint32_t run;
		bool jumps;

		if (cg->err) {
			err = cg->err;
			goto out;
		}
		if (cg->dead)
			break;
		if (i >= t->num_entries) {
			/* Ran off the end: mark_source_chains() rejects that. */
			cg_exit_verdict(cg, CG_NF_DROP);
			break;
		}
		if (seg_cut_here(cg, w, start, i)) {
			gen_continue(cg, w, i);
			break;
		}
		run = cg_run_length(cg, i, &jumps);
		if (run) {
			err = gen_folded_run(cg, w, i, run, jumps);
			if (err)
				goto out;
			i += run - 1;
			continue;
		}
		err = gen_rule(cg, w, i, &stop);
		if (err) {
			if (err == -EOPNOTSUPP && !cg->err)
				cg->err_rule = i;
			goto out;
		}
	}
out:
	cg->depth--;
	return err;
}

/* ip_tables' jump stack size: one slot per ERROR entry (translate_table()). */
static uint32_t table_stacksize(const struct table *t)
{
	uint32_t i, n = 0;

	for (i = 0; i < t->num_entries; i++)
		if (t->rules[i].target.kind == TARGET_ERROR)
			n++;
	return n;
}

/*
 * The prologue leaves CG_REG_FRAG and CG_REG_L4ERR as constants on each of
 * its paths, which the verifier would follow apart through every rule
 * (checking the rules once per kind of packet), and in which it would find
 * checks that can never fail (a leaf's chains see only packets its run's
 * checks passed) and remove that dead code one instruction at a time, with
 * a move of the whole program each. Through the scratch area they are any
 * value to it: the rules are checked once.
 */
static void gen_forget_l4(struct codegen *cg)
{
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, CG_REG_FRAG, CG_OFF_SETKEY));
	cg_emit(cg, CG_STX(BPF_W, CG_REG_PKT, CG_REG_L4ERR, CG_OFF_SETKEY + 4));
	cg_emit(cg, CG_LDX(BPF_W, CG_REG_FRAG, CG_REG_PKT, CG_OFF_SETKEY));
	cg_emit(cg, CG_LDX(BPF_W, CG_REG_L4ERR, CG_REG_PKT, CG_OFF_SETKEY + 4));
}

/*
 * A SEQ entry: rule @start with the entry's jump stack, whose frames are
 * placed after the walk from @start, innermost first, each going on with
 * the rule it returns to (what gen_target() does after an inlined chain).
 */
static int gen_entry_seq(struct codegen *cg, struct cg_walk *w, uint32_t start)
{
	const struct cg_entry *e = &cg->ent;
	uint32_t j;
	int err;

	for (j = 0; j < e->nframes; j++) {
		w->rets[j] = e->frames[j];
		w->frames[j] = cg_new_label(cg);
	}
	w->nframes = e->nframes;
	err = gen_seq(cg, w, start);
	for (j = e->nframes; j-- > 0 && !err;) {
		cg_place(cg, w->frames[j]);
		w->nframes = j;
		err = gen_seq(cg, w, e->frames[j]);
	}
	return err ? err : cg->err;
}

/* Jump to body[k - lo] for r1 = k in [a, b) (lo <= a < b): a balanced tree of tests. */
static void gen_leaf_tree(struct codegen *cg, const uint32_t *body, uint32_t lo, uint32_t a,
			  uint32_t b)
{
	uint32_t mid, right;

	if (b - a == 1) {
		cg_ja(cg, body[a - lo]);
		return;
	}
	mid = a + (b - a) / 2;
	right = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGE, BPF_REG_1, (int32_t)mid, 0), right);
	gen_leaf_tree(cg, body, lo, a, mid);
	cg_place(cg, right);
	gen_leaf_tree(cg, body, lo, mid, b);
}

/*
 * A LEAVES entry: rules cg->leaf_lo .. of the jump run [start, start +
 * len), as many as fit in cg->seg_insns (cg->leaf_hi UINT32_MAX) or up to
 * cg->leaf_hi; cg->leaf_end says where it stopped. The run's lookup gives
 * the rule again (the first program counted it), a tree of tests leads to
 * its chain, inlined as gen_target() inlines a jump; when the chain
 * returns, no later rule of the run can match (jump_run_distinct()), so
 * the walk goes on after the run, in a SEQ entry with this one's stack.
 */
static int gen_leaves(struct codegen *cg, struct cg_walk *w)
{
	const struct cg_entry *e = &cg->ent;
	const uint32_t lo = cg->leaf_lo, end = e->start + e->len;
	uint32_t hi = cg->leaf_hi == UINT32_MAX ? end : cg->leaf_hi;
	uint32_t *body, miss, tree, after, ret, k, j;
	const struct rule *r;
	int err = 0;

	if (lo < e->start || lo >= hi || hi > end)
		return -EINVAL;
	body = calloc(hi - lo, sizeof(*body));
	if (!body)
		return -ENOMEM;
	miss = cg_new_label(cg);
	after = cg_new_label(cg);
	for (k = lo; k < hi; k++)
		body[k - lo] = cg_new_label(cg);
	/* Frames below the chain's own: nothing in a leaf returns to them. */
	for (j = 0; j < e->nframes; j++) {
		w->rets[j] = e->frames[j];
		w->frames[j] = miss;
	}
	w->nframes = e->nframes;
	err = cg_gen_run(cg, e->start, e->len, miss, false);
	if (err)
		goto out;
	/* Another program holds the rule (cannot happen): fail closed. */
	tree = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, (int32_t)lo, 0), miss);
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, (int32_t)hi, 0), tree);
	cg_place(cg, miss);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, tree);
	gen_leaf_tree(cg, body, lo, lo, hi);
	for (k = lo; k < hi && !err; k++) {
		if (cg->leaf_hi == UINT32_MAX && k > lo && cg->seg_insns &&
		    cg->len - cg->prologue_len >= cg->seg_insns)
			break;
		r = &cg->table->rules[k];
		cg_place(cg, body[k - lo]);
		if (w->nframes >= cg->stacksize) {
			/* ipt_do_table(): jump stack overflow is NF_DROP. */
			cg_exit_verdict(cg, CG_NF_DROP);
			continue;
		}
		ret = cg_new_label(cg);
		w->rets[w->nframes] = end;
		w->frames[w->nframes++] = ret;
		err = gen_seq(cg, w, r->target.jump_index);
		w->nframes--;
		cg_place(cg, ret);
		cg_ja(cg, after);
	}
	cg->leaf_end = k;
	if (err)
		goto out;
	cg_place(cg, after);
	gen_continue_after(cg, w, end);
	err = cg->err;
out:
	free(body);
	return err;
}

int codegen_hook(struct codegen *cg, const struct table *t, unsigned int hook)
{
	struct cg_walk w = {};
	uint32_t start;
	int err;

	if (!cg->bi || !cg->bi->loaded)
		return -EOPNOTSUPP;
	if (hook >= NF_INET_NUMHOOKS || !(t->valid_hooks & (1u << hook)) ||
	    t->hook_rule[hook] >= t->num_entries || t->underflow_rule[hook] >= t->num_entries)
		return -EINVAL;
	start = cg->plan ? cg->ent.start : t->hook_rule[hook];
	if (start >= t->num_entries || cg->ent.len > t->num_entries - start)
		return -EINVAL;
	cg->table = t;
	cg->hook = hook;
	cg->err_rule = UINT32_MAX;
	cg->stacksize = table_stacksize(t);
	if (cg->ent.nframes > cg->stacksize)
		return -EINVAL;
	cg->cnt_chunk = codegen_counters_chunk(t->num_entries, &cg->cnt_nchunks);
	if (cg->cnt_nchunks > CG_CNT_MAX_CHUNKS)
		return -E2BIG;
	table_needs(cg, t);
	w.frames = calloc(cg->stacksize + 1, sizeof(*w.frames));
	w.rets = calloc(cg->stacksize + 1, sizeof(*w.rets));
	err = -ENOMEM;
	if (!w.frames || !w.rets)
		goto out;
	cg->underflow_label = cg_new_label(cg);

	gen_prologue(cg);
	gen_forget_l4(cg);
	cg->prologue_len = cg->len;
	if (cg->plan && cg->ent.kind == CG_ENTRY_LEAVES)
		err = gen_leaves(cg, &w);
	else
		err = gen_entry_seq(cg, &w, start);
	if (err)
		goto out;
	/* RETURN with an empty stack: continue at the hook's underflow entry. */
	cg->hook_code = cg->labels[cg->underflow_label].used;
	cg_place(cg, cg->underflow_label);
	w.in_underflow = true;
	w.nframes = 0;
	err = gen_seq(cg, &w, t->underflow_rule[hook]);
	if (err)
		goto out;
	/* Defensive: nothing may fall off the end of the program. */
	cg_exit_verdict(cg, CG_NF_DROP);
	gen_count_exits(cg);
	gen_cnt_lookups(cg);
	err = cg->err;
out:
	free(w.frames);
	free(w.rets);
	return err;
}

int codegen_dispatcher(struct codegen *cg, unsigned int hook)
{
	ld_map(cg, BPF_REG_2, CG_FIX_MAP_PROGS);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_3, hook));
	cg_call_helper(cg, BPF_FUNC_tail_call);
	/* Empty slot or failed tail call: fail closed. */
	cg_exit_verdict(cg, CG_NF_DROP);
	return cg->err;
}

int codegen_finalize(struct codegen *cg, int counters_fd, int progs_fd)
{
	uint32_t k;
	int err;

	if (cg->err)
		return cg->err;
	err = codegen_sets_create(cg);
	if (err)
		return err;
	for (k = 0; k < cg->nfixups; k++) {
		struct cg_fixup *f = &cg->fixups[k];
		struct bpf_insn *insn = &cg->insns[f->insn];
		int64_t off;

		switch (f->kind) {
		case CG_FIX_JMP:
		case CG_FIX_JA:
			if (cg->labels[f->label].pos == CG_NO_LABEL)
				return -EFAULT;
			off = (int64_t)cg->labels[f->label].pos - f->insn - 1;
			if (off >= SHRT_MIN && off <= SHRT_MAX) {
				insn->off = (int16_t)off;
			} else if (f->kind == CG_FIX_JA) {
				/* gotol: 32-bit offset in imm. */
				insn->code = BPF_JMP32 | BPF_JA;
				insn->off = 0;
				insn->imm = (int32_t)off;
			} else {
				return -E2BIG;
			}
			break;
		case CG_FIX_MAP_SET:
			insn->src_reg = BPF_PSEUDO_MAP_FD;
			insn->imm = cg->sets[f->label].fd;
			if (insn->imm < 0)
				return -EBADF;
			break;
		case CG_FIX_MAP_COUNTERS:
		case CG_FIX_MAP_RUNS:
		case CG_FIX_MAP_PROGS:
		case CG_FIX_MAP_CONT:
		case CG_FIX_MAP_STATE:
			insn->src_reg = BPF_PSEUDO_MAP_FD;
			insn->imm = f->kind == CG_FIX_MAP_COUNTERS ? counters_fd :
				    f->kind == CG_FIX_MAP_RUNS ? cg->runs_fd :
				    f->kind == CG_FIX_MAP_PROGS ? progs_fd :
				    f->kind == CG_FIX_MAP_CONT ? cg->cont_fd : cg->state_fd;
			if (insn->imm < 0)
				return -EBADF;
			break;
		}
	}
	return 0;
}

void codegen_plan_free(struct cg_plan *p)
{
	unsigned int h;
	uint32_t k;

	for (k = 0; k < p->nentries; k++)
		free(p->entries[k].frames);
	for (k = 0; k < p->nafters; k++)
		for (h = 0; h < NF_INET_NUMHOOKS; h++)
			free(p->afters[k].frames[h]);
	for (k = 0; k < p->nprogs; k++)
		codegen_free(&p->progs[k]);
	free(p->afters);
	free(p->entries);
	free(p->progs);
	free(p->prog_slot);
	free(p->prog_nslots);
	free(p->prog_same);
	memset(p, 0, sizeof(*p));
}

/* A new program of @p for entry @e (from rule @lo of a LEAVES run), set up as @l says. */
static struct codegen *plan_prog(struct cg_plan *p, const struct cg_hook_load *l, uint32_t e,
				 uint32_t lo)
{
	struct codegen *cg;

	if (p->nprogs == p->progs_cap) {
		uint32_t cap = p->progs_cap ? 2 * p->progs_cap : 8;
		uint32_t *slot, *nslots, *same;

		cg = realloc(p->progs, cap * sizeof(*cg));
		if (cg)
			p->progs = cg;
		slot = realloc(p->prog_slot, cap * sizeof(*slot));
		if (slot)
			p->prog_slot = slot;
		nslots = realloc(p->prog_nslots, cap * sizeof(*nslots));
		if (nslots)
			p->prog_nslots = nslots;
		same = realloc(p->prog_same, cap * sizeof(*same));
		if (same)
			p->prog_same = same;
		if (!cg || !slot || !nslots || !same)
			return NULL;
		p->progs_cap = cap;
	}
	cg = &p->progs[p->nprogs];
	codegen_init(cg, l->bi);
	cg->fold_min = l->fold_min;
	cg->fold_jump_min = l->fold_jump_min;
	cg->seg_insns = l->seg_insns;
	cg->inject_fault = l->inject_fault && p->nprogs == l->fault_prog;
	cg->slow_reads = l->slow_reads;
	cg->state_fd = l->state_fd;
	cg->runs_fd = l->runs_fd;
	cg->plan = p;
	cg->ent = p->entries[e];
	cg->leaf_lo = lo;
	p->prog_same[p->nprogs] = p->nprogs;
	return cg;
}

/*
 * Do programs of hooks @a and @b of @t start alike? Only a nat table's
 * gate (gen_nat_gate()) tells hooks apart: by their manip type.
 */
static bool same_prologue(const struct table *t, unsigned int a, unsigned int b)
{
	return !t->kind || !t->kind->nat || hook_manip_src(a) == hook_manip_src(b);
}

/*
 * A program of another hook that holds the chains of LEAVES entry @e from
 * rule @lo on, as this hook's would (the same run, stack depth, tail call
 * depth, after block, and no entries of its hook's own): its index, with
 * this hook's program after the run planned, or UINT32_MAX (then it is
 * generated). -errno on failure.
 */
static long plan_same_leaves(struct cg_plan *p, const struct table *t, uint32_t e, uint32_t lo)
{
	const struct cg_entry *en = &p->entries[e];
	const struct codegen *o;
	uint32_t k, a;
	long err;

	for (k = 0; k < p->nprogs; k++) {
		o = &p->progs[k];
		if (p->prog_same[k] != k || o->hook == en->hook || o->ent.kind != CG_ENTRY_LEAVES ||
		    o->ent.start != en->start || o->ent.len != en->len ||
		    o->ent.nframes != en->nframes || o->ent.depth != en->depth ||
		    o->leaf_lo != lo || o->own_entries || o->hook_code || o->err ||
		    !same_prologue(t, o->hook, en->hook))
			continue;
		if (o->after == UINT32_MAX)
			return k;
		/* This hook must take the same after block (what gen_continue_after() would). */
		a = after_find(p, en->hook, en->start, en->len, en->depth, en->frames, en->nframes);
		if (a != o->after)
			continue;
		err = after_take(p, a, en->hook, en->start, en->len, en->depth, en->frames,
				 en->nframes);
		if (err >= 0)
			err = plan_after_entry(p, a, en->hook, en->start + en->len);
		return err < 0 ? err : (long)k;
	}
	return UINT32_MAX;
}

int codegen_plan_hook(struct cg_plan *p, struct cg_hook_load *l, const struct table *t,
		      unsigned int hook)
{
	struct codegen *cg, probe;
	uint32_t e, lo, hi;
	long same;
	int err = 0;

	l->nsegs = l->insns = l->ngen = 0;
	l->err_prog = p->nprogs;
	l->err_hook = hook;
	l->err_rule = UINT32_MAX;
	l->err_what = NULL;
	if (hook >= NF_INET_NUMHOOKS || !(t->valid_hooks & (1u << hook)))
		return -EINVAL;
	if (grow((void **)&p->entries, &p->entries_cap, p->nentries + 1, sizeof(*p->entries)))
		return -ENOMEM;
	e = p->nentries++;
	p->entries[e] = (struct cg_entry){ .hook = hook, .start = t->hook_rule[hook],
					   .slot = UINT32_MAX };
	/* The hook's entries are the ones its programs add: from @e on. */
	for (; e < p->nentries && !err; e++) {
		lo = p->entries[e].start;
		do {
			hi = UINT32_MAX;
			same = p->entries[e].kind == CG_ENTRY_LEAVES ?
				plan_same_leaves(p, t, e, lo) : UINT32_MAX;
			if (same < 0) {
				err = (int)same;
				break;
			}
			if (same != UINT32_MAX) {
				/* Not generated again: the same program, in this hook's slots. */
				cg = plan_prog(p, l, e, lo);
				if (!cg)
					return -ENOMEM;
				cg->hook = hook;
				cg->leaf_end = p->progs[same].leaf_end;
				p->prog_same[p->nprogs] = (uint32_t)same;
			} else if (p->entries[e].kind == CG_ENTRY_LEAVES && l->seg_insns) {
				/* How many of the run's chains fit: generate once to see. */
				cg = plan_prog(p, l, e, lo);
				if (!cg)
					return -ENOMEM;
				probe = *cg;
				err = codegen_hook(&probe, t, hook);
				hi = probe.leaf_end;
				codegen_free(&probe);
				if (err)
					break;
			}
			if (same == UINT32_MAX) {
				cg = plan_prog(p, l, e, lo);
				if (!cg)
					return -ENOMEM;
				cg->leaf_hi = hi;
				err = codegen_hook(cg, t, hook);
				l->ngen++;
				l->err_rule = cg->err_rule;
				l->err_what = cg->err_what;
			}
			l->nsegs++;
			l->insns += p->progs[p->prog_same[p->nprogs]].len;
			l->err_prog = p->nprogs++;
			if (p->entries[e].kind == CG_ENTRY_LEAVES) {
				p->prog_slot[p->nprogs - 1] = p->entries[e].slot + lo - p->entries[e].start;
				p->prog_nslots[p->nprogs - 1] = cg->leaf_end - lo;
				lo = cg->leaf_end;
			} else {
				p->prog_slot[p->nprogs - 1] = p->entries[e].slot;
				p->prog_nslots[p->nprogs - 1] =
					p->entries[e].slot == UINT32_MAX ? 0 : 1;
			}
		} while (!err && p->entries[e].kind == CG_ENTRY_LEAVES &&
			 lo < p->entries[e].start + p->entries[e].len);
	}
	return err;
}
