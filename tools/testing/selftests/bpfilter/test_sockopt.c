// SPDX-License-Identifier: GPL-2.0
/*
 * sockopt.c: the six commands through the real process_vm_* path against
 * this test's own memory (pid = getpid()), with ip_tables' errno for each
 * check, write-backs, counters, namespaces, saved state, and the mbox loop
 * of the real helper binary.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter/nf_nat.h>

#include "kselftest_harness.h"

#include "backend.h"
#include "context.h"
#include "family.h"
#include "helper_blob.h"
#include "sockopt.h"
#include "table.h"

/* One sockopt as bpfilter.ko sends it; @budget: the owner's budget, or NULL (root's). */
static int call_budget(struct context *ctx, uint32_t ino, int set, int cmd, void *buf,
		       uint32_t len, const struct mbox_request *budget)
{
	struct mbox_request req = {
		.addr = (uintptr_t)buf,
		.len = len,
		.is_set = set ? BPFILTER_MBOX_SET : BPFILTER_MBOX_GET,
		.cmd = cmd,
		.pid = getpid(),
		.netns_ino = ino,
	};

	if (budget) {
		req.flags |= BPFILTER_REQ_LIMITED;
		req.owner_uid = budget->owner_uid;
		req.max_netns = budget->max_netns;
		req.max_entries = budget->max_entries;
		req.max_bytes = budget->max_bytes;
	}
	return sockopt_handle(ctx, &req);
}

static int call(struct context *ctx, uint32_t ino, int set, int cmd, void *buf, uint32_t len)
{
	return call_budget(ctx, ino, set, cmd, buf, len, NULL);
}

static int get_info(struct context *ctx, uint32_t ino, const char *name, struct ipt_getinfo *info)
{
	memset(info, 0, sizeof(*info));
	strcpy(info->name, name);
	return call(ctx, ino, 0, IPT_SO_GET_INFO, info, sizeof(*info));
}

/* GET_ENTRIES of the whole table into a malloc'd buffer. */
static int get_entries(struct context *ctx, uint32_t ino, uint32_t size,
		       struct ipt_get_entries **out)
{
	struct ipt_get_entries *g = calloc(1, sizeof(*g) + size);

	strcpy(g->name, "filter");
	g->size = size;
	*out = g;
	return call(ctx, ino, 0, IPT_SO_GET_ENTRIES, g, sizeof(*g) + size);
}

static int replace(struct context *ctx, uint32_t ino, struct bb *b, uint32_t num_counters,
		   struct xt_counters *old)
{
	uint32_t len;
	struct ipt_replace *r = bb_replace(b, num_counters, old, &len);
	int err = call(ctx, ino, 1, IPT_SO_SET_REPLACE, r, len);

	free(r);
	return err;
}

/* INPUT: -p tcp --dport 22 -j ACCEPT, policy DROP; FORWARD, OUTPUT ACCEPT. 5 entries. */
static void ssh_table(struct bb *b)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct bb_ext m = { "tcp", 0, &tcp, sizeof(tcp) };
	struct ipt_ip ip = { .proto = IPPROTO_TCP };
	uint32_t r;

	bb_init(b);
	r = bb_std_m(b, &ip, &m, ACCEPT);
	bb_filter_policies(b, r, DROP);
	bb_error(b, "ERROR");
}

FIXTURE(sockopt)
{
	struct context ctx;
};

FIXTURE_SETUP(sockopt)
{
	ASSERT_EQ(0, context_init(&self->ctx, -1, -1, "store"));
}

FIXTURE_TEARDOWN(sockopt)
{
	context_fini(&self->ctx);
}

TEST_F(sockopt, get_info_initial)
{
	struct ipt_getinfo info;

	ASSERT_EQ(0, get_info(&self->ctx, 1, "filter", &info));
	EXPECT_STREQ("filter", info.name);
	EXPECT_EQ(0x0e, info.valid_hooks);
	EXPECT_EQ(632, info.size);
	EXPECT_EQ(4, info.num_entries);
	EXPECT_EQ(0xFFFFFFFF, info.hook_entry[NF_INET_PRE_ROUTING]);
	EXPECT_EQ(0xFFFFFFFF, info.underflow[NF_INET_POST_ROUTING]);
	EXPECT_EQ(152, info.hook_entry[NF_INET_FORWARD]);
	EXPECT_EQ(304, info.underflow[NF_INET_LOCAL_OUT]);
}

