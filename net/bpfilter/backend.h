/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where validated tables go to be enforced. sockopt.c only talks to this
 * interface; "store" keeps tables in the model without enforcing them, the
 * BPF backend (backend_bpf.c) turns them into netfilter programs.
 */
#ifndef NET_BPFILTER_BACKEND_H
#define NET_BPFILTER_BACKEND_H

#include <linux/netfilter/x_tables.h>

struct context;
struct netns;
struct table;

struct backend_ops {
	const char *name;
	/*
	 * Make @new_table the ruleset enforced in @ns in place of @old_table.
	 * On failure return -errno and leave @old_table in force, unchanged.
	 * On success, add @old_table's final live counts into its
	 * rules[i].counters before dropping them: sockopt.c reports them to the
	 * caller as the old counters. @ns->pid is the requesting process.
	 */
	int (*install)(struct context *ctx, struct netns *ns, struct table *new_table,
		       struct table *old_table);
	/*
	 * Add the live counts of @t (in force in @ns) to out[0 .. t->num_entries - 1]: 0 or
	 * -errno.
	 */
	int (*read_counters)(struct context *ctx, struct netns *ns, const struct table *t,
			     struct xt_counters *out);
	/*
	 * Optional (NULL = nothing to do): @t was reloaded from the state
	 * directory after a helper restart; reattach to what enforces it.
	 */
	int (*restore)(struct context *ctx, struct netns *ns, struct table *t);
	/* The namespace is gone or the helper exits: drop everything for @ns. */
	void (*release)(struct context *ctx, struct netns *ns);
	/* Optional: housekeeping, called when no request came for BACKEND_TICK_MS. */
	void (*tick)(struct context *ctx);
};

/* Idle period after which main.c calls backend_ops.tick. */
#define BACKEND_TICK_MS 2000

/* Keeps tables in the model only; live counters are always zero. */
extern const struct backend_ops store_backend_ops;
/* BPF enforcement, if linked in (weak: NULL when backend_bpf.o is absent). */
extern const struct backend_ops bpf_backend_ops __attribute__((weak));

/*
 * The backend called @name ("store", "bpf"), or the default (bpf if linked, else store) for
 * NULL/"": NULL if unknown.
 */
const struct backend_ops *backend_find(const char *name);

#endif /* NET_BPFILTER_BACKEND_H */
