// SPDX-License-Identifier: GPL-2.0
/*
 * The six iptables-legacy sockopts, IPT_SO_* and IP6T_SO_* alike. Each
 * check happens in the order net/ipv4/netfilter/ip_tables.c
 * (do_ipt_get_ctl, do_replace, ...) makes it, because iptables reacts
 * differently to each errno; ip6_tables.c makes them in the same order.
 */
#define _GNU_SOURCE

#include "sockopt.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "backend.h"
#include "budget.h"
#include "context.h"
#include "family.h"
#include "hold.h"
#include "io.h"
#include "match.h"
#include "table.h"
#include "target.h"
#include "state.h"

/* x_tables' allocation limit (XT_MAX_TABLE_SIZE) and its xt_table_info header. */
#define XT_MAX_TABLE_SIZE (512ull * 1024 * 1024)
#define XT_TABLE_INFO_SIZE 64

/*
 * The table @kind of the requesting namespace, made on first use as x_tables
 * makes iptable_filter's, iptable_raw's, ... if the owner's budget allows a
 * namespace it did not have.
 */
static int request_table(struct context *ctx, const struct mbox_request *req,
			 const struct table_kind *kind, struct netns **nsp)
{
	struct netns *ns;
	int err;

	if (!context_find_netns(ctx, req->netns_ino, NULL, NULL)) {
		err = budget_check_netns(ctx, req);
		if (err)
			return err;
	}
	err = context_get_netns(ctx, req->netns_ino, family_get(req->family), kind, &ns);
	if (err)
		return err;
	ns->pid = req->pid;
	budget_assign(ns, req);
	*nsp = ns;
	return 0;
}

/* The table @name of the requesting namespace: -ENOENT if x_tables has no such table here. */
static int find_table(struct context *ctx, const struct mbox_request *req, const char *name,
		      struct netns **nsp)
{
	const struct table_kind *kind = table_kind_find(family_get(req->family), name);

	if (!kind)
		return -ENOENT;
	return request_table(ctx, req, kind, nsp);
}

/* Model counters plus the backend's live ones, one pair per entry. */
static int table_counters(struct context *ctx, struct netns *ns, const struct table *t,
			  struct xt_counters **out)
{
	struct xt_counters *c;
	uint32_t i;
	int err;

