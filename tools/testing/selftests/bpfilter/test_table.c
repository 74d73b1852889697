// SPDX-License-Identifier: GPL-2.0
/*
 * table.c: translate_table() parity. Every validation rule of ip_tables
 * gets a blob that breaks exactly that rule and the exact errno.
 */
#define _GNU_SOURCE

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "kselftest_harness.h"

#include "context.h"
#include "family.h"
#include "helper_blob.h"
#include "rule.h"
#include "table.h"

static struct context *test_ctx(void)
{
	static struct context ctx;

	if (!ctx.backend)
		context_init(&ctx, -1, -1, "store");
	return &ctx;
}

/*
 * The same REPLACE against this machine's real ip_tables (@ipv6:
 * ip6_tables, whose replace header is laid out alike), in a fresh network
 * namespace (so the table is the initial one, num_counters 4): the errno,
 * or 1 if that is not possible here (not root, no ip_tables).
 */
static int kernel_replace_family(const struct ipt_replace *hdr, const void *blob, bool ipv6)
{
	struct xt_counters old[4];
	struct ipt_replace *r;
	int status, s;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		if (unshare(CLONE_NEWNET))
			_exit(255);
		s = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
		r = calloc(1, sizeof(*r) + hdr->size);
		if (s < 0 || !r)
			_exit(255);
		*r = *hdr;
		r->num_counters = 4;
		r->counters = old;
		memcpy(r->entries, blob, hdr->size);
		if (setsockopt(s, ipv6 ? IPPROTO_IPV6 : IPPROTO_IP, IPT_SO_SET_REPLACE, r,
			       sizeof(*r) + hdr->size))
			_exit(errno);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return 1;
	return -WEXITSTATUS(status);
}

static int kernel_replace(const struct ipt_replace *hdr, const void *blob)
{
	return kernel_replace_family(hdr, blob, false);
}

/*
 * Validate with the model and, where possible, require the real ip_tables to
 * give the same answer: the model is only right if the kernel agrees. The
 * header must describe a table with the filter table's valid_hooks for the
 * kernel's later checks to pass.
 */
static int translate_hdr_out(struct bb *b, struct ipt_replace *r, struct table **out)
{
	struct table *t = NULL;
	int err = table_from_replace(test_ctx(), &family_ipv4, r, b->buf, &t);
	int kerr = kernel_replace(r, b->buf);

	if (kerr != 1 && r->valid_hooks == 0x0e && kerr != err) {
		fprintf(stderr, "# model %d, real ip_tables %d\n", err, kerr);
		err = 1000 + kerr;	/* makes the caller's EXPECT fail */
	}
	if (out)
		*out = t;
	else
		table_free(t);
	return err;
}

static int translate_hdr(struct bb *b, struct ipt_replace *r)
{
	return translate_hdr_out(b, r, NULL);
}

static int translate(struct bb *b, struct table **out)
{
	struct ipt_replace r;

	bb_header(b, &r);
	return translate_hdr_out(b, &r, out);
}

/* INPUT: one tcp rule + policy DROP, FORWARD, OUTPUT, then ERROR. Returns the rule offset. */
static uint32_t basic_table(struct bb *b)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct bb_ext m = { "tcp", 0, &tcp, sizeof(tcp) };
	struct ipt_ip ip = { .proto = IPPROTO_TCP };
	uint32_t r;

	bb_init(b);
	r = bb_std_m(b, &ip, &m, ACCEPT);
	bb_filter_policies(b, r, DROP);
	bb_error(b, "ERROR");
	return r;
}

TEST(kernel_comparison_available)
{
	struct table *t;
	struct ipt_replace r;
	struct bb b;

	/* Report (not fail) when the real ip_tables cannot be used as the reference. */
	bb_init(&b);
	bb_filter_policies(&b, 0, ACCEPT);
	bb_error(&b, "ERROR");
	bb_header(&b, &r);
	if (kernel_replace(&r, b.buf) == 1)
		TH_LOG("real ip_tables not usable here: model-only expectations");
	else
		EXPECT_EQ(0, kernel_replace(&r, b.buf));
	ASSERT_EQ(0, translate(&b, &t));
	table_free(t);
}

