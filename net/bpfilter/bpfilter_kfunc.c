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
 *
 *   int bpfilter_log(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
 *	xt_LOG's log_tg(): nf_log_packet() of ctx->skb at ctx->state's hook
 *	and devices, with an nf_loginfo of type LOG built from @info, a
 *	struct xt_log_info (level, logflags, prefix) of @info__sz bytes. The
 *	line is the kernel's own (nf_log_syslog), and nf_log_all_netns
 *	applies. Returns 0, or -EINVAL if @info__sz is not that size.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/icmp.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/string.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/nf_log.h>

#include "kfunc.h"

/* Kernels without BTF_KFUNCS_START (6.1) have no BPF netfilter programs
 * either: nothing to offer, and the helper finds no kfunc to call.
 */
#ifdef BTF_KFUNCS_START
#include <net/netfilter/nf_bpf_link.h>

__bpf_kfunc_start_defs();

/* reject_tg()'s ICMP codes for each --reject-with type; 0xff: none. */
static const u8 reject_icmp_code[] = {
	[IPT_ICMP_NET_UNREACHABLE] = ICMP_NET_UNREACH,
	[IPT_ICMP_HOST_UNREACHABLE] = ICMP_HOST_UNREACH,
	[IPT_ICMP_PROT_UNREACHABLE] = ICMP_PROT_UNREACH,
	[IPT_ICMP_PORT_UNREACHABLE] = ICMP_PORT_UNREACH,
	[IPT_ICMP_ECHOREPLY] = 0xff,
	[IPT_ICMP_NET_PROHIBITED] = ICMP_NET_ANO,
	[IPT_ICMP_HOST_PROHIBITED] = ICMP_HOST_ANO,
	[IPT_TCP_RESET] = 0xff,
	[IPT_ICMP_ADMIN_PROHIBITED] = ICMP_PKT_FILTERED,
};

__bpf_kfunc int bpfilter_reject(struct bpf_nf_ctx *ctx, u32 with)
{
	const struct nf_hook_state *state = ctx->state;
	struct sk_buff *skb = ctx->skb;

	if (with == IPT_TCP_RESET)
		nf_send_reset(state->net, state->sk, skb, state->hook);
	else if (with < ARRAY_SIZE(reject_icmp_code) && reject_icmp_code[with] != 0xff)
		nf_send_unreach(skb, reject_icmp_code[with], state->hook);
	return 0;
}

__bpf_kfunc int bpfilter_log(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
{
	const struct nf_hook_state *state = ctx->state;
	const struct xt_log_info *log = info;
	struct nf_loginfo li = { .type = NF_LOG_TYPE_LOG };
	char prefix[sizeof(log->prefix)];

	if (info__sz != sizeof(*log))
		return -EINVAL;
	li.u.log.level = log->level;
	li.u.log.logflags = log->logflags;
	/* The helper checked it is terminated, as log_tg_check() does. */
	strscpy(prefix, log->prefix, sizeof(prefix));
	nf_log_packet(state->net, NFPROTO_IPV4, state->hook, ctx->skb, state->in, state->out,
		      &li, "%s", prefix);
	return 0;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_reject)
BTF_ID_FLAGS(func, bpfilter_log)
BTF_KFUNCS_END(bpfilter_kfunc_ids)

static const struct btf_kfunc_id_set bpfilter_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpfilter_kfunc_ids,
};

static bool logger_held;

static void bpfilter_kfunc_release(void)
{
	if (logger_held)
		nf_logger_put(NFPROTO_IPV4, NF_LOG_TYPE_LOG);
	logger_held = false;
}

static int bpfilter_kfunc_register(void)
{
	int err;

	/* As log_tg_check(): the LOG logger (nf_log_syslog) loaded and held. */
	err = nf_logger_find_get(NFPROTO_IPV4, NF_LOG_TYPE_LOG);
	if (err) {
		request_module("%s", "nf_log_syslog");
		err = nf_logger_find_get(NFPROTO_IPV4, NF_LOG_TYPE_LOG);
	}
	if (err)
		pr_warn("no LOG logger (nf_log_syslog): LOG rules will log nothing: %d\n", err);
	logger_held = !err;
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_NETFILTER, &bpfilter_kfunc_set);
	if (err)
		bpfilter_kfunc_release();
	return err;
}
#else
static void bpfilter_kfunc_release(void)
{
}

static int bpfilter_kfunc_register(void)
{
	return 0;
}
#endif

static int kfunc_err;

int bpfilter_kfunc_ready(void)
{
	return kfunc_err;
}
EXPORT_SYMBOL_GPL(bpfilter_kfunc_ready);

/* A kfunc set cannot be unregistered: it goes away with the module's BTF. */
static int __init bpfilter_kfunc_init(void)
{
	kfunc_err = bpfilter_kfunc_register();
	if (kfunc_err)
		pr_err("cannot register the kfuncs: %d\n", kfunc_err);
	return kfunc_err;
}

static void __exit bpfilter_kfunc_exit(void)
{
	bpfilter_kfunc_release();
}

module_init(bpfilter_kfunc_init);
module_exit(bpfilter_kfunc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kfuncs of bpfilter's BPF netfilter programs (REJECT, LOG)");
