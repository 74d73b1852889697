// SPDX-License-Identifier: GPL-2.0
/* Host-side mbox driver for the bpfilter usermode helper. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter.h>

#include "mbox_driver.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int dir_has_uapi(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/include/uapi/linux/bpfilter.h", dir) >=
	    (int)sizeof(p))
		return 0;
	return access(p, R_OK) == 0;
}

/* Walk up from start until a directory holds the uapi header. */
static int find_root_from(const char *start, char *buf, size_t len)
{
	char p[PATH_MAX];
	char *slash;
	int depth;

	if (!realpath(start, p))
		return -ENOENT;
	/* Bounded: a path has far fewer than 64 components here. */
	for (depth = 0; depth < 64; depth++) {
		if (dir_has_uapi(p)) {
			if (strlen(p) + 1 > len)
				return -ENAMETOOLONG;
			strcpy(buf, p);
			return 0;
		}
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	return -ENOENT;
}

int mbox_driver_tree_root(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (find_root_from(exe, buf, len) == 0)
			return 0;
	}
	return find_root_from(".", buf, len);
}

int mbox_driver_helper_path(char *buf, size_t len)
{
	const char *env = getenv("BPFILTER_HELPER");
	char root[PATH_MAX];
	int err;

	if (env && *env) {
		if (strlen(env) + 1 > len)
			return -ENAMETOOLONG;
		strcpy(buf, env);
		return access(buf, X_OK) ? -errno : 0;
	}
	err = mbox_driver_tree_root(root, sizeof(root));
	if (err)
		return err;
	if (snprintf(buf, len, "%s/net/bpfilter/bpfilter_umh", root) >= (int)len)
		return -ENAMETOOLONG;
	return access(buf, X_OK) ? -errno : 0;
}

uint32_t mbox_driver_netns_ino(void)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return 0;
	return (uint32_t)st.st_ino;
}

/* In the child: put fd on target, failing loudly (we are about to exec). */
static void child_place(int fd, int target)
{
	if (fd == target)
		return;
	if (dup2(fd, target) < 0)
		_exit(127);
}

static int open_dir(const char *path)
{
	int fd;

	if (!path)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int mbox_driver_start(struct mbox_driver *d, const struct mbox_driver_opts *opts)
{
	static const struct mbox_driver_opts none;
	char helper[PATH_MAX];
	char *def_argv[2];
	char *const *argv;
	int sv[2] = { -1, -1 };
	int state_fd = -1, bpffs_fd = -1;
	int err;
	pid_t pid;

	if (!opts)
		opts = &none;
	d->pid = 0;
	d->fd = -1;
	d->timeout_ms = opts->timeout_ms ? opts->timeout_ms : MBOX_DRIVER_TIMEOUT_MS;

	if (opts->helper) {
		if (strlen(opts->helper) + 1 > sizeof(helper))
			return -ENAMETOOLONG;
		strcpy(helper, opts->helper);
	} else {
		err = mbox_driver_helper_path(helper, sizeof(helper));
		if (err)
			return err;
	}
	def_argv[0] = helper;
	def_argv[1] = NULL;
	argv = opts->argv ? opts->argv : def_argv;

	state_fd = open_dir(opts->state_dir);
	if (state_fd < -1) {
		err = state_fd;
		goto out_close;
	}
	bpffs_fd = open_dir(opts->bpffs_dir);
	if (bpffs_fd < -1) {
		err = bpffs_fd;
		goto out_close;
	}
	/*
	 * One bidirectional channel, like the module's anon-inode file: the
	 * helper reads requests and writes replies on the same object.
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto out_close;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_close;
	}
	if (pid == 0) {
		/*
		 * Move every fd we need above the fixed slots first so that
		 * the dup2() calls below cannot clobber one another.
		 */
		int ch = fcntl(sv[1], F_DUPFD, 10);
		int st = state_fd >= 0 ? fcntl(state_fd, F_DUPFD, 10) : -1;
		int bf = bpffs_fd >= 0 ? fcntl(bpffs_fd, F_DUPFD, 10) : -1;
		int er = opts->stderr_fd > 0 ? fcntl(opts->stderr_fd, F_DUPFD, 10) : 2;
		sigset_t all;
		int fd;

		if (ch < 0 || (state_fd >= 0 && st < 0) ||
		    (bpffs_fd >= 0 && bf < 0) || er < 0)
			_exit(127);
		child_place(ch, 0);
		child_place(ch, 1);
		child_place(er, 2);
		/* fd 3 is the module's copy of the executable: leave it absent. */
		close(3);
		if (st >= 0)
			child_place(st, BPFILTER_STATE_FD);
		else
			close(BPFILTER_STATE_FD);
		if (bf >= 0)
			child_place(bf, BPFILTER_BPFFS_FD);
		else
			close(BPFILTER_BPFFS_FD);
		/* Like a usermode helper: nothing else open. Bounded by 1024. */
		for (fd = BPFILTER_BPFFS_FD + 1; fd < 1024; fd++)
			close(fd);
		/* A daemon parent may block or ignore signals: reset that. */
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		execv(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	sv[1] = -1;
	d->pid = pid;
	d->fd = sv[0];
	sv[0] = -1;
	err = 0;
out_close:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (state_fd >= 0)
		close(state_fd);
	if (bpffs_fd >= 0)
		close(bpffs_fd);
	return err;
}

/* Move len bytes in the given direction within deadline (ms, monotonic). */
static int xfer(int fd, void *buf, size_t len, bool out, int64_t deadline)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;
	int left, r;

	while (done < len) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };

		left = (int)(deadline - now_ms());
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, left);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ETIMEDOUT;
		if (out)
			n = send(fd, p + done, len - done, MSG_NOSIGNAL);
		else
			n = recv(fd, p + done, len - done, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == ECONNRESET ? -EPIPE : -errno;
		}
		if (n == 0)
			return -EPIPE;
		done += n;
	}
	return 0;
}

