/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the differential verdict tests (test_verdict_diff.c for IPv4,
 * test_verdict_diff6.c for IPv6) share: the seeded generator, text buffers,
 * commands run in a namespace on side K (the kernel's ip_tables or
 * ip6_tables) or side H (the same stock command through the LD_PRELOAD shim
 * and a bpfilter-hostd of the test's own), the hostd itself, sockets made
 * inside a namespace, the outcome of a packet, and the reports of a
 * mismatch (rulesets as commands, iptables-save -c dumps compared).
 */
#ifndef BPFILTER_TEST_VDIFF_H
#define BPFILTER_TEST_VDIFF_H

#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hostd.h"

/* xorshift64*: the streams seeds were recorded with. */
struct rng {
	uint64_t s;
};

static inline uint32_t rnd(struct rng *r, uint32_t n)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return n ? (uint32_t)((r->s * 0x2545F4914F6CDD1Dull) >> 32) % n : 0;
}

/* A growing text buffer, always '\0'-terminated once written to. */
struct buf {
	char *p;
	size_t len, cap;
};

void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void put16(unsigned char *d, uint16_t x)
{
	d[0] = x >> 8;
	d[1] = x;
}

static inline void put32(unsigned char *d, uint32_t x)
{
	put16(d, x >> 16);
	put16(d + 2, x);
}

/* The ones' complement sum of @len bytes at @p added to @sum (not folded). */
uint32_t vd_csum_add(uint32_t sum, const unsigned char *p, unsigned int len);
/* @sum folded to 16 bits and complemented: the checksum to store. */
uint16_t vd_csum_fold(uint32_t sum);

enum { SIDE_K, SIDE_H };
enum path { PATH_OUTPUT, PATH_VD0, PATH_VD1 };	/* sent by T, or by S over vd0p/vd1p */
enum outcome { OUT_DROPPED, OUT_SENT, OUT_LOCAL, OUT_FORWARDED, OUT_ERROR };
#define VD_NOUTCOMES	5

extern const char *const vd_outcome_name[VD_NOUTCOMES];
/* How a packet of each path is sent, for reports. */
extern const char *const vd_path_name[3];

/* system() of the formatted command; its exit status, -1 if it did not exit. */
int vd_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A non-blocking socket created inside namespace @ns, bound to @dev if not NULL. */
int vd_socket_in(const char *ns, int domain, int type, int proto, const char *dev);

long vd_now_ms(void);

/*
 * Side H's daemon: bpfilter-hostd with the helper (backend
 * $VERDICT_DIFF_BACKEND, default bpf; "store" checks the checker), its
 * stderr in a log file, and the shim that sends stock iptables to it.
 */
struct vd_hostd {
	struct hostd hostd;
	char sock[108];
	char shim[PATH_MAX];
	char helper[PATH_MAX];
	int log_fd;
};

/* Start it, socket /tmp/@tag<pid>.sock, helper log @log; @ct_held: hostd -C. */
int vd_hostd_start(struct vd_hostd *h, const char *tag, const char *log, bool ct_held);
void vd_hostd_stop(struct vd_hostd *h);

/*
 * Run @cmd (a shell command line) in namespace @ns, through @h's shim if @h
 * is not NULL; its output but "#" lines into @out if not NULL. Returns its
 * exit status, or -errno.
 */
int vd_run_in(const char *ns, const struct vd_hostd *h, const char *cmd, struct buf *out);

/* @rules into file @file, then "@restore -w < @file" by vd_run_in(). */
int vd_restore(const char *ns, const struct vd_hostd *h, const char *restore, const char *file,
	       const struct buf *rules, struct buf *out);

/*
 * vd_restore() on both sides (namespaces @ns[SIDE_K], @ns[SIDE_H], H
 * through @h); true if both succeed. Else what each printed goes to the
 * report: the kernel refusing a generated ruleset is a generator bug, and a
 * failure too.
 */
bool vd_restore_both(FILE *f, const char *const ns[2], const struct vd_hostd *h,
		     const char *restore, const char *file, const struct buf *rules,
		     unsigned int round);

