// SPDX-License-Identifier: GPL-2.0
/* target.c: lookup by name and revision, revision queries, parsed target kinds. */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_NFLOG.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_CT.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <string.h>

#include "kselftest_harness.h"

#include "context.h"
#include <linux/bpfilter.h>
#include "family.h"
#include "rule.h"
#include "helper_blob.h"
#include "target.h"

static struct context *test_ctx(void)
{
	static struct context ctx;

	if (!ctx.backend)
		context_init(&ctx, -1, -1, "store");
	return &ctx;
}

/* target_init() of the IPv4 entry @e in table @table, as rule_init() calls it. */
static int table_target_init(const char *table, const void *e, struct target *t)
{
	const struct ipt_entry *ie = e;
	struct rule r = { .comefrom = ie->comefrom };

	family_ipv4.to_model(e, &r.ip);
	return target_init(test_ctx(), &family_ipv4, table, &r,
			   (const char *)e + ie->target_offset, t);
}

/* The same in the filter table. */
static int entry_target_init(const void *e, struct target *t)
{
	return table_target_init("filter", e, t);
}

TEST(find_and_revision)
{
	char longname[XT_EXTENSION_MAXNAMELEN];
	int err = 0;

	EXPECT_EQ(&standard_target_ops, target_ops_find(NFPROTO_IPV4, "", 0, &err));
	EXPECT_EQ(&error_target_ops, target_ops_find(NFPROTO_IPV4, "ERROR", 0, &err));
	EXPECT_EQ(NULL, target_ops_find(NFPROTO_IPV4, "ERROR", 1, &err));
	EXPECT_EQ(-ENOENT, err);
	EXPECT_EQ(NULL, target_ops_find(NFPROTO_IPV4, "NFQUEUE", 0, &err));
	EXPECT_EQ(-ENOENT, err);
	memset(longname, 'X', sizeof(longname));
	EXPECT_EQ(NULL, target_ops_find(NFPROTO_IPV4, longname, 0, &err));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "", 0));
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "ERROR", 0));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "", 1));
	EXPECT_EQ(-ENOENT, target_revision(NFPROTO_IPV4, "NFQUEUE", 0));
	EXPECT_EQ(8, standard_target_ops.size);
	EXPECT_EQ(32, error_target_ops.size);
}

TEST(kinds)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_std(&b, &ip, DROP);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_VERDICT, t.kind);
	EXPECT_EQ(DROP, t.verdict);
	EXPECT_EQ(40, t.target_size);
	o = bb_std(&b, &ip, 1234);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_JUMP, t.kind);
	EXPECT_EQ(1234, t.verdict);
	o = bb_std(&b, &ip, RETURN);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_VERDICT, t.kind);
	EXPECT_EQ(XT_RETURN, t.verdict);
	o = bb_error(&b, "mychain");
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_ERROR, t.kind);
	EXPECT_STREQ("mychain", t.error_name);
}

TEST(size_and_unknown)
{
	char data[16] = { 0 };
	struct bb_ext x = { "", 0, data, 16 };
	struct bb_ext y = { "TPROXY", 0, data, 16 };
	struct bb_ext z = { "DNAT", 0, data, 16 };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &x);	/* standard with a 16-byte payload */
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	o = bb_entry(&b, NULL, NULL, 0, &y);
	EXPECT_EQ(-ENOENT, entry_target_init(bb_at(&b, o), &t));
	/* A known target with the wrong payload size: xt_check_target()'s EINVAL. */
	o = bb_entry(&b, NULL, NULL, 0, &z);
	EXPECT_EQ(-EINVAL, table_target_init("nat", bb_at(&b, o), &t));
	x.revision = 2;
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-ENOENT, entry_target_init(bb_at(&b, o), &t));
}

