/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets (-j name): ops tables keyed by name and revision. The standard
 * target (name "") carries a verdict or a jump; ERROR marks chain heads and
 * the end of the table.
 */
#ifndef NET_BPFILTER_TARGET_H
#define NET_BPFILTER_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netfilter/x_tables.h>

#include "extension.h"

struct context;
struct codegen;
struct family;
struct rule;
struct target;

struct target_ops {
	struct ext_id id;
	uint16_t size;		/* payload size, XT_ALIGN'd: target_size must be 32 + size */
	uint16_t usersize;	/* bytes the kernel copies back in GET_ENTRIES (its targetsize) */
	uint8_t proto;		/* required proto of the entry, 0 = any */
	uint8_t hooks;		/* 1 << NF_INET_* the rule may be reached from, 0 = any */
	const char *table;	/* the only table it is valid in (xt_target.table), NULL = any */
	/* the extension's own payload check: 0 or -errno */
	int (*check)(struct context *ctx, const struct rule *r, const void *data);
	/*
	 * An extension target's BPF (TARGET_OTHER), after the rule's counter:
	 * it ends the program with a verdict, or falls through to the next rule
	 * if .continues (XT_CONTINUE). NULL: no translation.
	 */
	int (*gen)(struct codegen *cg, const struct rule *rule, const struct target *t);
	bool continues;
	/*
	 * checkentry, target and destroy are the kernel module's own:
	 * bpfilter_kfunc.ko holds the checkentry (hold.h); gen is hold_target_gen
	 */
	bool kernel;
};

enum target_kind {
	TARGET_VERDICT,		/* standard target, verdict < 0 */
	TARGET_JUMP,		/* standard target, verdict = offset of another entry */
	TARGET_ERROR,		/* ERROR: chain head or end of table; drops if reached */
	TARGET_OTHER,		/* any other extension target */
};

/* The parsed target of one rule. data points into the owning table's blob. */
struct target {
	const struct target_ops *ops;
	enum target_kind kind;
	/*
	 * TARGET_VERDICT: XT_RETURN or -NF_x - 1 (-1 DROP, -2 ACCEPT, -4 QUEUE);
	 * TARGET_JUMP: offset
	 */
	int verdict;
	/* TARGET_JUMP: index of the rule jumped to; a goto if the rule has IPT_F_GOTO */
	uint32_t jump_index;
	const char *error_name;	/* TARGET_ERROR: the NUL-terminated chain/error name */
	const void *data;	/* payload */
	uint16_t target_size;	/* xt_entry_target.u.target_size */
	uint32_t hold_id;	/* ops->kernel: the hold's id (holds_number()) */
};

/*
 * Find the target @name/@revision of family @nfproto as xt_find_target does: ops, or
 * NULL with *err -EINVAL/-ENOENT/-EPROTOTYPE.
 */
const struct target_ops *target_ops_find(uint8_t nfproto, const char *name, uint8_t revision,
					 int *err);
/*
 * Answer IPT_SO_GET_REVISION_TARGET of family @nfproto for @name/@revision: 0, -ENOENT
 * or -EPROTONOSUPPORT.
 */
int target_revision(uint8_t nfproto, const char *name, uint8_t revision);
/*
 * Look up and check the target @et of rule @r (family @f, in table @table; its ip and
 * comefrom set), find_check_entry's target half, into @t: 0 or -errno.
 */
int target_init(struct context *ctx, const struct family *f, const char *table,
		const struct rule *r, const void *et, struct target *t);

extern const struct target_ops standard_target_ops;
extern const struct target_ops error_target_ops;
extern const struct target_ops reject_target_ops;
extern const struct target_ops reject6_target_ops;
extern const struct target_ops log_target_ops;
extern const struct target_ops nflog_target_ops;
extern const struct target_ops mark_target_ops;
extern const struct target_ops notrack_target_ops;
extern const struct target_ops ct0_target_ops;
extern const struct target_ops ct1_target_ops;
extern const struct target_ops ct2_target_ops;
extern const struct target_ops snat0_target_ops;
extern const struct target_ops dnat0_target_ops;
extern const struct target_ops snat1_target_ops;
extern const struct target_ops dnat1_target_ops;
extern const struct target_ops snat2_target_ops;
extern const struct target_ops dnat2_target_ops;
extern const struct target_ops masquerade_target_ops;
extern const struct target_ops redirect_target_ops;
extern const struct target_ops netmap_target_ops;
extern const struct target_ops masquerade6_target_ops;
extern const struct target_ops redirect6_target_ops;
extern const struct target_ops netmap6_target_ops;

#endif /* NET_BPFILTER_TARGET_H */
