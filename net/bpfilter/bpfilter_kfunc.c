// SPDX-License-Identifier: GPL-2.0
/*
 * What bpfilter's BPF_PROG_TYPE_NETFILTER programs cannot do themselves, as
 * kfuncs that call the kernel's own code. Matching stays in BPF; these only
 * act on a packet the program has already judged.
 *
 *   int bpfilter_reject(struct bpf_nf_ctx *ctx, u32 with)
 *	At an IPv4 hook, ipt_REJECT's reject_tg() for --reject-with @with
 *	(enum ipt_reject_with): a TCP reset or an ICMP error for ctx->skb,
 *	sent with nf_send_reset() / nf_send_unreach() at ctx->state's hook.
 *	At an IPv6 hook, ip6t_REJECT's reject_tg6() for @with (enum
 *	ip6t_reject_with), with nf_send_reset6() / nf_send_unreach6(). The
 *	program drops the packet afterwards, as the targets do. Returns 0.
 *
 *   int bpfilter_log(struct bpf_nf_ctx *ctx, const void *info, u32 info__sz)
 *	xt_LOG's log_tg(): nf_log_packet() of ctx->skb in ctx->state's family
 *	(the IPv4 or IPv6 line), at its hook and devices, with an nf_loginfo
 *	of type LOG built from @info, a
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
 *   int bpfilter_xt_match(struct bpf_nf_ctx *ctx, u32 id)
 *	The match function of an xt match whose checkentry we hold (hold @id
 *	of ctx->state's family in its net, bpfilter_holds_check()) for
 *	ctx->skb, with the matchinfo its checkentry left and the param
 *	ipt_do_table() / ip6t_do_table() gives it (IPv6: the transport
 *	header ipv6_find_hdr() finds, as for a rule with -p), bottom halves
 *	off. Returns 1 if the match holds, 0 if not, 2 if it set
 *	hotdrop, -ENOENT if no such hold; the program drops the packet on
 *	anything but 0 and 1.
 *
 *   u32 bpfilter_xt_target(struct bpf_nf_ctx *ctx, u32 id)
 *	The target function of an xt target whose checkentry we hold (hold
 *	@id, as above) for ctx->skb at ctx->state's hook, with the targinfo
 *	its checkentry left, bottom halves off: xt_nat's DNAT and SNAT,
 *	MASQUERADE, REDIRECT and NETMAP bind the packet's connection through
 *	nf_nat_setup_info() and friends. Returns the target's verdict
 *	(NF_ACCEPT, NF_DROP or XT_CONTINUE), NF_DROP if there is no such
 *	hold; the program drops the packet on any verdict but those.
 *
 *   int bpfilter_mark(struct bpf_nf_ctx *ctx, u32 mask, u32 xor)
 *	xt_mark's mark_tg() (MARK revision 2): ctx->skb->mark becomes
 *	(mark & ~@mask) ^ @xor, which the hooks after this one see. A program
 *	cannot write skb->mark itself. Returns 0.
 *
 *   int bpfilter_notrack(struct bpf_nf_ctx *ctx)
 *	xt_CT's notrack_tg() (NOTRACK, CT --notrack): a packet conntrack has
 *	not seen yet (no skb->_nfct) is marked untracked, so that conntrack
 *	leaves it alone and --ctstate UNTRACKED matches it. Returns 0.
 *
 *   u32 bpfilter_addrtype(struct bpf_nf_ctx *ctx, u32 addr, u32 iface)
 *	xt_addrtype's question to the routing tables: inet_dev_addr_type() of
 *	@addr (network order) in ctx->state->net, limited to no device
 *	(@iface 0), ctx->state->in (1) or ctx->state->out (2). Returns the
 *	RTN_* type; the program tests it against the rule's type masks.
 *
 * The matches run this way keep their state in the kernel, as with
 * ip_tables (xt_recent's lists and /proc files, xt_owner's credential
 * checks): bpfilter.ko runs their checkentry and destroy through
 * bpfilter_holds_check() and bpfilter_holds_settle() (kfunc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_NFLOG.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_log.h>

#include "../../include/uapi/linux/bpfilter.h"
#include "kfunc.h"

/* One checkentry of an xt match or target that we hold in @net, as one
 * rule's match or target holds its state with ip_tables, from checkentry to
 * destroy.
 */
struct xt_hold {
	struct list_head list;		/* xt_holds */
	struct list_head gone;		/* on the way to destroy */
	struct net *net;
	u8 family;			/* of the table it belongs to */
	u8 table;			/* which one: enum bpfilter_table */
	unsigned long key;		/* in xt_hold_ids: RCU for the kfunc */
	const struct xt_match *match;	/* its module held, or */
	const struct xt_target *target;	/* this one's */
	bool pending;			/* of the table being put in force */
	u8 data[] __aligned(8);		/* the matchinfo */
};

