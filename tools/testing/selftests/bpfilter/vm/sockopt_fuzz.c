// SPDX-License-Identifier: GPL-2.0
/*
 * sockopt_fuzz [-U] [-s SEED] [-t SECONDS] [-v ERRNO] CORPUS_DIR: random and mutated
 * iptables sockopts through whatever owns them (bpfilter.ko or ip_tables),
 * from a network namespace of its own.
 *
 * Every sockopt is covered: SET_REPLACE with the corpus' tables (fuzz_blob's
 * seeds: an ipt_replace header and its entries) mutated (bit flips,
 * interesting u32 values at entry offsets and hook fields, truncation, junk
 * appended), SET_ADD_COUNTERS, GET_INFO, GET_ENTRIES, GET_REVISION_MATCH and
 * _TARGET with random names, sizes and lengths, bad pointers, and optnames
 * around the range. Half of the replaces get a correct num_counters and
 * counters buffer so that they reach the entries' validation. A third of
 * the calls are ip6tables' (IP6T_SO_* at SOL_IPV6 on an AF_INET6 socket,
 * the revisions at 68 and 69): the corpus' IPv6 tables (fuzz_blob's
 * variant bit 4 in their counters field) go there, and now and then a
 * table of the other family.
 *
 * -U: first become uid/gid 65534 with no capabilities, then unshare a user
 * and a network namespace (root in it, CAP_NET_ADMIN over the new netns
 * only), as any unprivileged user can. Without -U: unshare the netns only.
 *
 * The kernel must answer every call (the run is bounded by time); what the
 * answers are is not judged here, only counted: the caller checks the
 * kernel log, the helper and the init namespace's table afterwards. Prints
 * "sockopt-fuzz: N calls, N ok, N refused (errno counts)"; with -v, the
 * first five calls that failed with ERRNO (their sockopt and seed) before it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEEDS	512
#define MAX_SEED_LEN	(1 << 20)
#define BUF_LEN		(2 << 20)
#define NERR		134

struct seed {
	uint8_t *data;
	size_t len;
	char name[64];
};

static struct seed seeds[MAX_SEEDS];
static unsigned int nseeds;
static uint64_t rng;
static unsigned long err_count[NERR];
static unsigned long calls, oks;
static int trace_errno;		/* -v ERRNO: report the calls that fail with it */

/* Where a family's sockopts go. */
struct fam {
	int fd;			/* a raw socket of the family, or -1 */
	int level;		/* SOL_IP / SOL_IPV6 */
	int rev_match, rev_target;	/* its GET_REVISION_* optnames */
};

static struct fam fams[2] = {
	{ -1, IPPROTO_IP, IPT_SO_GET_REVISION_MATCH, IPT_SO_GET_REVISION_TARGET },
	{ -1, IPPROTO_IPV6, IP6T_SO_GET_REVISION_MATCH, IP6T_SO_GET_REVISION_TARGET },
};

/* fuzz_blob's variant bit in a seed's counters field: an ip6t_replace. */
#define SEED_IPV6	16
static const char *op_name;
static int seed_index = -1;
static uint8_t *buf, *ctrbuf;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static uint32_t pick(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static uint32_t interesting(uint32_t size)
{
	static const uint32_t v[] = { 0, 1, 2, 4, 8, 0x70, 0x98, 0xff, 0x100, 0xffff, 0x10000,
				      0x7fffffff, 0x80000000, 0xfffffff8, 0xfffffffe, 0xffffffff };
	uint32_t i = pick(sizeof(v) / sizeof(v[0]) + 3);

	if (i == sizeof(v) / sizeof(v[0]))
		return size;
	if (i == sizeof(v) / sizeof(v[0]) + 1)
		return size + pick(16) - 8;
	if (i == sizeof(v) / sizeof(v[0]) + 2)
		return pick(size + 1) & ~7u;
	return v[i];
}

static void load_corpus(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		perror("sockopt_fuzz: corpus");
		exit(1);
	}
	while ((de = readdir(d)) && nseeds < MAX_SEEDS) {
		char path[4096];
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    st.st_size < (off_t)sizeof(struct ipt_replace) || st.st_size > MAX_SEED_LEN)
			continue;
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		seeds[nseeds].data = malloc(st.st_size);
		if (seeds[nseeds].data &&
		    read(fd, seeds[nseeds].data, st.st_size) == st.st_size) {
			snprintf(seeds[nseeds].name, sizeof(seeds[nseeds].name), "%.63s", de->d_name);
			seeds[nseeds++].len = st.st_size;
		}
		close(fd);
	}
	closedir(d);
}

