/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfilter.ko's kfuncs for its netfilter programs (bpfilter_kfunc.c, which
 * documents each one's contract).
 */
#ifndef _NET_BPFILTER_KFUNC_H
#define _NET_BPFILTER_KFUNC_H

/* Register the kfuncs for BPF_PROG_TYPE_NETFILTER programs: 0 or -errno. */
int bpfilter_kfunc_init(void);
/* Release what bpfilter_kfunc_init() holds (the LOG logger). */
void bpfilter_kfunc_exit(void);

#endif
