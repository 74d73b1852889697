// SPDX-License-Identifier: GPL-2.0
/*
 * BPF code generation: tables built as ip_tables blobs, validated by the
 * helper's table_from_replace(), compiled by codegen_hook(), loaded into
 * this kernel and run with BPF_PROG_TEST_RUN on crafted IPv4 packets (and,
 * for runs of jumps, the same tables as ip6_tables ones on IPv6 packets).
 * Every test asserts the verdict (NF_DROP 0 / NF_ACCEPT 1) and the rule
 * counters that ipt_do_table() would produce.
 *
 * BPF_PROG_TEST_RUN for netfilter programs (net/bpf/test_run.c) runs with
 * state->out = the loopback device and state->in = NULL when a context is
 * given, which is what the interface tests rely on.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <linux/netfilter.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_dscp.h>
#include <linux/netfilter/xt_ecn.h>
#include <linux/netfilter/xt_esp.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpmss.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter/xt_u32.h>
#include <linux/netfilter_ipv4/ipt_ah.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#include "btf.h"
#include "codegen.h"
#include "context.h"
#include "family.h"
#include "rule.h"
#include "table.h"

#define V_DROP (-NF_DROP - 1)
#define V_ACCEPT (-NF_ACCEPT - 1)
#define V_RETURN XT_RETURN
#define V_QUEUE (-NF_QUEUE - 1)

/* ---- blob builder ---- */

struct tb {
	unsigned char blob[48 << 20];	/* 100k rules; 262,151 of 152 bytes (counters chunks) */
	uint32_t size, n, cur;
	uint32_t valid_hooks;
	uint32_t hook_entry[NF_INET_NUMHOOKS], underflow[NF_INET_NUMHOOKS];
	struct { uint32_t at; char chain[32]; } fix[16384];
	uint32_t nfix;
	struct { char name[32]; uint32_t first; } chains[256];
	uint32_t nchains;
};

static struct ipt_entry *tb_entry(struct tb *tb)
{
	return (struct ipt_entry *)(tb->blob + tb->cur);
}

/* Start an entry with header @ip (NULL: unconditional). */
static void tb_rule(struct tb *tb, const struct ipt_ip *ip)
{
	struct ipt_entry *e;

	tb->cur = tb->size;
	e = tb_entry(tb);
	memset(e, 0, sizeof(*e));
	if (ip)
		e->ip = *ip;
	tb->size += sizeof(*e);
}

static void tb_match(struct tb *tb, const char *name, const void *data, size_t len)
{
	struct xt_entry_match *m = (void *)(tb->blob + tb->size);
	size_t sz = sizeof(*m) + XT_ALIGN(len);

	memset(m, 0, sz);
	m->u.user.match_size = sz;
	strcpy(m->u.user.name, name);
	memcpy(m->data, data, len);
	tb->size += sz;
}

static void tb_end_entry(struct tb *tb, uint32_t target_offset)
{
	struct ipt_entry *e = tb_entry(tb);

	e->target_offset = target_offset - tb->cur;
	e->next_offset = tb->size - tb->cur;
	tb->n++;
}

static void tb_verdict(struct tb *tb, int verdict)
{
	struct xt_standard_target *t = (void *)(tb->blob + tb->size);
	uint32_t at = tb->size;

	memset(t, 0, XT_ALIGN(sizeof(*t)));
	t->target.u.user.target_size = XT_ALIGN(sizeof(*t));
	t->verdict = verdict;
	tb->size += XT_ALIGN(sizeof(*t));
	tb_end_entry(tb, at);
}

/* End the entry with a jump (or goto) to user chain @chain. */
static void tb_jump(struct tb *tb, const char *chain, bool is_goto)
{
	uint32_t at = tb->size;

	if (is_goto)
		tb_entry(tb)->ip.flags |= IPT_F_GOTO;
	tb->fix[tb->nfix].at = at + offsetof(struct xt_standard_target, verdict);
	strcpy(tb->fix[tb->nfix++].chain, chain);
	tb_verdict(tb, 0);
}

static void tb_error(struct tb *tb, const char *name)
{
	struct xt_error_target *t = (void *)(tb->blob + tb->size);
	uint32_t at = tb->size;

	memset(t, 0, XT_ALIGN(sizeof(*t)));
	t->target.u.user.target_size = XT_ALIGN(sizeof(*t));
	strcpy(t->target.u.user.name, "ERROR");
	strcpy(t->errorname, name);
	tb->size += XT_ALIGN(sizeof(*t));
	tb_end_entry(tb, at);
}

/* Built-in chain @hook starts at the next entry. */
static void tb_hook(struct tb *tb, unsigned int hook)
{
	tb->valid_hooks |= 1u << hook;
	tb->hook_entry[hook] = tb->size;
}

static void tb_policy(struct tb *tb, unsigned int hook, int verdict)
{
	tb->underflow[hook] = tb->size;
	tb_rule(tb, NULL);
	tb_verdict(tb, verdict);
}

/* User chain head; its rules follow; close it with tb_chain_end(). */
static void tb_chain(struct tb *tb, const char *name)
{
	tb_rule(tb, NULL);
	tb_error(tb, name);
	strcpy(tb->chains[tb->nchains].name, name);
	tb->chains[tb->nchains++].first = tb->size;
}

static void tb_chain_end(struct tb *tb)
{
	tb_rule(tb, NULL);
	tb_verdict(tb, V_RETURN);
}

/* Table end and jump fixups; @repl describes the blob. */
static int tb_finish(struct tb *tb, struct ipt_replace *repl)
{
	uint32_t i, k;

	tb_rule(tb, NULL);
	tb_error(tb, "ERROR");
	for (i = 0; i < tb->nfix; i++) {
		for (k = 0; k < tb->nchains; k++)
			if (!strcmp(tb->chains[k].name, tb->fix[i].chain))
				break;
		if (k == tb->nchains)
			return -ENOENT;
		memcpy(tb->blob + tb->fix[i].at, &tb->chains[k].first, sizeof(int));
	}
	memset(repl, 0, sizeof(*repl));
	strcpy(repl->name, "filter");
	repl->valid_hooks = tb->valid_hooks;
	repl->num_entries = tb->n;
	repl->size = tb->size;
	memcpy(repl->hook_entry, tb->hook_entry, sizeof(repl->hook_entry));
	memcpy(repl->underflow, tb->underflow, sizeof(repl->underflow));
	repl->num_counters = 1;
	return 0;
}

/* INPUT and FORWARD with policy ACCEPT, then OUTPUT opens: rules go to OUTPUT. */
static void tb_begin_output(struct tb *tb)
{
	memset(tb, 0, offsetof(struct tb, fix));
	tb->nfix = tb->nchains = 0;
	tb_hook(tb, NF_INET_LOCAL_IN);
	tb_policy(tb, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_hook(tb, NF_INET_FORWARD);
	tb_policy(tb, NF_INET_FORWARD, V_ACCEPT);
	tb_hook(tb, NF_INET_LOCAL_OUT);
}

/* Index of the first OUTPUT rule in tables from tb_begin_output(). */
#define OUT0 2

/* ---- packets ---- */

struct pkt {
	unsigned char eth[14];		/* for hooks other than LOCAL_OUT */
	unsigned char d[1500];
	uint32_t len;			/* bytes in d[] */
};

static void pkt_ip(struct pkt *p, uint8_t proto, const char *src, const char *dst,
		   uint16_t frag, uint32_t l4len)
{
	memset(p, 0, sizeof(*p));
	p->eth[12] = 0x08;
	p->d[0] = 0x45;
	p->len = 20 + l4len;
	p->d[2] = p->len >> 8;
	p->d[3] = p->len & 0xff;
	p->d[6] = frag >> 8;
	p->d[7] = frag & 0xff;
	p->d[8] = 64;
	p->d[9] = proto;
	inet_pton(AF_INET, src, p->d + 12);
	inet_pton(AF_INET, dst, p->d + 16);
}

static void pkt_tcp(struct pkt *p, uint16_t sport, uint16_t dport, uint8_t flags)
{
	pkt_ip(p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 20);
	p->d[20] = sport >> 8;
	p->d[21] = sport & 0xff;
	p->d[22] = dport >> 8;
	p->d[23] = dport & 0xff;
	p->d[32] = 5 << 4;
	p->d[33] = flags;
}

static void pkt_udp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	pkt_ip(p, IPPROTO_UDP, "10.1.1.1", "10.2.2.2", 0, 8);
	p->d[20] = sport >> 8;
	p->d[21] = sport & 0xff;
	p->d[22] = dport >> 8;
	p->d[23] = dport & 0xff;
}

static void pkt_icmp(struct pkt *p, uint8_t type, uint8_t code)
{
	pkt_ip(p, IPPROTO_ICMP, "10.1.1.1", "10.2.2.2", 0, 8);
	p->d[20] = type;
	p->d[21] = code;
}

/* An IPv6 packet from @src to @dst, next header @nh; headers follow by pkt6_put(). */
static void pkt_ip6(struct pkt *p, uint8_t nh, const char *src, const char *dst)
{
	memset(p, 0, sizeof(*p));
	p->eth[12] = 0x86;
	p->eth[13] = 0xdd;
	p->d[0] = 0x60;
	p->d[6] = nh;
	p->d[7] = 64;
	inet_pton(AF_INET6, src, p->d + 8);
	inet_pton(AF_INET6, dst, p->d + 24);
	p->len = 40;
}

/* Append @len bytes of @b to @p and set its payload length. */
static void pkt6_put(struct pkt *p, const void *b, uint32_t len)
{
	memcpy(p->d + p->len, b, len);
	p->len += len;
	p->d[4] = (p->len - 40) >> 8;
	p->d[5] = (p->len - 40) & 0xff;
}

/* A TCP (20 bytes, no flags) or UDP header from port 1 to @dport. */
static void pkt6_l4(struct pkt *p, uint8_t proto, uint16_t dport)
{
	uint8_t h[20] = { 0, 1, dport >> 8, dport & 0xff };

	if (proto == IPPROTO_TCP)
		h[12] = 5 << 4;
	else
		h[5] = 8;
	pkt6_put(p, h, proto == IPPROTO_TCP ? 20 : 8);
}

/* A fragment header of offset @off (8-byte units), next header @nh. */
static void pkt6_frag(struct pkt *p, uint8_t nh, uint16_t off, bool more)
{
	uint8_t h[8] = { nh, 0, (off << 3) >> 8, ((off << 3) & 0xff) | more, 0, 0, 0, 7 };

	pkt6_put(p, h, sizeof(h));
}

/* ---- fixture ---- */

FIXTURE(cg) {
	struct context ctx;
	struct btf_info bi;
	struct tb *tb;
	struct table *t;
	int prog_fd;
	int cnt_fd;
	int runs_fd;		/* the runs map of every program loaded */
	int cont_fd;		/* continuation array of a segmented build */
	unsigned int hook;
	unsigned int insns;	/* in all segments */
	unsigned int nsegs;
	unsigned int nsets;	/* folded runs in all segments */
	uint32_t fold_min;
	uint32_t fold_jump_min;	/* 0 (the default here): runs of jumps stay rules */
	uint32_t seg_insns;	/* 0: one program */
	bool slow_reads;	/* headers through dynptr slices (non-linear skbs) */
};

FIXTURE_SETUP(cg)
{
	ASSERT_EQ(0, context_init(&self->ctx, -1, -1, "store"));
	ASSERT_EQ(0, btf_info_load(&self->bi));
	self->tb = calloc(1, sizeof(*self->tb));
	ASSERT_NE(NULL, self->tb);
	self->prog_fd = -1;
	self->cnt_fd = -1;
	self->cont_fd = -1;
	self->fold_min = CG_FOLD_MIN;
	self->runs_fd = codegen_runs_create();
	ASSERT_LE(0, self->runs_fd);
}

FIXTURE_TEARDOWN(cg)
{
	if (self->prog_fd >= 0)
		close(self->prog_fd);
	if (self->cnt_fd >= 0)
		close(self->cnt_fd);
	if (self->cont_fd >= 0)
		close(self->cont_fd);
	if (self->runs_fd >= 0)
		close(self->runs_fd);
	table_free(self->t);
	free(self->tb);
	context_fini(&self->ctx);
}

/*
 * Compile and load @hook of self->t (every segment) with @fold_min and
 * @seg_insns into *@prog_fd, a fresh counters map *@cnt_fd and *@cont_fd.
 * 0 or -errno; self->insns and self->nsegs say what was generated.
 */
static int load_variant(FIXTURE_DATA(cg) *self, unsigned int hook, uint32_t fold_min,
			uint32_t seg_insns, int *prog_fd, int *cnt_fd, int *cont_fd)
{
	static char log[1 << 22];
	struct cg_hook_load l = {
		.bi = &self->bi, .progs_fd = -1, .runs_fd = self->runs_fd,
		.fold_min = fold_min, .fold_jump_min = self->fold_jump_min, .seg_insns = seg_insns,
		.slow_reads = self->slow_reads, .log = log, .log_size = sizeof(log),
	};
	int err;

	*prog_fd = *cont_fd = -1;
	*cnt_fd = codegen_counters_create(self->t->num_entries);
	if (*cnt_fd < 0)
		return *cnt_fd;
	l.counters_fd = *cnt_fd;
	log[0] = '\0';
	err = codegen_load_hook(&l, self->t, hook, "test_codegen");
	self->insns = l.insns;
	self->nsegs = l.nsegs;
	self->nsets = l.nsets;
	if (err < 0) {
		size_t n = strlen(log);
		FILE *f = fopen("/tmp/test_codegen.verifier.log", "w");

		if (f) {
			fputs(log, f);
			fclose(f);
		}
		fprintf(stderr, "# load failed in %s: %d (%u insns, %u segments): %s\n",
			l.err_stage ?: "?", err, l.insns, l.nsegs, n > 3000 ? log + n - 3000 : log);
		return err;
	}
	*prog_fd = err;
	*cont_fd = l.cont_fd;
	return 0;
}

static int table_of(FIXTURE_DATA(cg) *self, const struct ipt_replace *repl, bool v6);

/*
 * Finish the table, validate it (with @v6 as the same ip6_tables table,
 * tb_to_ipv6()), compile and load the program(s) of @hook: 0 or -errno.
 */
static int build_hook(struct __test_metadata *_metadata, FIXTURE_DATA(cg) *self,
		      unsigned int hook, bool v6)
{
	struct ipt_replace repl;
	int err;

	err = tb_finish(self->tb, &repl);
	if (err)
		return err;
	err = table_of(self, &repl, v6);
	if (err) {
		TH_LOG("table_from_replace: %d", err);
		return err;
	}
	self->hook = hook;
	return load_variant(self, hook, self->fold_min, self->seg_insns, &self->prog_fd,
			    &self->cnt_fd, &self->cont_fd);
}

#define BUILD(hook) ASSERT_EQ(0, build_hook(_metadata, self, hook, false))
#define BUILD6(hook) ASSERT_EQ(0, build_hook(_metadata, self, hook, true))

/* Run @p through the program: the verdict, or -errno. */
static int run(FIXTURE_DATA(cg) *self, const struct pkt *p)
{
	unsigned char ctx[2] = { self->hook, self->t ? self->t->fam->nfproto : NFPROTO_IPV4 };
	unsigned char buf[1600];
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err;

	if (self->hook == NF_INET_LOCAL_OUT) {
		opts.data_in = p->d;
		opts.data_size_in = p->len;
	} else {
		memcpy(buf, p->eth, 14);
		memcpy(buf + 14, p->d, p->len);
		opts.data_in = buf;
		opts.data_size_in = p->len + 14;
	}
	opts.ctx_in = ctx;
	opts.ctx_size_in = sizeof(ctx);
	err = bpf_prog_test_run_opts(self->prog_fd, &opts);
	if (err)
		return -errno;
	return opts.retval;
}

/* Summed counters of entry @i. */
static struct xt_counters cnt(FIXTURE_DATA(cg) *self, uint32_t i)
{
	struct xt_counters *all = calloc(self->t->num_entries, sizeof(*all)), sum;

	if (!all || i >= self->t->num_entries ||
	    codegen_counters_sum(self->cnt_fd, self->t->num_entries, all)) {
		free(all);
		return (struct xt_counters){ ~0ull, ~0ull };
	}
	sum = all[i];
	free(all);
	return sum;
}

#define EXPECT_PKT(verdict, p) EXPECT_EQ(verdict, run(self, p))
#define EXPECT_CNT(i, pk, by)						\
	do {								\
		struct xt_counters _c = cnt(self, i);			\
		EXPECT_EQ((uint64_t)(pk), _c.pcnt);			\
		EXPECT_EQ((uint64_t)(by), _c.bcnt);			\
	} while (0)

static struct ipt_ip ip_src(const char *addr, const char *mask, bool inv)
{
	struct ipt_ip ip = {};

	inet_pton(AF_INET, addr, &ip.src);
	inet_pton(AF_INET, mask, &ip.smsk);
	if (inv)
		ip.invflags |= IPT_INV_SRCIP;
	return ip;
}

/* ---- tests ---- */

TEST_F(cg, policy_accept_counts)
{
	struct pkt p;

	tb_begin_output(self->tb);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 2 * p.len);
	EXPECT_CNT(0, 0, 0);
}

/*
 * Set the busy flag of the first @levels runs elements of every CPU, as
 * runs interrupted on that CPU would have; clear the others. Returns how
 * many elements now show busy, or -errno.
 */
