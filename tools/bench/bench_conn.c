// SPDX-License-Identifier: GPL-2.0
/*
 * bench-conn: new connections per second through a NAT service table
 * (the NAT benchmark, tools/bench/nat_bench.sh, in the test VM).
 *
 *   bench-conn serve PORT SECONDS
 *	TCP: accept and close at once; UDP: count datagrams (both on PORT)
 *	until SECONDS have passed; prints "accepted=N received=M".
 *   bench-conn tcp|udp NSERVICES PORT SECONDS PROCS
 *	PROCS processes open new connections to random services for SECONDS:
 *	service i is 10.96.(i / 250).(i % 250 + 1):PORT, kube-proxy's
 *	ClusterIP range as nat_bench_guest.sh writes it, TCP for i below
 *	NSERVICES / 2 and UDP for the others (NSERVICES >= 2). TCP: connect, then
 *	close with a reset (no TIME_WAIT, no port exhaustion); UDP: a new
 *	socket, hence a new source port and a new conntrack entry, per
 *	datagram. Prints "conns=N seconds=S rate=R failed=F".
 *   bench-conn flood IFNAME DSTMAC NSERVICES SECONDS PROCS
 *	The same UDP services, without sockets: PROCS processes write
 *	Ethernet frames to IFNAME (AF_PACKET) for DSTMAC, each from another
 *	source address and port (10.0.0.3-254, ports 1024-65535), so each one
 *	opens a new conntrack entry at the next hop. What that hop forwards
 *	per second is its NAT's new-connection capacity, which the clients'
 *	and the server's socket work no longer hides. Prints "sent=N
 *	seconds=S rate=R".
 *
 * Every connection is a conntrack entry's first packet: the nat table's
 * rules see each one, as they see each new connection to a service.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int serve(int port, double secs)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	long accepted = 0, received = 0;
	int one = 1, t, u;
	double end;
	char buf[64];

	t = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	u = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (t < 0 || u < 0)
		return perror("socket"), 1;
	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(t, (void *)&a, sizeof(a)) || listen(t, 4096) || bind(u, (void *)&a, sizeof(a)))
		return perror("bind"), 1;
	printf("ready\n");
	fflush(stdout);
	end = now() + secs;
	while (now() < end) {
		struct pollfd p[2] = { { t, POLLIN, 0 }, { u, POLLIN, 0 } };
		int c;

		if (poll(p, 2, 100) <= 0)
			continue;
		while ((c = accept(t, NULL, NULL)) >= 0) {
			accepted++;
			close(c);
		}
		while (recv(u, buf, sizeof(buf), 0) >= 0)
			received++;
	}
	printf("accepted=%ld received=%ld\n", accepted, received);
	return 0;
}

/* One client process: connections opened in @secs, written to @out. */
static void client(int udp, int nsvc, int port, double secs, unsigned int seed, int out)
{
	long n[2] = { 0, 0 };	/* done, failed */
	struct linger lg = { 1, 0 };
	double end = now() + secs;

	while (now() < end) {
		/* TCP services are the first half, UDP ones the second. */
		int i = udp ? nsvc / 2 + rand_r(&seed) % (nsvc - nsvc / 2) : rand_r(&seed) % (nsvc / 2);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
		int s;

		a.sin_addr.s_addr = htonl(0x0a600000 | (i / 250) << 8 | (i % 250 + 1));
		s = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
		if (s < 0) {
			n[1]++;
			continue;
		}
		if (udp) {
			if (sendto(s, "x", 1, 0, (void *)&a, sizeof(a)) == 1)
				n[0]++;
			else
				n[1]++;
		} else {
			struct timeval tv = { 1, 0 };

			setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			if (!connect(s, (void *)&a, sizeof(a)))
				n[0]++;
			else
				n[1]++;
			setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		}
		close(s);
	}
	if (write(out, n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

/*
 * Add up what @procs children wrote to pipe @p (done, failed), reap them
 * and print "@what=N seconds=S rate=R failed=F" since @start.
 */
static int report(int p[2], int procs, double start, const char *what)
{
	long total[2] = { 0, 0 }, n[2];
	double secs;
	int i;

	close(p[1]);
	for (i = 0; i < procs; i++) {
		if (read(p[0], n, sizeof(n)) != sizeof(n))
			break;
		total[0] += n[0];
		total[1] += n[1];
	}
	while (wait(NULL) > 0)
		;
	secs = now() - start;
	printf("%s=%ld seconds=%.2f rate=%.0f failed=%ld\n", what, total[0], secs,
	       total[0] / secs, total[1]);
	return 0;
}

static int run_clients(int udp, int nsvc, int port, double secs, int procs)
{
	double start = now();
	int p[2], i;

	if (pipe(p))
		return perror("pipe"), 1;
	for (i = 0; i < procs; i++)
		if (!fork())
			client(udp, nsvc, port, secs, 7919u * (i + 1) + (unsigned int)getpid(), p[1]);
	return report(p, procs, start, "conns");
}

/* The IPv4 header checksum of @h (20 bytes). */
static uint16_t ip_csum(const void *h)
{
	const uint16_t *w = h;
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 10; i++)
		sum += w[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* One flood process: frames written in @secs, to @out. */
static void flooder(int ifindex, const uint8_t *src, const uint8_t *dst, int nsvc, double secs,
		    unsigned int seed, int out)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6 };
	long n[2] = { 0, 0 };
	uint8_t f[64] = { 0 };
	struct iphdr *ip = (void *)(f + 14);
	struct udphdr *udp = (void *)(f + 34);
	uint32_t flow = seed;
	double end = now() + secs;
	int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP)), k;

	if (s < 0)
		_exit(1);
	memcpy(ll.sll_addr, dst, 6);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(29);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	udp->dest = htons(80);
	udp->len = htons(9);
	while (now() < end) {
		for (k = 0; k < 64; k++) {
			int i = nsvc / 2 + rand_r(&seed) % (nsvc - nsvc / 2);

			flow++;
			ip->saddr = htonl(0x0a000000 | (3 + flow % 252));
			ip->daddr = htonl(0x0a600000 | (i / 250) << 8 | (i % 250 + 1));
			ip->check = 0;
			ip->check = ip_csum(ip);
			udp->source = htons(1024 + (flow / 252) % 64512);
			if (sendto(s, f, 43, 0, (void *)&ll, sizeof(ll)) == 43)
				n[0]++;
			else
				n[1]++;
		}
	}
	if (write(out, n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

static int flood(const char *ifname, const char *mac, int nsvc, double secs, int procs)
{
	uint8_t dst[6], src[6];
	double start = now();
	struct ifreq ifr = {};
	int p[2], i, s;

	if (sscanf(mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst[0], &dst[1], &dst[2], &dst[3],
		   &dst[4], &dst[5]) != 6)
		return fprintf(stderr, "bench-conn: bad MAC %s\n", mac), 2;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr))
		return perror(ifname), 1;
	memcpy(src, ifr.ifr_hwaddr.sa_data, 6);
	close(s);
	if (pipe(p))
		return perror("pipe"), 1;
	for (i = 0; i < procs; i++)
		if (!fork())
			flooder(if_nametoindex(ifname), src, dst, nsvc, secs, 1000003u * i, p[1]);
	return report(p, procs, start, "sent");
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), atof(argv[3]));
	if (argc == 6 && (!strcmp(argv[1], "tcp") || !strcmp(argv[1], "udp")) && atoi(argv[2]) > 1)
		return run_clients(argv[1][0] == 'u', atoi(argv[2]), atoi(argv[3]), atof(argv[4]),
				   atoi(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "flood") && atoi(argv[4]) > 1)
		return flood(argv[2], argv[3], atoi(argv[4]), atof(argv[5]), atoi(argv[6]));
	fprintf(stderr, "usage: bench-conn serve PORT SECONDS\n"
		"       bench-conn tcp|udp NSERVICES PORT SECONDS PROCS\n"
		"       bench-conn flood IFNAME DSTMAC NSERVICES SECONDS PROCS\n");
	return 2;
}
