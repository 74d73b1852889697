/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What x_tables knows a match or target by, and its lookups: the one place
 * where xt_find_match()/xt_find_target() and xt_find_revision() are
 * mirrored for both kinds of extension.
 */
#ifndef NET_BPFILTER_EXTENSION_H
#define NET_BPFILTER_EXTENSION_H

#include <stddef.h>
#include <stdint.h>

struct ext_id {
	const char *name;
	uint8_t revision;
	/* NFPROTO_IPV4 or NFPROTO_UNSPEC: decides ENOENT vs EPROTOTYPE for a bad revision */
	uint8_t family;
};

/*
 * As xt_find_match()/xt_find_target() over the @n extensions of @list,
 * whose struct ext_id sits at @id_off: the index found, or -EINVAL (name
 * too long), -ENOENT or -EPROTOTYPE (known name, other revision).
 */
int ext_find(const void *const *list, unsigned int n, size_t id_off, const char *name,
	     uint8_t revision);
/* As xt_find_revision(): 0, -ENOENT (unknown name) or -EPROTONOSUPPORT. */
int ext_revision(const void *const *list, unsigned int n, size_t id_off, const char *name,
		 uint8_t revision);

#endif
