/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The ABI between bpfilter.ko and its usermode helper.
 *
 * The module forwards every iptables sockopt it owns as one mbox_request on
 * the helper's fd 0 and waits for one mbox_reply on the helper's fd 1. The
 * helper reads and writes the caller's buffer itself with process_vm_readv()
 * and process_vm_writev(), so only these fixed-size records cross the pipe.
 */
#ifndef _UAPI_LINUX_BPFILTER_H
#define _UAPI_LINUX_BPFILTER_H

#include <linux/types.h>

/* The iptables-legacy sockopt numbers, as in linux/netfilter_ipv4/ip_tables.h. */
enum {
	BPFILTER_IPT_SO_SET_REPLACE = 64,
	BPFILTER_IPT_SO_SET_ADD_COUNTERS = 65,
	BPFILTER_IPT_SET_MAX,
};

enum {
	BPFILTER_IPT_SO_GET_INFO = 64,
	BPFILTER_IPT_SO_GET_ENTRIES = 65,
	BPFILTER_IPT_SO_GET_REVISION_MATCH = 66,
	BPFILTER_IPT_SO_GET_REVISION_TARGET = 67,
	BPFILTER_IPT_GET_MAX,
};

/*
 * ip6_tables' numbers on PF_INET6 are the same but for the revision
 * queries, 68 and 69 (66 and 67 are IPv6 socket options). Requests carry
 * the BPFILTER_IPT_SO_* numbers for both families.
 */
enum {
	BPFILTER_IP6T_SO_GET_REVISION_MATCH = 68,
	BPFILTER_IP6T_SO_GET_REVISION_TARGET = 69,
	BPFILTER_IP6T_GET_MAX,
};

/* Values of mbox_request.is_set. */
enum bpfilter_mbox_kind {
	BPFILTER_MBOX_GET = 0,		/* a getsockopt, cmd is an IPT_SO_GET_* */
	BPFILTER_MBOX_SET = 1,		/* a setsockopt, cmd is an IPT_SO_SET_* */
	BPFILTER_MBOX_CONTROL = 2,	/* from the module itself, cmd below */
};

/* Values of cmd for BPFILTER_MBOX_CONTROL requests. */
enum bpfilter_mbox_control {
	BPFILTER_CTL_PING = 1,		/* health check: reply status 0 */
	BPFILTER_CTL_NETNS_EXIT = 2,	/* netns_ino is gone: release its tables */
};

/*
 * Conntrack runs in a namespace only while something holds it
 * (nf_ct_netns_get()); ip_tables' conntrack and state matches hold it from
 * checkentry to destroy. For bpfilter the module holds it, on the helper's
 * word: a table with such a match is only put in force while the request
 * says the module holds conntrack there; otherwise the helper changes
 * nothing and asks for a retry, and the module takes the hold first. Every
 * reply says whether the namespace's table in force still wants it. Holds
 * are per family (nf_ct_netns_get(net, family)): each of these flags is
 * about the request's family alone.
 */
#define BPFILTER_REQ_CT_CAPABLE	(1U << 0)	/* the sender can hold conntrack */
#define BPFILTER_REQ_CT_HELD	(1U << 1)	/* it holds it for family in netns_ino now */

#define BPFILTER_REPLY_CT_WANT	(1U << 0)	/* the family's table in force needs conntrack */
#define BPFILTER_REPLY_RETRY	(1U << 1)	/* nothing done: hold conntrack, send again */

/*
 * Matches whose checkentry, match and destroy are the kernel's own
 * (xt_recent's lists, xt_owner's credentials, ...): bpfilter_kfunc.ko
 * "holds" their checkentries, and the programs call the xt match through
 * the kfunc bpfilter_xt_match() with the hold's id. Targets whose work is
 * the kernel's (xt_nat's DNAT and SNAT, MASQUERADE, REDIRECT, NETMAP) are
 * held alike and run through bpfilter_xt_target(). As with conntrack, a
 * table with such matches is put in force only once the module holds them:
 * the helper writes one struct bpfilter_hold per match, in rule order, to
 * BPFILTER_HOLDS_FILE in its state directory and asks for a retry with
 * BPFILTER_REPLY_HOLD_CHECK; the module runs the checkentries (pending), in
 * the caller's context as translate_table() does, and sends the call again
 * with BPFILTER_REQ_HELD. A reply with BPFILTER_REPLY_HOLD_COMMIT says the
 * new table is in force: the module destroys the old table's holds and
 * keeps the pending ones. Any other reply drops the pending holds; no reply
 * keeps both, as either table may be in force. Ids are unique in the
 * namespace across the table in force and the one replacing it.
 */
#define BPFILTER_REQ_HOLD_CAPABLE	(1U << 2)	/* the sender holds checkentries */
#define BPFILTER_REQ_HELD	(1U << 3)	/* it holds BPFILTER_HOLDS_FILE's set */

#define BPFILTER_REPLY_HOLD_CHECK	(1U << 2)	/* hold the file's set, then retry */
#define BPFILTER_REPLY_HOLD_COMMIT	(1U << 3)	/* the table replaced is in force */

#define BPFILTER_HOLDS_FILE	"holds"
/* A Kubernetes node's nat table holds one DNAT target per service endpoint. */
#define BPFILTER_HOLDS_MAX	65536		/* records in the file */
#define BPFILTER_HOLDS_MAX_SIZE	(16U << 20)	/* bytes of the file */

/*
 * One record of BPFILTER_HOLDS_FILE, followed by size bytes of payload.
 * Holds are per family and table as the tables are: a file holds one table's.
 */
