// SPDX-License-Identifier: GPL-2.0
/*
 * -m physdev, revision 0 (net/netfilter/xt_physdev.c): the bridge ports of
 * bridged traffic (br_netfilter), --physdev-in/-out with wildcards,
 * --physdev-is-in/-out/-bridged. The ports live in the skb's bridge
 * extension, which only the kernel reads safely, so xt_physdev runs it all
 * (hold.h): its checkentry (the hook rules of --physdev-out, loading
 * br_netfilter) and its match.
 */
#define _GNU_SOURCE

#include <linux/if.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_physdev.h>

#include "hold.h"
#include "match.h"

const struct match_ops physdev_match_ops = {
	.id = { .name = "physdev", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_physdev_info)),
	.usersize = sizeof(struct xt_physdev_info),
	.kernel = true,
	.gen = hold_gen,
};