static void count(int ret)
{
	int err = errno;

	calls++;
	if (!ret)
		oks++;
	else
		err_count[err > 0 && err < NERR ? err : 0]++;
	if (ret && err == trace_errno && err_count[err] <= 5)
		fprintf(stderr, "sockopt_fuzz: call %lu: %s (seed %s): %s\n", calls, op_name,
			seed_index < 0 ? "none" : seeds[seed_index].name, strerrorname_np(err));
	seed_index = -1;
}

static void enter_namespaces(int unpriv)
{
	char map[64];
	int fd;

	if (unpriv) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("sockopt_fuzz: drop to 65534");
			exit(1);
		}
		/* setuid() made /proc/self root's: the maps below must be ours. */
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
			perror("sockopt_fuzz: unshare user+net");
			exit(1);
		}
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "deny", 4) != 4)
				exit(1);
			close(fd);
		}
		snprintf(map, sizeof(map), "0 65534 1");
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0) {
			perror("sockopt_fuzz: uid_map");
			exit(1);
		}
		close(fd);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0) {
			perror("sockopt_fuzz: gid_map");
			exit(1);
		}
		close(fd);
	} else if (unshare(CLONE_NEWNET)) {
		perror("sockopt_fuzz: unshare net");
		exit(1);
	}
}

/* The current table's entry count: what a replace must pass as num_counters. */
static uint32_t current_entries(const struct fam *f)
{
	struct ipt_getinfo info = { .name = "filter" };
	socklen_t len = sizeof(info);

	if (getsockopt(f->fd, f->level, IPT_SO_GET_INFO, &info, &len))
		return 4;
	return info.num_entries;
}

/* A family for the next call: IPv4 two times in three, when IPv6 is there. */
static const struct fam *pick_fam(void)
{
	return fams[1].fd >= 0 && !pick(3) ? &fams[1] : &fams[0];
}

static void mutate(uint8_t *p, size_t *len)
{
	unsigned int n = 1 + pick(6), i;

	for (i = 0; i < n; i++) {
		size_t at = pick(*len);

		switch (pick(6)) {
		case 0:
			p[at] ^= 1u << pick(8);
			break;
		case 1:
			p[at] = rnd();
			break;
		case 2:	/* an interesting value at an aligned offset */
			at &= ~3ul;
			if (at + 4 <= *len) {
				uint32_t v = interesting(*len);

				memcpy(p + at, &v, 4);
			}
			break;
		case 3:	/* the header's sizes and hooks */
			at = offsetof(struct ipt_replace, valid_hooks) + 4 * pick(13);
			if (at + 4 <= *len) {
				uint32_t v = interesting(*len);

				memcpy(p + at, &v, 4);
			}
			break;
		case 4:
			*len = pick(*len + 1);
			break;
		default:
			if (*len + 64 <= BUF_LEN) {
				unsigned int k;

				for (k = 0; k < 64; k++)
					p[*len + k] = rnd();
				*len += pick(65);
			}
			break;
		}
	}
}

static void fuzz_replace(void)
{
	struct ipt_replace *r = (struct ipt_replace *)buf;
	const struct fam *f = &fams[0];
	const struct seed *s;
	size_t len;

	if (!nseeds)
		return;
	seed_index = pick(nseeds);
	s = &seeds[seed_index];
	len = s->len;
	op_name = "SET_REPLACE";
	memcpy(buf, s->data, len);
	/* The seed's family, mostly; its counters field says which it is. */
	if (len >= sizeof(*r) && ((uintptr_t)r->counters & SEED_IPV6) && fams[1].fd >= 0)
		f = &fams[1];
	if (!pick(8))
		f = pick_fam();
	if (pick(8))
		mutate(buf, &len);
	if (len >= sizeof(*r) && pick(2)) {
		memcpy(r->name, "filter", 7);
		r->num_counters = current_entries(f);
		r->counters = (struct xt_counters *)ctrbuf;
	} else if (len >= sizeof(*r)) {
		r->counters = pick(2) ? (struct xt_counters *)ctrbuf : (struct xt_counters *)16;
	}
	count(setsockopt(f->fd, f->level, IPT_SO_SET_REPLACE, buf, len));
}

static void fuzz_counters(const struct fam *f)
{
	struct xt_counters_info *c = (struct xt_counters_info *)buf;
	uint32_t n = pick(4) ? current_entries(f) : interesting(64);
	size_t len;

	op_name = "SET_ADD_COUNTERS";
	memset(c, 0, sizeof(*c));
	memcpy(c->name, pick(4) ? "filter" : "nat", 7);
	c->num_counters = n;
	len = sizeof(*c) + (size_t)(n < 4096 ? n : 4096) * sizeof(struct xt_counters);
	memset(c->counters, pick(2) ? 0 : 0xff, len - sizeof(*c));
	if (!pick(3))
		len = pick(len + 32);
	count(setsockopt(f->fd, f->level, IPT_SO_SET_ADD_COUNTERS, buf, len));
}