int mbox_driver_call(struct mbox_driver *d, const struct mbox_request *req,
		     struct mbox_reply *reply)
{
	int64_t deadline;
	int err;

	if (d->fd < 0 || !d->pid)
		return -EPIPE;
	deadline = now_ms() + d->timeout_ms;
	err = xfer(d->fd, (void *)req, sizeof(*req), true, deadline);
	if (err)
		return err;
	return xfer(d->fd, reply, sizeof(*reply), false, deadline);
}

int mbox_driver_sockopt_family(struct mbox_driver *d, uint32_t family,
			       bool is_set, int cmd, void *addr, uint32_t len,
			       uint32_t netns_ino, int *status)
{
	struct mbox_request req = {
		.addr = (uint64_t)(uintptr_t)addr,
		.len = len,
		.is_set = is_set ? BPFILTER_MBOX_SET : BPFILTER_MBOX_GET,
		.cmd = cmd,
		.pid = getpid(),
		.netns_ino = netns_ino,
		.family = family,
	};
	struct mbox_reply reply;
	int err;

	err = mbox_driver_call(d, &req, &reply);
	if (err)
		return err;
	*status = reply.status;
	return 0;
}

int mbox_driver_sockopt(struct mbox_driver *d, bool is_set, int cmd, void *addr,
			uint32_t len, uint32_t netns_ino, int *status)
{
	return mbox_driver_sockopt_family(d, NFPROTO_IPV4, is_set, cmd, addr, len,
					  netns_ino, status);
}

int mbox_driver_control(struct mbox_driver *d, int cmd, uint32_t netns_ino,
			int *status)
{
	struct mbox_request req = {
		.is_set = BPFILTER_MBOX_CONTROL,
		.cmd = cmd,
		.pid = getpid(),
		.netns_ino = netns_ino,
	};
	struct mbox_reply reply;
	int err;

	err = mbox_driver_call(d, &req, &reply);
	if (err)
		return err;
	*status = reply.status;
	return 0;
}

bool mbox_driver_dead(struct mbox_driver *d)
{
	int ws;

	if (!d->pid)
		return true;
	if (waitpid(d->pid, &ws, WNOHANG) == d->pid) {
		d->pid = 0;
		return true;
	}
	return false;
}

int mbox_driver_stop(struct mbox_driver *d, int *wstatus)
{
	int64_t deadline;
	int ws = 0, err = 0;
	pid_t r;

	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
	if (!d->pid)
		goto out;
	deadline = now_ms() + d->timeout_ms;
	for (;;) {
		r = waitpid(d->pid, &ws, WNOHANG);
		if (r == d->pid || (r < 0 && errno != EINTR))
			break;
		if (now_ms() >= deadline) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &ws, 0);
			err = -ETIMEDOUT;
			break;
		}
		usleep(2000);
	}
	d->pid = 0;
out:
	if (wstatus)
		*wstatus = ws;
	return err;
}

void mbox_driver_kill(struct mbox_driver *d)
{
	if (d->pid) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
	}
	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
}
