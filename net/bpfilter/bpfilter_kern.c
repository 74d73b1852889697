// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter.ko: takes over the iptables-legacy sockopts (the same PF_INET
 * ranges as ip_tables, and PF_INET6 ones as ip6_tables unless ipv6=0, so
 * each pair excludes each other) and forwards each call to the embedded
 * usermode helper, which does all the work. Also provides
 * /proc/net/ip_tables_names (and ip6_tables_names) in every network
 * namespace, tells the helper
 * when a namespace goes away, and holds conntrack on in the namespaces whose
 * table needs it, as ip_tables' conntrack and state matches do, and the
 * checkentries of the xt matches the programs call (recent, owner, ...)
 * through bpfilter_kfunc.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "../../include/uapi/linux/bpfilter.h"
#include "kfunc.h"
#include "umh.h"

#define BPFILTER_NAMES	"ip_tables_names"
#define BPFILTER_NAMES6	"ip6_tables_names"

static int bpfilter_set(struct sock *sk, int cmd, sockptr_t arg,
			unsigned int len);
static int bpfilter_get(struct sock *sk, int cmd, void __user *user, int *len);
static int bpfilter_set6(struct sock *sk, int cmd, sockptr_t arg,
			 unsigned int len);
static int bpfilter_get6(struct sock *sk, int cmd, void __user *user, int *len);
static int bpfilter_net_init(struct net *net);
static void bpfilter_net_exit(struct net *net);

/* Per network namespace. */
struct bpfilter_net {
	/* We hold nf_ct_netns_get(net, NFPROTO_IPV4) ([0]) or NFPROTO_IPV6 ([1]):
	 * per family, as ip_tables and ip6_tables checkentries take them, so an
	 * IPv4 table with state rules turns on no IPv6 conntrack and defrag.
	 */
	bool ct_held[2];
	/* Each family's tables, as the helper's last reply about them listed
	 * them (mbox_reply.tables): what ip_tables_names shows.
	 */
	u32 tables[2];
	/* nf_nat's lookup hooks of each family (as ct_held[]), registered
	 * while the namespace has a nat table of that family
	 * (BPFILTER_REPLY_NAT_WANT), or NULL.
	 */
	struct nf_hook_ops *nat_ops[2];
};

static const char *const bpfilter_table_names[BPFILTER_TABLE_MAX] = BPFILTER_TABLE_NAMES;

/* The family a request is for, and its index in ct_held[]. */
static u8 bpfilter_ct_family(const struct mbox_request *req)
{
	return req->family == NFPROTO_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
}

static unsigned int bpfilter_ct_index(u8 family)
{
	return family == NFPROTO_IPV6;
}

static unsigned int bpfilter_net_id __read_mostly;

/* All of the module's state. */
static struct bpfilter_ctx {
	struct bpfilter_umh umh;
	struct nf_sockopt_ops sockopts;
	struct nf_sockopt_ops sockopts6;	/* registered if ipv6 */
	struct pernet_operations pernet;
	/* Serialises forwarded calls with the conntrack holds they change. */
	struct mutex ct_lock;
	bool unloading;		/* pernet exits need not reach the helper */
} bpfilter = {
	.umh = {
		.timeout_ms = 30000,
	},
	.sockopts = {
		.pf		= PF_INET,
		.set_optmin	= BPFILTER_IPT_SO_SET_REPLACE,
		.set_optmax	= BPFILTER_IPT_SET_MAX,
		.set		= bpfilter_set,
		.get_optmin	= BPFILTER_IPT_SO_GET_INFO,
		.get_optmax	= BPFILTER_IPT_GET_MAX,
		.get		= bpfilter_get,
		.owner		= THIS_MODULE,
	},
	.sockopts6 = {
		.pf		= PF_INET6,
		.set_optmin	= BPFILTER_IPT_SO_SET_REPLACE,
		.set_optmax	= BPFILTER_IPT_SET_MAX,
		.set		= bpfilter_set6,
		.get_optmin	= BPFILTER_IPT_SO_GET_INFO,
		.get_optmax	= BPFILTER_IP6T_GET_MAX,
		.get		= bpfilter_get6,
		.owner		= THIS_MODULE,
	},
	.pernet = {
		.init	= bpfilter_net_init,
		.exit	= bpfilter_net_exit,
		.id	= &bpfilter_net_id,
		.size	= sizeof(struct bpfilter_net),
	},
	.ct_lock = __MUTEX_INITIALIZER(bpfilter.ct_lock),
};

