// SPDX-License-Identifier: GPL-2.0
/*
 * The "bpf" backend: the filter table enforced by BPF_PROG_TYPE_NETFILTER
 * programs at LOCAL_IN, FORWARD and LOCAL_OUT of the table's namespace.
 *
 * Atomic replacement. Netfilter links cannot be updated in place, so each
 * hook gets a fixed dispatcher program, attached once, that tail-calls slot
 * <hook> of a per-namespace BPF_MAP_TYPE_PROG_ARRAY; an empty slot or a
 * failed tail call returns NF_DROP. A replace generates, loads and verifies
 * all programs of the new table first; only then are the slots switched.
 * Any failure before the switch leaves the old programs and counters in
 * force, untouched.
 *
 * Mixing across hooks. The slots are switched one after the other, so for
 * a moment INPUT may run the new table while OUTPUT still runs the old one.
 * A packet is judged by exactly one filter hook on its way (LOCAL_IN,
 * FORWARD or LOCAL_OUT: the three are on disjoint paths), and by one
 * version of that hook's program (a tail call happens once per run). The
 * only packets that meet two filter hooks are locally generated packets
 * looped back (OUTPUT, then INPUT as a new receive), which are two separate
 * traversals under ip_tables too: ip_tables can also swap its table between
 * them. So no packet is judged by a mix of rulesets within one traversal,
 * and none by no ruleset.
 *
 * Counters live in a map per table version, one element per CPU with a
 * {packets, bytes} slot per entry (codegen.h). After the switch we wait for an RCU
 * grace period (membarrier(MEMBARRIER_CMD_GLOBAL)): programs run under RCU,
 * so no run of the old programs is still counting when the old map is read
 * and folded into the model's counters.
 *
 * Crash survival: with a bpffs directory on BPFILTER_BPFFS_FD, links, the
 * program array and the counters map are pinned there as <ino>_<object>; a
 * restarted helper takes them back (restore()), so enforcement never stops
 * while the helper is away. Without one (host tests) the links die with the
 * helper's file descriptors: a helper crash then lifts enforcement.
 *
 * Namespace teardown: see bpf_tick(). Kernels without BPF netfilter
 * programs: a table that behaves as the initial one needs no BPF and is
 * accepted; any other fails with -EOPNOTSUPP and a log line saying why.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/membarrier.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "btf.h"
#include "codegen.h"
#include "context.h"
#include "family.h"
#include "sockdiag.h"
#include "table.h"

/* Short names of the hooks: dispatchers ("bpfilter_in", 15 characters at most) and pins. */
static const char *const hook_tags[NF_INET_NUMHOOKS] = {
	[NF_INET_PRE_ROUTING] = "pre", [NF_INET_LOCAL_IN] = "in", [NF_INET_FORWARD] = "fwd",
	[NF_INET_LOCAL_OUT] = "out", [NF_INET_POST_ROUTING] = "post",
};

/* Offsets from the table's priority tried in order when it is taken (-EBUSY). */
static const int prio_order[] = { 0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5 };

/* Does @ns's table have built-in chain @hook? */
static bool has_hook(const struct netns *ns, unsigned int hook)
{
	return ns->kind->valid_hooks & (1u << hook);
}

#define VERIFIER_LOG_SIZE (1u << 20)

/* State shared by all namespaces (struct context.backend_priv). */
struct bpf_global {
	struct btf_info bi;
	bool supported;		/* BPF netfilter programs and links work here */
	int self_netns_fd;	/* the helper's own netns, to come back after setns() */
	unsigned int users;	/* namespaces with a struct bpf_ns */
	char *log;		/* verifier log buffer */
};

/* One namespace's attached objects (struct netns.backend_priv). */
struct bpf_ns {
	int progs_fd;				/* prog array, slot = hook */
	int runs_fd;				/* runs map of every program (codegen.h) */
	int disp_fd[NF_INET_NUMHOOKS];		/* dispatcher programs */
	int link_fd[NF_INET_NUMHOOKS];		/* their netfilter links */
	int prog_fd[NF_INET_NUMHOOKS];		/* ruleset programs now in the slots */
	int cont_fd[NF_INET_NUMHOOKS];		/* their continuation arrays, or -1 */
	int counters_fd;			/* counters of @table */
	const struct table *table;		/* the table these objects enforce */
	bool attached;
	bool pinned;				/* slots and links are pinned in bpffs */
	char cnt_pin[32];			/* name of the pinned counters map, or "" */
	int netns_fd;				/* the namespace itself, for bpf_tick() */
	int kept;				/* why bpf_tick() last kept it (logged once) */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static struct bpf_global *global_get(struct context *ctx)
{
	struct bpf_global *g = ctx->backend_priv;
	int err;

	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->self_netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	err = btf_info_load(&g->bi);
	/* Tests of the no-BPF path (Debian 6.1) on a kernel that has BPF. */
	if (getenv("BPFILTER_NO_BPF"))
		bf_warn(ctx, "bpf: BPFILTER_NO_BPF set: behaving as on a kernel without BPF "
			"netfilter programs");
	else if (err)
		bf_warn(ctx, "bpf: kernel BTF lacks what BPF netfilter programs need (%d)", err);
	else if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_NETFILTER, NULL) != 1)
		bf_warn(ctx, "bpf: this kernel has no BPF_PROG_TYPE_NETFILTER");
	else
		g->supported = true;
	ctx->backend_priv = g;
	return g;
}

