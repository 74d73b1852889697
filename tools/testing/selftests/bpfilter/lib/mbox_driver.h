/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host-side mbox driver: starts the bpfilter usermode helper the way
 * bpfilter.ko does (one bidirectional channel installed as fds 0 and 1, an
 * optional state directory on BPFILTER_STATE_FD) and exchanges
 * struct mbox_request / struct mbox_reply with it. Requests point into the
 * caller's own memory, so the helper's process_vm_readv()/writev() path is
 * the one the module uses.
 */
#ifndef BPFILTER_TEST_MBOX_DRIVER_H
#define BPFILTER_TEST_MBOX_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/bpfilter.h>

/* Default bound on one request/reply round trip, in milliseconds. */
#define MBOX_DRIVER_TIMEOUT_MS	10000

struct mbox_driver {
	pid_t pid;		/* the helper, or 0 when not running */
	int fd;			/* our end of the channel, -1 when closed */
	int timeout_ms;		/* bound on each send and each reply */
};

/* Options for mbox_driver_start(); zero-initialise, then set what you need. */
struct mbox_driver_opts {
	const char *helper;	/* helper binary; NULL = mbox_driver_helper_path() */
	const char *state_dir;	/* opened as BPFILTER_STATE_FD; NULL = none */
	const char *bpffs_dir;	/* opened as BPFILTER_BPFFS_FD; NULL = none */
	char *const *argv;	/* full argv for the helper; NULL = {helper, NULL} */
	int stderr_fd;		/* helper's fd 2; 0 = inherit ours */
	int timeout_ms;		/* 0 = MBOX_DRIVER_TIMEOUT_MS */
	/*
	 * bpfilter-hostd -C: requests say that conntrack is held in every
	 * namespace (BPFILTER_REQ_CT_CAPABLE | _HELD), as bpfilter.ko's do once
	 * it holds it. The test must then keep conntrack on in its namespaces
	 * itself (an nftables ct rule does): nothing here turns it on.
	 */
	bool ct_held;
};

/*
 * Resolve the helper binary into buf: $BPFILTER_HELPER if set, else
 * net/bpfilter/bpfilter_umh in the source tree that holds the running
 * executable. Returns 0 or -errno (-ENOENT when it cannot be found).
 */
int mbox_driver_helper_path(char *buf, size_t len);

/*
 * Find the source tree root (the directory holding
 * include/uapi/linux/bpfilter.h) above the running executable or the
 * current directory, into buf. Returns 0 or -ENOENT.
 */
int mbox_driver_tree_root(char *buf, size_t len);

/* Start a helper; on success d describes it. Returns 0 or -errno. */
int mbox_driver_start(struct mbox_driver *d, const struct mbox_driver_opts *opts);

/*
 * Send one request and wait (bounded) for its reply. Returns 0 with
 * *reply filled, -ETIMEDOUT when the helper does not answer in time,
 * -EPIPE when it died or closed the channel, or another -errno.
 */
int mbox_driver_call(struct mbox_driver *d, const struct mbox_request *req,
		     struct mbox_reply *reply);

/*
 * Issue one iptables sockopt through the helper as the module would for a
 * caller in this process: addr/len in our own memory, pid = getpid().
 * netns_ino identifies the namespace (see mbox_driver_netns_ino()).
 * On success *status is the helper's answer (0 or -errno) and 0 is
 * returned; a transport failure returns -errno and leaves *status alone.
 * This is an ip_tables (NFPROTO_IPV4) call.
 */
int mbox_driver_sockopt(struct mbox_driver *d, bool is_set, int cmd, void *addr,
			uint32_t len, uint32_t netns_ino, int *status);

/*
 * The same for a family: NFPROTO_IPV4, or NFPROTO_IPV6 for an ip6_tables
 * call. cmd is ip_tables' number in both (BPFILTER_IPT_SO_*: an ip6_tables
 * revision query, optname 68 or 69, is cmd 66 or 67; lib/ipt_sockopt.h).
 */
int mbox_driver_sockopt_family(struct mbox_driver *d, uint32_t family,
			       bool is_set, int cmd, void *addr, uint32_t len,
			       uint32_t netns_ino, int *status);

/* Send a BPFILTER_MBOX_CONTROL request; same return convention as above. */
int mbox_driver_control(struct mbox_driver *d, int cmd, uint32_t netns_ino,
			int *status);

/* Inode number of this process's network namespace, or 0 on error. */
uint32_t mbox_driver_netns_ino(void);

/* True if the helper process has exited (it is reaped then). */
bool mbox_driver_dead(struct mbox_driver *d);

/*
 * Stop the helper as the module does on unload: close the channel (EOF on
 * fd 0) and wait up to timeout for it to exit, then SIGKILL. *wstatus (may
 * be NULL) gets its wait status. Returns 0, or -ETIMEDOUT if it had to be
 * killed.
 */
int mbox_driver_stop(struct mbox_driver *d, int *wstatus);

/* Kill the helper with SIGKILL and reap it; safe on a stopped driver. */
void mbox_driver_kill(struct mbox_driver *d);

#endif /* BPFILTER_TEST_MBOX_DRIVER_H */
