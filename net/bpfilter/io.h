/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only place that deals with partial transfers and EINTR: the mbox pipe
 * and the caller's memory (process_vm_readv/process_vm_writev).
 */
#ifndef NET_BPFILTER_IO_H
#define NET_BPFILTER_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Read exactly @len bytes: 0, -ENODATA on EOF before the first byte, -EIO on EOF mid-record,
 * or -errno.
 */
int read_exact(int fd, void *buf, size_t len);
/* Write exactly @len bytes: 0 or -errno. */
int write_exact(int fd, const void *buf, size_t len);
/*
 * Copy @len bytes at @addr in process @pid into @buf: 0, or -EFAULT on any failure or short
 * copy.
 */
int pvm_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/*
 * Copy @len bytes from @buf to @addr in process @pid: 0, or -EFAULT on any failure or short
 * copy.
 */
int pvm_write(pid_t pid, uint64_t addr, const void *buf, size_t len);

#endif /* NET_BPFILTER_IO_H */
