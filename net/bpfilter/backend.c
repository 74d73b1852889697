// SPDX-License-Identifier: GPL-2.0
/*
 * Backend selection and the "store" backend: tables live in the model only,
 * nothing is enforced, and all counting is the model's own.
 */
#define _GNU_SOURCE

#include "backend.h"

#include <string.h>

static int store_install(struct context *ctx, struct netns *ns, struct table *new_table,
			 struct table *old_table)
{
	(void)ctx;
	(void)ns;
	(void)new_table;
	(void)old_table;
	return 0;
}

static int store_read_counters(struct context *ctx, struct netns *ns, const struct table *t,
			       struct xt_counters *out)
{
	(void)ctx;
	(void)ns;
	(void)t;
	(void)out;
	return 0;
}

static void store_release(struct context *ctx, struct netns *ns)
{
	(void)ctx;
	(void)ns;
}

const struct backend_ops store_backend_ops = {
	.name = "store",
	.install = store_install,
	.read_counters = store_read_counters,
	.release = store_release,
};

const struct backend_ops *backend_find(const char *name)
{
	/* bpf_backend_ops is weak: its address is NULL unless backend_bpf.o is linked. */
	const struct backend_ops *bpf = &bpf_backend_ops;

	if (!name || !*name)
		return bpf ? bpf : &store_backend_ops;
	if (!strcmp(name, store_backend_ops.name))
		return &store_backend_ops;
	if (bpf && !strcmp(name, bpf->name))
		return bpf;
	return NULL;
}