TEST(initial_table)
{
	struct table *t;

	ASSERT_EQ(0, table_create_initial(test_ctx(), &family_ipv4, &table_kinds[BPFILTER_TABLE_FILTER], &t));
	EXPECT_EQ(632, t->size);
	EXPECT_EQ(4, t->num_entries);
	EXPECT_EQ(0x0e, t->valid_hooks);
	EXPECT_EQ(TABLE_NO_HOOK, t->hook_entry[NF_INET_PRE_ROUTING]);
	EXPECT_EQ(0, t->hook_entry[NF_INET_LOCAL_IN]);
	EXPECT_EQ(152, t->hook_entry[NF_INET_FORWARD]);
	EXPECT_EQ(304, t->hook_entry[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(TABLE_NO_HOOK, t->underflow[NF_INET_POST_ROUTING]);
	EXPECT_EQ(304, t->underflow[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(1u << NF_INET_LOCAL_IN, t->rules[0].comefrom);
	EXPECT_EQ(1u << NF_INET_FORWARD, t->rules[1].comefrom);
	EXPECT_EQ(1u << NF_INET_LOCAL_OUT, t->rules[2].comefrom);
	EXPECT_EQ(0, t->rules[3].comefrom);
	EXPECT_EQ(TARGET_VERDICT, t->rules[0].target.kind);
	EXPECT_EQ(ACCEPT, t->rules[0].target.verdict);
	EXPECT_EQ(TARGET_ERROR, t->rules[3].target.kind);
	EXPECT_STREQ("ERROR", t->rules[3].target.error_name);
	EXPECT_EQ(2, t->hook_rule[NF_INET_LOCAL_OUT]);
	table_free(t);
}

TEST(basic_table_accepted)
{
	struct table *t;
	struct bb b;

	basic_table(&b);
	ASSERT_EQ(0, translate(&b, &t));
	EXPECT_EQ(5, t->num_entries);
	EXPECT_EQ(1, t->rules[0].num_matches);
	EXPECT_STREQ("tcp", t->rules[0].matches[0].ops->id.name);
	EXPECT_EQ(IPPROTO_TCP, t->rules[0].ip.proto);
	EXPECT_EQ(DROP, t->rules[1].target.verdict);
	EXPECT_EQ(1, t->underflow_rule[NF_INET_LOCAL_IN]);
	table_free(t);
}

/* INPUT jumps to user chain "c" (rule + RETURN); comefrom and jump_index follow. */
TEST(user_chain_jump_return)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	uint32_t j, head, first;
	struct table *t;
	struct bb b;

	bb_init(&b);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, j, ACCEPT);
	head = bb_error(&b, "c");
	first = bb_std(&b, &ip, DROP);
	bb_std(&b, NULL, RETURN);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, first);
	ASSERT_EQ(0, translate(&b, &t));
	EXPECT_EQ(TARGET_JUMP, t->rules[0].target.kind);
	EXPECT_EQ(5, t->rules[0].target.jump_index);
	EXPECT_EQ(1u << NF_INET_LOCAL_IN, t->rules[5].comefrom);
	EXPECT_EQ(1u << NF_INET_LOCAL_IN, t->rules[6].comefrom);
	/* The chain head is never reached: only its rules are. */
	EXPECT_EQ(0, t->rules[4].comefrom);
	EXPECT_EQ(head, t->rules[4].offset);
	table_free(t);
}

/* A chain reached from INPUT and OUTPUT carries both hook bits. */
TEST(comefrom_two_hooks)
{
	uint32_t j1, j2, first, u;
	struct table *t;
	struct bb b;

	bb_init(&b);
	j1 = bb_std(&b, NULL, 0);
	u = bb_std(&b, NULL, ACCEPT);
	bb_hook(&b, NF_INET_LOCAL_IN, j1, u);
	u = bb_std(&b, NULL, ACCEPT);
	bb_hook(&b, NF_INET_FORWARD, u, u);
	j2 = bb_std(&b, NULL, 0);
	u = bb_std(&b, NULL, ACCEPT);
	bb_hook(&b, NF_INET_LOCAL_OUT, j2, u);
	bb_error(&b, "c");
	first = bb_std(&b, NULL, RETURN);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j1, first);
	bb_set_verdict(&b, j2, first);
	ASSERT_EQ(0, translate(&b, &t));
	EXPECT_EQ((1u << NF_INET_LOCAL_IN) | (1u << NF_INET_LOCAL_OUT), t->rules[6].comefrom);
	table_free(t);
}

