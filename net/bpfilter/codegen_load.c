// SPDX-License-Identifier: GPL-2.0
/*
 * Loading a table's programs: finalize what codegen_plan_hook() generated
 * for each of its hooks, hand it to the kernel's verifier, fill the one
 * continuation array.
 *
 * The verifier is most of a large table's load time. Two things cut it:
 * - Programs that come out byte for byte the same are loaded once. The
 *   hooks of a table share the continuation array, the counters, the maps
 *   of folded runs and the leaves' way back (struct cg_after), so the
 *   programs that hold a run's chains are the same in every hook that
 *   reaches the run: kube-proxy's services, from INPUT, FORWARD and
 *   OUTPUT, are verified once instead of three times.
 * - The verifier checks one BPF_PROG_LOAD at a time on one CPU and takes no
 *   lock shared between privileged loads, and programs do not refer to
 *   each other (a tail call names a slot, filled once all are loaded), so
 *   they are loaded by as many threads as the helper may use CPUs.
 * Everything that is not the kernel's work (sets, fixups, slots) stays on
 * the calling thread, in program order.
 */
#define _GNU_SOURCE	/* sched_getaffinity() */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "codegen.h"
#include "log.h"

/* More threads than this would only queue in the kernel on a 2-8 CPU host. */
#define CG_LOAD_MAX_THREADS 16

int codegen_load(const struct codegen *cg, const char *name, char *log, size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_NETFILTER);
	/* A module kfunc call names its BTF by index in fd_array (cg_call_module_kfunc()). */
	int fd_array[2] = { -1, cg->bi->mod_btf_fd };
	int fd, err;

	if (cg->mod_kfuncs)
		opts.fd_array = fd_array;

	fd = bpf_prog_load(BPF_PROG_TYPE_NETFILTER, name, "GPL", cg->insns, cg->len, &opts);
	if (fd >= 0 || !log || !log_size)
		return fd >= 0 ? fd : -errno;
	err = -errno;
	/*
	 * Load again with a log only on failure: a verbose log of a big
	 * program would not fit, and a truncated log fails the load itself.
	 */
	log[0] = '\0';
	opts.log_buf = log;
	opts.log_size = log_size;
	opts.log_level = 1;
	fd = bpf_prog_load(BPF_PROG_TYPE_NETFILTER, name, "GPL", cg->insns, cg->len, &opts);
	if (fd >= 0)
		return fd;
	return err;
}

/* Name of program @n of a hook whose first program is @name ("bpf_flt_INPUT"). */
static void segment_name(char *buf, size_t len, const char *name, uint32_t n)
{
	const char *hook = strrchr(name, '_');

	if (!n)
		snprintf(buf, len, "%s", name);
	else
		/* The modulo tells the compiler the name fits. */
		snprintf(buf, len, "bflt_%.6s_%u", hook ? hook + 1 : name, n % 1000);
}

/* A map of folded rules made for an earlier program of the table (same run). */
struct set_cache {
	uint32_t start, len;
	bool addr_only;
	int fd;
};

/*
 * Give @cg's sets the fds of the same runs' maps made for earlier programs
 * (a run is looked up by the program that meets it and by each leaf, in
 * every hook), the same fd, so that the same code has the same bytes;
 * then (@after) take over the ones codegen_finalize() made. 0 or -errno.
 */
static int share_sets(struct codegen *cg, struct set_cache **cache, uint32_t *n, bool after)
{
	uint32_t k, j;

	for (k = 0; k < cg->nsets; k++) {
		struct cg_set *s = &cg->sets[k];

		for (j = 0; j < *n; j++)
			if ((*cache)[j].start == s->start && (*cache)[j].len == s->len &&
			    (*cache)[j].addr_only == s->addr_only)
				break;
		if (!after && j < *n && s->fd < 0) {
			s->fd = (*cache)[j].fd;
			s->fd_shared = true;
		} else if (after && j == *n && s->fd >= 0) {
			struct set_cache *c = realloc(*cache, (*n + 1) * sizeof(**cache));

			if (!c)
				return -ENOMEM;
			*cache = c;
			c[(*n)++] = (struct set_cache){ s->start, s->len, s->addr_only, s->fd };
			s->fd_shared = true;
		}
	}
	return 0;
}

/* The programs of a table being loaded: threads take the next one. */
struct load_pool {
	struct cg_plan *p;
	const uint32_t *todo;	/* the programs to load: the first of each kind */
	uint32_t ntodo;
	const char *const *names;	/* per hook */
	const uint32_t *first;	/* per hook: its first program */
	int *fds;		/* per program: fd or -errno */
	uint32_t next;		/* the next of @todo to load (atomic) */
};