static void random_name(char *name, size_t size)
{
	static const char *const names[] = { "filter", "nat", "mangle", "raw", "security",
					     "tcp", "udp", "icmp", "conntrack", "LOG", "REJECT",
					     "limit", "multiport", "", "ERROR", "standard" };
	size_t i;

	memset(name, 0, size);
	if (pick(4)) {
		strcpy(name, names[pick(sizeof(names) / sizeof(names[0]))]);
		return;
	}
	for (i = 0; i < size; i++)
		name[i] = pick(3) ? 'a' + pick(26) : rnd();
	if (pick(2))
		name[pick(size)] = 0;
}

static void fuzz_get(const struct fam *f)
{
	struct ipt_getinfo info = {};
	struct ipt_get_entries *g = (struct ipt_get_entries *)buf;
	struct xt_get_revision rev = {};
	socklen_t len;

	switch (pick(4)) {
	case 0:
		op_name = "GET_INFO";
		random_name(info.name, sizeof(info.name));
		len = pick(4) ? sizeof(info) : pick(sizeof(info) + 8);
		count(getsockopt(f->fd, f->level, IPT_SO_GET_INFO, &info, &len));
		break;
	case 1:
		op_name = "GET_ENTRIES";
		memset(g, 0, sizeof(*g));
		random_name(g->name, sizeof(g->name));
		if (pick(2))
			strcpy(g->name, "filter");
		memcpy(info.name, "filter", 7);
		len = sizeof(info);
		getsockopt(f->fd, f->level, IPT_SO_GET_INFO, &info, &len);
		g->size = pick(3) ? info.size : interesting(info.size);
		len = pick(3) ? sizeof(*g) + g->size : interesting(sizeof(*g) + g->size);
		if (len > BUF_LEN)
			len = pick(2) ? BUF_LEN : len;
		count(getsockopt(f->fd, f->level, IPT_SO_GET_ENTRIES,
				 len > BUF_LEN ? (void *)16 : (void *)g, &len));
		break;
	default:
		op_name = "GET_REVISION";
		random_name(rev.name, sizeof(rev.name));
		rev.revision = pick(4) ? pick(4) : rnd();
		len = pick(4) ? sizeof(rev) : pick(sizeof(rev) + 8);
		count(getsockopt(f->fd, f->level, pick(2) ? f->rev_match : f->rev_target,
				 &rev, &len));
		break;
	}
}

static void fuzz_other(const struct fam *f)
{
	socklen_t len = pick(64);
	int opt = 60 + pick(12);
	unsigned int i;

	op_name = "other optname";
	for (i = 0; i < 64; i++)
		buf[i] = rnd();
	if (pick(2))
		count(setsockopt(f->fd, f->level, opt, pick(8) ? (void *)buf : (void *)16, len));
	else
		count(getsockopt(f->fd, f->level, opt, pick(8) ? (void *)buf : (void *)16, &len));
}

int main(int argc, char **argv)
{
	unsigned long seed = 1, secs = 30;
	int unpriv = 0, opt, i;
	time_t end;

	while ((opt = getopt(argc, argv, "Us:t:v:")) != -1) {
		if (opt == 'v')
			trace_errno = atoi(optarg);
		else if (opt == 'U')
			unpriv = 1;
		else if (opt == 's')
			seed = strtoul(optarg, NULL, 0);
		else if (opt == 't')
			secs = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-U] [-s SEED] [-t SECONDS] [-v ERRNO] CORPUS_DIR\n", argv[0]);
		return 2;
	}
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	load_corpus(argv[optind]);
	buf = calloc(1, BUF_LEN + 64);
	ctrbuf = calloc(1, BUF_LEN);
	if (!buf || !ctrbuf)
		return 1;
	enter_namespaces(unpriv);
	fams[0].fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fams[0].fd < 0) {
		perror("sockopt_fuzz: socket");
		return 1;
	}
	/* A kernel without IPv6 fuzzes IPv4 only. */
	fams[1].fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		switch (pick(10)) {
		case 0: case 1: case 2: case 3: case 4:
			fuzz_replace();
			break;
		case 5:
			fuzz_counters(pick_fam());
			break;
		case 6: case 7: case 8:
			fuzz_get(pick_fam());
			break;
		default:
			fuzz_other(pick_fam());
			break;
		}
	}
	printf("sockopt-fuzz: %lu calls, %lu ok, %lu refused (%u seeds%s%s)", calls, oks,
	       calls - oks, nseeds, unpriv ? ", unprivileged" : "",
	       fams[1].fd >= 0 ? ", IPv4 and IPv6" : ", IPv4 only");
	for (i = 0; i < NERR; i++)
		if (err_count[i])
			printf(" %s:%lu", i ? strerrorname_np(i) : "E?", err_count[i]);
	printf("\n");
	return 0;
}