/*
 * The raw table, made on first use as iptable_raw is: PREROUTING and OUTPUT
 * with ACCEPT policies; the namespace's tables are listed newest first.
 */
TEST_F(sockopt, raw_table)
{
	struct ipt_get_entries *g;
	struct ipt_getinfo info;

	EXPECT_EQ(0, context_table_list(&self->ctx, 5, &family_ipv4));
	ASSERT_EQ(0, get_info(&self->ctx, 5, "raw", &info));
	EXPECT_STREQ("raw", info.name);
	EXPECT_EQ(0x09, info.valid_hooks);
	EXPECT_EQ(3, info.num_entries);
	EXPECT_EQ(480, info.size);
	EXPECT_EQ(0, info.hook_entry[NF_INET_PRE_ROUTING]);
	EXPECT_EQ(152, info.hook_entry[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(152, info.underflow[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(0xFFFFFFFF, info.hook_entry[NF_INET_LOCAL_IN]);
	EXPECT_EQ(BPFILTER_TABLE_RAW + 1, context_table_list(&self->ctx, 5, &family_ipv4));
	EXPECT_EQ(0, context_table_list(&self->ctx, 5, &family_ipv6));
	ASSERT_EQ(0, get_info(&self->ctx, 5, "filter", &info));
	EXPECT_EQ((BPFILTER_TABLE_FILTER + 1) | (BPFILTER_TABLE_RAW + 1) << 4,
		  context_table_list(&self->ctx, 5, &family_ipv4));
	/* The filter table was not touched by the raw one. */
	EXPECT_EQ(0x0e, info.valid_hooks);
	EXPECT_EQ(632, info.size);

	g = calloc(1, sizeof(*g) + 480);
	ASSERT_NE(NULL, g);
	strcpy(g->name, "raw");
	g->size = 480;
	EXPECT_EQ(0, call(&self->ctx, 5, 0, IPT_SO_GET_ENTRIES, g, sizeof(*g) + 480));
	EXPECT_EQ(1u << NF_INET_PRE_ROUTING, ((struct ipt_entry *)g->entrytable)->comefrom);
	free(g);
}

/* A raw table with NOTRACK and DROP; a filter-shaped one is refused as ip_tables does. */
TEST_F(sockopt, raw_replace)
{
	struct bb_ext notrack = { "NOTRACK", 0, NULL, 0 };
	struct ipt_ip ip = { .src.s_addr = __constant_htonl(0x0a000001), .smsk.s_addr = 0xffffffff };
	struct ipt_getinfo info;
	struct ipt_replace *r;
	struct bb b;
	uint32_t len, pre, u;

	bb_init(&b);
	pre = bb_entry(&b, NULL, NULL, 0, &notrack);
	bb_std(&b, &ip, DROP);
	u = bb_std(&b, NULL, ACCEPT);
	bb_hook(&b, NF_INET_PRE_ROUTING, pre, u);
	u = bb_std(&b, NULL, ACCEPT);
	bb_hook(&b, NF_INET_LOCAL_OUT, u, u);
	bb_error(&b, "ERROR");

	r = bb_replace(&b, 3, NULL, &len);
	strcpy(r->name, "raw");
	EXPECT_EQ(0, call(&self->ctx, 7, 1, IPT_SO_SET_REPLACE, r, len));
	ASSERT_EQ(0, get_info(&self->ctx, 7, "raw", &info));
	EXPECT_EQ(5, info.num_entries);
	/* Only the raw table changed. */
	ASSERT_EQ(0, get_info(&self->ctx, 7, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
	/* NOTRACK is raw's alone: in the filter table translate_table() refuses it. */
	strcpy(r->name, "filter");
	EXPECT_EQ(-EINVAL, call(&self->ctx, 7, 1, IPT_SO_SET_REPLACE, r, len));
	free(r);

	/* The filter table's hooks for raw: EINVAL after the translation. */
	ssh_table(&b);
	r = bb_replace(&b, 5, NULL, &len);
	strcpy(r->name, "raw");
	EXPECT_EQ(-EINVAL, call(&self->ctx, 7, 1, IPT_SO_SET_REPLACE, r, len));
	/* Tables x_tables has that bpfilter does not: ENOENT. */
	strcpy(r->name, "mangle");
	EXPECT_EQ(-ENOENT, call(&self->ctx, 7, 1, IPT_SO_SET_REPLACE, r, len));
	free(r);
}

/*
 * The nat table: iptable_nat's four chains, and ip6table_nat's alike. Its
 * targets are held by bpfilter.ko: a sender that cannot hold them gets
 * EOPNOTSUPP, after translate_table()'s own hook checks.
 */
TEST_F(sockopt, nat_table)
{
	struct nf_nat_range2 range = { .flags = NF_NAT_RANGE_MAP_IPS,
				       .min_addr.ip = __constant_htonl(0x0a000002),
				       .max_addr.ip = __constant_htonl(0x0a000002) };
	struct bb_ext dnat = { "DNAT", 2, &range, sizeof(range) };
	struct mbox_request req = { .netns_ino = 8, .family = NFPROTO_IPV6 };
	struct ipt_getinfo info;
	struct ipt_replace *r;
	uint32_t len, e, u;
	struct bb b;
	int h;

	ASSERT_EQ(0, get_info(&self->ctx, 8, "nat", &info));
	EXPECT_EQ(0x1b, info.valid_hooks);
	EXPECT_EQ(5, info.num_entries);
	EXPECT_EQ(784, info.size);
	EXPECT_EQ(456, info.hook_entry[NF_INET_POST_ROUTING]);
	req.cmd = IPT_SO_GET_INFO;
	req.addr = (uintptr_t)&info;
	req.len = sizeof(info);
	req.pid = getpid();
	EXPECT_EQ(0, sockopt_handle(&self->ctx, &req));
	EXPECT_EQ(0x1b, info.valid_hooks);
	EXPECT_EQ(5, info.num_entries);
	EXPECT_EQ(1064, info.size);

	/* DNAT in PREROUTING; every other chain a policy. */
	bb_init(&b);
	e = bb_entry(&b, NULL, NULL, 0, &dnat);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(0x1b & (1u << h)))
			continue;
		u = bb_std(&b, NULL, ACCEPT);
		bb_hook(&b, h, h == NF_INET_PRE_ROUTING ? e : u, u);
	}
	bb_error(&b, "ERROR");
	r = bb_replace(&b, 5, NULL, &len);
	strcpy(r->name, "nat");
	EXPECT_EQ(-EOPNOTSUPP, call(&self->ctx, 8, 1, IPT_SO_SET_REPLACE, r, len));
	/* In INPUT DNAT is refused for its hooks, as xt_check_target() does. */
	r->hook_entry[NF_INET_PRE_ROUTING] = 152;
	r->hook_entry[NF_INET_LOCAL_IN] = 0;
	EXPECT_EQ(-EINVAL, call(&self->ctx, 8, 1, IPT_SO_SET_REPLACE, r, len));
	free(r);
	ASSERT_EQ(0, get_info(&self->ctx, 8, "nat", &info));
	EXPECT_EQ(5, info.num_entries);
}

TEST_F(sockopt, get_info_errors)
{
	struct ipt_getinfo info;

	memset(&info, 0, sizeof(info));
	strcpy(info.name, "filter");
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_INFO, &info, 83));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_INFO, &info, 85));
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 0, IPT_SO_GET_INFO, (void *)8, 84));
	EXPECT_EQ(-ENOENT, get_info(&self->ctx, 1, "mangle", &info));
	EXPECT_EQ(-ENOENT, get_info(&self->ctx, 1, "", &info));
	/* The name is cut at 31 characters, like the kernel's. */
	memset(info.name, 'f', sizeof(info.name));
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 0, IPT_SO_GET_INFO, &info, 84));
}

