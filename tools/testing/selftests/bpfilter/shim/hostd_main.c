// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter-hostd CLI: serve a bpfilter helper on a unix socket for the
 * LD_PRELOAD shim: ip_tables and ip6_tables calls alike, each request with
 * its family.
 *
 *   bpfilter-hostd -s SOCK [-H HELPER] [-S STATEDIR] [-B BPFFSDIR] [-l LOG]
 *                  [-T MS] [-C] [-b]
 *
 * -b: go to the background once ready and print the daemon's pid; stop it
 * with kill PID (SIGTERM). Without -b it runs in the foreground.
 * -l: the daemon's and the helper's stderr go to LOG (appended) instead of
 * ours.
 * -C: requests say conntrack is held in every namespace, as bpfilter.ko says
 *     where it holds it: the caller keeps conntrack on there itself;
 * -T: bound on one request in milliseconds (default MBOX_DRIVER_TIMEOUT_MS);
 * big tables take longer than that to verify.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostd.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: bpfilter-hostd -s SOCK [-H HELPER] [-S STATEDIR] [-B BPFFSDIR] [-l LOG] [-T MS] [-C] [-b]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct mbox_driver_opts opts = { 0 };
	const char *sock = NULL, *log = NULL;
	bool background = false;
	struct pollfd pfd;
	int opt, err, nul, fd, p[2];
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "s:H:S:B:l:T:Cbh")) != -1) {
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
		case 'C':
			opts.ct_held = true;
			break;
		case 'l':
			log = optarg;
			break;
		case 'T':
			opts.timeout_ms = atoi(optarg);
			if (opts.timeout_ms <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (!sock)
		usage();
	if (log) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0) {
			perror(log);
			return 1;
		}
		close(fd);
	}
	if (!background) {
		err = hostd_serve(sock, &opts, -1);
		if (err)
			fprintf(stderr, "bpfilter-hostd: %s\n", strerror(-err));
		return err ? 1 : 0;
	}
	/*
	 * Background: fork the daemon ourselves so that it keeps none of our
	 * descriptors (`pid=$(bpfilter-hostd -b ...)` would otherwise wait for
	 * its stdout forever); only the pid line goes to our stdout.
	 */
	if (pipe(p)) {
		perror("bpfilter-hostd");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bpfilter-hostd");
		return 1;
	}
	if (pid == 0) {
		nul = open("/dev/null", O_RDWR);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0)
			_exit(1);
		/* Bounded: descriptors above 1023 are not expected here. */
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[1])
				close(fd);
		setsid();
		_exit(hostd_serve(sock, &opts, p[1]) ? 1 : 0);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1 || read(p[0], &c, 1) != 1) {
		fprintf(stderr, "bpfilter-hostd: daemon did not come up\n");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	printf("%d\n", pid);
	return 0;
}
