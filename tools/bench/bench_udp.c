// SPDX-License-Identifier: GPL-2.0
/*
 * bench-udp: the end-to-end traffic of the benchmark.
 *
 *   bench-udp send DST_ADDR PORT SECONDS
 *	sendmmsg() UDP datagrams (18 bytes of payload, batches of 64) to
 *	DST_ADDR:PORT for SECONDS, then print "sent=N seconds=T".
 *   bench-udp recv PORT SECONDS [BIND_ADDR]
 *	count datagrams received on BIND_ADDR:PORT (default 0.0.0.0) for
 *	SECONDS, then print "received=N rcvbuf_errors=E passed=P": E is the
 *	growth of this namespace's Udp RcvbufErrors (Udp6RcvbufErrors for IPv6:
 *	datagrams that passed the firewall but found the socket full),
 *	P = N + E = datagrams that passed INPUT.
 *   bench-udp sink PORT SECONDS [BIND_ADDR]
 *	the same count from a socket that is never read while SECONDS run
 *	(the datagrams it still holds at the end are counted as received):
 *	the receiving side then costs a lookup and a drop, not a copy to user
 *	space and a wakeup on the other CPU, so the firewall is a larger and
 *	steadier share of each datagram's cost.
 *
 * DST_ADDR and BIND_ADDR are IPv4 or IPv6 addresses: the family is theirs.
 * Both loops are bounded by their SECONDS (at most 600).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define BATCH		64
#define PAYLOAD		18
#define MAX_SECONDS	600.0

/* What differs between IPv4 and IPv6: the address's place, where drops are counted. */
struct family {
	int af;
	socklen_t salen;
	size_t addr_off;	/* of the address in the sockaddr */
	const char *snmp;	/* the namespace's UDP counters */
	const char *counter;	/* datagrams dropped for a full socket buffer */
	int (*read)(FILE *f, const struct family *fm, uint64_t *out);
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /proc/net/snmp: a line of names, then one of values, per protocol. */
static int snmp_read(FILE *f, const struct family *fm, uint64_t *out)
{
	char hdr[1024], val[1024], *h, *v, *hs, *vs;

	while (fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f)) {
		if (strncmp(hdr, "Udp:", 4) || strncmp(val, "Udp:", 4))
			continue;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(val, " \n", &vs);
		while (h && v) {
			if (!strcmp(h, fm->counter)) {
				*out = strtoull(v, NULL, 10);
				return 0;
			}
			h = strtok_r(NULL, " \n", &hs);
			v = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	return -ENOENT;
}

/* /proc/net/snmp6: one "name value" line per counter. */
static int snmp6_read(FILE *f, const struct family *fm, uint64_t *out)
{
	unsigned long long v;
	char line[256], name[128];

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu", name, &v) == 2 && !strcmp(name, fm->counter)) {
			*out = v;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct family families[] = {
	{ AF_INET, sizeof(struct sockaddr_in), offsetof(struct sockaddr_in, sin_addr),
	  "/proc/net/snmp", "RcvbufErrors", snmp_read },
	{ AF_INET6, sizeof(struct sockaddr_in6), offsetof(struct sockaddr_in6, sin6_addr),
	  "/proc/net/snmp6", "Udp6RcvbufErrors", snmp6_read },
};

/* @addr:@port as a socket address of its family (*@fm): 0 or -EINVAL. */
static int sockaddr_of(const char *addr, int port, struct sockaddr_storage *ss,
		       const struct family **fm)
{
	unsigned int i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		memset(ss, 0, sizeof(*ss));
		if (inet_pton(families[i].af, addr, (uint8_t *)ss + families[i].addr_off) != 1)
			continue;
		ss->ss_family = families[i].af;
		/* sin_port and sin6_port share their place. */
		((struct sockaddr_in *)ss)->sin_port = htons(port);
		*fm = &families[i];
		return 0;
	}
	return -EINVAL;
}

/* The family's Udp RcvbufErrors counter of the current namespace: 0 or -errno. */
static int udp_rcvbuf_errors(const struct family *fm, uint64_t *out)
{
	FILE *f;
	int err;

	f = fopen(fm->snmp, "r");
	if (!f)
		return -errno;
	err = fm->read(f, fm, out);
	fclose(f);
	return err;
}

static int do_send(const char *addr, int port, double secs)
{
	static char payload[BATCH][PAYLOAD];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	const struct family *fm;
	struct sockaddr_storage dst;
	uint64_t sent = 0;
	double start, end;
	int fd, i, n;

	if (sockaddr_of(addr, port, &dst, &fm))
		return -EINVAL;
	fd = socket(fm->af, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload[i];
		iov[i].iov_len = PAYLOAD;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = fm->salen;
	}
	start = now();
	end = start + secs;
	while (now() < end) {
		n = sendmmsg(fd, msgs, BATCH, 0);
		/* A full device queue is the measured bottleneck, not an error. */
		if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR &&
		    errno != ECONNREFUSED) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n > 0)
			sent += n;
	}
	printf("sent=%llu seconds=%.3f\n", (unsigned long long)sent, now() - start);
	close(fd);
	return 0;
}