TEST_F(sockopt, get_entries_errors)
{
	struct ipt_get_entries *g;

	EXPECT_EQ(-EAGAIN, get_entries(&self->ctx, 1, 600, &g));
	free(g);
	ASSERT_EQ(0, get_entries(&self->ctx, 1, 632, &g));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 39));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 40 + 631));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 40 + 633));
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, (void *)8, 672));
	strcpy(g->name, "mangle");
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 672));
	/* Size mismatch is checked after the table name. */
	g->size = 10;
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 50));
	strcpy(g->name, "filter");
	EXPECT_EQ(-EAGAIN, call(&self->ctx, 1, 0, IPT_SO_GET_ENTRIES, g, 50));
	free(g);
}

TEST_F(sockopt, get_entries_initial_bytes)
{
	struct ipt_get_entries *g;
	struct xt_standard_target *st;
	struct xt_error_target *et;
	struct ipt_entry *e;

	ASSERT_EQ(0, get_entries(&self->ctx, 1, 632, &g));
	e = (struct ipt_entry *)((char *)g->entrytable + 152);
	EXPECT_EQ(112, e->target_offset);
	EXPECT_EQ(152, e->next_offset);
	EXPECT_EQ(1u << NF_INET_FORWARD, e->comefrom);
	st = (void *)e->elems;
	EXPECT_EQ(40, st->target.u.target_size);
	EXPECT_EQ(ACCEPT, st->verdict);
	e = (struct ipt_entry *)((char *)g->entrytable + 456);
	EXPECT_EQ(176, e->next_offset);
	EXPECT_EQ(0, e->comefrom);
	et = (void *)e->elems;
	EXPECT_STREQ("ERROR", et->target.u.user.name);
	EXPECT_STREQ("ERROR", et->errorname);
	EXPECT_EQ(64, et->target.u.target_size);
	free(g);
}

