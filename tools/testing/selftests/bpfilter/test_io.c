// SPDX-License-Identifier: GPL-2.0
/* io.c: exact reads/writes over pipes with partial transfers and EINTR, and pvm_*. */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "io.h"

struct dribble {
	int fd;
	const char *buf;
	size_t len;
};

/* Write one byte at a time with pauses, so the reader sees partial reads. */
static void *dribble_writer(void *arg)
{
	struct dribble *d = arg;
	size_t i;

	for (i = 0; i < d->len; i++) {
		if (write(d->fd, d->buf + i, 1) != 1)
			break;
		usleep(500);
	}
	return NULL;
}

TEST(read_exact_partial)
{
	char msg[64], got[64];
	struct dribble d;
	pthread_t th;
	int p[2];
	size_t i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i * 7;
	ASSERT_EQ(0, pipe(p));
	d = (struct dribble){ p[1], msg, sizeof(msg) };
	ASSERT_EQ(0, pthread_create(&th, NULL, dribble_writer, &d));
	ASSERT_EQ(0, read_exact(p[0], got, sizeof(got)));
	EXPECT_EQ(0, memcmp(msg, got, sizeof(msg)));
	pthread_join(th, NULL);
	close(p[0]);
	close(p[1]);
}

TEST(read_exact_eof)
{
	char buf[16];
	int p[2];

	ASSERT_EQ(0, pipe(p));
	close(p[1]);
	EXPECT_EQ(-ENODATA, read_exact(p[0], buf, sizeof(buf)));
	close(p[0]);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(3, write(p[1], "abc", 3));
	close(p[1]);
	EXPECT_EQ(-EIO, read_exact(p[0], buf, sizeof(buf)));
	close(p[0]);
	EXPECT_EQ(-EBADF, read_exact(-1, buf, sizeof(buf)));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal without SA_RESTART interrupts read(): read_exact retries. */
TEST(read_exact_eintr)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char buf[4];
	pid_t child;
	int p[2];

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		usleep(300000);
		_exit(write(p[1], "wxyz", 4) == 4 ? 0 : 1);
	}
	ualarm(50000, 0);
	EXPECT_EQ(0, read_exact(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "wxyz", 4));
	waitpid(child, NULL, 0);
	close(p[0]);
	close(p[1]);
}

TEST(write_exact_large)
{
	static char big[1 << 20], got[1 << 20];
	int p[2];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = i ^ (i >> 8);
	ASSERT_EQ(0, pipe(p));
	/* The pipe holds 64 KiB: write_exact must loop over short writes. */
	if (fork() == 0) {
		close(p[0]);
		_exit(write_exact(p[1], big, sizeof(big)) ? 1 : 0);
	}
	close(p[1]);
	EXPECT_EQ(0, read_exact(p[0], got, sizeof(got)));
	EXPECT_EQ(0, memcmp(big, got, sizeof(big)));
	wait(NULL);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	EXPECT_EQ(-EPIPE, write_exact(p[1], big, 16));
	close(p[1]);
}

TEST(pvm_own_memory)
{
	char src[100] = "hello from the caller", dst[100] = { 0 };

	EXPECT_EQ(0, pvm_read(getpid(), (uintptr_t)src, dst, sizeof(src)));
	EXPECT_STREQ(src, dst);
	strcpy(dst, "answer");
	EXPECT_EQ(0, pvm_write(getpid(), (uintptr_t)src, dst, 7));
	EXPECT_STREQ("answer", src);
	EXPECT_EQ(0, pvm_read(getpid(), (uintptr_t)src, dst, 0));
}

TEST(pvm_faults)
{
	long page = sysconf(_SC_PAGESIZE);
	char buf[64];
	char *map;

	EXPECT_EQ(-EFAULT, pvm_read(getpid(), 8, buf, sizeof(buf)));
	EXPECT_EQ(-EFAULT, pvm_write(getpid(), 8, buf, sizeof(buf)));
	/* A range that starts mapped and ends unmapped: a short copy is a fault. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	EXPECT_EQ(-EFAULT, pvm_read(getpid(), (uintptr_t)(map + page - 32), buf, sizeof(buf)));
	EXPECT_EQ(-EFAULT, pvm_write(getpid(), (uintptr_t)(map + page - 32), buf, sizeof(buf)));
	EXPECT_EQ(0, pvm_read(getpid(), (uintptr_t)(map + page - 64), buf, sizeof(buf)));
	/* Read-only memory cannot be written through process_vm_writev. */
	ASSERT_EQ(0, mprotect(map, page, PROT_READ));
	EXPECT_EQ(-EFAULT, pvm_write(getpid(), (uintptr_t)map, buf, 8));
	munmap(map, page);
	/* A process that does not exist. */
	EXPECT_EQ(-EFAULT, pvm_read(0x3fffffff, (uintptr_t)buf, buf, 8));
}

TEST_HARNESS_MAIN
