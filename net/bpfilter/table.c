// SPDX-License-Identifier: GPL-2.0
/*
 * The table model: translate_table() of ip_tables.c and ip6_tables.c on a
 * native model, the tables x_tables knows and their initial rulesets, and the
 * GET_INFO/GET_ENTRIES views. The entries are read through the table's
 * family (family.h); everything else is the same in both.
 */
#define _GNU_SOURCE

#include "table.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>

#include "context.h"
#include "family.h"

/* x_tables' limit on table memory; bigger offsets arrays fail with ENOMEM there. */
#define XT_MAX_TABLE_SIZE (512u * 1024 * 1024)
/* Bit of comefrom that mark_source_chains() uses for "on the current path". */
#define COMEFROM_ON_PATH (1u << NF_INET_NUMHOOKS)

static void *entry_at(const struct table *t, uint32_t offset)
{
	return (char *)t->entries + offset;
}

/* xt_find_jump_offset(): binary search of the sorted entry offsets. */
static int find_offset(const uint32_t *offsets, uint32_t n, uint32_t target)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (offsets[mid] == target)
			return mid;
		if (offsets[mid] < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

int table_rule_at(const struct table *t, uint32_t offset)
{
	uint32_t lo = 0, hi = t->num_entries;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rules[mid].offset == offset)
			return mid;
		if (t->rules[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* check_underflow(): a policy must be an unconditional standard ACCEPT or DROP. */
static int check_underflow(const struct family *f, const void *e)
{
	int verdict;

	if (!rule_unconditional(f, e) || !rule_entry_is_standard(f, e))
		return 0;
	verdict = rule_entry_verdict(f, e);
	return verdict == -NF_DROP - 1 || verdict == -NF_ACCEPT - 1;
}

/*
 * xt_check_table_hooks(): every valid hook set, entries and underflows
 * strictly increasing, with its kernel log line.
 */
static int check_table_hooks(struct context *ctx, const struct table *t)
{
	uint32_t max_entry = 0, max_uflow = 0;
	const char *why = NULL;
	int h, seen = 0;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(t->valid_hooks & (1u << h)))
			continue;
		if (t->hook_entry[h] == TABLE_NO_HOOK || t->underflow[h] == TABLE_NO_HOOK)
			return -EINVAL;
		if (seen && max_uflow > t->underflow[h])
			why = "unsorted underflow";
		else if (seen && max_uflow == t->underflow[h])
			why = "duplicate underflow";
		else if (seen && max_entry > t->hook_entry[h])
			why = "unsorted entry";
		else if (seen && max_entry == t->hook_entry[h])
			why = "duplicate entry";
		if (why)
			break;
		max_entry = t->hook_entry[h];
		max_uflow = t->underflow[h];
		seen = 1;
	}
	if (!why)
		return 0;
	bf_xt_err(ctx, "x_tables: %s at hook %d", why, h);
	return -EINVAL;
}

/*
 * mark_source_chains() on entry indexes: walk every hook's chains without
 * recursion, recording back pointers in @back, setting each reached entry's
 * hook bit in @comefrom. Returns 0 on a loop, a jump that misses an entry
 * start, or a walk off the end of the table.
 */
static int mark_source_chains(const struct table *t, const uint32_t *offsets, uint32_t n,
			      uint32_t *comefrom, uint32_t *back)
{
	int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		uint32_t idx;

		if (!(t->valid_hooks & (1u << hook)))
			continue;
		idx = find_offset(offsets, n, t->hook_entry[hook]);
		back[idx] = idx;
		for (;;) {
			const void *e = entry_at(t, offsets[idx]);
			int std = rule_entry_is_standard(t->fam, e);
			int verdict = rule_entry_verdict(t->fam, e);
			int visited = comefrom[idx] & (1u << hook);

			if (comefrom[idx] & COMEFROM_ON_PATH)
				return 0;
			comefrom[idx] |= (1u << hook) | COMEFROM_ON_PATH;

			if ((rule_unconditional(t->fam, e) && std && verdict < 0) || visited) {
				uint32_t old;

				/* Return: backtrack through the last big jump. */
				do {
					comefrom[idx] ^= COMEFROM_ON_PATH;
					old = idx;
					idx = back[old];
					back[old] = 0;
					if (idx == old)
						goto next_hook;
				} while (old == idx + 1);
				/* Move along one. */
				if (idx + 1 >= n)
					return 0;
				back[idx + 1] = idx;
				idx++;
			} else {
				int newidx;

				if (std && verdict >= 0) {
					/* A jump: it must land on an entry start. */
					newidx = find_offset(offsets, n, verdict);
					if (newidx < 0)
						return 0;
				} else {
					/* A fall-through. */
					if (idx + 1 >= n)
						return 0;
					newidx = idx + 1;
				}
				back[newidx] = idx;
				idx = newidx;
			}
		}
next_hook:
		;
	}
	return 1;
}

