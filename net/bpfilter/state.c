// SPDX-License-Identifier: GPL-2.0
/*
 * Saved tables, one file per namespace, family and table in the state
 * directory (<ino>.filter, <ino>.ip6_filter, <ino>.raw, ...): a header
 * with the GET_INFO fields, when the table was made and whose budget the
 * namespace is on, then the
 * GET_ENTRIES bytes with the model counters. A reload re-validates the blob
 * like a REPLACE would.
 */
#define _GNU_SOURCE

#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "family.h"
#include "hold.h"
#include "io.h"
#include "table.h"

#define STATE_MAGIC "bpfltst3"
#define STATE_MAX_SIZE (512u * 1024 * 1024)

struct state_header {
	char magic[8];
	struct ipt_getinfo info;
	uint32_t hold_base;	/* of the held matches' ids: the module holds them so */
	/* A restarted helper counts the namespace on the same budget at once. */
	uint32_t limited;
	uint32_t owner_uid;
	uint64_t created;	/* netns.created: /proc/net/ip_tables_names' order */
};

static const struct family *const families[] = { &family_ipv4, &family_ipv6 };

static void state_names(uint32_t ino, const struct family *f, const struct table_kind *kind,
			char *name, char *tmp, size_t len)
{
	snprintf(name, len, "%u.%s%s", ino, f->tag, kind->name);
	snprintf(tmp, len, "%u.%s%s.tmp", ino, f->tag, kind->name);
}

int state_file_parse(const char *suffix, const struct family **fam,
		     const struct table_kind **kind)
{
	char want[32];
	unsigned int i, k;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		for (k = 0; k < BPFILTER_TABLE_MAX; k++) {
			snprintf(want, sizeof(want), ".%s%s", families[i]->tag, table_kinds[k].name);
			if (strcmp(suffix, want))
				continue;
			*fam = families[i];
			*kind = &table_kinds[k];
			return 0;
		}
	}
	return -ENOENT;
}

int state_save(struct context *ctx, const struct netns *ns)
{
	const struct table *t = ns->table;
	struct xt_counters *counters = NULL;
	struct state_header hdr;
	char name[32], tmp[32];
	void *blob = NULL;
	uint32_t i;
	int fd, err;

	if (ctx->state_dir_fd < 0)
		return 0;
	state_names(ns->ino, ns->fam, ns->kind, name, tmp, sizeof(name));
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, STATE_MAGIC, sizeof(hdr.magic));
	table_to_info(t, t->name, &hdr.info);
	hdr.hold_base = t->hold_base;
	hdr.limited = ns->limited;
	hdr.owner_uid = ns->owner_uid;
	hdr.created = ns->created;
	counters = calloc(t->num_entries ? t->num_entries : 1, sizeof(*counters));
	blob = malloc(t->size ? t->size : 1);
	if (!counters || !blob) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < t->num_entries; i++)
		counters[i] = t->rules[i].counters;
	memcpy(blob, t->entries, t->size);
	table_to_entries(t, counters, blob);

	fd = openat(ctx->state_dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = write_exact(fd, &hdr, sizeof(hdr));
	if (!err)
		err = write_exact(fd, blob, t->size);
	close(fd);
	if (!err && renameat(ctx->state_dir_fd, tmp, ctx->state_dir_fd, name))
		err = -errno;
	if (err)
		unlinkat(ctx->state_dir_fd, tmp, 0);

out_free:
	if (err)
		bf_err(ctx, "netns %u: cannot save %s %s table: %d", ns->ino, ns->fam->name,
		       ns->kind->name, err);
	free(counters);
	free(blob);
	return err;
}

int state_load(struct context *ctx, struct netns *ns)
{
	uint32_t ino = ns->ino;
	struct state_header hdr;
	struct ipt_replace repl;
	char name[32], tmp[32];
	struct table *t = NULL;
	char *blob = NULL;
	uint32_t i;
	int fd, err;

	if (ctx->state_dir_fd < 0)
		return -ENOENT;
	state_names(ino, ns->fam, ns->kind, name, tmp, sizeof(name));
	fd = openat(ctx->state_dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_exact(fd, &hdr, sizeof(hdr));
	if (err)
		goto out;
	if (memcmp(hdr.magic, STATE_MAGIC, sizeof(hdr.magic)) || hdr.info.size > STATE_MAX_SIZE ||
	    strncmp(hdr.info.name, ns->kind->name, sizeof(hdr.info.name))) {
		err = -EINVAL;
		goto out;
	}
	blob = malloc(hdr.info.size ? hdr.info.size : 1);
	if (!blob) {
		err = -ENOMEM;
		goto out;
	}
	err = read_exact(fd, blob, hdr.info.size);
	if (err)
		goto out;

	memset(&repl, 0, sizeof(repl));
	memcpy(repl.name, hdr.info.name, sizeof(repl.name));
	repl.valid_hooks = hdr.info.valid_hooks;
	repl.num_entries = hdr.info.num_entries;
	repl.size = hdr.info.size;
	memcpy(repl.hook_entry, hdr.info.hook_entry, sizeof(repl.hook_entry));
	memcpy(repl.underflow, hdr.info.underflow, sizeof(repl.underflow));
	err = table_from_replace(ctx, ns->fam, &repl, blob, &t);
	if (err)
		goto out;
	holds_number(t, hdr.hold_base);
	/* The saved counters are in the entries, which the validation ignored. */
	for (i = 0; i < t->num_entries; i++)
		entry_get_counters(ns->fam, blob + t->rules[i].offset, &t->rules[i].counters);
	ns->table = t;
	ns->limited = hdr.limited;
	ns->owner_uid = hdr.owner_uid;
	ns->created = hdr.created;
out:
	if (err && err != -ENOENT)
		bf_err(ctx, "netns %u: saved table invalid: %d", ino, err);
	free(blob);
	close(fd);
	return err;
}

void state_remove(struct context *ctx, uint32_t ino)
{
	char name[32], tmp[32];
	unsigned int i, k;

	if (ctx->state_dir_fd < 0)
		return;
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		for (k = 0; k < BPFILTER_TABLE_MAX; k++) {
			state_names(ino, families[i], &table_kinds[k], name, tmp, sizeof(name));
			unlinkat(ctx->state_dir_fd, name, 0);
			unlinkat(ctx->state_dir_fd, tmp, 0);
		}
	}
}
