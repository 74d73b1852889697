// SPDX-License-Identifier: GPL-2.0
/*
 * Match lookup and the generic part of xt_check_match(); each extension's
 * own check lives in its ext_*.c file.
 */
#define _GNU_SOURCE

#include "match.h"

#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>

#include "context.h"
#include "family.h"
#include "rule.h"

/* Every known match. Adding one: an ext_*.c file and one line here. */
static const struct match_ops *const match_list[] = {
	&tcp_match_ops,
	&udp_match_ops,
	&icmp_match_ops,
	&icmp6_match_ops,
	&comment_match_ops,
	&multiport_match_ops,
	&iprange_match_ops,
	&mark_match_ops,
	&length_match_ops,
	&ttl_match_ops,
	&tos_match_ops,
	&dscp_match_ops,
	&ah_match_ops,
	&ah6_match_ops,
	&frag_match_ops,
	&hbh_match_ops,
	&dst_match_ops,
	&rt_match_ops,
	&ipv6header_match_ops,
	&esp_match_ops,
	&conntrack1_match_ops,
	&conntrack2_match_ops,
	&conntrack3_match_ops,
	&state_match_ops,
	&limit_match_ops,
	&recent0_match_ops,
	&recent1_match_ops,
	&cpu_match_ops,
	&statistic_match_ops,
	&addrtype0_match_ops,
	&addrtype1_match_ops,
	&pkttype_match_ops,
	&devgroup_match_ops,
	&realm_match_ops,
	&mac_match_ops,
	&connmark_match_ops,
	&owner_match_ops,
	&set0_match_ops,
	&set1_match_ops,
	&set2_match_ops,
	&set3_match_ops,
	&set4_match_ops,
	&hashlimit1_match_ops,
	&hashlimit2_match_ops,
	&hashlimit3_match_ops,
	&connlimit_match_ops,
	&string_match_ops,
	&time_match_ops,
	&physdev_match_ops,
	&cgroup0_match_ops,
	&cgroup1_match_ops,
	&cgroup2_match_ops,
	&ecn_match_ops,
	&tcpmss_match_ops,
	&u32_match_ops,
	&hl_match_ops,
	&mh_match_ops,
	&eui64_match_ops,
};

#define MATCH_COUNT (sizeof(match_list) / sizeof(match_list[0]))

const struct match_ops *match_ops_find(uint8_t nfproto, const char *name, uint8_t revision,
				       int *err)
{
	int i = ext_find((const void *const *)match_list, MATCH_COUNT,
			 offsetof(struct match_ops, id), nfproto, name, revision);

	*err = i < 0 ? i : 0;
	return i < 0 ? NULL : match_list[i];
}

int match_revision(uint8_t nfproto, const char *name, uint8_t revision)
{
	return ext_revision((const void *const *)match_list, MATCH_COUNT,
			    offsetof(struct match_ops, id), nfproto, name, revision);
}

int match_init(struct context *ctx, const struct family *f, const struct rule *r,
	       const struct xt_entry_match *em, uint32_t offset, struct match *m)
{
	const struct match_ops *ops;
	int err;

	ops = match_ops_find(f->nfproto, em->u.user.name, em->u.user.revision, &err);
	if (!ops) {
		bf_dbg(ctx, "match '%.*s' rev %u: not found (%d)", XT_EXTENSION_MAXNAMELEN - 1,
		       em->u.user.name, em->u.user.revision, err);
		return err;
	}
	/* The generic checks of xt_check_match(), in its order, with its kernel log lines. */
	if (em->u.match_size - sizeof(*em) != ops->size) {
		bf_xt_err(ctx, "x_tables: %s: %s.%u match: invalid size %u (kernel) != (user) %u",
			  f->name, ops->id.name, ops->id.revision, ops->size,
			  (unsigned int)(em->u.match_size - sizeof(*em)));
		return -EINVAL;
	}
	if (ops->hooks && (r->comefrom & ~ops->hooks)) {
		char used[64], allowed[64];

		bf_xt_info(ctx, "x_tables: %s: %s match: used from hooks %s, but only valid from %s",
			   f->name, ops->id.name, ext_hooks_text(used, sizeof(used), r->comefrom),
			   ext_hooks_text(allowed, sizeof(allowed), ops->hooks));
		return -EINVAL;
	}
	if (ops->proto && (ops->proto != r->ip.proto || (r->ip.invflags & XT_INV_PROTO))) {
		bf_xt_info(ctx, "x_tables: %s: %s match: only valid for protocol %u",
			   f->name, ops->id.name, ops->proto);
		return -EINVAL;
	}
	if (ops->check) {
		err = ops->check(ctx, r, em->data);
		if (err)
			return err;
	}
	m->ops = ops;
	m->data = em->data;
	m->offset = offset;
	m->match_size = em->u.match_size;
	return 0;
}