/* reject_tg_check() and the hooks of ipt_REJECT (INPUT, FORWARD, OUTPUT). */
TEST(reject_checks)
{
	struct ipt_reject_info rej = { .with = IPT_ICMP_PORT_UNREACHABLE };
	struct bb_ext x = { "REJECT", 0, &rej, sizeof(rej) };
	struct ipt_ip tcp = { .proto = IPPROTO_TCP };
	struct ipt_ip notcp = { .proto = IPPROTO_TCP, .invflags = IPT_INV_PROTO };
	struct ipt_ip udp = { .proto = IPPROTO_UDP };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, &udp, NULL, 0, &x);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_OTHER, t.kind);
	EXPECT_EQ(&reject_target_ops, t.ops);
	rej.with = IPT_ICMP_ECHOREPLY;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	rej.with = IPT_TCP_RESET;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	o = bb_entry(&b, &notcp, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	o = bb_entry(&b, &tcp, NULL, 0, &x);
	EXPECT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	/* Types the kernel does not know are taken (and send nothing). */
	rej.with = 99;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	EXPECT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	/* Reached from PREROUTING: not a hook of REJECT. */
	o = bb_entry(&b, &tcp, NULL, 0, &x);
	bb_at(&b, o)->comefrom = 1 << NF_INET_PRE_ROUTING;
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "REJECT", 0));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "REJECT", 1));
}

/* xt_mark's MARK: revision 2 only, no checkentry, from every hook; XT_CONTINUE. */
TEST(mark_target)
{
	struct xt_mark_tginfo2 info = { .mark = 0x5, .mask = 0xff };
	struct bb_ext x = { "MARK", 2, &info, sizeof(info) };
	uint32_t big[4] = { 0x5, 0xff };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &x);
	bb_at(&b, o)->comefrom = (1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_IN) |
				 (1 << NF_INET_FORWARD) | (1 << NF_INET_LOCAL_OUT) |
				 (1 << NF_INET_POST_ROUTING);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(TARGET_OTHER, t.kind);
	EXPECT_EQ(&mark_target_ops, t.ops);
	EXPECT_TRUE(t.ops->continues);
	EXPECT_EQ(0, memcmp(&info, t.data, sizeof(info)));
	/* Only revision 2 exists; the payload is exactly two u32s (XT_ALIGN'd: 8). */
	x.revision = 1;
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EPROTOTYPE, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "MARK", 2));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "MARK", 1));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "MARK", 3));
	x.revision = 2;
	x.data = big;
	x.len = sizeof(big);
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
}

/* log_tg_check(): level below 8, a NUL-terminated prefix. */
TEST(log_checks)
{
	struct xt_log_info log = { .level = 4, .logflags = XT_LOG_MASK };
	struct bb_ext x = { "LOG", 0, &log, sizeof(log) };
	struct target t;
	struct bb b;
	uint32_t o;

	strcpy(log.prefix, "dropped: ");
	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &x);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(&log_target_ops, t.ops);
	EXPECT_TRUE(t.ops->continues);
	log.level = 8;
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	log.level = 7;
	memset(log.prefix, 'x', sizeof(log.prefix));
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	log.prefix[sizeof(log.prefix) - 1] = '\0';
	log.logflags = 0xff;		/* unknown flags are taken, as the kernel does */
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(0, entry_target_init(bb_at(&b, o), &t));
}

/* nflog_tg_check(): flags within XT_NFLOG_MASK, a NUL-terminated prefix. */
TEST(nflog_checks)
{
	struct xt_nflog_info nflog = { .len = 64, .group = 5, .flags = XT_NFLOG_F_COPY_LEN };
	struct bb_ext x = { "NFLOG", 0, &nflog, sizeof(nflog) };
	struct target t;
	struct bb b;
	uint32_t o;

	strcpy(nflog.prefix, "nflog: ");
	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &x);
	ASSERT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(&nflog_target_ops, t.ops);
	EXPECT_TRUE(t.ops->continues);
	EXPECT_EQ(80, t.ops->size);
	EXPECT_EQ(sizeof(nflog), t.ops->usersize);
	nflog.flags = 2;
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	nflog.flags = 0;
	memset(nflog.prefix, 'x', sizeof(nflog.prefix));
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	nflog.prefix[sizeof(nflog.prefix) - 1] = '\0';
	nflog.threshold = 0xffff;	/* any group, threshold and len: no checks */
	nflog.group = 0xffff;
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(0, entry_target_init(bb_at(&b, o), &t));
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "NFLOG", 0));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "NFLOG", 1));
}