TEST_F(sockopt, revisions)
{
	struct xt_get_revision rev;
	static const struct {
		int target;
		const char *name;
		uint8_t revision;
		int err;
	} cases[] = {
		{ 0, "tcp", 0, 0 }, { 0, "udp", 0, 0 }, { 0, "icmp", 0, 0 },
		{ 0, "tcp", 1, -EPROTONOSUPPORT }, { 0, "icmp", 255, -EPROTONOSUPPORT },
		{ 0, "multiport", 1, 0 }, { 0, "multiport", 0, -EPROTONOSUPPORT },
		{ 0, "nosuch", 0, -ENOENT }, { 0, "ERROR", 0, -ENOENT },
		{ 1, "", 0, 0 }, { 1, "ERROR", 0, 0 }, { 1, "ERROR", 1, -EPROTONOSUPPORT },
		{ 1, "REJECT", 0, 0 }, { 1, "REJECT", 1, -EPROTONOSUPPORT },
		{ 1, "LOG", 0, 0 }, { 1, "NFLOG", 0, 0 }, { 1, "NFQUEUE", 0, -ENOENT },
		{ 1, "tcp", 0, -ENOENT }, { 0, "recent", 0, 0 }, { 0, "recent", 1, 0 },
		{ 0, "recent", 2, -EPROTONOSUPPORT },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&rev, 0, sizeof(rev));
		strcpy(rev.name, cases[i].name);
		rev.revision = cases[i].revision;
		EXPECT_EQ(cases[i].err,
			  call(&self->ctx, 1, 0, cases[i].target ? IPT_SO_GET_REVISION_TARGET :
			       IPT_SO_GET_REVISION_MATCH, &rev, sizeof(rev)))
			TH_LOG("%s %s rev %u", cases[i].target ? "target" : "match",
			       cases[i].name, cases[i].revision);
	}
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_REVISION_MATCH, &rev, 29));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, IPT_SO_GET_REVISION_TARGET, &rev, 31));
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 0, IPT_SO_GET_REVISION_MATCH, (void *)8, 30));
	/* name[28] is forced to NUL: "tcp" followed by garbage beyond is still "tcp". */
	memset(&rev, 0, sizeof(rev));
	memset(rev.name, 'a', sizeof(rev.name));
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 0, IPT_SO_GET_REVISION_MATCH, &rev, 30));
}

