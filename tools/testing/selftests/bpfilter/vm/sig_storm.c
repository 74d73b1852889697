// SPDX-License-Identifier: GPL-2.0
/*
 * sig_storm get|replace ITER: issue ITER large iptables sockopts on the filter
 * table (get: IPT_SO_GET_ENTRIES; replace: IPT_SO_SET_REPLACE of the same
 * table, asking for its old counters back) while a child process sends
 * SIGUSR1 to this one every ~100 us, without SA_RESTART.
 *
 * After each call returns, whatever its result, the memory the kernel may
 * write for it (the entries, or the old counters) is filled with a guard byte
 * and checked again GUARD_MS later. A changed byte means something wrote into
 * this process after its syscall had returned: bpfilter's helper finishing a
 * process_vm_writev() for a caller that had already left.
 *
 * Prints one line: "calls N ok N eintr N other N signalled N late N", where
 * signalled counts the calls during which a signal arrived.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUARD		0xa5
#define GUARD_MS	150

static volatile sig_atomic_t hits;

static void on_signal(int sig)
{
	(void)sig;
	hits++;
}

static void sleep_ms(long ms)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
		;
}

/* Fill [p, p + len) with the guard, wait, and say where it changed (-1: nowhere). */
static long guard_check(unsigned char *p, size_t len)
{
	size_t i;

	memset(p, GUARD, len);
	sleep_ms(GUARD_MS);
	for (i = 0; i < len; i++)
		if (p[i] != GUARD)
			return (long)i;
	return -1;
}

static pid_t storm_start(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid)
		return pid;
	for (;;) {
		if (kill(parent, SIGUSR1) || getppid() != parent)
			_exit(0);
		usleep(100);
	}
}

int main(int argc, char **argv)
{
	struct ipt_getinfo info = { .name = "filter" };
	struct ipt_get_entries *get;
	struct xt_counters *ctrs = NULL;
	struct ipt_replace *repl = NULL;
	unsigned int calls = 0, ok = 0, eintr = 0, other = 0, signalled = 0, late = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	socklen_t len = sizeof(info);
	int iter, replace, fd, i;
	size_t glen, ctrs_len = 0;
	pid_t storm;

	if (argc != 3 || (strcmp(argv[1], "get") && strcmp(argv[1], "replace"))) {
		fprintf(stderr, "usage: %s get|replace ITER\n", argv[0]);
		return 2;
	}
	replace = !strcmp(argv[1], "replace");
	iter = atoi(argv[2]);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, &info, &len)) {
		perror("sig_storm: GET_INFO");
		return 1;
	}
	glen = sizeof(*get) + info.size;
	get = calloc(1, glen);
	if (!get)
		return 1;
	if (replace) {
		/* The table as it is, read before the storm starts. */
		len = glen;
		strcpy(get->name, "filter");
		get->size = info.size;
		if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_ENTRIES, get, &len)) {
			perror("sig_storm: GET_ENTRIES");
			return 1;
		}
		ctrs_len = info.num_entries * sizeof(*ctrs);
		ctrs = calloc(1, ctrs_len);
		repl = calloc(1, sizeof(*repl) + info.size);
		if (!ctrs || !repl)
			return 1;
		strcpy(repl->name, "filter");
		repl->valid_hooks = info.valid_hooks;
		repl->num_entries = info.num_entries;
		repl->size = info.size;
		memcpy(repl->hook_entry, info.hook_entry, sizeof(info.hook_entry));
		memcpy(repl->underflow, info.underflow, sizeof(info.underflow));
		repl->num_counters = info.num_entries;
		repl->counters = ctrs;
		memcpy(repl->entries, get->entrytable, info.size);
	}

	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: calls see EINTR */
	storm = storm_start();
	if (storm < 0) {
		perror("sig_storm: fork");
		return 1;
	}
	for (i = 0; i < iter; i++) {
		sig_atomic_t before = hits;
		unsigned char *out;
		size_t out_len;
		long where;
		int ret;

		if (replace) {
			ret = setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, repl,
					 sizeof(*repl) + info.size);
			out = (unsigned char *)ctrs;
			out_len = ctrs_len;
		} else {
			len = glen;
			memset(get, 0, sizeof(*get));
			strcpy(get->name, "filter");
			get->size = info.size;
			ret = getsockopt(fd, IPPROTO_IP, IPT_SO_GET_ENTRIES, get, &len);
			out = (unsigned char *)get;
			out_len = glen;
		}
		calls++;
		if (!ret)
			ok++;
		else if (errno == EINTR)
			eintr++;
		else
			other++;
		if (ret && errno != EINTR)
			fprintf(stderr, "sig_storm: call %d: %s\n", i, strerror(errno));
		if (hits != before)
			signalled++;
		where = guard_check(out, out_len);
		if (where >= 0) {
			late++;
			fprintf(stderr, "sig_storm: call %d: byte %ld of %zu written after return\n",
				i, where, out_len);
		}
	}
	kill(storm, SIGKILL);
	waitpid(storm, NULL, 0);
	printf("calls %u ok %u eintr %u other %u signalled %u late %u\n",
	       calls, ok, eintr, other, signalled, late);
	return 0;
}
