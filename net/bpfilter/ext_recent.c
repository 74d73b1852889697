// SPDX-License-Identifier: GPL-2.0
/*
 * -m recent, revisions 0 and 1 (net/netfilter/xt_recent.c). The lists are
 * the kernel's own: bpfilter_kfunc.ko holds them with xt_recent's
 * checkentry (so /proc/net/xt_recent/NAME and xt_recent's module
 * parameters are as with ip_tables) and the program calls recent_mt()
 * (hold.h). The checks before the list are repeated here, so that a
 * table's errors come in rule order with those of the other matches.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_recent.h>

#include "context.h"
#include "hold.h"
#include "match.h"

/*
 * recent_mt_check() up to the list: flags, one command, modifiers, name.
 * The bound on hitcount is the running kernel's (255 until Linux 6.12,
 * none since): xt_recent's own checkentry, which the module runs before
 * the table is put in force, applies it.
 */
static int recent_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_recent_mtinfo *info = data;
	uint8_t cmd = info->check_set &
		      (XT_RECENT_SET | XT_RECENT_REMOVE | XT_RECENT_CHECK | XT_RECENT_UPDATE);
	size_t len = strnlen(info->name, sizeof(info->name));

	(void)r;
	if (info->check_set & ~XT_RECENT_VALID_FLAGS) {
		bf_xt_info(ctx, "xt_recent: Unsupported userspace flags (%08x)", info->check_set);
		return -EINVAL;
	}
	if (!cmd || (cmd & (cmd - 1)))
		return -EINVAL;
	if ((info->check_set & (XT_RECENT_SET | XT_RECENT_REMOVE)) &&
	    (info->seconds || info->hit_count || (info->check_set & XT_RECENT_MODIFIERS)))
		return -EINVAL;
	if ((info->check_set & XT_RECENT_REAP) && !info->seconds)
		return -EINVAL;
	/* xt_check_proc_name() */
	if (len == 0)
		return -EINVAL;
	if (len == sizeof(info->name))
		return -ENAMETOOLONG;
	if (!strcmp(info->name, ".") || !strcmp(info->name, "..") || strchr(info->name, '/'))
		return -EINVAL;
	return 0;
}

const struct match_ops recent0_match_ops = {
	.id = { .name = "recent", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_recent_mtinfo)),
	.usersize = sizeof(struct xt_recent_mtinfo),
	.check = recent_check,
	.kernel = true,
	.gen = hold_gen,
};

const struct match_ops recent1_match_ops = {
	.id = { .name = "recent", .revision = 1, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_recent_mtinfo_v1)),
	.usersize = sizeof(struct xt_recent_mtinfo_v1),
	.check = recent_check,
	.kernel = true,
	.gen = hold_gen,
};
