/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs of bpfilter's netfilter programs live in bpfilter_kfunc.ko
 * (bpfilter_kfunc.c documents each one's contract): a program that calls a
 * kfunc holds that module, and bpfilter.ko must stay unloadable while its
 * programs run.
 */
#ifndef _NET_BPFILTER_KFUNC_H
#define _NET_BPFILTER_KFUNC_H

/* For bpfilter.ko: 0 when the kfuncs are registered (and the module loaded before us). */
int bpfilter_kfunc_ready(void);

#endif