/*
 * Report @what ("the edit", a restore command) exiting @rc[SIDE_K] on the
 * kernel's tables and @rc[SIDE_H] via bpfilter, with what each printed.
 */
void vd_report_exits(FILE *f, unsigned int round, const char *what, const int rc[2],
		     const struct buf out[2]);

/* @save_cmd's output ("...-save -c") on both sides into @save, comment lines dropped. */
void vd_save_both(const char *const ns[2], const struct vd_hostd *h, const char *save_cmd,
		  struct buf save[2]);

/* Drop "# ..." comment lines of a save (timestamps). */
void vd_strip_comments(struct buf *b);

/* Both dumps real ones (a COMMIT line) and equal? */
bool vd_saves_equal(const struct buf save[2]);

/* The number of rules with non-zero counters in an iptables-save -c dump that contain @s. */
unsigned int vd_count_hit_with(const struct buf *save, const char *s);

/*
 * One side: a target namespace T and a sender namespace S ("<prefix>T" and
 * "<prefix>S", then K or H and the pid) joined by two veth pairs, T:vd0 -
 * S:vd0p and T:vd1 - S:vd1p, each end with its peer's MAC address and ARP
 * (or neighbour discovery) off, so that frames sent without it are
 * PACKET_HOST on the other side; and the sockets that send and see packets.
 */
#define VD_MAX_OBS	12

struct vd_side {
	char t[32], s[32];		/* namespace names */
	int out_sk;			/* IPPROTO_RAW in T */
	int in_sk[2];			/* IPPROTO_RAW in S bound to vd0p, vd1p */
	int obs_local[VD_MAX_OBS];	/* raw sockets in T: delivered locally */
	unsigned int nobs;
	int obs_fwd;			/* packet socket in S: forwarded by T */
	int l2_sk;			/* IPv4 ext: packet socket in S sending whole frames, */
	int l2_ifindex[2];		/* ... out of vd0p, vd1p */
};

/* Every descriptor -1, no names. */
void vd_side_init(struct vd_side *sd);
/* Side @i's namespaces, named after @prefix. */
int vd_side_netns(struct vd_side *sd, const char *prefix, int i);
/* The veth pairs, and every link up. */
int vd_side_links(struct vd_side *sd);
/*
 * The sockets of @family: out_sk, in_sk, obs_fwd (ethertype @eth_p) and a
 * raw socket in T for each of the @n protocols @protos.
 */
int vd_side_sockets(struct vd_side *sd, int family, uint16_t eth_p, const uint8_t *protos,
		    unsigned int n);
/* Close what is open, delete the namespaces. */
void vd_side_close(struct vd_side *sd);

/* Before a fixture's setup: nothing open, nothing to undo. */
void vd_prepare(struct vd_hostd *hd, struct vd_side side[2]);
/*
 * A fixture's teardown: stop side H's daemon, close both sides, remove the
 * ruleset file @tmp (if named), close @report (if open), free @rules.
 */
void vd_close_all(struct vd_hostd *hd, struct vd_side side[2], const char *tmp, FILE *report,
		 struct buf *rules);

/* Send @pkt from @sd (its path's socket); < 0 with errno on failure. */
typedef ssize_t vd_send_fn(struct vd_side *sd, const void *pkt, void *ctx);
/*
 * Look at (and consume) what @sd's observers hold: OUT_LOCAL or
 * OUT_FORWARDED if @pkt is among it, else OUT_DROPPED; @pkt NULL: drain.
 */
typedef enum outcome vd_observe_fn(struct vd_side *sd, const void *pkt);

/* Wait up to @ms for @observe to see @pkt, polling @sd's observers between looks. */
enum outcome vd_wait_observed(struct vd_side *sd, vd_observe_fn *observe, const void *pkt,
			      int ms);

/*
 * Send @pkt (of @path) on both sides; their outcomes into @o. OUTPUT: sent,
 * or dropped if sendto() failed with EPERM (LOCAL_OUT's NF_DROP); else
 * what T's observers saw.
 */
void vd_send_both(struct vd_side side[2], enum path path, vd_send_fn *send,
		  vd_observe_fn *observe, const void *pkt, void *ctx, enum outcome o[2]);

