// SPDX-License-Identifier: GPL-2.0
/*
 * -m set, revisions 0 to 4 (net/netfilter/xt_set.c): membership in an
 * ipset set, with --return-nomatch and the counter options. The sets are
 * ipset's, which only the kernel can search, so xt_set runs it all (hold.h):
 * its checkentry takes a reference on the set by index (ENOENT without it)
 * and checks its dimensions, its match calls ip_set_test().
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_set.h>

#include "hold.h"
#include "match.h"

/* Revision 0 is xt_set's IPv4 one alone; later ones are registered for both families. */
#define SET_OPS(rev, info) {						\
	.id = { .name = "set", .revision = rev,				\
		.families = EXT_IPV4 | (rev ? EXT_IPV6 : 0) },		\
	.size = XT_ALIGN(sizeof(struct info)),				\
	.usersize = sizeof(struct info),				\
	.kernel = true,							\
	.gen = hold_gen,						\
}

const struct match_ops set0_match_ops = SET_OPS(0, xt_set_info_match_v0);
const struct match_ops set1_match_ops = SET_OPS(1, xt_set_info_match_v1);
/* Revision 2 is revision 1's payload with --return-nomatch allowed. */
const struct match_ops set2_match_ops = SET_OPS(2, xt_set_info_match_v1);
const struct match_ops set3_match_ops = SET_OPS(3, xt_set_info_match_v3);
const struct match_ops set4_match_ops = SET_OPS(4, xt_set_info_match_v4);
