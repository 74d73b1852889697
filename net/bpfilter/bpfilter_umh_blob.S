/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static usermode helper, embedded in the module. It lives in .rodata
 * rather than .init.rodata because it is written out by a work item, which
 * modpost would flag as a section mismatch on 6.1.
 */
	.section .rodata, "a"
	.balign 8
	.global bpfilter_umh_start
bpfilter_umh_start:
	.incbin BPFILTER_UMH_BIN
	.global bpfilter_umh_end
bpfilter_umh_end:
