// SPDX-License-Identifier: GPL-2.0
/* rule.c: per-entry layout checks and the parse into struct rule. */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <errno.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "kselftest_harness.h"

#include "context.h"
#include "family.h"
#include "helper_blob.h"
#include "rule.h"

static struct context *test_ctx(void)
{
	static struct context ctx;

	if (!ctx.backend)
		context_init(&ctx, -1, -1, "store");
	return &ctx;
}

TEST(check_entry_limits)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_std(&b, &ip, DROP);
	EXPECT_EQ(0, rule_check_entry(&family_ipv4, bb_at(&b, o), 0, 152));
	EXPECT_EQ(0, rule_check_entry(&family_ipv4, bb_at(&b, o), 0, 4096));
	EXPECT_EQ(-EINVAL, rule_check_entry(&family_ipv4, bb_at(&b, o), 0, 151));
	EXPECT_EQ(-EINVAL, rule_check_entry(&family_ipv4, bb_at(&b, o), 0, 112));
	EXPECT_EQ(-EINVAL, rule_check_entry(&family_ipv4, bb_at(&b, o), 4, 4096));
	EXPECT_EQ(-EINVAL, rule_check_entry(&family_ipv4, bb_at(&b, o), 8, 152));
}

TEST(unconditional)
{
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct bb_ext m = { "udp", 0, &udp, sizeof(udp) };
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct ipt_ip ifc = { .iniface = "eth0" };
	struct bb b;

	bb_init(&b);
	EXPECT_TRUE(rule_unconditional(&family_ipv4, bb_at(&b, bb_std(&b, NULL, ACCEPT))));
	EXPECT_FALSE(rule_unconditional(&family_ipv4, bb_at(&b, bb_std(&b, &ip, ACCEPT))));
	EXPECT_FALSE(rule_unconditional(&family_ipv4, bb_at(&b, bb_std(&b, &ifc, ACCEPT))));
	/* A match makes it conditional even with a zero ipt_ip. */
	EXPECT_FALSE(rule_unconditional(&family_ipv4, bb_at(&b, bb_std_m(&b, NULL, &m, ACCEPT))));
}

TEST(parse)
{
	struct xt_tcp tcp = { .spts = { 1, 2 }, .dpts = { 3, 4 } };
	struct xt_udp udp = { 0 };
	struct bb_ext ms[2] = { { "tcp", 0, &tcp, sizeof(tcp) }, { "tcp", 0, &tcp, sizeof(tcp) } };
	struct bb_ext t = { "", 0, NULL, 0 };
	struct ipt_ip ip = { .proto = IPPROTO_TCP, .src.s_addr = 0x0100000a,
			     .smsk.s_addr = 0x00ffffff };
	int verdict = DROP;
	struct rule r;
	struct bb b;
	uint32_t o;

	(void)udp;
	t.data = &verdict;
	t.len = sizeof(verdict);
	bb_init(&b);
	o = bb_entry(&b, &ip, ms, 2, &t);
	ASSERT_EQ(0, rule_check_entry(&family_ipv4, bb_at(&b, o), o, b.size));
	ASSERT_EQ(0, rule_init(test_ctx(), &family_ipv4, "filter", bb_at(&b, o), o, &r));
	EXPECT_EQ(2, r.num_matches);
	EXPECT_EQ(112, r.matches[0].offset);
	EXPECT_EQ(160, r.matches[1].offset);
	EXPECT_EQ(208, r.target_offset);
	EXPECT_EQ(248, r.next_offset);
	EXPECT_EQ(10, r.ip.src[0]);
	EXPECT_EQ(1, r.ip.src[3]);
	EXPECT_EQ(RULE_F_PROTO, r.ip.flags);
	EXPECT_EQ(3, ((const struct xt_tcp *)r.matches[1].data)->dpts[0]);
	EXPECT_EQ(TARGET_VERDICT, r.target.kind);
	EXPECT_EQ(DROP, r.target.verdict);
	rule_free(&r);
	EXPECT_EQ(NULL, r.matches);
}

TEST(parse_errors_free)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct bb_ext ms[2] = { { "tcp", 0, &tcp, sizeof(tcp) }, { "nope", 0, &tcp, sizeof(tcp) } };
	struct bb_ext t = { "NOPE", 0, NULL, 0 };
	struct ipt_ip ip = { .proto = IPPROTO_TCP };
	struct rule r;
	struct bb b;
	uint32_t o;

	bb_init(&b);
	o = bb_entry(&b, &ip, ms, 2, &t);
	EXPECT_EQ(-ENOENT, rule_init(test_ctx(), &family_ipv4, "filter", bb_at(&b, o), o, &r));
	EXPECT_EQ(NULL, r.matches);
	o = bb_entry(&b, &ip, ms, 1, &t);
	EXPECT_EQ(-ENOENT, rule_init(test_ctx(), &family_ipv4, "filter", bb_at(&b, o), o, &r));
}

TEST_HARNESS_MAIN