static int set_busy(FIXTURE_DATA(cg) *self, unsigned int levels)
{
	int ncpus = libbpf_num_possible_cpus(), busy = 0, err = 0;
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), key;
	uint64_t *val;

	if (ncpus <= 0 || bpf_map_get_info_by_fd(self->runs_fd, &info, &len))
		return -EINVAL;
	val = malloc(info.value_size);
	if (!val)
		return -ENOMEM;
	for (key = 0; key < info.max_entries && !err; key++) {
		if (bpf_map_lookup_elem(self->runs_fd, &key, val)) {
			err = -errno;
			break;
		}
		val[CG_RUN_BUSY / 8] = key % CG_LEVELS < levels;
		busy += key % CG_LEVELS < levels;
		if (bpf_map_update_elem(self->runs_fd, &key, val, BPF_EXIST))
			err = -errno;
	}
	free(val);
	return err ? err : busy;
}

/* Entry @i's counters in counters element @key alone (0: the nested runs' shared one). */
static struct xt_counters cnt_elem(FIXTURE_DATA(cg) *self, uint32_t key, uint32_t i)
{
	struct xt_counters *v = NULL, c = { ~0ull, ~0ull };
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);

	/* The value is padded past num_entries: size the buffer from the map. */
	if (!bpf_map_get_info_by_fd(self->cnt_fd, &info, &len))
		v = calloc(1, info.value_size);
	if (v && i < self->t->num_entries && !bpf_map_lookup_elem(self->cnt_fd, &key, v))
		c = v[i];
	free(v);
	return c;
}

/*
 * A run that finds its CPU's first elements held (it interrupted runs on
 * that CPU) takes the next free one and counts, exactly, in the shared
 * counters element with atomic adds; one at level 0 counts in its CPU's
 * own element; with all CG_LEVELS held it drops, counting nothing; it
 * gives its element back. The counters map holds ncpus + 1 copies.
 */
TEST_F(cg, nested_runs_take_a_free_element)
{
	int ncpus = libbpf_num_possible_cpus();
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	unsigned int levels;
	struct pkt p;

	ASSERT_LT(0, ncpus);
	tb_begin_output(self->tb);
	tb_rule(self->tb, &(struct ipt_ip){ .proto = IPPROTO_UDP });
	tb_verdict(self->tb, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	ASSERT_EQ(0, bpf_map_get_info_by_fd(self->cnt_fd, &info, &len));
	EXPECT_EQ((uint32_t)ncpus + 1, info.max_entries);
	/* 16 bytes per entry, padded to whole cache lines. */
	EXPECT_EQ(0u, info.value_size % 64);
	EXPECT_LE(self->t->num_entries * sizeof(struct xt_counters), info.value_size);
	EXPECT_GT(self->t->num_entries * sizeof(struct xt_counters) + 64, info.value_size);
	pkt_udp(&p, 1, 2);
	for (levels = 0; levels < CG_LEVELS; levels++) {
		ASSERT_EQ((int)levels * ncpus, set_busy(self, levels));
		EXPECT_PKT(NF_ACCEPT, &p);
		EXPECT_CNT(OUT0, levels + 1, (levels + 1) * p.len);
		/* Level 0 ran once, in a CPU's element; every nested run in the shared one. */
		EXPECT_EQ(levels, cnt_elem(self, CG_CNT_SHARED, OUT0).pcnt);
		EXPECT_EQ(levels * p.len, cnt_elem(self, CG_CNT_SHARED, OUT0).bcnt);
		/* Given back: only the elements marked held are still held. */
		EXPECT_EQ((int)levels * ncpus, set_busy(self, levels));
	}
	ASSERT_EQ(CG_LEVELS * ncpus, set_busy(self, CG_LEVELS));
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, CG_LEVELS, CG_LEVELS * p.len);
	EXPECT_CNT(OUT0 + 1, 0, 0);
	ASSERT_EQ(0, set_busy(self, 0));
	pkt_icmp(&p, 8, 0);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, p.len);
}

/*
 * Nested runs of every CPU share one counters element: with level 0 held
 * everywhere, one process per CPU runs the program @reps times at once;
 * the atomic adds lose none of the counts.
 */
TEST_F(cg, nested_runs_of_all_cpus_count_exactly)
{
	const unsigned int reps = 200000;
	int ncpus = libbpf_num_possible_cpus(), cpu, status, nproc = 0;
	pid_t pids[64];
	struct pkt p;

	ASSERT_LT(0, ncpus);
	if (ncpus > 64)
		ncpus = 64;
	tb_begin_output(self->tb);
	tb_rule(self->tb, &(struct ipt_ip){ .proto = IPPROTO_UDP });
	tb_verdict(self->tb, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	ASSERT_EQ(ncpus, set_busy(self, 1));
	pkt_udp(&p, 1, 2);
	for (cpu = 0; cpu < ncpus; cpu++) {
		cpu_set_t set;
		pid_t pid;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			unsigned char ctx[2] = { NF_INET_LOCAL_OUT, NFPROTO_IPV4 };
			LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p.d, .data_size_in = p.len,
				    .ctx_in = ctx, .ctx_size_in = sizeof(ctx), .repeat = reps);
			int err;

			/* Offline CPUs: nothing to run there. */
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(2);
			err = bpf_prog_test_run_opts(self->prog_fd, &opts);
			_exit(err || opts.retval != NF_ACCEPT);
		}
		pids[nproc++] = pid;
	}
	for (cpu = 0; cpu < nproc; cpu++) {
		ASSERT_EQ(pids[cpu], waitpid(pids[cpu], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status) == 2) {
			ncpus--;
			continue;
		}
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	ASSERT_LT(0, ncpus);
	EXPECT_EQ((uint64_t)ncpus * reps, cnt_elem(self, CG_CNT_SHARED, OUT0).pcnt);
	EXPECT_CNT(OUT0, (uint64_t)ncpus * reps, (uint64_t)ncpus * reps * p.len);
	ASSERT_EQ(0, set_busy(self, 0));
}

TEST_F(cg, policy_drop)
{
	struct pkt p;

	tb_begin_output(self->tb);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_icmp(&p, 8, 0);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, p.len);
}

TEST_F(cg, input_and_forward_hooks)
{
	struct pkt p;

	tb_begin_output(self->tb);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	/* Rebuild with INPUT DROP: a fresh table. */
	memset(self->tb, 0, offsetof(struct tb, fix));
	tb_hook(self->tb, NF_INET_LOCAL_IN);
	tb_policy(self->tb, NF_INET_LOCAL_IN, V_DROP);
	tb_hook(self->tb, NF_INET_FORWARD);
	tb_policy(self->tb, NF_INET_FORWARD, V_ACCEPT);
	tb_hook(self->tb, NF_INET_LOCAL_OUT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_IN);
	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(0, 1, p.len);
	EXPECT_CNT(1, 0, 0);
}

TEST_F(cg, forward_hook)
{
	struct pkt p;

	memset(self->tb, 0, offsetof(struct tb, fix));
	tb_hook(self->tb, NF_INET_LOCAL_IN);
	tb_policy(self->tb, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_hook(self->tb, NF_INET_FORWARD);
	tb_rule(self->tb, NULL);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_FORWARD, V_ACCEPT);
	tb_hook(self->tb, NF_INET_LOCAL_OUT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_FORWARD);
	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(1, 1, p.len);
	EXPECT_CNT(2, 0, 0);
}

TEST_F(cg, src_dst_masks)
{
	struct ipt_ip ip;
	struct pkt p;

	tb_begin_output(self->tb);
	ip = ip_src("10.1.0.0", "255.255.0.0", false);		/* OUT0: -s 10.1/16 -j DROP */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	/* OUT0+1: ! -s 10.3/16 -d 10.9.9.9 */
	ip = ip_src("10.3.0.0", "255.255.0.0", true);
	inet_pton(AF_INET, "10.9.9.9", &ip.dst);
	inet_pton(AF_INET, "255.255.255.255", &ip.dmsk);
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	memset(&ip, 0, sizeof(ip));				/* OUT0+2: ! -d 10.0.0.0/8 */
	inet_pton(AF_INET, "10.0.0.0", &ip.dst);
	inet_pton(AF_INET, "255.0.0.0", &ip.dmsk);
	ip.invflags = IPT_INV_DSTIP;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_ip(&p, 99, "10.1.200.3", "10.2.2.2", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "10.2.0.1", "10.2.2.2", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_ip(&p, 99, "10.2.0.1", "10.9.9.9", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "10.3.0.1", "10.9.9.9", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_ip(&p, 99, "10.3.0.1", "11.9.9.9", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, 24);
	EXPECT_CNT(OUT0 + 1, 1, 24);
	EXPECT_CNT(OUT0 + 2, 1, 24);
	EXPECT_CNT(OUT0 + 3, 2, 48);
}

/* The kernel compares (addr & mask) with the stored address as is. */
TEST_F(cg, addr_outside_mask_never_matches)
{
	struct ipt_ip ip;
	struct pkt p;

	tb_begin_output(self->tb);
	ip = ip_src("10.1.2.3", "255.255.0.0", false);
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_ip(&p, 99, "10.1.2.3", "10.2.2.2", 0, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
}

TEST_F(cg, protocol)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	ip.proto = IPPROTO_UDP;					/* -p udp -j ACCEPT */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_ACCEPT);
	ip.proto = IPPROTO_ICMP;				/* ! -p icmp -j DROP */
	ip.invflags = IPT_INV_PROTO;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	/* ! -p 0: proto 0 is never checked */
	ip.proto = 0;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 5, 6);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 5, 6, 0x02);
	EXPECT_PKT(NF_DROP, &p);
	pkt_icmp(&p, 0, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 2, 1, p.len);
	EXPECT_CNT(OUT0 + 3, 0, 0);
}

TEST_F(cg, fragments)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	ip.flags = IPT_F_FRAG;					/* -f -j DROP */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0x2000, 8);	/* MF, offset 0: first fragment */
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0x0003, 8);	/* offset 3 */
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0x4000, 8);	/* DF only */
	EXPECT_PKT(NF_ACCEPT, &p);
}

TEST_F(cg, fragments_inverted)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	ip.flags = IPT_F_FRAG;					/* ! -f -j DROP */
	ip.invflags = IPT_INV_FRAG;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0x2000, 8);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0x0003, 8);
	EXPECT_PKT(NF_ACCEPT, &p);
}

/* IPT_INV_FRAG without IPT_F_FRAG: NF_INVF(inv, false) never matches. */
TEST_F(cg, inv_frag_without_frag_never_matches)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	ip.invflags = IPT_INV_FRAG;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 0, 8);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_ip(&p, 99, "1.1.1.1", "2.2.2.2", 5, 8);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 0, 0);
}

static void iface(char *name, unsigned char *mask, const char *want, bool plus)
{
	size_t n = strlen(want);

	memset(name, 0, IFNAMSIZ);
	memset(mask, 0, IFNAMSIZ);
	memcpy(name, want, n);
	/* iptables: "eth+" masks the prefix, "lo" the name and its NUL. */
	memset(mask, 0xff, plus ? n : n + 1);
}

TEST_F(cg, interfaces)
{
	struct ipt_ip ip = {};
	struct pkt p;

	/* test_run: out = lo, in = none. */
	tb_begin_output(self->tb);
	iface(ip.outiface, ip.outiface_mask, "eth0", false);	/* -o eth0 -j DROP: no */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	iface(ip.outiface, ip.outiface_mask, "l", true);	/* -o l+: counted, no verdict */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, 0);
	memset(&ip, 0, sizeof(ip));
	iface(ip.outiface, ip.outiface_mask, "lo0", false);	/* ! -o lo0: counted */
	ip.invflags = IPT_INV_VIA_OUT;
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, 0);
	memset(&ip, 0, sizeof(ip));
	iface(ip.iniface, ip.iniface_mask, "lo", false);	/* -i lo: no (no in device) */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	ip.invflags = IPT_INV_VIA_IN;				/* ! -i lo: counted */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, 0);
	memset(&ip, 0, sizeof(ip));
	iface(ip.outiface, ip.outiface_mask, "lo", false);	/* -o lo -j DROP */
	tb_rule(self->tb, &ip);
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	/* Verdict 0 placeholders above are jumps to the next entry: fix them. */
	{
		struct ipt_entry *e;
		uint32_t off = self->tb->hook_entry[NF_INET_LOCAL_OUT];

		while (off < self->tb->size) {
			struct xt_standard_target *t;

			e = (struct ipt_entry *)(self->tb->blob + off);
			t = (void *)((char *)e + e->target_offset);
			if (!t->target.u.user.name[0] && t->verdict == 0)
				t->verdict = off + e->next_offset;
			off += e->next_offset;
		}
	}
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 0, 0);
	EXPECT_CNT(OUT0 + 1, 1, p.len);
	EXPECT_CNT(OUT0 + 2, 1, p.len);
	EXPECT_CNT(OUT0 + 3, 0, 0);
	EXPECT_CNT(OUT0 + 4, 1, p.len);
	EXPECT_CNT(OUT0 + 5, 1, p.len);
	EXPECT_CNT(OUT0 + 6, 0, 0);
}

static void add_tcp(struct tb *tb, uint16_t s0, uint16_t s1, uint16_t d0, uint16_t d1,
		    uint8_t mask, uint8_t cmp, uint8_t option, uint8_t inv, int verdict)
{
	struct xt_tcp tcp = { { s0, s1 }, { d0, d1 }, option, mask, cmp, inv };
	struct ipt_ip ip = { .proto = IPPROTO_TCP };

	tb_rule(tb, &ip);
	tb_match(tb, "tcp", &tcp, sizeof(tcp));
	tb_verdict(tb, verdict);
}

static void add_udp(struct tb *tb, uint16_t s0, uint16_t s1, uint16_t d0, uint16_t d1,
		    uint8_t inv, int verdict)
{
	struct xt_udp udp = { { s0, s1 }, { d0, d1 }, inv };
	struct ipt_ip ip = { .proto = IPPROTO_UDP };

	tb_rule(tb, &ip);
	tb_match(tb, "udp", &udp, sizeof(udp));
	tb_verdict(tb, verdict);
}

TEST_F(cg, tcp_ports_and_flags)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_tcp(self->tb, 0, 0xffff, 22, 22, 0, 0, 0, 0, V_ACCEPT);		/* --dport 22 */
	/* --sport 1000:2000 */
	add_tcp(self->tb, 1000, 2000, 0, 0xffff, 0, 0, 0, 0, V_DROP);
	/* ! --dport 80:90 */
	add_tcp(self->tb, 0, 0xffff, 80, 90, 0, 0, 0, XT_TCP_INV_DSTPT, V_DROP);
	add_tcp(self->tb, 0, 0xffff, 0, 0xffff, 0x17, 0x02, 0, 0, V_DROP);	/* --syn */
	/* ! --tcp-flags SYN,ACK ACK */
	add_tcp(self->tb, 0, 0xffff, 0, 0xffff, 0x12, 0x10, 0, XT_TCP_INV_FLAGS,
		V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_tcp(&p, 5000, 22, 0x02);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 1500, 85, 0x10);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, p.len);
	pkt_tcp(&p, 999, 91, 0x10);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2, 1, p.len);
	pkt_tcp(&p, 999, 85, 0x02);						/* SYN */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 3, 1, p.len);
	pkt_tcp(&p, 999, 85, 0x12);						/* SYN/ACK */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3, 1, p.len);
	pkt_tcp(&p, 999, 85, 0x10);						/* ACK */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 5, 1, p.len);
}

TEST_F(cg, tcp_port_inversion_and_bounds)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_tcp(self->tb, 10, 20, 0, 0xffff, 0, 0, 0, XT_TCP_INV_SRCPT, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_tcp(&p, 9, 1, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 10, 1, 0);
	EXPECT_PKT(NF_DROP, &p);
	pkt_tcp(&p, 20, 1, 0);
	EXPECT_PKT(NF_DROP, &p);
	pkt_tcp(&p, 21, 1, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 65535, 1, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
}

TEST_F(cg, tcp_truncated_and_fragments)
{
	struct pkt p;

	tb_begin_output(self->tb);
	/* A never-matching port rule: only hotdrop can drop. */
	add_tcp(self->tb, 0, 0xffff, 7, 7, 0, 0, 0, 0, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_tcp(&p, 1, 2, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	p.len = 20 + 19;					/* truncated header: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 40);
	pkt_tcp(&p, 1, 7, 0);
	p.d[7] = 1;						/* fragment offset 1: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	p.d[7] = 2;						/* offset 2: no match, policy */
	EXPECT_PKT(NF_ACCEPT, &p);
	p.d[7] = 2;
	/* non-first, short: still no match */
	p.len = 24;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 0, 0);
}

TEST_F(cg, tcp_option)
{
	struct pkt p;

	tb_begin_output(self->tb);
	/* --tcp-option 8 */
	add_tcp(self->tb, 0, 0xffff, 0, 0xffff, 0, 0, 8, 0, V_DROP);
	/* ! --tcp-option 2 */
	add_tcp(self->tb, 0, 0xffff, 0, 0xffff, 0, 0, 2, XT_TCP_INV_OPTION,
		V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_tcp(&p, 1, 2, 0);					/* no options */
	EXPECT_PKT(NF_ACCEPT, &p);
	/* NOP, NOP, timestamps (8, len 10): doff 8 */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 32);
	p.d[32] = 8 << 4;
	p.d[40] = 1;
	p.d[41] = 1;
	p.d[42] = 8;
	p.d[43] = 10;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, p.len);
	/* MSS (2, len 4), then padding: doff 6 */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 24);
	p.d[32] = 6 << 4;
	p.d[40] = 2;
	p.d[41] = 4;
	EXPECT_PKT(NF_DROP, &p);				/* has 2: ! --tcp-option 2 fails */
	EXPECT_CNT(OUT0 + 2, 1, p.len);
	/* Option 8 hidden inside another option's body is not seen. */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 28);
	p.d[32] = 7 << 4;
	p.d[40] = 30;
	p.d[41] = 8;
	p.d[42] = 8;
	EXPECT_PKT(NF_ACCEPT, &p);
	/* A zero length byte advances by one: 5, 0, 8 finds 8 at index 1? no: at 2 after 1 step. */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 24);
	p.d[32] = 6 << 4;
	p.d[40] = 5;
	p.d[41] = 0;
	p.d[42] = 8;
	EXPECT_PKT(NF_DROP, &p);
	/* doff 6 but the options are cut off by the end of the packet: hotdrop. */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 22);
	p.d[32] = 6 << 4;
	EXPECT_PKT(NF_DROP, &p);
	/* doff < 5: hotdrop. */
	pkt_tcp(&p, 1, 2, 0);
	p.d[32] = 4 << 4;
	EXPECT_PKT(NF_DROP, &p);
}