static void global_put(struct context *ctx)
{
	struct bpf_global *g = ctx->backend_priv;

	if (!g || g->users)
		return;
	close_fd(&g->self_netns_fd);
	btf_info_free(&g->bi);
	free(g->log);
	free(g);
	ctx->backend_priv = NULL;
}

static struct bpf_ns *bns_new(struct bpf_global *g)
{
	struct bpf_ns *b = calloc(1, sizeof(*b));
	unsigned int h;

	if (!b)
		return NULL;
	b->progs_fd = -1;
	b->runs_fd = -1;
	b->counters_fd = -1;
	b->netns_fd = -1;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		b->disp_fd[h] = -1;
		b->link_fd[h] = -1;
		b->prog_fd[h] = -1;
		b->cont_fd[h] = -1;
	}
	g->users++;
	return b;
}

static void bns_free(struct bpf_global *g, struct bpf_ns *b)
{
	unsigned int h;

	if (!b)
		return;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		close_fd(&b->link_fd[h]);
		close_fd(&b->disp_fd[h]);
		close_fd(&b->prog_fd[h]);
		close_fd(&b->cont_fd[h]);
	}
	close_fd(&b->progs_fd);
	close_fd(&b->runs_fd);
	close_fd(&b->counters_fd);
	close_fd(&b->netns_fd);
	free(b);
	g->users--;
}

/*
 * Behaves as the initial table: every built-in chain is its ACCEPT policy
 * alone (user chains, if any, are unreachable). Such a table needs no BPF:
 * with no hook attached every packet is accepted too.
 */
static bool table_is_accept_all(const struct table *t)
{
	unsigned int h;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		const struct rule *r;

		if (!(t->valid_hooks & (1u << h)))
			continue;
		if (t->hook_rule[h] != t->underflow_rule[h] || t->hook_rule[h] >= t->num_entries)
			return false;
		r = &t->rules[t->hook_rule[h]];
		if (r->target.kind != TARGET_VERDICT || r->target.verdict != -NF_ACCEPT - 1 ||
		    r->num_matches ||
		    !rule_unconditional(t->fam, (const char *)t->entries + r->offset))
			return false;
	}
	return true;
}

/* A load/verify errno as the REPLACE caller should see it. */
static int load_errno(int err)
{
	switch (err) {
	case -ENOMEM:
	case -E2BIG:
	case -EPERM:
	case -EOPNOTSUPP:
		return err;
	}
	return -EINVAL;
}

/* Log the tail of the verifier's log, line by line (dmesg under the module). */
static void log_verifier(struct context *ctx, const char *what, const char *log)
{
	size_t len = strlen(log);
	const char *p = len > 2048 ? log + len - 2048 : log;
	char line[256];

	while (*p) {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (n)
			bf_err(ctx, "bpf: %s: verifier: %s", what, line);
		p += n;
		if (*p)
			p++;
	}
}

/*
 * Tests of the load-failure path: while the file named by
 * $BPFILTER_FAULT_FILE exists, generated programs fail verification.
 */
static bool fault_injected(void)
{
	const char *f = getenv("BPFILTER_FAULT_FILE");

	return f && *f && !access(f, F_OK);
}

/* Name of the first program of @hook of @t: bpf_flt_FORWARD, bpf_ip6_FORWARD, bpf_raw6_PREROU. */
static void hook_prog_name(const struct table *t, unsigned int hook, char *name, size_t len)
{
	/* At most 15 characters. */
	if (!strcmp(t->name, "filter"))
		snprintf(name, len, "bpf_%s_%s", t->fam == &family_ipv4 ? "flt" : "ip6",
			 codegen_hook_name(hook));
	else
		snprintf(name, len, "bpf_%.3s%s_%.6s", t->name, t->fam == &family_ipv4 ? "" : "6",
			 codegen_hook_name(hook));
}

/*
 * Generate and load the programs of every hook of @t (more than one a
 * hook, chained by tail calls through *@cont_fd, for long chains; the
 * same program once for all hooks): 0 with each hook's first program in
 * @fds, or -errno.
 */
