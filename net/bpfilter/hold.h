/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Held matches: xt matches whose checkentry, match and destroy are the
 * kernel's own (match_ops.kernel). bpfilter_kfunc.ko holds their
 * checkentries before a table with them goes in force (the protocol of
 * bpfilter.h), and the programs call the xt match by the hold's id.
 */
#ifndef NET_BPFILTER_HOLD_H
#define NET_BPFILTER_HOLD_H

#include <stdint.h>

struct codegen;
struct context;
struct match;
struct netns;
struct rule;
struct table;
struct target;

/*
 * A hold id is the table's enum bpfilter_table above HOLD_KIND_SHIFT and a
 * sequence number below it (ids stay below 1 << 31, bpfilter.h).
 */
#define HOLD_KIND_SHIFT	27
#define HOLD_SEQ_MASK	((1u << HOLD_KIND_SHIFT) - 1)

/*
 * Give @t's held matches the ids @base, @base + 1, ... in rule order, the
 * sequence part wrapping within @base's table range.
 */
void holds_number(struct table *t, uint32_t base);
/*
 * Before @t replaces the table in force of @ns: number its holds after
 * that table's, then 0 if the module holds their checkentries (or there
 * are none); -EAGAIN after asking it to (reply flags set); -EOPNOTSUPP if
 * the sender cannot; -errno.
 */
int holds_prepare(struct context *ctx, const struct netns *ns, struct table *t);
/* match_ops.gen of held matches: the kfunc bpfilter_xt_match() with the hold's id. */
int hold_gen(struct codegen *cg, const struct rule *rule, const struct match *m);
/* target_ops.gen of held targets: the kfunc bpfilter_xt_target() with the hold's id. */
int hold_target_gen(struct codegen *cg, const struct rule *rule, const struct target *t);

#endif /* NET_BPFILTER_HOLD_H */
