// SPDX-License-Identifier: GPL-2.0
/*
 * -m owner, revision 1 (net/netfilter/xt_owner.c). The socket's file
 * credentials are read under sk_callback_lock and the rule's ids mapped in
 * the namespace's user namespace: BPF can do neither safely. So xt_owner
 * runs it all (hold.h): its checkentry, in the caller's context as
 * translate_table() runs it (the caller's user namespace must own the
 * network namespace, the ids must map there), and its match.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_owner.h>

#include "context.h"
#include "hold.h"
#include "match.h"

/* owner_check()'s first test, repeated so that errors come in rule order. */
static int owner_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_owner_match_info *info = data;

	(void)ctx;
	(void)r;
	return info->match & ~XT_OWNER_MASK ? -EINVAL : 0;
}

const struct match_ops owner_match_ops = {
	.id = { .name = "owner", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_owner_match_info)),
	.usersize = sizeof(struct xt_owner_match_info),
	.hooks = (1u << NF_INET_LOCAL_OUT) | (1u << NF_INET_POST_ROUTING),
	.check = owner_check,
	.kernel = true,
	.gen = hold_gen,
};
