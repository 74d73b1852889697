// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_probe [-u UID | -U] OP...: issue single iptables sockopts on one raw socket
 * and print each result as "OP: 0" or "OP: ENAME", so a test can assert the
 * exact errno the kernel (ip_tables or bpfilter.ko) returns.
 *
 * The socket is opened first, then with -u the process drops to UID with no
 * capabilities: the sockopts then reach the CAP_NET_ADMIN check itself (stock
 * iptables, being unable to open the socket, never gets that far). With -U
 * the process instead enters a new user namespace after opening the socket:
 * it then has every capability, but in a namespace that does not own the
 * socket's network namespace.
 *
 * OPs: info[=TABLE]   IPT_SO_GET_INFO (default table "filter")
 *      replace-short  IPT_SO_SET_REPLACE with a too short buffer
 *      counters-short IPT_SO_SET_ADD_COUNTERS with a too short buffer
 *      match=NAME/REV IPT_SO_GET_REVISION_MATCH
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *ename(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "E?";
}

static int probe(int fd, const char *op)
{
	char buf[256] = {};
	socklen_t len;
	int ret;

	if (!strncmp(op, "info", 4)) {
		struct ipt_getinfo info = {};

		snprintf(info.name, sizeof(info.name), "%s", op[4] == '=' ? op + 5 : "filter");
		len = sizeof(info);
		ret = getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, &info, &len);
	} else if (!strcmp(op, "replace-short")) {
		ret = setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, buf, 8);
	} else if (!strcmp(op, "counters-short")) {
		ret = setsockopt(fd, IPPROTO_IP, IPT_SO_SET_ADD_COUNTERS, buf, 8);
	} else if (!strncmp(op, "match=", 6)) {
		struct xt_get_revision rev = {};
		char *slash;

		snprintf(rev.name, sizeof(rev.name), "%s", op + 6);
		slash = strchr(rev.name, '/');
		if (slash) {
			*slash = '\0';
			rev.revision = atoi(slash + 1);
		}
		len = sizeof(rev);
		ret = getsockopt(fd, IPPROTO_IP, IPT_SO_GET_REVISION_MATCH, &rev, &len);
	} else {
		fprintf(stderr, "ipt_probe: unknown op '%s'\n", op);
		return -EINVAL;
	}
	printf("%s: %s\n", op, ename(ret ? errno : 0));
	return 0;
}

int main(int argc, char **argv)
{
	int fd, i = 1, userns = 0;
	long uid = -1;

	if (argc > 2 && !strcmp(argv[1], "-u")) {
		uid = atol(argv[2]);
		i = 3;
	} else if (argc > 1 && !strcmp(argv[1], "-U")) {
		userns = 1;
		i = 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		printf("socket: %s\n", ename(errno));
		return 1;
	}
	/* Dropping all ids also clears every capability (no KEEPCAPS). */
	if (uid > 0 && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			setresuid(uid, uid, uid))) {
		perror("ipt_probe: dropping privileges");
		return 1;
	}
	if (userns && unshare(CLONE_NEWUSER)) {
		perror("ipt_probe: unshare(CLONE_NEWUSER)");
		return 1;
	}
	for (; i < argc; i++)
		if (probe(fd, argv[i]))
			return 1;
	close(fd);
	return 0;
}
