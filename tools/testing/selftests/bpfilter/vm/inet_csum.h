/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPFILTER_VM_INET_CSUM_H
#define BPFILTER_VM_INET_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* sum plus len bytes at p as big-endian 16-bit words (RFC 1071), not folded. */
static inline uint32_t inet_sum(const unsigned char *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

/*
 * The TCP or UDP checksum of the len bytes at l4 (checksum field zero)
 * behind the IPv4 header iph: its pseudo header's addresses and protocol
 * come from iph.
 */
static inline uint16_t inet_l4_csum(const unsigned char *iph, const unsigned char *l4, size_t len)
{
	uint32_t sum = inet_sum(iph + 12, 8, iph[9] + len);

	sum = inet_sum(l4, len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/*
 * The same behind the IPv6 header ip6h: its pseudo header's addresses come
 * from ip6h, its next header is @proto (no extension headers).
 */
static inline uint16_t inet6_l4_csum(const unsigned char *ip6h, uint8_t proto,
				     const unsigned char *l4, size_t len)
{
	uint32_t sum = inet_sum(ip6h + 8, 32, proto + len);

	sum = inet_sum(l4, len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

#endif
