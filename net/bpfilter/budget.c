// SPDX-License-Identifier: GPL-2.0
/*
 * Budgets of unprivileged users' namespaces (budget.h). Usage is summed over
 * the namespaces the helper knows, each on the budget of the owner named by
 * the last request that reached it: there is no counter to drift. The owner
 * is saved with the table (state.c), so a restarted helper, which reloads
 * every saved namespace, counts them on the same budgets at once.
 */
#include <errno.h>
#include <stdbool.h>

#include "budget.h"
#include "context.h"
#include "table.h"

struct usage {
	uint32_t netns;
	uint64_t entries;
	uint64_t bytes;
};

/* Is @ns the first of its namespace's tables in the list (count the namespace once)? */
static bool first_of_ino(const struct context *ctx, const struct netns *ns)
{
	const struct netns *o;

	for (o = ctx->netns; o != ns; o = o->next)
		if (o->ino == ns->ino && o->limited && o->owner_uid == ns->owner_uid)
			return false;
	return true;
}

/* What @req's owner holds, leaving out the tables @skip (NULL: none). */
static struct usage owner_usage(const struct context *ctx, const struct mbox_request *req,
				const struct netns *skip)
{
	struct usage u = {};
	const struct netns *ns;

	for (ns = ctx->netns; ns; ns = ns->next) {
		if (!ns->limited || ns->owner_uid != req->owner_uid)
			continue;
		if (first_of_ino(ctx, ns))
			u.netns++;
		if (ns == skip)
			continue;
		u.entries += ns->table->num_entries;
		u.bytes += ns->table->size;
	}
	return u;
}

int budget_check_netns(struct context *ctx, const struct mbox_request *req)
{
	struct usage u;

	if (!(req->flags & BPFILTER_REQ_LIMITED) || !req->max_netns)
		return 0;
	u = owner_usage(ctx, req, NULL);
	if (u.netns < req->max_netns)
		return 0;
	bf_warn(ctx, "netns %u: user %u has tables in %u namespaces: at the limit "
		"(userns_max_netns)", req->netns_ino, req->owner_uid, u.netns);
	return -ENOMEM;
}

int budget_check_table(struct context *ctx, const struct mbox_request *req,
		       const struct netns *ns, uint32_t entries, uint32_t bytes)
{
	struct usage u;

	if (!(req->flags & BPFILTER_REQ_LIMITED))
		return 0;
	u = owner_usage(ctx, req, ns);
	u.entries += entries;
	u.bytes += bytes;
	if (req->max_entries && u.entries > req->max_entries) {
		bf_warn(ctx, "netns %u: user %u's namespaces would hold %llu rules, over the "
			"limit of %u (userns_max_entries)", ns->ino, req->owner_uid,
			(unsigned long long)u.entries, req->max_entries);
		return -ENOMEM;
	}
	if (req->max_bytes && u.bytes > req->max_bytes) {
		bf_warn(ctx, "netns %u: user %u's namespaces would hold %llu bytes of tables, "
			"over the limit of %u (userns_max_bytes)", ns->ino, req->owner_uid,
			(unsigned long long)u.bytes, req->max_bytes);
		return -ENOMEM;
	}
	return 0;
}

void budget_assign(struct netns *ns, const struct mbox_request *req)
{
	ns->limited = req->flags & BPFILTER_REQ_LIMITED;
	ns->owner_uid = ns->limited ? req->owner_uid : 0;
}
