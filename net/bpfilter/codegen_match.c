// SPDX-License-Identifier: GPL-2.0
/*
 * BPF translation of the tcp, udp and icmp matches: tcp_mt(), udp_mt()
 * (net/netfilter/xt_tcpudp.c) and icmp_match() (ip_tables.c), check for
 * check, in the kernel's order, so that hotdrop happens exactly when it
 * does there. Each generator jumps to the rule's no-match label when the
 * match fails and returns NF_DROP where the kernel sets hotdrop.
 */
#include <errno.h>

#include <linux/in.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "match.h"
#include "rule.h"

/*
 * "Must not be a fragment": non-first fragments never match. tcp_mt()
 * also hotdrops fragment offset 1 (a TCP flag overwrite attempt).
 */
static void gen_first_fragment(struct codegen *cg, bool tcp)
{
	uint32_t first;

	if (!tcp) {
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 0, 0));
		return;
	}
	first = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, CG_REG_FRAG, 0, 0), first);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, CG_REG_FRAG, 1, 0));
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, first);
}

/*
 * The transport header could not be read (packet too short): the kernel's
 * skb_header_pointer() returned NULL and the match set hotdrop.
 */
static void gen_need_l4(struct codegen *cg)
{
	cg_drop_if(cg, CG_REG_L4ERR, true);
}

/* port_match(): (min <= port && port <= max) ^ invert, port at CG_OFF_L4 + @off. */
static void gen_ports(struct codegen *cg, int off, uint16_t min, uint16_t max, bool inv)
{
	uint32_t ok;

	if (min == 0 && max == 0xffff && !inv)
		return;
	cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + off));
	cg_emit(cg, CG_BE16(BPF_REG_1));
	if (!inv) {
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, min, 0));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, max, 0));
		return;
	}
	ok = cg_new_label(cg);
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, min, 0), ok);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, max, 0), ok);
	cg_ja_fail(cg);
	cg_place(cg, ok);
}

/*
 * tcp_find_option(): the prologue walked the options once (codegen.c,
 * gen_tcp_option_walk()); here, in tcp_mt()'s order: a bad doff or options
 * cut short are a hotdrop, else the kind is or is not in the set.
 */
static void gen_tcp_option(struct codegen *cg, uint8_t option, bool inv)
{
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTST));
	cg_drop_if(cg, BPF_REG_1, true);
	cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_OPTSET + 8 * (option / 64)));
	cg_emit(cg, CG_ALU64_IMM(BPF_RSH, BPF_REG_1, option % 64));
	cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, 1));
	/* found: match iff !invert; not found: match iff invert. */
	cg_jmp_fail(cg, CG_JMP_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
}

int codegen_tcp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_tcp *tcp = m->data;

	(void)rule;
	gen_first_fragment(cg, true);
	gen_need_l4(cg);
	gen_ports(cg, 0, tcp->spts[0], tcp->spts[1], tcp->invflags & XT_TCP_INV_SRCPT);
	gen_ports(cg, 2, tcp->dpts[0], tcp->dpts[1], tcp->invflags & XT_TCP_INV_DSTPT);
	/* NF_INVF(XT_TCP_INV_FLAGS, (th[13] & flg_mask) == flg_cmp) must hold. */
	if (tcp->flg_mask || tcp->flg_cmp || (tcp->invflags & XT_TCP_INV_FLAGS)) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 13));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, tcp->flg_mask));
		cg_jmp_fail(cg, CG_JMP_IMM((tcp->invflags & XT_TCP_INV_FLAGS) ? BPF_JEQ : BPF_JNE,
					   BPF_REG_1, tcp->flg_cmp, 0));
	}
	if (tcp->option)
		gen_tcp_option(cg, tcp->option, tcp->invflags & XT_TCP_INV_OPTION);
	return cg->err;
}

int codegen_udp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_udp *udp = m->data;

	(void)rule;
	gen_first_fragment(cg, false);
	gen_need_l4(cg);
	gen_ports(cg, 0, udp->spts[0], udp->spts[1], udp->invflags & XT_UDP_INV_SRCPT);
	gen_ports(cg, 2, udp->dpts[0], udp->dpts[1], udp->invflags & XT_UDP_INV_DSTPT);
	return cg->err;
}

/* icmp_type_code_match(): (type == 0xFF || (type, code in range)) ^ invert. */
int codegen_icmp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct ipt_icmp *icmp = m->data;
	bool inv = icmp->invflags & IPT_ICMP_INV;
	uint32_t ok;

	(void)rule;
	gen_first_fragment(cg, false);
	gen_need_l4(cg);
	if (icmp->type == 0xFF) {
		if (inv)
			cg_ja_fail(cg);
		return cg->err;
	}
	if (!inv) {
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, icmp->type, 0));
		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 1));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, icmp->code[0], 0));
		cg_jmp_fail(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, icmp->code[1], 0));
		return cg->err;
	}
	ok = cg_new_label(cg);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4));
	cg_jmp(cg, CG_JMP_IMM(BPF_JNE, BPF_REG_1, icmp->type, 0), ok);
	cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT, CG_OFF_L4 + 1));
	cg_jmp(cg, CG_JMP_IMM(BPF_JLT, BPF_REG_1, icmp->code[0], 0), ok);
	cg_jmp(cg, CG_JMP_IMM(BPF_JGT, BPF_REG_1, icmp->code[1], 0), ok);
	cg_ja_fail(cg);
	cg_place(cg, ok);
	return cg->err;
}
