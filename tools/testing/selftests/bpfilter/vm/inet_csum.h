/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFILTER_VM_INET_CSUM_H
#define BPFILTER_VM_INET_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* The Internet checksum (RFC 1071) of len bytes at p, added to sum. */
static inline uint16_t inet_csum(const unsigned char *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

#endif
