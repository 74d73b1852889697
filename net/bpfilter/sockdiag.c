// SPDX-License-Identifier: GPL-2.0
/*
 * Socket census of a network namespace, for the BPF backend's teardown
 * (backend_bpf.c, bpf_tick()): a namespace that no task, mount or open
 * namespace file keeps alive may still be kept alive by a socket created in
 * it and held from elsewhere (setns() out, SCM_RIGHTS); packets can reach
 * that socket, so its table must stay enforced.
 *
 * Asked through NETLINK_SOCK_DIAG from inside the namespace (a diag socket
 * only sees the sockets of its own namespace). Kernels without one of the
 * diag handlers (raw_diag, unix_diag, packet_diag and netlink_diag are
 * modules on Debian's kernels, often not loaded) answer -ENOENT for it;
 * those kinds, and ping sockets that no diag handler lists, are read from
 * /proc/thread-self/net instead, which also shows the caller's namespace.
 *
 * Diag handlers list only hashed sockets: an unbound UDP, TCP or ping
 * socket, or a netlink socket not yet bound, is in no list but holds the
 * namespace too (and can bind or connect later). So the namespace's count
 * of user sockets, "sockets: used" in its sockstat (sockets that hold a
 * reference on it: sk_net_refcnt), must be our diag socket alone.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "sockdiag.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif

/* Bound on the reads of one dump: a dump stops at the first socket anyway. */
#define DIAG_MAX_READS 4096

/* One request of the census. */
struct diag_query {
	const char *what;
	uint8_t family;
	uint8_t protocol;	/* inet only */
	const char *proc[2];	/* /proc/thread-self/net files if the handler is missing */
	bool pair;		/* inet: proc[] covers the AF_INET6 query that follows too */
};

static const struct diag_query queries[] = {
	{ "tcp", AF_INET, IPPROTO_TCP, { "tcp", "tcp6" }, true },
	{ "tcp6", AF_INET6, IPPROTO_TCP, { NULL, NULL }, false },
	{ "udp", AF_INET, IPPROTO_UDP, { "udp", "udp6" }, true },
	{ "udp6", AF_INET6, IPPROTO_UDP, { NULL, NULL }, false },
	{ "udplite", AF_INET, IPPROTO_UDPLITE, { "udplite", "udplite6" }, true },
	{ "udplite6", AF_INET6, IPPROTO_UDPLITE, { NULL, NULL }, false },
	{ "raw", AF_INET, IPPROTO_RAW, { "raw", "raw6" }, true },
	{ "raw6", AF_INET6, IPPROTO_RAW, { NULL, NULL }, false },
	{ "unix", AF_UNIX, 0, { "unix", NULL }, false },
	{ "packet", AF_PACKET, 0, { "packet", NULL }, false },
	{ "netlink", AF_NETLINK, 0, { "netlink", NULL }, false },
};

/* Ping sockets: no diag handler lists them. */
static const char *const proc_only[] = { "icmp", "icmp6" };

/*
 * A line of /proc/net/netlink that is a user's socket: not a kernel socket
 * (port id 0 once bound: kernel sockets, or unbound ones, which the
 * sockstat count covers) and not our own census socket (inode @self_ino).
 */
static bool netlink_user_line(const char *line, uint32_t self_ino, struct sockdiag_hit *hit)
{
	/*
	 * sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode; sk is a hashed
	 * pointer, "(____ptrval____)" until the kernel has entropy.
	 */
	if (sscanf(line, "%*s %u %u %*x %*d %*d %*d %*d %*u %lu", &hit->protocol, &hit->port,
		   &hit->ino) != 3)
		return true;	/* unparsable: count it, fail closed */
	return hit->port && hit->ino != self_ino;
}

/*
 * Any socket in /proc/thread-self/net/@name (the caller's namespace)? 1, 0,
 * or -errno; a file that does not exist means a kind this kernel lacks: 0.
 */
static int proc_busy(const char *name, uint32_t self_ino, struct sockdiag_hit *hit)
{
	bool netlink = !strcmp(name, "netlink"), header = true;
	char path[64], line[512];
	int busy = 0, err;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", name);
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		return err == -ENOENT ? 0 : err;
	}
	/* A header line, then one line per socket. */
	while (!busy && fgets(line, sizeof(line), f)) {
		if (header)
			header = false;
		else
			busy = !netlink || netlink_user_line(line, self_ino, hit);
	}
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	return err ? err : busy;
}

/* Sockets holding a reference on the caller's namespace ("sockets: used"), or -errno. */
static int sockets_used(void)
{
	char line[128];
	int used = -ENOENT;
	FILE *f;

	f = fopen("/proc/thread-self/net/sockstat", "re");
	if (!f)
		return -errno;
	while (used < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "sockets: used %d", &used) != 1)
			used = -ENOENT;
	fclose(f);
	return used;
}

