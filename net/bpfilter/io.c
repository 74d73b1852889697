// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE

#include "io.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

int read_exact(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return done ? -EIO : -ENODATA;
		done += n;
	}
	return 0;
}

int write_exact(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		done += n;
	}
	return 0;
}

/*
 * process_vm_{readv,writev} stop at the first page they cannot access and
 * report a partial count, so retry for the rest: a second attempt at the
 * same place fails and tells a fault apart from a merely partial transfer.
 * Whatever the reason (gone process, bad address), the caller sees EFAULT,
 * as it would from copy_from_user() in ip_tables.
 */
static int pvm_xfer(pid_t pid, uint64_t addr, void *buf, size_t len, int write)
{
	size_t done = 0;

	while (done < len) {
		struct iovec local = { (char *)buf + done, len - done };
		struct iovec remote = { (void *)(uintptr_t)(addr + done), len - done };
		ssize_t n;

		if (write)
			n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
		else
			n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EFAULT;
		done += n;
	}
	return 0;
}

int pvm_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return pvm_xfer(pid, addr, buf, len, 0);
}

int pvm_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	return pvm_xfer(pid, addr, (void *)buf, len, 1);
}
