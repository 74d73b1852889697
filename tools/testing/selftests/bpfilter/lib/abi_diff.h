/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential ABI test, for either family: every case is submitted
 * both to this kernel's real ip_tables or ip6_tables (setsockopt/getsockopt
 * on a raw socket in a throwaway network namespace) and to the bpfilter
 * helper through the mbox driver (requests pointing into our own memory,
 * with the family, in another fresh namespace), and must give the same
 * errno; after every accepted REPLACE or ADD_COUNTERS the GET_INFO and
 * GET_ENTRIES bytes (with two buffer prefills, since the kernel leaves some
 * bytes untouched) and the old counters written to repl->counters must be
 * identical too.
 *
 * test_abi_diff.c (ip_tables) and test_abi_diff6.c (ip6_tables) each
 * describe their family (struct abi_family: the entry layout, the
 * iptables sessions to record, the matches and names to try, and hooks for
 * the corruptions only that family has) and include abi_diff_tests.h, which
 * holds the tests themselves. Cases come from:
 *  (a) stock iptables-legacy / ip6tables-legacy commands run against the
 *      real kernel with the shim in recorder mode: every sockopt they make
 *      is replayed;
 *  (b) systematic corruptions of recorded REPLACE blobs;
 *  (c) hand-made GET_INFO/GET_ENTRIES/revision/ADD_COUNTERS requests;
 *  (d) the same sessions end to end: once against the kernel, once through
 *      the LD_PRELOAD shim and bpfilter-hostd.
 *
 * The blobs of the two families differ only in their entries' network
 * header part (struct ipt_ip, 84 bytes; struct ip6t_ip6, 136) and where
 * that puts the fields after it; the replace, info and get_entries headers,
 * matches and targets are laid out alike (checked in abi_diff.c).
 */
#ifndef BPFILTER_TEST_ABI_DIFF_H
#define BPFILTER_TEST_ABI_DIFF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "mbox_driver.h"
#include "shim_record.h"

#define ABI_MAX_HELPER_NS	8192
#define ABI_MAX_ENTRIES		256
#define ABI_MAX_RECS		4096
#define ABI_MAX_CMDS		12
#define ABI_DEAD		INT_MIN	/* helper transport failure */
#define ABI_PAGE		4096UL
/* struct ip6t_replace and ip6t_get_entries have the same sizes. */
#define ABI_REPL_HDR		sizeof(struct ipt_replace)
#define ABI_GETE_HDR		sizeof(struct ipt_get_entries)

/* Totals shared by the forked test children (one MAP_SHARED page). */
struct abi_stats {
	int cases;
	int mismatches;
	int recorded;
	char recdir[PATH_MAX];
};

extern struct abi_stats *abi_stats;

/*
 * The corruption bases: the first REPLACE of each family's scenarios of
 * these names. [0] has user chains chain_a and chain_b, and d_corrupt_entries
 * walks the first ABI_ENTRY_BASES; "restore_matches" holds every match of
 * the family's matches[] (e_corrupt_matches).
 */
extern const char *const abi_base_names[];
extern const unsigned int abi_nbases;
#define ABI_ENTRY_BASES		2
#define ABI_MATCHES_BASE	"restore_matches"

/* Map abi_stats; call it once before the harness forks the tests. */
int abi_stats_init(void);

/* One recorded iptables session: shell commands run in order. */
struct abi_scenario {
	const char *name;
	const char *cmds[ABI_MAX_CMDS];
};

/*
 * In a family's scenarios[]: the sessions that read alike in both families,
 * T its command prefix ("iptables-legacy -w 60 ") and NET a network of its
 * addresses.
 */