TEST_F(cg, udp)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_udp(self->tb, 53, 53, 0, 0xffff, 0, V_ACCEPT);			/* --sport 53 */
	/* ! --dport 100:200 */
	add_udp(self->tb, 0, 0xffff, 100, 200, XT_UDP_INV_DSTPT, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 53, 150);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_udp(&p, 54, 150);
	EXPECT_PKT(NF_DROP, &p);
	pkt_udp(&p, 54, 201);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_udp(&p, 54, 201);
	p.len = 27;						/* truncated: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	pkt_udp(&p, 53, 150);
	/* non-first fragment: no match, no hotdrop */
	p.d[7] = 1;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2, 2, 28 + 28);
}

static void add_icmp(struct tb *tb, uint8_t type, uint8_t c0, uint8_t c1, bool inv, int verdict)
{
	struct ipt_icmp icmp = { type, { c0, c1 }, inv ? IPT_ICMP_INV : 0 };
	struct ipt_ip ip = { .proto = IPPROTO_ICMP };

	tb_rule(tb, &ip);
	tb_match(tb, "icmp", &icmp, sizeof(icmp));
	tb_verdict(tb, verdict);
}

TEST_F(cg, icmp)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_icmp(self->tb, 8, 0, 0xff, false, V_ACCEPT);	/* echo-request */
	add_icmp(self->tb, 3, 1, 3, false, V_DROP);		/* unreachable codes 1-3 */
	add_icmp(self->tb, 0, 0, 0, true, V_DROP);		/* ! echo-reply */
	add_icmp(self->tb, 0xff, 0, 0xff, false, V_ACCEPT);	/* any */
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_icmp(&p, 8, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_icmp(&p, 3, 2);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, p.len);
	pkt_icmp(&p, 3, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2, 1, p.len);
	pkt_icmp(&p, 0, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3, 1, p.len);
	pkt_icmp(&p, 0, 0);
	p.len = 27;						/* icmphdr is 8 bytes: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 4, 0, 0);
}

TEST_F(cg, icmp_any_inverted_never_matches)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_icmp(self->tb, 0xff, 0, 0xff, true, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_icmp(&p, 8, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 0, 0);
}

/*
 * OUTPUT: -p udp -j A; -p tcp -g B; -j ACCEPT(policy DROP)
 * A: --dport 1 DROP; -j C; RETURN(footer)    C: --dport 2 ACCEPT; --dport 3 RETURN; -j DROP
 * B: --dport 4 RETURN; -j ACCEPT
 */
TEST_F(cg, jump_goto_return)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	ip.proto = IPPROTO_UDP;
	tb_rule(self->tb, &ip);				/* OUT0 */
	tb_jump(self->tb, "A", false);
	ip.proto = IPPROTO_TCP;
	tb_rule(self->tb, &ip);				/* OUT0+1 */
	tb_jump(self->tb, "B", true);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);	/* OUT0+2 */
	tb_chain(self->tb, "A");			/* OUT0+3 head */
	add_udp(self->tb, 0, 0xffff, 1, 1, 0, V_DROP);	/* OUT0+4 */
	tb_rule(self->tb, NULL);			/* OUT0+5 */
	tb_jump(self->tb, "C", false);
	tb_chain_end(self->tb);				/* OUT0+6 */
	tb_chain(self->tb, "B");			/* OUT0+7 */
	add_tcp(self->tb, 0, 0xffff, 4, 4, 0, 0, 0, 0, V_RETURN);	/* OUT0+8 */
	tb_rule(self->tb, NULL);			/* OUT0+9 */
	tb_verdict(self->tb, V_ACCEPT);
	tb_chain_end(self->tb);				/* OUT0+10 */
	tb_chain(self->tb, "C");			/* OUT0+11 */
	add_udp(self->tb, 0, 0xffff, 2, 2, 0, V_ACCEPT);	/* OUT0+12 */
	add_udp(self->tb, 0, 0xffff, 3, 3, 0, V_RETURN);	/* OUT0+13 */
	tb_rule(self->tb, NULL);			/* OUT0+14 */
	tb_verdict(self->tb, V_DROP);
	tb_chain_end(self->tb);				/* OUT0+15 */
	BUILD(NF_INET_LOCAL_OUT);

	pkt_udp(&p, 9, 1);
	EXPECT_PKT(NF_DROP, &p);			/* A: dport 1 */
	pkt_udp(&p, 9, 2);
	EXPECT_PKT(NF_ACCEPT, &p);			/* A -> C: dport 2 */
	pkt_udp(&p, 9, 3);
	/* C returns to A, A's footer returns to OUTPUT, then the tcp rule, then the policy. */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 13, 1, 28);
	EXPECT_CNT(OUT0 + 6, 1, 28);
	EXPECT_CNT(OUT0 + 2, 1, 28);
	pkt_udp(&p, 9, 9);
	EXPECT_PKT(NF_DROP, &p);			/* C's -j DROP */
	EXPECT_CNT(OUT0 + 14, 1, 28);
	EXPECT_CNT(OUT0 + 5, 3, 3 * 28);
	EXPECT_CNT(OUT0, 4, 4 * 28);

	pkt_tcp(&p, 1, 5, 0);
	EXPECT_PKT(NF_ACCEPT, &p);			/* goto B: ACCEPT */
	pkt_tcp(&p, 1, 4, 0);
	/* goto B, RETURN: the stack is empty, so the OUTPUT policy (DROP) decides. */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 8, 1, 40);
	EXPECT_CNT(OUT0 + 2, 2, 28 + 40);
	EXPECT_CNT(OUT0 + 1, 2, 80);
	EXPECT_CNT(OUT0 + 10, 0, 0);
}

/* RETURN in a built-in chain goes to its policy, counted there. */
TEST_F(cg, return_in_builtin_chain)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_udp(self->tb, 0, 0xffff, 5, 5, 0, V_RETURN);
	tb_rule(self->tb, NULL);
	tb_verdict(self->tb, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 5);
	EXPECT_PKT(NF_DROP, &p);
	pkt_udp(&p, 1, 6);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 28);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	EXPECT_CNT(OUT0 + 2, 1, 28);
}

/* A goto from a user chain, then RETURN: back to the caller of the first chain. */
TEST_F(cg, goto_from_user_chain_returns_to_caller)
{
	struct pkt p;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);			/* OUT0: -j A */
	tb_jump(self->tb, "A", false);
	tb_rule(self->tb, NULL);			/* OUT0+1: -j DROP */
	tb_verdict(self->tb, V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(self->tb, "A");			/* OUT0+3 */
	tb_rule(self->tb, NULL);			/* OUT0+4: -g B */
	tb_jump(self->tb, "B", true);
	tb_chain_end(self->tb);				/* OUT0+5 */
	tb_chain(self->tb, "B");			/* OUT0+6 */
	add_udp(self->tb, 0, 0xffff, 1, 1, 0, V_ACCEPT);	/* OUT0+7 */
	tb_chain_end(self->tb);				/* OUT0+8 */
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 1);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_DROP, &p);			/* B returns past A to OUTPUT's next rule */
	EXPECT_CNT(OUT0 + 8, 1, 28);
	EXPECT_CNT(OUT0 + 5, 0, 0);
	EXPECT_CNT(OUT0 + 1, 1, 28);
}

/* Falling into an ERROR entry (a chain head) drops, counted. */
TEST_F(cg, error_target_drops)
{
	struct pkt p;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "A", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(self->tb, "A");
	tb_rule(self->tb, NULL);			/* jump to the ERROR head of chain Z */
	tb_jump(self->tb, "Z", true);
	tb_chain_end(self->tb);
	tb_chain(self->tb, "Z");
	tb_chain_end(self->tb);
	/* Make A's goto land on Z's head instead of its first rule. */
	{
		uint32_t i;

		for (i = 0; i < self->tb->nchains; i++)
			if (!strcmp(self->tb->chains[i].name, "Z"))
				self->tb->chains[i].first -=
					sizeof(struct ipt_entry) +
					XT_ALIGN(sizeof(struct xt_error_target));
	}
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 1);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 5, 1, 28);
}

/* Two call sites of one chain: each returns to its own caller. */
TEST_F(cg, chain_called_twice)
{
	struct ipt_ip ip = {};
	struct pkt p;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);			/* OUT0: -j A */
	tb_jump(self->tb, "A", false);
	ip.proto = IPPROTO_UDP;
	tb_rule(self->tb, &ip);				/* OUT0+1: -p udp -j A */
	tb_jump(self->tb, "A", false);
	tb_rule(self->tb, &ip);				/* OUT0+2: -p udp -j ACCEPT */
	tb_verdict(self->tb, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);	/* OUT0+3 */
	tb_chain(self->tb, "A");
	add_udp(self->tb, 0, 0xffff, 7, 7, 0, V_DROP);	/* OUT0+5 */
	tb_chain_end(self->tb);				/* OUT0+6 */
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 1);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 6, 2, 56);
	pkt_icmp(&p, 8, 0);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 6, 3, 56 + 28);
	pkt_udp(&p, 1, 7);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 5, 1, 28);
}

TEST_F(cg, queue_is_not_supported)
{
	struct ipt_replace repl;
	struct codegen cg;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_verdict(self->tb, V_QUEUE);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	ASSERT_EQ(0, tb_finish(self->tb, &repl));
	ASSERT_EQ(0, table_from_replace(&self->ctx, &family_ipv4, &repl, self->tb->blob, &self->t));
	codegen_init(&cg, &self->bi);
	EXPECT_EQ(-EOPNOTSUPP, codegen_hook(&cg, self->t, NF_INET_LOCAL_OUT));
	EXPECT_EQ(OUT0, cg.err_rule);
	codegen_free(&cg);
	/* The other hooks do not reach it and compile. */
	codegen_init(&cg, &self->bi);
	EXPECT_EQ(0, codegen_hook(&cg, self->t, NF_INET_LOCAL_IN));
	codegen_free(&cg);
}

/* 3000 rules in one chain plus 100 user chains, not folded: loads and judges. */
TEST_F(cg, big_table_verifies)
{
	struct pkt p;
	char name[16];
	int i;

	self->fold_min = 0;
	tb_begin_output(self->tb);
	for (i = 0; i < 3000; i++)
		add_udp(self->tb, 0, 0xffff, 10000 + i, 10000 + i, 0, V_DROP);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "c%03d", i);
		tb_rule(self->tb, NULL);
		tb_jump(self->tb, name, false);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "c%03d", i);
		tb_chain(self->tb, name);
		add_udp(self->tb, 0, 0xffff, 20000 + i, 20000 + i, 0, V_DROP);
		tb_chain_end(self->tb);
	}
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions", self->insns);
	pkt_udp(&p, 1, 12999);
	EXPECT_PKT(NF_DROP, &p);
	pkt_udp(&p, 1, 20099);
	EXPECT_PKT(NF_DROP, &p);
	pkt_udp(&p, 1, 30000);
	EXPECT_PKT(NF_ACCEPT, &p);
}

/* The option walk is a loop: many of them must still verify. */
TEST_F(cg, many_tcp_option_rules)
{
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 200; i++)
		add_tcp(self->tb, 0, 0xffff, 0, 0xffff, 0, 0, 50 + i, i & 1 ? XT_TCP_INV_OPTION : 0,
			i & 1 ? 0 : V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	/* The odd rules only count: make them jumps to the next entry. */
	{
		uint32_t off = self->tb->hook_entry[NF_INET_LOCAL_OUT];

		while (off < self->tb->size) {
			struct ipt_entry *e = (struct ipt_entry *)(self->tb->blob + off);
			struct xt_standard_target *t = (void *)((char *)e + e->target_offset);

			if (!t->target.u.user.name[0] && t->verdict == 0)
				t->verdict = off + e->next_offset;
			off += e->next_offset;
		}
	}
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions", self->insns);
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 24);
	p.d[32] = 6 << 4;
	p.d[40] = 1;
	p.d[41] = 150;
	p.d[42] = 2;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 100, 1, p.len);
	EXPECT_CNT(OUT0 + 99, 1, p.len);
	EXPECT_CNT(OUT0 + 101, 0, 0);
}

/* Nested jumps deeper than bpf-to-bpf calls would allow (8 frames). */
TEST_F(cg, deep_nesting)
{
	char name[16], next[16];
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "d00", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "d%02d", i);
		snprintf(next, sizeof(next), "d%02d", i + 1);
		tb_chain(self->tb, name);
		if (i < 19) {
			tb_rule(self->tb, NULL);
			tb_jump(self->tb, next, false);
		} else {
			add_udp(self->tb, 0, 0xffff, 5, 5, 0, V_ACCEPT);
		}
		tb_chain_end(self->tb);
	}
	BUILD(NF_INET_LOCAL_OUT);
	pkt_udp(&p, 1, 5);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_udp(&p, 1, 6);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
}

/* ---- folding runs of similar rules into map lookups (codegen_set.c) ---- */

static void add_addr(struct tb *tb, bool dst, const char *a, int plen, int verdict)
{
	struct ipt_ip ip = {};
	uint32_t m = plen ? htonl(~0u << (32 - plen)) : 0;

	if (dst) {
		inet_pton(AF_INET, a, &ip.dst);
		ip.dmsk.s_addr = m;
		ip.dst.s_addr &= m;
	} else {
		inet_pton(AF_INET, a, &ip.src);
		ip.smsk.s_addr = m;
		ip.src.s_addr &= m;
	}
	tb_rule(tb, &ip);
	tb_verdict(tb, verdict);
}

static void add_l4_addr_to(struct tb *tb, uint8_t proto, bool dst, const char *a, int plen,
			   uint16_t lo, uint16_t hi, int verdict, const char *chain);

/* -s/-d addr/plen -p tcp|udp --dport lo:hi -j verdict */
static void add_l4_addr(struct tb *tb, uint8_t proto, bool dst, const char *a, int plen,
			uint16_t lo, uint16_t hi, int verdict)
{
	add_l4_addr_to(tb, proto, dst, a, plen, lo, hi, verdict, NULL);
}

/* The same, or with @chain a jump to it (proto 0: no -p, no port; a NULL @a: no address). */
static void add_l4_addr_to(struct tb *tb, uint8_t proto, bool dst, const char *a, int plen,
			   uint16_t lo, uint16_t hi, int verdict, const char *chain)
{
	struct xt_tcp tcp = { { 0, 0xffff }, { lo, hi }, 0, 0, 0, 0 };
	struct xt_udp udp = { { 0, 0xffff }, { lo, hi }, 0 };
	uint32_t m = plen ? htonl(~0u << (32 - plen)) : 0;
	struct ipt_ip ip = { .proto = proto };

	if (a && dst) {
		inet_pton(AF_INET, a, &ip.dst);
		ip.dmsk.s_addr = m;
		ip.dst.s_addr &= m;
	} else if (a) {
		inet_pton(AF_INET, a, &ip.src);
		ip.smsk.s_addr = m;
		ip.src.s_addr &= m;
	}
	tb_rule(tb, &ip);
	if (proto == IPPROTO_TCP)
		tb_match(tb, "tcp", &tcp, sizeof(tcp));
	else if (proto == IPPROTO_UDP)
		tb_match(tb, "udp", &udp, sizeof(udp));
	if (chain)
		tb_jump(tb, chain, false);
	else
		tb_verdict(tb, verdict);
}

/* First match, not longest prefix, decides inside a folded run. */
TEST_F(cg, fold_prefixes_first_match)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_addr(self->tb, false, "10.1.2.3", 32, V_DROP);	/* OUT0 */
	add_addr(self->tb, false, "10.0.0.0", 8, V_DROP);	/* OUT0+1 */
	add_addr(self->tb, false, "10.1.0.0", 16, V_DROP);	/* OUT0+2: shadowed by /8 */
	add_addr(self->tb, false, "10.1.2.3", 32, V_DROP);	/* OUT0+3: duplicate */
	add_addr(self->tb, false, "192.168.0.0", 16, V_DROP);	/* OUT0+4 */
	add_addr(self->tb, false, "192.168.7.0", 24, V_DROP);	/* OUT0+5: shadowed */
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions", self->insns);
	EXPECT_GT(300, self->insns);
	pkt_ip(&p, 99, "10.1.2.3", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "10.1.9.9", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "192.168.7.1", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	pkt_ip(&p, 99, "11.1.2.3", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 24);
	EXPECT_CNT(OUT0 + 1, 1, 24);
	EXPECT_CNT(OUT0 + 2, 0, 0);
	EXPECT_CNT(OUT0 + 3, 0, 0);
	EXPECT_CNT(OUT0 + 4, 1, 24);
	EXPECT_CNT(OUT0 + 5, 0, 0);
	EXPECT_CNT(OUT0 + 6, 1, 24);
}

