/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helper's one piece of state: every network namespace's tables, the
 * state directory, the enforcement backend and the log.
 *
 * The helper is single-threaded: the module serialises requests, so nothing
 * here is locked.
 */
#ifndef NET_BPFILTER_CONTEXT_H
#define NET_BPFILTER_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"

struct table;
struct table_kind;
struct backend_ops;
struct family;

/*
 * One table (filter, raw, ...) of one family in one network namespace,
 * identified by the inode of its ns file (net->ns.inum): a namespace where
 * IPv4 and IPv6 are both used has a filter table of each, as it has
 * ip_tables' and ip6_tables' tables.
 */
struct netns {
	uint32_t ino;
	const struct family *fam;
	const struct table_kind *kind;
	uint64_t created;	/* when it was made (context.table_seq): the names' order */
	pid_t pid;		/* requester of the request being served (for /proc/PID/ns/net) */
	struct table *table;	/* the table in force, never NULL once created */
	void *backend_priv;	/* owned by the backend */
	bool limited;		/* on owner_uid's budget (budget.h) */
	uint32_t owner_uid;
	struct netns *next;
};

struct context {
	struct netns *netns;	/* singly linked list of known namespaces */
	int state_dir_fd;	/* BPFILTER_STATE_FD if it is a directory, else -1 */
	int bpffs_fd;		/* BPFILTER_BPFFS_FD if it is a directory, else -1 */
	const struct backend_ops *backend;
	void *backend_priv;	/* owned by the backend: state shared by all namespaces */
	struct log log;
	uint32_t req_flags;	/* BPFILTER_REQ_* of the request being served */
	uint32_t reply_flags;	/* BPFILTER_REPLY_* its handler adds to the reply */
	uint64_t table_seq;	/* the next table's netns.created */
};

/*
 * Set up @ctx: state directory @state_fd and bpffs directory @bpffs_fd (each
 * used only if it is an open directory, else -1), the backend called
 * @backend (NULL: the default), and the log: 0 or -errno.
 */
int context_init(struct context *ctx, int state_fd, int bpffs_fd, const char *backend);
/* Release every namespace (backend release included) and close the log. */
void context_fini(struct context *ctx);
/*
 * The table @kind of family @fam in namespace @ino, created on first use:
 * reloaded from the state directory if a saved table is there, else the
 * kind's initial table. Returns 0 and *out, or -errno.
 */
int context_get_netns(struct context *ctx, uint32_t ino, const struct family *fam,
		      const struct table_kind *kind, struct netns **out);
/*
 * That table if it is known, else NULL (@fam NULL: of any family, @kind NULL: any
 * table); never creates it.
 */
struct netns *context_find_netns(struct context *ctx, uint32_t ino, const struct family *fam,
				 const struct table_kind *kind);
/*
 * mbox_reply.tables for family @fam in namespace @ino: its tables' enum
 * bpfilter_table + 1, newest first, as x_tables lists them.
 */
uint32_t context_table_list(const struct context *ctx, uint32_t ino, const struct family *fam);
/*
 * Forget namespace @ino, every family: backend release, free its tables, delete its saved
 * state. Unknown ino is fine.
 */
void context_netns_exit(struct context *ctx, uint32_t ino);

#endif /* NET_BPFILTER_CONTEXT_H */
