// SPDX-License-Identifier: GPL-2.0
/*
 * Held matches (hold.h): the records of BPFILTER_HOLDS_FILE and the code
 * that calls the kernel's match.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "codegen.h"
#include "context.h"
#include "family.h"
#include "hold.h"
#include "io.h"
#include "match.h"
#include "rule.h"
#include "table.h"

/* The @n-th id from @base, its sequence part wrapping within @base's table range. */
static uint32_t hold_id_at(uint32_t base, uint32_t n)
{
	return (base & ~HOLD_SEQ_MASK) | ((base + n) & HOLD_SEQ_MASK);
}

void holds_number(struct table *t, uint32_t base)
{
	uint32_t i, k, n = 0;

	t->hold_base = base;
	for (i = 0; i < t->num_entries; i++) {
		struct rule *r = &t->rules[i];

		for (k = 0; k < r->num_matches; k++)
			if (r->matches[k].ops->kernel)
				r->matches[k].hold_id = hold_id_at(base, n++);
		if (r->target.kind == TARGET_OTHER && r->target.ops->kernel)
			r->target.hold_id = hold_id_at(base, n++);
	}
	t->num_holds = n;
}

/* Fill one record of a held match or target of rule @r and return its size. */
static size_t hold_record(const struct table *t, uint8_t table, const struct rule *r,
			  const struct ext_id *id, uint16_t size, uint32_t hold_id,
			  const void *data, bool target, struct bpfilter_hold *h)
{
	strncpy(h->name, id->name, sizeof(h->name) - 1);
	h->revision = id->revision;
	h->size = size;
	h->id = hold_id;
	h->hook_mask = r->comefrom;
	h->family = t->fam->nfproto;
	h->table = table;
	h->target = target;
	t->fam->from_model(&r->ip, h->entry);
	memcpy(h + 1, data, size);
	return sizeof(*h) + size;
}

/* The records of @t's holds, as the module reads them; *out NULL if none. */
/* A record's entry holds either family's network header part. */
_Static_assert(sizeof(((struct bpfilter_hold *)0)->entry) >= sizeof(struct ip6t_ip6) &&
	       sizeof(((struct bpfilter_hold *)0)->entry) >= sizeof(struct ipt_ip),
	       "struct bpfilter_hold's entry is too small");

_Static_assert(BPFILTER_TABLE_MAX <= 1u << (31 - HOLD_KIND_SHIFT),
	       "hold ids have no room for every table's range");

static int holds_records(const struct table *t, uint8_t table, char **out, size_t *len)
{
	size_t size = 0, off = 0;
	uint32_t i, k;
	char *buf;

	*out = NULL;
	*len = 0;
	if (!t->num_holds)
		return 0;
	if (t->num_holds > BPFILTER_HOLDS_MAX)
		return -ENOMEM;
	for (i = 0; i < t->num_entries; i++) {
		const struct rule *r = &t->rules[i];

		for (k = 0; k < r->num_matches; k++)
			if (r->matches[k].ops->kernel)
				size += sizeof(struct bpfilter_hold) + r->matches[k].ops->size;
		if (r->target.kind == TARGET_OTHER && r->target.ops->kernel)
			size += sizeof(struct bpfilter_hold) + r->target.ops->size;
	}
	if (size > BPFILTER_HOLDS_MAX_SIZE)
		return -ENOMEM;
	buf = calloc(1, size);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < t->num_entries; i++) {
		const struct rule *r = &t->rules[i];
		const struct target *tg = &r->target;

		for (k = 0; k < r->num_matches; k++) {
			const struct match *m = &r->matches[k];

			if (m->ops->kernel)
				off += hold_record(t, table, r, &m->ops->id, m->ops->size,
						   m->hold_id, m->data, false,
						   (struct bpfilter_hold *)(buf + off));
		}
		if (tg->kind == TARGET_OTHER && tg->ops->kernel)
			off += hold_record(t, table, r, &tg->ops->id, tg->ops->size, tg->hold_id,
					   tg->data, true, (struct bpfilter_hold *)(buf + off));
	}
	*out = buf;
	*len = size;
	return 0;
}

