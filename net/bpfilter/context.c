// SPDX-License-Identifier: GPL-2.0
/* The helper's context: namespaces and their tables, each created on first use. */
#define _GNU_SOURCE

#include "context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "family.h"
#include "state.h"
#include "table.h"

static int dir_fd_or_none(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISDIR(st.st_mode))
		return -1;
	return fd;
}

/* Bring back every namespace saved by a previous helper instance. */
static void reload_saved(struct context *ctx)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	if (ctx->state_dir_fd < 0)
		return;
	fd = openat(ctx->state_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		const struct table_kind *kind;
		const struct family *fam;
		unsigned long ino;
		struct netns *ns;
		char *end;

		ino = strtoul(de->d_name, &end, 10);
		if (end == de->d_name || ino > UINT32_MAX)
			continue;
		if (state_file_parse(end, &fam, &kind))
			continue;
		if (context_get_netns(ctx, ino, fam, kind, &ns))
			bf_warn(ctx, "netns %lu: saved %s %s table not restored", ino, fam->name,
				kind->name);
	}
	closedir(dir);
}

int context_init(struct context *ctx, int state_fd, int bpffs_fd, const char *backend)
{
	memset(ctx, 0, sizeof(*ctx));
	log_init(&ctx->log, LOG_TO_STDERR, LOG_LVL_INFO);
	ctx->state_dir_fd = dir_fd_or_none(state_fd);
	ctx->bpffs_fd = dir_fd_or_none(bpffs_fd);
	ctx->backend = backend_find(backend);
	if (!ctx->backend) {
		bf_err(ctx, "unknown backend '%s'", backend);
		return -EINVAL;
	}
	reload_saved(ctx);
	return 0;
}

static void netns_free(struct context *ctx, struct netns *ns)
{
	ctx->backend->release(ctx, ns);
	table_free(ns->table);
	free(ns);
}

void context_fini(struct context *ctx)
{
	while (ctx->netns) {
		struct netns *ns = ctx->netns;

		ctx->netns = ns->next;
		netns_free(ctx, ns);
	}
	log_fini(&ctx->log);
}

struct netns *context_find_netns(struct context *ctx, uint32_t ino, const struct family *fam,
				 const struct table_kind *kind)
{
	struct netns *ns;

	for (ns = ctx->netns; ns; ns = ns->next)
		if (ns->ino == ino && (!fam || ns->fam == fam) && (!kind || ns->kind == kind))
			return ns;
	return NULL;
}

int context_get_netns(struct context *ctx, uint32_t ino, const struct family *fam,
		      const struct table_kind *kind, struct netns **out)
{
	struct netns *ns;
	int err;

	ns = context_find_netns(ctx, ino, fam, kind);
	if (ns) {
		*out = ns;
		return 0;
	}
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->ino = ino;
	ns->fam = fam;
	ns->kind = kind;
	err = state_load(ctx, ns);
	if (!err && ctx->backend->restore) {
		err = ctx->backend->restore(ctx, ns, ns->table);
		if (err)
			bf_err(ctx, "netns %u: backend %s cannot restore the saved %s table: %d",
			       ino, ctx->backend->name, kind->name, err);
	} else if (err) {
		if (err != -ENOENT)
			bf_warn(ctx, "netns %u: saved %s table unusable (%d), starting fresh", ino,
				kind->name, err);
		err = table_create_initial(ctx, fam, kind, &ns->table);
		if (err) {
			free(ns);
			return err;
		}
		ns->created = ctx->table_seq;
	}
	/* Stamps stay increasing across helper restarts: the order is x_tables'. */
	if (ns->created >= ctx->table_seq)
		ctx->table_seq = ns->created + 1;
	ns->next = ctx->netns;
	ctx->netns = ns;
	*out = ns;
	return 0;
}

uint32_t context_table_list(const struct context *ctx, uint32_t ino, const struct family *fam)
{
	const struct netns *ns, *best;
	uint64_t below = UINT64_MAX;
	uint32_t list = 0;
	unsigned int n;

	/* Newest first, as xt_register_table() adds each table at the head of its list. */
	for (n = 0; n < BPFILTER_TABLE_MAX; n++) {
		best = NULL;
		for (ns = ctx->netns; ns; ns = ns->next)
			if (ns->ino == ino && ns->fam == fam && ns->created < below &&
			    (!best || ns->created > best->created))
				best = ns;
		if (!best)
			break;
		list |= (uint32_t)(best->kind->id + 1) << (n * BPFILTER_TABLES_BITS);
		below = best->created;
	}
	return list;
}

void context_netns_exit(struct context *ctx, uint32_t ino)
{
	struct netns **pp = &ctx->netns, *ns;

	while (*pp) {
		ns = *pp;
		if (ns->ino != ino) {
			pp = &ns->next;
			continue;
		}
		*pp = ns->next;
		netns_free(ctx, ns);
	}
	state_remove(ctx, ino);
}
