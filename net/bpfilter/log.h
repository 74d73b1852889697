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
#include <stdint.h>

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

/* How often one x_tables line may print: pr_*_ratelimited()'s default. */
#define LOG_XT_INTERVAL_NS	(5ULL * 1000000000ULL)
#define LOG_XT_BURST		10
#define LOG_XT_SITES		16

/* One x_tables line's ratelimit, kept per call site as the kernel keeps it. */
struct log_xt_site {
	const void *site;	/* log_xt()'s @site */
	uint64_t begin;		/* CLOCK_MONOTONIC ns: this interval's start */
	unsigned int printed;	/* lines printed in this interval */
};

struct log {
	int fd;			/* stderr or an open /dev/kmsg */
	bool kmsg;		/* fd is our own /dev/kmsg */
	bool levels;		/* prefix lines with <level> */
	enum log_level level;	/* messages above this level are dropped */
	struct log_xt_site xt_sites[LOG_XT_SITES];
};

struct context;

/* Log to @target (/dev/kmsg falls back to stderr), dropping what is above @level. */
void log_init(struct log *log, enum log_target target, enum log_level level);
/* Close /dev/kmsg if it was opened. */
void log_fini(struct log *log);
/* Write one printf-style message at @level; never fails. */
void log_msg(struct log *log, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Write the line x_tables or an xt extension prints for the same event under
 * ip_tables, word for word ("x_tables: ip_tables: ..."): under the module it
 * reaches dmesg without bpfilter's prefix (BPFILTER_LOG_XT). Ratelimited per
 * @site, a call site's own address, as pr_*_ratelimited() is per call site.
 */
void log_xt(struct log *log, const void *site, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC in nanoseconds, for ratelimits and the timings in debug lines. */
uint64_t log_now_ns(void);

#define bf_err(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_ERR, fmt, ##__VA_ARGS__)
#define bf_warn(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_WARN, fmt, ##__VA_ARGS__)
#define bf_info(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_INFO, fmt, ##__VA_ARGS__)
#define bf_dbg(ctx, fmt, ...) log_msg(&(ctx)->log, LOG_LVL_DEBUG, fmt, ##__VA_ARGS__)
/* x_tables' pr_err_ratelimited() and pr_info_ratelimited() lines. */
#define bf_xt_log(ctx, level, fmt, ...) ({					\
	static const char site_;						\
	log_xt(&(ctx)->log, &site_, level, fmt, ##__VA_ARGS__);			\
})
#define bf_xt_err(ctx, fmt, ...) bf_xt_log(ctx, LOG_LVL_ERR, fmt, ##__VA_ARGS__)
#define bf_xt_info(ctx, fmt, ...) bf_xt_log(ctx, LOG_LVL_INFO, fmt, ##__VA_ARGS__)

#endif /* NET_BPFILTER_LOG_H */