/* A goto (IPT_F_GOTO) is a jump too, and unreachable entries are allowed. */
TEST(goto_and_unreachable)
{
	struct ipt_ip ip = { .flags = IPT_F_GOTO };
	uint32_t j, first;
	struct table *t;
	struct bb b;

	bb_init(&b);
	j = bb_std(&b, &ip, 0);
	bb_filter_policies(&b, j, ACCEPT);
	bb_error(&b, "c");
	first = bb_std(&b, NULL, DROP);
	bb_error(&b, "unused");
	bb_std(&b, NULL, RETURN);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, first);
	ASSERT_EQ(0, translate(&b, &t));
	EXPECT_EQ(RULE_F_GOTO, t->rules[0].ip.flags);
	EXPECT_EQ(0, t->rules[7].comefrom);
	table_free(t);
}

TEST(loop_between_chains_eloop)
{
	uint32_t j, a1, b1;
	struct bb b;

	bb_init(&b);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, j, ACCEPT);
	bb_error(&b, "a");
	a1 = bb_std(&b, NULL, 0);
	bb_std(&b, NULL, RETURN);
	bb_error(&b, "b");
	b1 = bb_std(&b, NULL, 0);
	bb_std(&b, NULL, RETURN);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, a1);
	bb_set_verdict(&b, a1, b1);
	bb_set_verdict(&b, b1, a1);
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
}

TEST(self_jump_eloop)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	uint32_t first, j;
	struct bb b;

	bb_init(&b);
	first = bb_std(&b, &ip, ACCEPT);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, first, ACCEPT);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, j);
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
	/* Verdict 0 is not a jump to offset 0: it is invalid. */
	bb_set_verdict(&b, j, 0);
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
}

TEST(jump_into_entry_middle_eloop)
{
	uint32_t j;
	struct bb b;

	bb_init(&b);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, j, ACCEPT);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, 160);
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
	/* Past the end of the table as well. */
	bb_set_verdict(&b, j, 1u << 20);
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
}

/* A user chain without a RETURN falls through into the end of the table. */
TEST(fall_off_end_eloop)
{
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	uint32_t j, first;
	struct bb b;

	bb_init(&b);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, j, ACCEPT);
	bb_error(&b, "c");
	first = bb_std(&b, &ip, DROP);
	bb_set_verdict(&b, j, first);
	/* No final ERROR: the chain's last rule falls off the end. */
	bb_set_verdict(&b, j, first);
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
}

TEST(entry_count_mismatch)
{
	struct ipt_replace r;
	struct bb b;

	basic_table(&b);
	bb_header(&b, &r);
	r.num_entries = b.num + 1;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	r.num_entries = b.num - 1;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	r.num_entries = 0x7fffffff;
	EXPECT_EQ(-ENOMEM, translate_hdr(&b, &r));
}

TEST(size_truncated)
{
	struct ipt_replace r;
	struct bb b;

	basic_table(&b);
	bb_header(&b, &r);
	r.size = b.size - 8;	/* last entry overruns the limit */
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	r.size = b.size - 176 + 112;	/* e + 112 >= limit for the last entry */
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
}

TEST(next_offset_rules)
{
	struct bb b;
	uint32_t r = basic_table(&b);

	bb_at(&b, r)->next_offset = 140;	/* < 144 */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->next_offset += 4;		/* next entry misaligned */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->next_offset = 60000;	/* beyond the limit */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
}

TEST(ip_flags_invflags)
{
	struct bb b;
	uint32_t r = basic_table(&b);

	bb_at(&b, r)->ip.flags = 0x04;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->ip.invflags = 0x80;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->ip.invflags = IPT_INV_MASK & ~IPT_INV_PROTO;
	bb_at(&b, r)->ip.flags = IPT_F_FRAG;
	EXPECT_EQ(0, translate(&b, NULL));
}

TEST(target_offset_rules)
{
	struct xt_entry_target *t;
	struct bb b;
	uint32_t r = basic_table(&b);

	bb_at(&b, r)->target_offset = 104;	/* inside ipt_entry */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->target_offset = bb_at(&b, r)->next_offset - 24;	/* +32 > next */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	t = (void *)((char *)bb_at(&b, r) + bb_at(&b, r)->target_offset);
	t->u.target_size = 24;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	t->u.target_size = 48;	/* overruns next_offset */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	t->u.target_size = 32;	/* fits, but the standard target's size is 40 */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
}

