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
struct rule;
struct table;

/* Give @t's held matches the ids @base, @base + 1, ... in rule order. */
void holds_number(struct table *t, uint32_t base);
/*
 * Before @t replaces @cur: number its holds after @cur's, then 0 if the
 * module holds their checkentries (or there are none); -EAGAIN after
 * asking it to (reply flag set); -EOPNOTSUPP if the sender cannot; -errno.
 */
int holds_prepare(struct context *ctx, const struct table *cur, struct table *t);
/* match_ops.gen of held matches: the kfunc bpfilter_xt_match() with the hold's id. */
int hold_gen(struct codegen *cg, const struct rule *rule, const struct match *m);

#endif /* NET_BPFILTER_HOLD_H */
