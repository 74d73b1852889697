// SPDX-License-Identifier: GPL-2.0
/*
 * The ERROR target: heads every user chain (its payload is the chain name)
 * and ends the table. Reaching it drops the packet. Size and NUL checks are
 * done with the entry (rule_check_entry(), like error_tg_ok()).
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>

#include "target.h"

const struct target_ops error_target_ops = {
	.id = { .name = XT_ERROR_TARGET, .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(XT_FUNCTION_MAXNAMELEN),
	.usersize = XT_FUNCTION_MAXNAMELEN,
};
