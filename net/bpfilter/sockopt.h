/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The six iptables-legacy sockopts, with the length checks, errno values
 * and write-backs of net/ipv4/netfilter/ip_tables.c.
 */
#ifndef NET_BPFILTER_SOCKOPT_H
#define NET_BPFILTER_SOCKOPT_H

#include <linux/bpfilter.h>

struct context;

/*
 * Serve one GET or SET request (caller memory via process_vm_*): 0 or the -errno ip_tables
 * would return.
 */
int sockopt_handle(struct context *ctx, const struct mbox_request *req);

#endif /* NET_BPFILTER_SOCKOPT_H */
