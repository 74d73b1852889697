// SPDX-License-Identifier: GPL-2.0
/* bpfilter-hostd: forward mbox requests from unix-socket clients to a helper. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostd.h"

/* Clients served at once; iptables holds the xtables lock, so few. */
#define HOSTD_MAX_CLIENTS	64
/* Bound on waiting for a forked daemon to come up or go down. */
#define HOSTD_WAIT_MS		10000

/* The daemon's whole state. */
struct hostd_ctx {
	const struct mbox_driver_opts *opts;
	struct mbox_driver helper;
	int listen_fd;
	int sig_fd;
	int clients[HOSTD_MAX_CLIENTS];
	int nclients;
	unsigned long restarts;
};

static int hostd_helper_up(struct hostd_ctx *c)
{
	int err;

	if (c->helper.pid && !mbox_driver_dead(&c->helper))
		return 0;
	mbox_driver_kill(&c->helper);
	err = mbox_driver_start(&c->helper, c->opts);
	if (err) {
		fprintf(stderr, "bpfilter-hostd: cannot start helper: %s\n",
			strerror(-err));
		return err;
	}
	c->restarts++;
	return 0;
}

/* Forward one request; answers -EIO (and drops the helper) on transport loss. */
static void hostd_forward(struct hostd_ctx *c, const struct mbox_request *in,
			  struct mbox_reply *reply)
{
	struct mbox_request fwd = *in, *req = &fwd;
	int err;

	memset(reply, 0, sizeof(*reply));
	err = hostd_helper_up(c);
	if (err) {
		reply->status = -EIO;
		return;
	}
	if (c->opts->ct_held)
		fwd.flags |= BPFILTER_REQ_CT_CAPABLE | BPFILTER_REQ_CT_HELD;
	err = mbox_driver_call(&c->helper, req, reply);
	if (err) {
		fprintf(stderr,
			"bpfilter-hostd: helper pid %d failed on cmd %u (family %u): %s; restarting it\n",
			c->helper.pid, req->cmd, req->family, strerror(-err));
		mbox_driver_kill(&c->helper);
		reply->status = -EIO;
	}
}

static void hostd_drop_client(struct hostd_ctx *c, int i)
{
	close(c->clients[i]);
	c->clients[i] = c->clients[--c->nclients];
}

