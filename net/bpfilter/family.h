/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between ip_tables and ip6_tables, in one place. The blobs
 * of the two families differ only in their entries' network header part
 * (struct ipt_ip, 84 bytes; struct ip6t_ip6, 136) and where that puts the
 * fields after it; the replace, info and get_entries headers, matches and
 * targets are laid out alike. Everything else reads an entry through its
 * family's struct family and keeps the header as a struct rule_ip.
 */
#ifndef NET_BPFILTER_FAMILY_H
#define NET_BPFILTER_FAMILY_H

#include <stdint.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>

struct rule_ip;

struct family {
	uint8_t nfproto;		/* NFPROTO_IPV4 / NFPROTO_IPV6 */
	const char *name;		/* "ip_tables" / "ip6_tables", for logs */
	const char *tag;		/* "" / "ip6_": names of state files and pins */
	uint16_t entry_size;		/* sizeof(struct ipt_entry) / (struct ip6t_entry) */
	uint16_t ip_size;		/* sizeof(struct ipt_ip) / (struct ip6t_ip6) */
	/* offsetof() of the entry's target_offset, next_offset, comefrom, counters */
	uint16_t off_target, off_next, off_comefrom, off_counters;
	uint16_t off_flags, off_invflags;	/* of the header part's flags and invflags */
	uint8_t flags_mask;		/* IPT_F_MASK / IP6T_F_MASK */
	uint8_t invflags_mask;		/* IPT_INV_MASK / IP6T_INV_MASK */
	/* The entry's network header part @ip (ip_size bytes) as a model. */
	void (*to_model)(const void *ip, struct rule_ip *out);
	/* The network header part (ip_size bytes at @ip) of model @in, as the blob had it. */
	void (*from_model)(const struct rule_ip *in, void *ip);
};

extern const struct family family_ipv4;
extern const struct family family_ipv6;

/* The family of a request's NFPROTO_* (0 is IPv4), or NULL. */
const struct family *family_get(uint32_t nfproto);

/* An entry's fields after its network header part, at any alignment. */
static inline uint16_t entry_target_offset(const struct family *f, const void *e)
{
	uint16_t v;

	memcpy(&v, (const char *)e + f->off_target, sizeof(v));
	return v;
}

static inline uint16_t entry_next_offset(const struct family *f, const void *e)
{
	uint16_t v;

	memcpy(&v, (const char *)e + f->off_next, sizeof(v));
	return v;
}

static inline uint32_t entry_comefrom(const struct family *f, const void *e)
{
	uint32_t v;

	memcpy(&v, (const char *)e + f->off_comefrom, sizeof(v));
	return v;
}

static inline void entry_set_comefrom(const struct family *f, void *e, uint32_t comefrom)
{
	memcpy((char *)e + f->off_comefrom, &comefrom, sizeof(comefrom));
}

/* A matchless entry of @next_offset bytes: its target right after the header. */
static inline void entry_set_offsets(const struct family *f, void *e, uint16_t next_offset)
{
	uint16_t target_offset = f->entry_size;

	memcpy((char *)e + f->off_target, &target_offset, sizeof(target_offset));
	memcpy((char *)e + f->off_next, &next_offset, sizeof(next_offset));
}

static inline void entry_set_counters(const struct family *f, void *e,
				      const struct xt_counters *c)
{
	memcpy((char *)e + f->off_counters, c, sizeof(*c));
}

static inline void entry_get_counters(const struct family *f, const void *e,
				      struct xt_counters *c)
{
	memcpy(c, (const char *)e + f->off_counters, sizeof(*c));
}

#endif /* NET_BPFILTER_FAMILY_H */
