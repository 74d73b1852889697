// SPDX-License-Identifier: GPL-2.0
/*
 * -m hashlimit, revisions 1 to 3 (net/netfilter/xt_hashlimit.c): token
 * buckets per source/destination address and port, in tables named by
 * --hashlimit-name and shown in /proc/net/ipt_hashlimit/NAME. The tables,
 * their garbage collection and their /proc files are xt_hashlimit's own
 * (hold.h): its checkentry creates or shares the table and its match
 * spends the bucket's credit, as with ip_tables. The kernel pointer at the
 * end of the payload is the module's copy's, never shown to userspace.
 */
#define _GNU_SOURCE

#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_hashlimit.h>

#include "hold.h"
#include "match.h"

#define HASHLIMIT_OPS(rev, info) {						\
	.id = { .name = "hashlimit", .revision = rev,				\
		.families = EXT_IPV4 | EXT_IPV6 },					\
	.size = XT_ALIGN(sizeof(struct info)),					\
	.usersize = offsetof(struct info, hinfo),				\
	.kernel = true,								\
	.gen = hold_gen,							\
}

const struct match_ops hashlimit1_match_ops = HASHLIMIT_OPS(1, xt_hashlimit_mtinfo1);
const struct match_ops hashlimit2_match_ops = HASHLIMIT_OPS(2, xt_hashlimit_mtinfo2);
const struct match_ops hashlimit3_match_ops = HASHLIMIT_OPS(3, xt_hashlimit_mtinfo3);
