// SPDX-License-Identifier: GPL-2.0
/* -m tcp, revision 0 (net/netfilter/xt_tcpudp.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int tcp_check(struct context *ctx, const struct ipt_ip *ip, const void *data)
{
	const struct xt_tcp *tcp = data;

	(void)ip;
	if (tcp->invflags & ~XT_TCP_INV_MASK) {
		bf_dbg(ctx, "match 'tcp': unknown invflags 0x%x", tcp->invflags);
		return -EINVAL;
	}
	return 0;
}

const struct match_ops tcp_match_ops = {
	.id = { .name = "tcp", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_tcp)),
	.usersize = sizeof(struct xt_tcp),
	.proto = IPPROTO_TCP,
	.check = tcp_check,
	.gen = codegen_tcp_gen,
};
