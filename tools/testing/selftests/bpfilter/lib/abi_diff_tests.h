/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential ABI tests (abi_diff.h), for the family the including
 * test defines as `static const struct abi_family abi_family`, after
 * kselftest_harness.h. The last test prints "<tag>: N cases, M mismatches"
 * and fails if M > 0 or N < the family's min_cases. Mismatches are also
 * appended to $ABI_MISMATCH_LOG (default /tmp/abi-mismatches.log);
 * $ABI_VERBOSE prints every case, $ABI_KEEP_RECORDS keeps the recordings.
 */
#ifndef BPFILTER_TEST_ABI_DIFF_TESTS_H
#define BPFILTER_TEST_ABI_DIFF_TESTS_H

#include <sys/wait.h>

#include "abi_diff.h"

/* The totals are shared by the forked tests: map them before the harness forks. */
static void __attribute__((constructor)) abi_tests_init(void)
{
	abi_stats_init();
}

FIXTURE(abi) {
	struct abi_ctx c;
};

FIXTURE_SETUP(abi)
{
	ASSERT_EQ(0, abi_ctx_setup(&self->c, &abi_family));
}

FIXTURE_TEARDOWN(abi)
{
	int ws = abi_ctx_teardown(&self->c);

	/* The helper must leave cleanly on EOF, not crash. */
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		TH_LOG("helper ended with wait status 0x%x", ws);
}

/* Run every scenario with the recorder shim against the real kernel. */
TEST_F_TIMEOUT(abi, a_record, 600)
{
	ASSERT_EQ(0, abi_record(&abi_family));
}

/* Replay every recorded call, in order, on a fresh pair per scenario. */
TEST_F_TIMEOUT(abi, b_replay, 600)
{
	ASSERT_EQ(0, abi_replay(&self->c));
}

TEST_F_TIMEOUT(abi, c_corrupt_header, 600)
{
	unsigned int i;

	for (i = 0; i < abi_nbases; i++)
		ASSERT_EQ(0, abi_corrupt_header(&self->c, abi_base_names[i]));
}

TEST_F_TIMEOUT(abi, d_corrupt_entries, 900)
{
	unsigned int i;

	/* All entries of the first bases; the small ones add little. */
	for (i = 0; i < ABI_ENTRY_BASES; i++)
		ASSERT_EQ(0, abi_corrupt_entries(&self->c, abi_base_names[i]));
}

TEST_F_TIMEOUT(abi, e_corrupt_semantics, 600)
{
	unsigned int i;

	for (i = 0; i < abi_nbases; i++)
		ASSERT_EQ(0, abi_corrupt_semantics(&self->c, abi_base_names[i]));
}

/* Every check of the matches beyond tcp/udp/icmp, on the blob that holds them all. */
TEST_F_TIMEOUT(abi, e_corrupt_matches, 600)
{
	ASSERT_EQ(0, abi_corrupt_matches(&self->c));
}

/* Hand-made gets on the initial table. */
TEST_F_TIMEOUT(abi, f_gets, 300)
{
	ASSERT_EQ(0, abi_gets(&self->c));
}

/* ADD_COUNTERS rules, then a REPLACE must hand back exactly those counters. */
TEST_F_TIMEOUT(abi, g_counters, 300)
{
	ASSERT_EQ(0, abi_counters(&self->c));
}

/* Stock iptables end to end, against the kernel and through the shim. */
TEST_F_TIMEOUT(abi, h_iptables_shim, 600)
{
	ASSERT_EQ(0, abi_iptables_shim(&self->c));
}

TEST_F(abi, z_summary)
{
	EXPECT_EQ(0, abi_summary(&abi_family));
}

TEST_HARNESS_MAIN

#endif /* BPFILTER_TEST_ABI_DIFF_TESTS_H */
