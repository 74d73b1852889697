// SPDX-License-Identifier: GPL-2.0
/*
 * -m conntrack, revisions 1, 2 and 3 (net/netfilter/xt_conntrack.c); iptables
 * sends -m state as revision 3 with only --ctstate.
 */
#define _GNU_SOURCE

#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/xt_conntrack.h>

#include "codegen.h"
#include "family.h"
#include "match.h"
#include "table.h"

/* The three payload revisions, normalised (they differ in mask widths and port ranges). */
struct ct_opts {
	uint16_t match_flags, invert_flags, state_mask, status_mask;
	/* origsrc, origdst, replsrc, repldst: IPv4's in the first 4 bytes; addr masked */
	uint8_t addr[4][16], mask[4][16];
	uint32_t expires_min, expires_max;
	uint16_t l4proto;
	uint16_t port[4];		/* revisions 1, 2: network order; 3: host order */
	uint16_t port_high[4];		/* revision 3 */
	bool v3;
};

/* conntrack_addrcmp() compares (entry ^ addr) & mask: addr & mask is all that counts. */
static void ct_addr_fill(struct ct_opts *o, unsigned int k, const union nf_inet_addr *addr,
			 const union nf_inet_addr *mask)
{
	unsigned int b;

	memcpy(o->mask[k], mask, 16);
	memcpy(o->addr[k], addr, 16);
	for (b = 0; b < 16; b++)
		o->addr[k][b] &= o->mask[k][b];
}

/* Revision 1 has u8 state and status masks; 2 and 3 share 2's layout up to them. */
static void ct_opts_fill(struct ct_opts *o, const struct xt_conntrack_mtinfo1 *i1,
			 const struct xt_conntrack_mtinfo2 *i2,
			 const struct xt_conntrack_mtinfo3 *i3)
{
	const struct xt_conntrack_mtinfo2 *i = i3 ? (const void *)i3 : i2;

	if (i1) {
		o->state_mask = i1->state_mask;
		o->status_mask = i1->status_mask;
		i = (const void *)i1;	/* the same fields up to invert_flags */
	} else {
		o->state_mask = i->state_mask;
		o->status_mask = i->status_mask;
	}
	o->match_flags = i->match_flags;
	o->invert_flags = i->invert_flags;
	ct_addr_fill(o, 0, &i->origsrc_addr, &i->origsrc_mask);
	ct_addr_fill(o, 1, &i->origdst_addr, &i->origdst_mask);
	ct_addr_fill(o, 2, &i->replsrc_addr, &i->replsrc_mask);
	ct_addr_fill(o, 3, &i->repldst_addr, &i->repldst_mask);
	o->expires_min = i->expires_min;
	o->expires_max = i->expires_max;
	o->l4proto = i->l4proto;
	o->port[0] = i->origsrc_port;
	o->port[1] = i->origdst_port;
	o->port[2] = i->replsrc_port;
	o->port[3] = i->repldst_port;
	o->v3 = i3;
	if (i3) {
		o->port_high[0] = i3->origsrc_port_high;
		o->port_high[1] = i3->origdst_port_high;
		o->port_high[2] = i3->replsrc_port_high;
		o->port_high[3] = i3->repldst_port_high;
	}
}

/* The options that read the conntrack entry, beyond the state and direction. */
#define CT_ADDR_FLAGS	(XT_CONNTRACK_ORIGSRC | XT_CONNTRACK_ORIGDST | \
			 XT_CONNTRACK_REPLSRC | XT_CONNTRACK_REPLDST)
#define CT_PORT_FLAGS	(XT_CONNTRACK_ORIGSRC_PORT | XT_CONNTRACK_ORIGDST_PORT | \
			 XT_CONNTRACK_REPLSRC_PORT | XT_CONNTRACK_REPLDST_PORT)
#define CT_ENTRY_FLAGS	(XT_CONNTRACK_PROTO | CT_ADDR_FLAGS | CT_PORT_FLAGS | \
			 XT_CONNTRACK_STATUS | XT_CONNTRACK_EXPIRES)
#define CT_NAT_STATES	(XT_CONNTRACK_STATE_SNAT | XT_CONNTRACK_STATE_DNAT)

static bool ct_reads_entry(const struct ct_opts *o)
{
	return (o->match_flags & CT_ENTRY_FLAGS) ||
	       ((o->match_flags & XT_CONNTRACK_STATE) && (o->state_mask & CT_NAT_STATES));
}