/* Reports go to stdout and, if @f is not NULL, to @f too. */
void vd_vreport(FILE *f, const char *fmt, va_list ap);
void vd_report(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Restore input @rules as the @cmd ("iptables-legacy", "ip6tables-legacy")
 * commands that build it; past @big bytes it is kept in @keep instead.
 */
void vd_print_ruleset(FILE *f, const struct buf *rules, const char *cmd, size_t big,
		      const char *keep);

/*
 * Report two -c dumps that differ: both in full, or past @big bytes of
 * @rules the first line where they do.
 */
void vd_report_saves(FILE *f, const struct buf save[2], const struct buf *rules, size_t big,
		     unsigned int round, unsigned int npackets);

/*
 * A ruleset's mismatches: counted in @bad; reported (after @header's
 * account of the ruleset, once) unless @quiet, when enough rulesets were.
 */
struct vd_round {
	FILE *report;
	unsigned int round;
	bool quiet;
	void (*header)(void *ctx, unsigned int round);
	void *ctx;
	const char *tables;		/* "ip_tables", "ip6_tables" */
	const struct vd_side *side;	/* both sides, */
	const struct vd_hostd *hd;	/* ... H's daemon */
	unsigned int bad;
	bool shown;			/* the header is printed */
};

/*
 * The ruleset's beginning: @rules restored on both sides
 * (vd_restore_both()); false, a mismatch reported, if either side fails.
 */
bool vd_round_restore(struct vd_round *r, const char *restore, const char *file,
		      const struct buf *rules);

/* A mismatch: counted; true if it is to be reported (the header is out). */
bool vd_round_mismatch(struct vd_round *r);

/*
 * Packet @i's outcomes: false if it is no case (both stacks refused it
 * before any hook); else counted in @outcomes (the kernel's) and, if they
 * differ, a mismatch, reported with *@show set: the caller prints the packet.
 */
bool vd_round_case(struct vd_round *r, unsigned int i, const enum outcome o[2],
		   unsigned long *outcomes, bool *show);

/*
 * The ruleset's end: both sides' @save_cmd into @save, which must be real
 * dumps and the same; a difference is a mismatch, reported (past @big
 * bytes of @rules only its first line).
 */
void vd_round_saves(struct vd_round *r, const char *save_cmd, struct buf save[2],
		    const struct buf *rules, size_t big, unsigned int npackets);

/*
 * The mismatch report file @path opened with @mode ("w", "a"), its first
 * line written: "# @what mismatches, seed @seed (rerun: @rerun)". NULL if
 * it cannot be opened (reports then go to stdout only).
 */
FILE *vd_open_report(const char *path, const char *mode, const char *what, unsigned long seed,
		     const char *rerun);

/* "# @tag@tables outcomes: ..." of the kernel's side, and are all four seen? */
void vd_print_outcomes(const char *tag, const char *tables, const unsigned long *outcomes);
bool vd_every_outcome(const unsigned long *outcomes);

/*
 * The ruleset's end: @save[SIDE_K] printed if @verbose, *@shown (rulesets
 * reported) counts it if it had mismatches; @save freed. Its mismatches.
 */
unsigned int vd_round_end(struct vd_round *r, struct buf save[2], bool verbose,
			  unsigned long *shown);

/* A run's hex dump of @len bytes at @d into @out, a space every 4 bytes. */
void vd_hex(char *out, size_t size, const unsigned char *d, unsigned int len);

/* @size bytes of zeroed memory shared with the harness' test children; NULL on failure. */
void *vd_shared(size_t size);

/*
 * Before test_harness_run(): SIGPIPE ignored (a closed pipe on stdout must
 * not skip the teardown), stdout line buffered, @summary run at exit (the
 * harness exit()s: it has the last word). 0, or -1 if atexit() fails.
 */
int vd_start(void (*summary)(void));

/* The value of environment variable @name, or @def. */
unsigned long vd_env_ul(const char *name, unsigned long def);

#endif /* BPFILTER_TEST_VDIFF_H */
