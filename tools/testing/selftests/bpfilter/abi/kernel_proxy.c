// SPDX-License-Identifier: GPL-2.0
/*
 * kernel-proxy: a stand-in "helper" for testing the test tools. It speaks
 * the mbox protocol on fds 0/1 like bpfilter_umh, but answers every request
 * by making the same sockopt on the real ip_tables (family NFPROTO_IPV4) or
 * ip6_tables (NFPROTO_IPV6) in the caller's network namespace
 * (/proc/PID/ns/net). Run test_abi_diff or test_abi_diff6 with
 * BPFILTER_HELPER=build/shim/kernel-proxy: any mismatch then is a bug in
 * the test, not in the helper. Not part of bpfilter itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include <linux/bpfilter.h>

#include "ipt_sockopt.h"

static int exact(int fd, void *buf, size_t len, bool out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? write(fd, (char *)buf + done, len - done) :
			  read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static int pvm(pid_t pid, void *local, uint64_t remote, size_t len, bool out)
{
	struct iovec l = { local, len }, r = { (void *)(uintptr_t)remote, len };
	ssize_t n;

	if (!len)
		return 0;
	n = out ? process_vm_writev(pid, &l, 1, &r, 1, 0) :
		  process_vm_readv(pid, &l, 1, &r, 1, 0);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* A raw socket of address family af in the namespace of pid. */
static int ns_socket(pid_t pid, int af)
{
	char path[64];
	int self, ns, s = -1;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	self = open("/proc/self/ns/net", O_RDONLY);
	ns = open(path, O_RDONLY);
	if (self >= 0 && ns >= 0 && !setns(ns, CLONE_NEWNET)) {
		s = socket(af, SOCK_RAW, IPPROTO_RAW);
		setns(self, CLONE_NEWNET);
	}
	if (self >= 0)
		close(self);
	if (ns >= 0)
		close(ns);
	return s;
}

/*
 * Read only what ip_tables itself would copy, so that faults match; struct
 * ip6t_replace is laid out as struct ipt_replace.
 */
static size_t proxy_need(const struct mbox_request *req)
{
	size_t need = req->len;
	union {
		struct ipt_replace r;
		struct xt_counters_info c;
	} h;

	if (!req->is_set)
		return need;
	if (req->cmd == IPT_SO_SET_REPLACE && req->len >= sizeof(h.r) &&
	    !pvm(req->pid, &h, req->addr, sizeof(h.r), false) &&
	    (uint64_t)sizeof(h.r) + h.r.size < need)
		need = sizeof(h.r) + h.r.size;
	if (req->cmd == IPT_SO_SET_ADD_COUNTERS && req->len >= sizeof(h.c) &&
	    !pvm(req->pid, &h, req->addr, sizeof(h.c), false) &&
	    sizeof(h.c) + (uint64_t)h.c.num_counters * 16 != need)
		need = sizeof(h.c);
	return need;
}

static int handle(const struct mbox_request *req)
{
	int level = ipt_sockopt_level(req->family);
	int af = ipt_sockopt_af(req->family);
	int optname = ipt_sockopt_optname(req->family, req->is_set, req->cmd);
	unsigned char *buf;
	socklen_t l = req->len;
	uint64_t uctr = 0;
	void *kctr = NULL;
	size_t clen = 0;
	int s, err;

	if (req->is_set == BPFILTER_MBOX_CONTROL)
		return 0;
	if (level < 0)
		return -EINVAL;
	s = ns_socket(req->pid, af);
	if (s < 0)
		return -ESRCH;
	buf = calloc(1, req->len + 1);
	err = buf ? pvm(req->pid, buf, req->addr, proxy_need(req), false) : -ENOMEM;
	if (err)
		goto out;
	if (req->is_set && req->cmd == IPT_SO_SET_REPLACE && req->len >= sizeof(struct ipt_replace)) {
		struct ipt_replace *r = (void *)buf;

		/* The kernel writes old counters to our memory; forward them. */
		uctr = (uint64_t)(uintptr_t)r->counters;
		if (r->num_counters < 1000000) {
			clen = (size_t)r->num_counters * sizeof(struct xt_counters);
			kctr = calloc(1, clen + 1);
		}
		r->counters = kctr;
	}
	if (req->is_set)
		err = setsockopt(s, level, optname, buf, req->len) ? -errno : 0;
	else
		err = getsockopt(s, level, optname, buf, &l) ? -errno : 0;
	if (!err && !req->is_set)
		err = pvm(req->pid, buf, req->addr, req->len, true);
	if (!err && kctr && uctr)
		pvm(req->pid, kctr, uctr, clen, true);	/* silent, as the kernel */
out:
	free(kctr);
	free(buf);
	close(s);
	return err;
}

int main(void)
{
	struct mbox_request req;
	struct mbox_reply reply;

	while (!exact(0, &req, sizeof(req), false)) {
		memset(&reply, 0, sizeof(reply));
		reply.status = handle(&req);
		if (exact(1, &reply, sizeof(reply), true))
			return 1;
	}
	return 0;
}