#define ABI_COMMON_SCENARIOS(T, NET) \
	{ "raw_table", { \
		T "-t raw -A PREROUTING -s " NET " -j DROP", \
		T "-t raw -N rawchain", \
		T "-t raw -A rawchain -p tcp --dport 80 -c 4 400 -j ACCEPT", \
		T "-t raw -A OUTPUT -j rawchain", \
		T "-t raw -I PREROUTING 1 -p udp -j ACCEPT", \
		T "-t raw -A INPUT -j ACCEPT", \
		T "-A INPUT -j NOTRACK", \
		T "-A INPUT -j CT --notrack", \
		T "-t raw -L -v -n -x" } }, \
	{ "raw_table_changes", { \
		T "-t raw -A PREROUTING -s " NET " -c 1 2 -j DROP", \
		T "-t raw -I PREROUTING 1 -p udp -j ACCEPT", \
		T "-t raw -Z", \
		T "-t raw -D PREROUTING 2", \
		T "-t raw -P OUTPUT DROP", \
		T "-t raw -S", \
		T "-A INPUT -s " NET " -j DROP", \
		T "-t raw -F", \
		T "-t raw -X", \
		T "-S" } }, \
	{ "user_chains", { \
		T "-N web", \
		T "-N ssh", \
		T "-A web -p tcp --dport 80 -j ACCEPT", \
		T "-A web -p tcp --dport 443 -j ACCEPT", \
		T "-A web -j RETURN", \
		T "-A ssh -s " NET " -p tcp --dport 22 -j ACCEPT", \
		T "-A INPUT -j web", \
		T "-A INPUT -g ssh", \
		T "-L -n --line-numbers" } }, \
	{ "rename_delete_chain", { \
		T "-N old", \
		T "-A old -j DROP", \
		T "-E old new", \
		T "-A INPUT -j new", \
		T "-D INPUT -j new", \
		T "-F new", \
		T "-X new", \
		T "-N a", T "-N b", T "-X" } }, \
	{ "policies", { \
		T "-P INPUT DROP", \
		T "-P FORWARD DROP", \
		T "-P OUTPUT DROP", \
		T "-P INPUT ACCEPT", \
		T "-S" } }, \
	{ "flush_zero", { \
		T "-A INPUT -p tcp -c 10 1000 -j ACCEPT", \
		T "-A INPUT -p udp -c 20 2000 -j ACCEPT", \
		T "-A OUTPUT -c 3 300 -j ACCEPT", \
		T "-Z INPUT", \
		T "-Z", \
		T "-F INPUT", \
		T "-F" } }, \
	{ "tcp_options", { \
		T "-A INPUT -p tcp --sport 1024:65535 --dport 80 -j ACCEPT", \
		T "-A INPUT -p tcp ! --sport 0:1023 ! --dport 1:2 -j DROP", \
		T "-A INPUT -p tcp --syn -j DROP", \
		T "-A INPUT -p tcp ! --syn -j ACCEPT", \
		T "-A INPUT -p tcp --tcp-flags ALL FIN,PSH,URG -j DROP", \
		T "-A INPUT -p tcp ! --tcp-flags SYN,RST SYN,RST -j DROP", \
		T "-A INPUT -p tcp --tcp-option 8 -j ACCEPT", \
		T "-A INPUT -p tcp ! --tcp-option 2 -j ACCEPT" } }, \
	{ "jumps_return", { \
		T "-N c1", T "-N c2", T "-N c3", \
		T "-A c3 -p udp -j RETURN", \
		T "-A c3 -j DROP", \
		T "-A c2 -j c3", \
		T "-A c2 -p tcp -g c3", \
		T "-A c1 -j c2", \
		T "-A c1 -j RETURN", \
		T "-A INPUT -j c1", \
		T "-A OUTPUT -j c2" } }, \
	{ "empty_chain_jump", { \
		T "-N empty", \
		T "-A INPUT -j empty", \
		T "-A FORWARD -g empty", \
		T "-I INPUT -j empty", \
		T "-L -n" } }, \
	{ "many_rules", { \
		"for i in $(seq 1 40); do " T "-A INPUT -p tcp --dport $i -j ACCEPT; done", \
		T "-D INPUT 20", \
		T "-I INPUT 5 -p udp -j DROP" } }, \
	{ "errors_from_iptables", { \
		T "-A INPUT -j nosuchchain", \
		T "-N dup", T "-N dup", \
		T "-A INPUT -j dup", \
		T "-X dup", \
		T "-D INPUT 9", \
		T "-E dup dup2", \
		T "-L dup2 -n" } }, \
	{ "multiport_options", { \
		T "-A INPUT -p tcp -m multiport --dports 22,80:90,443 -j ACCEPT", \
		T "-A INPUT -p tcp -m multiport ! --sports 1024:2048,3000 -j DROP", \
		T "-A INPUT -p udp -m multiport --ports 53,67:68 -j ACCEPT", \
		T "-A INPUT -p udp -m multiport ! --ports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -j DROP", \
		T "-A INPUT -p udplite -m multiport --dports 5000:6000 -j DROP", \
		T "-A INPUT -p sctp -m multiport --sports 9,10 -j DROP", \
		T "-A INPUT -p dccp -m multiport ! --dports 100 -j DROP", \
		T "-A INPUT -p 6 -m multiport --source-ports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15 -j ACCEPT", \
		T "-A FORWARD -p tcp -m multiport --destination-ports 1:65535 -j ACCEPT", \
		T "-D INPUT -p udp -m multiport --ports 53,67:68 -j ACCEPT", \
		T "-C INPUT -p dccp -m multiport ! --dports 100 -j DROP", \
		T "-S" } }

