// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE

#include "log.h"

#include <linux/bpfilter.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void log_init(struct log *log, enum log_target target, enum log_level level)
{
	memset(log, 0, sizeof(*log));
	log->fd = STDERR_FILENO;
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

/* Write @prefix and the formatted message as one line, one write(). */
static void log_line(struct log *log, const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	ssize_t ret;
	int n;

	/* kmsg and the module take one record per write(): build the whole line first. */
	n = snprintf(buf, sizeof(buf), "%s", prefix);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	if (buf[n - 1] != '\n')
		buf[n++] = '\n';
	do {
		ret = write(log->fd, buf, n);
	} while (ret < 0 && errno == EINTR);
}

void log_msg(struct log *log, enum log_level level, const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	if (level > log->level)
		return;
	if (log->levels)
		snprintf(prefix, sizeof(prefix), "<%d>bpfilter: ", level);
	else
		snprintf(prefix, sizeof(prefix), "bpfilter: ");
	va_start(ap, fmt);
	log_line(log, prefix, fmt, ap);
	va_end(ap);
}

uint64_t log_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* __ratelimit() for the call site @site: true if its line may print now. */
static bool log_xt_allowed(struct log *log, const void *site)
{
	struct log_xt_site *s = NULL, *oldest = &log->xt_sites[0];
	uint64_t now;
	int i;

	now = log_now_ns();
	for (i = 0; i < LOG_XT_SITES && !s; i++) {
		if (log->xt_sites[i].site == site)
			s = &log->xt_sites[i];
		else if (log->xt_sites[i].begin < oldest->begin)
			oldest = &log->xt_sites[i];
	}
	if (!s) {
		s = oldest;
		s->site = site;
		s->begin = 0;
	}
	if (!s->begin || now - s->begin >= LOG_XT_INTERVAL_NS) {
		s->begin = now;
		s->printed = 0;
	}
	if (s->printed >= LOG_XT_BURST)
		return false;
	s->printed++;
	return true;
}

void log_xt(struct log *log, const void *site, enum log_level level, const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	if (level > log->level || !log_xt_allowed(log, site))
		return;
	if (log->kmsg)
		snprintf(prefix, sizeof(prefix), "<%d>", level);
	else if (log->levels)
		snprintf(prefix, sizeof(prefix), "<%d>%s", level, BPFILTER_LOG_XT);
	else
		snprintf(prefix, sizeof(prefix), "bpfilter: ");
	va_start(ap, fmt);
	log_line(log, prefix, fmt, ap);
	va_end(ap);
}
