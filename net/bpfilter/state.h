/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash survival: each namespace's filter table is saved to a file in the
 * state directory (BPFILTER_STATE_FD) after every change, so a restarted
 * helper serves the same table and counters.
 */
#ifndef NET_BPFILTER_STATE_H
#define NET_BPFILTER_STATE_H

#include <stdint.h>

struct context;
struct family;
struct netns;

/*
 * Save @ns's filter table with its model counters and its budget owner,
 * atomically (temp file + rename): 0 or -errno; 0 without a state dir.
 */
int state_save(struct context *ctx, const struct netns *ns);
/*
 * Reload and re-validate the saved table of @ns->ino and @ns->fam into @ns->filter, with
 * its budget owner: 0, -ENOENT if none saved, or -errno (@ns unchanged).
 */
int state_load(struct context *ctx, struct netns *ns);
/* Delete the saved tables of @ino, every family; no error if there is none. */
void state_remove(struct context *ctx, uint32_t ino);
/* The family whose state files end in @suffix (".table", ".ip6_table"), or NULL. */
const struct family *state_file_family(const char *suffix);

#endif /* NET_BPFILTER_STATE_H */