/* ip6tables-legacy too (IP6T_SO_*, the same numbers on PF_INET6). With
 * ipv6=0 the IPv6 sockopts are left to ip6_tables, which can then be
 * loaded next to bpfilter: IPv4 through BPF, IPv6 through ip6_tables.
 */
static bool ipv6 = true;
module_param(ipv6, bool, 0444);
MODULE_PARM_DESC(ipv6, "Also serve ip6tables-legacy (default 1); 0 leaves IPv6 to ip6_tables");

module_param_named(timeout_ms, bpfilter.umh.timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms,
		 "Bound on one helper request in ms, then the helper is restarted (0: no bound)");

/* The budget of each unprivileged user's namespaces (bpfilter.h); 0: none. */
static unsigned int userns_max_netns = 128;
module_param(userns_max_netns, uint, 0644);
MODULE_PARM_DESC(userns_max_netns,
		 "Namespaces with a table per unprivileged user, past it ENOMEM (0: no limit)");
static unsigned int userns_max_entries = 16384;
module_param(userns_max_entries, uint, 0644);
MODULE_PARM_DESC(userns_max_entries,
		 "Rules in all of one unprivileged user's namespaces, past it ENOMEM (0: no limit)");
static unsigned int userns_max_bytes = 16 << 20;
module_param(userns_max_bytes, uint, 0644);
MODULE_PARM_DESC(userns_max_bytes,
		 "Bytes of tables in all of one unprivileged user's namespaces, past it ENOMEM (0: no limit)");

static char *verifier_fault_file;
module_param(verifier_fault_file, charp, 0444);
MODULE_PARM_DESC(verifier_fault_file,
		 "Testing: while this file exists, the BPF programs the helper generates fail verification");

static int bpfilter_helper_pid_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(&bpfilter.umh.pid));
}

static const struct kernel_param_ops bpfilter_helper_pid_ops = {
	.get = bpfilter_helper_pid_get,
};

module_param_cb(helper_pid, &bpfilter_helper_pid_ops, NULL, 0444);
MODULE_PARM_DESC(helper_pid, "The running helper's pid, 0 if none (read-only)");

/* Make our conntrack hold for @family in @net follow the helper's word: 0 or -errno. */
static int bpfilter_ct_sync(struct net *net, u8 family, bool want)
{
	struct bpfilter_net *bn = net_generic(net, bpfilter_net_id);
	bool *held = &bn->ct_held[bpfilter_ct_index(family)];
	int err;

	lockdep_assert_held(&bpfilter.ct_lock);
	if (want && !*held) {
		err = nf_ct_netns_get(net, family);
		if (err) {
			pr_info_ratelimited("cannot load conntrack support for proto=%u\n",
					    family);
			return err;
		}
		*held = true;
	} else if (!want && *held) {
		nf_ct_netns_put(net, family);
		*held = false;
	}
	return 0;
}

/* nf_nat_inet_fn() calls this for a connection no binding was made for
 * yet: the nat table's programs, attached just before nf_nat's hook, have
 * made any binding the table makes, so nothing is left to do; nf_nat then
 * gives the connection its null binding, as after iptable_nat's table.
 */