/* The state bits of xt_conntrack, mapped onto CG_OFF_CTSTATE's. */
static uint32_t ct_state_mask(uint16_t mask)
{
	return (mask & (CG_CT_INVALID | CG_CT_TRACKED)) |
	       (mask & XT_CONNTRACK_STATE_UNTRACKED ? CG_CT_UNTRACKED : 0);
}

/*
 * !!(state_mask & statebit) ^ !inv fails the rule. A tracked packet's
 * statebit also has SNAT / DNAT when its entry's status has IPS_SRC_NAT /
 * IPS_DST_NAT: r1 only needs to be non-zero when some wanted bit is set.
 */
static void ct_gen_state(struct codegen *cg, const struct ct_opts *o)
{
	bool inv = o->invert_flags & XT_CONNTRACK_STATE;
	uint32_t test = cg_new_label(cg), nat_bits = cg_new_label(cg);

	cg_emit(cg, CG_LDX(BPF_W, BPF_REG_2, CG_REG_PKT, CG_OFF_CTSTATE));
	cg_emit(cg, CG_MOV64_REG(BPF_REG_1, BPF_REG_2));
	cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_1, ct_state_mask(o->state_mask)));
	if (o->state_mask & CT_NAT_STATES) {
		uint32_t nat = ((o->state_mask & XT_CONNTRACK_STATE_SNAT) ? IPS_SRC_NAT : 0) |
			       ((o->state_mask & XT_CONNTRACK_STATE_DNAT) ? IPS_DST_NAT : 0);

		cg_jmp(cg, CG_JMP32_IMM(BPF_JSET, BPF_REG_2, CG_CT_TRACKED, 0), nat_bits);
		cg_ja(cg, test);
		cg_place(cg, nat_bits);
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_2, CG_REG_PKT, CG_OFF_CTSTATUS));
		cg_emit(cg, CG_ALU32_IMM(BPF_AND, BPF_REG_2, nat));
		cg_emit(cg, CG_ALU32_REG(BPF_OR, BPF_REG_1, BPF_REG_2));
	}
	cg_place(cg, test);
	cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
}

/* Scratch offset of a tuple field: @dir 0 ORIGINAL, 1 REPLY; @off in the tuple. */
static int ct_tuple_off(unsigned int dir, uint32_t off)
{
	return CG_OFF_CTTUPLE + 40 * dir + off;
}

/*
 * conntrack_mt(), in its order: the state test; without an entry the match
 * holds iff it tested the state; then direction, addresses, protocol and
 * ports, status and expiry, each "cond ^ !inv fails".
 */