/* Build the request of @q into @buf; its length. */
static size_t build_request(const struct diag_query *q, uint32_t seq, void *buf)
{
	struct nlmsghdr *nlh = buf;
	void *req = NLMSG_DATA(nlh);
	size_t len;

	switch (q->family) {
	case AF_INET:
	case AF_INET6: {
		struct inet_diag_req_v2 *r = req;

		r->sdiag_family = q->family;
		r->sdiag_protocol = q->protocol;
		/* pad is sdiag_raw_protocol for raw sockets: 0 = all of them. */
		r->idiag_states = ~0u;
		len = sizeof(*r);
		break;
	}
	case AF_UNIX: {
		struct unix_diag_req *r = req;

		r->sdiag_family = AF_UNIX;
		r->udiag_states = ~0u;
		len = sizeof(*r);
		break;
	}
	case AF_PACKET: {
		struct packet_diag_req *r = req;

		r->sdiag_family = AF_PACKET;
		len = sizeof(*r);
		break;
	}
	default: {
		struct netlink_diag_req *r = req;

		r->sdiag_family = AF_NETLINK;
		r->sdiag_protocol = NDIAG_PROTO_ALL;
		len = sizeof(*r);
		break;
	}
	}
	nlh->nlmsg_len = NLMSG_LENGTH(len);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	return nlh->nlmsg_len;
}

/* Is the socket described by @nlh one that keeps the namespace alive? */
static bool counts(const struct diag_query *q, const struct nlmsghdr *nlh, uint32_t self_ino,
		   struct sockdiag_hit *hit)
{
	const struct netlink_diag_msg *m = NLMSG_DATA(nlh);

	if (q->family != AF_NETLINK)
		return true;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return false;
	hit->protocol = m->ndiag_protocol;
	hit->port = m->ndiag_portid;
	hit->ino = m->ndiag_ino;
	/* Our own diag socket, and the kernel's sockets (port 0), which hold no reference. */
	return m->ndiag_ino != self_ino && m->ndiag_portid != 0;
}

/* Run query @q on diag socket @fd: 1 if a socket was listed, 0 if none, -errno. */
static int diag_query(int fd, uint32_t self_ino, const struct diag_query *q, uint32_t seq,
		      struct sockdiag_hit *hit)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint64_t req[16] = { 0 };
	uint64_t buf[4096];
	size_t len = build_request(q, seq, req);
	unsigned int reads;

	if (sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) != (ssize_t)len)
		return -errno;
	for (reads = 0; reads < DIAG_MAX_READS; reads++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nlh;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EIO;
				return e->error ? e->error : -EIO;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed midway says so here. */
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(const int *)NLMSG_DATA(nlh) < 0)
					return *(const int *)NLMSG_DATA(nlh);
				return 0;
			}
			/* One socket is enough: the caller closes @fd, ending the dump. */
			if (nlh->nlmsg_type == SOCK_DIAG_BY_FAMILY && counts(q, nlh, self_ino, hit))
				return 1;
		}
	}
	return -E2BIG;
}

int sockdiag_netns_busy(struct sockdiag_hit *hit)
{
	struct timeval tv = { .tv_sec = 2 };
	struct stat st;
	unsigned int i, k;
	int fd, ret = 0;

	*hit = (struct sockdiag_hit){ 0 };
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		goto out;
	}
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]) && !ret; i++) {
		const struct diag_query *q = &queries[i];

		hit->kind = q->what;
		ret = diag_query(fd, st.st_ino, q, i + 1, hit);
		/* No handler for it in this kernel: procfs lists the same sockets. */
		if (ret == -ENOENT && q->proc[0]) {
			for (k = 0, ret = 0; k < 2 && q->proc[k] && !ret; k++)
				ret = proc_busy(q->proc[k], st.st_ino, hit);
			if (q->pair)
				i++;	/* the AF_INET6 query that follows has no handler either */
		} else if (ret == -ENOENT && q->family == AF_INET6) {
			ret = proc_busy(queries[i - 1].proc[1], st.st_ino, hit);
		}
	}
	for (k = 0; k < sizeof(proc_only) / sizeof(proc_only[0]) && !ret; k++) {
		hit->kind = proc_only[k];
		ret = proc_busy(proc_only[k], st.st_ino, hit);
	}
	if (!ret) {
		/* Unhashed sockets; ours (@fd) is the one expected. */
		hit->kind = "unbound";
		ret = sockets_used();
		if (ret >= 0)
			ret = ret > 1;
	}
	if (!ret)
		hit->kind = NULL;
out:
	close(fd);
	return ret;
}