/* Serve one packet from client i; returns false if the client went away. */
static bool hostd_client(struct hostd_ctx *c, int i)
{
	struct mbox_request req;
	struct mbox_reply reply;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	n = recv(c->clients[i], &req, sizeof(req), 0);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	/*
	 * The family (NFPROTO_IPV4 or NFPROTO_IPV6) goes to the helper as
	 * the client sent it. A client built before the field existed sends
	 * the request without it: family 0, ip_tables.
	 */
	if (n != (ssize_t)sizeof(req) &&
	    n != (ssize_t)offsetof(struct mbox_request, family))
		return false;
	hostd_forward(c, &req, &reply);
	return send(c->clients[i], &reply, sizeof(reply), MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(reply);
}

static int hostd_listen(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(path, 0600) || listen(fd, 16)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int hostd_serve(const char *sock_path, const struct mbox_driver_opts *opts,
		int ready_fd)
{
	struct hostd_ctx c = { .opts = opts, .helper = { .fd = -1 }, .sig_fd = -1 };
	struct pollfd pfd[HOSTD_MAX_CLIENTS + 2];
	sigset_t mask;
	int err, i, n;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	c.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (c.sig_fd < 0)
		return -errno;
	c.listen_fd = hostd_listen(sock_path);
	if (c.listen_fd < 0) {
		err = c.listen_fd;
		goto out_sig;
	}
	/* Start the helper now so that its startup errors show early. */
	err = hostd_helper_up(&c);
	if (err)
		goto out_listen;
	if (ready_fd >= 0) {
		if (write(ready_fd, "r", 1) != 1) {
			err = -EIO;
			goto out_helper;
		}
		close(ready_fd);
	}
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = c.sig_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = c.listen_fd, .events = POLLIN };
		for (i = 0; i < c.nclients; i++)
			pfd[i + 2] = (struct pollfd){ .fd = c.clients[i], .events = POLLIN };
		n = c.nclients;
		if (poll(pfd, n + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (pfd[0].revents) {
			err = 0;
			break;
		}
		/* Walk down so that dropping client i does not skip one. */
		for (i = n - 1; i >= 0; i--) {
			if (!pfd[i + 2].revents)
				continue;
			if (!hostd_client(&c, i))
				hostd_drop_client(&c, i);
		}
		if (pfd[1].revents & POLLIN) {
			int cfd = accept4(c.listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (cfd >= 0 && c.nclients < HOSTD_MAX_CLIENTS)
				c.clients[c.nclients++] = cfd;
			else if (cfd >= 0)
				close(cfd);
		}
	}
	while (c.nclients)
		hostd_drop_client(&c, c.nclients - 1);
out_helper:
	mbox_driver_stop(&c.helper, NULL);
out_listen:
	close(c.listen_fd);
	unlink(sock_path);
out_sig:
	close(c.sig_fd);
	return err;
}

int hostd_start(struct hostd *h, const char *sock_path,
		const struct mbox_driver_opts *opts)
{
	struct pollfd pfd;
	int p[2], err;
	char b;
	pid_t pid;

	h->pid = 0;
	if (strlen(sock_path) >= sizeof(h->sock))
		return -ENAMETOOLONG;
	strcpy(h->sock, sock_path);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(hostd_serve(sock_path, opts, p[1]) ? 1 : 0);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	err = poll(&pfd, 1, HOSTD_WAIT_MS);
	if (err == 1 && read(p[0], &b, 1) == 1) {
		err = 0;
		h->pid = pid;
	} else {
		err = err == 0 ? -ETIMEDOUT : -ECHILD;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(p[0]);
	return err;
}

int hostd_stop(struct hostd *h)
{
	int i, err = 0;

	if (!h->pid)
		return 0;
	kill(h->pid, SIGTERM);
	/* Bounded: HOSTD_WAIT_MS in 5 ms steps. */
	for (i = 0; i < HOSTD_WAIT_MS / 5; i++) {
		if (waitpid(h->pid, NULL, WNOHANG) == h->pid)
			goto out;
		usleep(5000);
	}
	kill(h->pid, SIGKILL);
	waitpid(h->pid, NULL, 0);
	err = -ETIMEDOUT;
out:
	unlink(h->sock);
	h->pid = 0;
	return err;
}

int hostd_request(const char *sock_path, const struct mbox_request *req,
		  int *status)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = HOSTD_WAIT_MS / 1000 };
	struct mbox_reply reply;
	int fd, err = 0;

	if (strlen(sock_path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Bounded: a daemon that does not answer is an error, not a hang. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    send(fd, req, sizeof(*req), MSG_NOSIGNAL) != (ssize_t)sizeof(*req) ||
	    recv(fd, &reply, sizeof(reply), 0) != (ssize_t)sizeof(reply))
		err = errno ? -errno : -EIO;
	else
		*status = reply.status;
	close(fd);
	return err;
}

int hostd_shim_path(char *buf, size_t len)
{
	const char *env = getenv("BPFILTER_SHIM");
	char root[PATH_MAX];
	int err;

	if (env && *env) {
		if (strlen(env) + 1 > len)
			return -ENAMETOOLONG;
		strcpy(buf, env);
		return access(buf, R_OK) ? -errno : 0;
	}
	err = mbox_driver_tree_root(root, sizeof(root));
	if (err)
		return err;
	if (snprintf(buf, len, "%s/build/shim/bpfilter_shim.so", root) >= (int)len)
		return -ENAMETOOLONG;
	return access(buf, R_OK) ? -errno : 0;
}