static int ct_gen(struct codegen *cg, const struct ct_opts *o)
{
	static const uint16_t addr_flag[4] = { XT_CONNTRACK_ORIGSRC, XT_CONNTRACK_ORIGDST,
					       XT_CONNTRACK_REPLSRC, XT_CONNTRACK_REPLDST };
	static const uint16_t port_flag[4] = { XT_CONNTRACK_ORIGSRC_PORT,
					       XT_CONNTRACK_ORIGDST_PORT,
					       XT_CONNTRACK_REPLSRC_PORT,
					       XT_CONNTRACK_REPLDST_PORT };
	const struct btf_info *bi = cg->bi;
	uint32_t hit = cg_new_label(cg), tracked = cg_new_label(cg);
	unsigned int k;

	if (!bi->skb_nfct)
		return cg_unsupported(cg, "conntrack: this kernel has no conntrack");
	if (ct_reads_entry(o) && !bi->ct_ok)
		return cg_unsupported(cg, "conntrack: no BTF for struct nf_conn (nf_conntrack)");
	if ((o->match_flags & XT_CONNTRACK_EXPIRES) && !bi->hz)
		return cg_unsupported(cg, "conntrack: --ctexpire without the kernel's HZ");

	if (o->match_flags & XT_CONNTRACK_STATE)
		ct_gen_state(cg, o);
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
	/* conntrack_addrcmp(): ((entry ^ addr) & mask) == 0 in the table's family. */
	for (k = 0; k < 4; k++) {
		uint32_t off = (k & 1) ? bi->tuple_dst_u3 : bi->tuple_src_u3;

		if (o->match_flags & addr_flag[k])
			cg_addr_masked(cg, ct_tuple_off(k / 2, off), o->addr[k], o->mask[k],
				       cg->table->fam == &family_ipv4 ? 1 : 4,
				       o->invert_flags & addr_flag[k]);
	}
	/* ct_proto_port_check(_v3)(): nf_ct_protonum() is the original dst.protonum. */
	if (o->match_flags & XT_CONNTRACK_PROTO) {
		bool inv = o->invert_flags & XT_CONNTRACK_PROTO;

		cg_emit(cg, CG_LDX(BPF_B, BPF_REG_1, CG_REG_PKT,
				   ct_tuple_off(0, bi->tuple_protonum)));
		cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JEQ : BPF_JNE, BPF_REG_1, o->l4proto, 0));
	}
	for (k = 0; k < 4; k++) {
		bool inv = o->invert_flags & port_flag[k];
		uint32_t off = (k & 1) ? bi->tuple_dst_port : bi->tuple_src_port;

		if (!(o->match_flags & port_flag[k]))
			continue;
		cg_emit(cg, CG_LDX(BPF_H, BPF_REG_1, CG_REG_PKT, ct_tuple_off(k / 2, off)));
		if (o->v3) {
			/* port_match(): a range in host order. */
			cg_emit(cg, CG_BE16(BPF_REG_1));
			cg_fail_unless_in(cg, BPF_REG_1, o->port[k], o->port_high[k], inv);
		} else {
			/* u.all == port, both as they are in memory. */
			cg_jmp_fail(cg, CG_JMP32_IMM(inv ? BPF_JEQ : BPF_JNE, BPF_REG_1,
						     o->port[k], 0));
		}
	}
	if (o->match_flags & XT_CONNTRACK_STATUS) {
		bool inv = o->invert_flags & XT_CONNTRACK_STATUS;

		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_CTSTATUS));
		cg_emit(cg, CG_ALU64_IMM(BPF_AND, BPF_REG_1, o->status_mask));
		cg_jmp_fail(cg, CG_JMP_IMM(inv ? BPF_JNE : BPF_JEQ, BPF_REG_1, 0, 0));
	}
	if (o->match_flags & XT_CONNTRACK_EXPIRES) {
		cg_emit(cg, CG_LDX(BPF_DW, BPF_REG_1, CG_REG_PKT, CG_OFF_CTEXPIRES));
		cg_fail_unless_in(cg, BPF_REG_1, o->expires_min, o->expires_max,
				  o->invert_flags & XT_CONNTRACK_EXPIRES);
	}
	cg_place(cg, hit);
	return cg->err;
}

/* The generator and needs of revision @rev, whose payload is the @i1/@i2/@i3 one. */
#define CT_REV(rev, type, i1, i2, i3)						\
static int ct##rev##_gen(struct codegen *cg, const struct rule *rule,		\
			 const struct match *m)					\
{										\
	const type *i = m->data;						\
	struct ct_opts o = { 0 };						\
										\
	(void)rule;								\
	ct_opts_fill(&o, i1, i2, i3);						\
	return ct_gen(cg, &o);							\
}										\
										\
static uint32_t ct##rev##_needs(const void *data)				\
{										\
	const type *i = data;							\
	struct ct_opts o = { 0 };						\
										\
	ct_opts_fill(&o, i1, i2, i3);						\
	return CG_NEED_CT | (ct_reads_entry(&o) ? CG_NEED_CT_ENTRY : 0);	\
}

CT_REV(1, struct xt_conntrack_mtinfo1, i, NULL, NULL)
CT_REV(2, struct xt_conntrack_mtinfo2, NULL, i, NULL)
CT_REV(3, struct xt_conntrack_mtinfo3, NULL, NULL, i)

/*
 * The kernel's checkentry only turns conntrack on (nf_ct_netns_get()):
 * every payload is taken. .conntrack makes the module hold conntrack.
 */
#define CONNTRACK_OPS(rev, type) {						\
	.id = { .name = "conntrack", .revision = rev, .families = EXT_UNSPEC,	\
		.any_family = true },						\
	.size = XT_ALIGN(sizeof(type)),						\
	.usersize = sizeof(type),						\
	.gen = ct##rev##_gen,							\
	.needs = ct##rev##_needs,						\
	.conntrack = true,							\
}

const struct match_ops conntrack1_match_ops = CONNTRACK_OPS(1, struct xt_conntrack_mtinfo1);
const struct match_ops conntrack2_match_ops = CONNTRACK_OPS(2, struct xt_conntrack_mtinfo2);
const struct match_ops conntrack3_match_ops = CONNTRACK_OPS(3, struct xt_conntrack_mtinfo3);
