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
#include <linux/netfilter/x_tables.h>

#include "extension.h"

struct context;
struct codegen;
struct family;
struct rule;
struct match;

struct match_ops {
	struct ext_id id;
	/* payload size, already XT_ALIGN'd: match_size must be 32 + size */
	uint16_t size;
	/* bytes of the payload the kernel copies back in GET_ENTRIES (its matchsize) */
	uint16_t usersize;
	/* the entry's proto the match needs (not inverted), 0 = any */
	uint8_t proto;
	/* 1 << NF_INET_* the rule may be reached from (xt_match.hooks), 0 = any */
	uint8_t hooks;
	/* the extension's own payload check (checkentry), given the rule so far: 0 or -errno */
	int (*check)(struct context *ctx, const struct rule *r, const void *data);
	/* Emits this match's BPF test; NULL makes a table using it EOPNOTSUPP */
	int (*gen)(struct codegen *cg, const struct rule *rule, const struct match *m);
	/* What the test reads beyond the fixed IPv4 bytes (CG_NEED_*); NULL: nothing */
	uint32_t (*needs)(const void *data);
	/* Holds for every packet (comment): rule runs fold as if it were not there */
	bool always;
	/* Needs conntrack on in the namespace (nf_ct_netns_get() in its checkentry) */
	bool conntrack;
	/*
	 * checkentry, match and destroy are the kernel module's own:
	 * bpfilter_kfunc.ko holds the checkentry (hold.h); gen is hold_gen
	 */
	bool kernel;
	/* Fill the match's CG_STATE_SIZE-byte state slot as checkentry would; NULL: stateless */
	void (*state_init)(const void *data, void *slot);
};

/* One parsed xt_entry_match of a rule. data points into the owning table's blob. */
struct match {
	const struct match_ops *ops;
	const void *data;	/* payload, ops->size bytes */
	uint32_t offset;	/* of the xt_entry_match inside its entry */
	uint16_t match_size;	/* xt_entry_match.u.match_size */
	uint32_t hold_id;	/* ops->kernel: the hold's id (holds_number()) */
};

/*
 * Find the match @name/@revision of family @nfproto as xt_find_match does: ops, or
 * NULL with *err -EINVAL/-ENOENT/-EPROTOTYPE.
 */
const struct match_ops *match_ops_find(uint8_t nfproto, const char *name, uint8_t revision,
				       int *err);
/*
 * Answer IPT_SO_GET_REVISION_MATCH of family @nfproto for @name/@revision: 0, -ENOENT
 * or -EPROTONOSUPPORT.
 */
int match_revision(uint8_t nfproto, const char *name, uint8_t revision);
/*
 * Look up and check one xt_entry_match of the rule @r (family @f; its
 * ip and comefrom set) into @m (find_check_match): 0 or -errno.
 */
int match_init(struct context *ctx, const struct family *f, const struct rule *r,
	       const struct xt_entry_match *em, uint32_t offset, struct match *m);

extern const struct match_ops tcp_match_ops;
extern const struct match_ops udp_match_ops;
extern const struct match_ops icmp_match_ops;
extern const struct match_ops icmp6_match_ops;
extern const struct match_ops comment_match_ops;
extern const struct match_ops multiport_match_ops;
extern const struct match_ops iprange_match_ops;
extern const struct match_ops mark_match_ops;
extern const struct match_ops length_match_ops;
extern const struct match_ops ttl_match_ops;
extern const struct match_ops tos_match_ops;
extern const struct match_ops dscp_match_ops;
extern const struct match_ops ah_match_ops;
extern const struct match_ops ah6_match_ops;
extern const struct match_ops frag_match_ops;
extern const struct match_ops hbh_match_ops;
extern const struct match_ops dst_match_ops;
extern const struct match_ops rt_match_ops;
extern const struct match_ops ipv6header_match_ops;
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
extern const struct match_ops addrtype0_match_ops;
extern const struct match_ops addrtype1_match_ops;
extern const struct match_ops pkttype_match_ops;
extern const struct match_ops devgroup_match_ops;
extern const struct match_ops realm_match_ops;
extern const struct match_ops mac_match_ops;
extern const struct match_ops connmark_match_ops;
extern const struct match_ops owner_match_ops;
extern const struct match_ops set0_match_ops;
extern const struct match_ops set1_match_ops;
extern const struct match_ops set2_match_ops;
extern const struct match_ops set3_match_ops;
extern const struct match_ops set4_match_ops;
extern const struct match_ops hashlimit1_match_ops;
extern const struct match_ops hashlimit2_match_ops;
extern const struct match_ops hashlimit3_match_ops;
extern const struct match_ops connlimit_match_ops;
extern const struct match_ops string_match_ops;
extern const struct match_ops time_match_ops;
extern const struct match_ops physdev_match_ops;
extern const struct match_ops cgroup0_match_ops;
extern const struct match_ops cgroup1_match_ops;
extern const struct match_ops cgroup2_match_ops;
extern const struct match_ops ecn_match_ops;
extern const struct match_ops tcpmss_match_ops;
extern const struct match_ops u32_match_ops;
extern const struct match_ops hl_match_ops;
extern const struct match_ops mh_match_ops;
extern const struct match_ops eui64_match_ops;

#endif /* NET_BPFILTER_MATCH_H */
