// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the blob parser and the code generator: the input is
 * an ipt_replace header followed by the entries. Whatever it is,
 * table_from_replace() must return 0 or -errno without a sanitizer report,
 * and an accepted table must
 *  - read back (GET_ENTRIES view) and re-validate to the same bytes;
 *  - generate, for each of its built-in chains, a program (codegen_hook(),
 *    every segment, no bpf() call: nothing is loaded) whose jumps all land
 *    inside it, or fail only as the helper may (EOPNOTSUPP, E2BIG, ENOMEM);
 *  - fill its rule state slots (match_ops.state_init) as the helper would.
 *
 * The generator is given a fixed kernel (fuzz_kernel(): every kfunc,
 * conntrack BTF, HZ 250), not the host's, so a run is the same anywhere.
 * repl.counters, a user pointer the parser never reads (SET_REPLACE writes
 * the old counters there), picks variants of the generation:
 *   bit 0  a kernel without conntrack, HZ or bpfilter_kfunc.ko's REJECT/LOG
 *   bit 1  no folding of rule runs into map lookups
 *   bit 2  tiny segments: a chain cut into many programs
 *   bit 3  header reads as for a non-linear skb
 *   bit 4  the blob is an ip6t_replace's (the seeds' choice, kept in check mode)
 *
 * BPFILTER_FUZZ_CHECK=1 (30-fuzz.sh, on the seed corpus): every input must
 * be accepted and every chain must generate; each extension whose checkentry
 * took the table and whose generator then ran is printed as "fuzz_blob:
 * generated NAME/REV", each revision the helper registers under that name as
 * "fuzz_blob: registered NAME/REV".
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "codegen.h"
#include "context.h"
#include "family.h"
#include "match.h"
#include "rule.h"
#include "table.h"
#include "target.h"

#define FUZZ_HZ		250
#define V_BARE		(1u << 0)
#define V_NOFOLD	(1u << 1)
#define V_SEGMENTS	(1u << 2)
#define V_SLOW		(1u << 3)
#define V_IPV6		(1u << 4)
/* Instructions per segment with V_SEGMENTS: about one rule each. */
#define FUZZ_SEG_INSNS	48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_mode;

/*
 * A 6.18 x86_64 kernel with nf_conntrack and bpfilter_kfunc.ko loaded: the
 * offsets and vmlinux ids are that kernel's BTF, the module's kfunc ids made
 * up. @bare: without conntrack, HZ and the REJECT and LOG kfuncs. The memset
 * leaves every other kfunc id (the module's newer ones) at 0: present.
 */
static void fuzz_kernel(struct btf_info *bi, bool bare)
{
	memset(bi, 0, sizeof(*bi));
	bi->kf_dynptr_from_skb = 63300;
	bi->kf_dynptr_slice = 63329;
	bi->kf_rdonly_cast = 64919;
	bi->ty_iphdr = 27262;
	bi->ty_tcphdr = 27260;
	bi->ty_udphdr = 27270;
	bi->nf_ctx_state = 0;
	bi->nf_ctx_skb = 8;
	bi->state_in = 8;
	bi->state_out = 16;
	bi->netdev_name = 280;
	bi->skb_len = 112;
	bi->skb_data_len = 116;
	bi->skb_data = 200;
	bi->skb_mark = 164;
	bi->skb_nfct = 104;
	bi->skb_dev = 16;
	bi->skb_head = 192;
	bi->skb_mac_header = 182;
	bi->skb_network_header = 180;
	bi->skb_refdst = 88;
	bi->skb_pkt_type = 128;
	bi->skb_pkt_type_mask = 7;
	bi->netdev_type = 536;
	bi->netdev_group = 540;
	bi->dst_tclassid = 100;
	bi->ct_ok = true;
	bi->ct_status = 128;
	bi->ct_timeout = 8;
	bi->ct_tuple = 32;
	bi->ct_tuple_stride = 56;
	bi->ct_tuple_size = 40;
	bi->tuple_src_u3 = 0;
	bi->tuple_src_port = 16;
	bi->tuple_dst_u3 = 20;
	bi->tuple_dst_port = 36;
	bi->tuple_protonum = 38;
	bi->ct_mark = 168;
	bi->hz = FUZZ_HZ;
	bi->kf_reject = 120001;
	bi->kf_log = 120002;
	bi->mod_btf_fd = -1;
	bi->loaded = true;
	if (bare) {
		bi->skb_nfct = 0;
		bi->ct_ok = false;
		bi->hz = 0;
		bi->kf_reject = -1;
		bi->kf_log = -1;
	}
}

