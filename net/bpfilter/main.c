// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter_umh: the usermode helper. Reads one struct mbox_request at a time
 * from fd 0, serves it, answers with one struct mbox_reply on fd 1. EOF on
 * fd 0 means the module let go of us: exit cleanly.
 *
 * Options (argv or environment): --log=kmsg|stderr|module (BPFILTER_LOG;
 * bpfilter.ko says module: every level, its printk sorts them),
 * --backend=store|bpf (BPFILTER_BACKEND), --debug (BPFILTER_DEBUG=1).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpfilter.h>

#include "backend.h"
#include "context.h"
#include "family.h"
#include "io.h"
#include "log.h"
#include "sockopt.h"
#include "table.h"

/*
 * Whether a table in force of the request's namespace and family needs
 * conntrack, said in every reply so that the module's hold for that family
 * follows the tables.
 */
static uint32_t conntrack_want(struct context *ctx, const struct mbox_request *req)
{
	const struct family *fam = family_get(req->family);
	const struct netns *ns;

	for (ns = ctx->netns; ns; ns = ns->next)
		if (ns->ino == req->netns_ino && ns->fam == fam && ns->table->needs_conntrack)
			return BPFILTER_REPLY_CT_WANT;
	return 0;
}

/*
 * The reply's word on the request's namespace and family beyond conntrack:
 * its tables, newest first, and whether one is a nat table (nf_nat's hooks).
 */
static void reply_tables(struct context *ctx, const struct mbox_request *req,
			 struct mbox_reply *reply)
{
	const struct family *fam = family_get(req->family);

	if (!fam)
		return;
	reply->tables = context_table_list(ctx, req->netns_ino, fam);
	if (context_find_netns(ctx, req->netns_ino, fam, &table_kinds[BPFILTER_TABLE_NAT]))
		reply->flags |= BPFILTER_REPLY_NAT_WANT;
}

static int handle(struct context *ctx, const struct mbox_request *req)
{
	if (req->is_set != BPFILTER_MBOX_CONTROL)
		return sockopt_handle(ctx, req);
	switch (req->cmd) {
	case BPFILTER_CTL_PING:
		return 0;
	case BPFILTER_CTL_NETNS_EXIT:
		context_netns_exit(ctx, req->netns_ino);
		return 0;
	}
	return -EINVAL;
}

static const char *opt(int argc, char **argv, const char *name, const char *env)
{
	size_t len = strlen(name);
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
			return argv[i] + len + 1;
		if (!strcmp(argv[i], name))
			return "1";
	}
	return getenv(env);
}

int main(int argc, char **argv)
{
	const char *log_to = opt(argc, argv, "--log", "BPFILTER_LOG");
	const char *debug = opt(argc, argv, "--debug", "BPFILTER_DEBUG");
	const char *backend = opt(argc, argv, "--backend", "BPFILTER_BACKEND");
	struct context ctx;
	int err;

	/* A module that goes away mid-reply must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	err = context_init(&ctx, BPFILTER_STATE_FD, BPFILTER_BPFFS_FD, backend);
	if (err)
		return 1;
	log_fini(&ctx.log);
	if (log_to && !strcmp(log_to, "module"))
		log_init(&ctx.log, LOG_TO_MODULE, LOG_LVL_DEBUG);
	else
		log_init(&ctx.log, log_to && !strcmp(log_to, "kmsg") ? LOG_TO_KMSG : LOG_TO_STDERR,
			 debug && strcmp(debug, "0") ? LOG_LVL_DEBUG : LOG_LVL_INFO);
	bf_dbg(&ctx, "helper started, backend %s, state %s", ctx.backend->name,
		ctx.state_dir_fd >= 0 ? "saved" : "not saved");

	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		struct mbox_request req;
		struct mbox_reply reply;

		/* While idle, let the backend do its housekeeping (backend.h). */
		if (ctx.backend->tick && poll(&pfd, 1, BACKEND_TICK_MS) == 0) {
			ctx.backend->tick(&ctx);
			continue;
		}
		err = read_exact(STDIN_FILENO, &req, sizeof(req));
		if (err == -ENODATA) {
			err = 0;
			break;
		}
		if (err) {
			bf_err(&ctx, "reading a request failed: %d", err);
			break;
		}
		memset(&reply, 0, sizeof(reply));
		ctx.req_flags = req.flags;
		ctx.reply_flags = 0;
		reply.status = handle(&ctx, &req);
		reply.flags = ctx.reply_flags | conntrack_want(&ctx, &req);
		reply_tables(&ctx, &req, &reply);
		err = write_exact(STDOUT_FILENO, &reply, sizeof(reply));
		if (err) {
			bf_err(&ctx, "writing a reply failed: %d", err);
			break;
		}
	}
	context_fini(&ctx);
	return err ? 1 : 0;
}
