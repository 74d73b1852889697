// SPDX-License-Identifier: GPL-2.0
/* The two families' entry layouts and network header parts (family.h). */
#include "family.h"

#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "rule.h"

static void ipv4_to_model(const void *p, struct rule_ip *out)
{
	struct ipt_ip ip;

	memcpy(&ip, p, sizeof(ip));
	memset(out, 0, sizeof(*out));
	memcpy(out->src, &ip.src, 4);
	memcpy(out->dst, &ip.dst, 4);
	memcpy(out->smsk, &ip.smsk, 4);
	memcpy(out->dmsk, &ip.dmsk, 4);
	memcpy(out->iniface, ip.iniface, IFNAMSIZ);
	memcpy(out->outiface, ip.outiface, IFNAMSIZ);
	memcpy(out->iniface_mask, ip.iniface_mask, IFNAMSIZ);
	memcpy(out->outiface_mask, ip.outiface_mask, IFNAMSIZ);
	out->proto = ip.proto;
	out->invflags = ip.invflags;
	/* ip_packet_match() always compares a non-zero protocol. */
	if (ip.proto)
		out->flags |= RULE_F_PROTO;
	if (ip.flags & IPT_F_FRAG)
		out->flags |= RULE_F_FRAG;
	if (ip.flags & IPT_F_GOTO)
		out->flags |= RULE_F_GOTO;
}

static void ipv6_to_model(const void *p, struct rule_ip *out)
{
	struct ip6t_ip6 ip;

	memcpy(&ip, p, sizeof(ip));
	memset(out, 0, sizeof(*out));
	memcpy(out->src, &ip.src, 16);
	memcpy(out->dst, &ip.dst, 16);
	memcpy(out->smsk, &ip.smsk, 16);
	memcpy(out->dmsk, &ip.dmsk, 16);
	memcpy(out->iniface, ip.iniface, IFNAMSIZ);
	memcpy(out->outiface, ip.outiface, IFNAMSIZ);
	memcpy(out->iniface_mask, ip.iniface_mask, IFNAMSIZ);
	memcpy(out->outiface_mask, ip.outiface_mask, IFNAMSIZ);
	out->proto = ip.proto;
	out->tos = ip.tos;
	out->invflags = ip.invflags;
	/* ip6_packet_match() looks for the protocol only with IP6T_F_PROTO; TOS never. */
	if (ip.flags & IP6T_F_PROTO)
		out->flags |= RULE_F_PROTO;
	if (ip.flags & IP6T_F_GOTO)
		out->flags |= RULE_F_GOTO;
}

static void ipv4_from_model(const struct rule_ip *in, void *p)
{
	struct ipt_ip ip;

	memset(&ip, 0, sizeof(ip));
	memcpy(&ip.src, in->src, 4);
	memcpy(&ip.dst, in->dst, 4);
	memcpy(&ip.smsk, in->smsk, 4);
	memcpy(&ip.dmsk, in->dmsk, 4);
	memcpy(ip.iniface, in->iniface, IFNAMSIZ);
	memcpy(ip.outiface, in->outiface, IFNAMSIZ);
	memcpy(ip.iniface_mask, in->iniface_mask, IFNAMSIZ);
	memcpy(ip.outiface_mask, in->outiface_mask, IFNAMSIZ);
	ip.proto = in->proto;
	ip.invflags = in->invflags;
	ip.flags = ((in->flags & RULE_F_FRAG) ? IPT_F_FRAG : 0) |
		   ((in->flags & RULE_F_GOTO) ? IPT_F_GOTO : 0);
	memcpy(p, &ip, sizeof(ip));
}

static void ipv6_from_model(const struct rule_ip *in, void *p)
{
	struct ip6t_ip6 ip;

	memset(&ip, 0, sizeof(ip));
	memcpy(&ip.src, in->src, 16);
	memcpy(&ip.dst, in->dst, 16);
	memcpy(&ip.smsk, in->smsk, 16);
	memcpy(&ip.dmsk, in->dmsk, 16);
	memcpy(ip.iniface, in->iniface, IFNAMSIZ);
	memcpy(ip.outiface, in->outiface, IFNAMSIZ);
	memcpy(ip.iniface_mask, in->iniface_mask, IFNAMSIZ);
	memcpy(ip.outiface_mask, in->outiface_mask, IFNAMSIZ);
	ip.proto = in->proto;
	ip.tos = in->tos;
	ip.invflags = in->invflags;
	ip.flags = ((in->flags & RULE_F_PROTO) ? IP6T_F_PROTO : 0) |
		   ((in->flags & RULE_F_GOTO) ? IP6T_F_GOTO : 0);
	memcpy(p, &ip, sizeof(ip));
}

const struct family family_ipv4 = {
	.nfproto = NFPROTO_IPV4,
	.name = "ip_tables",
	.tag = "",
	.entry_size = sizeof(struct ipt_entry),
	.ip_size = sizeof(struct ipt_ip),
	.off_target = offsetof(struct ipt_entry, target_offset),
	.off_next = offsetof(struct ipt_entry, next_offset),
	.off_comefrom = offsetof(struct ipt_entry, comefrom),
	.off_counters = offsetof(struct ipt_entry, counters),
	.off_flags = offsetof(struct ipt_ip, flags),
	.off_invflags = offsetof(struct ipt_ip, invflags),
	.flags_mask = IPT_F_MASK,
	.invflags_mask = IPT_INV_MASK,
	.to_model = ipv4_to_model,
	.from_model = ipv4_from_model,
};

const struct family family_ipv6 = {
	.nfproto = NFPROTO_IPV6,
	.name = "ip6_tables",
	.tag = "ip6_",
	.entry_size = sizeof(struct ip6t_entry),
	.ip_size = sizeof(struct ip6t_ip6),
	.off_target = offsetof(struct ip6t_entry, target_offset),
	.off_next = offsetof(struct ip6t_entry, next_offset),
	.off_comefrom = offsetof(struct ip6t_entry, comefrom),
	.off_counters = offsetof(struct ip6t_entry, counters),
	.off_flags = offsetof(struct ip6t_ip6, flags),
	.off_invflags = offsetof(struct ip6t_ip6, invflags),
	.flags_mask = IP6T_F_MASK,
	.invflags_mask = IP6T_INV_MASK,
	.to_model = ipv6_to_model,
	.from_model = ipv6_from_model,
};

const struct family *family_get(uint32_t nfproto)
{
	if (nfproto == NFPROTO_IPV4 || nfproto == 0)
		return &family_ipv4;
	if (nfproto == NFPROTO_IPV6)
		return &family_ipv6;
	return NULL;
}
