// SPDX-License-Identifier: GPL-2.0
/* -m icmp, revision 0 (built into net/ipv4/netfilter/ip_tables.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int icmp_check(struct context *ctx, const struct ipt_ip *ip, const void *data)
{
	const struct ipt_icmp *icmp = data;

	(void)ip;
	if (icmp->invflags & ~IPT_ICMP_INV) {
		bf_dbg(ctx, "match 'icmp': unknown invflags 0x%x", icmp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops icmp_match_ops = {
	.id = { .name = "icmp", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct ipt_icmp)),
	.usersize = sizeof(struct ipt_icmp),
	.proto = IPPROTO_ICMP,
	.check = icmp_check,
	.gen = codegen_icmp_gen,
};
