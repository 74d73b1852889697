// SPDX-License-Identifier: GPL-2.0
/*
 * -j DNAT and -j SNAT, revisions 0 to 2 (net/netfilter/xt_nat.c), of the nat
 * table. The binding is the kernel's: bpfilter_kfunc.ko holds xt_nat's
 * checkentry (which turns conntrack on) and the program calls its target,
 * nf_nat_setup_info() with the rule's range, through bpfilter_xt_target().
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>

#include "hold.h"
#include "target.h"

#define SNAT_HOOKS (1u << NF_INET_POST_ROUTING | 1u << NF_INET_LOCAL_IN)
#define DNAT_HOOKS (1u << NF_INET_PRE_ROUTING | 1u << NF_INET_LOCAL_OUT)

/* Revision 0 is IPv4's own (one nf_nat_ipv4_range); 1 and 2 are NFPROTO_UNSPEC. */
const struct target_ops snat0_target_ops = {
	.id = { .name = "SNAT", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct nf_nat_ipv4_multi_range_compat)),
	.usersize = sizeof(struct nf_nat_ipv4_multi_range_compat),
	.table = "nat",
	.hooks = SNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops dnat0_target_ops = {
	.id = { .name = "DNAT", .revision = 0, .families = EXT_IPV4 },
	.size = XT_ALIGN(sizeof(struct nf_nat_ipv4_multi_range_compat)),
	.usersize = sizeof(struct nf_nat_ipv4_multi_range_compat),
	.table = "nat",
	.hooks = DNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops snat1_target_ops = {
	.id = { .name = "SNAT", .revision = 1, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct nf_nat_range)),
	.usersize = sizeof(struct nf_nat_range),
	.table = "nat",
	.hooks = SNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops dnat1_target_ops = {
	.id = { .name = "DNAT", .revision = 1, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct nf_nat_range)),
	.usersize = sizeof(struct nf_nat_range),
	.table = "nat",
	.hooks = DNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops snat2_target_ops = {
	.id = { .name = "SNAT", .revision = 2, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct nf_nat_range2)),
	.usersize = sizeof(struct nf_nat_range2),
	.table = "nat",
	.hooks = SNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};

const struct target_ops dnat2_target_ops = {
	.id = { .name = "DNAT", .revision = 2, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct nf_nat_range2)),
	.usersize = sizeof(struct nf_nat_range2),
	.table = "nat",
	.hooks = DNAT_HOOKS,
	.gen = hold_target_gen,
	.continues = true,
	.kernel = true,
};
