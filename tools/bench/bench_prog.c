// SPDX-License-Identifier: GPL-2.0
/*
 * bench-prog: sizes and per-packet cost of the BPF programs a bpfilter
 * helper generated.
 *
 *   bench-prog [-6] -p HELPER_PID -s SHAPE -n N [-e ENTRIES] [-r RUNS] [-t MS]
 *
 * The programs are found through the helper's own file descriptors
 * (/proc/PID/fdinfo: prog_id / map_id), so the figures are those of the
 * objects enforcing the ruleset, whatever the backend's internal API is,
 * and never those of another helper running on the machine. Prints one
 * "prog:" line per program and one "map:" line per map, then for each
 * probe packet of the shape (shapes.h: "last" and "none") a line
 *
 *   cost: shape=S rules=N probe=P prog=NAME ns=X verdict=V expect=E counted=C
 *
 * ns is the median over RUNS BPF_PROG_TEST_RUN calls of the kernel's
 * per-run average (repeat chosen so that one call lasts about MS ms). The
 * program run is the INPUT dispatcher ("bpfilter_in", which tail-calls the
 * ruleset program, as a real packet does) or, without one, the ruleset
 * program "bpf_flt_INPUT". With -6 the probes are the shape's IPv6 packets,
 * run at NFPROTO_IPV6 through the IPv6 table's programs ("bpfilter6_in",
 * "bpf_ip6_INPUT"); the helper should then hold no IPv4 table, whose
 * counters map has the same name. counted=yes when the counters map shows exactly
 * one count per run on the entry that must decide the packet, no when not,
 * n/a when there is no counters map. Exit 1 if a wrong verdict or count is
 * seen: a fast wrong program is not a result.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "codegen.h"	/* the counters map: layout and codegen_counters_sum() */
#include "shapes.h"

#define MAX_OBJS	256
#define MAX_RUNS	51

/*
 * ctx_in of BPF_PROG_TEST_RUN for netfilter programs is the head of the
 * kernel's struct nf_hook_state: { u8 hook; u8 pf; } (the rest must be 0).
 */
struct nf_hook_state_head {
	uint8_t hook;
	uint8_t pf;
};

/* What differs between the families' probes and programs. */
struct family {
	int af;			/* of shape_probe() */
	uint8_t pf;		/* nf_hook_state.pf */
	uint16_t ethertype;	/* of the Ethernet header the kernel pulls */
	const char *disp;	/* the INPUT dispatcher */
	const char *flt;	/* the INPUT ruleset program */
};

static const struct family family_ipv4 = {
	AF_INET, NFPROTO_IPV4, ETH_P_IP, "bpfilter_in", "bpf_flt_INPUT",
};
static const struct family family_ipv6 = {
	AF_INET6, NFPROTO_IPV6, ETH_P_IPV6, "bpfilter6_in", "bpf_ip6_INPUT",
};

struct bench {
	const struct family *fam;
	int pid;
	enum shape shape;
	uint32_t rules;
	int runs;
	double target_ms;
	uint32_t prog_ids[MAX_OBJS], nprogs;
	uint32_t map_ids[MAX_OBJS], nmaps;
	int run_fd;		/* program test-run */
	char run_name[BPF_OBJ_NAME_LEN];
	int counters_fd;	/* "bpf_flt_cnt", or -1 */
	int ncpus;
	uint64_t maps_bytes;	/* memlock of every map held or used, as the kernel charges it */
	uint64_t cnt_bytes;	/* values of the counters map */
	uint64_t runs_bytes;	/* values of the runs map */
	uint32_t entries;	/* table entries the counters map counts */
};

static void add_id(uint32_t *ids, uint32_t *n, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (ids[i] == id)
			return;
	if (*n < MAX_OBJS)
		ids[(*n)++] = id;
}

/* Collect the ids of the BPF programs and maps the helper holds open. */
static int scan_fds(struct bench *b)
{
	char path[64], line[128];
	struct dirent *de;
	unsigned int id;
	DIR *d;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", b->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "prog_id: %u", &id) == 1)
				add_id(b->prog_ids, &b->nprogs, id);
			else if (sscanf(line, "map_id: %u", &id) == 1)
				add_id(b->map_ids, &b->nmaps, id);
		}
		fclose(f);
	}
	closedir(d);
	return 0;
}