/* Every jump of a generated program lands on a placed label inside it. */
static void check_jumps(const struct codegen *cg)
{
	uint32_t k;

	for (k = 0; k < cg->nfixups; k++) {
		const struct cg_fixup *f = &cg->fixups[k];
		int64_t off;

		if (f->insn >= cg->len)
			abort();
		if (f->kind != CG_FIX_JMP && f->kind != CG_FIX_JA)
			continue;
		if (f->label >= cg->nlabels || cg->labels[f->label].pos >= cg->len)
			abort();
		off = (int64_t)cg->labels[f->label].pos - f->insn - 1;
		/* A conditional jump must reach (codegen_finalize()'s E2BIG). */
		if (f->kind == CG_FIX_JMP && (off < INT16_MIN || off > INT16_MAX))
			abort();
	}
}

/* Generate every program of @hook as codegen_load_hook() does: 0 or -errno. */
static int gen_hook(const struct table *t, unsigned int hook, const struct btf_info *bi,
		    uint32_t variant)
{
	struct cg_hook_load l = {
		.bi = bi, .counters_fd = -1, .progs_fd = -1, .runs_fd = -1, .state_fd = -1,
		.fold_min = (variant & V_NOFOLD) ? 0 : CG_FOLD_MIN,
		/* Tiny segments also fold short runs of jumps: many leaves programs. */
		.fold_jump_min = (variant & V_SEGMENTS) ? 2 : CG_FOLD_JUMP_MIN,
		.seg_insns = (variant & V_SEGMENTS) ? FUZZ_SEG_INSNS : CG_SEG_INSNS,
		.slow_reads = variant & V_SLOW,
	};
	struct cg_plan p = {};
	uint32_t k;
	int err;

	err = codegen_plan_hook(&p, &l, t, hook);
	if (!err)
		for (k = 0; k < p.nprogs; k++)
			check_jumps(&p.progs[k]);
	else if (check_mode && l.err_what)
		fprintf(stderr, "fuzz_blob: %s\n", l.err_what);
	codegen_plan_free(&p);
	/* Anything else is a table the parser should not have taken. */
	if (err && err != -EOPNOTSUPP && err != -E2BIG && err != -ENOMEM)
		abort();
	return err;
}

static int gen_table(const struct table *t, const struct btf_info *bi, uint32_t variant)
{
	unsigned int hook;
	int err, ret = 0;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		if (!(t->valid_hooks & (1u << hook)))
			continue;
		err = gen_hook(t, hook, bi, variant);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/* What codegen_rule_state_create() puts in the map, without the map. */
static void state_slots(const struct table *t)
{
	uint8_t slot[CG_STATE_SIZE];
	uint32_t i, k;

	for (i = 0; i < t->num_entries; i++) {
		for (k = 0; k < t->rules[i].num_matches; k++) {
			const struct match *m = &t->rules[i].matches[k];

			if (m->ops->state_init)
				m->ops->state_init(m->data, slot);
		}
	}
}

/*
 * Check mode: stand-in ops whose generator notes that it ran, then calls the
 * extension's. They are copies, so code that compares ops pointers (folding,
 * recent's revision) sees other ops in this pass; the pass before it
 * generated the table as it is.
 */
struct spy {
	union {
		struct match_ops m;
		struct target_ops t;
	} ops;			/* first: m->ops / t->ops points here */
	const void *orig;
	bool target;
	bool ran;
};

static int spy_match_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	struct spy *s = (struct spy *)m->ops;

	s->ran = true;
	return ((const struct match_ops *)s->orig)->gen(cg, rule, m);
}

static int spy_target_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	struct spy *s = (struct spy *)t->ops;

	s->ran = true;
	return ((const struct target_ops *)s->orig)->gen(cg, rule, t);
}

static void print_registered(const struct spy *s, uint8_t nfproto)
{
	const char *name = s->target ? s->ops.t.id.name : s->ops.m.id.name;
	unsigned int rev;

	for (rev = 0; rev < 256; rev++)
		if (!(s->target ? target_revision(nfproto, name, rev) :
				  match_revision(nfproto, name, rev)))
			fprintf(stderr, "fuzz_blob: registered %s/%u\n", name, rev);
}

