/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helper logging: to stderr, to /dev/kmsg with a "bpfilter: " prefix, or,
 * under the module, to its stderr with each line's level in front ("<7>"),
 * which the module turns into the matching printk: routine success is
 * debug (dynamic debug shows it), refusals and failures are warnings and
 * errors.
 */
#ifndef NET_BPFILTER_LOG_H
#define NET_BPFILTER_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LVL_ERR = 3,
	LOG_LVL_WARN = 4,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

enum log_target {
	LOG_TO_STDERR,		/* "bpfilter: msg" */
	LOG_TO_KMSG,		/* "<level>bpfilter: msg" on /dev/kmsg */
	LOG_TO_MODULE,		/* "<level>msg" on stderr, the module's log file */
};

struct log {
	int fd;			/* stderr or an open /dev/kmsg */
	bool kmsg;		/* fd is our own /dev/kmsg */
	bool levels;		/* prefix lines with <level> */
	enum log_level level;	/* messages above this level are dropped */
};

struct context;

/* Log to @target (/dev/kmsg falls back to stderr), dropping what is above @level. */
void log_init(struct log *log, enum log_target target, enum log_level level);
/* Close /dev/kmsg if it was opened. */
void log_fini(struct log *log);
/* Write one printf-style message at @level; never fails. */
void log_msg(struct log *log, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define bf_err(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_ERR, fmt, ##__VA_ARGS__)
#define bf_warn(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_WARN, fmt, ##__VA_ARGS__)
#define bf_info(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_INFO, fmt, ##__VA_ARGS__)
#define bf_dbg(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_DEBUG, fmt, ##__VA_ARGS__)

#endif /* NET_BPFILTER_LOG_H */