static int do_recv(const char *addr, int port, double secs, bool sink)
{
	static char bufs[BATCH][2048];
	struct timeval tv = { .tv_usec = 100000 };
	const struct family *fm;
	struct sockaddr_storage me;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t got = 0, e0 = 0, e1 = 0;
	int fd, i, n, rcvbuf = sink ? 0 : 8 << 20, err;
	double end;

	if (sockaddr_of(addr, port, &me, &fm))
		return -EINVAL;
	fd = socket(fm->af, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	/* SO_RCVBUFFORCE ignores rmem_max (we are root); fall back if refused. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&me, fm->salen)) {
		err = -errno;
		goto out;
	}
	err = udp_rcvbuf_errors(fm, &e0);
	if (err)
		goto out;
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	/* Ready: the orchestrator starts the sender after this line. */
	printf("ready\n");
	fflush(stdout);
	end = now() + secs;
	while (now() < end) {
		if (sink) {
			/* Never read: the full socket drops, counted as RcvbufErrors. */
			usleep(20000);
			continue;
		}
		n = recvmmsg(fd, msgs, BATCH, 0, NULL);
		if (n > 0)
			got += n;
	}
	/* What a sink still holds passed INPUT too. */
	while (sink && (n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL)) > 0)
		got += n;
	err = udp_rcvbuf_errors(fm, &e1);
	if (err)
		goto out;
	printf("received=%llu rcvbuf_errors=%llu passed=%llu\n", (unsigned long long)got,
	       (unsigned long long)(e1 - e0), (unsigned long long)(got + e1 - e0));
out:
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	double secs;
	int err;

	if (argc == 5 && !strcmp(argv[1], "send")) {
		secs = atof(argv[4]);
		if (secs <= 0 || secs > MAX_SECONDS)
			goto usage;
		err = do_send(argv[2], atoi(argv[3]), secs);
	} else if ((argc == 4 || argc == 5) &&
		   (!strcmp(argv[1], "recv") || !strcmp(argv[1], "sink"))) {
		secs = atof(argv[3]);
		if (secs <= 0 || secs > MAX_SECONDS)
			goto usage;
		err = do_recv(argc == 5 ? argv[4] : "0.0.0.0", atoi(argv[2]), secs,
			      !strcmp(argv[1], "sink"));
	} else {
		goto usage;
	}
	if (err)
		fprintf(stderr, "bench-udp %s: %s\n", argv[1], strerror(-err));
	return err ? 1 : 0;
usage:
	fprintf(stderr, "usage: bench-udp send DST PORT SECONDS | recv|sink PORT SECONDS [BIND_ADDR]\n");
	return 2;
}
