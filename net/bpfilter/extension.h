/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What x_tables knows a match or target by, and its lookups: the one place
 * where xt_find_match()/xt_find_target() and xt_find_revision() are
 * mirrored for both kinds of extension.
 */
#ifndef NET_BPFILTER_EXTENSION_H
#define NET_BPFILTER_EXTENSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* struct ext_id.families: the x_tables lists an extension is registered in. */
#define EXT_UNSPEC	(1u << 0)	/* NFPROTO_UNSPEC: every family */
#define EXT_IPV4	(1u << 2)	/* NFPROTO_IPV4 */
#define EXT_IPV6	(1u << 10)	/* NFPROTO_IPV6 */

struct ext_id {
	const char *name;
	uint8_t revision;
	/*
	 * EXT_UNSPEC, or the families it is registered for (xt_tcpudp: both);
	 * the lists searched decide ENOENT vs EPROTOTYPE for a bad revision
	 */
	uint16_t families;
	/*
	 * Its BPF holds for either family: it reads nothing family-specific
	 * (skb->mark, a rate, conntrack's state) or follows the table's
	 * (conntrack's tuple addresses). An EXT_UNSPEC extension without it
	 * has no IPv6 translation.
	 */
	bool any_family;
};

/*
 * As xt_find_match()/xt_find_target() for family @nfproto over the @n
 * extensions of @list, whose struct ext_id sits at @id_off: the index
 * found, or -EINVAL (name too long), -ENOENT or -EPROTOTYPE (known name,
 * other revision).
 */
int ext_find(const void *const *list, unsigned int n, size_t id_off, uint8_t nfproto,
	     const char *name, uint8_t revision);
/* As xt_find_revision() for @nfproto: 0, -ENOENT (unknown name) or -EPROTONOSUPPORT. */
int ext_revision(const void *const *list, unsigned int n, size_t id_off, uint8_t nfproto,
		 const char *name, uint8_t revision);
/*
 * @mask's hooks as x_tables' textify_hooks() names them in its log lines,
 * "PREROUTING/OUTPUT", in @buf of @size bytes; returns @buf.
 */
const char *ext_hooks_text(char *buf, size_t size, uint32_t mask);

#endif
