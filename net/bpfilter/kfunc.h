/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs of bpfilter's netfilter programs live in bpfilter_kfunc.ko
 * (bpfilter_kfunc.c documents each one's contract): a program that calls a
 * kfunc holds that module, and bpfilter.ko must stay unloadable while its
 * programs run.
 */
#ifndef _NET_BPFILTER_KFUNC_H
#define _NET_BPFILTER_KFUNC_H

struct net;
struct xt_recent_mtinfo_v1;

/* xt_recent's checkentry for each of @infos in @net, held as the pending set
 * (an earlier pending set is dropped first): 0, or checkentry's -errno with
 * nothing held.
 */
int bpfilter_recent_check(struct net *net, const struct xt_recent_mtinfo_v1 *infos,
			  unsigned int n);

enum bpfilter_recent_outcome {
	BPFILTER_RECENT_COMMIT,		/* the new table is in force: destroy the old set */
	BPFILTER_RECENT_ABORT,		/* it is not: destroy the pending set */
	BPFILTER_RECENT_KEEP,		/* unknown: keep both */
	BPFILTER_RECENT_RELEASE,	/* the namespace's table is gone: destroy all */
};

/* Settle @net's pending set after a call to the helper (may sleep). */
void bpfilter_recent_settle(struct net *net, enum bpfilter_recent_outcome how);

#endif