TEST(standard_target_size_and_verdicts)
{
	static const int bad[] = { 0, -3, -6, -7, -100, (int)0x80000000 };
	static const int good[] = { -1, -2, -4 };
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct bb b;
	uint32_t r;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bb_init(&b);
		r = bb_std(&b, &ip, bad[i]);
		bb_filter_policies(&b, r, ACCEPT);
		bb_error(&b, "ERROR");
		EXPECT_EQ(-EINVAL, translate(&b, NULL)) TH_LOG("verdict %d", bad[i]);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		bb_init(&b);
		r = bb_std(&b, &ip, good[i]);
		bb_filter_policies(&b, r, ACCEPT);
		bb_error(&b, "ERROR");
		EXPECT_EQ(0, translate(&b, NULL)) TH_LOG("verdict %d", good[i]);
	}
	/* RETURN in a built-in chain's rule is fine (it returns to the policy). */
	bb_init(&b);
	r = bb_std(&b, &ip, RETURN);
	bb_filter_policies(&b, r, ACCEPT);
	bb_error(&b, "ERROR");
	EXPECT_EQ(0, translate(&b, NULL));
	/* XT_ALIGN(target_offset + 40) must equal next_offset. */
	bb_init(&b);
	r = bb_std(&b, &ip, DROP);
	bb_at(&b, r)->next_offset += 8;
	b.size += 8;
	bb_filter_policies(&b, r, ACCEPT);
	bb_error(&b, "ERROR");
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
}

TEST(error_target_rules)
{
	struct xt_error_target *et;
	struct bb b;
	uint32_t r;

	basic_table(&b);
	r = b.size - 176;
	et = (void *)((char *)bb_at(&b, r) + 112);
	memset(et->errorname, 'x', sizeof(et->errorname));	/* no NUL */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	et->target.u.target_size = 56;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	et->errorname[28] = 'y';	/* NUL at 29 is enough */
	EXPECT_EQ(0, translate(&b, NULL));
}

TEST(match_layout_rules)
{
	struct xt_entry_match *m;
	struct bb b;
	uint32_t r = basic_table(&b);

	m = (void *)((char *)bb_at(&b, r) + 112);
	m->u.match_size = 24;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	m->u.match_size = 56;	/* runs into the target */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	m->u.match_size = 44;	/* tiles, but the next match/target start is misaligned */
	bb_at(&b, r)->target_offset = 112 + 44;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	m->u.match_size = 40;	/* a second match of 8 bytes < 32 */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
}

TEST(hook_entry_rules)
{
	struct ipt_replace r;
	struct bb b;

	basic_table(&b);
	bb_header(&b, &r);
	r.hook_entry[NF_INET_FORWARD] += 8;	/* not an entry start */
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	bb_header(&b, &r);
	r.underflow[NF_INET_LOCAL_OUT] = 1u << 30;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	bb_header(&b, &r);
	/* Unsorted: FORWARD before INPUT. */
	r.hook_entry[NF_INET_FORWARD] = 0;
	r.hook_entry[NF_INET_LOCAL_IN] = b.hook_entry[NF_INET_FORWARD];
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	bb_header(&b, &r);
	/* Duplicate underflow. */
	r.underflow[NF_INET_LOCAL_OUT] = r.underflow[NF_INET_FORWARD];
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	/* Hooks outside valid_hooks are ignored, whatever they say. */
	bb_header(&b, &r);
	r.hook_entry[NF_INET_PRE_ROUTING] = 3;
	r.underflow[NF_INET_POST_ROUTING] = 5;
	EXPECT_EQ(0, translate_hdr(&b, &r));
}

TEST(underflow_rules)
{
	struct ipt_replace r;
	struct ipt_ip ip = { .proto = IPPROTO_UDP };
	struct bb b;
	uint32_t x, u;

	/* Underflow on a conditional rule. */
	bb_init(&b);
	x = bb_std(&b, &ip, ACCEPT);
	bb_filter_policies(&b, x, ACCEPT);
	bb_error(&b, "ERROR");
	bb_header(&b, &r);
	r.underflow[NF_INET_LOCAL_IN] = x;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	/* Underflow with RETURN or QUEUE verdict. */
	bb_init(&b);
	u = bb_std(&b, NULL, RETURN);
	bb_filter_policies(&b, u, ACCEPT);
	bb_error(&b, "ERROR");
	bb_header(&b, &r);
	r.underflow[NF_INET_LOCAL_IN] = u;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	bb_set_verdict(&b, u, -4);
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
	bb_set_verdict(&b, u, DROP);
	EXPECT_EQ(0, translate_hdr(&b, &r));
	/* Underflow on the ERROR entry. */
	bb_header(&b, &r);
	r.underflow[NF_INET_LOCAL_OUT] = b.size - 176;
	EXPECT_EQ(-EINVAL, translate_hdr(&b, &r));
}