/*
 * xt_CT: NOTRACK and CT are the raw table's only (EINVAL elsewhere, before
 * any checkentry); each revision's flag mask; CT without --notrack would
 * need a conntrack template, which bpfilter does not make (EOPNOTSUPP).
 */
TEST(ct_checks)
{
	struct xt_ct_target_info_v1 v1 = { .flags = XT_CT_NOTRACK | XT_CT_NOTRACK_ALIAS };
	struct xt_ct_target_info v0 = { .flags = XT_CT_NOTRACK };
	struct bb_ext ct2 = { "CT", 2, &v1, sizeof(v1) };
	struct bb_ext ct1 = { "CT", 1, &v1, sizeof(v1) };
	struct bb_ext ct0 = { "CT", 0, &v0, sizeof(v0) };
	struct bb_ext notrack = { "NOTRACK", 0, NULL, 0 };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &notrack);
	ASSERT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	EXPECT_EQ(&notrack_target_ops, t.ops);
	EXPECT_TRUE(t.ops->continues);
	EXPECT_EQ(-EINVAL, table_target_init("filter", bb_at(&b, o), &t));

	o = bb_entry(&b, NULL, NULL, 0, &ct2);
	ASSERT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	EXPECT_EQ(&ct2_target_ops, t.ops);
	EXPECT_EQ(72, t.ops->size);
	EXPECT_EQ(64, t.ops->usersize);
	EXPECT_EQ(-EINVAL, table_target_init("filter", bb_at(&b, o), &t));
	/* Revision 1 knows no alias flag. */
	o = bb_entry(&b, NULL, NULL, 0, &ct1);
	EXPECT_EQ(-EINVAL, table_target_init("raw", bb_at(&b, o), &t));
	v1.flags = XT_CT_NOTRACK;
	o = bb_entry(&b, NULL, NULL, 0, &ct1);
	EXPECT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	/* With --notrack the other fields are not looked at. */
	strcpy(v1.helper, "ftp");
	v1.zone = 5;
	o = bb_entry(&b, NULL, NULL, 0, &ct2);
	EXPECT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	v1.flags = XT_CT_ZONE_DIR_ORIG;
	o = bb_entry(&b, NULL, NULL, 0, &ct2);
	EXPECT_EQ(-EOPNOTSUPP, table_target_init("raw", bb_at(&b, o), &t));
	v1.flags = 0x20;
	o = bb_entry(&b, NULL, NULL, 0, &ct2);
	EXPECT_EQ(-EINVAL, table_target_init("raw", bb_at(&b, o), &t));

	o = bb_entry(&b, NULL, NULL, 0, &ct0);
	ASSERT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	EXPECT_EQ(40, t.ops->size);
	EXPECT_EQ(32, t.ops->usersize);
	v0.flags = XT_CT_NOTRACK | XT_CT_NOTRACK_ALIAS;
	o = bb_entry(&b, NULL, NULL, 0, &ct0);
	EXPECT_EQ(-EINVAL, table_target_init("raw", bb_at(&b, o), &t));
	/* Registered per family: an unknown revision is ENOENT. */
	EXPECT_EQ(0, target_revision(NFPROTO_IPV4, "CT", 2));
	EXPECT_EQ(-EPROTONOSUPPORT, target_revision(NFPROTO_IPV4, "CT", 3));
	EXPECT_EQ(0, target_revision(NFPROTO_IPV6, "NOTRACK", 0));
}

/* MARK has no table of its own: the raw table takes it as the filter table does. */
TEST(mark_in_raw)
{
	struct xt_mark_tginfo2 mark = { .mark = 1, .mask = 0xffffffff };
	struct bb_ext x = { "MARK", 2, &mark, sizeof(mark) };
	struct target t;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, NULL, NULL, 0, &x);
	EXPECT_EQ(0, table_target_init("raw", bb_at(&b, o), &t));
	EXPECT_EQ(&mark_target_ops, t.ops);
}

