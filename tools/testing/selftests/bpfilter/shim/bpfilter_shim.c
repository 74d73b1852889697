// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for stock iptables-legacy and ip6tables-legacy: the
 * ip_tables sockopts (level SOL_IP, set 64..65, get 64..67, AF_INET sockets)
 * and the ip6_tables ones (level SOL_IPV6, set 64..65, get 64..65 and
 * 68..69, AF_INET6 sockets) go to a bpfilter helper through bpfilter-hostd
 * instead of the kernel, as one struct mbox_request each with the family
 * (NFPROTO_IPV4 or NFPROTO_IPV6) and ip_tables' command numbers
 * (lib/ipt_sockopt.h), exactly as bpfilter.ko would forward them.
 *
 *   BPFILTER_HOSTD=/path/sock   forward to the daemon on that socket
 *   BPFILTER_RECORD=/dir        also record every intercepted call to
 *                               /dir/NNNNNN.bin (struct shim_record +
 *                               payload: the family, a set's optval with
 *                               its result, a get's input buffer before
 *                               the call);
 *                               without BPFILTER_HOSTD the calls still go
 *                               to the kernel (a recorder for the real
 *                               ip_tables and ip6_tables)
 *
 * With BPFILTER_HOSTD set, /proc/net/ip_tables_names and
 * /proc/net/ip6_tables_names opened with fopen() read the helper's tables
 * of this namespace (what bpfilter.ko's files say), so that
 * iptables-legacy-save and ip6tables-legacy-save dump the helper's tables
 * even where the kernel never created its own.
 * Everything else passes through to libc untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/bpfilter.h>

#include "ipt_sockopt.h"
#include "shim_record.h"

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef int (*getsockopt_fn)(int, int, int, void *, socklen_t *);
typedef FILE *(*fopen_fn)(const char *, const char *);

/* The shim's whole state: per process, reset after fork. */
static struct shim_ctx {
	setsockopt_fn real_set;
	getsockopt_fn real_get;
	fopen_fn real_fopen;
	fopen_fn real_fopen64;
	int conn;		/* connection to the daemon, -1 if none */
	pid_t conn_pid;		/* process that opened conn */
	unsigned int seq;	/* next record number to try */
	bool warned;
} shim = { .conn = -1 };

static void shim_resolve(void)
{
	if (!shim.real_set)
		shim.real_set = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if (!shim.real_get)
		shim.real_get = (getsockopt_fn)dlsym(RTLD_NEXT, "getsockopt");
}

/*
 * An ip_tables sockopt on an IPv4 socket or an ip6_tables one on an IPv6
 * socket? Returns the request's cmd (and *family) or -1.
 */
static int shim_wants(int fd, int level, int optname, bool is_set,
		      uint32_t *family)
{
	int domain = 0, cmd;
	socklen_t l = sizeof(domain);

	cmd = ipt_sockopt_cmd(level, is_set, optname, family);
	if (cmd < 0)
		return -1;
	if (shim.real_get(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l))
		return -1;
	return domain == ipt_sockopt_af(*family) ? cmd : -1;
}

/* The network namespace of the socket itself, as the module would see it. */
static uint32_t shim_netns_ino(int fd)
{
	struct stat st;
	int nsfd;

	nsfd = ioctl(fd, SIOCGSKNS);
	if (nsfd >= 0) {
		int r = fstat(nsfd, &st);

		close(nsfd);
		if (!r)
			return (uint32_t)st.st_ino;
	}
	if (stat("/proc/self/ns/net", &st))
		return 0;
	return (uint32_t)st.st_ino;
}

static int shim_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (shim.conn >= 0 && shim.conn_pid == getpid())
		return shim.conn;
	/* After a fork the parent's connection is shared: open our own. */
	if (shim.conn >= 0 && shim.conn_pid != getpid())
		close(shim.conn);
	shim.conn = -1;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int err = -errno;

		close(fd);
		return err;
	}
	shim.conn = fd;
	shim.conn_pid = getpid();
	return fd;
}

/* Ask the daemon: the helper's status (0 or -errno), with its whole reply in *reply. */
static int shim_ask(const char *path, const struct mbox_request *req, struct mbox_reply *reply)
{
	int conn;
	ssize_t n;

	conn = shim_connect(path);
	if (conn < 0)
		goto unreachable;
	if (send(conn, req, sizeof(*req), MSG_NOSIGNAL) != (ssize_t)sizeof(*req))
		goto unreachable;
	do {
		n = recv(conn, reply, sizeof(*reply), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*reply))
		goto unreachable;
	return reply->status;

unreachable:
	if (!shim.warned) {
		fprintf(stderr, "bpfilter_shim: daemon at %s unreachable\n", path);
		shim.warned = true;
	}
	if (shim.conn >= 0)
		close(shim.conn);
	shim.conn = -1;
	memset(reply, 0, sizeof(*reply));
	/* What a kernel without any iptables sockopt handler answers. */
	return -ENOPROTOOPT;
}

/* Forward one sockopt to the daemon; returns the helper's status (0 or -errno). */
static int shim_forward(const char *path, int fd, bool is_set, int cmd,
			uint32_t family, const void *addr, uint32_t len)
{
	struct mbox_request req = {
		.addr = (uint64_t)(uintptr_t)addr,
		.len = len,
		.is_set = is_set ? BPFILTER_MBOX_SET : BPFILTER_MBOX_GET,
		.cmd = cmd,
		.pid = getpid(),
		.netns_ino = shim_netns_ino(fd),
		.family = family,
	};
	struct mbox_reply reply;

	return shim_ask(path, &req, &reply);
}

