// SPDX-License-Identifier: GPL-2.0
/*
 * -j NETMAP, revision 0 (net/netfilter/xt_NETMAP.c), of the nat table.
 * The binding is the kernel's: bpfilter_kfunc.ko holds the target's
 * checkentry and the program calls its target, which maps the address
 * prefix for prefix through nf_nat_setup_info().
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>

#include "hold.h"
#include "target.h"

/* IPv4's revision 0 takes one nf_nat_ipv4_range, IPv6's (a target of its own) an nf_nat_range. */
const struct target_ops netmap_target_ops = {
	.id = { .name = "NETMAP", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct nf_nat_ipv4_multi_range_compat)),
	.usersize = sizeof(struct nf_nat_ipv4_multi_range_compat),
	.table = "nat",
	.hooks = 1u << NF_INET_PRE_ROUTING | 1u << NF_INET_POST_ROUTING |
		 1u << NF_INET_LOCAL_OUT | 1u << NF_INET_LOCAL_IN,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops netmap6_target_ops = {
	.id = { .name = "NETMAP", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct nf_nat_range)),
	.usersize = sizeof(struct nf_nat_range),
	.table = "nat",
	.hooks = 1u << NF_INET_PRE_ROUTING | 1u << NF_INET_POST_ROUTING |
		 1u << NF_INET_LOCAL_OUT | 1u << NF_INET_LOCAL_IN,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};