/* A revision query: a match or target name and a revision. */
struct abi_rev {
	const char *name;
	int rev;
};

/* A flag bit of the entry's network header part, named for case names. */
struct abi_flag {
	uint8_t bit;
	const char *name;
};

/*
 * The x_tables registration a match mirrors: payload size (XT_ALIGN'd),
 * the kernel's matchsize, where the fields GET_ENTRIES copies back end
 * (the kernel's usersize, or the struct's last field: the rest up to size
 * is zeroed), the revision, whether it is NFPROTO_UNSPEC (a bad revision is
 * EPROTOTYPE, not ENOENT), and whether it is bound to a protocol (non-zero:
 * through xt_match.proto or its checkentry).
 */
struct abi_match {
	const char *name;
	uint16_t size;
	uint16_t ksize;
	uint16_t fields_end;
	uint8_t revision;
	bool unspec;
	uint8_t proto;
};

#define ABI_MATCH(n, type, last, rev, unspec, proto) \
	{ n, XT_ALIGN(sizeof(type)), sizeof(type), \
	  offsetof(type, last) + sizeof(((type *)0)->last), rev, unspec, proto }

struct abi_mut;

/* What a family's test is made of. */
struct abi_family {
	const char *tag;		/* "<tag>: N cases, M mismatches" */
	const char *tool;		/* "iptables": end-to-end case names */
	const char *ipt;		/* "iptables-legacy": the commands */
	const char *nfproto_name;	/* "NFPROTO_IPV4": case names */
	uint32_t nfproto;		/* mbox_request.family */
	int min_cases;			/* fewer fails the summary */
	/* The entry layout: the header part is ip_size bytes, then nfcache. */
	uint16_t entry_size;
	uint16_t ip_size;
	uint16_t off_counters;
	uint16_t off_proto;		/* __u16 */
	uint16_t off_flags;
	uint16_t off_invflags;
	uint16_t off_smsk;		/* the source mask's first byte */
	uint16_t off_iniface;
	uint8_t flag_goto;		/* IPT_F_GOTO / IP6T_F_GOTO */
	uint32_t init_size;		/* bytes of a new namespace's filter table */
	/*
	 * Sessions recorded, replayed and run end to end; those named in
	 * abi_base_names[] must be among them.
	 */
	const struct abi_scenario *scenarios;
	unsigned int nscenarios;
	/* Matches whose every check is tried, all in "restore_matches". */
	const struct abi_match *matches;
	unsigned int nmatches;
	/* Flags a policy must not have, besides the generic corruptions. */
	const struct abi_flag *policy_flags;
	unsigned int npolicy_flags;
	/* The protocol matches (tcp, udp, icmp) against these -p values. */
	const char *const *proto_matches;
	unsigned int nproto_matches;
	const uint16_t *protos;
	unsigned int nprotos;
	/* -p values tried on the protocol-bound matches of matches[]. */
	const uint16_t *match_protos;
	unsigned int nmatch_protos;
	/* Revision queries of f_gets. */
	const struct abi_rev *mrev;
	unsigned int nmrev;
	const struct abi_rev *trev;
	unsigned int ntrev;
	/* Corruptions only this family has (see struct abi_mut). */
	void (*entry_ip)(struct abi_mut *m);	/* entry m->i's network header */
	void (*match_fields)(struct abi_mut *m, const struct abi_match *nm);
	void (*several)(struct abi_mut *m);	/* several matches in one entry */
};