static int load_table_progs(struct context *ctx, struct bpf_global *g, const struct table *t,
			    int counters_fd, int progs_fd, int runs_fd, int state_fd, int *fds,
			    int *cont_fd, struct cg_hook_load *total)
{
	struct cg_hook_load l = {
		.bi = &g->bi, .counters_fd = counters_fd, .progs_fd = progs_fd,
		.runs_fd = runs_fd, .state_fd = state_fd,
		.fold_min = CG_FOLD_MIN, .fold_jump_min = CG_FOLD_JUMP_MIN, .seg_insns = CG_SEG_INSNS,
		.inject_fault = fault_injected(),
	};
	char names[NF_INET_NUMHOOKS][16];
	const char *np[NF_INET_NUMHOOKS];
	const char *name;
	unsigned int h;
	bool verifier;
	int err;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		hook_prog_name(t, h, names[h], sizeof(names[h]));
		np[h] = names[h];
	}
	if (!g->log)
		g->log = malloc(VERIFIER_LOG_SIZE);
	l.log = g->log;
	l.log_size = g->log ? VERIFIER_LOG_SIZE : 0;
	err = codegen_load_table(&l, t, t->valid_hooks, np, fds);
	*cont_fd = l.cont_fd;
	*total = l;
	if (!err) {
		bf_dbg(ctx, "bpf: %s%s: loaded, %u instructions in %u program(s), %u folded runs; "
		       "%u generated, %u instructions in %u loaded (generated in %llu ms, verified "
		       "in %llu ms)", t->name, t->fam == &family_ipv4 ? "" : "6", l.insns, l.nsegs,
		       l.nsets, l.ngen, l.insns_loaded, l.nloaded, (unsigned long long)l.gen_ns / 1000000,
		       (unsigned long long)l.verify_ns / 1000000);
		return 0;
	}
	name = l.err_hook < NF_INET_NUMHOOKS ? names[l.err_hook] : t->name;
	if (err == -EOPNOTSUPP && l.err_rule != UINT32_MAX && l.err_what)
		bf_err(ctx, "bpf: %s: rule %u has no BPF translation (%s)", name, l.err_rule,
		       l.err_what);
	else if (err == -EOPNOTSUPP && l.err_rule != UINT32_MAX)
		bf_err(ctx, "bpf: %s: rule %u has no BPF translation (unsupported target or match)",
		       name, l.err_rule);
	else
		bf_err(ctx, "bpf: %s: %s failed in program %u of the table's %u (%u instructions "
		       "in all): %d", name, l.err_stage ?: "?", l.err_prog, l.nsegs, l.insns, err);
	verifier = l.err_stage && !strcmp(l.err_stage, "verifier");
	if (verifier && g->log)
		log_verifier(ctx, name, g->log);
	return verifier ? load_errno(err) : err;
}

/* Open the network namespace of process @pid, checking it is namespace @ino: fd or -errno. */
static int open_netns(struct context *ctx, pid_t pid, uint32_t ino)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		bf_err(ctx, "bpf: netns %u: cannot open %s: %d", ino, path, fd);
		return fd == -ENOENT ? -ESRCH : fd;
	}
	if (fstat(fd, &st) || st.st_ino != ino) {
		bf_err(ctx, "bpf: netns %u: process %d is in netns %lu, not this one", ino,
		       (int)pid, (unsigned long)st.st_ino);
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/*
 * Enter the namespace of @ns, opened through its requester's
 * /proc/PID/ns/net the first time and kept in @b (bpf_tick() needs it).
 */
static int enter_netns(struct context *ctx, struct netns *ns, struct bpf_ns *b)
{
	int fd = b->netns_fd;

	if (fd < 0) {
		fd = open_netns(ctx, ns->pid, ns->ino);
		if (fd < 0)
			return fd;
		b->netns_fd = fd;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fd = -errno;
		bf_err(ctx, "bpf: netns %u: setns: %d", ns->ino, fd);
		return fd;
	}
	return 0;
}

static void leave_netns(struct context *ctx, struct bpf_global *g)
{
	if (g->self_netns_fd >= 0 && setns(g->self_netns_fd, CLONE_NEWNET))
		bf_err(ctx, "bpf: cannot return to the helper's netns: %d", -errno);
}

/*
 * Attach @prog_fd at @hook, at the table's priority (NF_IP_PRI_FILTER,
 * NF_IP_PRI_RAW, ...) or the first free one near it (for nat, before it).
 */
static int attach_hook(struct context *ctx, struct netns *ns, int prog_fd, unsigned int hook)
{
	const int prio = ns->kind->priority[hook];
	unsigned int i;
	int fd = -EBUSY;

	for (i = 0; i < sizeof(prio_order) / sizeof(prio_order[0]); i++) {
		LIBBPF_OPTS(bpf_link_create_opts, opts);

		/* The nat table must run before nf_nat's hook: never after it. */
		if (ns->kind->nat && prio_order[i] > 0)
			continue;
		opts.netfilter.pf = ns->fam->nfproto;
		opts.netfilter.hooknum = hook;
		opts.netfilter.priority = prio + prio_order[i];
		fd = bpf_link_create(prog_fd, 0, BPF_NETFILTER, &opts);
		if (fd >= 0) {
			if (prio_order[i])
				bf_warn(ctx, "bpf: netns %u: %s %s: priority %d is taken, attached "
					"at priority %d instead", ns->ino, ns->kind->name,
					codegen_hook_name(hook), prio, prio + prio_order[i]);
			return fd;
		}
		fd = -errno;
		if (fd != -EBUSY)
			break;
	}
	bf_err(ctx, "bpf: netns %u: %s: cannot attach netfilter link: %d", ns->ino,
	       codegen_hook_name(hook), fd);
	return fd;
}

/* First install in @ns: prog array, dispatchers, links. Slots already hold the programs. */
static int attach_dispatchers(struct context *ctx, struct bpf_global *g, struct netns *ns,
			      struct bpf_ns *b)
{
	unsigned int h;
	int err;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		struct codegen cg;
		char name[16];

		if (!has_hook(ns, h))
			continue;
		if (ns->kind->id == BPFILTER_TABLE_FILTER)
			snprintf(name, sizeof(name), "bpfilter%s_%s",
				 ns->fam == &family_ipv4 ? "" : "6", hook_tags[h]);
		else
			snprintf(name, sizeof(name), "bpf%.3s%s_%.4s", ns->kind->name,
				 ns->fam == &family_ipv4 ? "" : "6", hook_tags[h]);
		codegen_init(&cg, &g->bi);
		err = codegen_dispatcher(&cg, h);
		if (!err)
			err = codegen_finalize(&cg, -1, b->progs_fd);
		if (!err) {
			err = codegen_load(&cg, name, g->log, g->log ? VERIFIER_LOG_SIZE : 0);
			if (err < 0 && g->log)
				log_verifier(ctx, name, g->log);
		}
		codegen_free(&cg);
		if (err < 0)
			return load_errno(err);
		b->disp_fd[h] = err;
	}
	err = enter_netns(ctx, ns, b);
	if (err)
		return err;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!has_hook(ns, h))
			continue;
		err = attach_hook(ctx, ns, b->disp_fd[h], h);
		if (err < 0)
			break;
		b->link_fd[h] = err;
		err = 0;
	}
	leave_netns(ctx, g);
	return err;
}

