/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sockopts bpfilter serves, per family, and how they map onto a
 * struct mbox_request (the shim, kernel-proxy and the ABI tests share this).
 *
 *   ip_tables  (NFPROTO_IPV4): level SOL_IP on AF_INET sockets, set 64..65
 *              (IPT_SO_SET_*), get 64..67 (IPT_SO_GET_*);
 *   ip6_tables (NFPROTO_IPV6): level SOL_IPV6 on AF_INET6 sockets, set
 *              64..65, get 64..65 and the revisions at 68..69
 *              (BPFILTER_IP6T_SO_GET_REVISION_*): at SOL_IPV6, 66 and 67
 *              are IPV6_RECVTCLASS and IPV6_TCLASS, which the IPv6 stack
 *              answers itself before netfilter is asked.
 *
 * A request carries the family and ip_tables' numbers for both
 * (BPFILTER_IPT_SO_*): an ip6_tables revision query is cmd 66 or 67 with
 * family NFPROTO_IPV6.
 */
#ifndef BPFILTER_TEST_IPT_SOCKOPT_H
#define BPFILTER_TEST_IPT_SOCKOPT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter.h>

#include <linux/bpfilter.h>

/* The socket level of a family's sockopts, or -1. */
static inline int ipt_sockopt_level(uint32_t family)
{
	if (family == 0 || family == NFPROTO_IPV4)
		return SOL_IP;
	return family == NFPROTO_IPV6 ? SOL_IPV6 : -1;
}

/* The address family of the sockets a family's sockopts are made on, or -1. */
static inline int ipt_sockopt_af(uint32_t family)
{
	if (family == 0 || family == NFPROTO_IPV4)
		return AF_INET;
	return family == NFPROTO_IPV6 ? AF_INET6 : -1;
}

/*
 * The request cmd (BPFILTER_IPT_SO_*) of a sockopt at @level, or -1 when
 * bpfilter does not serve it; *family gets the request's NFPROTO_*. The
 * caller still checks that the socket's domain is ipt_sockopt_af(*family).
 */
static inline int ipt_sockopt_cmd(int level, bool is_set, int optname,
				  uint32_t *family)
{
	if (level == SOL_IP) {
		*family = NFPROTO_IPV4;
		if (optname < BPFILTER_IPT_SO_SET_REPLACE ||
		    optname >= (is_set ? BPFILTER_IPT_SET_MAX : BPFILTER_IPT_GET_MAX))
			return -1;
		return optname;
	}
	if (level != SOL_IPV6)
		return -1;
	*family = NFPROTO_IPV6;
	if (optname == BPFILTER_IPT_SO_SET_REPLACE ||
	    optname == BPFILTER_IPT_SO_SET_ADD_COUNTERS)
		return optname;	/* also GET_INFO and GET_ENTRIES */
	if (is_set)
		return -1;
	if (optname == BPFILTER_IP6T_SO_GET_REVISION_MATCH)
		return BPFILTER_IPT_SO_GET_REVISION_MATCH;
	if (optname == BPFILTER_IP6T_SO_GET_REVISION_TARGET)
		return BPFILTER_IPT_SO_GET_REVISION_TARGET;
	return -1;
}

/* The optname of request cmd @cmd for @family (the inverse of the above). */
static inline int ipt_sockopt_optname(uint32_t family, bool is_set, int cmd)
{
	if (family != NFPROTO_IPV6 || is_set)
		return cmd;
	if (cmd == BPFILTER_IPT_SO_GET_REVISION_MATCH)
		return BPFILTER_IP6T_SO_GET_REVISION_MATCH;
	if (cmd == BPFILTER_IPT_SO_GET_REVISION_TARGET)
		return BPFILTER_IP6T_SO_GET_REVISION_TARGET;
	return cmd;
}

#endif /* BPFILTER_TEST_IPT_SOCKOPT_H */