/* In a struct abi_family initialiser: an array and its length. */
#define ABI_ARRAY(field, a)	.field = (a), .n##field = sizeof(a) / sizeof((a)[0])

/*
 * In a struct abi_family initialiser: the tables and hooks a family's test
 * defines under these names.
 */
#define ABI_TABLES \
	ABI_ARRAY(scenarios, scenarios), \
	ABI_ARRAY(matches, new_matches), \
	ABI_ARRAY(policy_flags, policy_flags), \
	ABI_ARRAY(proto_matches, proto_matches), \
	ABI_ARRAY(protos, protos), \
	ABI_ARRAY(match_protos, match_protos), \
	ABI_ARRAY(mrev, mrev), \
	ABI_ARRAY(trev, trev), \
	.entry_ip = family_entry_ip, \
	.match_fields = family_match_fields, \
	.several = family_several

/*
 * In a struct abi_family initialiser: the layout of entry_type (struct
 * ipt_entry or ip6t_entry), whose network header part is member ip.
 */
#define ABI_LAYOUT(entry_type, ip) \
	.entry_size = sizeof(entry_type), \
	.ip_size = offsetof(entry_type, nfcache), \
	.off_counters = offsetof(entry_type, counters), \
	.off_proto = offsetof(entry_type, ip.proto), \
	.off_flags = offsetof(entry_type, ip.flags), \
	.off_invflags = offsetof(entry_type, ip.invflags), \
	.off_smsk = offsetof(entry_type, ip.smsk), \
	.off_iniface = offsetof(entry_type, ip.iniface)

/* Per test: the helper, the current case, the namespaces we keep alive. */
struct abi_ctx {
	const struct abi_family *fam;
	struct mbox_driver drv;
	struct mbox_driver_opts opts;
	char helper[PATH_MAX];
	char name[256];
	bool bad;
	int kst;		/* the kernel's answer to the case's main call */
	bool verbose;		/* $ABI_VERBOSE: print every case */
	int ns_fds[ABI_MAX_HELPER_NS];
	int nns;
	FILE *log;
};

/* One side of a pair: the kernel (sock >= 0) or the helper (drv). */
struct abi_side {
	int sock;
	struct mbox_driver *drv;
	uint32_t ino;
};

struct abi_pair {
	struct abi_side k;
	struct abi_side h;
};

/* How a REPLACE case treats repl->counters. */
enum abi_ctr_mode { ABI_CTR_BUFFER, ABI_CTR_NULL, ABI_CTR_BAD };

/* A parsed base blob: entry offsets (relative to the entry table). */
struct abi_base {
	const struct abi_family *fam;
	const char *name;
	unsigned char *blob;
	size_t len;
	int nent;
	uint32_t off[ABI_MAX_ENTRIES];
};

/* The fields of an entry after its network header part. */
struct abi_etail {
	uint32_t nfcache;
	uint16_t target_offset;
	uint16_t next_offset;
	uint32_t comefrom;
};

/* Fields of entry e (a pointer into a blob) of family f, as lvalues. */
#define ABI_TAIL(f, e)		((struct abi_etail *)((char *)(e) + (f)->ip_size))
#define ABI_PROTO(f, e)		(*(uint16_t *)((char *)(e) + (f)->off_proto))
#define ABI_FLAGS(f, e)		(*(uint8_t *)((char *)(e) + (f)->off_flags))
#define ABI_INVFLAGS(f, e)	(*(uint8_t *)((char *)(e) + (f)->off_invflags))

/*
 * A corruption run on one base: buf is the copy being mutated, i the entry
 * and moff the match (its offset in the entry) at hand; each case is named
 * "<prefix>: <what>" and submitted in a fresh pair of namespaces.
 */
struct abi_mut {
	struct abi_ctx *c;
	struct abi_base *b;
	const struct abi_family *f;
	unsigned char *buf;
	size_t cap;
	int i;
	uint32_t moff;
	char prefix[160];
};

/* ---- Cases and the two sides -------------------------------------------- */

