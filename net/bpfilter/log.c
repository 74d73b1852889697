// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void log_init(struct log *log, enum log_target target, enum log_level level)
{
	log->fd = STDERR_FILENO;
	log->kmsg = false;
	log->levels = target == LOG_TO_MODULE;
	log->level = level;
	if (target == LOG_TO_KMSG) {
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			log->fd = fd;
			log->kmsg = true;
			log->levels = true;
		}
	}
}

void log_fini(struct log *log)
{
	if (log->kmsg)
		close(log->fd);
	log->fd = STDERR_FILENO;
	log->kmsg = false;
}

void log_msg(struct log *log, enum log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n = 0;
	ssize_t ret;

	if (level > log->level)
		return;
	/* kmsg and the module take one record per write(): build the whole line first. */
	if (log->levels)
		n = snprintf(buf, sizeof(buf), "<%d>bpfilter: ", level);
	else
		n = snprintf(buf, sizeof(buf), "bpfilter: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	if (buf[n - 1] != '\n')
		buf[n++] = '\n';
	do {
		ret = write(log->fd, buf, n);
	} while (ret < 0 && errno == EINTR);
}
