// SPDX-License-Identifier: GPL-2.0
/*
 * Target lookup and the generic part of xt_check_target(); the standard
 * and ERROR targets live in target_standard.c and target_error.c.
 */
#define _GNU_SOURCE

#include "target.h"

#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>

#include "context.h"
#include "family.h"
#include "rule.h"

/* Every known target. Adding one: a target_*.c file and one line here. */
static const struct target_ops *const target_list[] = {
	&standard_target_ops,
	&error_target_ops,
	&reject_target_ops,
	&reject6_target_ops,
	&log_target_ops,
	&nflog_target_ops,
	&mark_target_ops,
	&notrack_target_ops,
	&ct0_target_ops,
	&ct1_target_ops,
	&ct2_target_ops,
	&snat0_target_ops,
	&dnat0_target_ops,
	&snat1_target_ops,
	&dnat1_target_ops,
	&snat2_target_ops,
	&dnat2_target_ops,
	&masquerade_target_ops,
	&redirect_target_ops,
	&netmap_target_ops,
	&masquerade6_target_ops,
	&redirect6_target_ops,
	&netmap6_target_ops,
};

#define TARGET_COUNT (sizeof(target_list) / sizeof(target_list[0]))

const struct target_ops *target_ops_find(uint8_t nfproto, const char *name, uint8_t revision,
					 int *err)
{
	int i = ext_find((const void *const *)target_list, TARGET_COUNT,
			 offsetof(struct target_ops, id), nfproto, name, revision);

	*err = i < 0 ? i : 0;
	return i < 0 ? NULL : target_list[i];
}

int target_revision(uint8_t nfproto, const char *name, uint8_t revision)
{
	return ext_revision((const void *const *)target_list, TARGET_COUNT,
			    offsetof(struct target_ops, id), nfproto, name, revision);
}

int target_init(struct context *ctx, const struct family *f, const char *table,
		const struct rule *r, const void *target, struct target *t)
{
	const struct xt_entry_target *et = target;
	const struct target_ops *ops;
	int err;

	ops = target_ops_find(f->nfproto, et->u.user.name, et->u.user.revision, &err);
	if (!ops) {
		bf_dbg(ctx, "target '%.*s' rev %u: not found (%d)", XT_EXTENSION_MAXNAMELEN - 1,
		       et->u.user.name, et->u.user.revision, err);
		return err;
	}
	/* xt_check_target()'s order and kernel log lines: size, table, hooks, protocol. */
	if (et->u.target_size - sizeof(*et) != ops->size) {
		bf_xt_err(ctx, "x_tables: %s: %s.%u target: invalid size %u (kernel) != (user) %u",
			  f->name, ops->id.name, ops->id.revision, ops->size,
			  (unsigned int)(et->u.target_size - sizeof(*et)));
		return -EINVAL;
	}
	if (ops->table && strcmp(ops->table, table)) {
		bf_xt_info(ctx, "x_tables: %s: %s target: only valid in %s table, not %s",
			   f->name, ops->id.name, ops->table, table);
		return -EINVAL;
	}
	if (ops->hooks && (r->comefrom & ~ops->hooks)) {
		char used[64], allowed[64];

		bf_xt_info(ctx, "x_tables: %s: %s target: used from hooks %s, but only usable from %s",
			   f->name, ops->id.name, ext_hooks_text(used, sizeof(used), r->comefrom),
			   ext_hooks_text(allowed, sizeof(allowed), ops->hooks));
		return -EINVAL;
	}
	if (ops->proto && (ops->proto != r->ip.proto || (r->ip.invflags & XT_INV_PROTO))) {
		bf_xt_info(ctx, "x_tables: %s: %s target: only valid for protocol %u",
			   f->name, ops->id.name, ops->proto);
		return -EINVAL;
	}
	if (ops->check) {
		err = ops->check(ctx, r, et->data);
		if (err)
			return err;
	}
	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->data = et->data;
	t->target_size = et->u.target_size;
	if (ops == &standard_target_ops) {
		t->verdict = ((const struct xt_standard_target *)et)->verdict;
		t->kind = t->verdict >= 0 ? TARGET_JUMP : TARGET_VERDICT;
	} else if (ops == &error_target_ops) {
		t->kind = TARGET_ERROR;
		t->error_name = ((const struct xt_error_target *)et)->errorname;
	} else {
		t->kind = TARGET_OTHER;
	}
	return 0;
}