/* Name of program @k of @pool's plan. */
static void prog_name(const struct load_pool *pool, uint32_t k, char *buf, size_t len)
{
	unsigned int hook = pool->p->progs[k].hook;

	segment_name(buf, len, pool->names[hook], k - pool->first[hook]);
}

static void *load_worker(void *arg)
{
	struct load_pool *pool = arg;
	char sname[16];
	uint32_t n, k;

	while ((n = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->ntodo) {
		k = pool->todo[n];
		prog_name(pool, k, sname, sizeof(sname));
		pool->fds[k] = codegen_load(&pool->p->progs[k], sname, NULL, 0);
	}
	return NULL;
}

/* CPUs this thread may run on: how many loads at once are worth it. */
static uint32_t load_threads(uint32_t nprogs)
{
	cpu_set_t set;
	uint32_t n = 1;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n > CG_LOAD_MAX_THREADS)
		n = CG_LOAD_MAX_THREADS;
	return n < nprogs ? n : nprogs;
}

/*
 * Load every program of pool->todo into pool->fds, on up to
 * load_threads() threads (the calling one among them). A thread that
 * cannot be started leaves its share to the others. Signals stay with
 * the calling thread.
 */
static void load_all(struct load_pool *pool)
{
	pthread_t tid[CG_LOAD_MAX_THREADS];
	uint32_t n = load_threads(pool->ntodo), started = 0, k;
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (k = 1; k < n; k++)
		if (!pthread_create(&tid[started], NULL, load_worker, pool))
			started++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	load_worker(pool);
	for (k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
}

/* FNV-1a of a finalized program, what tells programs apart before comparing them. */
static uint64_t prog_hash(const struct codegen *cg)
{
	const unsigned char *b = (const unsigned char *)cg->insns;
	uint64_t h = 0xcbf29ce484222325ull ^ cg->mod_kfuncs;
	size_t i;

	for (i = 0; i < cg->len * sizeof(*cg->insns); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/*
 * same[k] = the first program of @p that is byte for byte program k (k
 * itself if none before), and its index in *@todo, those that are their
 * own first: 0 or -ENOMEM.
 */
static int find_same(const struct cg_plan *p, uint32_t *same, uint32_t *todo, uint32_t *ntodo)
{
	uint64_t *hash = malloc(p->nprogs * sizeof(*hash) + 1);
	uint32_t k, j, n = 0;

	if (!hash)
		return -ENOMEM;
	for (k = 0; k < p->nprogs; k++) {
		const struct codegen *a = &p->progs[k];

		if (p->prog_same[k] != k) {
			/* Not generated: what the one it is the same as is. */
			same[k] = same[p->prog_same[k]];
			continue;
		}
		hash[k] = prog_hash(a);
		same[k] = k;
		for (j = 0; j < n; j++) {
			const struct codegen *b = &p->progs[todo[j]];

			if (hash[todo[j]] == hash[k] && b->len == a->len &&
			    b->mod_kfuncs == a->mod_kfuncs &&
			    !memcmp(b->insns, a->insns, a->len * sizeof(*a->insns))) {
				same[k] = todo[j];
				break;
			}
		}
		if (same[k] == k)
			todo[n++] = k;
	}
	free(hash);
	*ntodo = n;
	return 0;
}

/* Put each program in its slots, its hook's first in fds[]: 0 or -errno. */
static int fill_slots(struct cg_hook_load *l, const struct cg_plan *p, const uint32_t *same,
		      const int *pfds, int *fds)
{
	uint32_t k, s;
	int fd;

	l->err_stage = "continuation";
	for (k = 0; k < p->nprogs; k++) {
		fd = pfds[same[k]];
		l->err_prog = k;
		l->err_hook = p->progs[k].hook;
		if (!p->prog_nslots[k]) {
			fds[p->progs[k].hook] = dup(fd);
			if (fds[p->progs[k].hook] < 0)
				return -errno;
			continue;
		}
		for (s = p->prog_slot[k]; s < p->prog_slot[k] + p->prog_nslots[k]; s++)
			if (bpf_map_update_elem(l->cont_fd, &s, &fd, BPF_ANY))
				return -errno;
	}
	return 0;
}

/* The verifier's verdict on program @k, the first that failed: its log, again on this thread. */
static void log_failure(struct cg_hook_load *l, const struct load_pool *pool, uint32_t k)
{
	char sname[16];
	int fd;

	if (!l->log || !l->log_size)
		return;
	prog_name(pool, k, sname, sizeof(sname));
	fd = codegen_load(&pool->p->progs[k], sname, l->log, l->log_size);
	if (fd >= 0)
		close(fd);
}

int codegen_load_table(struct cg_hook_load *l, const struct table *t, uint32_t hooks,
		       const char *const *names, int *fds)
{
	uint32_t first[NF_INET_NUMHOOKS] = {}, *same = NULL, *todo = NULL;
	uint32_t k, ncache = 0, nsegs = 0, ngen = 0, insns = 0;
	struct load_pool pool = { .names = names, .first = first };
	struct set_cache *cache = NULL;
	struct cg_plan p = {};
	unsigned int h;
	int err = 0;

	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		fds[h] = -1;
	l->cont_fd = -1;
	l->nsets = l->nloaded = l->insns_loaded = 0;
	l->err_stage = "generation";
	l->gen_ns = log_now_ns();
	for (h = 0; h < NF_INET_NUMHOOKS && !err; h++) {
		if (!(hooks & (1u << h)))
			continue;
		first[h] = p.nprogs;
		err = codegen_plan_hook(&p, l, t, h);
		nsegs += l->nsegs;
		ngen += l->ngen;
		insns += l->insns;
	}
	l->nsegs = nsegs;
	l->ngen = ngen;
	l->insns = insns;
	l->gen_ns = log_now_ns() - l->gen_ns;
	l->verify_ns = 0;
	if (!err && p.nslots) {
		l->err_stage = "continuation";
		l->cont_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bpf_flt_cont",
					    sizeof(uint32_t), sizeof(uint32_t), p.nslots, NULL);
		err = l->cont_fd < 0 ? -errno : 0;
	}
	if (!err)
		l->err_stage = "fixups";
	for (k = 0; k < p.nprogs && !err; k++) {
		struct codegen *cg = &p.progs[k];

		if (p.prog_same[k] != k)
			continue;
		l->err_prog = k;
		l->err_hook = cg->hook;
		cg->cont_fd = l->cont_fd;
		err = share_sets(cg, &cache, &ncache, false);
		if (!err)
			err = codegen_finalize(cg, l->counters_fd, l->progs_fd);
		if (!err)
			err = share_sets(cg, &cache, &ncache, true);
		l->nsets += cg->nsets;
	}
	if (!err) {
		pool.p = &p;
		pool.fds = malloc(p.nprogs * sizeof(*pool.fds) + 1);
		same = malloc(p.nprogs * sizeof(*same) + 1);
		todo = malloc(p.nprogs * sizeof(*todo) + 1);
		err = pool.fds && same && todo ? find_same(&p, same, todo, &pool.ntodo) : -ENOMEM;
	}
	if (!err) {
		for (k = 0; k < p.nprogs; k++)
			pool.fds[k] = -1;
		pool.todo = todo;
		l->nloaded = pool.ntodo;
		for (k = 0; k < pool.ntodo; k++)
			l->insns_loaded += p.progs[todo[k]].len;
		l->err_stage = "verifier";
		l->verify_ns = log_now_ns();
		load_all(&pool);
		l->verify_ns = log_now_ns() - l->verify_ns;
		/* The first failure in program order is the one reported. */
		for (k = 0; k < pool.ntodo && !err; k++) {
			if (pool.fds[todo[k]] >= 0)
				continue;
			err = pool.fds[todo[k]];
			l->err_prog = todo[k];
			l->err_hook = p.progs[todo[k]].hook;
			log_failure(l, &pool, todo[k]);
		}
	}
	if (!err)
		err = fill_slots(l, &p, same, pool.fds, fds);
	/* The continuation array holds the programs now; the first ones are in fds[]. */
	for (k = 0; pool.fds && k < p.nprogs; k++)
		if (pool.fds[k] >= 0)
			close(pool.fds[k]);
	free(pool.fds);
	free(same);
	free(todo);
	for (k = 0; k < ncache; k++)
		close(cache[k].fd);
	free(cache);
	codegen_plan_free(&p);
	if (!err) {
		l->err_stage = NULL;
		return 0;
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		if (fds[h] >= 0) {
			close(fds[h]);
			fds[h] = -1;
		}
	if (l->cont_fd >= 0)
		close(l->cont_fd);
	l->cont_fd = -1;
	return err;
}

int codegen_load_hook(struct cg_hook_load *l, const struct table *t, unsigned int hook,
		      const char *name)
{
	const char *names[NF_INET_NUMHOOKS] = {};
	int fds[NF_INET_NUMHOOKS];
	int err;

	if (hook >= NF_INET_NUMHOOKS)
		return -EINVAL;
	names[hook] = name;
	err = codegen_load_table(l, t, 1u << hook, names, fds);
	return err ? err : fds[hook];
}
