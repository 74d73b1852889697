/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfilter-hostd: a host daemon that owns one usermode helper (through
 * mbox_driver) and forwards struct mbox_request records received on a unix
 * SOCK_SEQPACKET socket to it, one at a time, returning struct mbox_reply.
 * Together with the LD_PRELOAD shim (shim/bpfilter_shim.so) it lets stock
 * iptables-legacy talk to the helper on a host without the module.
 *
 * Wire format on the socket: the client sends one struct mbox_request per
 * packet (addr/len in the client's memory, pid = the client's pid,
 * netns_ino = its socket's namespace, family = NFPROTO_IPV4 for an
 * ip_tables call or NFPROTO_IPV6 for an ip6_tables one, cmd ip_tables'
 * number in both: lib/ipt_sockopt.h) and reads one struct mbox_reply.
 */
#ifndef BPFILTER_TEST_HOSTD_H
#define BPFILTER_TEST_HOSTD_H

#include <sys/types.h>

#include "mbox_driver.h"

/* Environment variable the shim reads for the daemon's socket path. */
#define HOSTD_ENV_SOCK		"BPFILTER_HOSTD"

struct hostd {
	pid_t pid;		/* the daemon process, 0 when not running */
	char sock[108];		/* its socket path */
};

/*
 * Serve on sock_path until SIGTERM/SIGINT, restarting the helper (opts) if
 * it dies. If ready_fd >= 0, one byte is written to it (then it is closed)
 * once the socket accepts connections. Returns 0 on a clean stop or -errno.
 */
int hostd_serve(const char *sock_path, const struct mbox_driver_opts *opts,
		int ready_fd);

/*
 * Fork a daemon serving on sock_path and wait (bounded) until it is ready.
 * Returns 0 with h filled, or -errno.
 */
int hostd_start(struct hostd *h, const char *sock_path,
		const struct mbox_driver_opts *opts);

/* SIGTERM the daemon, wait (bounded, then SIGKILL), unlink its socket. */
int hostd_stop(struct hostd *h);

/*
 * As a client of the daemon on sock_path: send one request (e.g. a
 * BPFILTER_MBOX_CONTROL NETNS_EXIT, as the module sends when a namespace
 * dies) and return its status in *status. Returns 0 or -errno (transport).
 */
int hostd_request(const char *sock_path, const struct mbox_request *req,
		  int *status);

/*
 * Resolve the shim library path into buf: $BPFILTER_SHIM if set, else
 * build/shim/bpfilter_shim.so in the source tree. Returns 0 or -errno.
 */
int hostd_shim_path(char *buf, size_t len);

#endif /* BPFILTER_TEST_HOSTD_H */