/* Read what the log wrote to the pipe @fd (non-blocking) into @buf. */
static const char *drain(int fd, char *buf, size_t size)
{
	ssize_t n = read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/*
 * x_tables' kernel log lines, word for word: under stderr with bpfilter's
 * prefix, under the module with the level and BPFILTER_LOG_XT in front.
 * Ratelimited as pr_*_ratelimited(): 10 lines per call site in 5 s.
 */
TEST(kernel_log_lines)
{
	struct ipt_reject_info rej = { .with = IPT_TCP_RESET };
	struct bb_ext x = { "REJECT", 0, &rej, sizeof(rej) };
	char data[16] = { 0 };
	struct bb_ext dnat = { "DNAT", 0, data, sizeof(data) };
	struct bb_ext notrack = { "NOTRACK", 0, NULL, 0 };
	struct ipt_ip udp = { .proto = IPPROTO_UDP };
	struct context *ctx = test_ctx();
	struct log saved = ctx->log;
	char buf[4096], want[256];
	struct target t;
	int fds[2], i, lines = 0;
	const char *p;
	struct bb b;
	uint32_t o;

	ASSERT_EQ(0, pipe2(fds, O_NONBLOCK));
	log_init(&ctx->log, LOG_TO_STDERR, LOG_LVL_INFO);
	ctx->log.fd = fds[1];
	bb_init(&b);
	o = bb_entry(&b, &udp, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	EXPECT_STREQ("bpfilter: ipt_REJECT: TCP_RESET invalid for non-tcp\n",
		     drain(fds[0], buf, sizeof(buf)));
	rej.with = IPT_ICMP_PORT_UNREACHABLE;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	bb_at(&b, o)->comefrom = 1 << NF_INET_PRE_ROUTING | 1 << NF_INET_POST_ROUTING;
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	EXPECT_STREQ("bpfilter: x_tables: ip_tables: REJECT target: used from hooks "
		     "PREROUTING/POSTROUTING, but only usable from INPUT/FORWARD/OUTPUT\n",
		     drain(fds[0], buf, sizeof(buf)));
	o = bb_entry(&b, NULL, NULL, 0, &notrack);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	EXPECT_STREQ("bpfilter: x_tables: ip_tables: NOTRACK target: only valid in raw table, not filter\n",
		     drain(fds[0], buf, sizeof(buf)));
	/* pr_err_ratelimited() under the module: level 3. */
	ctx->log.levels = true;
	o = bb_entry(&b, NULL, NULL, 0, &dnat);
	EXPECT_EQ(-EINVAL, table_target_init("nat", bb_at(&b, o), &t));
	snprintf(want, sizeof(want), "<3>" BPFILTER_LOG_XT "x_tables: ip_tables: DNAT.0 target: "
		 "invalid size %u (kernel) != (user) 16\n", dnat0_target_ops.size);
	EXPECT_STREQ(want, drain(fds[0], buf, sizeof(buf)));
	/* Twelve refusals at one call site in a moment: ten lines. */
	log_init(&ctx->log, LOG_TO_MODULE, LOG_LVL_DEBUG);
	ctx->log.fd = fds[1];
	rej.with = IPT_TCP_RESET;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	drain(fds[0], buf, sizeof(buf));
	for (p = buf; (p = strstr(p, "<6>" BPFILTER_LOG_XT "ipt_REJECT: TCP_RESET invalid")); p++)
		lines++;
	EXPECT_EQ(10, lines);
	/* Another call site has its own budget. */
	rej.with = IPT_ICMP_ECHOREPLY;
	o = bb_entry(&b, &udp, NULL, 0, &x);
	EXPECT_EQ(-EINVAL, entry_target_init(bb_at(&b, o), &t));
	EXPECT_STREQ("<6>" BPFILTER_LOG_XT "ipt_REJECT: ECHOREPLY no longer supported.\n",
		     drain(fds[0], buf, sizeof(buf)));
	ctx->log = saved;
	close(fds[0]);
	close(fds[1]);
}

TEST_HARNESS_MAIN
