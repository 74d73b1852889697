// SPDX-License-Identifier: GPL-2.0
/*
 * -m time, revision 0 (net/netfilter/xt_time.c): the packet's arrival time
 * (or now) against a daily window, weekdays, monthdays and dates, in UTC or
 * the kernel's timezone. The wall clock and sys_tz are the kernel's, so
 * xt_time runs it all (hold.h): its checkentry and its match.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/xt_time.h>

#include "hold.h"
#include "match.h"

const struct match_ops time_match_ops = {
	.id = { .name = "time", .revision = 0, .families = EXT_UNSPEC, .any_family = true },
	.size = XT_ALIGN(sizeof(struct xt_time_info)),
	.usersize = sizeof(struct xt_time_info),
	.kernel = true,
	.gen = hold_gen,
};