TEST_F(sockopt, replace_and_old_counters)
{
	struct xt_counters old[5];
	struct ipt_get_entries *g;
	struct ipt_getinfo info;
	struct ipt_entry *e;
	struct {
		struct xt_counters_info info;
		struct xt_counters c[4];
	} add = { .info = { "filter", 4 }, .c = { { 1, 10 }, { 2, 20 }, { 3, 30 }, { 4, 40 } } };
	uint32_t pos;
	struct bb b;

	/* ADD_COUNTERS on the initial table, then they show in GET_ENTRIES. */
	ASSERT_EQ(0, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, sizeof(add)));
	ASSERT_EQ(0, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, sizeof(add)));
	ASSERT_EQ(0, get_entries(&self->ctx, 1, 632, &g));
	e = (struct ipt_entry *)((char *)g->entrytable + 304);
	EXPECT_EQ(6, e->counters.pcnt);
	EXPECT_EQ(60, e->counters.bcnt);
	free(g);

	/* REPLACE writes the old counters back, in blob order. */
	ssh_table(&b);
	memset(old, 0xee, sizeof(old));
	ASSERT_EQ(0, replace(&self->ctx, 1, &b, 4, old));
	EXPECT_EQ(2, old[0].pcnt);
	EXPECT_EQ(20, old[0].bcnt);
	EXPECT_EQ(8, old[3].pcnt);
	EXPECT_EQ(80, old[3].bcnt);
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeull, old[4].pcnt);

	ASSERT_EQ(0, get_info(&self->ctx, 1, "filter", &info));
	EXPECT_EQ(5, info.num_entries);
	EXPECT_EQ(b.size, info.size);
	ASSERT_EQ(0, get_entries(&self->ctx, 1, b.size, &g));
	/* Same bytes as submitted, except comefrom (submitted zero) on reachable rules. */
	e = (struct ipt_entry *)g->entrytable;
	EXPECT_EQ(1u << NF_INET_LOCAL_IN, e->comefrom);
	e = (struct ipt_entry *)((char *)g->entrytable + info.underflow[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(1u << NF_INET_LOCAL_OUT, e->comefrom);
	for (pos = 0; pos < b.size; pos += e->next_offset) {
		e = (struct ipt_entry *)((char *)g->entrytable + pos);
		e->comefrom = 0;
	}
	EXPECT_EQ(0, memcmp(g->entrytable, b.buf, b.size));
	free(g);

	/* A new table's counters start at zero. */
	ssh_table(&b);
	ASSERT_EQ(0, replace(&self->ctx, 1, &b, 5, old));
	EXPECT_EQ(0, old[0].pcnt);
	EXPECT_EQ(0, old[4].bcnt);
}

TEST_F(sockopt, replace_errors)
{
	struct xt_counters old[8];
	struct ipt_replace *r;
	uint32_t len;
	struct bb b;

	ssh_table(&b);
	r = bb_replace(&b, 4, old, &len);
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, 95));
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, (void *)8, len));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len - 1));
	r->num_counters = INT_MAX / 16;
	EXPECT_EQ(-ENOMEM, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	r->num_counters = 0;
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	/* num_counters above x_tables' counter buffer limit: ENOMEM after translation. */
	r->num_counters = (512u << 20) / 16 + 1;
	EXPECT_EQ(-ENOMEM, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	r->num_counters = 4;
	r->size = 0xfffffff0;
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	r->size = b.size;
	strcpy(r->name, "mangle");
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	strcpy(r->name, "filter");
	r->num_counters = 5;
	EXPECT_EQ(-EAGAIN, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	r->num_counters = 4;
	/* valid_hooks differs from the table's: translation passes, then EINVAL. */
	r->valid_hooks |= 1u << NF_INET_PRE_ROUTING;
	r->hook_entry[NF_INET_PRE_ROUTING] = 0;
	r->underflow[NF_INET_PRE_ROUTING] = 0;
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	r->valid_hooks = 0x0e;
	/* The old counters pointer may be bad: the replace still succeeds. */
	r->counters = (void *)8;
	EXPECT_EQ(0, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	free(r);
}

TEST_F(sockopt, replace_blob_fault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct xt_counters old[4];
	struct ipt_replace *r, *src;
	uint32_t len;
	char *map;
	struct bb b;

	/* The header is readable, the blob runs into an unmapped page. */
	ssh_table(&b);
	src = bb_replace(&b, 4, old, &len);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	r = (struct ipt_replace *)(map + page - sizeof(*r) - 100);
	memcpy(r, src, sizeof(*r) + 100);
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 1, IPT_SO_SET_REPLACE, r, len));
	munmap(map, page);
	free(src);
}

TEST_F(sockopt, add_counters_errors)
{
	struct {
		struct xt_counters_info info;
		struct xt_counters c[5];
	} add = { .info = { "filter", 4 } };

	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 40));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 40 + 63));
	EXPECT_EQ(-EFAULT, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, (void *)8, 104));
	add.info.num_counters = 5;
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 40 + 80));
	add.info.num_counters = 4;
	strcpy(add.info.name, "mangle");
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 104));
	/* The table name is checked before the count. */
	add.info.num_counters = 5;
	EXPECT_EQ(-ENOENT, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 120));
	strcpy(add.info.name, "filter");
	add.info.num_counters = 4;
	EXPECT_EQ(0, call(&self->ctx, 1, 1, IPT_SO_SET_ADD_COUNTERS, &add, 104));
}

