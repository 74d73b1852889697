/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash survival: each namespace's tables are saved to a file in the
 * state directory (BPFILTER_STATE_FD) after every change, so a restarted
 * helper serves the same table and counters.
 */
#ifndef NET_BPFILTER_STATE_H
#define NET_BPFILTER_STATE_H

#include <stdint.h>

struct context;
struct family;
struct netns;
struct table_kind;

/*
 * Save @ns's table with its model counters and its budget owner,
 * atomically (temp file + rename): 0 or -errno; 0 without a state dir.
 */
int state_save(struct context *ctx, const struct netns *ns);
/*
 * Reload and re-validate the saved table of @ns->ino, @ns->fam and @ns->kind into
 * @ns->table, with its budget owner and creation stamp: 0, -ENOENT if none saved, or
 * -errno (@ns unchanged).
 */
int state_load(struct context *ctx, struct netns *ns);
/* Delete the saved tables of @ino, every family and kind; no error if there is none. */
void state_remove(struct context *ctx, uint32_t ino);
/*
 * The family and table kind of the state files whose name ends in @suffix (".filter",
 * ".ip6_raw", ...): 0, or -ENOENT if it is no table's.
 */
int state_file_parse(const char *suffix, const struct family **fam,
		     const struct table_kind **kind);

#endif /* NET_BPFILTER_STATE_H */