static unsigned int bpfilter_nat_lookup(void *priv, struct sk_buff *skb,
					const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

/* iptable_nat's hooks and priorities (ip6table_nat's are the same): nf_nat
 * orders its lookups by them. The family is set per copy.
 */
static const struct nf_hook_ops bpfilter_nat_ops[] = {
	{ .hook = bpfilter_nat_lookup,
	  .hooknum = NF_INET_PRE_ROUTING, .priority = NF_IP_PRI_NAT_DST },
	{ .hook = bpfilter_nat_lookup,
	  .hooknum = NF_INET_POST_ROUTING, .priority = NF_IP_PRI_NAT_SRC },
	{ .hook = bpfilter_nat_lookup,
	  .hooknum = NF_INET_LOCAL_OUT, .priority = NF_IP_PRI_NAT_DST },
	{ .hook = bpfilter_nat_lookup,
	  .hooknum = NF_INET_LOCAL_IN, .priority = NF_IP_PRI_NAT_SRC },
};

static int bpfilter_nat_register(struct net *net, const struct nf_hook_ops *ops)
{
	if (ops->pf == NFPROTO_IPV6)
		return nf_nat_ipv6_register_fn(net, ops);
	return nf_nat_ipv4_register_fn(net, ops);
}

static void bpfilter_nat_unregister(struct net *net, const struct nf_hook_ops *ops)
{
	if (ops->pf == NFPROTO_IPV6)
		nf_nat_ipv6_unregister_fn(net, ops);
	else
		nf_nat_ipv4_unregister_fn(net, ops);
}

/* Make nf_nat's hooks in @net follow the helper's word for @family: 0 or -errno. */
static int bpfilter_nat_sync(struct net *net, u8 family, bool want)
{
	struct bpfilter_net *bn = net_generic(net, bpfilter_net_id);
	struct nf_hook_ops **slot = &bn->nat_ops[bpfilter_ct_index(family)];
	struct nf_hook_ops *ops = *slot;
	int i, err;

	lockdep_assert_held(&bpfilter.ct_lock);
	if (want == !!ops)
		return 0;
	if (!want) {
		for (i = 0; i < ARRAY_SIZE(bpfilter_nat_ops); i++)
			bpfilter_nat_unregister(net, &ops[i]);
		*slot = NULL;
		/* nf_nat's hook may still be calling through them. */
		synchronize_rcu();
		kfree(ops);
		return 0;
	}
	ops = kmemdup(bpfilter_nat_ops, sizeof(bpfilter_nat_ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(bpfilter_nat_ops); i++) {
		ops[i].pf = family;
		err = bpfilter_nat_register(net, &ops[i]);
		if (err) {
			while (i)
				bpfilter_nat_unregister(net, &ops[--i]);
			kfree(ops);
			return err;
		}
	}
	*slot = ops;
	return 0;
}

/* Hold the checkentries the helper wrote to BPFILTER_HOLDS_FILE (bpfilter.h): 0 or -errno. */
static int bpfilter_holds_load(struct net *net, u8 family, unsigned int table)
{
	ssize_t n;
	void *buf;
	int err;

	buf = kvmalloc(BPFILTER_HOLDS_MAX_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	n = bpfilter_umh_read_state(&bpfilter.umh, BPFILTER_HOLDS_FILE, buf,
				    BPFILTER_HOLDS_MAX_SIZE);
	err = n < 0 ? n : bpfilter_holds_check(net, family, table,
					       bpfilter_table_names[table], buf, n);
	kvfree(buf);
	return err;
}

/* One call to the helper, with the conntrack and hold protocols of
 * bpfilter.h: a table that needs conntrack or held matches is put in force
 * only while we hold them there, so a retry request makes us take the holds
 * and send the call again; after every reply the conntrack hold follows what
 * the table in force wants, and the holds of the table that is not
 * in force are let go. No reply (a signal, a dead helper) leaves the holds
 * as they are: never drop what may be needed.
 */
static int bpfilter_call(struct net *net, struct mbox_request *req)
{
	struct bpfilter_net *bn = net_generic(net, bpfilter_net_id);
	u8 family = bpfilter_ct_family(req);
	unsigned int table = 0;
	struct mbox_reply reply;
	bool held = false;
	int tries, err, ret, err2;
	u32 flags;

	if (mutex_lock_interruptible(&bpfilter.ct_lock))
		return -EINTR;
	for (tries = 0; ; tries++) {
		req->flags = (req->flags & BPFILTER_REQ_LIMITED) |
			     BPFILTER_REQ_CT_CAPABLE | BPFILTER_REQ_HOLD_CAPABLE |
			     (bn->ct_held[bpfilter_ct_index(family)] ?
			      BPFILTER_REQ_CT_HELD : 0) |
			     (held ? BPFILTER_REQ_HELD : 0);
		err = bpfilter_umh_request(&bpfilter.umh, req, &reply);
		flags = reply.flags;
		if (flags == BPFILTER_UMH_NO_REPLY) {
			if (held)
				bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_KEEP);
			break;
		}
		WRITE_ONCE(bn->tables[bpfilter_ct_index(family)], reply.tables);
		/* A nat table gets nf_nat's hooks when it is made, as iptable_nat's. */
		err2 = bpfilter_nat_sync(net, family, flags & BPFILTER_REPLY_NAT_WANT);
		if (err2)
			pr_warn_ratelimited("netns %u: cannot register nf_nat's hooks: %d\n",
					    net->ns.inum, err2);
		/* The table whose holds this reply is about, if it is about holds. */
		if (flags & (BPFILTER_REPLY_HOLD_CHECK | BPFILTER_REPLY_HOLD_COMMIT))
			table = (flags & BPFILTER_REPLY_TABLE_MASK) >>
				BPFILTER_REPLY_TABLE_SHIFT;
		ret = bpfilter_ct_sync(net, family, flags & (BPFILTER_REPLY_CT_WANT |
							     BPFILTER_REPLY_RETRY));
		if (!ret && (flags & BPFILTER_REPLY_HOLD_CHECK)) {
			ret = table < BPFILTER_TABLE_MAX ?
			      bpfilter_holds_load(net, family, table) : -EIO;
			held = !ret;
		}
		if (!(flags & BPFILTER_REPLY_RETRY)) {
			if ((flags & BPFILTER_REPLY_HOLD_COMMIT) && table < BPFILTER_TABLE_MAX)
				bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_COMMIT);
			else if (held)
				bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_ABORT);
			break;
		}
		/* checkentry's error, as ip_tables returns it; a second retry is a bug. */
		if (ret || tries) {
			err = ret ? ret : -EIO;
			if (!ret)
				pr_warn_ratelimited("the helper asked twice for conntrack or holds\n");
			/* Conntrack stays on if the tables in force want it. */
			bpfilter_ct_sync(net, family, flags & BPFILTER_REPLY_CT_WANT);
			if (table < BPFILTER_TABLE_MAX)
				bpfilter_holds_settle(net, family, table, BPFILTER_HOLDS_ABORT);
			break;
		}
	}
	mutex_unlock(&bpfilter.ct_lock);
	return err;
}

