// SPDX-License-Identifier: GPL-2.0
/* Extension lookups by name and revision, as x_tables does them. */
#include "extension.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>

#include "codegen.h"

static const struct ext_id *ext_at(const void *const *list, unsigned int i, size_t id_off)
{
	return (const struct ext_id *)((const char *)list[i] + id_off);
}

int ext_find(const void *const *list, unsigned int n, size_t id_off, uint8_t nfproto,
	     const char *name, uint8_t revision)
{
	const uint8_t families[] = { nfproto, NFPROTO_UNSPEC };
	unsigned int f, i;
	int err = -ENOENT;

	if (strnlen(name, XT_EXTENSION_MAXNAMELEN) == XT_EXTENSION_MAXNAMELEN)
		return -EINVAL;
	/*
	 * The family's list first, then the NFPROTO_UNSPEC one, and only the
	 * last list's verdict counts: a wrong revision of an IPv4 extension is
	 * ENOENT, of an UNSPEC one EPROTOTYPE.
	 */
	for (f = 0; f < sizeof(families); f++) {
		err = -ENOENT;
		for (i = 0; i < n; i++) {
			const struct ext_id *id = ext_at(list, i, id_off);

			if (!(id->families & (1u << families[f])) || strcmp(id->name, name))
				continue;
			if (id->revision == revision)
				return i;
			err = -EPROTOTYPE;
		}
	}
	return err;
}

int ext_revision(const void *const *list, unsigned int n, size_t id_off, uint8_t nfproto,
		 const char *name, uint8_t revision)
{
	const unsigned int lists = (1u << nfproto) | EXT_UNSPEC;
	int best = -1, have = 0;
	unsigned int i;

	/* match_revfn(): the family's list and the NFPROTO_UNSPEC one. */
	for (i = 0; i < n; i++) {
		const struct ext_id *id = ext_at(list, i, id_off);

		if (!(id->families & lists) || strcmp(id->name, name))
			continue;
		if (id->revision > best)
			best = id->revision;
		if (id->revision == revision)
			have = 1;
	}
	if (best < 0)
		return -ENOENT;
	return have ? 0 : -EPROTONOSUPPORT;
}

const char *ext_hooks_text(char *buf, size_t size, uint32_t mask)
{
	size_t len = 0;
	unsigned int hook;

	buf[0] = '\0';
	for (hook = 0; hook < NF_INET_NUMHOOKS && len < size; hook++) {
		if (mask & (1u << hook))
			len += snprintf(buf + len, size - len, "%s%s", len ? "/" : "",
					codegen_hook_name(hook));
	}
	return buf;
}
