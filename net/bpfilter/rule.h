/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ipt_entry or ip6t_entry of a validated table, in native form. The
 * fast path (code generation) trusts it: table_from_replace() checked
 * everything.
 */
#ifndef NET_BPFILTER_RULE_H
#define NET_BPFILTER_RULE_H

#include <stdint.h>
#include <linux/if.h>
#include <linux/netfilter/x_tables.h>

#include "match.h"
#include "target.h"

struct context;
struct family;

/* struct rule_ip.flags: the family's IPT_F_* / IP6T_F_* bits, as the code generator needs them. */
#define RULE_F_PROTO	(1u << 0)	/* compare the protocol (IPv4: proto != 0; IP6T_F_PROTO) */
#define RULE_F_FRAG	(1u << 1)	/* IPv4 -f: IPT_F_FRAG */
#define RULE_F_GOTO	(1u << 2)	/* the jump is a goto: IPT_F_GOTO / IP6T_F_GOTO */

/*
 * The entry's network header part (struct ipt_ip or struct ip6t_ip6) of
 * either family: addresses in network order, IPv4 in their first 4
 * bytes. invflags are XT_INV_* style bits, the same in both families.
 */
struct rule_ip {
	uint8_t src[16], dst[16], smsk[16], dmsk[16];
	char iniface[IFNAMSIZ], outiface[IFNAMSIZ];
	unsigned char iniface_mask[IFNAMSIZ], outiface_mask[IFNAMSIZ];
	uint16_t proto;
	uint8_t tos;		/* IPv6 only; ip6_packet_match() ignores it */
	uint8_t flags;		/* RULE_F_* */
	uint8_t invflags;	/* IPT_INV_* == IP6T_INV_* */
};

struct rule {
	uint32_t index;		/* position in the table, 0-based */
	uint32_t offset;	/* of the entry in the blob */
	uint16_t target_offset;
	uint16_t next_offset;	/* size of the entry */
	struct rule_ip ip;	/* addresses, masks, interfaces, proto, flags, invflags */
	uint32_t comefrom;	/* bitmask of hooks (1 << NF_INET_*) that reach this rule */
	uint32_t num_matches;
	struct match *matches;	/* num_matches entries, in blob order */
	struct target target;
	struct xt_counters counters;	/* model counters: ADD_COUNTERS, store backend */
};

/*
 * Check one entry @e of family @f: size, offsets, ip header and
 * standard/ERROR target (check_entry_size_and_hooks minus hooks): 0 or -EINVAL.
 */
int rule_check_entry(const struct family *f, const void *e, uint32_t offset, uint32_t limit);
/*
 * The verdict field of @e's target read as a standard target (any alignment); only
 * meaningful if standard.
 */
int rule_entry_verdict(const struct family *f, const void *e);
/* True if @e's target is the standard target (name ""). */
int rule_entry_is_standard(const struct family *f, const void *e);
/* True if @e is unconditional: an all-zero network header part and no matches. */
int rule_unconditional(const struct family *f, const void *e);
/*
 * Parse the already size-checked entry @e at @offset of table @table into @rule and look
 * up/check its matches and target: 0 or -errno.
 */
int rule_init(struct context *ctx, const struct family *f, const char *table, const void *e,
	      uint32_t offset, struct rule *rule);
/* Free what rule_init() allocated. */
void rule_free(struct rule *rule);

#endif /* NET_BPFILTER_RULE_H */
