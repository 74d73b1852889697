// SPDX-License-Identifier: GPL-2.0
/* match.c + ext_*.c: lookup by name and revision, revision queries, payload checks. */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "kselftest_harness.h"

#include "context.h"
#include "match.h"

struct mbuf {
	struct xt_entry_match m;
	char data[64];
};

static struct context *test_ctx(void)
{
	static struct context ctx;

	if (!ctx.backend)
		context_init(&ctx, -1, -1, "store");
	return &ctx;
}

static int init_sz(const char *name, uint8_t rev, uint16_t payload, const void *data,
		   size_t dsize, const struct ipt_ip *ip)
{
	struct mbuf b;
	struct match m;

	memset(&b, 0, sizeof(b));
	strncpy(b.m.u.user.name, name, sizeof(b.m.u.user.name));
	b.m.u.user.revision = rev;
	b.m.u.match_size = sizeof(b.m) + payload;
	if (data)
		memcpy(b.data, data, dsize < payload ? dsize : payload);
	return match_init(test_ctx(), ip, &b.m, 112, &m);
}

/* @data is a struct; only its own bytes are copied into the payload. */
#define init(name, rev, payload, data, ip) \
	init_sz(name, rev, payload, data, sizeof(*(data)), ip)

TEST(find)
{
	char longname[XT_EXTENSION_MAXNAMELEN];
	int err = 0;

	EXPECT_EQ(&tcp_match_ops, match_ops_find("tcp", 0, &err));
	EXPECT_EQ(&udp_match_ops, match_ops_find("udp", 0, &err));
	EXPECT_EQ(&icmp_match_ops, match_ops_find("icmp", 0, &err));
	EXPECT_EQ(NULL, match_ops_find("tcp", 1, &err));
	/* tcp is an NFPROTO_IPV4 match: a bad revision is ENOENT, not EPROTOTYPE. */
	EXPECT_EQ(-ENOENT, err);
	EXPECT_EQ(NULL, match_ops_find("conntrack", 3, &err));
	EXPECT_EQ(-ENOENT, err);
	memset(longname, 'x', sizeof(longname));
	EXPECT_EQ(NULL, match_ops_find(longname, 0, &err));
	EXPECT_EQ(-EINVAL, err);
	/* Sizes are the kernel's XT_ALIGN'd payloads. */
	EXPECT_EQ(16, tcp_match_ops.size);
	EXPECT_EQ(16, udp_match_ops.size);
	EXPECT_EQ(8, icmp_match_ops.size);
	EXPECT_EQ(12, tcp_match_ops.usersize);
	EXPECT_EQ(10, udp_match_ops.usersize);
	EXPECT_EQ(4, icmp_match_ops.usersize);
}

TEST(revision)
{
	EXPECT_EQ(0, match_revision("tcp", 0));
	EXPECT_EQ(-EPROTONOSUPPORT, match_revision("tcp", 1));
	EXPECT_EQ(-EPROTONOSUPPORT, match_revision("udp", 2));
	EXPECT_EQ(0, match_revision("icmp", 0));
	EXPECT_EQ(-ENOENT, match_revision("multiport", 1));
	EXPECT_EQ(-ENOENT, match_revision("", 0));
}

TEST(tcp_checks)
{
	struct ipt_ip tcp_ip = { .proto = IPPROTO_TCP };
	struct ipt_ip inv_ip = { .proto = IPPROTO_TCP, .invflags = IPT_INV_PROTO };
	struct ipt_ip udp_ip = { .proto = IPPROTO_UDP };
	struct ipt_ip any_ip = { 0 };
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 80, 80 } };

	EXPECT_EQ(0, init("tcp", 0, 16, &tcp, &tcp_ip));
	EXPECT_EQ(-EINVAL, init("tcp", 0, 16, &tcp, &udp_ip));
	EXPECT_EQ(-EINVAL, init("tcp", 0, 16, &tcp, &any_ip));
	EXPECT_EQ(-EINVAL, init("tcp", 0, 16, &tcp, &inv_ip));
	EXPECT_EQ(-EINVAL, init("tcp", 0, 8, &tcp, &tcp_ip));
	EXPECT_EQ(-EINVAL, init("tcp", 0, 24, &tcp, &tcp_ip));
	tcp.invflags = XT_TCP_INV_MASK;
	EXPECT_EQ(0, init("tcp", 0, 16, &tcp, &tcp_ip));
	tcp.invflags = 0x10;
	EXPECT_EQ(-EINVAL, init("tcp", 0, 16, &tcp, &tcp_ip));
	EXPECT_EQ(-ENOENT, init("tcp", 1, 16, &tcp, &tcp_ip));
	/* Size is checked before the protocol. */
	EXPECT_EQ(-EINVAL, init("tcp", 0, 8, &tcp, &udp_ip));
}

TEST(udp_icmp_checks)
{
	struct ipt_ip udp_ip = { .proto = IPPROTO_UDP };
	struct ipt_ip icmp_ip = { .proto = IPPROTO_ICMP };
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 53, 53 } };
	struct ipt_icmp icmp = { .type = 8, .code = { 0, 0xff } };

	EXPECT_EQ(0, init("udp", 0, 16, &udp, &udp_ip));
	EXPECT_EQ(-EINVAL, init("udp", 0, 16, &udp, &icmp_ip));
	udp.invflags = XT_UDP_INV_MASK;
	EXPECT_EQ(0, init("udp", 0, 16, &udp, &udp_ip));
	udp.invflags = 0x04;
	EXPECT_EQ(-EINVAL, init("udp", 0, 16, &udp, &udp_ip));

	EXPECT_EQ(0, init("icmp", 0, 8, &icmp, &icmp_ip));
	EXPECT_EQ(-EINVAL, init("icmp", 0, 8, &icmp, &udp_ip));
	EXPECT_EQ(-EINVAL, init("icmp", 0, 16, &icmp, &icmp_ip));
	icmp.invflags = IPT_ICMP_INV;
	EXPECT_EQ(0, init("icmp", 0, 8, &icmp, &icmp_ip));
	icmp.invflags = 0x02;
	EXPECT_EQ(-EINVAL, init("icmp", 0, 8, &icmp, &icmp_ip));
	EXPECT_EQ(-ENOENT, init_sz("limit", 0, 32, NULL, 0, &icmp_ip));
}

TEST(parsed_fields)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct mbuf b;
	struct match m;

	memset(&b, 0, sizeof(b));
	strcpy(b.m.u.user.name, "udp");
	b.m.u.match_size = 48;
	ASSERT_EQ(0, match_init(test_ctx(), &ip, &b.m, 152, &m));
	EXPECT_EQ(&udp_match_ops, m.ops);
	EXPECT_EQ((const void *)b.m.data, m.data);
	EXPECT_EQ(152, m.offset);
	EXPECT_EQ(48, m.match_size);
}

TEST_HARNESS_MAIN
