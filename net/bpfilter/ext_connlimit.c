// SPDX-License-Identifier: GPL-2.0
/*
 * -m connlimit, revision 1 (net/netfilter/xt_connlimit.c): the number of
 * conntrack connections per source or destination group. The counting is
 * nf_conncount's, over conntrack entries only the kernel sees, so
 * xt_connlimit runs it all (hold.h): its checkentry turns conntrack on and
 * makes the count tree, its match counts. The kernel pointer at the end of
 * the payload is the module's copy's, never shown to userspace.
 */
#define _GNU_SOURCE

#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_connlimit.h>

#include "hold.h"
#include "match.h"

const struct match_ops connlimit_match_ops = {
	.id = { .name = "connlimit", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_connlimit_info)),
	.usersize = offsetof(struct xt_connlimit_info, data),
	.kernel = true,
	.gen = hold_gen,
};