TEST(extension_errors)
{
	struct xt_entry_match *m;
	struct xt_tcp *tcp;
	struct bb b;
	uint32_t r = basic_table(&b);

	m = (void *)((char *)bb_at(&b, r) + 112);
	tcp = (void *)m->data;
	strcpy(m->u.user.name, "nosuchmatch");
	EXPECT_EQ(-ENOENT, translate(&b, NULL));
	basic_table(&b);
	m->u.user.revision = 1;
	EXPECT_EQ(-ENOENT, translate(&b, NULL));
	basic_table(&b);
	memset(m->u.user.name, 'a', sizeof(m->u.user.name));
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->ip.proto = IPPROTO_UDP;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	bb_at(&b, r)->ip.invflags = IPT_INV_PROTO;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	tcp->invflags = 0x10;
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	basic_table(&b);
	tcp->invflags = XT_TCP_INV_MASK;
	EXPECT_EQ(0, translate(&b, NULL));
	/* Unknown target, bad target revision. */
	basic_table(&b);
	strcpy(((struct xt_entry_target *)((char *)bb_at(&b, r) + bb_at(&b, r)->target_offset))
		       ->u.user.name, "NOSUCH");
	EXPECT_EQ(-ENOENT, translate(&b, NULL));
	basic_table(&b);
	((struct xt_entry_target *)((char *)bb_at(&b, r) + bb_at(&b, r)->target_offset))
		->u.user.revision = 1;
	EXPECT_EQ(-ENOENT, translate(&b, NULL));
}

/* Errors come in translate_table() order: a layout error beats a later ELOOP and ENOENT. */
TEST(error_order)
{
	struct xt_entry_match *m;
	uint32_t j, r;
	struct bb b;
	struct ipt_ip ip = { .proto = IPPROTO_UDP };

	bb_init(&b);
	r = bb_std(&b, &ip, ACCEPT);
	j = bb_std(&b, NULL, 0);
	bb_filter_policies(&b, r, ACCEPT);
	bb_error(&b, "ERROR");
	bb_set_verdict(&b, j, j);	/* ELOOP */
	EXPECT_EQ(-ELOOP, translate(&b, NULL));
	bb_at(&b, r)->ip.flags = 0x40;	/* EINVAL in the first pass */
	EXPECT_EQ(-EINVAL, translate(&b, NULL));
	/* ENOENT of a match comes after ELOOP. */
	r = basic_table(&b);
	m = (void *)((char *)bb_at(&b, r) + 112);
	strcpy(m->u.user.name, "nosuchmatch");
	EXPECT_EQ(-ENOENT, translate(&b, NULL));
}

TEST(entries_view_and_info)
{
	struct xt_counters c[5] = { { 1, 100 }, { 2, 200 } };
	struct ipt_getinfo info;
	struct xt_entry_match *m;
	struct table *t;
	struct bb b;
	char out[65536];
	uint32_t r = basic_table(&b);

	/* Name bytes after the NUL are not part of the view; padding is zeroed. */
	m = (void *)((char *)bb_at(&b, r) + 112);
	m->u.user.name[10] = 'z';
	m->data[14] = 0x55;
	bb_at(&b, r)->comefrom = 0xdead;
	bb_at(&b, r)->counters.pcnt = 77;
	ASSERT_EQ(0, translate(&b, &t));
	memset(out, 0xaa, sizeof(out));
	table_to_entries(t, c, out);
	m = (void *)(out + r + 112);
	EXPECT_EQ(0xaa, (unsigned char)m->u.user.name[10]);
	EXPECT_EQ(0, m->u.user.name[3]);
	EXPECT_STREQ("tcp", m->u.user.name);
	EXPECT_EQ(0, m->data[14]);
	EXPECT_EQ(1u << NF_INET_LOCAL_IN, ((struct ipt_entry *)(out + r))->comefrom);
	EXPECT_EQ(1, ((struct ipt_entry *)(out + r))->counters.pcnt);
	EXPECT_EQ(200, ((struct ipt_entry *)(out + t->rules[1].offset))->counters.bcnt);
	table_to_info(t, "filter", &info);
	EXPECT_EQ(5, info.num_entries);
	EXPECT_EQ(b.size, info.size);
	EXPECT_EQ(TABLE_NO_HOOK, info.hook_entry[NF_INET_PRE_ROUTING]);
	EXPECT_EQ(0, table_rule_at(t, r));
	EXPECT_EQ(-ENOENT, table_rule_at(t, r + 8));
	table_free(t);
}


