/* SPDX-License-Identifier: GPL-2.0 */
/* Does the caller's network namespace hold any socket (NETLINK_SOCK_DIAG)? */
#ifndef BPFILTER_SOCKDIAG_H
#define BPFILTER_SOCKDIAG_H

/* The first socket found (what the log says about a namespace kept). */
struct sockdiag_hit {
	const char *kind;	/* "tcp", "unix", "netlink", "unbound", ... */
	unsigned int protocol;	/* netlink: its protocol */
	unsigned int port;	/* netlink: its port id */
	unsigned long ino;	/* netlink: its inode */
};

/*
 * 1 if the calling thread's network namespace holds a socket other than
 * the one used to ask (TCP in any state, UDP, UDP-Lite, raw and ping sockets
 * of IPv4 and IPv6, unix, packet and user netlink sockets, listed or its
 * sockstat count), 0 if none, -errno if that cannot be known. @hit says
 * what was found, or what could not be counted.
 */
int sockdiag_netns_busy(struct sockdiag_hit *hit);

#endif
