// SPDX-License-Identifier: GPL-2.0
/*
 * What bpfilter's BPF_PROG_TYPE_NETFILTER programs cannot do themselves, as
 * kfuncs that call the kernel's own code. Matching stays in BPF; these only
 * act on a packet the program has already judged.
 *
 *   int bpfilter_reject(struct bpf_nf_ctx *ctx, u32 with)
 *	ipt_REJECT's reject_tg() for --reject-with @with (enum
 *	ipt_reject_with): a TCP reset or an ICMP error for ctx->skb, sent
 *	with nf_send_reset() / nf_send_unreach() at ctx->state's hook. The
 *	program drops the packet afterwards, as the target does. Returns 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/icmp.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <net/netfilter/ipv4/nf_reject.h>

#include "kfunc.h"

/*
 * Kernels without BTF_KFUNCS_START (6.1) have no BPF netfilter programs
 * either: nothing to offer, and the helper finds no kfunc to call.
 */
#ifdef BTF_KFUNCS_START
#include <net/netfilter/nf_bpf_link.h>

__bpf_kfunc_start_defs();

__bpf_kfunc int bpfilter_reject(struct bpf_nf_ctx *ctx, u32 with)
{
	const struct nf_hook_state *state = ctx->state;
	struct sk_buff *skb = ctx->skb;
	int hook = state->hook;

	switch (with) {
	case IPT_ICMP_NET_UNREACHABLE:
		nf_send_unreach(skb, ICMP_NET_UNREACH, hook);
		break;
	case IPT_ICMP_HOST_UNREACHABLE:
		nf_send_unreach(skb, ICMP_HOST_UNREACH, hook);
		break;
	case IPT_ICMP_PROT_UNREACHABLE:
		nf_send_unreach(skb, ICMP_PROT_UNREACH, hook);
		break;
	case IPT_ICMP_PORT_UNREACHABLE:
		nf_send_unreach(skb, ICMP_PORT_UNREACH, hook);
		break;
	case IPT_ICMP_NET_PROHIBITED:
		nf_send_unreach(skb, ICMP_NET_ANO, hook);
		break;
	case IPT_ICMP_HOST_PROHIBITED:
		nf_send_unreach(skb, ICMP_HOST_ANO, hook);
		break;
	case IPT_ICMP_ADMIN_PROHIBITED:
		nf_send_unreach(skb, ICMP_PKT_FILTERED, hook);
		break;
	case IPT_TCP_RESET:
		nf_send_reset(state->net, state->sk, skb, hook);
		break;
	}
	return 0;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_reject)
BTF_KFUNCS_END(bpfilter_kfunc_ids)

static const struct btf_kfunc_id_set bpfilter_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpfilter_kfunc_ids,
};

int bpfilter_kfunc_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_NETFILTER, &bpfilter_kfunc_set);
}
#else
int bpfilter_kfunc_init(void)
{
	return 0;
}
#endif
