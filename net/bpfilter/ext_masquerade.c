// SPDX-License-Identifier: GPL-2.0
/*
 * -j MASQUERADE, revision 0 (net/netfilter/xt_MASQUERADE.c), of the IPv4
 * nat table. The binding is the kernel's: bpfilter_kfunc.ko holds the
 * target's checkentry (which also registers the device and address
 * notifiers that forget such bindings) and the program calls its target,
 * nf_nat_masquerade_ipv4(): the output device's source address.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>

#include "hold.h"
#include "target.h"

/* IPv4's revision 0 takes one nf_nat_ipv4_range; IPv6's is a target of its own. */
const struct target_ops masquerade_target_ops = {
	.id = { .name = "MASQUERADE", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct nf_nat_ipv4_multi_range_compat)),
	.usersize = sizeof(struct nf_nat_ipv4_multi_range_compat),
	.table = "nat",
	.hooks = 1u << NF_INET_POST_ROUTING,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};