/* Append one record of optname to $BPFILTER_RECORD; failures only warn. */
static void shim_record(const char *dir, bool is_set, int optname,
			uint32_t family, uint32_t len, int status,
			const void *payload, uint32_t plen)
{
	struct shim_record rec = {
		.magic = SHIM_RECORD_MAGIC2,
		.is_set = is_set,
		.cmd = optname,
		.len = len,
		.status = status,
		.payload_len = plen,
		.family = family,
	};
	char path[PATH_MAX];
	unsigned int tries;
	int fd = -1;

	/* Bounded: take the first free number, also across processes. */
	for (tries = 0; tries < 100000 && fd < 0; tries++) {
		snprintf(path, sizeof(path), "%s/%06u.bin", dir, shim.seq++);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fprintf(stderr, "bpfilter_shim: cannot record in %s\n", dir);
		return;
	}
	if (write(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec) ||
	    (plen && write(fd, payload, plen) != (ssize_t)plen))
		fprintf(stderr, "bpfilter_shim: short record %s\n", path);
	close(fd);
}

int setsockopt(int fd, int level, int optname, const void *optval,
	       socklen_t optlen)
{
	const char *hostd, *rec;
	uint32_t family;
	int status, cmd;

	shim_resolve();
	cmd = shim_wants(fd, level, optname, true, &family);
	if (cmd < 0)
		return shim.real_set(fd, level, optname, optval, optlen);
	hostd = getenv("BPFILTER_HOSTD");
	rec = getenv("BPFILTER_RECORD");
	if (hostd && *hostd) {
		status = shim_forward(hostd, fd, true, cmd, family, optval, optlen);
	} else {
		status = shim.real_set(fd, level, optname, optval, optlen);
		if (status < 0)
			status = -errno;
	}
	/* A set never writes into its optval, so this is what was sent. */
	if (rec && *rec)
		shim_record(rec, true, optname, family, optlen, status, optval,
			    optval ? optlen : 0);
	if (status < 0) {
		errno = -status;
		return -1;
	}
	return 0;
}

int getsockopt(int fd, int level, int optname, void *optval, socklen_t *optlen)
{
	const char *hostd, *rec;
	uint32_t len, family;
	int status, cmd;

	shim_resolve();
	cmd = shim_wants(fd, level, optname, false, &family);
	if (cmd < 0)
		return shim.real_get(fd, level, optname, optval, optlen);
	hostd = getenv("BPFILTER_HOSTD");
	rec = getenv("BPFILTER_RECORD");
	len = optlen ? *optlen : 0;
	/* Gets are recorded with their input, so that they can be replayed. */
	if (rec && *rec && optval)
		shim_record(rec, false, optname, family, len, 0, optval, len);
	if (hostd && *hostd) {
		/* The kernel reads *optlen first: a bad pointer is EFAULT. */
		if (!optlen) {
			errno = EFAULT;
			return -1;
		}
		status = shim_forward(hostd, fd, false, cmd, family, optval, len);
	} else {
		status = shim.real_get(fd, level, optname, optval, optlen);
		if (status < 0)
			status = -errno;
	}
	if (status < 0) {
		errno = -status;
		return -1;
	}
	return 0;
}

/*
 * The module's view of ip_tables_names or ip6_tables_names (@family): the
 * tables the helper has in this namespace, newest first (mbox_reply.tables).
 */
static FILE *shim_table_names(uint32_t family)
{
	static const char *const names[BPFILTER_TABLE_MAX] = BPFILTER_TABLE_NAMES;
	struct mbox_request req = {
		.is_set = BPFILTER_MBOX_CONTROL,
		.cmd = BPFILTER_CTL_PING,
		.pid = getpid(),
		.netns_ino = shim_netns_ino(-1),
		.family = family,
	};
	struct mbox_reply reply;
	uint32_t list, k;
	FILE *f;

	if (shim_ask(getenv("BPFILTER_HOSTD"), &req, &reply))
		reply.tables = 0;
	f = fmemopen(NULL, 256, "w+");
	if (!f)
		return NULL;
	for (list = reply.tables; list; list >>= BPFILTER_TABLES_BITS) {
		k = (list & ((1u << BPFILTER_TABLES_BITS) - 1)) - 1;
		if (k < BPFILTER_TABLE_MAX && names[k])
			fprintf(f, "%s\n", names[k]);
	}
	if (fflush(f) || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	return f;
}

/* The family whose table names file @path is, if the shim answers for it, else 0. */
static uint32_t shim_fake_names(const char *path)
{
	const char *hostd = getenv("BPFILTER_HOSTD");

	if (!hostd || !*hostd || !path)
		return 0;
	if (!strcmp(path, "/proc/net/ip_tables_names"))
		return NFPROTO_IPV4;
	if (!strcmp(path, "/proc/net/ip6_tables_names"))
		return NFPROTO_IPV6;
	return 0;
}

FILE *fopen(const char *path, const char *mode)
{
	if (shim_fake_names(path))
		return shim_table_names(shim_fake_names(path));
	if (!shim.real_fopen)
		shim.real_fopen = (fopen_fn)dlsym(RTLD_NEXT, "fopen");
	return shim.real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	if (shim_fake_names(path))
		return shim_table_names(shim_fake_names(path));
	if (!shim.real_fopen64)
		shim.real_fopen64 = (fopen_fn)dlsym(RTLD_NEXT, "fopen64");
	return shim.real_fopen64(path, mode);
}
