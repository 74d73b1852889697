// SPDX-License-Identifier: GPL-2.0
/*
 * -j MASQUERADE, revision 0 (net/netfilter/xt_MASQUERADE.c), of the nat
 * table. The binding is the kernel's: bpfilter_kfunc.ko holds the
 * target's checkentry (which also registers the device and address
 * notifiers that forget such bindings) and the program calls its target,
 * nf_nat_masquerade_ipv4() or _ipv6(): the output device's source address.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>

#include "hold.h"
#include "target.h"

/* IPv4's revision 0 takes one nf_nat_ipv4_range, IPv6's (a target of its own) an nf_nat_range. */
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

const struct target_ops masquerade6_target_ops = {
	.id = { .name = "MASQUERADE", .revision = 0, .families = EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct nf_nat_range)),
	.usersize = sizeof(struct nf_nat_range),
	.table = "nat",
	.hooks = 1u << NF_INET_POST_ROUTING,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};