static void check_seed(struct table *t, const struct family *fam, const struct btf_info *bi)
{
	struct spy *spies;
	uint32_t i, k, n = 0;

	for (i = 0; i < t->num_entries; i++)
		n += t->rules[i].num_matches + 1;
	spies = calloc(n + 1, sizeof(*spies));
	if (!spies)
		abort();
	n = 0;
	for (i = 0; i < t->num_entries; i++) {
		struct rule *r = &t->rules[i];

		for (k = 0; k < r->num_matches; k++) {
			struct spy *s = &spies[n++];

			s->ops.m = *r->matches[k].ops;
			s->orig = r->matches[k].ops;
			if (s->ops.m.gen)
				s->ops.m.gen = spy_match_gen;
			r->matches[k].ops = &s->ops.m;
		}
		if (r->target.kind == TARGET_OTHER) {
			struct spy *s = &spies[n++];

			s->ops.t = *r->target.ops;
			s->orig = r->target.ops;
			s->target = true;
			if (s->ops.t.gen)
				s->ops.t.gen = spy_target_gen;
			r->target.ops = &s->ops.t;
		}
	}
	if (gen_table(t, bi, 0)) {
		fprintf(stderr, "fuzz_blob: seed does not generate with its matches spied on\n");
		abort();
	}
	for (k = 0; k < n; k++) {
		const struct spy *s = &spies[k];

		if (!s->ran)
			continue;
		fprintf(stderr, "fuzz_blob: generated %s/%u\n",
			s->target ? s->ops.t.id.name : s->ops.m.id.name,
			s->target ? s->ops.t.id.revision : s->ops.m.id.revision);
		print_registered(s, fam->nfproto);
	}
	/* Put the real ops back before the table is freed. */
	n = 0;
	for (i = 0; i < t->num_entries; i++) {
		struct rule *r = &t->rules[i];

		for (k = 0; k < r->num_matches; k++)
			r->matches[k].ops = spies[n++].orig;
		if (r->target.kind == TARGET_OTHER)
			r->target.ops = spies[n++].orig;
	}
	free(spies);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct btf_info full, bare;
	static struct context ctx;
	static int ready;
	struct xt_counters *counters;
	const struct family *fam;
	struct ipt_replace repl;
	struct table *t, *t2;
	void *blob, *view, *view2;
	uint32_t variant;
	int err;

	if (!ready) {
		const char *check = getenv("BPFILTER_FUZZ_CHECK");

		/* limit's checkentry needs the kernel's HZ, as bpfilter.ko passes it. */
		setenv("BPFILTER_HZ", "250", 1);
		if (context_init(&ctx, -1, -1, "store"))
			abort();
		check_mode = check && check[0] == '1';
		/* A seed the parser refuses should say why. */
		ctx.log.level = check_mode ? LOG_LVL_DEBUG : LOG_LVL_ERR;
		fuzz_kernel(&full, false);
		fuzz_kernel(&bare, true);
		ready = 1;
	}
	if (size < sizeof(repl)) {
		if (check_mode)
			abort();
		return 0;
	}
	memcpy(&repl, data, sizeof(repl));
	/* The sockopt layer guarantees size bytes are there: do the same. */
	repl.size = size - sizeof(repl);
	blob = malloc(repl.size ? repl.size : 1);
	if (!blob)
		return 0;
	memcpy(blob, data + sizeof(repl), repl.size);
	fam = ((uintptr_t)repl.counters & V_IPV6) ? &family_ipv6 : &family_ipv4;
	err = table_from_replace(&ctx, fam, &repl, blob, &t);
	if (err) {
		free(blob);
		if (check_mode) {
			fprintf(stderr, "fuzz_blob: seed rejected: table_from_replace %d\n", err);
			abort();
		}
		return 0;
	}
	counters = calloc(t->num_entries ? t->num_entries : 1, sizeof(*counters));
	view = malloc(t->size ? t->size : 1);
	if (!counters || !view)
		abort();
	memcpy(view, t->entries, t->size);
	table_to_entries(t, counters, view);
	/* What GET_ENTRIES shows is itself a valid table with the same layout. */
	if (table_from_replace(&ctx, fam, &repl, view, &t2))
		abort();
	view2 = malloc(t->size ? t->size : 1);
	if (!view2)
		abort();
	memcpy(view2, t2->entries, t2->size);
	table_to_entries(t2, counters, view2);
	if (t2->num_entries != t->num_entries || memcmp(view, view2, t->size))
		abort();
	free(view2);
	table_free(t2);

	variant = check_mode ? 0 : (uint32_t)(uintptr_t)repl.counters;
	state_slots(t);
	err = gen_table(t, (variant & V_BARE) ? &bare : &full, variant);
	if (check_mode) {
		if (err) {
			fprintf(stderr, "fuzz_blob: seed does not generate: %d\n", err);
			abort();
		}
		check_seed(t, fam, &full);
	}
	table_free(t);
	free(counters);
	free(view);
	free(blob);
	return 0;
}
