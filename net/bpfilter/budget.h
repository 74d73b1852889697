/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The budget of an unprivileged user's namespaces (bpfilter.h,
 * BPFILTER_REQ_LIMITED): how many namespaces with a table, rules and table
 * bytes the helper keeps for one owner. ip_tables charges its tables to the
 * caller's memory cgroup; the helper's memory and BPF maps are charged to
 * the helper, so without a bound one user could make it hold the machine.
 */
#ifndef NET_BPFILTER_BUDGET_H
#define NET_BPFILTER_BUDGET_H

#include <stdint.h>

#include "../../include/uapi/linux/bpfilter.h"

struct context;
struct netns;

/* May the request's owner have one more namespace with a table? 0 or -ENOMEM. */
int budget_check_netns(struct context *ctx, const struct mbox_request *req);
/*
 * Would @ns with a table of @entries rules and @bytes bytes instead of its
 * current one keep the request's owner within its budget? 0 or -ENOMEM.
 */
int budget_check_table(struct context *ctx, const struct mbox_request *req,
		       const struct netns *ns, uint32_t entries, uint32_t bytes);
/* Record whose budget @ns is on, from the request that reached it. */
void budget_assign(struct netns *ns, const struct mbox_request *req);

#endif /* NET_BPFILTER_BUDGET_H */
