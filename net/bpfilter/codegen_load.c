// SPDX-License-Identifier: GPL-2.0
/*
 * Loading a hook's programs: finalize what codegen_plan_hook() generated,
 * hand it to the kernel's verifier, fill the continuation array.
 *
 * The verifier is most of a large table's load time, and it checks one
 * BPF_PROG_LOAD at a time on one CPU; it takes no lock shared between
 * privileged loads. A hook's programs do not refer to each other (a tail
 * call names a slot of the continuation array, filled once all are
 * loaded), so they are loaded by as many threads as the helper may use
 * CPUs. Everything that is not the kernel's work (sets, fixups, slots)
 * stays on the calling thread, in program order.
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

/* A map of folded rules another program of the hook made already (same run). */
struct set_cache {
	uint32_t start, len;
	bool addr_only;
	int fd;
};

/*
 * Give @cg's sets the fds of the same runs' maps made for earlier programs
 * (a run of jumps is looked up by its first program and by each leaf),
 * then remember the ones codegen_finalize() made. 0 or -errno.
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
			s->fd = dup((*cache)[j].fd);
			if (s->fd < 0)
				return -errno;
		} else if (after && j == *n && s->fd >= 0) {
			struct set_cache *c = realloc(*cache, (*n + 1) * sizeof(**cache));

			if (!c)
				return -ENOMEM;
			*cache = c;
			c[*n] = (struct set_cache){ s->start, s->len, s->addr_only, dup(s->fd) };
			if (c[*n].fd < 0)
				return -errno;
			(*n)++;
		}
	}
	return 0;
}

/* The programs of one hook being loaded: threads take the next one. */
struct load_pool {
	struct cg_plan *p;
	const char *name;
	int *fds;		/* per program: fd or -errno */
	uint32_t next;		/* the next program to load (atomic) */
};

static void *load_worker(void *arg)
{
	struct load_pool *pool = arg;
	char sname[16];
	uint32_t k;

	while ((k = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->p->nprogs) {
		segment_name(sname, sizeof(sname), pool->name, k);
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
 * Load every program of @p into pool->fds, on up to load_threads() threads
 * (the calling one among them). A thread that cannot be started leaves its
 * share to the others. Signals stay with the calling thread.
 */
static void load_all(struct load_pool *pool)
{
	pthread_t tid[CG_LOAD_MAX_THREADS];
	uint32_t n = load_threads(pool->p->nprogs), started = 0, k;
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

int codegen_load_hook(struct cg_hook_load *l, const struct table *t, unsigned int hook,
		      const char *name)
{
	struct set_cache *cache = NULL;
	struct load_pool pool = { .name = name };
	uint32_t k, s, ncache = 0;
	struct cg_plan p;
	char sname[16];
	int first = -1, fd, err;

	l->cont_fd = -1;
	l->nsets = 0;
	l->err_stage = "generation";
	l->gen_ns = log_now_ns();
	err = codegen_plan_hook(&p, l, t, hook);
	l->gen_ns = log_now_ns() - l->gen_ns;
	l->verify_ns = 0;
	if (!err && p.nslots) {
		l->err_stage = "continuation";
		l->cont_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bpf_flt_cont",
					    sizeof(uint32_t), sizeof(uint32_t), p.nslots, NULL);
		err = l->cont_fd < 0 ? -errno : 0;
	}
	l->err_stage = "fixups";
	for (k = 0; k < p.nprogs && !err; k++) {
		struct codegen *cg = &p.progs[k];

		l->err_prog = k;
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
		pool.fds = malloc(p.nprogs * sizeof(*pool.fds));
		err = pool.fds ? 0 : -ENOMEM;
	}
	if (!err) {
		l->err_stage = "verifier";
		l->verify_ns = log_now_ns();
		load_all(&pool);
		l->verify_ns = log_now_ns() - l->verify_ns;
	}
	/* Slots in program order; the first failure is the one reported. */
	for (k = 0; pool.fds && k < p.nprogs && !err; k++) {
		l->err_prog = k;
		if (pool.fds[k] < 0) {
			err = pool.fds[k];
			if (l->log && l->log_size) {
				/* Again on this thread, for the verifier's log. */
				segment_name(sname, sizeof(sname), name, k);
				fd = codegen_load(&p.progs[k], sname, l->log, l->log_size);
				if (fd >= 0)
					close(fd);
			}
			break;
		}
		if (!p.prog_nslots[k]) {
			first = pool.fds[k];
			pool.fds[k] = -1;
			continue;
		}
		for (s = p.prog_slot[k]; s < p.prog_slot[k] + p.prog_nslots[k] && !err; s++)
			if (bpf_map_update_elem(l->cont_fd, &s, &pool.fds[k], BPF_ANY))
				err = -errno;
		if (err)
			l->err_stage = "continuation";
	}
	/* The continuation array holds the programs now; the first is returned. */
	for (k = 0; pool.fds && k < p.nprogs; k++)
		if (pool.fds[k] >= 0)
			close(pool.fds[k]);
	free(pool.fds);
	for (k = 0; k < ncache; k++)
		close(cache[k].fd);
	free(cache);
	codegen_plan_free(&p);
	if (!err) {
		l->err_stage = NULL;
		return first;
	}
	if (first >= 0)
		close(first);
	if (l->cont_fd >= 0)
		close(l->cont_fd);
	l->cont_fd = -1;
	return err;
}