/* Walk the blob as the first loop of translate_table(): sizes, offsets, hooks. */
static int check_entries(struct table *t, const struct ipt_replace *repl, uint32_t **offsets,
			 uint32_t *count)
{
	uint32_t pos, n = 0, cap = 0, *off = NULL;
	int h, err;

	static const struct xt_counters zero;
	const struct family *f = t->fam;

	for (pos = 0; pos < t->size; pos += entry_next_offset(f, entry_at(t, pos))) {
		void *e = entry_at(t, pos);

		err = rule_check_entry(f, e, pos, t->size);
		if (err)
			goto err_free;
		for (h = 0; h < NF_INET_NUMHOOKS; h++) {
			if (!(repl->valid_hooks & (1u << h)))
				continue;
			if (pos == repl->hook_entry[h])
				t->hook_entry[h] = pos;
			if (pos == repl->underflow[h]) {
				if (!check_underflow(f, e)) {
					err = -EINVAL;
					goto err_free;
				}
				t->underflow[h] = pos;
			}
		}
		/* The submitted counters and comefrom are ignored. */
		entry_set_counters(f, e, &zero);
		entry_set_comefrom(f, e, 0);
		if (n == cap) {
			uint32_t *tmp;

			cap = cap ? cap * 2 : 64;
			tmp = realloc(off, cap * sizeof(*off));
			if (!tmp) {
				err = -ENOMEM;
				goto err_free;
			}
			off = tmp;
		}
		off[n++] = pos;
	}
	*offsets = off;
	*count = n;
	return 0;

err_free:
	free(off);
	return err;
}

int table_from_replace(struct context *ctx, const struct family *fam,
		       const struct ipt_replace *repl, const void *blob, struct table **out)
{
	uint32_t *offsets = NULL, *comefrom = NULL, *back = NULL, n = 0, i, k;
	struct table *t;
	int h, err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fam = fam;
	memcpy(t->name, repl->name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	t->kind = table_kind_find(fam, t->name);
	t->valid_hooks = repl->valid_hooks;
	t->size = repl->size;
	t->num_entries = repl->num_entries;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		t->hook_entry[h] = TABLE_NO_HOOK;
		t->underflow[h] = TABLE_NO_HOOK;
		t->hook_rule[h] = TABLE_NO_HOOK;
		t->underflow_rule[h] = TABLE_NO_HOOK;
	}
	/* xt_alloc_entry_offsets() refuses this many entries. */
	if (repl->num_entries > XT_MAX_TABLE_SIZE / sizeof(uint32_t)) {
		err = -ENOMEM;
		goto err_free;
	}
	t->entries = malloc(t->size ? t->size : 1);
	if (!t->entries) {
		err = -ENOMEM;
		goto err_free;
	}
	memcpy(t->entries, blob, t->size);

	err = check_entries(t, repl, &offsets, &n);
	if (err) {
		bf_dbg(ctx, "replace '%s': bad entry (%d)", t->name, err);
		goto err_free;
	}
	if (n != repl->num_entries) {
		bf_dbg(ctx, "replace '%s': %u entries, header says %u", t->name, n,
		       repl->num_entries);
		err = -EINVAL;
		goto err_free;
	}
	err = check_table_hooks(ctx, t);
	if (err)
		goto err_free;

	comefrom = calloc(n ? n : 1, sizeof(*comefrom));
	back = calloc(n ? n : 1, sizeof(*back));
	t->rules = calloc(n ? n : 1, sizeof(*t->rules));
	if (!comefrom || !back || !t->rules) {
		err = -ENOMEM;
		goto err_free;
	}
	if (!mark_source_chains(t, offsets, n, comefrom, back)) {
		bf_dbg(ctx, "replace '%s': loop, bad jump or fall off the end", t->name);
		err = -ELOOP;
		goto err_free;
	}
	for (i = 0; i < n; i++)
		entry_set_comefrom(fam, entry_at(t, offsets[i]), comefrom[i]);

	/* find_check_entry() for each entry in order: the first failure wins. */
	for (i = 0; i < n; i++) {
		struct rule *r = &t->rules[i];

		err = rule_init(ctx, fam, t->name, entry_at(t, offsets[i]), offsets[i], r);
		if (err) {
			bf_dbg(ctx, "replace '%s': rule %u at %u: %d", t->name, i, offsets[i],
			       err);
			goto err_free;
		}
		r->index = i;
		for (k = 0; k < r->num_matches; k++)
			if (r->matches[k].ops->conntrack)
				t->needs_conntrack = true;
			else if (r->matches[k].ops->kernel)
				t->needs_holds = true;
		if (r->target.kind == TARGET_OTHER && r->target.ops->kernel)
			t->needs_holds = true;
		if (r->target.kind == TARGET_JUMP)
			r->target.jump_index = find_offset(offsets, n, r->target.verdict);
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(t->valid_hooks & (1u << h)))
			continue;
		t->hook_rule[h] = find_offset(offsets, n, t->hook_entry[h]);
		t->underflow_rule[h] = find_offset(offsets, n, t->underflow[h]);
	}
	free(offsets);
	free(comefrom);
	free(back);
	*out = t;
	return 0;