/* Print the programs; keep an fd on the one to test-run (dispatcher first, highest id). */
static int list_progs(struct bench *b)
{
	int disp_fd = -1, flt_fd = -1;
	uint32_t i;

	for (i = 0; i < b->nprogs; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd;

		fd = bpf_prog_get_fd_by_id(b->prog_ids[i]);
		if (fd < 0)
			continue;
		if (bpf_prog_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		printf("prog: id=%u name=%s type=%u insns=%u xlated_bytes=%u jited_bytes=%u\n",
		       info.id, info.name, info.type, info.xlated_prog_len / 8,
		       info.xlated_prog_len, info.jited_prog_len);
		if (!strcmp(info.name, b->fam->disp)) {
			if (disp_fd >= 0)
				close(disp_fd);
			disp_fd = fd;
		} else if (!strcmp(info.name, b->fam->flt)) {
			if (flt_fd >= 0)
				close(flt_fd);
			flt_fd = fd;
		} else {
			close(fd);
		}
	}
	if (disp_fd >= 0) {
		b->run_fd = disp_fd;
		snprintf(b->run_name, sizeof(b->run_name), "%s", b->fam->disp);
		if (flt_fd >= 0)
			close(flt_fd);
	} else if (flt_fd >= 0) {
		b->run_fd = flt_fd;
		snprintf(b->run_name, sizeof(b->run_name), "%s", b->fam->flt);
	}
	return b->run_fd >= 0 ? 0 : -ENOENT;
}

/* Add the maps the programs hold (folded runs' sets, rule state) to those of the fds. */
static void add_prog_maps(struct bench *b)
{
	uint32_t i, k, nprogs = b->nprogs;

	for (i = 0; i < nprogs; i++) {
		uint32_t ids[64];
		struct bpf_prog_info info = {
			.nr_map_ids = 64, .map_ids = (uintptr_t)ids,
		};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(b->prog_ids[i]);

		if (fd < 0)
			continue;
		if (!bpf_prog_get_info_by_fd(fd, &info, &len))
			for (k = 0; k < info.nr_map_ids && k < 64; k++)
				add_id(b->map_ids, &b->nmaps, ids[k]);
		close(fd);
	}
}

/* The memlock: figure of fd @fd's /proc/self/fdinfo (what the kernel charges for a map). */
static uint64_t memlock_of(int fd)
{
	unsigned long long v = 0;
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void list_maps(struct bench *b)
{
	uint32_t i;

	for (i = 0; i < b->nmaps; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		uint64_t memlock;
		int fd;

		fd = bpf_map_get_fd_by_id(b->map_ids[i]);
		if (fd < 0)
			continue;
		if (bpf_map_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		memlock = memlock_of(fd);
		b->maps_bytes += memlock;
		printf("map: id=%u name=%s type=%u key=%u value=%u max_entries=%u memlock=%llu\n",
		       info.id, info.name, info.type, info.key_size, info.value_size,
		       info.max_entries, (unsigned long long)memlock);
		if (!strcmp(info.name, "bpf_flt_run"))
			b->runs_bytes += (uint64_t)info.value_size * info.max_entries;
		/* codegen.h: ncpus + 1 elements of 16 bytes per entry. */
		if (!strcmp(info.name, "bpf_flt_cnt") && info.type == BPF_MAP_TYPE_ARRAY &&
		    info.value_size >= 16 && b->counters_fd < 0) {
			b->counters_fd = fd;
			b->cnt_bytes = (uint64_t)info.value_size * info.max_entries;
		} else {
			close(fd);
		}
	}
}

/*
 * Counter and map memory, here and computed for 128 CPUs, against
 * ip_tables' per-CPU counters: xt_percpu_counter_alloc() hands out one
 * struct xt_counters (16 bytes) per entry from 4 KiB per-CPU blocks.
 */
static void print_memory(const struct bench *b)
{
	uint64_t blocks = (16ull * b->entries + 4095) / 4096;
	uint64_t ipt = blocks * 4096 * b->ncpus, ipt128 = blocks * 4096 * 128;
	uint64_t cnt128 = codegen_counters_bytes(b->entries, 128);
	uint64_t runs128 = codegen_runs_bytes(128);
	uint64_t maps128 = b->maps_bytes - b->cnt_bytes - b->runs_bytes + cnt128 + runs128;

	if (b->counters_fd < 0 || !b->entries)
		return;
	printf("mem: shape=%s rules=%u entries=%u ncpus=%d counters=%llu iptables_counters=%llu "
	       "ratio=%.3f maps=%llu cpus128_counters=%llu cpus128_iptables_counters=%llu "
	       "cpus128_ratio=%.3f cpus128_maps=%llu\n", shape_name(b->shape), b->rules,
	       b->entries, b->ncpus, (unsigned long long)b->cnt_bytes, (unsigned long long)ipt,
	       (double)b->cnt_bytes / ipt, (unsigned long long)b->maps_bytes,
	       (unsigned long long)cnt128, (unsigned long long)ipt128, (double)cnt128 / ipt128,
	       (unsigned long long)maps128);
}

/* Packets counted on @entry, summed over CPUs: 0 or -errno. */
static int read_count(struct bench *b, uint32_t entry, uint64_t *pkts)
{
	struct xt_counters *c = calloc(entry + 1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	err = codegen_counters_sum(b->counters_fd, entry + 1, c);
	if (!err)
		*pkts = c[entry].pcnt;
	free(c);
	return err;
}

static int test_run(struct bench *b, const struct probe_pkt *p, uint32_t repeat,
		    uint32_t *ns, uint32_t *verdict)
{
	struct nf_hook_state_head st = { .hook = NF_INET_LOCAL_IN, .pf = b->fam->pf };
	/* At LOCAL_IN the kernel pulls an Ethernet header (eth_type_trans) first. */
	uint8_t frame[14 + sizeof(p->data)] = {
		[12] = b->fam->ethertype >> 8, [13] = b->fam->ethertype & 0xff,
	};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = 14 + p->len,
		    .ctx_in = &st, .ctx_size_in = sizeof(st), .repeat = repeat);

	memcpy(frame + 14, p->data, p->len);
	if (bpf_prog_test_run_opts(b->run_fd, &o))
		return -errno;
	*ns = o.duration;
	*verdict = o.retval;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Measure one probe; returns 0, 1 for a wrong verdict/count, or -errno. */
static int measure(struct bench *b, enum probe which)
{
	uint32_t ns[MAX_RUNS], repeat = 16, verdict = 0, t;
	uint64_t before = 0, after = 0, total = 0;
	const char *counted = "n/a";
	struct probe_pkt p;
	int i, err, bad = 0;

	err = shape_probe(b->fam->af, b->shape, b->rules, which, &p);
	if (err)
		return err;
	/* Calibrate: grow repeat until one call lasts about target_ms (bounded). */
	for (i = 0; i < 20; i++) {
		err = test_run(b, &p, repeat, &t, &verdict);
		if (err)
			return err;
		if ((double)t * repeat >= b->target_ms * 1e6 / 4 || repeat >= (1u << 24))
			break;
		repeat *= 4;
	}
	if (t)
		repeat = (uint32_t)(b->target_ms * 1e6 / t) + 1;
	if (b->counters_fd >= 0 && read_count(b, p.entry, &before)) {
		close(b->counters_fd);
		b->counters_fd = -1;
	}
	for (i = 0; i < b->runs; i++) {
		err = test_run(b, &p, repeat, &ns[i], &verdict);
		if (err)
			return err;
		total += repeat;
		if (verdict != (uint32_t)p.verdict)
			bad = 1;
	}
	if (b->counters_fd >= 0 && !read_count(b, p.entry, &after)) {
		counted = after - before == total ? "yes" : "no";
		if (after - before != total)
			bad = 1;
	}
	qsort(ns, b->runs, sizeof(ns[0]), cmp_u32);
	printf("cost: shape=%s rules=%u probe=%s prog=%s ns=%u verdict=%u expect=%d counted=%s "
	       "repeat=%u runs=%d\n", shape_name(b->shape), b->rules,
	       which == PROBE_LAST ? "last" : "none", b->run_name, ns[b->runs / 2], verdict,
	       p.verdict, counted, repeat, b->runs);
	return bad;
}

int main(int argc, char **argv)
{
	struct bench b = {
		.fam = &family_ipv4, .runs = 5, .target_ms = 50, .run_fd = -1, .counters_fd = -1,
	};
	int opt, err, bad = 0;

	while ((opt = getopt(argc, argv, "6p:s:n:e:r:t:")) != -1) {
		switch (opt) {
		case '6':
			b.fam = &family_ipv6;
			break;
		case 'p':
			b.pid = atoi(optarg);
			break;
		case 's':
			if (shape_parse(optarg, &b.shape))
				goto usage;
			break;
		case 'n':
			b.rules = strtoul(optarg, NULL, 10);
			break;
		case 'e':
			b.entries = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			b.runs = atoi(optarg);
			break;
		case 't':
			b.target_ms = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (b.pid <= 0 || !b.rules || b.runs < 1 || b.runs > MAX_RUNS || b.target_ms <= 0 ||
	    b.target_ms > 10000)
		goto usage;
	b.ncpus = libbpf_num_possible_cpus();
	if (b.ncpus <= 0)
		return 1;
	err = scan_fds(&b);
	if (err) {
		fprintf(stderr, "bench-prog: /proc/%d/fdinfo: %s\n", b.pid, strerror(-err));
		return 1;
	}
	add_prog_maps(&b);
	list_maps(&b);
	print_memory(&b);
	err = list_progs(&b);
	if (err) {
		fprintf(stderr, "bench-prog: helper %d holds no INPUT program\n", b.pid);
		goto out;
	}
	err = measure(&b, PROBE_LAST);
	if (err >= 0) {
		bad |= err;
		err = measure(&b, PROBE_NONE);
	}
	if (err > 0)
		bad |= err;
	if (err < 0)
		fprintf(stderr, "bench-prog: BPF_PROG_TEST_RUN: %s\n", strerror(-err));
out:
	if (b.run_fd >= 0)
		close(b.run_fd);
	if (b.counters_fd >= 0)
		close(b.counters_fd);
	return err < 0 || bad ? 1 : 0;
usage:
	fprintf(stderr, "usage: bench-prog [-6] -p HELPER_PID -s SHAPE -n N [-e ENTRIES] [-r RUNS] [-t MS]\n");
	return 2;
}
