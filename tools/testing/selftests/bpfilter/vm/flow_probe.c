// SPDX-License-Identifier: GPL-2.0
/*
 * flow_probe: send the first packet of one IPv4 or IPv6 flow per line of
 * stdin,
 *   udp|tcp SRC SPORT DST DPORT
 * a UDP datagram with 16 bytes of payload or a TCP SYN, from a raw socket,
 * so any source address can be written and no socket answers the reply.
 * The packets leave in the order of the lines from one CPU: through veth
 * they reach the next namespace's netfilter hooks in that order too, which
 * the differential NAT test needs (statistic's nth counters, which flow
 * takes a port first). A packet the kernel refuses (a NAT target's route
 * that does not exist) is reported as "flow N: error" and the rest still
 * go. Prints "flow_probe: sent N failed M"; exits 0 if every packet was sent.
 *
 * flow_probe listen PORT...: listen on TCP PORT... (any address of either
 * family) until
 * killed, accepting nothing: a SYN to one is answered with a SYN-ACK, where
 * a closed port's RST would end the flow's conntrack entry before the test
 * reads it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inet_csum.h"

#define PAYLOAD 16
#define PKT_MAX (40 + 20 + PAYLOAD)

/*
 * Writes the packet for one flow into pkt and returns its length, 0 on a
 * bad line; *family says which (an address with a ':' is IPv6's).
 */
static size_t build(unsigned char *pkt, const char *line, uint16_t id, int *family)
{
	char proto[8], src[64], dst[64];
	unsigned int sport, dport;
	size_t l4len, csum_off, hlen;
	unsigned char *l4;
	uint8_t nexthdr;
	uint16_t c;

	if (sscanf(line, "%7s %63s %u %63s %u", proto, src, &sport, dst, &dport) != 5 ||
	    sport > 65535 || dport > 65535)
		return 0;
	*family = strchr(src, ':') ? AF_INET6 : AF_INET;
	hlen = *family == AF_INET6 ? 40 : 20;
	l4 = pkt + hlen;
	memset(pkt, 0, PKT_MAX);
	if (!strcmp(proto, "udp")) {
		l4len = 8 + PAYLOAD;
		csum_off = 6;
		nexthdr = IPPROTO_UDP;
		l4[4] = l4len >> 8;
		l4[5] = l4len & 0xff;
		memcpy(l4 + 8, "bpfilter natdiff", PAYLOAD);
	} else if (!strcmp(proto, "tcp")) {
		l4len = 20;
		csum_off = 16;
		nexthdr = IPPROTO_TCP;
		l4[7] = 1;		/* sequence number 1 */
		l4[12] = 5 << 4;
		l4[13] = 0x02;		/* SYN */
		l4[15] = 0xff;		/* window */
	} else {
		return 0;
	}
	if (*family == AF_INET6) {
		pkt[0] = 0x60;
		pkt[4] = l4len >> 8;
		pkt[5] = l4len & 0xff;
		pkt[6] = nexthdr;
		pkt[7] = 64;
		if (inet_pton(AF_INET6, src, pkt + 8) != 1 ||
		    inet_pton(AF_INET6, dst, pkt + 24) != 1)
			return 0;
	} else {
		pkt[0] = 0x45;
		pkt[2] = (20 + l4len) >> 8;
		pkt[3] = (20 + l4len) & 0xff;
		pkt[4] = id >> 8;
		pkt[5] = id & 0xff;
		pkt[8] = 64;
		pkt[9] = nexthdr;
		if (inet_pton(AF_INET, src, pkt + 12) != 1 ||
		    inet_pton(AF_INET, dst, pkt + 16) != 1)
			return 0;
	}
	l4[0] = sport >> 8;
	l4[1] = sport & 0xff;
	l4[2] = dport >> 8;
	l4[3] = dport & 0xff;
	if (*family == AF_INET6)
		c = inet6_l4_csum(pkt, nexthdr, l4, l4len);
	else
		c = inet_l4_csum(pkt, l4, l4len);
	if (nexthdr == IPPROTO_UDP && !c)
		c = 0xffff;		/* UDP's zero means "no checksum" */
	l4[csum_off] = c >> 8;
	l4[csum_off + 1] = c & 0xff;
	return hlen + l4len;
}

static int listen_on(int argc, char **argv)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a = { .sin_family = AF_INET };
	int i, fd, fd6, one = 1;

	for (i = 2; i < argc; i++) {
		a.sin_port = htons(strtoul(argv[i], NULL, 10));
		a6.sin6_port = a.sin_port;
		fd = socket(AF_INET, SOCK_STREAM, 0);
		fd6 = socket(AF_INET6, SOCK_STREAM, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128) || fd6 < 0 ||
		    setsockopt(fd6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
		    setsockopt(fd6, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(fd6, (struct sockaddr *)&a6, sizeof(a6)) || listen(fd6, 128)) {
			fprintf(stderr, "flow_probe: listen %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
	}
	printf("flow_probe: listening\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned int lineno = 0, sent = 0, failed = 0;
	unsigned char pkt[PKT_MAX];
	int fd, fd6, family;
	char line[256];
	cpu_set_t cpu0;
	ssize_t n;
	size_t len;

	if (argc > 1 && !strcmp(argv[1], "listen"))
		return listen_on(argc, argv);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("flow_probe: sched_setaffinity");
		return 1;
	}
	/* IPPROTO_RAW: the packets carry their own IP header, in either family. */
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	fd6 = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || fd6 < 0) {
		perror("flow_probe: socket");
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		len = build(pkt, line, 0x4000 + lineno, &family);
		if (!len) {
			fprintf(stderr, "flow_probe: line %u: bad flow: %s", lineno, line);
			return 1;
		}
		if (family == AF_INET6) {
			memcpy(&dst6.sin6_addr, pkt + 24, 16);
			n = sendto(fd6, pkt, len, 0, (struct sockaddr *)&dst6, sizeof(dst6));
		} else {
			memcpy(&dst.sin_addr, pkt + 16, 4);
			n = sendto(fd, pkt, len, 0, (struct sockaddr *)&dst, sizeof(dst));
		}
		if (n != (ssize_t)len) {
			printf("flow %u: %s\n", lineno, strerror(errno));
			failed++;
			continue;
		}
		sent++;
	}
	close(fd);
	close(fd6);
	printf("flow_probe: sent %u failed %u\n", sent, failed);
	return failed ? 1 : 0;
}