/* Does the module hold exactly @buf (the file it loaded, unchanged since)? */
static bool holds_held(struct context *ctx, const char *buf, size_t len)
{
	bool same = false;
	char *file;
	int fd;

	if (!(ctx->req_flags & BPFILTER_REQ_HELD))
		return false;
	fd = openat(ctx->state_dir_fd, BPFILTER_HOLDS_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	file = malloc(len + 1);
	/* One byte more than expected: a longer file is not the same set. */
	if (file && read_exact(fd, file, len) == 0 && read(fd, file + len, 1) == 0)
		same = !memcmp(file, buf, len);
	free(file);
	close(fd);
	return same;
}

static int holds_write(struct context *ctx, const char *buf, size_t len)
{
	int fd, err;

	fd = openat(ctx->state_dir_fd, BPFILTER_HOLDS_FILE ".new",
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_exact(fd, buf, len);
	close(fd);
	if (!err && renameat(ctx->state_dir_fd, BPFILTER_HOLDS_FILE ".new",
			     ctx->state_dir_fd, BPFILTER_HOLDS_FILE))
		err = -errno;
	return err;
}

int holds_prepare(struct context *ctx, const struct netns *ns, struct table *t)
{
	const struct table *cur = ns->table;
	size_t len;
	char *buf;
	int err;

	/*
	 * After the ids of the table in force: both sets live until the swap is
	 * settled. Each table numbers in its own range: ids are unique in the
	 * namespace and family.
	 */
	holds_number(t, (uint32_t)ns->kind->id << HOLD_KIND_SHIFT |
			((cur->hold_base + cur->num_holds) & HOLD_SEQ_MASK));
	err = holds_records(t, ns->kind->id, &buf, &len);
	if (err == -ENOMEM)
		bf_err(ctx, "replace '%s': %u matches and targets run by the kernel: more than "
		       "bpfilter.ko holds (%u records, %u bytes)", t->name, t->num_holds,
		       BPFILTER_HOLDS_MAX, BPFILTER_HOLDS_MAX_SIZE);
	if (err || !buf)
		return err;
	if (!(ctx->req_flags & BPFILTER_REQ_HOLD_CAPABLE) || ctx->state_dir_fd < 0) {
		bf_warn(ctx, "replace '%s': matches run by the kernel (recent, owner, ...) need "
			"bpfilter.ko: refused", t->name);
		err = -EOPNOTSUPP;
	} else if (!holds_held(ctx, buf, len)) {
		err = holds_write(ctx, buf, len);
		if (!err) {
			ctx->reply_flags |= BPFILTER_REPLY_HOLD_CHECK |
					    ns->kind->id << BPFILTER_REPLY_TABLE_SHIFT;
			err = -EAGAIN;
		}
	}
	free(buf);
	return err;
}

/*
 * The target's verdict through the kfunc bpfilter_xt_target(): XT_CONTINUE
 * goes on with the next rule, NF_ACCEPT and NF_DROP end the program; any
 * other verdict (a hold the module lacks included) drops the packet.
 */
int hold_target_gen(struct codegen *cg, const struct rule *rule, const struct target *t)
{
	uint32_t next = cg_new_label(cg), drop = cg_new_label(cg);

	(void)rule;
	if (cg->bi->kf_xt_target < 0)
		return cg_unsupported(cg, "a target run by the kernel needs the kfuncs of bpfilter.ko");
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, t->hold_id));
	cg_call_module_kfunc(cg, cg->bi->kf_xt_target);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JEQ, BPF_REG_0, (int32_t)XT_CONTINUE, 0), next);
	cg_jmp(cg, CG_JMP32_IMM(BPF_JNE, BPF_REG_0, NF_ACCEPT, 0), drop);
	cg_exit_verdict(cg, CG_NF_ACCEPT);
	cg_place(cg, drop);
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, next);
	return cg->err;
}

/* 1: the match holds, 0: it does not; a hotdrop or a hold the module lacks drops the packet. */
int hold_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	if (cg->bi->kf_xt_match < 0)
		return cg_unsupported(cg, "a match run by the kernel needs the kfuncs of bpfilter.ko");
	cg_ld_ctx(cg, BPF_REG_1);
	cg_emit(cg, CG_MOV64_IMM(BPF_REG_2, m->hold_id));
	cg_call_module_kfunc(cg, cg->bi->kf_xt_match);
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 1, 0), hit);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, hit);
	return cg->err;
}
