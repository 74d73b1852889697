// SPDX-License-Identifier: GPL-2.0
/*
 * -m cgroup, revisions 0 to 2 (net/netfilter/xt_cgroup.c): the v1 net_cls
 * classid or the v2 path of the socket's cgroup. checkentry resolves a
 * path in the caller's cgroup namespace and holds the cgroup; the match
 * walks the cgroup hierarchy. Both are the kernel's, so xt_cgroup runs them
 * (hold.h). The kernel pointer at the end of revisions 1 and 2 is the
 * module's copy's, never shown to userspace.
 */
#define _GNU_SOURCE

#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_cgroup.h>

#include "hold.h"
#include "match.h"

#define CGROUP_HOOKS ((1u << NF_INET_LOCAL_OUT) | (1u << NF_INET_POST_ROUTING) | \
		      (1u << NF_INET_LOCAL_IN))

#define CGROUP_OPS(rev, info, user) {						\
	.id = { .name = "cgroup", .revision = rev, .families = EXT_UNSPEC,	\
		.any_family = true },						\
	.size = XT_ALIGN(sizeof(struct info)),					\
	.usersize = user,							\
	.hooks = CGROUP_HOOKS,							\
	.kernel = true,								\
	.gen = hold_gen,							\
}

const struct match_ops cgroup0_match_ops =
	CGROUP_OPS(0, xt_cgroup_info_v0, sizeof(struct xt_cgroup_info_v0));
const struct match_ops cgroup1_match_ops =
	CGROUP_OPS(1, xt_cgroup_info_v1, offsetof(struct xt_cgroup_info_v1, priv));
const struct match_ops cgroup2_match_ops =
	CGROUP_OPS(2, xt_cgroup_info_v2, offsetof(struct xt_cgroup_info_v2, priv));