err_free:
	free(offsets);
	free(comefrom);
	free(back);
	table_free(t);
	return err;
}

const struct table_kind table_kinds[BPFILTER_TABLE_MAX] = {
	[BPFILTER_TABLE_FILTER] = {
		.id = BPFILTER_TABLE_FILTER,
		.name = "filter",
		.valid_hooks = 1u << NF_INET_LOCAL_IN | 1u << NF_INET_FORWARD |
			       1u << NF_INET_LOCAL_OUT,
		.families = 1u << NFPROTO_IPV4 | 1u << NFPROTO_IPV6,
		.priority = { [NF_INET_LOCAL_IN] = NF_IP_PRI_FILTER,
			      [NF_INET_FORWARD] = NF_IP_PRI_FILTER,
			      [NF_INET_LOCAL_OUT] = NF_IP_PRI_FILTER },
	},
	[BPFILTER_TABLE_RAW] = {
		.id = BPFILTER_TABLE_RAW,
		.name = "raw",
		/* Before conntrack (NF_IP_PRI_CONNTRACK), so that NOTRACK works. */
		.valid_hooks = 1u << NF_INET_PRE_ROUTING | 1u << NF_INET_LOCAL_OUT,
		.families = 1u << NFPROTO_IPV4 | 1u << NFPROTO_IPV6,
		.priority = { [NF_INET_PRE_ROUTING] = NF_IP_PRI_RAW,
			      [NF_INET_LOCAL_OUT] = NF_IP_PRI_RAW },
	},
	/*
	 * iptable_nat's chains run inside nf_nat's hooks (NF_IP_PRI_NAT_DST at
	 * PREROUTING and OUTPUT, NF_IP_PRI_NAT_SRC at INPUT and POSTROUTING),
	 * which bpfilter.ko registers for the namespace: the programs run just
	 * before them and make the binding nf_nat then applies.
	 */
	[BPFILTER_TABLE_NAT] = {
		.id = BPFILTER_TABLE_NAT,
		.name = "nat",
		.valid_hooks = 1u << NF_INET_PRE_ROUTING | 1u << NF_INET_LOCAL_IN |
			       1u << NF_INET_LOCAL_OUT | 1u << NF_INET_POST_ROUTING,
		.families = 1u << NFPROTO_IPV4 | 1u << NFPROTO_IPV6,
		.priority = { [NF_INET_PRE_ROUTING] = NF_IP_PRI_NAT_DST - 1,
			      [NF_INET_LOCAL_OUT] = NF_IP_PRI_NAT_DST - 1,
			      [NF_INET_LOCAL_IN] = NF_IP_PRI_NAT_SRC - 1,
			      [NF_INET_POST_ROUTING] = NF_IP_PRI_NAT_SRC - 1 },
		.nat = true,
	},
};

const struct table_kind *table_kind_find(const struct family *fam, const char *name)
{
	unsigned int i;

	for (i = 0; i < BPFILTER_TABLE_MAX; i++)
		if (!strcmp(table_kinds[i].name, name) &&
		    (table_kinds[i].families & (1u << fam->nfproto)))
			return &table_kinds[i];
	return NULL;
}