/* Wait until no CPU still runs a program that was replaced (an RCU grace period). */
static void wait_old_runs(struct context *ctx)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		bf_warn(ctx, "bpf: membarrier: %d: old counters may miss packets in flight",
			-errno);
}

static void pin_objects(struct context *ctx, struct netns *ns, struct bpf_ns *b);

/* False (with the reason logged) if tables cannot be enforced here. */
static bool can_enforce(struct context *ctx, struct bpf_global *g, struct netns *ns,
			const struct table *t)
{
	if (!g->supported) {
		bf_err(ctx, "bpf: netns %u: cannot enforce table '%s': this kernel has no BPF "
		       "netfilter programs (BPF_PROG_TYPE_NETFILTER, Linux 6.4+)", ns->ino,
		       t->name);
		return false;
	}
	if (t->valid_hooks != ns->kind->valid_hooks) {
		bf_err(ctx, "bpf: netns %u: table '%s' has hooks 0x%x, not the %s table's",
		       ns->ino, t->name, t->valid_hooks, ns->kind->name);
		return false;
	}
	return true;
}

/*
 * Load @new_table's programs and switch @ns to them; @old_table's live
 * counts are folded into its model counters. @counters_fd, if >= 0, is the
 * counters map to count into (taken over: a restored pinned map), else a
 * fresh one is created.
 */
static int install_common(struct context *ctx, struct bpf_global *g, struct netns *ns,
			  struct table *new_table, struct table *old_table, int counters_fd)
{
	int new_prog[NF_INET_NUMHOOKS] = { -1, -1, -1, -1, -1 };
	int new_cont[NF_INET_NUMHOOKS] = { -1, -1, -1, -1, -1 };
	struct cg_hook_load total = {};
	struct bpf_ns *b = ns->backend_priv;
	unsigned int i, h, swapped = 0;
	int state_fd = -1, cont_fd = -1;
	int err;

	if (!b) {
		b = bns_new(g);
		if (!b) {
			close_fd(&counters_fd);
			return -ENOMEM;
		}
		ns->backend_priv = b;
	}
	if (b->progs_fd < 0) {
		b->progs_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bpf_flt_slots",
					     sizeof(uint32_t), sizeof(uint32_t), NF_INET_NUMHOOKS,
					     NULL);
		if (b->progs_fd < 0) {
			err = -errno;
			bf_err(ctx, "bpf: netns %u: prog array: %d", ns->ino, err);
			goto fail;
		}
	}
	if (b->runs_fd < 0) {
		b->runs_fd = codegen_runs_create();
		if (b->runs_fd < 0) {
			err = b->runs_fd;
			bf_err(ctx, "bpf: netns %u: runs map: %d", ns->ino, err);
			goto fail;
		}
	}
	if (counters_fd < 0)
		counters_fd = codegen_counters_create(new_table->num_entries);
	if (counters_fd < 0) {
		err = counters_fd;
		bf_err(ctx, "bpf: netns %u: counters map (%u entries): %d", ns->ino,
		       new_table->num_entries, err);
		goto fail;
	}

	/* Stateful matches' state, new with each replace as ip_tables' (held by the programs). */
	state_fd = codegen_rule_state_create(new_table);
	if (state_fd < -1) {
		err = state_fd;
		bf_err(ctx, "bpf: netns %u: rule state map: %d", ns->ino, err);
		goto fail;
	}

	/* Generate, load and verify everything before touching what runs. */
	err = load_table_progs(ctx, g, new_table, counters_fd, b->progs_fd, b->runs_fd, state_fd,
			       new_prog, &cont_fd, &total);
	if (err < 0)
		goto fail;
	/* Each hook's programs hold the table's one continuation array (pinned per hook). */
	for (h = 0; h < NF_INET_NUMHOOKS && cont_fd >= 0; h++) {
		if (new_prog[h] < 0)
			continue;
		new_cont[h] = dup(cont_fd);
		if (new_cont[h] < 0) {
			err = -errno;
			goto fail;
		}
	}
	close_fd(&cont_fd);

	/* Switch. */
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		uint32_t key = h;

		if (new_prog[h] < 0)
			continue;
		if (bpf_map_update_elem(b->progs_fd, &key, &new_prog[h], BPF_ANY)) {
			err = -errno;
			bf_err(ctx, "bpf: netns %u: switching %s: %d", ns->ino,
			       codegen_hook_name(h), err);
			goto rollback;
		}
		swapped |= 1u << h;
	}
	if (!b->attached) {
		err = attach_dispatchers(ctx, g, ns, b);
		if (err)
			goto rollback;
		b->attached = true;
	}
	wait_old_runs(ctx);

	/* The old table's final live counts go to its model counters (backend.h). */
	if (b->counters_fd >= 0 && b->table == old_table && old_table) {
		struct xt_counters *c = calloc(old_table->num_entries + 1, sizeof(*c));

		if (c && !codegen_counters_sum(b->counters_fd, old_table->num_entries, c)) {
			bf_dbg(ctx, "bpf: netns %u: folding the live counters of %u entries",
			       ns->ino, old_table->num_entries);
			for (i = 0; i < old_table->num_entries; i++) {
				old_table->rules[i].counters.pcnt += c[i].pcnt;
				old_table->rules[i].counters.bcnt += c[i].bcnt;
			}
		} else {
			bf_err(ctx, "bpf: netns %u: old counters lost", ns->ino);
		}
		free(c);
	}
	close_fd(&b->counters_fd);
	b->counters_fd = counters_fd;
	/* No old run is left (wait_old_runs()): their continuations can go. */
	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		close_fd(&b->prog_fd[i]);
		close_fd(&b->cont_fd[i]);
		b->prog_fd[i] = new_prog[i];
		b->cont_fd[i] = new_cont[i];
	}
	b->table = new_table;
	pin_objects(ctx, ns, b);
	bf_dbg(ctx, "bpf: netns %u: table '%s' enforced (%u entries: %u programs, %u "
		"instructions, %u folded runs; %u programs loaded)", ns->ino, new_table->name,
		new_table->num_entries, total.nsegs, total.insns, total.nsets, total.nloaded);
	return 0;

