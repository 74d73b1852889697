// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the blob parser: the input is an ipt_replace header
 * followed by the entries. Whatever it is, table_from_replace() must return
 * 0 or -errno without a sanitizer report, and an accepted table must read
 * back (GET_ENTRIES view) and re-validate to the same bytes.
 */
#define _GNU_SOURCE

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct context ctx;
	static int ready;
	struct xt_counters *counters;
	struct ipt_replace repl;
	struct table *t, *t2;
	void *blob, *view, *view2;

	if (!ready) {
		if (context_init(&ctx, -1, -1, "store"))
			abort();
		ctx.log.level = LOG_LVL_ERR;
		ready = 1;
	}
	if (size < sizeof(repl))
		return 0;
	memcpy(&repl, data, sizeof(repl));
	/* The sockopt layer guarantees size bytes are there: do the same. */
	repl.size = size - sizeof(repl);
	blob = malloc(repl.size ? repl.size : 1);
	if (!blob)
		return 0;
	memcpy(blob, data + sizeof(repl), repl.size);
	if (table_from_replace(&ctx, &repl, blob, &t)) {
		free(blob);
		return 0;
	}
	counters = calloc(t->num_entries ? t->num_entries : 1, sizeof(*counters));
	view = malloc(t->size ? t->size : 1);
	if (!counters || !view)
		abort();
	memcpy(view, t->entries, t->size);
	table_to_entries(t, counters, view);
	/* What GET_ENTRIES shows is itself a valid table with the same layout. */
	if (table_from_replace(&ctx, &repl, view, &t2))
		abort();
	view2 = malloc(t->size ? t->size : 1);
	if (!view2)
		abort();
	memcpy(view2, t2->entries, t2->size);
	table_to_entries(t2, counters, view2);
	if (t2->num_entries != t->num_entries || memcmp(view, view2, t->size))
		abort();
	free(view2);
	table_free(t2);
	table_free(t);
	free(counters);
	free(view);
	free(blob);
	return 0;
}
