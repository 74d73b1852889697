/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A validated ip_tables or ip6_tables table: what IPT_SO_SET_REPLACE
 * (IP6T_SO_SET_REPLACE) installs and IPT_SO_GET_INFO / IPT_SO_GET_ENTRIES
 * read back. struct ipt_replace, ipt_getinfo and ipt_get_entries stand for
 * both families' headers: ip6_tables' are laid out alike.
 */
#ifndef NET_BPFILTER_TABLE_H
#define NET_BPFILTER_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/bpfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "rule.h"

struct context;
struct family;

#define TABLE_NO_HOOK 0xFFFFFFFFu	/* hook_entry/underflow of a hook not in valid_hooks */

struct table {
	const struct family *fam;		/* whose entries (family.h) */
	const struct table_kind *kind;		/* NULL: a name no table has */
	char name[XT_TABLE_MAXNAMELEN];
	uint32_t valid_hooks;			/* bitmask of 1 << NF_INET_* */
	uint32_t hook_entry[NF_INET_NUMHOOKS];	/* blob offsets, TABLE_NO_HOOK if unused */
	uint32_t underflow[NF_INET_NUMHOOKS];	/* blob offsets of the policy rules */
	/* rule indexes of hook_entry and underflow, TABLE_NO_HOOK if unused */
	uint32_t hook_rule[NF_INET_NUMHOOKS];
	uint32_t underflow_rule[NF_INET_NUMHOOKS];
	uint32_t size;				/* bytes of the entries blob */
	uint32_t num_entries;
	struct rule *rules;			/* num_entries rules in blob order */
	bool needs_conntrack;			/* a match needs conntrack on (match_ops) */
	bool needs_holds;			/* a match is the kernel's (match_ops.kernel) */
	uint32_t hold_base, num_holds;		/* ids of its held matches (hold.h) */
	/*
	 * The submitted blob as validated, with counters zeroed and comefrom
	 * set: the bytes the kernel would keep. rules[] point into it.
	 */
	void *entries;
};

/*
 * A table x_tables knows by name (iptable_filter, iptable_raw, ...): its
 * hooks and the priority it runs at. IPv4 and IPv6 have the same ones.
 */
struct table_kind {
	enum bpfilter_table id;		/* the module knows it by this */
	const char *name;
	uint32_t valid_hooks;		/* bitmask of 1 << NF_INET_* */
	uint32_t families;		/* 1 << NFPROTO_* it exists for */
	/* where its programs attach: NF_IP_PRI_* (NF_IP6_PRI_* are the same) */
	int priority[NF_INET_NUMHOOKS];
	/*
	 * Consulted for a connection's first packet per manip type only, as
	 * nf_nat_inet_fn() consults iptable_nat (codegen.c's nat gate).
	 */
	bool nat;
};

/* Every kind, indexed by enum bpfilter_table. */
extern const struct table_kind table_kinds[BPFILTER_TABLE_MAX];

/* The kind named @name of family @fam, or NULL: no such table here (ip_tables' -ENOENT). */
const struct table_kind *table_kind_find(const struct family *fam, const char *name);
/*
 * Build the kernel's initial table of kind @kind and family @fam: an ACCEPT
 * policy per hook + ERROR (filter: valid_hooks 0x0e, 632 bytes for IPv4,
 * 856 for IPv6): 0 or -ENOMEM.
 */
int table_create_initial(struct context *ctx, const struct family *fam,
			 const struct table_kind *kind, struct table **out);
/*
 * Validate @blob (repl->size bytes, entries of family @fam) with @repl's
 * hooks and counts exactly as translate_table() does, including
 * mark_source_chains() (-ELOOP) and the extension checks, and build a table
 * named repl->name: 0 or -errno.
 */
int table_from_replace(struct context *ctx, const struct family *fam,
		       const struct ipt_replace *repl, const void *blob, struct table **out);
/*
 * Write the GET_ENTRIES entry table into @out (t->size bytes) with @counters
 * (t->num_entries pairs). Only the bytes the kernel writes are touched: pass
 * the caller's current buffer contents in @out to be byte-exact.
 */
void table_to_entries(const struct table *t, const struct xt_counters *counters, void *out);
/* Fill @info (GET_INFO answer) for @t, named @name. */
void table_to_info(const struct table *t, const char *name, struct ipt_getinfo *info);
/* Index of the rule starting at blob @offset, or -ENOENT if no entry starts there. */
int table_rule_at(const struct table *t, uint32_t offset);
/* Free a table and its rules; NULL is fine. */
void table_free(struct table *t);

#endif /* NET_BPFILTER_TABLE_H */
