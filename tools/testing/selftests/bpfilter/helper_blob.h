/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only builder of ip_tables blobs for the helper's unit tests: append
 * entries (any ipt_ip, matches, target) and get an ipt_replace + blob.
 */
#ifndef BPFILTER_TEST_HELPER_BLOB_H
#define BPFILTER_TEST_HELPER_BLOB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>

struct bb_ext {
	const char *name;
	uint8_t revision;
	const void *data;
	uint16_t len;		/* payload bytes, padded to XT_ALIGN */
};

struct bb {
	char buf[65536];
	uint32_t size;
	uint32_t num;
	uint32_t valid_hooks;
	uint32_t hook_entry[NF_INET_NUMHOOKS];
	uint32_t underflow[NF_INET_NUMHOOKS];
};

static inline void bb_init(struct bb *b)
{
	memset(b, 0, sizeof(*b));
}

static inline void bb_put_ext(char *p, const struct bb_ext *x)
{
	struct xt_entry_match *m = (struct xt_entry_match *)p;

	m->u.match_size = sizeof(*m) + XT_ALIGN(x->len);
	strncpy(m->u.user.name, x->name, sizeof(m->u.user.name));
	m->u.user.revision = x->revision;
	if (x->len)
		memcpy(m->data, x->data, x->len);
}

/* Append one entry, return its offset. */
static inline uint32_t bb_entry(struct bb *b, const struct ipt_ip *ip, const struct bb_ext *ms,
				int nm, const struct bb_ext *t)
{
	uint32_t off = b->size, pos = sizeof(struct ipt_entry);
	struct ipt_entry *e = (struct ipt_entry *)(b->buf + off);
	int i;

	if (ip)
		e->ip = *ip;
	for (i = 0; i < nm; i++) {
		bb_put_ext(b->buf + off + pos, &ms[i]);
		pos += sizeof(struct xt_entry_match) + XT_ALIGN(ms[i].len);
	}
	e->target_offset = pos;
	bb_put_ext(b->buf + off + pos, t);
	pos += sizeof(struct xt_entry_target) + XT_ALIGN(t->len);
	e->next_offset = pos;
	b->size += pos;
	b->num++;
	return off;
}

static inline uint32_t bb_std(struct bb *b, const struct ipt_ip *ip, int verdict)
{
	struct bb_ext t = { "", 0, &verdict, sizeof(verdict) };

	return bb_entry(b, ip, NULL, 0, &t);
}

static inline uint32_t bb_std_m(struct bb *b, const struct ipt_ip *ip, const struct bb_ext *m,
				int verdict)
{
	struct bb_ext t = { "", 0, &verdict, sizeof(verdict) };

	return bb_entry(b, ip, m, 1, &t);
}

static inline uint32_t bb_error(struct bb *b, const char *name)
{
	char data[XT_FUNCTION_MAXNAMELEN] = { 0 };
	struct bb_ext t = { "ERROR", 0, data, sizeof(data) };

	strncpy(data, name, sizeof(data) - 1);
	return bb_entry(b, NULL, NULL, 0, &t);
}

static inline void bb_hook(struct bb *b, int hook, uint32_t entry, uint32_t underflow)
{
	b->valid_hooks |= 1u << hook;
	b->hook_entry[hook] = entry;
	b->underflow[hook] = underflow;
}

static inline struct ipt_entry *bb_at(struct bb *b, uint32_t off)
{
	return (struct ipt_entry *)(b->buf + off);
}

/* An ipt_replace followed by the blob (malloc'd); *len is the setsockopt length. */
static inline struct ipt_replace *bb_replace(const struct bb *b, uint32_t num_counters,
					     struct xt_counters *counters, uint32_t *len)
{
	struct ipt_replace *r = calloc(1, sizeof(*r) + b->size);

	strcpy(r->name, "filter");
	r->valid_hooks = b->valid_hooks;
	r->num_entries = b->num;
	r->size = b->size;
	memcpy(r->hook_entry, b->hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, b->underflow, sizeof(r->underflow));
	r->num_counters = num_counters;
	r->counters = counters;
	memcpy(r->entries, b->buf, b->size);
	*len = sizeof(*r) + b->size;
	return r;
}

#define ACCEPT (-NF_ACCEPT - 1)
#define DROP (-NF_DROP - 1)
#define RETURN XT_RETURN

/*
 * A table shaped like iptables-legacy makes it: INPUT with @n_input rules
 * from @input (called to append them), FORWARD, OUTPUT policies, then the
 * final ERROR. Hooks are set. Simple helper for the common case: INPUT
 * rules are added by the caller between bb_begin_input and bb_end_input.
 */
static inline void bb_filter_policies(struct bb *b, uint32_t input_start, int policy)
{
	uint32_t u;

	u = bb_std(b, NULL, policy);
	bb_hook(b, NF_INET_LOCAL_IN, input_start, u);
	u = bb_std(b, NULL, ACCEPT);
	bb_hook(b, NF_INET_FORWARD, u, u);
	u = bb_std(b, NULL, ACCEPT);
	bb_hook(b, NF_INET_LOCAL_OUT, u, u);
}



#ifndef BPFILTER_TEST_HELPER_BLOB_EXTRA
#define BPFILTER_TEST_HELPER_BLOB_EXTRA
/* Overwrite the standard verdict of the entry at @off (for forward jumps). */
static inline void bb_set_verdict(struct bb *b, uint32_t off, int verdict)
{
	struct ipt_entry *e = bb_at(b, off);
	struct xt_standard_target *st = (void *)((char *)e + e->target_offset);

	st->verdict = verdict;
}

/* The ipt_replace header for a bb, without copying (for table_from_replace()). */
static inline void bb_header(const struct bb *b, struct ipt_replace *r)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->name, "filter");
	r->valid_hooks = b->valid_hooks;
	r->num_entries = b->num;
	r->size = b->size;
	memcpy(r->hook_entry, b->hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, b->underflow, sizeof(r->underflow));
	r->num_counters = 4;
}
#endif
#endif /* BPFILTER_TEST_HELPER_BLOB_H */
