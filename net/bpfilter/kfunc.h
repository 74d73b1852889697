/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs of bpfilter's netfilter programs live in bpfilter_kfunc.ko
 * (bpfilter_kfunc.c documents each one's contract): a program that calls a
 * kfunc holds that module, and bpfilter.ko must stay unloadable while its
 * programs run.
 */
#ifndef _NET_BPFILTER_KFUNC_H
#define _NET_BPFILTER_KFUNC_H

#include <linux/types.h>

struct net;

/* The checkentries of the struct bpfilter_hold records in @buf (@len bytes,
 * bpfilter.h) in @net for @family's (NFPROTO_IPV4 or NFPROTO_IPV6) table
 * @table (enum bpfilter_table) named @name, held as its pending set (an
 * earlier pending set of that table is dropped first): 0, or the first
 * checkentry's -errno with nothing held.
 */
int bpfilter_holds_check(struct net *net, u8 family, unsigned int table, const char *name,
			 const void *buf, size_t len);

enum bpfilter_holds_outcome {
	BPFILTER_HOLDS_COMMIT,		/* the new table is in force: destroy the old set */
	BPFILTER_HOLDS_ABORT,		/* it is not: destroy the pending set */
	BPFILTER_HOLDS_KEEP,		/* unknown: keep both */
	BPFILTER_HOLDS_RELEASE,		/* the namespace's table is gone: destroy all */
};

/* Settle the holds of @family's table @table in @net after a call to the helper
 * (BPFILTER_TABLE_MAX: every table's); may sleep.
 */
void bpfilter_holds_settle(struct net *net, u8 family, unsigned int table,
			   enum bpfilter_holds_outcome how);

#endif