/* The initial table: what iptable_filter, iptable_raw, ... register in a netns on first use. */
int table_create_initial(struct context *ctx, const struct family *fam,
			 const struct table_kind *kind, struct table **out)
{
	const uint32_t std_size = fam->entry_size + sizeof(struct xt_standard_target);
	const uint32_t err_size = fam->entry_size + sizeof(struct xt_error_target);
	uint32_t size, n = 0;
	struct ipt_replace repl;
	struct xt_error_target *et;
	char *blob, *e;
	int h, err;

	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		n += !!(kind->valid_hooks & (1u << h));
	size = n * std_size + err_size;
	blob = calloc(1, size);
	if (!blob)
		return -ENOMEM;
	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, kind->name);
	repl.size = size;
	repl.num_entries = n + 1;
	repl.valid_hooks = kind->valid_hooks;
	for (h = 0, n = 0; h < NF_INET_NUMHOOKS; h++) {
		struct xt_standard_target *st;

		if (!(kind->valid_hooks & (1u << h)))
			continue;
		e = blob + n * std_size;
		entry_set_offsets(fam, e, std_size);
		st = (struct xt_standard_target *)(e + fam->entry_size);
		st->target.u.target_size = sizeof(*st);
		st->verdict = -NF_ACCEPT - 1;
		repl.hook_entry[h] = n * std_size;
		repl.underflow[h] = n * std_size;
		n++;
	}
	e = blob + n * std_size;
	entry_set_offsets(fam, e, err_size);
	et = (struct xt_error_target *)(e + fam->entry_size);
	et->target.u.target_size = sizeof(*et);
	strcpy(et->target.u.user.name, XT_ERROR_TARGET);
	strcpy(et->errorname, XT_ERROR_TARGET);

	err = table_from_replace(ctx, fam, &repl, blob, out);
	free(blob);
	return err;
}

/*
 * xt_obj_to_user() + xt_data_to_user(): size, name with its NUL, revision, payload, zero
 * padding.
 */
static void ext_to_user(char *out, const char *in, uint16_t size, const char *name,
			uint8_t revision, uint16_t usersize, uint16_t aligned)
{
	struct xt_entry_match *u = (struct xt_entry_match *)out;

	u->u.match_size = size;
	memcpy(u->u.user.name, name, strlen(name) + 1);
	u->u.user.revision = revision;
	memcpy(u->data, in + sizeof(*u), usersize);
	memset(u->data + usersize, 0, aligned - usersize);
}

void table_to_entries(const struct table *t, const struct xt_counters *counters, void *out)
{
	uint32_t i, j;

	/* copy_entries_to_user(): only these bytes are written, the rest is left as it was. */
	for (i = 0; i < t->num_entries; i++) {
		const struct rule *r = &t->rules[i];
		const char *in = (const char *)t->entries + r->offset;
		char *o = (char *)out + r->offset;
		const struct target_ops *tops = r->target.ops;

		memcpy(o, in, t->fam->entry_size);
		entry_set_counters(t->fam, o, &counters[i]);
		for (j = 0; j < r->num_matches; j++) {
			const struct match *m = &r->matches[j];

			ext_to_user(o + m->offset, in + m->offset, m->match_size, m->ops->id.name,
				    m->ops->id.revision, m->ops->usersize, m->ops->size);
		}
		ext_to_user(o + r->target_offset, in + r->target_offset, r->target.target_size,
			    tops->id.name, tops->id.revision, tops->usersize, tops->size);
	}
}

void table_to_info(const struct table *t, const char *name, struct ipt_getinfo *info)
{
	memset(info, 0, sizeof(*info));
	strncpy(info->name, name, sizeof(info->name) - 1);
	info->valid_hooks = t->valid_hooks;
	memcpy(info->hook_entry, t->hook_entry, sizeof(info->hook_entry));
	memcpy(info->underflow, t->underflow, sizeof(info->underflow));
	info->num_entries = t->num_entries;
	info->size = t->size;
}

void table_free(struct table *t)
{
	uint32_t i;

	if (!t)
		return;
	if (t->rules) {
		for (i = 0; i < t->num_entries; i++)
			rule_free(&t->rules[i]);
	}
	free(t->rules);
	free(t->entries);
	free(t);
}
