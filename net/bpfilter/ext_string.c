// SPDX-License-Identifier: GPL-2.0
/*
 * -m string, revision 1 (net/netfilter/xt_string.c): a pattern searched
 * with the kernel's textsearch (--algo bm or kmp) between --from and --to
 * over the whole packet, non-linear data included, where each algorithm's
 * own behaviour across fragments counts. Only the kernel's textsearch
 * gives that answer, so xt_string runs it all (hold.h): its checkentry
 * prepares the search, its match runs skb_find_text(). The kernel pointer
 * at the end of the payload is the module's copy's, never shown to
 * userspace.
 */
#define _GNU_SOURCE

#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_string.h>

#include "hold.h"
#include "match.h"

const struct match_ops string_match_ops = {
	.id = { .name = "string", .revision = 1, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_string_info)),
	.usersize = offsetof(struct xt_string_info, config),
	.kernel = true,
	.gen = hold_gen,
};