rollback:
	/* Put the old programs back in the slots switched so far. */
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		uint32_t key = h;

		if (!(swapped & (1u << h)))
			continue;
		if (b->prog_fd[h] >= 0)
			bpf_map_update_elem(b->progs_fd, &key, &b->prog_fd[h], BPF_ANY);
		else
			bpf_map_delete_elem(b->progs_fd, &key);
	}
	if (!b->attached) {
		for (i = 0; i < NF_INET_NUMHOOKS; i++) {
			close_fd(&b->link_fd[i]);
			close_fd(&b->disp_fd[i]);
		}
	}
fail:
	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		close_fd(&new_prog[i]);
		close_fd(&new_cont[i]);
	}
	close_fd(&cont_fd);
	close_fd(&counters_fd);
	close_fd(&state_fd);
	if (!b->attached && b->table == NULL) {
		ns->backend_priv = NULL;
		bns_free(g, b);
		global_put(ctx);
	}
	return err;
}

static int bpf_install(struct context *ctx, struct netns *ns, struct table *new_table,
		       struct table *old_table)
{
	struct bpf_global *g = global_get(ctx);

	if (!g)
		return -ENOMEM;
	/* Nothing to enforce for the initial table: ip_tables accepts all too. */
	if (!g->supported && !ns->backend_priv && table_is_accept_all(new_table))
		return 0;
	if (!can_enforce(ctx, g, ns, new_table))
		return -EOPNOTSUPP;
	return install_common(ctx, g, ns, new_table, old_table, -1);
}

static int bpf_read_counters(struct context *ctx, struct netns *ns, const struct table *t,
			     struct xt_counters *out)
{
	struct bpf_ns *b = ns->backend_priv;
	int err;

	if (!b || b->table != t || b->counters_fd < 0)
		return 0;
	err = codegen_counters_sum(b->counters_fd, t->num_entries, out);
	if (err)
		bf_err(ctx, "bpf: netns %u: reading counters: %d", ns->ino, err);
	return err;
}

/*
 * Path of @ns's pinned object @what in the bpffs directory: <ino>_[ip6_]<what> for
 * the filter table, <ino>_[ip6_]<table>_<what> for the others.
 */
static void pin_path(struct context *ctx, const struct netns *ns, const char *what, char *buf,
		     size_t len)
{
	bool filter = ns->kind->id == BPFILTER_TABLE_FILTER;

	snprintf(buf, len, "/proc/self/fd/%d/%u_%s%s%s%s", ctx->bpffs_fd, ns->ino, ns->fam->tag,
		 filter ? "" : ns->kind->name, filter ? "" : "_", what);
}

/* Identity of a table's contents (FNV-1a): which counters map belongs to it. */
static uint64_t table_id(const struct table *t)
{
	const unsigned char *p = t->entries;
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < t->size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ t->num_entries;
}

/* Name of the pin of @hook's link or continuation array (@kind "link" or "cont"). */
static void hook_pin(const char *kind, unsigned int hook, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s", kind, hook_tags[hook]);
}

