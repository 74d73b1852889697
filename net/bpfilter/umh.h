/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lifecycle of the embedded usermode helper and the request channel to it.
 *
 * The helper runs from a private tmpfs, reads mbox_requests on fd 0 and
 * writes mbox_replies on fd 1 (both ends of one module-owned file), and keeps
 * its tables in BPFILTER_STATE_FD (another private tmpfs) and its pinned BPF
 * objects in BPFILTER_BPFFS_FD (a private bpffs). Both outlive the helper, so
 * a helper that crashes or is killed is restarted without losing the rules
 * in force; both die with the module.
 */
#ifndef _NET_BPFILTER_UMH_H
#define _NET_BPFILTER_UMH_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/limits.h>
#include <linux/types.h>

struct file;
struct vfsmount;
struct mbox_request;
struct mbox_reply;
struct bpfilter_chan;

struct bpfilter_umh {
	/* Serialises requests, helper starts and stops. Held while waiting for
	 * a reply: the helper answers one request at a time anyway.
	 */
	struct mutex lock;
	struct bpfilter_chan *chan;	/* the current helper, or NULL */
	struct vfsmount *exe_mnt;	/* tmpfs holding only the helper binary */
	struct vfsmount *state_mnt;	/* tmpfs given to the helper as fd 4 */
	struct vfsmount *bpffs_mnt;	/* bpffs given as fd 5, NULL if none */
	struct file *exe;		/* the helper binary, opened read-only */
	struct file *exe_dir;		/* its directory, the exec path */
	struct file *state_dir;
	struct file *bpffs_dir;
	struct file *log;		/* the helper's fd 2, lines go to dmesg */
	const struct cred *cred;	/* the kernel's: reads of the state files */
	const void *blob;
	size_t blob_len;
	unsigned int timeout_ms;	/* bound on one request, module param */
	atomic_t pid;			/* the helper's pid, 0 when none */
	char *argv[2];			/* the helper's argv and envp */
	char *envp[6];
	const char *fault_env;		/* testing: "BPFILTER_FAULT_FILE=...", or NULL */
	unsigned int starts;
};

/* The helper binary, from bpfilter_umh_blob.S. */
extern const char bpfilter_umh_start[];
extern const char bpfilter_umh_end[];

/* Mount the private filesystems, write the helper, start it and ping it. */
int bpfilter_umh_init(struct bpfilter_umh *umh, const void *blob, size_t len);

/* Stop and reap the helper, then release every file and mount. */
void bpfilter_umh_exit(struct bpfilter_umh *umh);

/* Read up to @len bytes of file @name of the helper's state directory: bytes read or -errno. */
ssize_t bpfilter_umh_read_state(struct bpfilter_umh *umh, const char *name, void *buf,
				size_t len);

/* reply->flags when no reply came back: the helper's state is not known. */
#define BPFILTER_UMH_NO_REPLY	U32_MAX

/* Send one request and wait for its reply; (re)starts the helper if needed.
 * Returns the helper's status (0 or -errno), -EINTR if a signal interrupted
 * the wait, -ETIMEDOUT if the helper did not answer in time (it is then
 * killed and restarted), -ECONNRESET if the helper died while handling it.
 * *reply (if not NULL) gets the whole reply.
 */
int bpfilter_umh_request(struct bpfilter_umh *umh, struct mbox_request *req,
			 struct mbox_reply *reply);

#endif /* _NET_BPFILTER_UMH_H */
