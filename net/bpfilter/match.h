/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Matches (-m name): ops tables keyed by name and revision, as x_tables
 * registers them. Adding an extension is one ext_*.c file with a
 * struct match_ops and one entry in match.c's list.
 */
#ifndef NET_BPFILTER_MATCH_H
#define NET_BPFILTER_MATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "extension.h"

struct context;
struct codegen;
struct rule;
struct match;

struct match_ops {
	struct ext_id id;
	/* payload size, already XT_ALIGN'd: match_size must be 32 + size */
	uint16_t size;
	/* bytes of the payload the kernel copies back in GET_ENTRIES (its matchsize) */
	uint16_t usersize;
	/* the ipt_ip.proto the match needs (not inverted), 0 = any */
	uint8_t proto;
	/* the extension's own payload check (checkentry): 0 or -errno */
	int (*check)(struct context *ctx, const struct ipt_ip *ip, const void *data);
	/* Emits this match's BPF test; NULL makes a table using it EOPNOTSUPP */
	int (*gen)(struct codegen *cg, const struct rule *rule, const struct match *m);
	/* What the test reads beyond the fixed IPv4 bytes (CG_NEED_*); NULL: nothing */
	uint32_t (*needs)(const void *data);
	/* Holds for every packet (comment): rule runs fold as if it were not there */
	bool always;
	/* Needs conntrack on in the namespace (nf_ct_netns_get() in its checkentry) */
	bool conntrack;
	/* Fill the match's CG_STATE_SIZE-byte state slot as checkentry would; NULL: stateless */
	void (*state_init)(const void *data, void *slot);
};

/* One parsed xt_entry_match of a rule. data points into the owning table's blob. */
struct match {
	const struct match_ops *ops;
	const void *data;	/* payload, ops->size bytes */
	uint32_t offset;	/* of the xt_entry_match inside its entry */
	uint16_t match_size;	/* xt_entry_match.u.match_size */
};

/*
 * Find the match @name/@revision as xt_find_match does: ops, or NULL with *err
 * -EINVAL/-ENOENT/-EPROTOTYPE.
 */
const struct match_ops *match_ops_find(const char *name, uint8_t revision, int *err);
/* Answer IPT_SO_GET_REVISION_MATCH for @name/@revision: 0, -ENOENT or -EPROTONOSUPPORT. */
int match_revision(const char *name, uint8_t revision);
/*
 * Look up and check one xt_entry_match of an entry with header @ip into @m
 * (find_check_match): 0 or -errno.
 */
int match_init(struct context *ctx, const struct ipt_ip *ip, const struct xt_entry_match *em,
	       uint32_t offset, struct match *m);

extern const struct match_ops tcp_match_ops;
extern const struct match_ops udp_match_ops;
extern const struct match_ops icmp_match_ops;
extern const struct match_ops comment_match_ops;
extern const struct match_ops multiport_match_ops;
extern const struct match_ops iprange_match_ops;
extern const struct match_ops mark_match_ops;
extern const struct match_ops length_match_ops;
extern const struct match_ops ttl_match_ops;
extern const struct match_ops tos_match_ops;
extern const struct match_ops dscp_match_ops;
extern const struct match_ops ah_match_ops;
extern const struct match_ops esp_match_ops;
extern const struct match_ops conntrack1_match_ops;
extern const struct match_ops conntrack2_match_ops;
extern const struct match_ops conntrack3_match_ops;
extern const struct match_ops state_match_ops;
extern const struct match_ops limit_match_ops;
extern const struct match_ops recent0_match_ops;
extern const struct match_ops recent1_match_ops;
extern const struct match_ops cpu_match_ops;
extern const struct match_ops statistic_match_ops;

struct table;
/*
 * Before @t is put in force: 0 if the module holds the xt_recent lists of
 * its recent matches (or it has none); -EAGAIN after asking the module to
 * hold them (reply flags set, bpfilter.h); -EOPNOTSUPP if the sender cannot.
 */
int recent_lists_prepare(struct context *ctx, const struct table *t);

#endif /* NET_BPFILTER_MATCH_H */