static void pin_one(struct context *ctx, struct netns *ns, int fd, const char *what)
{
	char path[128];

	pin_path(ctx, ns, what, path, sizeof(path));
	unlink(path);
	if (bpf_obj_pin(fd, path))
		bf_warn(ctx, "bpf: netns %u: cannot pin %s: %d (enforcement will not survive a "
			"helper crash)", ns->ino, what, -errno);
}

/*
 * Pin what must outlive the helper: links (they hold the dispatchers),
 * the program array (it holds the rulesets), the continuation arrays of
 * long chains (emptied when their last user reference goes) and the
 * counters map.
 */
static void pin_objects(struct context *ctx, struct netns *ns, struct bpf_ns *b)
{
	char name[32], path[128];
	unsigned int h;

	if (ctx->bpffs_fd < 0)
		return;
	/* Again each time: a restart that found none of this layout made a new one. */
	pin_one(ctx, ns, b->runs_fd, "runs");
	if (!b->pinned) {
		pin_one(ctx, ns, b->progs_fd, "slots");
		for (h = 0; h < NF_INET_NUMHOOKS; h++) {
			hook_pin("link", h, name, sizeof(name));
			if (has_hook(ns, h) && b->link_fd[h] >= 0)
				pin_one(ctx, ns, b->link_fd[h], name);
		}
		b->pinned = true;
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!has_hook(ns, h))
			continue;
		hook_pin("cont", h, name, sizeof(name));
		if (b->cont_fd[h] >= 0) {
			pin_one(ctx, ns, b->cont_fd[h], name);
		} else {
			pin_path(ctx, ns, name, path, sizeof(path));
			unlink(path);
		}
	}
	snprintf(name, sizeof(name), "cnt_%016llx", (unsigned long long)table_id(b->table));
	if (b->cnt_pin[0] && strcmp(b->cnt_pin, name)) {
		pin_path(ctx, ns, b->cnt_pin, path, sizeof(path));
		unlink(path);
	}
	pin_one(ctx, ns, b->counters_fd, name);
	snprintf(b->cnt_pin, sizeof(b->cnt_pin), "%s", name);
}

static void unpin_objects(struct context *ctx, struct netns *ns, struct bpf_ns *b)
{
	char path[128], name[32];
	unsigned int h;

	if (ctx->bpffs_fd < 0 || !b->pinned)
		return;
	pin_path(ctx, ns, "slots", path, sizeof(path));
	unlink(path);
	pin_path(ctx, ns, "runs", path, sizeof(path));
	unlink(path);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!has_hook(ns, h))
			continue;
		hook_pin("link", h, name, sizeof(name));
		pin_path(ctx, ns, name, path, sizeof(path));
		unlink(path);
		hook_pin("cont", h, name, sizeof(name));
		pin_path(ctx, ns, name, path, sizeof(path));
		unlink(path);
	}
	if (b->cnt_pin[0]) {
		pin_path(ctx, ns, b->cnt_pin, path, sizeof(path));
		unlink(path);
	}
}

/* A process in network namespace @ino, found through /proc, or 0. */
static pid_t pid_in_netns(uint32_t ino)
{
	struct dirent *de;
	pid_t pid = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while (!pid && (de = readdir(d))) {
		char path[300];
		struct stat st;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		if (!stat(path, &st) && st.st_ino == ino)
			pid = atoi(de->d_name);
	}
	closedir(d);
	return pid;
}

/*
 * After a helper restart: @t was reloaded from the state directory. Take
 * back the pinned links and program array (they kept enforcing the last
 * ruleset while the helper was away), load @t's programs and switch to
 * them, counting on in the pinned counters map if it belongs to @t.
 */
static int bpf_restore(struct context *ctx, struct netns *ns, struct table *t)
{
	struct bpf_global *g = global_get(ctx);
	struct bpf_ns *b;
	char path[128], name[32];
	unsigned int h;
	int fd, cnt;
	pid_t pid;

	if (!g)
		return -ENOMEM;
	if (!g->supported && table_is_accept_all(t))
		return 0;
	if (!can_enforce(ctx, g, ns, t))
		return -EOPNOTSUPP;
	pin_path(ctx, ns, "slots", path, sizeof(path));
	fd = ctx->bpffs_fd >= 0 ? bpf_obj_get(path) : -1;
	if (fd < 0) {
		/* Nothing pinned: attach anew from inside the namespace. */
		ns->pid = pid_in_netns(ns->ino);
		if (!ns->pid) {
			bf_warn(ctx, "bpf: netns %u: no process in it: not enforced until the next "
				"change", ns->ino);
			return -ESRCH;
		}
		return install_common(ctx, g, ns, t, NULL, -1);
	}
	b = bns_new(g);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	ns->backend_priv = b;
	b->progs_fd = fd;
	b->pinned = true;
	b->attached = true;
	/*
	 * The pinned programs' runs map: its level-0 busy flags keep them and
	 * ours from plain-adding into one counters element (codegen.h).
	 */
	pin_path(ctx, ns, "runs", path, sizeof(path));
	b->runs_fd = bpf_obj_get(path);
	if (b->runs_fd >= 0 && !codegen_runs_fit(b->runs_fd))
		close_fd(&b->runs_fd);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!has_hook(ns, h))
			continue;
		hook_pin("link", h, name, sizeof(name));
		pin_path(ctx, ns, name, path, sizeof(path));
		b->link_fd[h] = bpf_obj_get(path);
		/* Held until the switch: the pinned programs still tail-call through them. */
		hook_pin("cont", h, name, sizeof(name));
		pin_path(ctx, ns, name, path, sizeof(path));
		b->cont_fd[h] = bpf_obj_get(path);
	}
	snprintf(name, sizeof(name), "cnt_%016llx", (unsigned long long)table_id(t));
	pin_path(ctx, ns, name, path, sizeof(path));
	cnt = bpf_obj_get(path);
	/*
	 * One of another layout (a helper of another version pinned it) is not
	 * counted into, nor one whose runs map is gone: level 0 would not exclude.
	 */
	if (cnt >= 0 && (!codegen_counters_fit(cnt, t->num_entries) || b->runs_fd < 0))
		close_fd(&cnt);
	if (cnt >= 0)
		snprintf(b->cnt_pin, sizeof(b->cnt_pin), "%s", name);
	else
		bf_warn(ctx, "bpf: netns %u: no pinned counters for the saved table: counting "
			"from its saved counters", ns->ino);
	/* A handle on the namespace for bpf_tick(); else it opens one when it sees a task there. */
	pid = pid_in_netns(ns->ino);
	if (pid)
		b->netns_fd = open_netns(ctx, pid, ns->ino);
	bf_info(ctx, "bpf: netns %u: taking back pinned programs", ns->ino);
	return install_common(ctx, g, ns, t, NULL, cnt);
}

