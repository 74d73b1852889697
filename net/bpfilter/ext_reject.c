// SPDX-License-Identifier: GPL-2.0
/*
 * -j REJECT, revision 0: IPv4's (net/ipv4/netfilter/ipt_REJECT.c) and
 * IPv6's (net/ipv6/netfilter/ip6t_REJECT.c). The two differ only in their
 * --reject-with numbering; the kfunc answers in the hook's family.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>

#include "codegen.h"
#include "context.h"
#include "rule.h"
#include "target.h"

/* A family's --reject-with numbers that the target treats apart, and its module's log lines. */
struct reject_with {
	uint32_t echoreply;	/* refused by checkentry */
	uint32_t tcp_reset;	/* only for -p tcp */
	uint32_t last;		/* past it the kernel sends nothing */
	const char *echoreply_line, *tcp_reset_line;
};

static const struct reject_with reject_with4 = {
	IPT_ICMP_ECHOREPLY, IPT_TCP_RESET, IPT_ICMP_ADMIN_PROHIBITED,
	"ipt_REJECT: ECHOREPLY no longer supported.", "ipt_REJECT: TCP_RESET invalid for non-tcp"
};

static const struct reject_with reject_with6 = {
	IP6T_ICMP6_ECHOREPLY, IP6T_TCP_RESET, IP6T_ICMP6_REJECT_ROUTE,
	"ip6t_REJECT: ECHOREPLY is not supported", "ip6t_REJECT: TCP_RESET illegal for non-tcp"
};

/*
 * reject_tg_check(), reject_tg6_check(): no ECHOREPLY any more; a TCP
 * reset only for -p tcp (IPv6: with IP6T_F_PROTO, which IPv4's model sets
 * for every protocol).
 */
static int reject_check(struct context *ctx, const struct rule *r, uint32_t with,
			const struct reject_with *w)
{
	if (with == w->echoreply) {
		bf_xt_info(ctx, "%s", w->echoreply_line);
		return -EINVAL;
	}
	if (with == w->tcp_reset &&
	    (!(r->ip.flags & RULE_F_PROTO) || r->ip.proto != IPPROTO_TCP ||
	     (r->ip.invflags & XT_INV_PROTO))) {
		bf_xt_info(ctx, "%s", w->tcp_reset_line);
		return -EINVAL;
	}
	return 0;
}

/*
 * reject_tg(), reject_tg6(): the answer is sent by the kernel's own
 * nf_send_reset(6)() / nf_send_unreach(6)() through bpfilter.ko's kfunc,
 * then NF_DROP. A type the kernel does not know sends nothing and still
 * drops.
 */
static int reject_gen(struct codegen *cg, uint32_t with, const struct reject_with *w)
{
	if (with <= w->last) {
		if (cg->bi->kf_reject < 0)
			return cg_unsupported(cg, "REJECT: needs the kfuncs of bpfilter.ko");
		cg_ld_ctx(cg, BPF_REG_1);
		cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, with));
		cg_call_module_kfunc(cg, cg->bi->kf_reject);
	}
	cg_exit_verdict(cg, CG_NF_DROP);
	return cg->err;
}

static int reject4_check(struct context *ctx, const struct rule *r, const void *data)
{
	return reject_check(ctx, r, ((const struct ipt_reject_info *)data)->with, &reject_with4);
}

static int reject4_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	(void)rule;
	return reject_gen(cg, ((const struct ipt_reject_info *)t->data)->with, &reject_with4);
}

static int reject6_check(struct context *ctx, const struct rule *r, const void *data)
{
	return reject_check(ctx, r, ((const struct ip6t_reject_info *)data)->with,
			    &reject_with6);
}

static int reject6_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	(void)rule;
	return reject_gen(cg, ((const struct ip6t_reject_info *)t->data)->with, &reject_with6);
}

const struct target_ops reject_target_ops = {
	.id = { .name = "REJECT", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_reject_info)),
	.usersize = sizeof(struct ipt_reject_info),
	.hooks = (1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | (1 << NF_INET_LOCAL_OUT),
	.check = reject4_check,
	.gen = reject4_gen,
};

const struct target_ops reject6_target_ops = {
	.id = { .name = "REJECT", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct ip6t_reject_info)),
	.usersize = sizeof(struct ip6t_reject_info),
	.hooks = (1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | (1 << NF_INET_LOCAL_OUT),
	.check = reject6_check,
	.gen = reject6_gen,
};