/* A folded tcp port run keeps tcp_mt()'s fragment and truncation behaviour. */
TEST_F(cg, fold_ports_hotdrop)
{
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 10; i++)
		add_tcp(self->tb, 0, 0xffff, 100 + i, 100 + i, 0, 0, 0, 0, V_ACCEPT);
	add_tcp(self->tb, 0, 0xffff, 200, 210, 0, 0, 0, 0, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	EXPECT_GT(300, self->insns);
	pkt_tcp(&p, 1, 105, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 5, 1, 40);
	pkt_tcp(&p, 1, 205, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 10, 1, 40);
	pkt_tcp(&p, 1, 99, 0);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 11, 1, 40);
	pkt_tcp(&p, 1, 105, 0);
	p.len = 30;					/* truncated: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	pkt_tcp(&p, 1, 105, 0);
	p.d[7] = 1;					/* offset 1: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 11, 1, 40);
	p.d[7] = 3;					/* later fragment: no match */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 11, 2, 80);
	pkt_udp(&p, 1, 105);				/* other protocol: skips the run */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 5, 1, 40);
}

static const char *rand_addr(unsigned int *seed, char *buf)
{
	sprintf(buf, "10.%u.%u.%u", rand_r(seed) % 3, rand_r(seed) % 3, rand_r(seed) % 4);
	return buf;
}

/* A random OUTPUT table full of runs of similar rules, and a user chain: self->t. */
static int random_run_table(FIXTURE_DATA(cg) *self, unsigned int *seed)
{
	static const int verdicts[] = { V_DROP, V_ACCEPT, V_RETURN };
	static const int plens[] = { 8, 16, 24, 30, 32, 32 };
	struct ipt_replace repl;
	int group, i, err;
	char a[32];

	tb_begin_output(self->tb);
	for (group = 0; group < 12; group++) {
		int kind = rand_r(seed) % 8, len = 1 + rand_r(seed) % 10;
		int v = verdicts[rand_r(seed) % 3];

		for (i = 0; i < len; i++) {
			uint16_t lo = rand_r(seed) % 24, hi = lo + (rand_r(seed) % 4 ? 0 :
								    rand_r(seed) % 5);
			switch (kind) {
			case 0:
			case 1:
				add_addr(self->tb, kind, rand_addr(seed, a), plens[rand_r(seed) % 6], v);
				break;
			case 2:
				add_tcp(self->tb, 0, 0xffff, lo, hi, 0, 0, 0, 0, v);
				break;
			case 3:
				add_udp(self->tb, 0, 0xffff, lo, hi, 0, v);
				break;
			case 4:
				add_icmp(self->tb, 8, 0, 0xff, false, v);
				break;
			case 6:
			case 7:
				add_l4_addr(self->tb, kind == 6 ? IPPROTO_TCP : IPPROTO_UDP, group & 1,
					    rand_addr(seed, a), plens[rand_r(seed) % 6], lo, hi, v);
				break;
			default:
				/* a rule that only counts, breaking runs */
				tb_rule(self->tb, NULL);
				tb_jump(self->tb, "sub", false);
				break;
			}
		}
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, rand_r(seed) % 2 ? V_ACCEPT : V_DROP);
	tb_chain(self->tb, "sub");
	for (i = 0; i < 6; i++)
		add_addr(self->tb, true, rand_addr(seed, a), plens[rand_r(seed) % 6],
			 verdicts[rand_r(seed) % 2 + 1]);
	for (i = 0; i < 5; i++)
		add_udp(self->tb, 0, 0xffff, i, i, 0, V_RETURN);
	tb_chain_end(self->tb);

	err = tb_finish(self->tb, &repl);
	if (err)
		return err;
	table_free(self->t);
	self->t = NULL;
	return table_from_replace(&self->ctx, &family_ipv4, &repl, self->tb->blob, &self->t);
}

/*
 * A run of @n jumps of one random shape (-d addr/32, -p tcp|udp --dport,
 * or both; TCP and UDP rules mixed in half the runs) to @nchains chains
 * from c@first, from a small key space so that some keys
 * repeat (the run then folds only up to the repeat).
 */
static void add_jump_run(struct tb *tb, unsigned int *seed, int n, int first, int nchains)
{
	int shape = rand_r(seed) % 3, mixed = rand_r(seed) % 2, i;
	uint8_t proto = rand_r(seed) % 2 ? IPPROTO_TCP : IPPROTO_UDP;
	char a[32], c[16];

	for (i = 0; i < n; i++) {
		uint16_t port = rand_r(seed) % 26;

		/* Half the runs mix TCP and UDP rules, as KUBE-SERVICES does. */
		if (mixed)
			proto = rand_r(seed) % 2 ? IPPROTO_TCP : IPPROTO_UDP;

		snprintf(c, sizeof(c), "c%d", first + rand_r(seed) % nchains);
		add_l4_addr_to(tb, shape ? proto : 0, true, shape == 1 ? NULL : rand_addr(seed, a),
			       32, port, port + (rand_r(seed) % 6 ? 0 : 1), 0, c);
	}
}

/* The IPv6 address a test's IPv4 address a.b.c.d stands for: fd00::a.b.c.d. */
static void addr6_of(const uint8_t *a4, uint8_t *a6)
{
	memset(a6, 0, 16);
	a6[0] = 0xfd;
	memcpy(a6 + 12, a4, 4);
}

/*
 * Map one address and its mask of an IPv4 rule (model bytes, the address
 * in the first 4) to the IPv6 rule's: prefix length p becomes 96 + p.
 */
static void map_prefix6(uint8_t *addr, uint8_t *msk)
{
	uint8_t a4[4], m4[4];

	memcpy(a4, addr, 4);
	memcpy(m4, msk, 4);
	memset(msk, 0, 16);
	memset(addr, 0, 16);
	if (!m4[0] && !m4[1] && !m4[2] && !m4[3])
		return;
	addr6_of(a4, addr);
	memset(msk, 0xff, 12);
	memcpy(msk + 12, m4, 4);
}

/* Index of the entry at blob offset @off among the @n entries at @offs, or -1. */
static long entry_at(const uint32_t *offs, uint32_t n, uint32_t off)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (offs[mid] == off)
			return mid;
		if (offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The finished table of @tb (@repl) as the same ip6_tables table: every
 * address a.b.c.d/p becomes fd00::a.b.c.d/(96 + p), -p compares the
 * protocol as ip6tables' (IP6T_F_PROTO), matches and targets are copied
 * and jumps, hook entries and underflows move with their entries. The
 * blob in *@blob6 (to free), its header in @repl6: 0 or -errno.
 */
static int tb_to_ipv6(const struct tb *tb, const struct ipt_replace *repl,
		      unsigned char **blob6, struct ipt_replace *repl6)
{
	const uint32_t grow = sizeof(struct ip6t_entry) - sizeof(struct ipt_entry);
	uint32_t *offs = calloc(tb->n, sizeof(*offs)), o, k, h;
	unsigned char *out = calloc(1, tb->size + tb->n * grow);
	int err = -EINVAL;

	if (!offs || !out) {
		err = -ENOMEM;
		goto fail;
	}
	for (o = 0, k = 0; o < tb->size && k < tb->n; k++) {
		offs[k] = o;
		o += ((const struct ipt_entry *)(tb->blob + o))->next_offset;
	}
	if (o != tb->size || k != tb->n)
		goto fail;
	for (k = 0; k < tb->n; k++) {
		const struct ipt_entry *e = (const void *)(tb->blob + offs[k]);
		struct ip6t_entry *e6 = (void *)(out + offs[k] + k * grow);
		struct xt_standard_target *t;
		struct rule_ip m;

		family_ipv4.to_model(&e->ip, &m);
		map_prefix6(m.src, m.smsk);
		map_prefix6(m.dst, m.dmsk);
		family_ipv6.from_model(&m, &e6->ipv6);
		e6->target_offset = e->target_offset + grow;
		e6->next_offset = e->next_offset + grow;
		memcpy(e6->elems, e->elems, e->next_offset - sizeof(*e));
		t = (void *)((unsigned char *)e6 + e6->target_offset);
		if (!t->target.u.user.name[0] && t->verdict >= 0) {
			long j = entry_at(offs, tb->n, t->verdict);

			if (j < 0)
				goto fail;
			t->verdict += j * grow;
		}
	}
	*repl6 = *repl;
	repl6->size = tb->size + tb->n * grow;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		long he, uf;

		if (!(repl->valid_hooks & 1u << h))
			continue;
		he = entry_at(offs, tb->n, repl->hook_entry[h]);
		uf = entry_at(offs, tb->n, repl->underflow[h]);
		if (he < 0 || uf < 0)
			goto fail;
		repl6->hook_entry[h] += he * grow;
		repl6->underflow[h] += uf * grow;
	}
	free(offs);
	*blob6 = out;
	return 0;
fail:
	free(offs);
	free(out);
	return err;
}

/* self->t from the finished @tb, @repl: as it is, or with @v6 as the same ip6_tables table. */
static int table_of(FIXTURE_DATA(cg) *self, const struct ipt_replace *repl, bool v6)
{
	struct ipt_replace repl6;
	unsigned char *blob6;
	int err;

	table_free(self->t);
	self->t = NULL;
	if (!v6)
		return table_from_replace(&self->ctx, &family_ipv4, repl, self->tb->blob, &self->t);
	err = tb_to_ipv6(self->tb, repl, &blob6, &repl6);
	if (err)
		return err;
	err = table_from_replace(&self->ctx, &family_ipv6, &repl6, blob6, &self->t);
	free(blob6);
	return err;
}

/*
 * A random OUTPUT table with runs of jumps to user chains, at the top and
 * inside a chain (frames under the run), chains that RETURN, decide, jump
 * on and hold runs of their own: self->t; with @v6 the same ip6_tables
 * table (tb_to_ipv6()).
 */
static int random_jump_table(FIXTURE_DATA(cg) *self, unsigned int *seed, bool v6)
{
	static const int verdicts[] = { V_DROP, V_ACCEPT, V_RETURN };
	struct ipt_replace repl;
	int i, k, err;
	char a[32], c[16];

	tb_begin_output(self->tb);
	add_addr(self->tb, false, rand_addr(seed, a), 32, V_DROP);
	add_jump_run(self->tb, seed, 4 + rand_r(seed) % 12, 0, 6);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "outer", false);
	add_jump_run(self->tb, seed, 2 + rand_r(seed) % 6, 0, 6);
	add_addr(self->tb, true, rand_addr(seed, a), 16, verdicts[rand_r(seed) % 2]);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, rand_r(seed) % 2 ? V_ACCEPT : V_DROP);
	tb_chain(self->tb, "outer");
	add_addr(self->tb, true, rand_addr(seed, a), 24, V_RETURN);
	add_jump_run(self->tb, seed, 4 + rand_r(seed) % 12, 0, 6);
	add_udp(self->tb, 0, 0xffff, 3, 3, 0, verdicts[rand_r(seed) % 3]);
	tb_chain_end(self->tb);
	for (k = 0; k < 6; k++) {
		snprintf(c, sizeof(c), "c%d", k);
		tb_chain(self->tb, c);
		for (i = rand_r(seed) % 4; i > 0; i--)
			add_addr(self->tb, rand_r(seed) % 2, rand_addr(seed, a), 8 * (1 + rand_r(seed) % 4),
				 verdicts[rand_r(seed) % 3]);
		if (k < 3 && rand_r(seed) % 2) {
			/* Chains that jump on; c5 has a run of its own. */
			tb_rule(self->tb, NULL);
			snprintf(c, sizeof(c), "c%d", k + 3);
			tb_jump(self->tb, c, rand_r(seed) % 4 == 0);
		}
		if (k == 5)
			/* c3 and c4 jump nowhere: no loop. */
			add_jump_run(self->tb, seed, 4, 3, 2);
		tb_chain_end(self->tb);
	}
	err = tb_finish(self->tb, &repl);
	if (err)
		return err;
	return table_of(self, &repl, v6);
}

/*
 * A random IPv6 packet for compare_variants(): the addresses of
 * rand_addr() as tb_to_ipv6() maps them; TCP, UDP or ICMPv6 behind no
 * extension header, hop-by-hop or destination options, a first or a later
 * fragment; or a walk that fails (ipv6_find_hdr() with fragoff 0: a later
 * fragment followed by destination options, an extension header of which
 * the packet holds less than its first 2 bytes); now and then cut short.
 */
static void rand_pkt6(unsigned int *seed, struct pkt *p)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6 };
	uint8_t nh = protos[rand_r(seed) % 3], l4[20] = {}, opts[8] = { 0, 0, 1, 4 };
	char s[32], d[32], s6[48], d6[48];
	int k = rand_r(seed) % 14;

	rand_addr(seed, s);
	rand_addr(seed, d);
	snprintf(s6, sizeof(s6), "fd00::%s", s);
	snprintf(d6, sizeof(d6), "fd00::%s", d);
	pkt_ip6(p, nh, s6, d6);
	switch (k) {
	case 0:
	case 1:
		p->d[6] = k ? IPPROTO_DSTOPTS : IPPROTO_HOPOPTS;
		opts[0] = nh;
		pkt6_put(p, opts, sizeof(opts));
		break;
	case 2:
	case 3:
		p->d[6] = IPPROTO_FRAGMENT;
		pkt6_frag(p, nh, k == 2 ? 0 : 1 + rand_r(seed) % 3, rand_r(seed) % 2);
		break;
	case 4:
		p->d[6] = IPPROTO_FRAGMENT;
		pkt6_frag(p, IPPROTO_DSTOPTS, 1 + rand_r(seed) % 3, true);
		opts[0] = nh;
		pkt6_put(p, opts, sizeof(opts));
		break;
	case 5:
		p->d[6] = rand_r(seed) % 2 ? IPPROTO_DSTOPTS : IPPROTO_FRAGMENT;
		opts[0] = nh;
		pkt6_put(p, opts, rand_r(seed) % 2);
		return;
	}
	l4[1] = rand_r(seed) % 6;
	l4[3] = rand_r(seed) % 26;
	l4[12] = 5 << 4;
	pkt6_put(p, l4, sizeof(l4));
	if (!(rand_r(seed) % 10)) {
		p->len = 40 + rand_r(seed) % (p->len - 40);
		p->d[4] = (p->len - 40) >> 8;
		p->d[5] = (p->len - 40) & 0xff;
	}
}

/* How a table is built: folding threshold, segment size (0: one program), header reads. */
struct variant {
	uint32_t fold_min, fold_jump_min, seg_insns;
	bool slow_reads;
	unsigned int insns, nsegs, nsets;
};

/* A random IPv4 packet for compare_variants(), short and fragmented ones too. */
static void rand_pkt4(unsigned int *seed, struct pkt *p)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	char s[32], d[32];

	pkt_ip(p, protos[rand_r(seed) % 3], rand_addr(seed, s), rand_addr(seed, d), 0, 20);
	p->d[20] = 0;
	p->d[21] = rand_r(seed) % 6;
	p->d[22] = 0;
	p->d[23] = rand_r(seed) % 26;
	p->d[32] = 5 << 4;
	if (!(rand_r(seed) % 8))
		p->d[7] = rand_r(seed) % 3;
	if (!(rand_r(seed) % 10))
		p->len = 20 + rand_r(seed) % 20;
}

/*
 * Build self->t's OUTPUT both ways, send the same 60 random packets through
 * both, and expect the same verdicts and the same counters for every rule.
 */
static void compare_variants(struct __test_metadata *_metadata, FIXTURE_DATA(cg) *self,
			     unsigned int *seed, struct variant v[2], unsigned long *packets)
{
	int prog[2] = { -1, -1 }, cfd[2] = { -1, -1 }, cont[2] = { -1, -1 };
	int i, j, k;

	self->hook = NF_INET_LOCAL_OUT;
	for (j = 0; j < 2; j++) {
		self->slow_reads = v[j].slow_reads;
		self->fold_jump_min = v[j].fold_jump_min;
		ASSERT_EQ(0, load_variant(self, NF_INET_LOCAL_OUT, v[j].fold_min, v[j].seg_insns,
					  &prog[j], &cfd[j], &cont[j]));
		v[j].insns = self->insns;
		v[j].nsegs = self->nsegs;
		v[j].nsets = self->nsets;
	}
	for (k = 0; k < 60; k++) {
		struct pkt p;
		int r[2];

		if (self->t->fam == &family_ipv6)
			rand_pkt6(seed, &p);
		else
			rand_pkt4(seed, &p);
		for (j = 0; j < 2; j++) {
			self->prog_fd = prog[j];
			r[j] = run(self, &p);
		}
		EXPECT_EQ(r[0], r[1]);
		(*packets)++;
	}
	for (i = 0; i < (int)self->t->num_entries; i++) {
		struct xt_counters c[2];

		for (j = 0; j < 2; j++) {
			self->cnt_fd = cfd[j];
			c[j] = cnt(self, i);
		}
		EXPECT_EQ(c[0].pcnt, c[1].pcnt);
		EXPECT_EQ(c[0].bcnt, c[1].bcnt);
	}
	self->prog_fd = -1;
	self->cnt_fd = -1;
	for (j = 0; j < 2; j++) {
		close(prog[j]);
		close(cfd[j]);
		if (cont[j] >= 0)
			close(cont[j]);
	}
}

