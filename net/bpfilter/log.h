/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helper logging. Under the module the helper's stderr goes nowhere useful,
 * so the log can be sent to /dev/kmsg with a "bpfilter: " prefix instead.
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

struct log {
	int fd;			/* stderr or an open /dev/kmsg */
	bool kmsg;		/* prefix lines with <level>bpfilter: for dmesg */
	enum log_level level;	/* messages above this level are dropped */
};

struct context;

/* Log to stderr (to_kmsg false) or to /dev/kmsg; falls back to stderr. */
void log_init(struct log *log, bool to_kmsg, enum log_level level);
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
