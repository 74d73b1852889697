// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_flags SRC DST SPORT DPORT FLAGS: send one IPv4 TCP segment with the
 * given flags byte (e.g. 0x03 for SYN|FIN) from a raw socket, with correct
 * checksums and no payload. Busybox cannot make such segments; the VM tests
 * use them to make conntrack see an INVALID packet (tcp_error() refuses
 * that flag combination), and as a packet whose LOG line is known (IP ID
 * 0x1234). Exits 0 if the segment was sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inet_csum.h"

int main(int argc, char **argv)
{
	unsigned char pkt[40] = { 0 };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned char *tcp = pkt + 20;
	uint16_t sport, dport, c;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: %s SRC DST SPORT DPORT FLAGS\n", argv[0]);
		return 2;
	}
	pkt[0] = 0x45;
	pkt[3] = sizeof(pkt);
	pkt[4] = 0x12;			/* a fixed ID: LOG lines can be compared */
	pkt[5] = 0x34;
	pkt[8] = 64;
	pkt[9] = IPPROTO_TCP;
	if (inet_pton(AF_INET, argv[1], pkt + 12) != 1 ||
	    inet_pton(AF_INET, argv[2], pkt + 16) != 1) {
		fprintf(stderr, "bad address\n");
		return 2;
	}
	sport = strtoul(argv[3], NULL, 0);
	dport = strtoul(argv[4], NULL, 0);
	tcp[0] = sport >> 8;
	tcp[1] = sport & 0xff;
	tcp[2] = dport >> 8;
	tcp[3] = dport & 0xff;
	tcp[7] = 1;			/* sequence number 1 */
	tcp[12] = 5 << 4;
	tcp[13] = strtoul(argv[5], NULL, 0);
	tcp[15] = 0xff;			/* window */
	c = inet_l4_csum(pkt, tcp, 20);
	tcp[16] = c >> 8;
	tcp[17] = c & 0xff;
	memcpy(&dst.sin_addr, pkt + 16, 4);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst,
			     sizeof(dst)) != sizeof(pkt)) {
		perror("tcp_flags");
		return 1;
	}
	close(fd);
	return 0;
}