/*
 * Folded and unfolded programs of random tables full of runs judge random
 * packets identically, counters included. The unfolded code generator is
 * the one the verdict differential test checks against ip_tables.
 */
TEST_F(cg, fold_equals_unfolded)
{
	unsigned int seed = 42, round, rounds = 40;
	unsigned long packets = 0, folded_sets = 0;

	/* CG_FOLD_ROUNDS=n for a longer run. */
	if (getenv("CG_FOLD_ROUNDS"))
		rounds = atoi(getenv("CG_FOLD_ROUNDS"));
	if (getenv("CG_FOLD_SEED"))
		seed = atoi(getenv("CG_FOLD_SEED"));
	for (round = 0; round < rounds; round++) {
		struct variant v[2] = { { .fold_min = 0 }, { .fold_min = 2 } };

		ASSERT_EQ(0, random_run_table(self, &seed));
		compare_variants(_metadata, self, &seed, v, &packets);
		EXPECT_EQ(0, v[0].nsets);
		folded_sets += v[1].nsets;
	}
	TH_LOG("%lu packets, %lu folded runs", packets, folded_sets);
	EXPECT_LT(40, folded_sets);
}

/*
 * Headers read through skb->data (linear skbs, every BPF_PROG_TEST_RUN
 * packet) and through dynptr slices (what a non-linear skb takes) give the
 * same verdicts and counters, short and fragmented packets included.
 */
TEST_F(cg, slow_reads_equal_linear_reads)
{
	unsigned int seed = 11, round, rounds = 20;
	unsigned long packets = 0;

	for (round = 0; round < rounds; round++) {
		struct variant v[2] = {
			{ .fold_min = round % 2 ? 2 : 0 },
			{ .fold_min = round % 2 ? 2 : 0, .slow_reads = true },
		};

		ASSERT_EQ(0, random_run_table(self, &seed));
		compare_variants(_metadata, self, &seed, v, &packets);
	}
	TH_LOG("%lu packets", packets);
}

/*
 * A chain cut into segments (tail calls between programs, a fresh prologue
 * in each) judges and counts exactly as one program, folded or not, with
 * user chains, RETURNs and policies on both sides of every cut.
 */
TEST_F(cg, segments_equal_one_program)
{
	unsigned int seed = 7, round, rounds = 30;
	unsigned long packets = 0, segs = 0;

	for (round = 0; round < rounds; round++) {
		struct variant v[2] = {
			{ .fold_min = round % 2 ? 2 : 0 },
			{ .fold_min = round % 2 ? 2 : 0, .seg_insns = 150 + round * 10 },
		};

		ASSERT_EQ(0, random_run_table(self, &seed));
		compare_variants(_metadata, self, &seed, v, &packets);
		EXPECT_EQ(1, v[0].nsegs);
		segs += v[1].nsegs;
	}
	TH_LOG("%lu packets, %lu segments in %u tables", packets, segs, rounds);
	EXPECT_LT(3 * rounds, segs);
}

/*
 * @rounds random tables of random_jump_table() (@ip6: ip6_tables ones),
 * each built with its runs of jumps inlined and folded (one program, or
 * many small ones every other round), the same packets through both:
 * verdicts and counters equal. The programs and the sets of runs of jumps
 * of the folded builds into *@progs and *@jump_sets.
 */
static void jump_run_rounds(struct __test_metadata *_metadata, FIXTURE_DATA(cg) *self,
			    unsigned int seed, bool ip6, unsigned int rounds,
			    unsigned long *progs, unsigned long *jump_sets)
{
	unsigned long packets = 0;
	unsigned int round;

	for (round = 0; round < rounds; round++) {
		struct variant v[2] = {
			{ .fold_min = 2 },
			{ .fold_min = 2, .fold_jump_min = 2, .seg_insns = round % 2 ? 0 : 100 },
		};

		ASSERT_EQ(0, random_jump_table(self, &seed, ip6));
		compare_variants(_metadata, self, &seed, v, &packets);
		EXPECT_EQ(1, v[0].nsegs);
		*progs += v[1].nsegs;
		*jump_sets += v[1].nsets - v[0].nsets;
	}
	TH_LOG("%lu packets, %lu programs, %lu sets of runs of jumps in %u tables", packets,
	       *progs, *jump_sets, rounds);
}

/*
 * Runs of jumps folded into a lookup and a tail call into the programs
 * that hold their chains (one, or many with small segments) judge and
 * count exactly as the inlined jumps, chains that RETURN included.
 */
TEST_F(cg, jump_runs_equal_inlined_jumps)
{
	unsigned long progs = 0, jump_sets = 0;

	jump_run_rounds(_metadata, self, 5, false, 40, &progs, &jump_sets);
	EXPECT_LT(3 * 40, progs);
}

/*
 * The same for ip6_tables tables (runs of jumps by -p tcp and -p udp
 * mixed in half of them), on IPv6 packets behind extension headers,
 * fragments, headers cut short and walks that fail.
 */
TEST_F_TIMEOUT(cg, jump_runs6_equal_inlined_jumps, 300)
{
	unsigned long progs = 0, jump_sets = 0;

	jump_run_rounds(_metadata, self, 6, true, 40, &progs, &jump_sets);
	EXPECT_LT(3 * 40, progs);
	EXPECT_LT(2 * 40, jump_sets);
}

/* Service @i of jump_run6_tcp_and_udp: its address, protocol, port and chain. */
static void kube6_svc(int i, int n, char *addr, uint8_t *proto, uint16_t *port, const char **chain)
{
	static const char *const chains[] = { "ACC", "RET", "DRP" };

	/* The last two are one DNS service: TCP and UDP port 53 of one address. */
	if (i >= n - 2)
		sprintf(addr, "fd00::10.96.1.1");
	else
		sprintf(addr, "fd00::10.96.0.%d", i + 1);
	*proto = i % 3 == 2 || i == n - 1 ? IPPROTO_UDP : IPPROTO_TCP;
	*port = *proto == IPPROTO_UDP || i == n - 2 ? 53 : 80;
	*chain = chains[(i / 3) % 3];
}

/*
 * ip6tables' KUBE-SERVICES: TCP and UDP services interleaved fold into one
 * run of jumps (CG_FOLD_JUMP_MIN), and each packet is judged and counted
 * as ip6t_do_table() would: the rule of its address, protocol and port;
 * a fragment or a header cut short as tcp_mt() and udp_mt() take them,
 * hotdropping only for an address of a rule of the packet's protocol; a
 * failed extension header walk (ipv6_find_hdr() < 0 with fragoff 0)
 * hotdrops for the address of any rule of the run, of either protocol, as
 * ip6_packet_match() tests the addresses first, and goes on after the run
 * for any other address.
 */
TEST_F(cg, jump_run6_tcp_and_udp)
{
	const int n = 99;
	/* Rules: OUTPUT's jump, its policy, SERVICES' head, its n services, its end, chains. */
	const uint32_t policy = OUT0 + 1, svc0 = OUT0 + 3, end = svc0 + n;
	const uint32_t acc = end + 2, ret = end + 5, drp = end + 7;
	uint64_t *want_pk, *want_by;
	struct xt_counters *got;
	const char *chain;
	uint16_t port;
	uint8_t proto;
	char a[48];
	struct pkt p;
	uint32_t k;
	int i;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(self->tb, "SERVICES");
	for (i = 0; i < n; i++) {
		kube6_svc(i, n, a, &proto, &port, &chain);
		/* The IPv4 form of the address: build_hook() maps it back. */
		add_l4_addr_to(self->tb, proto, true, a + strlen("fd00::"), 32, port, port, 0,
			       chain);
	}
	tb_chain_end(self->tb);
	tb_chain(self->tb, "ACC");
	tb_rule(self->tb, NULL);
	tb_verdict(self->tb, V_ACCEPT);
	tb_chain_end(self->tb);
	tb_chain(self->tb, "RET");
	tb_chain_end(self->tb);
	tb_chain(self->tb, "DRP");
	tb_rule(self->tb, NULL);
	tb_verdict(self->tb, V_DROP);
	tb_chain_end(self->tb);
	self->fold_jump_min = CG_FOLD_JUMP_MIN;
	self->seg_insns = CG_SEG_INSNS;
	BUILD6(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions in %u programs, %u sets", self->insns, self->nsegs, self->nsets);
	/* One lookup for the run, a tail call into the program with its chains. */
	EXPECT_LE(1, self->nsets);
	EXPECT_LT(1, self->nsegs);
	want_pk = calloc(self->t->num_entries, sizeof(*want_pk));
	want_by = calloc(self->t->num_entries, sizeof(*want_by));
	got = calloc(self->t->num_entries, sizeof(*got));
	ASSERT_NE(NULL, want_pk);
	ASSERT_NE(NULL, want_by);
	ASSERT_NE(NULL, got);

#define SVC6(i, nh) (kube6_svc(i, n, a, &proto, &port, &chain), pkt_ip6(&p, nh, "fd00::1", a))
#define COUNT6(r) (want_pk[r]++, want_by[r] += p.len)
/* OUTPUT's jump to SERVICES counts every packet. */
#define RUN6(verdict) do { EXPECT_PKT(verdict, &p); COUNT6(OUT0); } while (0)
	/* Each service by its own protocol and port: its rule, then its chain. */
	for (i = 0; i < n; i++) {
		SVC6(i, proto);
		pkt6_l4(&p, proto, port);
		COUNT6(OUT0);
		COUNT6(svc0 + i);
		if (!strcmp(chain, "ACC")) {
			EXPECT_EQ(NF_ACCEPT, run(self, &p)) TH_LOG("service %d", i);
			COUNT6(acc);
		} else if (!strcmp(chain, "DRP")) {
			EXPECT_EQ(NF_DROP, run(self, &p)) TH_LOG("service %d", i);
			COUNT6(drp);
		} else {
			/* RET returns: on after the run, SERVICES returns, the policy. */
			EXPECT_EQ(NF_ACCEPT, run(self, &p)) TH_LOG("service %d", i);
			COUNT6(ret);
			COUNT6(end);
			COUNT6(policy);
		}
	}
	/* The other protocol to a service's address and port: no rule matches. */
	SVC6(2, IPPROTO_TCP);
	pkt6_l4(&p, IPPROTO_TCP, 53);
	RUN6(NF_ACCEPT);
	COUNT6(end);
	COUNT6(policy);
	SVC6(0, IPPROTO_UDP);
	pkt6_l4(&p, IPPROTO_UDP, 80);
	RUN6(NF_ACCEPT);
	COUNT6(end);
	COUNT6(policy);
	/* A first fragment, behind hop-by-hop options: matched as a whole packet. */
	SVC6(0, IPPROTO_FRAGMENT);
	pkt6_frag(&p, IPPROTO_TCP, 0, true);
	pkt6_l4(&p, IPPROTO_TCP, 80);
	RUN6(NF_ACCEPT);
	COUNT6(svc0);
	COUNT6(acc);
	SVC6(2, IPPROTO_HOPOPTS);
	pkt6_put(&p, (const uint8_t[8]){ IPPROTO_UDP, 0, 1, 4 }, 8);
	pkt6_l4(&p, IPPROTO_UDP, 53);
	RUN6(NF_ACCEPT);
	COUNT6(svc0 + 2);
	COUNT6(acc);
	/* Later fragments never match (no hotdrop: IPv6's offset is never 1). */
	for (k = 1; k < 3; k++) {
		SVC6(k == 1 ? 0 : 2, IPPROTO_FRAGMENT);
		pkt6_frag(&p, k == 1 ? IPPROTO_TCP : IPPROTO_UDP, k, true);
		pkt6_l4(&p, k == 1 ? IPPROTO_TCP : IPPROTO_UDP, port);
		RUN6(NF_ACCEPT);
		COUNT6(end);
		COUNT6(policy);
	}
	/* A header cut short: a hotdrop for an address of a rule of its protocol only. */
	SVC6(0, IPPROTO_TCP);
	pkt6_l4(&p, IPPROTO_TCP, 80);
	p.len -= 10;
	RUN6(NF_DROP);
	SVC6(2, IPPROTO_UDP);
	pkt6_put(&p, (const uint8_t[4]){ 0, 1, 0, 53 }, 4);
	RUN6(NF_DROP);
	SVC6(2, IPPROTO_TCP);
	pkt6_put(&p, (const uint8_t[10]){ 0, 1, 0, 53 }, 10);
	RUN6(NF_ACCEPT);
	COUNT6(end);
	COUNT6(policy);
	SVC6(0, IPPROTO_UDP);
	pkt6_put(&p, (const uint8_t[4]){ 0, 1, 0, 80 }, 4);
	RUN6(NF_ACCEPT);
	COUNT6(end);
	COUNT6(policy);
	/*
	 * The walk fails: a later fragment followed by destination options, a
	 * fragment header or destination options cut before their second
	 * byte. A hotdrop at the first rule with the packet's address, TCP or
	 * UDP; nothing counted.
	 */
	for (i = 0; i < 6; i++) {
		const int svcs[] = { 0, 2, 5, n - 1, n - 2, 7 };

		SVC6(svcs[i], i % 3 == 2 ? IPPROTO_DSTOPTS : IPPROTO_FRAGMENT);
		if (i % 3 == 0) {
			pkt6_frag(&p, IPPROTO_DSTOPTS, 1, true);
			pkt6_put(&p, (const uint8_t[8]){ IPPROTO_TCP }, 8);
			pkt6_l4(&p, IPPROTO_TCP, 80);
		} else {
			pkt6_put(&p, (const uint8_t[1]){ IPPROTO_TCP }, 1);
		}
		EXPECT_EQ(NF_DROP, run(self, &p)) TH_LOG("walk %d fails", i);
		COUNT6(OUT0);
	}
	/* The same to no service's address: on after the run. */
	for (i = 0; i < 2; i++) {
		pkt_ip6(&p, IPPROTO_FRAGMENT, "fd00::1", "fd00::10.96.9.9");
		if (i) {
			pkt6_frag(&p, IPPROTO_DSTOPTS, 1, true);
			pkt6_put(&p, (const uint8_t[8]){ IPPROTO_UDP }, 8);
			pkt6_l4(&p, IPPROTO_UDP, 53);
		} else {
			pkt6_put(&p, (const uint8_t[1]){ IPPROTO_TCP }, 1);
		}
		RUN6(NF_ACCEPT);
		COUNT6(end);
		COUNT6(policy);
	}
	/* Another protocol to a service's address. */
	SVC6(0, IPPROTO_ICMPV6);
	pkt6_put(&p, (const uint8_t[8]){ 128 }, 8);
	RUN6(NF_ACCEPT);
	COUNT6(end);
	COUNT6(policy);
#undef SVC6
#undef COUNT6
#undef RUN6
	ASSERT_EQ(0, codegen_counters_sum(self->cnt_fd, self->t->num_entries, got));
	for (k = 0; k < self->t->num_entries; k++) {
		EXPECT_EQ(want_pk[k], got[k].pcnt) TH_LOG("rule %u", k);
		EXPECT_EQ(want_by[k], got[k].bcnt) TH_LOG("rule %u", k);
	}
	free(want_pk);
	free(want_by);
	free(got);
}

/*
 * kube-proxy's shape: user chain SERVICES, @n rules -d 10.96.(i / 250).(i %
 * 250 + 1) -p tcp --dport 80 -j SVC(i % @nchains), then (with @mark an
 * empty chain MARK and) the @nchains chains SVCk: a jump to MARK if @mark,
 * then -s 10.1.1.(k % 250) -j ACCEPT.
 */
static void tb_services(struct tb *tb, int n, int nchains, bool mark)
{
	char a[32], c[16];
	int i;

	tb_chain(tb, "SERVICES");
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "10.96.%d.%d", i / 250, i % 250 + 1);
		snprintf(c, sizeof(c), "SVC%d", i % nchains);
		add_l4_addr_to(tb, IPPROTO_TCP, true, a, 32, 80, 80, 0, c);
	}
	tb_chain_end(tb);
	if (mark) {
		tb_chain(tb, "MARK");
		tb_chain_end(tb);
	}
	for (i = 0; i < nchains; i++) {
		snprintf(c, sizeof(c), "SVC%d", i);
		tb_chain(tb, c);
		if (mark) {
			tb_rule(tb, NULL);
			tb_jump(tb, "MARK", false);
		}
		snprintf(a, sizeof(a), "10.1.1.%d", i % 250);
		add_addr(tb, false, a, 32, V_ACCEPT);
		tb_chain_end(tb);
	}
}

/*
 * kube-proxy's pattern at 10k services: KUBE-SERVICES jumps by
 * destination and port to a chain per service (here 250 chains, each a
 * mark-like jump and an ACCEPT by source). One lookup and one tail call
 * find the service: every program stays small, the first and the last
 * service and a miss judge and count as ip_tables would.
 */
