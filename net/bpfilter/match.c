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

/* Every known match. Adding one: an ext_*.c file and one line here. */
static const struct match_ops *const match_list[] = {
	&tcp_match_ops,
	&udp_match_ops,
	&icmp_match_ops,
};

#define MATCH_COUNT (sizeof(match_list) / sizeof(match_list[0]))

const struct match_ops *match_ops_find(const char *name, uint8_t revision, int *err)
{
	static const uint8_t families[] = { NFPROTO_IPV4, NFPROTO_UNSPEC };
	unsigned int f, i;

	if (strnlen(name, XT_EXTENSION_MAXNAMELEN) == XT_EXTENSION_MAXNAMELEN) {
		*err = -EINVAL;
		return NULL;
	}
	/*
	 * Like xt_find_match(): the IPv4 list first, then the NFPROTO_UNSPEC
	 * one, and only the last list's verdict counts. So a wrong revision of
	 * an IPv4 match is ENOENT and of an UNSPEC match EPROTOTYPE.
	 */
	for (f = 0; f < sizeof(families); f++) {
		*err = -ENOENT;
		for (i = 0; i < MATCH_COUNT; i++) {
			const struct match_ops *ops = match_list[i];

			if (ops->family != families[f] || strcmp(ops->name, name))
				continue;
			if (ops->revision == revision)
				return ops;
			*err = -EPROTOTYPE;
		}
	}
	return NULL;
}

int match_revision(const char *name, uint8_t revision)
{
	int best = -1, have = 0;
	unsigned int i;

	/* xt_find_revision(): any family's entry of that name counts. */
	for (i = 0; i < MATCH_COUNT; i++) {
		const struct match_ops *ops = match_list[i];

		if (strcmp(ops->name, name))
			continue;
		if (ops->revision > best)
			best = ops->revision;
		if (ops->revision == revision)
			have = 1;
	}
	if (best < 0)
		return -ENOENT;
	return have ? 0 : -EPROTONOSUPPORT;
}

int match_init(struct context *ctx, const struct ipt_ip *ip, const struct xt_entry_match *em,
	       uint32_t offset, struct match *m)
{
	const struct match_ops *ops;
	int err;

	ops = match_ops_find(em->u.user.name, em->u.user.revision, &err);
	if (!ops) {
		bf_dbg(ctx, "match '%.*s' rev %u: not found (%d)", XT_EXTENSION_MAXNAMELEN - 1,
		       em->u.user.name, em->u.user.revision, err);
		return err;
	}
	/* The generic checks of xt_check_match(), in its order. */
	if (em->u.match_size - sizeof(*em) != ops->size) {
		bf_dbg(ctx, "match '%s': size %u, want %u", ops->name,
		       (unsigned int)(em->u.match_size - sizeof(*em)), ops->size);
		return -EINVAL;
	}
	if (ops->proto && (ops->proto != ip->proto || (ip->invflags & IPT_INV_PROTO))) {
		bf_dbg(ctx, "match '%s': only valid for protocol %u", ops->name, ops->proto);
		return -EINVAL;
	}
	if (ops->check) {
		err = ops->check(ctx, ip, em->data);
		if (err)
			return err;
	}
	m->ops = ops;
	m->data = em->data;
	m->offset = offset;
	m->match_size = em->u.match_size;
	return 0;
}
