/* SPDX-License-Identifier: GPL-2.0 */
/* File format of the shim's recorder mode (BPFILTER_RECORD=dir). */
#ifndef BPFILTER_SHIM_RECORD_H
#define BPFILTER_SHIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Two layouts: SHIM_RECORD_MAGIC records (the first shims, ip_tables only)
 * end after payload_len; SHIM_RECORD_MAGIC2 records, which the shim writes
 * now, also say the family. Readers take both (shim_record_hdr_size()).
 */
#define SHIM_RECORD_MAGIC	0x62706672	/* "bpfr": IPv4, no family field */
#define SHIM_RECORD_MAGIC2	0x62706632	/* "bpf2": with family */

/* One intercepted sockopt; payload_len bytes of optval follow. */
struct shim_record {
	uint32_t magic;
	uint32_t is_set;	/* 1 setsockopt, 0 getsockopt */
	uint32_t cmd;		/* the optname, as the caller passed it */
	uint32_t len;		/* optlen as passed in */
	int32_t status;		/* set: 0 or -errno of the call; get: 0 */
	uint32_t payload_len;	/* optlen: a set's optval, a get's input buffer */
	/* SHIM_RECORD_MAGIC2 only: */
	uint32_t family;	/* NFPROTO_IPV4 (level SOL_IP) or NFPROTO_IPV6 (SOL_IPV6) */
	uint32_t reserved;	/* 0 */
};

/* Bytes of the header of a record with this magic, 0 if it is none. */
static inline size_t shim_record_hdr_size(uint32_t magic)
{
	if (magic == SHIM_RECORD_MAGIC)
		return offsetof(struct shim_record, family);
	return magic == SHIM_RECORD_MAGIC2 ? sizeof(struct shim_record) : 0;
}

#endif /* BPFILTER_SHIM_RECORD_H */