/* Name the owner whose budget the call draws on, if it has one: the owner
 * of the outermost user namespace above the netns' own. A user who nests
 * user namespaces, or makes many, still spends one budget; namespaces that
 * root made (container engines included) have none.
 */
static void bpfilter_budget(struct net *net, struct mbox_request *req)
{
	struct user_namespace *ns = net->user_ns;

	if (ns == &init_user_ns)
		return;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		return;
	req->flags |= BPFILTER_REQ_LIMITED;
	req->owner_uid = from_kuid(&init_user_ns, ns->owner);
	req->max_netns = READ_ONCE(userns_max_netns);
	req->max_entries = READ_ONCE(userns_max_entries);
	req->max_bytes = READ_ONCE(userns_max_bytes);
}

/* Checks every call the way ip_tables does (CAP_NET_ADMIN in the namespace's
 * user namespace first), then forwards it. Callers the helper cannot serve,
 * because it reads their memory as a 64-bit process, get -EOPNOTSUPP.
 */
static int bpfilter_forward(struct sock *sk, u32 family, u32 kind, int cmd,
			    void __user *addr, int len, bool kernel_buf)
{
	struct net *net = sock_net(sk);
	struct mbox_request req = {
		.addr = (uintptr_t)addr,
		.len = len,
		.is_set = kind,
		.cmd = cmd,
		.pid = task_pid_nr(current),
		.netns_ino = net->ns.inum,
		.family = family,
	};

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (in_compat_syscall()) {
		pr_warn_ratelimited("%s[%d]: 32-bit iptables is not supported, use a 64-bit one\n",
				    current->comm, task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	if (kernel_buf) {
		pr_warn_ratelimited("%s[%d]: sockopt %d with a kernel buffer (cgroup BPF?) is not supported\n",
				    current->comm, task_pid_nr(current), cmd);
		return -EOPNOTSUPP;
	}
	if (len < 0)
		return -EINVAL;
	bpfilter_budget(net, &req);
	return bpfilter_call(net, &req);
}

static int bpfilter_set_family(struct sock *sk, u32 family, int cmd,
			       sockptr_t arg, unsigned int len)
{
	bool kernel_buf = sockptr_is_kernel(arg);

	/* setsockopt() rejects a negative optlen, so len fits in an int. */
	return bpfilter_forward(sk, family, BPFILTER_MBOX_SET, cmd,
				kernel_buf ? NULL : arg.user, len, kernel_buf);
}

static int bpfilter_set(struct sock *sk, int cmd, sockptr_t arg,
			unsigned int len)
{
	return bpfilter_set_family(sk, NFPROTO_IPV4, cmd, arg, len);
}

static int bpfilter_set6(struct sock *sk, int cmd, sockptr_t arg,
			 unsigned int len)
{
	return bpfilter_set_family(sk, NFPROTO_IPV6, cmd, arg, len);
}

/* len points to the kernel's copy of the caller's optlen. */
static int bpfilter_get(struct sock *sk, int cmd, void __user *user, int *len)
{
	return bpfilter_forward(sk, NFPROTO_IPV4, BPFILTER_MBOX_GET, cmd, user,
				*len, false);
}

/* IP6T_SO_GET_REVISION_* are 68 and 69 (66 and 67 are IPv6 options): the helper
 * gets the IPT_SO_* numbers; 66 and 67 are ip6_tables' default case.
 */
static int bpfilter_get6(struct sock *sk, int cmd, void __user *user, int *len)
{
	switch (cmd) {
	case BPFILTER_IP6T_SO_GET_REVISION_MATCH:
		cmd = BPFILTER_IPT_SO_GET_REVISION_MATCH;
		break;
	case BPFILTER_IP6T_SO_GET_REVISION_TARGET:
		cmd = BPFILTER_IPT_SO_GET_REVISION_TARGET;
		break;
	case BPFILTER_IPT_SO_GET_REVISION_MATCH:
	case BPFILTER_IPT_SO_GET_REVISION_TARGET:
		if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
			return -EPERM;
		return -EINVAL;
	}
	return bpfilter_forward(sk, NFPROTO_IPV6, BPFILTER_MBOX_GET, cmd, user,
				*len, false);
}

/* The namespace's tables of @family, newest first, as xt_register_table() lists them. */
static int bpfilter_names_show(struct seq_file *m, u8 family)
{
	struct bpfilter_net *bn = net_generic(seq_file_single_net(m), bpfilter_net_id);
	u32 list = READ_ONCE(bn->tables[bpfilter_ct_index(family)]);
	unsigned int k;

	for (; list; list >>= BPFILTER_TABLES_BITS) {
		k = (list & (BIT(BPFILTER_TABLES_BITS) - 1)) - 1;
		if (k < BPFILTER_TABLE_MAX)
			seq_printf(m, "%s\n", bpfilter_table_names[k]);
	}
	return 0;
}

static int bpfilter_names_show4(struct seq_file *m, void *v)
{
	return bpfilter_names_show(m, NFPROTO_IPV4);
}

/* single_open_net() makes the net the seq_file's private: one show per family. */
static int bpfilter_names_show6(struct seq_file *m, void *v)
{
	return bpfilter_names_show(m, NFPROTO_IPV6);
}

/* /proc/net/@name, readable by the namespace's root as x_tables makes it. */
static int bpfilter_names_create(struct net *net, const char *name,
				 int (*show)(struct seq_file *m, void *v))
{
	struct proc_dir_entry *pde;
	kuid_t uid;
	kgid_t gid;

	pde = proc_create_net_single(name, 0440, net->proc_net, show, NULL);
	if (!pde)
		return -ENOMEM;
	uid = make_kuid(net->user_ns, 0);
	gid = make_kgid(net->user_ns, 0);
	if (uid_valid(uid) && gid_valid(gid))
		proc_set_user(pde, uid, gid);
	return 0;
}

static int __net_init bpfilter_net_init(struct net *net)
{
	int err;

	err = bpfilter_names_create(net, BPFILTER_NAMES, bpfilter_names_show4);
	if (err || !ipv6)
		return err;
	err = bpfilter_names_create(net, BPFILTER_NAMES6, bpfilter_names_show6);
	if (err)
		remove_proc_entry(BPFILTER_NAMES, net->proc_net);
	return err;
}

/* Runs from the netns cleanup work, not in a user's process. */
static void __net_exit bpfilter_net_exit(struct net *net)
{
	struct mbox_request req = {
		.is_set = BPFILTER_MBOX_CONTROL,
		.cmd = BPFILTER_CTL_NETNS_EXIT,
		.netns_ino = net->ns.inum,
	};
	int err;

	remove_proc_entry(BPFILTER_NAMES, net->proc_net);
	if (ipv6)
		remove_proc_entry(BPFILTER_NAMES6, net->proc_net);
	/* The table goes away with the namespace (or the module): so does its hold. */
	mutex_lock(&bpfilter.ct_lock);
	bpfilter_nat_sync(net, NFPROTO_IPV4, false);
	bpfilter_nat_sync(net, NFPROTO_IPV6, false);
	bpfilter_ct_sync(net, NFPROTO_IPV4, false);
	bpfilter_ct_sync(net, NFPROTO_IPV6, false);
	bpfilter_holds_settle(net, NFPROTO_IPV4, BPFILTER_TABLE_MAX, BPFILTER_HOLDS_RELEASE);
	bpfilter_holds_settle(net, NFPROTO_IPV6, BPFILTER_TABLE_MAX, BPFILTER_HOLDS_RELEASE);
	mutex_unlock(&bpfilter.ct_lock);
	/* On unload the helper's whole state goes away with its tmpfs. */
	if (READ_ONCE(bpfilter.unloading))
		return;
	err = bpfilter_umh_request(&bpfilter.umh, &req, NULL);
	if (err)
		pr_warn("netns %u: the helper did not release its tables: %d\n",
			net->ns.inum, err);
}

static int __init bpfilter_init(void)
{
	int err;

	/* The error path of a replace, on demand (the helper's BPFILTER_FAULT_FILE). */
	if (verifier_fault_file && *verifier_fault_file) {
		bpfilter.umh.fault_env = kasprintf(GFP_KERNEL, "BPFILTER_FAULT_FILE=%s",
						   verifier_fault_file);
		if (!bpfilter.umh.fault_env)
			return -ENOMEM;
		pr_warn("testing: programs fail verification while %s exists\n",
			verifier_fault_file);
	}
	err = bpfilter_umh_init(&bpfilter.umh, bpfilter_umh_start,
				bpfilter_umh_end - bpfilter_umh_start);
	if (err)
		goto free_env;
	err = nf_register_sockopt(&bpfilter.sockopts);
	if (err == -EBUSY)
		pr_err("ip_tables is loaded and owns the iptables sockopts: rmmod ip_tables first\n");
	else if (err)
		pr_err("cannot register the iptables sockopts: %d\n", err);
	if (err)
		goto exit_umh;
	if (ipv6) {
		err = nf_register_sockopt(&bpfilter.sockopts6);
		if (err == -EBUSY)
			pr_err("ip6_tables is loaded and owns the ip6tables sockopts: rmmod ip6_tables first, or load bpfilter with ipv6=0\n");
		else if (err)
			pr_err("cannot register the ip6tables sockopts: %d\n", err);
		if (err)
			goto unregister_sockopt;
	}
	err = register_pernet_subsys(&bpfilter.pernet);
	if (err) {
		pr_err("cannot register the per-netns operations: %d\n", err);
		goto unregister_sockopt6;
	}
	return 0;

unregister_sockopt6:
	if (ipv6)
		nf_unregister_sockopt(&bpfilter.sockopts6);
unregister_sockopt:
	nf_unregister_sockopt(&bpfilter.sockopts);
exit_umh:
	bpfilter_umh_exit(&bpfilter.umh);
free_env:
	kfree(bpfilter.umh.fault_env);
	return err;
}

static void __exit bpfilter_exit(void)
{
	nf_unregister_sockopt(&bpfilter.sockopts);
	if (ipv6)
		nf_unregister_sockopt(&bpfilter.sockopts6);
	WRITE_ONCE(bpfilter.unloading, true);
	unregister_pernet_subsys(&bpfilter.pernet);
	bpfilter_umh_exit(&bpfilter.umh);
	kfree(bpfilter.umh.fault_env);
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iptables-legacy sockopts served by a BPF-generating usermode helper");
