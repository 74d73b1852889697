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
 *
 *   int bpfilter_nflog(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
 *	xt_NFLOG's nflog_tg(): nf_log_packet() as above with an nf_loginfo of
 *	type ULOG built from @info, a struct xt_nflog_info (group, len,
 *	threshold, flags, prefix): nfnetlink_log sends the packet to the
 *	namespace's listener on that group, if any. Returns 0, or -EINVAL if
 *	@info__sz is not that size.
 *
 *   int bpfilter_recent(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
 *	xt_recent's recent_mt() itself for ctx->skb, with @info a struct
 *	xt_recent_mtinfo_v1 of @info__sz bytes, when we hold a list of that
 *	name in ctx->state->net (bpfilter_recent_check()). Returns 1 if the
 *	match holds, 0 if not, 2 if recent_mt() set hotdrop, -ENOENT if no
 *	such list is held, -EINVAL for a bad @info; the program drops the
 *	packet on anything but 0 and 1.
 *
 * The recent lists are xt_recent's own (its /proc/net/xt_recent files and
 * module parameters included): bpfilter.ko runs its checkentry and destroy
 * through bpfilter_recent_check() and bpfilter_recent_settle() (kfunc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/icmp.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_NFLOG.h>
#include <linux/netfilter/xt_recent.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/nf_log.h>

#include "kfunc.h"

/* One checkentry of xt_recent (revision 1) that we hold in @net, as one
 * rule's recent match holds its list with ip_tables: the list lives while
 * some hold of its name does.
 */
struct recent_hold {
	struct list_head list;		/* recent_holds: RCU for the kfunc */
	struct list_head gone;		/* on the way to destroy */
	struct net *net;
	const struct xt_match *match;	/* xt_recent's, its module held */
	bool pending;			/* of the table being put in force */
	struct xt_recent_mtinfo_v1 info;
};

static LIST_HEAD(recent_holds);
static DEFINE_MUTEX(recent_mutex);

static void recent_destroy(struct recent_hold *h)
{
	struct xt_mtdtor_param par = {
		.net = h->net,
		.match = h->match,
		.matchinfo = &h->info,
		.family = NFPROTO_IPV4,
	};

	if (h->match->destroy)
		h->match->destroy(&par);
	module_put(h->match->me);
	kfree(h);
}

void bpfilter_recent_settle(struct net *net, enum bpfilter_recent_outcome how)
{
	struct recent_hold *h, *n;
	LIST_HEAD(gone);

	mutex_lock(&recent_mutex);
	list_for_each_entry_safe(h, n, &recent_holds, list) {
		if (h->net != net)
			continue;
		if (how == BPFILTER_RECENT_RELEASE ||
		    (how == BPFILTER_RECENT_COMMIT && !h->pending) ||
		    (how == BPFILTER_RECENT_ABORT && h->pending)) {
			list_del_rcu(&h->list);
			list_add_tail(&h->gone, &gone);
		} else {
			h->pending = false;
		}
	}
	mutex_unlock(&recent_mutex);
	if (list_empty(&gone))
		return;
	/* No program still runs recent_mt() on a list we are about to let go. */
	synchronize_rcu();
	list_for_each_entry_safe(h, n, &gone, gone)
		recent_destroy(h);
}
EXPORT_SYMBOL_GPL(bpfilter_recent_settle);

int bpfilter_recent_check(struct net *net, const struct xt_recent_mtinfo_v1 *infos,
			  unsigned int n)
{
	struct xt_mtchk_param par = {
		.net = net,
		.table = "filter",
		.family = NFPROTO_IPV4,
	};
	struct xt_match *m;
	struct recent_hold *h;
	unsigned int i;
	int err = 0;

	bpfilter_recent_settle(net, BPFILTER_RECENT_ABORT);
	for (i = 0; i < n && !err; i++) {
		/* Loads xt_recent (ipt_recent) on first use, as iptables would. */
		m = xt_request_find_match(NFPROTO_IPV4, "recent", 1);
		if (IS_ERR(m)) {
			err = PTR_ERR(m);
			break;
		}
		h = kzalloc(sizeof(*h), GFP_KERNEL);
		if (!h) {
			module_put(m->me);
			err = -ENOMEM;
			break;
		}
		h->net = net;
		h->match = m;
		h->pending = true;
		h->info = infos[i];
		h->info.name[sizeof(h->info.name) - 1] = '\0';
		par.match = m;
		par.matchinfo = &h->info;
		err = m->checkentry ? m->checkentry(&par) : 0;
		if (err) {
			module_put(m->me);
			kfree(h);
			break;
		}
		mutex_lock(&recent_mutex);
		list_add_tail_rcu(&h->list, &recent_holds);
		mutex_unlock(&recent_mutex);
	}
	if (err)
		bpfilter_recent_settle(net, BPFILTER_RECENT_ABORT);
	return err;
}
EXPORT_SYMBOL_GPL(bpfilter_recent_check);

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

__bpf_kfunc int bpfilter_nflog(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
{
	const struct nf_hook_state *state = ctx->state;
	const struct xt_nflog_info *nflog = info;
	struct nf_loginfo li = { .type = NF_LOG_TYPE_ULOG };
	char prefix[sizeof(nflog->prefix)];

	if (info__sz != sizeof(*nflog))
		return -EINVAL;
	li.u.ulog.copy_len = nflog->len;
	li.u.ulog.group = nflog->group;
	li.u.ulog.qthreshold = nflog->threshold;
	if (nflog->flags & XT_NFLOG_F_COPY_LEN)
		li.u.ulog.flags |= NF_LOG_F_COPY_LEN;
	/* Terminated: the helper checked it, as nflog_tg_check() does. */
	strscpy(prefix, nflog->prefix, sizeof(prefix));
	nf_log_packet(state->net, NFPROTO_IPV4, state->hook, ctx->skb, state->in, state->out,
		      &li, "%s", prefix);
	return 0;
}

/* Under rcu_read_lock(). */
static const struct recent_hold *recent_find(const struct net *net, const char *name)
{
	const struct recent_hold *h;

	list_for_each_entry_rcu(h, &recent_holds, list)
		if (h->net == net && !strcmp(h->info.name, name))
			return h;
	return NULL;
}

__bpf_kfunc int bpfilter_recent(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
{
	const struct xt_recent_mtinfo_v1 *ri = info;
	struct xt_action_param par = { .matchinfo = info, .state = ctx->state };
	const struct recent_hold *h;
	bool ret;

	if (info__sz != sizeof(*ri) || strnlen(ri->name, sizeof(ri->name)) == sizeof(ri->name))
		return -EINVAL;
	rcu_read_lock();
	h = recent_find(ctx->state->net, ri->name);
	if (!h) {
		rcu_read_unlock();
		return -ENOENT;
	}
	par.match = h->match;
	ret = h->match->match(ctx->skb, &par);
	rcu_read_unlock();
	return par.hotdrop ? 2 : ret;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_reject)
BTF_ID_FLAGS(func, bpfilter_log)
BTF_ID_FLAGS(func, bpfilter_nflog)
BTF_ID_FLAGS(func, bpfilter_recent)
BTF_KFUNCS_END(bpfilter_kfunc_ids)

static const struct btf_kfunc_id_set bpfilter_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpfilter_kfunc_ids,
};

/* The loggers the kfuncs log through, loaded and held from load to unload as
 * log_tg_check() and nflog_tg_check() hold them for a rule's lifetime.
 */
static const struct {
	enum nf_log_type type;
	const char *module;
	const char *target;
} loggers[] = {
	{ NF_LOG_TYPE_LOG, "nf_log_syslog", "LOG" },
	{ NF_LOG_TYPE_ULOG, "nfnetlink_log", "NFLOG" },
};

static bool logger_held[ARRAY_SIZE(loggers)];

static void bpfilter_kfunc_release(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(loggers); i++) {
		if (logger_held[i])
			nf_logger_put(NFPROTO_IPV4, loggers[i].type);
		logger_held[i] = false;
	}
}

static int bpfilter_kfunc_register(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(loggers); i++) {
		err = nf_logger_find_get(NFPROTO_IPV4, loggers[i].type);
		if (err) {
			request_module("%s", loggers[i].module);
			err = nf_logger_find_get(NFPROTO_IPV4, loggers[i].type);
		}
		if (err)
			pr_warn("no %s logger (%s): %s rules will log nothing: %d\n",
				loggers[i].target, loggers[i].module, loggers[i].target, err);
		logger_held[i] = !err;
	}
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

/* A kfunc set cannot be unregistered: it goes away with the module's BTF.
 * bpfilter.ko uses our symbols: modprobe loads us first, and fails if we fail.
 */
static int __init bpfilter_kfunc_init(void)
{
	int err = bpfilter_kfunc_register();

	if (err)
		pr_err("cannot register the kfuncs: %d\n", err);
	return err;
}

static void __exit bpfilter_kfunc_exit(void)
{
	/* bpfilter.ko, which settles every hold, is gone: nothing is left. */
	WARN_ON(!list_empty(&recent_holds));
	bpfilter_kfunc_release();
}

module_init(bpfilter_kfunc_init);
module_exit(bpfilter_kfunc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kfuncs of bpfilter's BPF netfilter programs (REJECT, LOG, NFLOG, recent)");
