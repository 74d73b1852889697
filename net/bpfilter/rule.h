/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ipt_entry of a validated table, in native form. The fast path
 * (code generation) trusts it: table_from_replace() checked everything.
 */
#ifndef NET_BPFILTER_RULE_H
#define NET_BPFILTER_RULE_H

#include <stdint.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "match.h"
#include "target.h"

struct context;

struct rule {
	uint32_t index;		/* position in the table, 0-based */
	uint32_t offset;	/* of the ipt_entry in the blob */
	uint16_t target_offset;
	uint16_t next_offset;	/* size of the entry */
	struct ipt_ip ip;	/* addresses, masks, interfaces, proto, flags, invflags */
	uint32_t comefrom;	/* bitmask of hooks (1 << NF_INET_*) that reach this rule */
	uint32_t num_matches;
	struct match *matches;	/* num_matches entries, in blob order */
	struct target target;
	struct xt_counters counters;	/* model counters: ADD_COUNTERS, store backend */
};

/*
 * Check one entry's size, offsets, ip header and standard/ERROR target
 * (check_entry_size_and_hooks minus hooks): 0 or -EINVAL.
 */
int rule_check_entry(const struct ipt_entry *e, uint32_t offset, uint32_t limit);
/*
 * The verdict field of @e's target read as a standard target (any alignment); only
 * meaningful if standard.
 */
int rule_entry_verdict(const struct ipt_entry *e);
/* True if @e's target is the standard target (name ""). */
int rule_entry_is_standard(const struct ipt_entry *e);
/* True if @e is unconditional: all-zero ipt_ip and no matches. */
int rule_unconditional(const struct ipt_entry *e);
/*
 * Parse the already size-checked entry @e at @offset into @rule and look up/check its
 * matches and target: 0 or -errno.
 */
int rule_init(struct context *ctx, const struct ipt_entry *e, uint32_t offset, struct rule *rule);
/* Free what rule_init() allocated. */
void rule_free(struct rule *rule);

#endif /* NET_BPFILTER_RULE_H */
