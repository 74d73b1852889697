// SPDX-License-Identifier: GPL-2.0
/*
 * bench-gen: print a benchmark ruleset.
 *
 *   bench-gen [-4|-6] SHAPE N iptables|nft|nft-set
 *
 * SHAPE is blocklist, portlist, mixed or stateful (see shapes.h); the output goes to
 * iptables-legacy-restore or nft -f; with -6 the IPv6 version of the shape, for
 * ip6tables-legacy-restore or nft -f (table ip6).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "shapes.h"

static int parse_format(const char *s, enum shape_format *fmt)
{
	if (!strcmp(s, "iptables"))
		*fmt = FMT_IPTABLES;
	else if (!strcmp(s, "nft"))
		*fmt = FMT_NFT;
	else if (!strcmp(s, "nft-set"))
		*fmt = FMT_NFT_SET;
	else
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	enum shape_format fmt;
	enum shape shape;
	int err, opt, af = AF_INET;
	unsigned long n;
	char *end;

	while ((opt = getopt(argc, argv, "46")) != -1) {
		if (opt == '?')
			goto usage;
		af = opt == '6' ? AF_INET6 : AF_INET;
	}
	argv += optind - 1;
	if (argc - optind != 3 || shape_parse(argv[1], &shape) || parse_format(argv[3], &fmt))
		goto usage;
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || n < 1 || n > 10000000) {
		fprintf(stderr, "bench-gen: bad rule count '%s'\n", argv[2]);
		return 2;
	}
	err = shape_write(stdout, af, shape, n, fmt);
	if (err) {
		fprintf(stderr, "bench-gen: %s\n", strerror(-err));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: bench-gen [-4|-6] blocklist|portlist|mixed|stateful N iptables|nft|nft-set\n");
	return 2;
}