TEST(initial_table_ipv6)
{
	struct table *t;

	ASSERT_EQ(0, table_create_initial(test_ctx(), &family_ipv6, &table_kinds[BPFILTER_TABLE_FILTER], &t));
	EXPECT_EQ(856, t->size);
	EXPECT_EQ(4, t->num_entries);
	EXPECT_EQ(0x0e, t->valid_hooks);
	EXPECT_EQ(208, t->hook_entry[NF_INET_FORWARD]);
	EXPECT_EQ(416, t->underflow[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(1u << NF_INET_LOCAL_OUT, t->rules[2].comefrom);
	EXPECT_EQ(TARGET_ERROR, t->rules[3].target.kind);
	EXPECT_EQ(sizeof(struct ip6t_entry), t->rules[0].target_offset);
	table_free(t);
}

/*
 * ip6_checkentry(): IP6T_F_MASK (PROTO, TOS, GOTO) and IP6T_INV_MASK, on
 * a rule placed before the INPUT policy; the same errno as ip6_tables.
 */
TEST(ipv6_flag_masks)
{
	static const struct { uint8_t flags, invflags; int err; } c[] = {
		{ IP6T_F_PROTO, 0, 0 }, { IP6T_F_TOS, 0, 0 }, { IP6T_F_MASK, 0, 0 },
		{ 0x08, 0, -EINVAL }, { 0x80, 0, -EINVAL },
		{ 0, IP6T_INV_MASK, 0 }, { 0, 0x80, -EINVAL },
	};
	const uint32_t rule = sizeof(struct ip6t_entry) + XT_ALIGN(sizeof(struct xt_standard_target));
	struct table *init, *t;
	struct ipt_replace r;
	unsigned int i, h;
	char *blob;

	ASSERT_EQ(0, table_create_initial(test_ctx(), &family_ipv6, &table_kinds[BPFILTER_TABLE_FILTER], &init));
	blob = calloc(1, init->size + rule);
	ASSERT_NE(NULL, blob);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ip6t_entry *e = (struct ip6t_entry *)blob;
		struct xt_standard_target *st;
		int kerr;

		memset(blob, 0, init->size + rule);
		memcpy(blob + rule, init->entries, init->size);
		e->target_offset = sizeof(*e);
		e->next_offset = rule;
		e->ipv6.proto = IPPROTO_TCP;
		e->ipv6.flags = c[i].flags;
		e->ipv6.invflags = c[i].invflags;
		st = (struct xt_standard_target *)e->elems;
		st->target.u.target_size = XT_ALIGN(sizeof(*st));
		st->verdict = -NF_DROP - 1;
		memset(&r, 0, sizeof(r));
		strcpy(r.name, "filter");
		r.valid_hooks = init->valid_hooks;
		r.num_entries = init->num_entries + 1;
		r.size = init->size + rule;
		for (h = 0; h < NF_INET_NUMHOOKS; h++) {
			if (!(init->valid_hooks & (1u << h)))
				continue;
			r.hook_entry[h] = h == NF_INET_LOCAL_IN ? 0 : init->hook_entry[h] + rule;
			r.underflow[h] = init->underflow[h] + rule;
		}
		t = NULL;
		EXPECT_EQ(c[i].err, table_from_replace(test_ctx(), &family_ipv6, &r, blob, &t));
		kerr = kernel_replace_family(&r, blob, true);
		if (kerr != 1)
			EXPECT_EQ(c[i].err, kerr);
		if (t) {
			EXPECT_EQ(c[i].flags & IP6T_F_PROTO ? RULE_F_PROTO : 0,
				  t->rules[0].ip.flags & RULE_F_PROTO);
			EXPECT_EQ(c[i].flags & IP6T_F_GOTO ? RULE_F_GOTO : 0,
				  t->rules[0].ip.flags & RULE_F_GOTO);
		}
		table_free(t);
	}
	free(blob);
	table_free(init);
}

TEST_HARNESS_MAIN