/*
 * Namespace teardown. A netfilter BPF link holds a reference on its network
 * namespace (bpf_nf_link_attach(): get_net_track()), so a namespace whose
 * table we enforce never exits by itself: no pernet exit, no NETNS_EXIT from
 * the module, links held forever. So, when idle, we look for namespaces
 * that nothing but us keeps alive and release them as if NETNS_EXIT had
 * come; the namespace then dies, and the module's NETNS_EXIT that follows
 * finds nothing. Besides our links and our own handle on it
 * (bpf_ns.netns_fd), a namespace is kept alive by:
 *  - a task in it, an nsfs mount of it, an open file of it: seen in /proc,
 *    the helper's own process excepted (its files are our handles);
 *  - a socket created in it and held from another namespace (a process
 *    that setns()'d out, or got it by SCM_RIGHTS): invisible in /proc, so
 *    for a namespace /proc shows nothing of we enter it and count its
 *    sockets (sockdiag.c). Packets still reach such a socket: the table
 *    stays enforced until the socket is gone.
 * Fail closed: a namespace we cannot enter or count stays enforced (at
 * worst it is kept alive, with its links, until the helper exits).
 */
struct ns_scan {
	struct netns **ns;
	bool *alive;
	unsigned int n;
	char self[16];			/* the helper's pid, as /proc names it */
	uint64_t mnt_seen[512];		/* mount namespaces whose mountinfo was read */
	unsigned int nmnt;
};

/*
 * Namespace @ino is alive. @path, if not NULL, is a file of it: it becomes
 * our handle on a namespace that has none yet (one restored after a helper
 * restart with no task in it then).
 */
static void scan_mark(struct ns_scan *s, unsigned long ino, const char *path)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		struct bpf_ns *b = s->ns[i]->backend_priv;
		struct stat st;
		int fd;

		if (s->ns[i]->ino != ino)
			continue;
		s->alive[i] = true;
		if (!path || b->netns_fd >= 0)
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && st.st_ino == ino)
			b->netns_fd = fd;
		else if (fd >= 0)
			close(fd);
	}
}

/* nsfs mounts of network namespaces seen by process @pid's mount namespace. */
static void scan_mounts(struct ns_scan *s, const char *pid)
{
	char path[300], line[1024], root[64];
	struct stat st;
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	if (stat(path, &st))
		return;
	for (i = 0; i < s->nmnt; i++)
		if (s->mnt_seen[i] == st.st_ino)
			return;
	if (s->nmnt < sizeof(s->mnt_seen) / sizeof(s->mnt_seen[0]))
		s->mnt_seen[s->nmnt++] = st.st_ino;
	snprintf(path, sizeof(path), "/proc/%s/mountinfo", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " - nsfs ") || sscanf(line, "%*d %*d %*s %63s", root) != 1)
			continue;
		if (!strncmp(root, "net:[", 5))
			scan_mark(s, strtoul(root + 5, NULL, 10), NULL);
	}
	fclose(f);
}

/* Tasks of process @pid in a namespace, its open namespace files, its mounts. */
static void scan_process(struct ns_scan *s, const char *pid)
{
	char path[600], link[64];
	struct dirent *de;
	struct stat st;
	DIR *d;

	/* Ours: our handles and a thread inside a namespace mid-census are not users. */
	if (!strcmp(pid, s->self))
		goto mounts;
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/ns/net", pid, de->d_name);
		if (!stat(path, &st))
			scan_mark(s, st.st_ino, path);
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (n <= 5)
			continue;
		link[n] = '\0';
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		if (!strncmp(link, "net:[", 5))
			scan_mark(s, strtoul(link + 5, NULL, 10), path);
	}
	if (d)
		closedir(d);
mounts:
	scan_mounts(s, pid);
}