TEST_F(cg, jump_run_10k_services)
{
	const int n = 10000, nchains = 250;
	struct pkt p;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	tb_services(self->tb, n, nchains, true);
	self->fold_jump_min = CG_FOLD_JUMP_MIN;
	self->seg_insns = CG_SEG_INSNS;
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions in %u programs", self->insns, self->nsegs);
	EXPECT_LT(1, self->nsegs);
	/* Each service costs its chain's code once, in one of the leaves. */
	EXPECT_GT(100u * n, self->insns);
	/* The first service (chain SVC0 accepts 10.1.1.0): rule OUT0 + 3 (after SERVICES' head). */
	pkt_tcp(&p, 1000, 80, 0x02);
	inet_pton(AF_INET, "10.1.1.0", p.d + 12);
	inet_pton(AF_INET, "10.96.0.1", p.d + 16);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3, 1, p.len);
	/* The last one (chain SVC249 by 10.1.1.249). */
	inet_pton(AF_INET, "10.1.1.249", p.d + 12);
	inet_pton(AF_INET, "10.96.39.250", p.d + 16);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3 + n - 1, 1, p.len);
	/* A service whose chain returns: on after the run, the policy drops. */
	inet_pton(AF_INET, "10.1.1.7", p.d + 12);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 3 + n - 1, 2, 2 * p.len);
	/* No service: every rule of the run fails. */
	inet_pton(AF_INET, "10.96.40.1", p.d + 16);
	EXPECT_PKT(NF_DROP, &p);
	/* SERVICES' end: the two packets that went on, and the policy twice. */
	EXPECT_CNT(OUT0 + 3 + n, 2, 2 * p.len);
	EXPECT_CNT(OUT0 + 1, 2, 2 * p.len);
}

/*
 * A run of jumps that INPUT, FORWARD and OUTPUT all reach (kube-proxy's
 * KUBE-SERVICES): the programs that hold its chains come out the same in
 * the three hooks and are loaded once (codegen_load_table()), and a chain
 * that returns goes on in the hook the packet is at: FORWARD, whose jump
 * sits one rule lower, drops by its policy; INPUT and OUTPUT accept by
 * theirs. Every hook's counters are its own.
 */
TEST_F(cg, jump_run_leaves_loaded_once_for_all_hooks)
{
	static const unsigned int hooks[] = { NF_INET_LOCAL_IN, NF_INET_FORWARD,
					      NF_INET_LOCAL_OUT };
	/* Each hook's jump to SERVICES and its policy (FORWARD has a rule before). */
	static const uint32_t jump[] = { 0, 3, 5 }, policy[] = { 1, 4, 6 };
	const int n = 300, nchains = 20;
	const char *names[NF_INET_NUMHOOKS] = { "t_in", "t_in", "t_fwd", "t_out", "t_out" };
	struct cg_hook_load l = {
		.bi = &self->bi, .progs_fd = -1, .runs_fd = self->runs_fd,
		.fold_min = CG_FOLD_MIN, .fold_jump_min = CG_FOLD_JUMP_MIN,
		/* Small programs: several leaves programs per hook. */
		.seg_insns = 2048,
	};
	int fds[NF_INET_NUMHOOKS];
	uint32_t svc0, ret;
	struct ipt_replace repl;
	unsigned int h;
	struct pkt p;
	int i;

	memset(self->tb, 0, offsetof(struct tb, fix));
	tb_hook(self->tb, NF_INET_LOCAL_IN);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_hook(self->tb, NF_INET_FORWARD);
	add_addr(self->tb, false, "10.9.9.9", 32, V_DROP);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_FORWARD, V_DROP);
	tb_hook(self->tb, NF_INET_LOCAL_OUT);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_services(self->tb, n, nchains, false);
	ASSERT_EQ(0, tb_finish(self->tb, &repl));
	ASSERT_EQ(0, table_from_replace(&self->ctx, &family_ipv4, &repl, self->tb->blob,
					&self->t));
	/* SERVICES' rules: after its ERROR head, which follows OUTPUT's policy. */
	svc0 = policy[2] + 2;
	ret = svc0 + n;
	self->cnt_fd = codegen_counters_create(self->t->num_entries);
	ASSERT_LE(0, self->cnt_fd);
	l.counters_fd = self->cnt_fd;
	ASSERT_EQ(0, codegen_load_table(&l, self->t, self->t->valid_hooks, names, fds));
	self->cont_fd = l.cont_fd;
	TH_LOG("%u programs, %u generated, %u loaded; %u instructions, %u loaded", l.nsegs,
	       l.ngen, l.nloaded, l.insns, l.insns_loaded);
	/*
	 * Each hook has its own first program (the run's lookup) and the one
	 * after the run; the leaves are the same in the three hooks: loaded
	 * once, not three times.
	 */
	EXPECT_LT(3 * 2 + 1, l.nloaded);
	EXPECT_EQ(l.nsegs - 3 * 2, 3 * (l.nloaded - 3 * 2));
	EXPECT_GT(l.insns * 2 / 3, l.insns_loaded);
	/* INPUT's leaves are not even generated again for FORWARD and OUTPUT. */
	EXPECT_EQ(l.nloaded, l.ngen);

	for (i = 0; i < 3; i++) {
		h = hooks[i];
		ASSERT_LE(0, fds[h]);
		if (self->prog_fd >= 0)
			close(self->prog_fd);
		self->prog_fd = fds[h];
		fds[h] = -1;
		self->hook = h;
		/* Service 0 by its chain's own source: accepted in the chain. */
		pkt_tcp(&p, 1000, 80, 0x02);
		inet_pton(AF_INET, "10.1.1.0", p.d + 12);
		inet_pton(AF_INET, "10.96.0.1", p.d + 16);
		EXPECT_PKT(NF_ACCEPT, &p);
		EXPECT_CNT(jump[i], 1, p.len);
		EXPECT_CNT(svc0, i + 1, (i + 1) * p.len);
		/* The last service from another source: its chain returns. */
		inet_pton(AF_INET, "10.1.1.200", p.d + 12);
		inet_pton(AF_INET, "10.96.1.50", p.d + 16);
		EXPECT_PKT(h == NF_INET_FORWARD ? NF_DROP : NF_ACCEPT, &p);
		EXPECT_CNT(svc0 + n - 1, i + 1, (i + 1) * p.len);
		EXPECT_CNT(ret, i + 1, (i + 1) * p.len);
		EXPECT_CNT(policy[i], 1, p.len);
		EXPECT_CNT(jump[i], 2, 2 * p.len);
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		if (fds[h] >= 0)
			close(fds[h]);
}

/*
 * In a nat table a program's gate depends on its hook's manip type
 * (gen_nat_gate()): a run of jumps that PREROUTING, INPUT and OUTPUT reach
 * has leaves for DST (PREROUTING's, taken by OUTPUT without generating
 * them again) and leaves of INPUT's own (SRC), never PREROUTING's.
 */
TEST_F(cg, jump_run_leaves_in_nat_by_manip_type)
{
	static const unsigned int hooks[] = { NF_INET_PRE_ROUTING, NF_INET_LOCAL_IN,
					      NF_INET_LOCAL_OUT, NF_INET_POST_ROUTING };
	const char *names[NF_INET_NUMHOOKS] = { "t_pre", "t_in", "t_fwd", "t_out", "t_post" };
	struct cg_hook_load l = {
		.bi = &self->bi, .progs_fd = -1, .runs_fd = self->runs_fd,
		.fold_min = CG_FOLD_MIN, .fold_jump_min = CG_FOLD_JUMP_MIN, .seg_insns = 2048,
	};
	int fds[NF_INET_NUMHOOKS];
	struct ipt_replace repl;
	uint32_t leaves, per_hook;
	unsigned int i, h;

	if (!self->bi.ct_ok)
		SKIP(return, "this kernel's BTF has no struct nf_conn");
	memset(self->tb, 0, offsetof(struct tb, fix));
	for (i = 0; i < 4; i++) {
		tb_hook(self->tb, hooks[i]);
		if (hooks[i] != NF_INET_POST_ROUTING) {
			tb_rule(self->tb, NULL);
			tb_jump(self->tb, "SERVICES", false);
		}
		tb_policy(self->tb, hooks[i], V_ACCEPT);
	}
	tb_services(self->tb, 300, 20, false);
	ASSERT_EQ(0, tb_finish(self->tb, &repl));
	strcpy(repl.name, "nat");
	ASSERT_EQ(0, table_from_replace(&self->ctx, &family_ipv4, &repl, self->tb->blob,
					&self->t));
	self->cnt_fd = codegen_counters_create(self->t->num_entries);
	ASSERT_LE(0, self->cnt_fd);
	l.counters_fd = self->cnt_fd;
	ASSERT_EQ(0, codegen_load_table(&l, self->t, self->t->valid_hooks, names, fds));
	self->cont_fd = l.cont_fd;
	TH_LOG("%u programs, %u generated, %u loaded", l.nsegs, l.ngen, l.nloaded);
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		if (fds[h] >= 0)
			close(fds[h]);
	/*
	 * Three hooks with the run: each its first program and the one after
	 * the run, and the leaves; POSTROUTING one program.
	 */
	ASSERT_EQ(0, (l.nsegs - 3 * 2 - 1) % 3);
	per_hook = (l.nsegs - 3 * 2 - 1) / 3;
	leaves = per_hook;
	EXPECT_LT(0, leaves);
	/* Generated and loaded: every hook's own two, POSTROUTING's, DST's and SRC's leaves. */
	EXPECT_EQ(3 * 2 + 1 + 2 * leaves, l.ngen);
	EXPECT_EQ(l.ngen, l.nloaded);
}

/* More segments than tail calls allow: a clear -E2BIG, nothing loaded. */
/* Open file descriptors of this process. */
static int count_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

/*
 * The programs of a hook are verified in parallel (codegen_load.c): when
 * one in the middle fails, that one is reported, with the verifier's log,
 * and neither the programs loaded beside it nor their maps stay open.
 */
TEST_F(cg, a_failing_segment_among_parallel_loads)
{
	static char log[1 << 20];
	struct cg_hook_load l = {
		.bi = &self->bi, .progs_fd = -1, .runs_fd = self->runs_fd, .fold_min = 0,
		.seg_insns = 80, .inject_fault = true, .fault_prog = 3,
		.log = log, .log_size = sizeof(log),
	};
	struct ipt_replace repl;
	int i, fds, err;

	tb_begin_output(self->tb);
	for (i = 0; i < 200; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.1.%d.%d", i / 256, i % 256);
		add_addr(self->tb, i % 2, a, 32, i % 3 ? V_DROP : V_ACCEPT);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	ASSERT_EQ(0, tb_finish(self->tb, &repl));
	ASSERT_EQ(0, table_from_replace(&self->ctx, &family_ipv4, &repl, self->tb->blob,
					&self->t));
	self->cnt_fd = codegen_counters_create(self->t->num_entries);
	ASSERT_LE(0, self->cnt_fd);
	l.counters_fd = self->cnt_fd;
	fds = count_fds();
	log[0] = '\0';
	err = codegen_load_hook(&l, self->t, NF_INET_LOCAL_OUT, "test_codegen");
	EXPECT_GT(0, err);
	EXPECT_LT(5, l.nsegs);
	EXPECT_EQ(3, l.err_prog);
	ASSERT_NE(NULL, l.err_stage);
	EXPECT_STREQ("verifier", l.err_stage);
	EXPECT_NE(NULL, strstr(log, "invalid read from stack"));
	EXPECT_EQ(-1, l.cont_fd);
	EXPECT_EQ(fds, count_fds());

	/* Without the fault the same table loads, every segment. */
	l.inject_fault = false;
	err = codegen_load_hook(&l, self->t, NF_INET_LOCAL_OUT, "test_codegen");
	ASSERT_LE(0, err);
	EXPECT_LE(0, l.cont_fd);
	close(err);
	close(l.cont_fd);
	EXPECT_EQ(fds, count_fds());
}

TEST_F(cg, segments_past_the_tail_call_limit)
{
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 1000; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.%d.%d", i / 256, i % 256);
		add_addr(self->tb, i % 2, a, 32, i % 3 ? V_DROP : V_ACCEPT);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	self->fold_min = 0;
	self->seg_insns = 80;
	EXPECT_EQ(-E2BIG, build_hook(_metadata, self, NF_INET_LOCAL_OUT, false));
	EXPECT_EQ(-1, self->prog_fd);
	EXPECT_EQ(-1, self->cont_fd);
}

/*
 * 100k rules that fold into nothing (source and destination rules
 * alternate, so every run has length 1): segments keep each program far
 * from the verifier's limits; the last rule and the policy still count.
 */
TEST_F(cg, segments_100k_unfoldable)
{
	const int n = 100000;
	struct pkt p;
	char a[32];
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.%d", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		add_addr(self->tb, i % 2, a, 32, i % 2 ? V_ACCEPT : V_DROP);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	self->seg_insns = CG_SEG_INSNS;
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions in %u programs", self->insns, self->nsegs);
	EXPECT_LT(1, self->nsegs);
	EXPECT_GE(CG_MAX_SEGS, self->nsegs);
	/* Rule n - 2 (even: -s 10.1.134.158 -j DROP) is near the end of the last segment. */
	pkt_ip(&p, 99, "10.1.134.158", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + n - 2, 1, 24);
	/* Rule n - 1: -d 10.1.134.159 -j ACCEPT. */
	pkt_ip(&p, 99, "1.1.1.1", "10.1.134.159", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + n - 1, 1, 24);
	/* Neither: the policy, counted after the last rule. */
	pkt_ip(&p, 99, "1.1.1.1", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + n, 1, 24);
	/* A rule early in the first segment. */
	pkt_ip(&p, 99, "10.0.0.2", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2, 1, 24);
}

/* Per-source services with mixed prefixes: first match with port and address. */
TEST_F(cg, fold_port_and_prefix)
{
	struct pkt p;

	tb_begin_output(self->tb);
	add_l4_addr(self->tb, IPPROTO_UDP, false, "10.1.2.3", 32, 53, 53, V_ACCEPT);	/* OUT0 */
	add_l4_addr(self->tb, IPPROTO_UDP, false, "10.0.0.0", 8, 53, 53, V_ACCEPT);
	add_l4_addr(self->tb, IPPROTO_UDP, false, "10.1.0.0", 16, 53, 54, V_ACCEPT);
	add_l4_addr(self->tb, IPPROTO_UDP, false, "10.1.2.0", 24, 54, 54, V_ACCEPT);
	add_l4_addr(self->tb, IPPROTO_UDP, false, "10.1.2.3", 32, 54, 54, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	BUILD(NF_INET_LOCAL_OUT);
	EXPECT_GT(300, self->insns);
	pkt_udp(&p, 1, 53);
	memcpy(p.d + 12, (unsigned char[]){ 10, 1, 2, 3 }, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 28);
	memcpy(p.d + 12, (unsigned char[]){ 10, 1, 2, 4 }, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	p.d[23] = 54;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 2, 1, 28);
	memcpy(p.d + 12, (unsigned char[]){ 10, 2, 2, 4 }, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 3, 0, 0);
	EXPECT_CNT(OUT0 + 4, 0, 0);
	EXPECT_CNT(OUT0 + 5, 1, 28);
}

/* A 100k-rule blocklist: one lookup, constant size. */
TEST_F(cg, fold_100k_blocklist)
{
	char a[32];
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 100000; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.%d", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		add_addr(self->tb, false, a, 32, V_DROP);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions", self->insns);
	EXPECT_GT(300, self->insns);
	pkt_ip(&p, 99, "10.0.78.31", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 78 * 256 + 31, 1, 24);
	pkt_ip(&p, 99, "10.1.134.159", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 99999, 1, 24);
	pkt_ip(&p, 99, "10.1.134.160", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
}

/*
 * Counters chunks (codegen.h): OUT0 -d .1 -j LATE, OUT0 + 1 -d .2 -j
 * ACCEPT, a folded run of @nrun "-s 10.x.y.z -j DROP" rules, -d .3 -j
 * LATE, -d .4 -j ACCEPT, the policy ACCEPT; chain LATE: -d .1 -j DROP,
 * RETURN. The run's first rule is OUT0 + 2; in a table of more than
 * CG_CNT_MAX_ENTRIES entries it crosses the chunk boundary, with the
 * jumps and ACCEPTs on both sides.
 */
static void chunk_table(FIXTURE_DATA(cg) *self, int nrun)
{
	char a[32];
	int i;

	tb_begin_output(self->tb);
	tb_rule(self->tb, &(struct ipt_ip){ .dmsk.s_addr = ~0u });
	tb_entry(self->tb)->ip.dst.s_addr = htonl(0x0ac80001);
	tb_jump(self->tb, "LATE", false);
	add_addr(self->tb, true, "10.200.0.2", 32, V_ACCEPT);
	for (i = 0; i < nrun; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.%d", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		add_addr(self->tb, false, a, 32, V_DROP);
	}
	tb_rule(self->tb, &(struct ipt_ip){ .dmsk.s_addr = ~0u });
	tb_entry(self->tb)->ip.dst.s_addr = htonl(0x0ac80003);
	tb_jump(self->tb, "LATE", false);
	add_addr(self->tb, true, "10.200.0.4", 32, V_ACCEPT);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(self->tb, "LATE");
	add_addr(self->tb, true, "10.200.0.1", 32, V_DROP);
	tb_chain_end(self->tb);
}

/* Entries of chunk_table(): 2 policies, 4 rules, the run, policy, LATE's 3, ERROR. */
#define CHUNK_TABLE_ENTRIES(nrun) ((nrun) + 11)

/* Packet from @src to @dst (other protocol 99, 4 bytes of payload: 24 bytes). */
static void pkt_addrs(struct pkt *p, const char *src, const char *dst)
{
	pkt_ip(p, 99, src, dst, 0, 4);
}

/* The run's rule @k: its source address. */
static const char *run_src(int k, char *buf)
{
	snprintf(buf, 32, "10.%d.%d.%d", (k >> 16) & 255, (k >> 8) & 255, k & 255);
	return buf;
}

/*
 * A table past CG_CNT_MAX_ENTRIES entries (ip_tables takes millions) has
 * its counters in two chunks; every way a rule is counted (a rule's own
 * code, a count-and-exit block, a folded run's lookup) counts exactly on
 * both sides of the boundary, at level 0 and nested (the shared element
 * of the chunk).
 */
static void two_chunks(struct __test_metadata *_metadata, FIXTURE_DATA(cg) *self,
		       uint32_t seg_insns)
{
	const int nrun = CG_CNT_MAX_ENTRIES - 4;
	const uint32_t n = CHUNK_TABLE_ENTRIES(nrun), late = OUT0 + nrun + 6;
	int ncpus = libbpf_num_possible_cpus();
	uint32_t nchunks, per, k;
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	struct xt_counters c;
	char a[32];
	struct pkt p;

	ASSERT_LT(0, ncpus);
	per = codegen_counters_chunk(n, &nchunks);
	ASSERT_EQ(2, nchunks);
	/* Equal chunks, whole cache lines: the boundary falls inside the run. */
	ASSERT_EQ(0, per % 4);
	ASSERT_LE(n, 2 * per);
	ASSERT_LT(OUT0 + 2, per);
	ASSERT_GT(OUT0 + 2 + nrun, per);
	chunk_table(self, nrun);
	self->seg_insns = seg_insns;
	BUILD(NF_INET_LOCAL_OUT);
	ASSERT_EQ(n, self->t->num_entries);
	TH_LOG("%u entries, chunks of %u: %u instructions in %u programs", n, per,
	       self->insns, self->nsegs);
	ASSERT_EQ(0, bpf_map_get_info_by_fd(self->cnt_fd, &info, &len));
	EXPECT_EQ(2 * (uint32_t)(ncpus + 1), info.max_entries);
	EXPECT_EQ(per * 16, info.value_size);
	EXPECT_EQ((uint64_t)info.max_entries * info.value_size,
		  codegen_counters_bytes(n, ncpus));
	EXPECT_TRUE(codegen_counters_fit(self->cnt_fd, n));
	EXPECT_FALSE(codegen_counters_fit(self->cnt_fd, CG_CNT_MAX_ENTRIES));

	/* The folded run: its last rule of chunk 0, its first of chunk 1, others. */
	for (k = per - 1; k <= per; k++) {
		pkt_addrs(&p, run_src(k - OUT0 - 2, a), "1.1.1.1");
		EXPECT_PKT(NF_DROP, &p);
		EXPECT_CNT(k, 1, 24);
	}
	pkt_addrs(&p, run_src(5, a), "1.1.1.1");
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2 + 5, 1, 24);
	pkt_addrs(&p, run_src(nrun - 1, a), "1.1.1.1");
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1 + nrun, 2, 48);
	EXPECT_CNT(OUT0 + nrun, 0, 0);

	/* A jump in chunk 0 (its own code), a DROP in chunk 1 (count-and-exit). */
	pkt_addrs(&p, "1.1.1.1", "10.200.0.1");
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, 24);
	EXPECT_CNT(late, 1, 24);
	/* An ACCEPT in chunk 0. */
	pkt_addrs(&p, "1.1.1.1", "10.200.0.2");
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 1, 24);
	/* A jump and a RETURN in chunk 1 (their own code), then the policy. */
	pkt_addrs(&p, "1.1.1.1", "10.200.0.3");
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 2 + nrun, 1, 24);
	EXPECT_CNT(late + 1, 1, 24);
	EXPECT_CNT(OUT0 + 4 + nrun, 1, 24);
	EXPECT_CNT(late, 1, 24);
	/* An ACCEPT in chunk 1. */
	pkt_addrs(&p, "1.1.1.1", "10.200.0.4");
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3 + nrun, 1, 24);
	EXPECT_CNT(OUT0 + 4 + nrun, 1, 24);

	/*
	 * Nested: chunk 1's shared element, key 1 * (ncpus + 1), counts the
	 * run's rule of chunk 1 and the LATE rules; chunk 0's shared one the
	 * jump; this CPU's elements nothing more.
	 */
	ASSERT_LT(0, set_busy(self, 1));
	pkt_addrs(&p, run_src(per - OUT0 - 2, a), "1.1.1.1");
	EXPECT_PKT(NF_DROP, &p);
	pkt_addrs(&p, "1.1.1.1", "10.200.0.1");
	EXPECT_PKT(NF_DROP, &p);
	ASSERT_EQ(0, set_busy(self, 0));
	c = cnt_elem(self, ncpus + 1, 0);
	EXPECT_EQ(1, c.pcnt);
	EXPECT_EQ(24, c.bcnt);
	c = cnt_elem(self, ncpus + 1, late - per);
	EXPECT_EQ(1, c.pcnt);
	c = cnt_elem(self, CG_CNT_SHARED, OUT0);
	EXPECT_EQ(1, c.pcnt);
	EXPECT_CNT(per, 2, 48);
	EXPECT_CNT(late, 2, 48);
	EXPECT_CNT(OUT0, 2, 48);
}

