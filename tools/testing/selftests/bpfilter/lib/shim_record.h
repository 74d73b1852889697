/* SPDX-License-Identifier: GPL-2.0 */
/* File format of the shim's recorder mode (BPFILTER_RECORD=dir). */
#ifndef BPFILTER_SHIM_RECORD_H
#define BPFILTER_SHIM_RECORD_H

#include <stdint.h>

#define SHIM_RECORD_MAGIC	0x62706672	/* "bpfr" */

/* One intercepted sockopt; payload_len bytes of optval follow. */
struct shim_record {
	uint32_t magic;
	uint32_t is_set;	/* 1 setsockopt, 0 getsockopt */
	uint32_t cmd;		/* the optname */
	uint32_t len;		/* optlen as passed in */
	int32_t status;		/* set: 0 or -errno of the call; get: 0 */
	uint32_t payload_len;	/* optlen: a set's optval, a get's input buffer */
};

#endif /* BPFILTER_SHIM_RECORD_H */