static LIST_HEAD(xt_holds);
static DEFINE_XARRAY(xt_hold_ids);
static DEFINE_MUTEX(xt_holds_mutex);

/* Ids are the helper's, below 1 << 31, unique within one namespace and family. */
#define XT_HOLD_ID_MAX		BIT(31)

/* A hold's key: namespace, family and id. */
static unsigned long xt_hold_key(const struct net *net, u8 family, u32 id)
{
	return (unsigned long)net->ns.inum << 32 |
	       (family == NFPROTO_IPV6 ? XT_HOLD_ID_MAX : 0) | id;
}

static void xt_hold_destroy(struct xt_hold *h)
{
	struct xt_mtdtor_param par = {
		.net = h->net,
		.match = h->match,
		.matchinfo = h->data,
		.family = h->family,
	};
	struct xt_tgdtor_param tpar = {
		.net = h->net,
		.target = h->target,
		.targinfo = h->data,
		.family = h->family,
	};

	if (h->target) {
		if (h->target->destroy)
			h->target->destroy(&tpar);
		module_put(h->target->me);
	} else {
		if (h->match->destroy)
			h->match->destroy(&par);
		module_put(h->match->me);
	}
	kfree(h);
}

void bpfilter_holds_settle(struct net *net, u8 family, unsigned int table,
			   enum bpfilter_holds_outcome how)
{
	struct xt_hold *h, *n;
	LIST_HEAD(gone);

	mutex_lock(&xt_holds_mutex);
	list_for_each_entry_safe(h, n, &xt_holds, list) {
		if (h->net != net || h->family != family ||
		    (table < BPFILTER_TABLE_MAX && h->table != table))
			continue;
		if (how == BPFILTER_HOLDS_RELEASE ||
		    (how == BPFILTER_HOLDS_COMMIT && !h->pending) ||
		    (how == BPFILTER_HOLDS_ABORT && h->pending)) {
			xa_erase(&xt_hold_ids, h->key);
			list_del(&h->list);
			list_add_tail(&h->gone, &gone);
		} else {
			h->pending = false;
		}
	}
	mutex_unlock(&xt_holds_mutex);
	if (list_empty(&gone))
		return;
	/* No program still runs a match on a hold we are about to destroy. */
	synchronize_rcu();
	list_for_each_entry_safe(h, n, &gone, gone)
		xt_hold_destroy(h);
}
EXPORT_SYMBOL_GPL(bpfilter_holds_settle);

/* Run the checkentry of @h (its match or target and data set) for @rec: 0 or -errno. */
static int xt_hold_checkentry(struct xt_hold *h, const char *table,
			      const struct bpfilter_hold *rec)
{
	struct xt_mtchk_param par = {
		.net = h->net,
		.table = table,
		.entryinfo = rec->entry,
		.match = h->match,
		.matchinfo = h->data,
		.hook_mask = rec->hook_mask,
		.family = h->family,
	};
	struct xt_tgchk_param tpar = {
		.net = h->net,
		.table = table,
		.entryinfo = rec->entry,
		.target = h->target,
		.targinfo = h->data,
		.hook_mask = rec->hook_mask,
		.family = h->family,
	};
	int err = 0;

	if (h->target && h->target->checkentry)
		err = h->target->checkentry(&tpar);
	else if (h->match && h->match->checkentry)
		err = h->match->checkentry(&par);
	return err > 0 ? -EIO : err;	/* as xt_check_match() flags it */
}

/* xt_check_match()'s (xt_check_target()'s) size check and the checkentry,
 * for one record: 0 or -errno.
 */
static int xt_hold_one(struct net *net, u8 family, const char *table,
		       const struct bpfilter_hold *rec)
{
	const struct xt_target *t = NULL;
	const struct xt_match *m = NULL;
	char name[sizeof(rec->name)];
	struct module *owner;
	unsigned int size;
	struct xt_hold *h;
	int err;

	strscpy(name, rec->name, sizeof(name));
	/* Loads the extension's module on first use, as iptables would. */
	if (rec->target) {
		t = xt_request_find_target(family, name, rec->revision);
		if (IS_ERR(t))
			return PTR_ERR(t);
		owner = t->me;
		size = t->targetsize;
	} else {
		m = xt_request_find_match(family, name, rec->revision);
		if (IS_ERR(m))
			return PTR_ERR(m);
		owner = m->me;
		size = m->matchsize;
	}
	err = -EINVAL;
	if (XT_ALIGN(size) != rec->size)
		goto put;
	err = -ENOMEM;
	h = kzalloc(struct_size(h, data, rec->size), GFP_KERNEL);
	if (!h)
		goto put;
	h->net = net;
	h->family = family;
	h->table = rec->table;
	h->match = m;
	h->target = t;
	h->pending = true;
	h->key = xt_hold_key(net, family, rec->id);
	memcpy(h->data, rec + 1, rec->size);
	err = xt_hold_checkentry(h, table, rec);
	if (err)
		goto free;
	mutex_lock(&xt_holds_mutex);
	err = xa_insert(&xt_hold_ids, h->key, h, GFP_KERNEL);
	if (!err)
		list_add_tail(&h->list, &xt_holds);
	mutex_unlock(&xt_holds_mutex);
	if (!err)
		return 0;
	/* A duplicate id: the helper's bug; undo the checkentry. */
	xt_hold_destroy(h);
	return err;
free:
	kfree(h);
put:
	module_put(owner);
	return err;
}

int bpfilter_holds_check(struct net *net, u8 family, unsigned int table, const char *name,
			 const void *buf, size_t len)
{
	const struct bpfilter_hold *rec;
	unsigned int n = 0;
	size_t off = 0;
	int err = 0;

	bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_ABORT);
	while (off < len && !err) {
		rec = buf + off;
		if (len - off < sizeof(*rec) || rec->size > len - off - sizeof(*rec) ||
		    rec->size % 8 || ++n > BPFILTER_HOLDS_MAX || rec->family != family ||
		    rec->table != table || rec->id >= XT_HOLD_ID_MAX) {
			err = -EIO;
			break;
		}
		err = xt_hold_one(net, family, name, rec);
		off += sizeof(*rec) + rec->size;
	}
	if (err)
		bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_ABORT);
	return err;
}
EXPORT_SYMBOL_GPL(bpfilter_holds_check);

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

/* reject_tg6()'s ICMPv6 codes for each --reject-with type; 0xff: none. */
static const u8 reject6_icmp_code[] = {
	[IP6T_ICMP6_NO_ROUTE] = ICMPV6_NOROUTE,
	[IP6T_ICMP6_ADM_PROHIBITED] = ICMPV6_ADM_PROHIBITED,
	[IP6T_ICMP6_NOT_NEIGHBOUR] = ICMPV6_NOT_NEIGHBOUR,
	[IP6T_ICMP6_ADDR_UNREACH] = ICMPV6_ADDR_UNREACH,
	[IP6T_ICMP6_PORT_UNREACH] = ICMPV6_PORT_UNREACH,
	[IP6T_ICMP6_ECHOREPLY] = 0xff,
	[IP6T_TCP_RESET] = 0xff,
	[IP6T_ICMP6_POLICY_FAIL] = ICMPV6_POLICY_FAIL,
	[IP6T_ICMP6_REJECT_ROUTE] = ICMPV6_REJECT_ROUTE,
};

__bpf_kfunc int bpfilter_reject(struct bpf_nf_ctx *ctx, u32 with)
{
	const struct nf_hook_state *state = ctx->state;
	struct sk_buff *skb = ctx->skb;

	if (state->pf == NFPROTO_IPV6) {
		if (with == IP6T_TCP_RESET)
			nf_send_reset6(state->net, state->sk, skb, state->hook);
		else if (with < ARRAY_SIZE(reject6_icmp_code) && reject6_icmp_code[with] != 0xff)
			nf_send_unreach6(state->net, skb, reject6_icmp_code[with], state->hook);
		return 0;
	}
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
	nf_log_packet(state->net, state->pf, state->hook, ctx->skb, state->in, state->out,
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
	nf_log_packet(state->net, state->pf, state->hook, ctx->skb, state->in, state->out,
		      &li, "%s", prefix);
	return 0;
}

__bpf_kfunc int bpfilter_xt_match(struct bpf_nf_ctx *ctx, u32 id)
{
	const struct nf_hook_state *state = ctx->state;
	struct xt_action_param par = { .state = state };
	struct sk_buff *skb = ctx->skb;
	const struct xt_hold *h;
	bool ret;

	rcu_read_lock();
	h = xa_load(&xt_hold_ids, xt_hold_key(state->net, state->pf, id));
	if (!h || !h->match) {
		rcu_read_unlock();
		return -ENOENT;
	}
	par.match = h->match;
	par.matchinfo = h->data;
	if (state->pf == NFPROTO_IPV6) {
		unsigned short fragoff = 0;
		unsigned int thoff = 0;

		/* ip6_packet_match()'s for a rule with -p; on failure what it starts from. */
		if (ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL) < 0) {
			thoff = 0;
			fragoff = 0;
		}
		par.thoff = thoff;
		par.fragoff = fragoff;
	} else {
		par.thoff = ip_hdrlen(skb);
		par.fragoff = ntohs(ip_hdr(skb)->frag_off) & IP_OFFSET;
	}
	/* ipt_do_table() runs its matches with bottom halves off. */
	local_bh_disable();
	ret = h->match->match(skb, &par);
	local_bh_enable();
	rcu_read_unlock();
	return par.hotdrop ? 2 : ret;
}

__bpf_kfunc u32 bpfilter_xt_target(struct bpf_nf_ctx *ctx, u32 id)
{
	const struct nf_hook_state *state = ctx->state;
	struct xt_action_param par = { .state = state };
	const struct xt_hold *h;
	unsigned int verdict;

	rcu_read_lock();
	h = xa_load(&xt_hold_ids, xt_hold_key(state->net, state->pf, id));
	if (!h || !h->target) {
		rcu_read_unlock();
		return NF_DROP;
	}
	par.target = h->target;
	par.targinfo = h->data;
	/* ipt_do_table() runs its targets with bottom halves off. */
	local_bh_disable();
	verdict = h->target->target(ctx->skb, &par);
	local_bh_enable();
	rcu_read_unlock();
	return verdict;
}

__bpf_kfunc int bpfilter_mark(struct bpf_nf_ctx *ctx, u32 mask, u32 xor)
{
	struct sk_buff *skb = ctx->skb;

	skb->mark = (skb->mark & ~mask) ^ xor;
	return 0;
}

__bpf_kfunc int bpfilter_notrack(struct bpf_nf_ctx *ctx)
{
	struct sk_buff *skb = ctx->skb;

	/* Previously seen (loopback)? Ignore, as notrack_tg() does. */
	if (!skb->_nfct)
		nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	return 0;
}

__bpf_kfunc u32 bpfilter_addrtype(struct bpf_nf_ctx *ctx, u32 addr, u32 iface)
{
	const struct nf_hook_state *state = ctx->state;
	const struct net_device *dev = NULL;

	if (iface == 1)
		dev = state->in;
	else if (iface == 2)
		dev = state->out;
	return inet_dev_addr_type(state->net, dev, (__force __be32)addr);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_reject)
BTF_ID_FLAGS(func, bpfilter_log)
BTF_ID_FLAGS(func, bpfilter_nflog)
BTF_ID_FLAGS(func, bpfilter_xt_match)
BTF_ID_FLAGS(func, bpfilter_xt_target)
BTF_ID_FLAGS(func, bpfilter_mark)
BTF_ID_FLAGS(func, bpfilter_notrack)
BTF_ID_FLAGS(func, bpfilter_addrtype)
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

/* The families the kfuncs log in, as ip_tables' and ip6_tables' rules do. */
static const u8 logger_families[] = { NFPROTO_IPV4, NFPROTO_IPV6 };

static bool logger_held[ARRAY_SIZE(logger_families)][ARRAY_SIZE(loggers)];

static void bpfilter_kfunc_release(void)
{
	unsigned int f, i;

	for (f = 0; f < ARRAY_SIZE(logger_families); f++)
		for (i = 0; i < ARRAY_SIZE(loggers); i++) {
			if (logger_held[f][i])
				nf_logger_put(logger_families[f], loggers[i].type);
			logger_held[f][i] = false;
		}
}

static int bpfilter_kfunc_register(void)
{
	unsigned int f, i;
	int err;

	for (f = 0; f < ARRAY_SIZE(logger_families); f++)
		for (i = 0; i < ARRAY_SIZE(loggers); i++) {
			u8 pf = logger_families[f];

			err = nf_logger_find_get(pf, loggers[i].type);
			if (err) {
				request_module("%s", loggers[i].module);
				err = nf_logger_find_get(pf, loggers[i].type);
			}
			if (err)
				pr_warn("no %s logger (%s) for family %u: %s rules will log nothing: %d\n",
					loggers[i].target, loggers[i].module, pf,
					loggers[i].target, err);
			logger_held[f][i] = !err;
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
	WARN_ON(!list_empty(&xt_holds));
	bpfilter_kfunc_release();
}

module_init(bpfilter_kfunc_init);
module_exit(bpfilter_kfunc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kfuncs of bpfilter's BPF netfilter programs (REJECT, LOG, NFLOG, xt matches, addrtype)");
