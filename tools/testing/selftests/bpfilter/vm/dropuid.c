// SPDX-License-Identifier: GPL-2.0
/*
 * dropuid [-r] [-g GID[,GID...]] UID CMD [ARG...]: run CMD as UID/GID with
 * no capabilities, like an unprivileged user would, and with no
 * supplementary groups, or those of -g (at most 16).
 *
 * With -r, CAP_NET_RAW alone is kept (as an ambient capability, so it
 * survives the exec). iptables opens a raw socket before its first sockopt,
 * so without CAP_NET_RAW an unprivileged iptables fails at socket() and never
 * reaches the kernel; with it, the sockopt reaches the CAP_NET_ADMIN check of
 * ip_tables or bpfilter.ko, which is what the test is about.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int keep_net_raw(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	__u32 bit = 1U << CAP_NET_RAW;

	data[0].effective = bit;
	data[0].permitted = bit;
	data[0].inheritable = bit;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0))
		return -errno;
	return 0;
}

/* -g's list: 0 or -1 if it is not GIDs separated by commas. */
static int parse_groups(char *list, gid_t *groups, size_t *n)
{
	char *tok, *end;
	long g;

	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		g = strtol(tok, &end, 10);
		if (*end || end == tok || g < 0 || g > 65535 || *n == 16)
			return -1;
		groups[(*n)++] = g;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int raw = 0, argi = 1, err;
	gid_t groups[16];
	size_t ngroups = 0;
	char *end;
	long id;

	for (; argi < argc; argi++) {
		if (!strcmp(argv[argi], "-r")) {
			raw = 1;
		} else if (!strcmp(argv[argi], "-g") && argi + 1 < argc) {
			if (parse_groups(argv[++argi], groups, &ngroups)) {
				fprintf(stderr, "dropuid: bad groups\n");
				return 125;
			}
		} else {
			break;
		}
	}
	if (argc - argi < 2) {
		fprintf(stderr, "usage: dropuid [-r] [-g GID[,GID...]] UID CMD [ARG...]\n");
		return 125;
	}
	id = strtol(argv[argi], &end, 10);
	if (*end || id <= 0 || id > 65535) {
		fprintf(stderr, "dropuid: bad uid '%s'\n", argv[argi]);
		return 125;
	}
	/* Keep the permitted set across setresuid() so -r can pick one cap. */
	if (raw && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		goto fail;
	if (setgroups(ngroups, groups) || setresgid(id, id, id) || setresuid(id, id, id))
		goto fail;
	if (raw) {
		err = keep_net_raw();
		if (err) {
			errno = -err;
			goto fail;
		}
	}
	execvp(argv[argi + 1], &argv[argi + 1]);
fail:
	fprintf(stderr, "dropuid: %s\n", strerror(errno));
	return 126;
}