TEST_F(sockopt, unknown_commands)
{
	char buf[128] = { 0 };

	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 0, 68, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, call(&self->ctx, 1, 1, 66, buf, sizeof(buf)));
}

TEST_F(sockopt, namespaces_are_separate)
{
	struct xt_counters old[4];
	struct ipt_getinfo info;
	struct bb b;

	ssh_table(&b);
	ASSERT_EQ(0, replace(&self->ctx, 7, &b, 4, old));
	ASSERT_EQ(0, get_info(&self->ctx, 7, "filter", &info));
	EXPECT_EQ(5, info.num_entries);
	ASSERT_EQ(0, get_info(&self->ctx, 8, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
	/* NETNS_EXIT forgets the table: the namespace starts over. */
	context_netns_exit(&self->ctx, 7);
	ASSERT_EQ(0, get_info(&self->ctx, 7, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
}

/*
 * An unprivileged user's namespaces share one budget: past it the call gets
 * ENOMEM and changes nothing; other users, and root, are not affected.
 */
TEST_F(sockopt, user_budgets)
{
	struct mbox_request u1000 = { .owner_uid = 1000, .max_netns = 2, .max_entries = 9,
				      .max_bytes = 1 << 20 };
	struct mbox_request u1001 = u1000;
	struct ipt_getinfo info = { .name = "filter" };
	struct xt_counters old[5];
	struct ipt_replace *r;
	uint32_t len;
	struct bb b;

	u1001.owner_uid = 1001;
	/* Two namespaces with the initial table (4 rules each): the third is refused. */
	ASSERT_EQ(0, call_budget(&self->ctx, 21, 0, IPT_SO_GET_INFO, &info, sizeof(info), &u1000));
	ASSERT_EQ(0, call_budget(&self->ctx, 22, 0, IPT_SO_GET_INFO, &info, sizeof(info), &u1000));
	EXPECT_EQ(-ENOMEM, call_budget(&self->ctx, 23, 0, IPT_SO_GET_INFO, &info, sizeof(info),
				       &u1000));
	EXPECT_EQ(NULL, context_find_netns(&self->ctx, 23, NULL, NULL));
	/* Another user, and root, still get theirs. */
	EXPECT_EQ(0, call_budget(&self->ctx, 24, 0, IPT_SO_GET_INFO, &info, sizeof(info), &u1001));
	EXPECT_EQ(0, call_budget(&self->ctx, 25, 0, IPT_SO_GET_INFO, &info, sizeof(info), NULL));

	/* 4 + 5 rules fit in 9; the table in force is replaced. */
	ssh_table(&b);
	r = bb_replace(&b, 4, old, &len);
	EXPECT_EQ(0, call_budget(&self->ctx, 21, 1, IPT_SO_SET_REPLACE, r, len, &u1000));
	free(r);
	/* 5 + 5 do not: ENOMEM, and namespace 22 keeps its initial table. */
	r = bb_replace(&b, 4, old, &len);
	EXPECT_EQ(-ENOMEM, call_budget(&self->ctx, 22, 1, IPT_SO_SET_REPLACE, r, len, &u1000));
	free(r);
	ASSERT_EQ(0, get_info(&self->ctx, 22, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
	/* Replacing a namespace's own table counts it once, not twice. */
	r = bb_replace(&b, 5, old, &len);
	EXPECT_EQ(0, call_budget(&self->ctx, 21, 1, IPT_SO_SET_REPLACE, r, len, &u1000));
	free(r);
	/* The byte limit: the 5-rule table is larger than 632 bytes. */
	u1001.max_bytes = 700;
	r = bb_replace(&b, 4, old, &len);
	EXPECT_EQ(-ENOMEM, call_budget(&self->ctx, 24, 1, IPT_SO_SET_REPLACE, r, len, &u1001));
	free(r);
	/* A namespace that is gone frees its share. */
	context_netns_exit(&self->ctx, 21);
	EXPECT_EQ(0, call_budget(&self->ctx, 23, 0, IPT_SO_GET_INFO, &info, sizeof(info), &u1000));
}

TEST(state_survives_restart)
{
	char dir[] = "/tmp/bpfilter-state-XXXXXX";
	struct {
		struct xt_counters_info info;
		struct xt_counters c[5];
	} add = { .info = { "filter", 5 }, .c = { { 5, 500 } } };
	struct ipt_get_entries *g1, *g2;
	struct xt_counters old[4];
	struct context ctx;
	struct ipt_getinfo info;
	char path[128];
	int fd;
	struct bb b;

	ASSERT_NE(NULL, mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, context_init(&ctx, fd, -1, "store"));
	ssh_table(&b);
	ASSERT_EQ(0, replace(&ctx, 42, &b, 4, old));
	ASSERT_EQ(0, call(&ctx, 42, 1, IPT_SO_SET_ADD_COUNTERS, &add, sizeof(add)));
	ASSERT_EQ(0, get_entries(&ctx, 42, b.size, &g1));
	context_fini(&ctx);

	/* A new helper instance with the same state directory serves the same bytes. */
	ASSERT_EQ(0, context_init(&ctx, fd, -1, "store"));
	ASSERT_EQ(0, get_info(&ctx, 42, "filter", &info));
	EXPECT_EQ(5, info.num_entries);
	ASSERT_EQ(0, get_entries(&ctx, 42, b.size, &g2));
	EXPECT_EQ(0, memcmp(g1, g2, sizeof(*g1) + b.size));
	EXPECT_EQ(5, ((struct ipt_entry *)g2->entrytable)->counters.pcnt);
	/* NETNS_EXIT deletes the file. */
	snprintf(path, sizeof(path), "%s/42.filter", dir);
	EXPECT_EQ(0, access(path, F_OK));
	context_netns_exit(&ctx, 42);
	EXPECT_EQ(-1, access(path, F_OK));
	context_fini(&ctx);

	/* A corrupt saved table is ignored: the namespace starts fresh. */
	fd = openat(fd, "43.filter", O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "junk!", 5));
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_EQ(0, context_init(&ctx, fd, -1, "store"));
	ASSERT_EQ(0, get_info(&ctx, 43, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
	context_netns_exit(&ctx, 43);
	context_fini(&ctx);
	close(fd);
	rmdir(dir);
	free(g1);
	free(g2);
}

/*
 * A restarted helper counts the saved namespaces on their owners' budgets
 * at once, not only from their next request.
 */
TEST(budgets_survive_restart)
{
	struct mbox_request u1000 = { .owner_uid = 1000, .max_netns = 2, .max_entries = 10,
				      .max_bytes = 1 << 20 };
	char dir[] = "/tmp/bpfilter-state-XXXXXX";
	struct ipt_getinfo info = { .name = "filter" };
	struct xt_counters old[4];
	struct ipt_replace *r;
	struct context ctx;
	uint32_t len, ino;
	struct bb b;
	int fd;

	ASSERT_NE(NULL, mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, context_init(&ctx, fd, -1, "store"));
	/* Two namespaces of user 1000 with 5 rules each: its whole budget. */
	ssh_table(&b);
	for (ino = 31; ino <= 32; ino++) {
		r = bb_replace(&b, 4, old, &len);
		ASSERT_EQ(0, call_budget(&ctx, ino, 1, IPT_SO_SET_REPLACE, r, len, &u1000));
		free(r);
	}
	context_fini(&ctx);

	ASSERT_EQ(0, context_init(&ctx, fd, -1, "store"));
	EXPECT_NE(NULL, context_find_netns(&ctx, 31, NULL, NULL));
	EXPECT_NE(NULL, context_find_netns(&ctx, 32, NULL, NULL));
	/* No third namespace, and no rule more in a restored one, before any request. */
	EXPECT_EQ(-ENOMEM, call_budget(&ctx, 33, 0, IPT_SO_GET_INFO, &info, sizeof(info),
				       &u1000));
	u1000.max_netns = 3;
	r = bb_replace(&b, 4, old, &len);
	EXPECT_EQ(-ENOMEM, call_budget(&ctx, 33, 1, IPT_SO_SET_REPLACE, r, len, &u1000));
	free(r);
	/* Root's namespaces are on no budget, before and after. */
	EXPECT_EQ(0, call(&ctx, 34, 0, IPT_SO_GET_INFO, &info, sizeof(info)));
	for (ino = 31; ino <= 34; ino++)
		context_netns_exit(&ctx, ino);
	context_fini(&ctx);
	close(fd);
	rmdir(dir);
}

/* The real helper binary: mbox loop on fds 0/1, PING, a GET_INFO, clean exit on EOF. */
TEST(helper_mbox_loop)
{
	const char *helper = getenv("BPFILTER_HELPER");
	struct mbox_request req = { 0 };
	struct mbox_reply reply;
	struct ipt_getinfo info;
	int sv[2], status;
	char path[4096];
	pid_t pid;

	if (!helper || !*helper) {
		snprintf(path, sizeof(path), "%s/net/bpfilter/bpfilter_umh", BPFILTER_SRCTREE);
		helper = path;
	}
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		close(sv[0]);
		close(sv[1]);
		close(BPFILTER_STATE_FD);
		close(BPFILTER_BPFFS_FD);
		setenv("BPFILTER_BACKEND", "store", 1);
		execl(helper, helper, NULL);
		_exit(127);
	}
	close(sv[1]);
	req.is_set = BPFILTER_MBOX_CONTROL;
	req.cmd = BPFILTER_CTL_PING;
	req.flags = BPFILTER_REQ_CT_CAPABLE;
	ASSERT_EQ(sizeof(req), write(sv[0], &req, sizeof(req)));
	ASSERT_EQ(sizeof(reply), read(sv[0], &reply, sizeof(reply)));
	EXPECT_EQ(0, reply.status);
	EXPECT_EQ(0, reply.flags);			/* no table wants conntrack */

	memset(&info, 0, sizeof(info));
	strcpy(info.name, "filter");
	req.is_set = BPFILTER_MBOX_GET;
	req.cmd = IPT_SO_GET_INFO;
	req.addr = (uintptr_t)&info;
	req.len = sizeof(info);
	req.pid = getpid();
	req.netns_ino = 99;
	ASSERT_EQ(sizeof(req), write(sv[0], &req, sizeof(req)));
	ASSERT_EQ(sizeof(reply), read(sv[0], &reply, sizeof(reply)));
	EXPECT_EQ(0, reply.status);
	EXPECT_EQ(632, info.size);

	/* A request written in two pieces is still one request. */
	strcpy(info.name, "mangle");
	ASSERT_EQ(10, write(sv[0], &req, 10));
	usleep(20000);
	ASSERT_EQ(sizeof(req) - 10, write(sv[0], (char *)&req + 10, sizeof(req) - 10));
	ASSERT_EQ(sizeof(reply), read(sv[0], &reply, sizeof(reply)));
	EXPECT_EQ(-ENOENT, reply.status);

	req.is_set = BPFILTER_MBOX_CONTROL;
	req.cmd = BPFILTER_CTL_NETNS_EXIT;
	ASSERT_EQ(sizeof(req), write(sv[0], &req, sizeof(req)));
	ASSERT_EQ(sizeof(reply), read(sv[0], &reply, sizeof(reply)));
	EXPECT_EQ(0, reply.status);

	close(sv[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
