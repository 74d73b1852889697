// SPDX-License-Identifier: GPL-2.0
/*
 * -m recent, revisions 0 and 1 (net/netfilter/xt_recent.c). The lists are
 * the kernel's own: bpfilter_kfunc.ko holds them with xt_recent's
 * checkentry (so /proc/net/xt_recent/NAME and xt_recent's module
 * parameters are as with ip_tables) and the program calls recent_mt()
 * through the kfunc bpfilter_recent(). Only the checks and the protocol
 * that makes the module hold a table's lists before it is in force
 * (bpfilter.h) live here.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpfilter.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_recent.h>

#include "codegen.h"
#include "context.h"
#include "io.h"
#include "match.h"
#include "rule.h"
#include "table.h"

/* Revision 0 is revision 1 with a full mask, as recent_mt_check_v0() makes it. */
static void recent_v1(const struct match *m, struct xt_recent_mtinfo_v1 *v1)
{
	memset(v1, 0, sizeof(*v1));
	if (m->ops == &recent1_match_ops) {
		memcpy(v1, m->data, sizeof(*v1));
		return;
	}
	memcpy(v1, m->data, sizeof(struct xt_recent_mtinfo));
	memset(&v1->mask, 0xff, sizeof(v1->mask));
}

/*
 * recent_mt_check() up to the list: flags, one command, modifiers, name.
 * The bound on hitcount is the running kernel's (255 until Linux 6.12,
 * none since): xt_recent's own checkentry, which the module runs before
 * the table is put in force, applies it.
 */
static int recent_check(struct context *ctx, const struct ipt_ip *ip, const void *data)
{
	const struct xt_recent_mtinfo *info = data;
	uint8_t cmd = info->check_set &
		      (XT_RECENT_SET | XT_RECENT_REMOVE | XT_RECENT_CHECK | XT_RECENT_UPDATE);
	size_t len = strnlen(info->name, sizeof(info->name));

	(void)ip;
	if (info->check_set & ~XT_RECENT_VALID_FLAGS) {
		bf_dbg(ctx, "match 'recent': unsupported userspace flags (%08x)", info->check_set);
		return -EINVAL;
	}
	if (!cmd || (cmd & (cmd - 1)))
		return -EINVAL;
	if ((info->check_set & (XT_RECENT_SET | XT_RECENT_REMOVE)) &&
	    (info->seconds || info->hit_count || (info->check_set & XT_RECENT_MODIFIERS)))
		return -EINVAL;
	if ((info->check_set & XT_RECENT_REAP) && !info->seconds)
		return -EINVAL;
	/* xt_check_proc_name() */
	if (len == 0)
		return -EINVAL;
	if (len == sizeof(info->name))
		return -ENAMETOOLONG;
	if (!strcmp(info->name, ".") || !strcmp(info->name, "..") || strchr(info->name, '/'))
		return -EINVAL;
	return 0;
}

/*
 * recent_mt() is xt_recent's: the kfunc answers 1 (match, with the
 * inversion applied), 0 (no match), or anything else, a hotdrop or a list
 * the module does not hold: the packet is dropped, never let through.
 */
static int recent_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	struct xt_recent_mtinfo_v1 v1;
	uint32_t hit = cg_new_label(cg);

	(void)rule;
	if (cg->bi->kf_recent < 0)
		return cg_unsupported(cg, "recent: needs the kfuncs of bpfilter.ko");
	recent_v1(m, &v1);
	cg_call_kfunc_ctx_mem(cg, cg->bi->kf_recent, &v1, sizeof(v1));
	cg_jmp(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 1, 0), hit);
	cg_jmp_fail(cg, CG_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	cg_exit_verdict(cg, CG_NF_DROP);
	cg_place(cg, hit);
	return cg->err;
}

const struct match_ops recent0_match_ops = {
	.id = { .name = "recent", .revision = 0, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_recent_mtinfo)),
	.usersize = sizeof(struct xt_recent_mtinfo),
	.check = recent_check,
	.gen = recent_gen,
};

const struct match_ops recent1_match_ops = {
	.id = { .name = "recent", .revision = 1, .family = NFPROTO_IPV4 },
	.size = XT_ALIGN(sizeof(struct xt_recent_mtinfo_v1)),
	.usersize = sizeof(struct xt_recent_mtinfo_v1),
	.check = recent_check,
	.gen = recent_gen,
};

/*
 * The payloads of @t's recent matches in rule order, as revision 1: the
 * module runs checkentry on each, as translate_table() does, so the lists
 * get the kernel's mask and stamp count. *out is NULL if there are none.
 */
static int recent_lists(const struct table *t, struct xt_recent_mtinfo_v1 **out, uint32_t *n)
{
	struct xt_recent_mtinfo_v1 *lists = NULL, *grown;
	uint32_t i, k, count = 0;

	for (i = 0; i < t->num_entries; i++) {
		const struct rule *r = &t->rules[i];

		for (k = 0; k < r->num_matches; k++) {
			const struct match *m = &r->matches[k];

			if (m->ops != &recent0_match_ops && m->ops != &recent1_match_ops)
				continue;
			if (count == BPFILTER_RECENT_MAX) {
				free(lists);
				return -ENOMEM;
			}
			grown = realloc(lists, (count + 1) * sizeof(*lists));
			if (!grown) {
				free(lists);
				return -ENOMEM;
			}
			lists = grown;
			recent_v1(m, &lists[count++]);
		}
	}
	*out = lists;
	*n = count;
	return 0;
}

/* Does the module hold exactly @lists (the file it loaded, unchanged since)? */
static bool recent_held(struct context *ctx, const struct xt_recent_mtinfo_v1 *lists, uint32_t n)
{
	size_t len = n * sizeof(*lists);
	bool same = false;
	char *buf;
	int fd;

	if (!(ctx->req_flags & BPFILTER_REQ_RECENT_HELD))
		return false;
	fd = openat(ctx->state_dir_fd, BPFILTER_RECENT_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	buf = malloc(len + 1);
	/* One byte more than expected: a longer file is not the same set. */
	if (buf && read_exact(fd, buf, len) == 0 && read(fd, buf + len, 1) == 0)
		same = !memcmp(buf, lists, len);
	free(buf);
	close(fd);
	return same;
}

static int recent_write(struct context *ctx, const struct xt_recent_mtinfo_v1 *lists, uint32_t n)
{
	int fd, err;

	fd = openat(ctx->state_dir_fd, BPFILTER_RECENT_FILE ".new",
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_exact(fd, lists, n * sizeof(*lists));
	close(fd);
	if (!err && renameat(ctx->state_dir_fd, BPFILTER_RECENT_FILE ".new",
			     ctx->state_dir_fd, BPFILTER_RECENT_FILE))
		err = -errno;
	return err;
}

int recent_lists_prepare(struct context *ctx, const struct table *t)
{
	struct xt_recent_mtinfo_v1 *lists;
	uint32_t n;
	int err;

	err = recent_lists(t, &lists, &n);
	if (err || !n)
		return err;
	if (!(ctx->req_flags & BPFILTER_REQ_RECENT_CAPABLE) || ctx->state_dir_fd < 0) {
		bf_warn(ctx, "replace '%s': recent matches need bpfilter.ko to hold their lists: "
			"refused", t->name);
		err = -EOPNOTSUPP;
	} else if (!recent_held(ctx, lists, n)) {
		err = recent_write(ctx, lists, n);
		if (!err) {
			ctx->reply_flags |= BPFILTER_REPLY_RECENT_CHECK;
			err = -EAGAIN;
		}
	}
	free(lists);
	return err;
}