const char *abi_errname(int st);
long abi_first_diff(const void *a, const void *b, size_t n);
void abi_case_begin(struct abi_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void abi_case_fail(struct abi_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void abi_case_end(struct abi_ctx *c);
int abi_pair_open(struct abi_ctx *c, struct abi_pair *p);
void abi_pair_close(struct abi_ctx *c, struct abi_pair *p);
int abi_get_both(struct abi_ctx *c, struct abi_pair *p, const char *what,
		 int cmd, const void *in, uint32_t len, int fill);
int abi_replace_both(struct abi_ctx *c, struct abi_pair *p, const void *blob,
		     uint32_t len, size_t buflen, enum abi_ctr_mode cm);
int abi_counters_both(struct abi_ctx *c, struct abi_pair *p, const void *buf,
		      uint32_t len, size_t buflen);

/* ---- Blobs and corruptions ----------------------------------------------- */

struct xt_entry_target *abi_ent_target(const struct abi_family *f, void *e);
bool abi_is_standard(const struct abi_family *f, void *e);
int abi_find_match_at(struct abi_base *b, const char *mname, int nth, uint32_t *moff);
int abi_load_base(struct abi_base *b, const struct abi_family *f, const char *scen);

/* Set m's case-name prefix; abi_mut_reset() copies the base into buf. */
void abi_mut_prefix(struct abi_mut *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void abi_mut_reset(struct abi_mut *m);
/* Submit buf (len bytes of a buflen-byte buffer) as one case. */
void abi_mut_case(struct abi_mut *m, uint32_t len, size_t buflen,
		  enum abi_ctr_mode cm, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Entry m->i and its match at m->moff (or at moff), in buf. */
void *abi_mut_ent(struct abi_mut *m);
struct xt_entry_match *abi_mut_match(struct abi_mut *m);
struct xt_entry_match *abi_mut_match_at(struct abi_mut *m, uint32_t moff);
/*
 * Find the entry of the base that holds the nths[k]-th occurrence (0 the
 * first) of each match names[k], k < n: m->i, m->moff (the first one's),
 * offs[k], and the prefix "<base>: -m a -m b (entry i)". Without one, that
 * is one failed case, and false.
 */
bool abi_mut_find(struct abi_mut *m, unsigned int n, const char *const *names,
		  const int *nths, uint32_t *offs);
/*
 * buf = the base with delta bytes (a multiple of 8) inserted at or removed
 * from the end of the payload of match m->moff of entry m->i, the table
 * kept well formed. Returns the new length, 0 if impossible.
 */
size_t abi_mut_resize_match(struct abi_mut *m, int delta);

/* The corruption runs' shorthands, for a struct abi_mut *m in scope. */
#define RESET()			abi_mut_reset(m)
#define RUN(...)		abi_mut_case(m, m->b->len, m->b->len, ABI_CTR_BUFFER, __VA_ARGS__)
#define RUN_LEN(len, ...)	abi_mut_case(m, (len), (len), ABI_CTR_BUFFER, __VA_ARGS__)
#define E()			abi_mut_ent(m)
#define M()			abi_mut_match(m)
#define M_AT(moff)		abi_mut_match_at(m, (moff))
#define P(type)			((type *)M()->data)

/* ---- The tests (abi_diff_tests.h); each returns 0 or -errno --------------- */

int abi_ctx_setup(struct abi_ctx *c, const struct abi_family *f);
int abi_ctx_teardown(struct abi_ctx *c);	/* the helper's wait status */
int abi_record(const struct abi_family *f);
int abi_replay(struct abi_ctx *c);
int abi_corrupt_header(struct abi_ctx *c, const char *scen);
int abi_corrupt_entries(struct abi_ctx *c, const char *scen);
int abi_corrupt_semantics(struct abi_ctx *c, const char *scen);
int abi_corrupt_matches(struct abi_ctx *c);
int abi_gets(struct abi_ctx *c);
int abi_counters(struct abi_ctx *c);
int abi_iptables_shim(struct abi_ctx *c);
/* Prints "<tag>: N cases, M mismatches"; 0 if none and enough cases. */
int abi_summary(const struct abi_family *f);

#endif /* BPFILTER_TEST_ABI_DIFF_H */
