// SPDX-License-Identifier: GPL-2.0
/*
 * One ipt_entry or ip6t_entry: the per-entry checks of translate_table()
 * and the parse into struct rule.
 */
#define _GNU_SOURCE

#include "rule.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "context.h"
#include "family.h"

/*
 * Until the whole entry is validated its target may sit at any offset, so
 * it is only looked at through byte pointers (no misaligned struct access).
 */
static const char *entry_target(const struct family *f, const void *e)
{
	return (const char *)e + entry_target_offset(f, e);
}

static const char *entry_target_name(const struct family *f, const void *e)
{
	return entry_target(f, e) + offsetof(struct xt_entry_target, u.user.name);
}

/* verdict_ok() of x_tables.c: a jump offset, or DROP, ACCEPT, QUEUE, RETURN. */
static int verdict_ok(int verdict)
{
	if (verdict > 0 || verdict == XT_RETURN)
		return 1;
	switch (verdict) {
	case -NF_ACCEPT - 1:
	case -NF_DROP - 1:
	case -NF_QUEUE - 1:
		return 1;
	}
	return 0;
}

/* xt_check_entry_match(): matches 8-aligned, each >= 32 bytes, tiling up to the target. */
static int check_entry_matches(const struct family *f, const void *e, uint32_t offset)
{
	int length = entry_target_offset(f, e) - f->entry_size;
	uint32_t pos = f->entry_size;

	while (length > 0) {
		const struct xt_entry_match *m = (const void *)((const char *)e + pos);

		if ((offset + pos) % __alignof__(struct xt_entry_match))
			return -EINVAL;
		if (length < (int)sizeof(*m))
			return -EINVAL;
		if (m->u.match_size < sizeof(*m))
			return -EINVAL;
		if (m->u.match_size > length)
			return -EINVAL;
		length -= m->u.match_size;
		pos += m->u.match_size;
	}
	return 0;
}

int rule_check_entry(const struct family *f, const void *e, uint32_t offset, uint32_t limit)
{
	uint16_t target_size, target_offset, next_offset;
	const unsigned char *ip = e;
	const char *tname;

	/* check_entry_size_and_hooks(), then ip_checkentry(), then xt_check_entry_offsets(). */
	if (offset % __alignof__(struct ipt_entry) ||
	    (uint64_t)offset + f->entry_size >= limit)
		return -EINVAL;
	next_offset = entry_next_offset(f, e);
	target_offset = entry_target_offset(f, e);
	if ((uint64_t)offset + next_offset > limit)
		return -EINVAL;
	if (next_offset < f->entry_size + sizeof(struct xt_entry_target))
		return -EINVAL;
	if (ip[f->off_flags] & ~f->flags_mask || ip[f->off_invflags] & ~f->invflags_mask)
		return -EINVAL;

	if (target_offset < f->entry_size)
		return -EINVAL;
	if (target_offset + sizeof(struct xt_entry_target) > next_offset)
		return -EINVAL;
	memcpy(&target_size, entry_target(f, e) + offsetof(struct xt_entry_target, u.target_size),
	       sizeof(target_size));
	if (target_size < sizeof(struct xt_entry_target))
		return -EINVAL;
	if (target_offset + target_size > next_offset)
		return -EINVAL;
	tname = entry_target_name(f, e);
	if (!strcmp(tname, XT_STANDARD_TARGET)) {
		if (XT_ALIGN(target_offset + sizeof(struct xt_standard_target)) != next_offset)
			return -EINVAL;
		if (!verdict_ok(rule_entry_verdict(f, e)))
			return -EINVAL;
	} else if (!strcmp(tname, XT_ERROR_TARGET)) {
		const char *msg = entry_target(f, e) + offsetof(struct xt_error_target, errorname);

		if (target_size != sizeof(struct xt_error_target) ||
		    strnlen(msg, XT_FUNCTION_MAXNAMELEN) >= XT_FUNCTION_MAXNAMELEN)
			return -EINVAL;
	}
	return check_entry_matches(f, e, offset);
}

int rule_entry_verdict(const struct family *f, const void *e)
{
	int verdict;

	memcpy(&verdict, entry_target(f, e) + offsetof(struct xt_standard_target, verdict),
	       sizeof(verdict));
	return verdict;
}

int rule_entry_is_standard(const struct family *f, const void *e)
{
	return !strcmp(entry_target_name(f, e), XT_STANDARD_TARGET);
}

int rule_unconditional(const struct family *f, const void *e)
{
	static const struct ip6t_ip6 uncond;	/* the bigger of the two */
	const unsigned char *ip = e;
	uint16_t i;

	for (i = 0; i < f->ip_size && i < sizeof(uncond); i++)
		if (ip[i])
			return 0;
	return entry_target_offset(f, e) == f->entry_size;
}

int rule_init(struct context *ctx, const struct family *f, const char *table, const void *e,
	      uint32_t offset, struct rule *rule)
{
	uint16_t target_offset = entry_target_offset(f, e);
	uint32_t pos, n = 0;
	int err;

	memset(rule, 0, sizeof(*rule));
	rule->offset = offset;
	rule->target_offset = target_offset;
	rule->next_offset = entry_next_offset(f, e);
	f->to_model(e, &rule->ip);
	rule->comefrom = entry_comefrom(f, e);

	for (pos = f->entry_size; pos < target_offset;
	     pos += ((const struct xt_entry_match *)((const char *)e + pos))->u.match_size)
		n++;
	if (n) {
		rule->matches = calloc(n, sizeof(*rule->matches));
		if (!rule->matches)
			return -ENOMEM;
	}

	/* find_check_entry(): each match found and checked in order, then the target. */
	for (pos = f->entry_size; pos < target_offset;) {
		const struct xt_entry_match *em = (const void *)((const char *)e + pos);

		err = match_init(ctx, f, rule, em, pos, &rule->matches[rule->num_matches]);
		if (err)
			goto err_free;
		rule->num_matches++;
		pos += em->u.match_size;
	}
	err = target_init(ctx, f, table, rule, (const char *)e + target_offset, &rule->target);
	if (err)
		goto err_free;
	return 0;

err_free:
	rule_free(rule);
	return err;
}

void rule_free(struct rule *rule)
{
	free(rule->matches);
	rule->matches = NULL;
	rule->num_matches = 0;
}