struct bpfilter_hold {
	char name[29];		/* the match, as in xt_entry_match */
	__u8 revision;
	__u16 size;		/* payload bytes, XT_ALIGN()ed: the next record follows */
	__u32 id;		/* bpfilter_xt_match()'s handle, below 1 << 31 */
	__u32 hook_mask;	/* 1 << NF_INET_* the rule is reached from */
	/* checkentry's entryinfo: the rule's struct ipt_ip or struct ip6t_ip6 */
	__u8 entry[136];
	__u8 family;		/* NFPROTO_IPV4 or NFPROTO_IPV6: the request's */
	__u8 table;		/* enum bpfilter_table: the reply's */
	__u8 target;		/* 1: name is an xt target (bpfilter_xt_target()) */
	__u8 pad;
};

/*
 * One request. addr/len describe the caller's optval buffer in the address
 * space of process pid (a pid of the initial pid namespace). For a get, len
 * is the caller's *optlen. netns_ino is the inode number of the calling
 * socket's network namespace (net->ns.inum): the helper acts there.
 */
/*
 * A namespace that an unprivileged user owns (its user namespace descends
 * from one whose owner is not root) has a budget: the request names the
 * owner and the module's limits (0: none), and the helper refuses with
 * -ENOMEM a call that would take that owner's namespaces past one of them.
 */
#define BPFILTER_REQ_LIMITED	(1U << 4)	/* owner_uid and max_* apply */

struct mbox_request {
	__u64 addr;
	__u32 len;
	__u32 is_set;
	__u32 cmd;
	__u32 pid;
	__u32 netns_ino;
	__u32 flags;		/* BPFILTER_REQ_* */
	__u32 owner_uid;	/* with BPFILTER_REQ_LIMITED: whose budget */
	__u32 max_netns;	/* namespaces with a table, per owner */
	__u32 max_entries;	/* rules (ipt_entry) in all of them */
	__u32 max_bytes;	/* bytes of their entries blobs */
	/*
	 * NFPROTO_IPV4 (IPT_SO_* on PF_INET) or NFPROTO_IPV6 (IP6T_SO_* on
	 * PF_INET6, cmd as BPFILTER_IPT_SO_*); 0 is NFPROTO_IPV4. Each family
	 * has its own tables in a namespace, as ip_tables and ip6_tables do.
	 */
	__u32 family;
};

/*
 * The tables of one family, as x_tables names them. A namespace has those
 * it has used, made on first use (GET_INFO, GET_ENTRIES or SET_REPLACE by
 * name) as x_tables instantiates iptable_filter, iptable_raw, ...
 */
enum bpfilter_table {
	BPFILTER_TABLE_FILTER,
	BPFILTER_TABLE_RAW,
	BPFILTER_TABLE_NAT,
	BPFILTER_TABLE_MAX,
};

/*
 * The namespace has a nat table of the request's family: bpfilter.ko
 * keeps nf_nat's hooks of that family registered there
 * (nf_nat_ipv4_register_fn() / _ipv6_, as iptable_nat and ip6table_nat do), which translate every packet of a connection once the
 * table's programs, running just before them, bound it; a connection they
 * did not bind gets nf_nat's null binding.
 */
#define BPFILTER_REPLY_NAT_WANT	(1U << 4)

/*
 * A reply about one table's holds (BPFILTER_REPLY_HOLD_CHECK or _COMMIT)
 * names it: each table's holds are settled apart from the others'.
 */
#define BPFILTER_REPLY_TABLE_SHIFT	8
#define BPFILTER_REPLY_TABLE_MASK	(0xfU << BPFILTER_REPLY_TABLE_SHIFT)

/* The tables' names, indexed by enum bpfilter_table: an array initializer. */
#define BPFILTER_TABLE_NAMES { \
	[BPFILTER_TABLE_FILTER] = "filter", \
	[BPFILTER_TABLE_RAW] = "raw", \
	[BPFILTER_TABLE_NAT] = "nat", \
}

/* mbox_reply.tables: 4 bits per table, enum bpfilter_table + 1, 0 ends the list. */
#define BPFILTER_TABLES_BITS	4

/* One reply: 0 or a negative errno, returned to the caller as is. */
struct mbox_reply {
	__s32 status;
	__u32 flags;		/* BPFILTER_REPLY_* */
	/*
	 * The request's namespace's tables of the request's family, newest
	 * first as x_tables lists them in /proc/net/ip_tables_names: the
	 * first table in the low 4 bits (BPFILTER_TABLES_BITS).
	 */
	__u32 tables;
};

/*
 * The helper's file descriptors, installed by the module before exec:
 * 0 requests, 1 replies, 3 the helper's own executable (unused),
 * BPFILTER_STATE_FD a directory that outlives the helper (the module's
 * private tmpfs), BPFILTER_BPFFS_FD a bpffs directory that outlives the
 * helper, where BPF objects that must survive a helper crash are pinned.
 * Either may be absent (EBADF); the helper then keeps no state across runs.
 */
#define BPFILTER_STATE_FD	4
#define BPFILTER_BPFFS_FD	5

/*
 * The helper's stderr is its log, one line per write(): "<L>text", L a
 * printk level. The module prints text after its own "bpfilter: helper: ",
 * except text that starts with BPFILTER_LOG_XT: the rest is the line x_tables
 * or an xt extension prints for the same event under ip_tables ("x_tables:
 * ip_tables: DNAT target: used from hooks INPUT, but only usable from
 * PREROUTING/OUTPUT"), printed as it is, so that dmesg reads the same.
 */
#define BPFILTER_LOG_XT		"xt:"

#endif /* _UAPI_LINUX_BPFILTER_H */
