// SPDX-License-Identifier: GPL-2.0
/*
 * The standard target (name ""): a verdict (ACCEPT, DROP, QUEUE, RETURN) or
 * a jump to an entry offset. Its payload is checked with the entry itself
 * (rule_check_entry(), like xt_check_entry_offsets()).
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>

#include "target.h"

const struct target_ops standard_target_ops = {
	.id = { .name = XT_STANDARD_TARGET, .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(int)),
	.usersize = sizeof(int),
};