/* Why bpf_tick() keeps a namespace /proc shows nothing of (bpf_ns.kept). */
enum { KEPT_NOT, KEPT_NO_HANDLE, KEPT_NO_ENTRY, KEPT_NO_COUNT, KEPT_SOCKET };

/*
 * May @ns, which /proc shows nothing of, be released? Not while a socket
 * holds it, nor when we cannot tell. Logs each new reason to keep it.
 */
static bool netns_releasable(struct context *ctx, struct bpf_global *g, struct netns *ns)
{
	struct bpf_ns *b = ns->backend_priv;
	struct sockdiag_hit hit = { 0 };
	int kept, err = 0;

	if (b->netns_fd < 0) {
		kept = KEPT_NO_HANDLE;
	} else if (setns(b->netns_fd, CLONE_NEWNET)) {
		err = -errno;
		kept = KEPT_NO_ENTRY;
	} else {
		err = sockdiag_netns_busy(&hit);
		leave_netns(ctx, g);
		kept = err < 0 ? KEPT_NO_COUNT : err ? KEPT_SOCKET : KEPT_NOT;
	}
	if (kept != b->kept) {
		switch (kept) {
		case KEPT_NO_HANDLE:
			bf_warn(ctx, "bpf: netns %u: no task, mount or file of it, and no handle on "
				"it to look for sockets: still enforced", ns->ino);
			break;
		case KEPT_NO_ENTRY:
			bf_warn(ctx, "bpf: netns %u: cannot enter it to look for sockets (%d): "
				"still enforced", ns->ino, err);
			break;
		case KEPT_NO_COUNT:
			bf_warn(ctx, "bpf: netns %u: cannot count its %s sockets (%d): still "
				"enforced", ns->ino, hit.kind ?: "", err);
			break;
		case KEPT_SOCKET:
			if (hit.ino)
				bf_info(ctx, "bpf: netns %u: no task, mount or file of it, but a %s "
					"socket (protocol %u, port %u, inode %lu) in it: still enforced",
					ns->ino, hit.kind, hit.protocol, hit.port, hit.ino);
			else
				bf_info(ctx, "bpf: netns %u: no task, mount or file of it, but a %s "
					"socket in it: still enforced", ns->ino, hit.kind);
			break;
		}
	}
	b->kept = kept;
	return kept == KEPT_NOT;
}

static void bpf_tick(struct context *ctx)
{
	struct bpf_global *g = ctx->backend_priv;
	struct ns_scan *s = NULL;
	struct dirent *de;
	struct netns *ns;
	struct stat self;
	unsigned int i, n = 0;
	ssize_t len;
	DIR *d;

	if (!g || !g->users || g->self_netns_fd < 0 || fstat(g->self_netns_fd, &self))
		return;
	for (ns = ctx->netns; ns; ns = ns->next)
		if (ns->backend_priv && ns->ino != self.st_ino)
			n++;
	if (!n)
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;
	s->ns = calloc(n, sizeof(*s->ns));
	s->alive = calloc(n, sizeof(*s->alive));
	if (!s->ns || !s->alive)
		goto out;
	for (ns = ctx->netns; ns; ns = ns->next)
		if (ns->backend_priv && ns->ino != self.st_ino)
			s->ns[s->n++] = ns;
	/* Unknown, nothing is skipped: our own handles then keep everything (fail closed). */
	len = readlink("/proc/self", s->self, sizeof(s->self) - 1);
	s->self[len > 0 ? len : 0] = '\0';
	d = opendir("/proc");
	if (!d)
		goto out;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			scan_process(s, de->d_name);
	closedir(d);
	for (i = 0; i < s->n; i++) {
		struct bpf_ns *b;
		uint32_t ino, j;

		/* Released with an earlier entry of its namespace (the other family's). */
		if (!s->ns[i])
			continue;
		b = s->ns[i]->backend_priv;
		ino = s->ns[i]->ino;
		if (s->alive[i]) {
			b->kept = KEPT_NOT;
			continue;
		}
		if (!netns_releasable(ctx, g, s->ns[i]))
			continue;
		bf_info(ctx, "bpf: netns %u: nothing but bpfilter keeps it alive: releasing it",
			ino);
		/*
		 * Frees every family's entry of the namespace, as its exit does:
		 * the later ones in s->ns are gone too. The others stay valid.
		 */
		for (j = i + 1; j < s->n; j++)
			if (s->ns[j] && s->ns[j]->ino == ino)
				s->ns[j] = NULL;
		context_netns_exit(ctx, ino);
	}
out:
	if (s) {
		free(s->ns);
		free(s->alive);
	}
	free(s);
}

static void bpf_release(struct context *ctx, struct netns *ns)
{
	struct bpf_global *g = ctx->backend_priv;
	struct bpf_ns *b = ns->backend_priv;

	if (!b || !g)
		return;
	unpin_objects(ctx, ns, b);
	ns->backend_priv = NULL;
	bns_free(g, b);
	global_put(ctx);
}

const struct backend_ops bpf_backend_ops = {
	.name = "bpf",
	.install = bpf_install,
	.read_counters = bpf_read_counters,
	.restore = bpf_restore,
	.release = bpf_release,
	.tick = bpf_tick,
};