TEST_F(cg, counters_two_chunks)
{
	two_chunks(_metadata, self, 0);
}

/*
 * The same cut after every rule of OUTPUT: each program looks up the
 * chunks it counts in (or none past the first), on its own.
 */
TEST_F(cg, counters_two_chunks_segments)
{
	two_chunks(_metadata, self, 1);
	EXPECT_LT(4, self->nsegs);
}

/*
 * A run of jumps in chunk 0 to chains in chunk 1 (kube-proxy's shape past
 * CG_CNT_MAX_ENTRIES entries: the chains' rules are counted in the leaves
 * programs, each looking chunk 1 up on its own). OUTPUT: -j SERVICES,
 * policy DROP; SERVICES: @nj "-d 10.96.0.k+1 -p tcp --dport 80 -j SVCk",
 * RETURN; FILL (never jumped to): @nfill rules that push the SVC chains
 * past the boundary; SVCk: -s 172.16.1.k -j ACCEPT, RETURN.
 */
TEST_F(cg, counters_two_chunks_jump_run)
{
	const int nj = 128, nfill = CG_CNT_MAX_ENTRIES - 4 * 128 - 9 + 100;
	const uint32_t n = nfill + 4 * nj + 9, svc0 = OUT0 + 6 + nj + nfill;
	uint32_t nchunks, per;
	char a[32], c[16];
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	tb_rule(self->tb, NULL);
	tb_jump(self->tb, "SERVICES", false);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_DROP);
	tb_chain(self->tb, "SERVICES");
	for (i = 0; i < nj; i++) {
		snprintf(a, sizeof(a), "10.96.0.%d", i + 1);
		snprintf(c, sizeof(c), "SVC%d", i);
		add_l4_addr_to(self->tb, IPPROTO_TCP, true, a, 32, 80, 80, 0, c);
	}
	tb_chain_end(self->tb);
	tb_chain(self->tb, "FILL");
	for (i = 0; i < nfill; i++)
		add_addr(self->tb, false, run_src(i, a), 32, V_DROP);
	tb_chain_end(self->tb);
	for (i = 0; i < nj; i++) {
		snprintf(c, sizeof(c), "SVC%d", i);
		tb_chain(self->tb, c);
		snprintf(a, sizeof(a), "172.16.1.%d", i);
		add_addr(self->tb, false, a, 32, V_ACCEPT);
		tb_chain_end(self->tb);
	}
	self->fold_jump_min = CG_FOLD_JUMP_MIN;
	self->seg_insns = CG_SEG_INSNS;
	BUILD(NF_INET_LOCAL_OUT);
	ASSERT_EQ(n, self->t->num_entries);
	per = codegen_counters_chunk(n, &nchunks);
	ASSERT_EQ(2, nchunks);
	ASSERT_LT(OUT0 + 3 + nj, per);
	ASSERT_LE(per, svc0);
	TH_LOG("%u entries, chunks of %u: %u instructions in %u programs", n, per,
	       self->insns, self->nsegs);
	EXPECT_LT(1, self->nsegs);
	for (i = 0; i < nj; i += nj - 1) {
		/* Service i accepts 172.16.1.i: jump, folded jump rule, chain's ACCEPT. */
		pkt_tcp(&p, 1000, 80, 0x02);
		snprintf(a, sizeof(a), "172.16.1.%d", i);
		inet_pton(AF_INET, a, p.d + 12);
		snprintf(a, sizeof(a), "10.96.0.%d", i + 1);
		inet_pton(AF_INET, a, p.d + 16);
		EXPECT_PKT(NF_ACCEPT, &p);
		EXPECT_CNT(svc0 + 3 * i + 1, 1, p.len);
		EXPECT_CNT(OUT0 + 3 + i, 1, p.len);
		/* Another source: the chain's RETURN, SERVICES' RETURN, the policy. */
		inet_pton(AF_INET, "172.16.2.1", p.d + 12);
		EXPECT_PKT(NF_DROP, &p);
		EXPECT_CNT(svc0 + 3 * i + 2, 1, p.len);
		EXPECT_CNT(OUT0 + 3 + i, 2, 2 * p.len);
	}
	EXPECT_CNT(OUT0, 4, 4 * p.len);
	EXPECT_CNT(OUT0 + 3 + nj, 2, 2 * p.len);
	EXPECT_CNT(OUT0 + 1, 2, 2 * p.len);
}

/* The kernel's tag of the program (a hash of its instructions, map fds left out) in @buf. */
static const char *prog_tag(FIXTURE_DATA(cg) *self, char *buf)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), k;

	buf[0] = '\0';
	if (bpf_prog_get_info_by_fd(self->prog_fd, &info, &len))
		return buf;
	for (k = 0; k < BPF_TAG_SIZE; k++)
		sprintf(buf + 2 * k, "%02x", info.tag[k]);
	return buf;
}

/*
 * At CG_CNT_MAX_ENTRIES entries the same table has one chunk: the map
 * and the code of a table that always fit: the logged instruction count
 * and program tag are those the helper gave before counters had chunks.
 */
TEST_F(cg, counters_one_chunk)
{
	const int nrun = CG_CNT_MAX_ENTRIES - 11;
	const uint32_t n = CHUNK_TABLE_ENTRIES(nrun), late = OUT0 + nrun + 6;
	int ncpus = libbpf_num_possible_cpus();
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), nchunks;
	char a[32];
	struct pkt p;

	ASSERT_LT(0, ncpus);
	ASSERT_EQ(CG_CNT_MAX_ENTRIES, n);
	EXPECT_EQ(n, codegen_counters_chunk(n, &nchunks));
	EXPECT_EQ(1, nchunks);
	chunk_table(self, nrun);
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u entries: %u instructions in %u programs, tag %s", n, self->insns,
	       self->nsegs, prog_tag(self, a));
	ASSERT_EQ(0, bpf_map_get_info_by_fd(self->cnt_fd, &info, &len));
	EXPECT_EQ((uint32_t)ncpus + 1, info.max_entries);
	EXPECT_EQ(n * 16, info.value_size);
	EXPECT_EQ((uint64_t)(ncpus + 1) * n * 16, codegen_counters_bytes(n, ncpus));
	pkt_addrs(&p, run_src(nrun - 1, a), "1.1.1.1");
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1 + nrun, 1, 24);
	pkt_addrs(&p, "1.1.1.1", "10.200.0.3");
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 2 + nrun, 1, 24);
	EXPECT_CNT(late + 1, 1, 24);
	EXPECT_CNT(OUT0 + 4 + nrun, 1, 24);
}

/* ---- extension matches (ext_*.c) ---- */

/*
 * One rule with match @name (revision @rev) and protocol @proto; verdict 0:
 * no target, the rule only counts (a jump to the next entry, as iptables
 * makes it).
 */
static void add_ext(struct tb *tb, uint16_t proto, const char *name, uint8_t rev,
		    const void *data, size_t len, int verdict)
{
	struct ipt_ip ip = { .proto = proto };
	struct xt_entry_match *m;

	tb_rule(tb, &ip);
	m = (void *)(tb->blob + tb->size);
	tb_match(tb, name, data, len);
	m->u.user.revision = rev;
	tb_verdict(tb, verdict ? verdict : (int)(tb->size + XT_ALIGN(sizeof(struct xt_standard_target))));
}

/*
 * multiport reads only the 4 bytes of ports: a TCP header cut short after
 * them still matches (tcp_mt() would hotdrop it), fewer bytes are a hotdrop,
 * a later fragment never matches; sctp and dccp have their ports read too.
 */
TEST_F(cg, multiport_reads_only_the_ports)
{
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION, .count = 3,
				      .ports = { 80, 1000, 1010 }, .pflags = { 0, 1, 0 } };
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, IPPROTO_TCP, "multiport", 1, &mp, sizeof(mp), V_DROP);
	add_ext(self->tb, IPPROTO_SCTP, "multiport", 1, &mp, sizeof(mp), V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_tcp(&p, 1, 1005, 0);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, 40);
	pkt_tcp(&p, 1, 1011, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 1, 80, 0);
	p.len = 26;					/* 6 bytes of TCP: still the ports */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 2, 66);
	pkt_tcp(&p, 1, 81, 0);
	p.len = 24;
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_tcp(&p, 1, 81, 0);
	p.len = 23;					/* 3 bytes: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 2, 66);
	EXPECT_CNT(OUT0 + 2, 2, 64);			/* 1011, and 81 in 4 bytes */
	pkt_tcp(&p, 1, 80, 0);
	p.d[7] = 3;					/* later fragment: no match */
	EXPECT_PKT(NF_ACCEPT, &p);
	pkt_ip(&p, IPPROTO_SCTP, "10.1.1.1", "10.2.2.2", 0, 4);
	p.d[22] = 1000 >> 8;
	p.d[23] = 1000 & 0xff;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 24);
}

/*
 * Kernel matches that return "cond ^ invert" with a raw u8 (multiport,
 * mark, length) match everything for an invert that is neither 0 nor 1;
 * those that normalise it (!!) invert as usual. iptables never sends 2, a
 * raw blob may.
 */
TEST_F(cg, raw_invert_values)
{
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_SOURCE, .count = 1, .ports = { 7 },
				      .invert = 2 };
	struct xt_mark_mtinfo1 mark = { .mark = 1, .mask = 1, .invert = 2 };
	struct xt_length_info len = { .min = 1000, .max = 2000, .invert = 2 };
	struct xt_dscp_info dscp = { .dscp = 5, .invert = 2 };
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, IPPROTO_UDP, "multiport", 1, &mp, sizeof(mp), 0);
	add_ext(self->tb, 0, "mark", 1, &mark, sizeof(mark), 0);
	add_ext(self->tb, 0, "length", 0, &len, sizeof(len), 0);
	add_ext(self->tb, 0, "dscp", 0, &dscp, sizeof(dscp), 0);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_udp(&p, 9, 9);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 28);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	EXPECT_CNT(OUT0 + 2, 1, 28);
	EXPECT_CNT(OUT0 + 3, 1, 28);			/* dscp 0 != 5, inverted */
	p.d[1] = 5 << 2;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3, 1, 28);
	pkt_udp(&p, 7, 7);				/* a hit: still a match */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 3, 84);
}

/* ah needs its 12-byte header, esp its 8 bytes; the SPI is compared in host order. */
TEST_F(cg, ah_esp_header_lengths)
{
	struct ipt_ah ah = { .spis = { 0x10000, 0x80000000 } };
	struct xt_esp esp = { .spis = { 7, 7 }, .invflags = XT_ESP_INV_SPI };
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, IPPROTO_AH, "ah", 0, &ah, sizeof(ah), V_DROP);
	add_ext(self->tb, IPPROTO_ESP, "esp", 0, &esp, sizeof(esp), V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_ip(&p, IPPROTO_AH, "10.1.1.1", "10.2.2.2", 0, 12);
	p.d[24] = 0x80;					/* SPI 0x80000000 */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, 32);
	p.d[24] = 0x80;
	p.d[27] = 1;					/* 0x80000001: above */
	EXPECT_PKT(NF_ACCEPT, &p);
	p.len = 31;					/* 11 bytes: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 1, 32);
	pkt_ip(&p, IPPROTO_ESP, "10.1.1.1", "10.2.2.2", 0, 8);
	p.d[23] = 7;
	EXPECT_PKT(NF_ACCEPT, &p);
	p.d[23] = 8;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	p.len = 27;					/* 7 bytes: hotdrop, not counted */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
}

/*
 * ttl reads IPv4 byte 8, which the prologue copies only for such tables; a
 * mode ttl_mt() does not know never matches.
 */
TEST_F(cg, ttl_modes)
{
	struct ipt_ttl_info lt = { .mode = IPT_TTL_LT, .ttl = 10 };
	struct ipt_ttl_info ne = { .mode = IPT_TTL_NE, .ttl = 64 };
	struct ipt_ttl_info bad = { .mode = 7, .ttl = 64 };
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, 0, "ttl", 0, &bad, sizeof(bad), V_DROP);
	add_ext(self->tb, 0, "ttl", 0, &lt, sizeof(lt), V_DROP);
	add_ext(self->tb, 0, "ttl", 0, &ne, sizeof(ne), V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_udp(&p, 1, 2);
	EXPECT_PKT(NF_ACCEPT, &p);			/* 64 */
	p.d[8] = 9;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	p.d[8] = 10;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 2, 1, 28);
	EXPECT_CNT(OUT0, 0, 0);
}