	c = calloc(t->num_entries ? t->num_entries : 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < t->num_entries; i++)
		c[i] = t->rules[i].counters;
	err = ctx->backend->read_counters(ctx, ns, t, c);
	if (err) {
		bf_err(ctx, "netns %u: backend %s: reading counters failed: %d", ns->ino,
		       ctx->backend->name, err);
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

static int get_info(struct context *ctx, const struct mbox_request *req)
{
	struct ipt_getinfo info;
	char name[XT_TABLE_MAXNAMELEN];
	struct netns *ns;
	int err;

	if (req->len != sizeof(info))
		return -EINVAL;
	if (pvm_read(req->pid, req->addr, name, sizeof(name)))
		return -EFAULT;
	name[sizeof(name) - 1] = '\0';
	err = find_table(ctx, req, name, &ns);
	if (err)
		return err;
	table_to_info(ns->table, name, &info);
	return pvm_write(req->pid, req->addr, &info, sizeof(info));
}

static int get_entries(struct context *ctx, const struct mbox_request *req)
{
	struct xt_counters *counters = NULL;
	struct ipt_get_entries get;
	const struct table *t;
	struct netns *ns;
	uint64_t dst;
	void *buf;
	int err;

	if (req->len < sizeof(get))
		return -EINVAL;
	if (pvm_read(req->pid, req->addr, &get, sizeof(get)))
		return -EFAULT;
	if ((uint64_t)req->len != sizeof(get) + (uint64_t)get.size)
		return -EINVAL;
	get.name[sizeof(get.name) - 1] = '\0';
	err = find_table(ctx, req, get.name, &ns);
	if (err)
		return err;
	t = ns->table;
	if (get.size != t->size)
		return -EAGAIN;

	err = table_counters(ctx, ns, t, &counters);
	if (err)
		return err;
	buf = malloc(t->size ? t->size : 1);
	if (!buf) {
		err = -ENOMEM;
		goto out_free;
	}
	/*
	 * The kernel leaves some bytes of the caller's buffer alone (name tails,
	 * padding after a target): start from what is there to match it.
	 */
	dst = req->addr + offsetof(struct ipt_get_entries, entrytable);
	err = pvm_read(req->pid, dst, buf, t->size);
	if (err)
		goto out_free;
	table_to_entries(t, counters, buf);
	err = pvm_write(req->pid, dst, buf, t->size);

out_free:
	free(buf);
	free(counters);
	return err;
}

static int get_revision(const struct mbox_request *req, uint8_t nfproto)
{
	struct xt_get_revision rev;

	if (req->len != sizeof(rev))
		return -EINVAL;
	if (pvm_read(req->pid, req->addr, &rev, sizeof(rev)))
		return -EFAULT;
	rev.name[sizeof(rev.name) - 1] = '\0';
	if (req->cmd == BPFILTER_IPT_SO_GET_REVISION_TARGET)
		return target_revision(nfproto, rev.name, rev.revision);
	return match_revision(nfproto, rev.name, rev.revision);
}

static int do_replace(struct context *ctx, const struct mbox_request *req,
		      const struct family *fam)
{
	struct xt_counters *old_counters = NULL;
	struct table *new_table = NULL, *old;
	uint64_t t0 = log_now_ns(), t1, t2, t3, t4;
	struct ipt_replace repl;
	struct netns *ns;
	void *blob = NULL;
	uint32_t i;
	int err;

	if (req->len < sizeof(repl))
		return -EINVAL;
	if (pvm_read(req->pid, req->addr, &repl, sizeof(repl)))
		return -EFAULT;
	if (repl.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (repl.num_counters == 0)
		return -EINVAL;
	if ((uint64_t)req->len < (uint64_t)repl.size + sizeof(repl))
		return -EINVAL;
	repl.name[sizeof(repl.name) - 1] = '\0';
	if (XT_TABLE_INFO_SIZE + (uint64_t)repl.size >= XT_MAX_TABLE_SIZE)
		return -ENOMEM;

	blob = malloc(repl.size ? repl.size : 1);
	if (!blob)
		return -ENOMEM;
	if (pvm_read(req->pid, req->addr + sizeof(repl), blob, repl.size)) {
		err = -EFAULT;
		goto out_free;
	}
	err = table_from_replace(ctx, fam, &repl, blob, &new_table);
	if (err)
		goto out_free;
	t1 = log_now_ns();
	/*
	 * Conntrack must be on before such a table is in force, as ip_tables'
	 * checkentry turns it on before the swap: the module takes the hold
	 * and sends the request again (bpfilter.h). A sender that cannot hold
	 * it (the host test daemon) gets a table that would never match as
	 * ip_tables matches it refused.
	 */
	if (new_table->needs_conntrack && !(ctx->req_flags & BPFILTER_REQ_CT_HELD)) {
		if (!(ctx->req_flags & BPFILTER_REQ_CT_CAPABLE)) {
			bf_warn(ctx, "replace '%s': conntrack and state matches need bpfilter.ko "
				"to turn conntrack on: refused", repl.name);
			err = -EOPNOTSUPP;
			goto out_free;
		}
		ctx->reply_flags |= BPFILTER_REPLY_RETRY;
	}
	/*
	 * Likewise the checkentries of the matches the kernel runs (recent,
	 * owner, ...), numbered after the table in force's; one retry takes both.
	 */
	err = find_table(ctx, req, repl.name, &ns);
	if (!err)
		err = holds_prepare(ctx, ns, new_table);
	else if (err == -ENOENT)
		err = 0;	/* no such table: __do_replace()'s lookup below says so */
	if (err == -EAGAIN)
		ctx->reply_flags |= BPFILTER_REPLY_RETRY;
	else if (err)
		goto out_free;
	if (ctx->reply_flags & BPFILTER_REPLY_RETRY) {
		err = -EAGAIN;
		goto out_free;
	}

	/* __do_replace(): counters buffer, table lookup, hooks, entry count. */
	if ((uint64_t)repl.num_counters * sizeof(struct xt_counters) > XT_MAX_TABLE_SIZE) {
		err = -ENOMEM;
		goto out_free;
	}
	err = find_table(ctx, req, repl.name, &ns);
	if (err)
		goto out_free;
	old = ns->table;
	if (repl.valid_hooks != old->valid_hooks) {
		err = -EINVAL;
		goto out_free;
	}
	if (repl.num_counters != old->num_entries) {
		err = -EAGAIN;
		goto out_free;
	}
	/* Where ip_tables' allocations would fail under the caller's memcg. */
	err = budget_check_table(ctx, req, ns, new_table->num_entries, new_table->size);
	if (err)
		goto out_free;
	old_counters = calloc(repl.num_counters, sizeof(*old_counters));
	if (!old_counters) {
		err = -ENOMEM;
		goto out_free;
	}

	t2 = log_now_ns();
	err = ctx->backend->install(ctx, ns, new_table, old);
	if (err) {
		bf_err(ctx, "netns %u: backend %s: install failed: %d", ns->ino,
		       ctx->backend->name, err);
		goto out_free;
	}
	/* The backend folded the old table's live counts into its model counters. */
	for (i = 0; i < old->num_entries; i++)
		old_counters[i] = old->rules[i].counters;
	ns->table = new_table;
	new_table = NULL;
	table_free(old);
	/* The module settles the holds of this table of the request's family. */
	ctx->reply_flags |= BPFILTER_REPLY_HOLD_COMMIT |
			    ns->kind->id << BPFILTER_REPLY_TABLE_SHIFT;
	t3 = log_now_ns();
	state_save(ctx, ns);
	t4 = log_now_ns();
	/* Where a large table's replace spends its time. */
	bf_dbg(ctx, "netns %u: replace '%s': %u entries in %llu ms: checks %llu, holds %llu, "
	       "install %llu, state %llu", ns->ino, ns->table->name, ns->table->num_entries,
	       (unsigned long long)(t4 - t0) / 1000000,
	       (unsigned long long)(t1 - t0) / 1000000, (unsigned long long)(t2 - t1) / 1000000,
	       (unsigned long long)(t3 - t2) / 1000000, (unsigned long long)(t4 - t3) / 1000000);

	/* Like ip_tables: the new table is in place, a bad pointer is not an error. */
	if (pvm_write(req->pid, (uint64_t)(uintptr_t)repl.counters, old_counters,
		      repl.num_counters * sizeof(*old_counters)))
		bf_dbg(ctx, "netns %u: old counters not written back", ns->ino);
	err = 0;

out_free:
	free(old_counters);
	table_free(new_table);
	free(blob);
	return err;
}

static int do_add_counters(struct context *ctx, const struct mbox_request *req)
{
	struct xt_counters_info info;
	struct xt_counters *add = NULL;
	struct table *t;
	struct netns *ns;
	uint64_t len;
	uint32_t i;
	int err;

	/* xt_copy_counters() */
	if (req->len <= sizeof(info))
		return -EINVAL;
	len = req->len - sizeof(info);
	if (pvm_read(req->pid, req->addr, &info, sizeof(info)))
		return -EFAULT;
	info.name[sizeof(info.name) - 1] = '\0';
	if ((uint64_t)info.num_counters * sizeof(struct xt_counters) != len)
		return -EINVAL;
	add = malloc(len);
	if (!add)
		return -ENOMEM;
	if (pvm_read(req->pid, req->addr + sizeof(info), add, len)) {
		err = -EFAULT;
		goto out_free;
	}

	err = find_table(ctx, req, info.name, &ns);
	if (err)
		goto out_free;
	t = ns->table;
	if (t->num_entries != info.num_counters) {
		err = -EINVAL;
		goto out_free;
	}
	/* In blob order, as ADD_COUNTER(counter, bcnt, pcnt) does. */
	for (i = 0; i < t->num_entries; i++) {
		t->rules[i].counters.pcnt += add[i].pcnt;
		t->rules[i].counters.bcnt += add[i].bcnt;
	}
	state_save(ctx, ns);

out_free:
	free(add);
	return err;
}

int sockopt_handle(struct context *ctx, const struct mbox_request *req)
{
	const struct family *fam = family_get(req->family);

	if (!fam)
		return -EINVAL;
	if (req->is_set == BPFILTER_MBOX_SET) {
		switch (req->cmd) {
		case BPFILTER_IPT_SO_SET_REPLACE:
			return do_replace(ctx, req, fam);
		case BPFILTER_IPT_SO_SET_ADD_COUNTERS:
			return do_add_counters(ctx, req);
		}
		return -EINVAL;
	}
	if (req->is_set == BPFILTER_MBOX_GET) {
		switch (req->cmd) {
		case BPFILTER_IPT_SO_GET_INFO:
			return get_info(ctx, req);
		case BPFILTER_IPT_SO_GET_ENTRIES:
			return get_entries(ctx, req);
		case BPFILTER_IPT_SO_GET_REVISION_MATCH:
		case BPFILTER_IPT_SO_GET_REVISION_TARGET:
			return get_revision(req, fam->nfproto);
		}
		return -EINVAL;
	}
	return -EINVAL;
}
