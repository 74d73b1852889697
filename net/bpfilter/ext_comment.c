// SPDX-License-Identifier: GPL-2.0
/* -m comment, revision 0 (net/netfilter/xt_comment.c). */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_comment.h>

#include "codegen.h"
#include "match.h"

/* comment_mt() always matches: the comment is only there to be saved back. */
static int comment_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	(void)rule;
	(void)m;
	return cg->err;
}

const struct match_ops comment_match_ops = {
	.id = { .name = "comment", .revision = 0, .families = EXT_UNSPEC,
		.any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_comment_info)),
	.usersize = sizeof(struct xt_comment_info),
	.gen = comment_gen,
	.always = true,
};