/* TCP with @olen bytes of options @opt (doff from @olen) and @pay bytes after them. */
static void pkt_tcp_opts(struct pkt *p, const uint8_t *opt, unsigned int olen, unsigned int pay)
{
	pkt_ip(p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 20 + olen + pay);
	p->d[32] = (5 + olen / 4) << 4;
	memcpy(p->d + 40, opt, olen);
}

/*
 * tcpmss_mt(): the first MSS option of length 4 that fits in the options;
 * none gives the invert value; no header, doff < 5 or options cut short
 * are a hotdrop; a non-first fragment's bytes are read as a header.
 */
TEST_F(cg, tcpmss_walk)
{
	struct xt_tcpmss_match_info in = { .mss_min = 1000, .mss_max = 1460 };
	struct xt_tcpmss_match_info out = { .mss_min = 1000, .mss_max = 1460, .invert = 1 };
	const uint8_t first[] = { 2, 4, 0x05, 0xb4 };			/* 1460 */
	const uint8_t late[] = { 1, 1, 8, 2, 0, 0, 2, 4, 0x03, 0xe7, 0, 0 };	/* 999 */
	const uint8_t bad_len[] = { 2, 3, 1, 2, 4, 0x04, 0x00, 0 };	/* 1024 */
	const uint8_t cut[] = { 1, 1, 1, 1, 1, 1, 1, 2, 0, 0, 0, 0 };	/* no room */
	const uint8_t two[] = { 2, 4, 0x01, 0x00, 2, 4, 0x04, 0x00 };	/* 256 first */
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, IPPROTO_TCP, "tcpmss", 0, &in, sizeof(in), 0);
	add_ext(self->tb, IPPROTO_TCP, "tcpmss", 0, &out, sizeof(out), 0);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_tcp_opts(&p, first, sizeof(first), 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 44);
	EXPECT_CNT(OUT0 + 1, 0, 0);
	/* Behind NOPs and an option whose length 2 steps over nothing: 999. */
	pkt_tcp_opts(&p, late, sizeof(late), 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 44);
	EXPECT_CNT(OUT0 + 1, 1, 52);
	/* Kind 2 with length 3 is stepped over; the one after it counts. */
	pkt_tcp_opts(&p, bad_len, sizeof(bad_len), 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 92);
	/* An MSS kind in the last bytes, without room for its 4: none. */
	pkt_tcp_opts(&p, cut, sizeof(cut), 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 92);
	EXPECT_CNT(OUT0 + 1, 2, 108);
	/* Only the first MSS option is looked at. */
	pkt_tcp_opts(&p, two, sizeof(two), 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 92);
	EXPECT_CNT(OUT0 + 1, 3, 156);
	/* No options: only the inverted rule. */
	pkt_tcp(&p, 1, 2, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 4, 196);
	/* Options cut off by the end of the packet, doff < 5, a short header: hotdrops. */
	pkt_tcp_opts(&p, first, sizeof(first), 0);
	p.len -= 1;
	EXPECT_PKT(NF_DROP, &p);
	pkt_tcp(&p, 1, 2, 0);
	p.d[32] = 4 << 4;
	EXPECT_PKT(NF_DROP, &p);
	pkt_tcp(&p, 1, 2, 0);
	p.len = 39;
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 2, 92);
	EXPECT_CNT(OUT0 + 1, 4, 196);
	/* A later fragment: its first 20 bytes are taken for a header. */
	pkt_tcp_opts(&p, first, sizeof(first), 0);
	p.d[7] = 3;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 3, 136);
	p.len = 30;					/* 10 bytes: hotdrop there too */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0, 3, 136);
}

/*
 * ecn_mt4(): the ECT bits of the TOS byte, then CWR and ECE from the 20
 * bytes at the transport offset, fragment or not; fewer bytes: no match.
 */
TEST_F(cg, ecn_bits)
{
	struct xt_ecn_info ect = { .operation = XT_ECN_OP_MATCH_IP, .ip_ect = 2 };
	struct xt_ecn_info cwr_not_ece = {
		.operation = XT_ECN_OP_MATCH_CWR | XT_ECN_OP_MATCH_ECE,
		.invert = XT_ECN_OP_MATCH_ECE,
	};
	struct xt_ecn_info not_ect = { .operation = XT_ECN_OP_MATCH_IP, .invert = 1, .ip_ect = 0 };
	struct pkt p;

	tb_begin_output(self->tb);
	add_ext(self->tb, 0, "ecn", 0, &ect, sizeof(ect), 0);
	add_ext(self->tb, IPPROTO_TCP, "ecn", 0, &cwr_not_ece, sizeof(cwr_not_ece), 0);
	add_ext(self->tb, 0, "ecn", 0, &not_ect, sizeof(not_ect), 0);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);

	pkt_tcp(&p, 1, 2, 0x80);			/* CWR */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 0, 0);
	EXPECT_CNT(OUT0 + 1, 1, 40);
	EXPECT_CNT(OUT0 + 2, 0, 0);
	p.d[1] = 0x22;					/* ECT(0) */
	p.d[33] = 0xc0;					/* CWR and ECE */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 40);
	EXPECT_CNT(OUT0 + 1, 1, 40);
	EXPECT_CNT(OUT0 + 2, 1, 40);
	/* A later fragment: the bits are read from its data. */
	p.d[7] = 2;
	p.d[33] = 0x80;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 2, 80);
	/* 19 bytes: no match, no hotdrop. */
	p.len = 39;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 2, 80);
	EXPECT_CNT(OUT0 + 2, 3, 119);
}

/* A u32 test: @nnums numbers from @loc with @ops between them, then @nvalues ranges. */
static void u32_test(struct xt_u32_test *t, const uint32_t *loc, const uint8_t *ops,
		     unsigned int nnums, const uint32_t (*vals)[2], unsigned int nvalues)
{
	unsigned int i;

	for (i = 0; i < nnums; i++) {
		t->location[i].number = loc[i];
		t->location[i].nextop = i ? ops[i - 1] : 0;
	}
	for (i = 0; i < nvalues; i++) {
		t->value[i].min = vals[i][0];
		t->value[i].max = vals[i][1];
	}
	t->nnums = nnums;
	t->nvalues = nvalues;
}

/*
 * u32_match_it(): words in network order, &, << and >>, "@" moving the base
 * (a sum that wraps or a word past the end fails the test), ranges, every
 * test must hold, the raw u8 invert.
 */
TEST_F(cg, u32_language)
{
	/* "0>>22&0x3C@0>>16=1000:2000,7": the TCP source port through ihl. */
	const uint32_t sport[] = { 0, 22, 0x3c, 0, 16 };
	const uint8_t sport_ops[] = { XT_U32_RIGHTSH, XT_U32_AND, XT_U32_AT, XT_U32_RIGHTSH };
	const uint32_t sport_vals[][2] = { { 1000, 2000 }, { 7, 7 } };
	/* "0>>22&0x3C@12>>26&0x3C@0=0x47455420": the first payload word is "GET ". */
	const uint32_t get[] = { 0, 22, 0x3c, 12, 26, 0x3c, 0 };
	const uint8_t get_ops[] = { XT_U32_RIGHTSH, XT_U32_AND, XT_U32_AT, XT_U32_RIGHTSH,
				    XT_U32_AND, XT_U32_AT };
	const uint32_t get_vals[][2] = { { 0x47455420, 0x47455420 } };
	/*
	 * "0>>22&0x3C@0xffffffec=0:0xffffffff": at 20 + pos wraps to 0, a word
	 * that is there; the kernel's bounds fail the test all the same.
	 */
	const uint32_t wrap[] = { 0, 22, 0x3c, 0xffffffec };
	const uint8_t wrap_ops[] = { XT_U32_RIGHTSH, XT_U32_AND, XT_U32_AT };
	const uint32_t any[][2] = { { 0, 0xffffffff } };
	/* "0<<4>>28=5": ihl through both shifts; nextop 7 does nothing. */
	const uint32_t ihl[] = { 0, 4, 28, 99 };
	const uint8_t ihl_ops[] = { XT_U32_LEFTSH, XT_U32_RIGHTSH, 7 };
	const uint32_t five[][2] = { { 5, 5 } };
	struct xt_u32 *a = calloc(4, sizeof(*a)), *b = a + 1, *c = a + 2, *d = a + 3;
	struct pkt p;

	ASSERT_NE(NULL, a);
	u32_test(&a->tests[0], sport, sport_ops, 5, sport_vals, 2);
	u32_test(&a->tests[1], ihl, ihl_ops, 4, five, 1);
	a->ntests = 2;
	u32_test(&b->tests[0], get, get_ops, 7, get_vals, 1);
	b->ntests = 1;
	u32_test(&c->tests[0], wrap, wrap_ops, 4, any, 1);
	c->ntests = 1;
	c->invert = 1;
	/* No tests: true, with invert 2 still a match. */
	d->invert = 2;

	tb_begin_output(self->tb);
	add_ext(self->tb, 0, "u32", 0, a, sizeof(*a), 0);
	add_ext(self->tb, 0, "u32", 0, b, sizeof(*b), 0);
	add_ext(self->tb, 0, "u32", 0, c, sizeof(*c), 0);
	add_ext(self->tb, 0, "u32", 0, d, sizeof(*d), 0);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	free(a);

	pkt_tcp(&p, 1500, 80, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 40);
	EXPECT_CNT(OUT0 + 1, 0, 0);			/* no payload: the read fails */
	EXPECT_CNT(OUT0 + 2, 1, 40);
	EXPECT_CNT(OUT0 + 3, 1, 40);
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 24);
	p.d[20] = 0;
	p.d[21] = 7;
	p.d[32] = 5 << 4;
	memcpy(p.d + 40, "GET ", 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 84);
	EXPECT_CNT(OUT0 + 1, 1, 44);
	/* Options move the payload: doff 6, "GET " after 4 bytes of options. */
	pkt_ip(&p, IPPROTO_TCP, "10.1.1.1", "10.2.2.2", 0, 28);
	p.d[32] = 6 << 4;
	memcpy(p.d + 40, "GET ", 4);
	memcpy(p.d + 44, "GET ", 4);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 84);			/* port 0 */
	EXPECT_CNT(OUT0 + 1, 2, 92);
	/* ihl 6: the source port moves too. */
	pkt_ip(&p, IPPROTO_UDP, "10.1.1.1", "10.2.2.2", 0, 12);
	p.d[0] = 0x46;
	p.d[24] = 1000 >> 8;
	p.d[25] = 1000 & 0xff;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 84);			/* ihl is 6, not 5 */
	EXPECT_CNT(OUT0 + 3, 4, 40 + 44 + 48 + 32);
	/* The header alone: "@" past the end fails the port test. */
	pkt_ip(&p, IPPROTO_UDP, "10.1.1.1", "10.2.2.2", 0, 0);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 84);
	EXPECT_CNT(OUT0 + 2, 5, 40 + 44 + 48 + 32 + 20);
}

/*
 * A run of multiport --dports rules is one lookup: first match across
 * overlapping ports and ranges, the count on the rule that matched; the
 * 4 port bytes suffice, fewer are a hotdrop, later fragments never match.
 */
TEST_F(cg, fold_multiport_dports)
{
	struct xt_multiport_v1 mp[5] = {
		{ .flags = XT_MULTIPORT_DESTINATION, .count = 2, .ports = { 22, 80 } },
		{ .flags = XT_MULTIPORT_DESTINATION, .count = 3, .ports = { 80, 1000, 1010 },
		  .pflags = { 0, 1, 0 } },
		{ .flags = XT_MULTIPORT_DESTINATION, .count = 1, .ports = { 1005 } },
		{ .flags = XT_MULTIPORT_DESTINATION, .count = 4, .ports = { 5, 6, 7, 8 } },
		{ .flags = XT_MULTIPORT_DESTINATION, .count = 2, .ports = { 1, 65535 },
		  .pflags = { 1, 0 } },
	};
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 4; i++)
		add_ext(self->tb, IPPROTO_UDP, "multiport", 1, &mp[i], sizeof(mp[i]), V_ACCEPT);
	/* Too wide to expand: a rule of its own after the run. */
	add_ext(self->tb, IPPROTO_UDP, "multiport", 1, &mp[4], sizeof(mp[4]), V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	EXPECT_EQ(1, self->nsets);
	pkt_udp(&p, 1, 80);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 1, 28);
	pkt_udp(&p, 1, 1005);				/* rule 1's range before rule 2 */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 1, 1, 28);
	EXPECT_CNT(OUT0 + 2, 0, 0);
	pkt_udp(&p, 1, 8);
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0 + 3, 1, 28);
	pkt_udp(&p, 1, 9);				/* not in the run: the next rule */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 4, 1, 28);
	pkt_ip(&p, IPPROTO_UDP, "10.1.1.1", "10.2.2.2", 0, 4);	/* ports only */
	p.d[23] = 22;
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 52);
	p.len = 23;					/* 3 bytes: hotdrop */
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 4, 1, 28);
	pkt_udp(&p, 1, 22);
	p.d[7] = 1;					/* later fragment: no rule, the policy */
	EXPECT_PKT(NF_ACCEPT, &p);
	EXPECT_CNT(OUT0, 2, 52);
	EXPECT_CNT(OUT0 + 4, 1, 28);
}

static void add_iprange(struct tb *tb, uint8_t flags, const char *lo, const char *hi, int verdict)
{
	struct xt_iprange_mtinfo ir = { .flags = flags };
	union nf_inet_addr *min = flags & IPRANGE_SRC ? &ir.src_min : &ir.dst_min;
	union nf_inet_addr *max = flags & IPRANGE_SRC ? &ir.src_max : &ir.dst_max;

	inet_pton(AF_INET, lo, &min->ip);
	inet_pton(AF_INET, hi, &max->ip);
	add_ext(tb, 0, "iprange", 1, &ir, sizeof(ir), verdict);
}

/*
 * Runs of --src-range rules, and -s rules among them, are one LPM lookup
 * over the prefixes that cover each range: the first rule whose range
 * holds the address counts, at every edge of the ranges.
 */
TEST_F(cg, fold_iprange)
{
	static const struct { const char *addr; int rule; } want[] = {
		{ "10.0.0.3", 0 }, { "10.0.0.4", 1 }, { "10.0.0.250", 1 }, { "10.0.1.5", 1 },
		{ "10.0.1.6", 3 }, { "10.0.0.2", 3 }, { "1.2.3.4", 4 }, { "192.168.0.1", 2 }, { "192.168.0.0", -1 },
		{ "10.0.2.0", 3 }, { "10.0.3.255", 3 }, { "10.0.4.0", -1 }, { "0.0.0.0", 4 },
	};
	struct pkt p;
	unsigned int i, hits[5] = {};

	tb_begin_output(self->tb);
	add_iprange(self->tb, IPRANGE_SRC, "10.0.0.3", "10.0.0.3", V_DROP);
	add_iprange(self->tb, IPRANGE_SRC, "10.0.0.3", "10.0.1.5", V_DROP);
	add_iprange(self->tb, IPRANGE_SRC, "192.168.0.1", "192.168.0.1", V_DROP);
	tb_rule(self->tb, &(struct ipt_ip){ .src.s_addr = htonl(0x0a000000),
					     .smsk.s_addr = htonl(0xfffffc00) });
	tb_verdict(self->tb, V_DROP);
	add_iprange(self->tb, IPRANGE_SRC, "0.0.0.0", "10.0.0.2", V_DROP);
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	EXPECT_EQ(1, self->nsets);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		pkt_udp(&p, 1, 2);
		inet_pton(AF_INET, want[i].addr, p.d + 12);
		EXPECT_PKT(want[i].rule < 0 ? NF_ACCEPT : NF_DROP, &p) TH_LOG("%s", want[i].addr);
		if (want[i].rule >= 0)
			hits[want[i].rule]++;
	}
	for (i = 0; i < 5; i++)
		EXPECT_CNT(OUT0 + i, hits[i], 28 * hits[i]);
}

/* Every rule of a blocklist has a comment, as tools write them: still one lookup. */
TEST_F(cg, fold_across_comments)
{
	struct xt_comment_info c = {};
	struct ipt_ip ip = {};
	char a[32];
	struct pkt p;
	int i;

	tb_begin_output(self->tb);
	for (i = 0; i < 1000; i++) {
		snprintf(a, sizeof(a), "10.9.%d.%d", i >> 8, i & 255);
		snprintf(c.comment, sizeof(c.comment), "blocked host %d", i);
		inet_pton(AF_INET, a, &ip.src);
		ip.smsk.s_addr = 0xffffffff;
		tb_rule(self->tb, &ip);
		tb_match(self->tb, "comment", &c, sizeof(c));
		tb_verdict(self->tb, V_DROP);
	}
	tb_policy(self->tb, NF_INET_LOCAL_OUT, V_ACCEPT);
	BUILD(NF_INET_LOCAL_OUT);
	TH_LOG("%u instructions", self->insns);
	EXPECT_GT(300, self->insns);
	pkt_ip(&p, 99, "10.9.3.231", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_DROP, &p);
	EXPECT_CNT(OUT0 + 999, 1, 24);
	pkt_ip(&p, 99, "10.9.3.232", "1.1.1.1", 0, 4);
	EXPECT_PKT(NF_ACCEPT, &p);
}

TEST_HARNESS_MAIN
