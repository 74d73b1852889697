// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter-hostd CLI: serve a bpfilter helper on a unix socket for the
 * LD_PRELOAD shim.
 *
 *   bpfilter-hostd -s SOCK [-H HELPER] [-S STATEDIR] [-B BPFFSDIR] [-b]
 *
 * -b: go to the background once ready and print the daemon's pid; stop it
 * with kill PID (SIGTERM). Without -b it runs in the foreground.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostd.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: bpfilter-hostd -s SOCK [-H HELPER] [-S STATEDIR] [-B BPFFSDIR] [-b]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct mbox_driver_opts opts = { 0 };
	const char *sock = NULL;
	bool background = false;
	struct hostd h;
	int opt, err;

	while ((opt = getopt(argc, argv, "s:H:S:B:bh")) != -1) {
		switch (opt) {
		case 's':
			sock = optarg;
			break;
		case 'H':
			opts.helper = optarg;
			break;
		case 'S':
			opts.state_dir = optarg;
			break;
		case 'B':
			opts.bpffs_dir = optarg;
			break;
		case 'b':
			background = true;
			break;
		default:
			usage();
		}
	}
	if (!sock)
		usage();
	if (!background) {
		err = hostd_serve(sock, &opts, -1);
		if (err)
			fprintf(stderr, "bpfilter-hostd: %s\n", strerror(-err));
		return err ? 1 : 0;
	}
	err = hostd_start(&h, sock, &opts);
	if (err) {
		fprintf(stderr, "bpfilter-hostd: start failed: %s\n", strerror(-err));
		return 1;
	}
	printf("%d\n", h.pid);
	return 0;
}
