// SPDX-License-Identifier: GPL-2.0
/*
 * Differential ABI test: every case is submitted both to this kernel's real
 * ip_tables (setsockopt/getsockopt on a raw socket in a throwaway network
 * namespace) and to the bpfilter helper through the mbox driver (requests
 * pointing into our own memory, in another fresh namespace), and must give
 * the same errno; after every accepted REPLACE or ADD_COUNTERS the GET_INFO
 * and GET_ENTRIES bytes (with two buffer prefills, since the kernel leaves
 * some bytes untouched) and the old counters written to repl->counters must
 * be identical too.
 *
 * Cases come from:
 *  (a) stock iptables-legacy commands run against the real ip_tables with
 *      the shim in recorder mode: every sockopt they make is replayed;
 *  (b) systematic corruptions of recorded REPLACE blobs;
 *  (c) hand-made GET_INFO/GET_ENTRIES/revision/ADD_COUNTERS requests;
 *  (d) the same iptables-legacy scenarios end to end: once against the
 *      kernel, once through the LD_PRELOAD shim and bpfilter-hostd.
 *
 * The last test prints "abi-diff: N cases, M mismatches" and fails if
 * M > 0 or N < ABI_MIN_CASES. Mismatches are also appended to
 * $ABI_MISMATCH_LOG (default /tmp/abi-mismatches.log).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_dscp.h>
#include <linux/netfilter/xt_ecn.h>
#include <linux/netfilter/xt_tcpmss.h>
#include <linux/netfilter/xt_u32.h>
#include <linux/netfilter/xt_esp.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv4/ipt_ah.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>

#include "kselftest_harness.h"
#include "hostd.h"
#include "mbox_driver.h"
#include "shim_record.h"

#define ABI_MIN_CASES		200
#define ABI_MAX_HELPER_NS	8192
#define ABI_MAX_ENTRIES		256
#define ABI_MAX_RECS		4096
#define ABI_DEAD		INT_MIN	/* helper transport failure */
#define ABI_PAGE		4096UL
#define REPL_HDR		sizeof(struct ipt_replace)
#define GETE_HDR		sizeof(struct ipt_get_entries)

/* Totals shared by the forked test children (one MAP_SHARED page). */
struct abi_stats {
	int cases;
	int mismatches;
	int recorded;
	char recdir[PATH_MAX];
};

static struct abi_stats *abi_stats;

static void __attribute__((constructor)) abi_stats_init(void)
{
	void *p = mmap(NULL, sizeof(*abi_stats), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		memset(p, 0, sizeof(*abi_stats));
		abi_stats = p;
	}
}

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

/* Per test: the helper, the current case, the namespaces we keep alive. */
struct abi_ctx {
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

/* Buffers with a PROT_NONE page right after the data: over-reads fault. */
struct gbuf {
	unsigned char *map;
	size_t maplen;
	unsigned char *p;
};

static int gbuf_alloc(struct gbuf *g, const void *data, size_t len, int fill)
{
	size_t pages = (len + ABI_PAGE - 1) / ABI_PAGE + 1;

	g->maplen = pages * ABI_PAGE;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -errno;
	if (mprotect(g->map + g->maplen - ABI_PAGE, ABI_PAGE, PROT_NONE))
		return -errno;
	g->p = g->map + g->maplen - ABI_PAGE - len;
	memset(g->map, fill, g->maplen - ABI_PAGE);
	if (data)
		memcpy(g->p, data, len);
	return 0;
}

static void gbuf_free(struct gbuf *g)
{
	if (g->map && g->map != MAP_FAILED)
		munmap(g->map, g->maplen);
	g->map = NULL;
}

static long first_diff(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

static const char *errname(int st)
{
	static char buf[4][48];
	static int slot;
	char *b = buf[slot++ & 3];

	if (st == ABI_DEAD)
		return "helper-dead";
	if (st == 0)
		return "0";
	snprintf(b, 48, "-%s(%d)", strerrorname_np(-st) ? : "?", st);
	return b;
}

static void case_begin(struct abi_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	c->bad = false;
	c->kst = 0;
}

static void __attribute__((format(printf, 2, 3)))
case_fail(struct abi_ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->bad = true;
	/* Test children leave with _exit(): flush so that nothing is lost. */
	ksft_print_msg("MISMATCH %s: %s\n", c->name, msg);
	fflush(stdout);
	if (c->log) {
		fprintf(c->log, "MISMATCH %s: %s\n", c->name, msg);
		fflush(c->log);
	}
}

static void case_end(struct abi_ctx *c)
{
	if (c->verbose) {
		ksft_print_msg("case %s: kernel %s%s\n", c->name, errname(c->kst),
			       c->bad ? " MISMATCH" : "");
		fflush(stdout);
	}
	__atomic_fetch_add(&abi_stats->cases, 1, __ATOMIC_SEQ_CST);
	if (c->bad)
		__atomic_fetch_add(&abi_stats->mismatches, 1, __ATOMIC_SEQ_CST);
}

static int helper_restart(struct abi_ctx *c)
{
	mbox_driver_kill(&c->drv);
	return mbox_driver_start(&c->drv, &c->opts);
}

static int side_call(struct abi_ctx *c, struct abi_side *s, bool is_set, int cmd,
		     void *buf, uint32_t len)
{
	socklen_t l = len;
	int err, status;

	if (!s->drv) {
		if (is_set)
			err = setsockopt(s->sock, SOL_IP, cmd, buf, len);
		else
			err = getsockopt(s->sock, SOL_IP, cmd, buf, &l);
		return err ? -errno : 0;
	}
	err = mbox_driver_sockopt(s->drv, is_set, cmd, buf, len, s->ino, &status);
	if (err) {
		case_fail(c, "helper transport error %d (%s), restarting it",
			  err, strerror(-err));
		helper_restart(c);
		return ABI_DEAD;
	}
	return status;
}

/* Two fresh namespaces: a kernel socket in one, the helper's id the other. */
static int pair_open(struct abi_ctx *c, struct abi_pair *p)
{
	int fd;

	memset(p, 0, sizeof(*p));
	p->k.sock = -1;
	if (unshare(CLONE_NEWNET))
		return -errno;
	p->k.sock = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (p->k.sock < 0)
		return -errno;
	if (unshare(CLONE_NEWNET))
		return -errno;
	p->h.sock = -1;
	p->h.drv = &c->drv;
	p->h.ino = mbox_driver_netns_ino();
	/*
	 * Keep the namespace alive so that its inode is not reused within a
	 * test. Past the descriptor limit, rely on NETNS_EXIT (pair_close())
	 * to make the helper forget a reused inode, as the module does.
	 */
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && c->nns < ABI_MAX_HELPER_NS)
		c->ns_fds[c->nns++] = fd;
	else if (fd >= 0)
		close(fd);
	return p->h.ino ? 0 : -ENOENT;
}

static void pair_close(struct abi_ctx *c, struct abi_pair *p)
{
	int status;

	if (p->k.sock >= 0)
		close(p->k.sock);
	p->k.sock = -1;
	/* What the module does when a namespace goes away. */
	if (p->h.ino && c->drv.pid)
		mbox_driver_control(&c->drv, BPFILTER_CTL_NETNS_EXIT, p->h.ino,
				    &status);
}

/* Compare the status of one call on both sides. */
static bool same_status(struct abi_ctx *c, const char *what, int ks, int hs)
{
	c->kst = ks;
	if (ks == hs)
		return true;
	case_fail(c, "%s: kernel %s helper %s", what, errname(ks), errname(hs));
	return false;
}

/* A get with identical input on both sides; compares status and bytes. */
static int get_both(struct abi_ctx *c, struct abi_pair *p, const char *what,
		    int cmd, const void *in, uint32_t len, int fill)
{
	struct gbuf kb = { 0 }, hb = { 0 };
	int ks, hs;
	long d;

	if (gbuf_alloc(&kb, NULL, len, fill) || gbuf_alloc(&hb, NULL, len, fill)) {
		case_fail(c, "%s: out of memory", what);
		ks = -ENOMEM;
		goto out;
	}
	if (in) {
		memcpy(kb.p, in, len);
		memcpy(hb.p, in, len);
	}
	ks = side_call(c, &p->k, false, cmd, kb.p, len);
	hs = side_call(c, &p->h, false, cmd, hb.p, len);
	if (!same_status(c, what, ks, hs))
		goto out;
	d = first_diff(kb.p, hb.p, len);
	if (d >= 0)
		case_fail(c, "%s (fill 0x%02x, len %u): bytes differ at offset %ld: kernel %02x helper %02x",
			  what, fill, len, d, kb.p[d], hb.p[d]);
out:
	gbuf_free(&kb);
	gbuf_free(&hb);
	return ks;
}

/* GET_INFO and GET_ENTRIES of "filter" on both sides must be identical. */
static void compare_state(struct abi_ctx *c, struct abi_pair *p)
{
	struct ipt_getinfo info = { .name = "filter" };
	static const int fills[] = { 0x00, 0xa5 };
	struct ipt_get_entries *ge;
	struct gbuf kb = { 0 };
	uint32_t size;
	unsigned int i;
	int ks;

	if (gbuf_alloc(&kb, &info, sizeof(info), 0x5a))
		return;
	ks = side_call(c, &p->k, false, IPT_SO_GET_INFO, kb.p, sizeof(info));
	memcpy(&size, kb.p + offsetof(struct ipt_getinfo, size), sizeof(size));
	gbuf_free(&kb);
	if (ks) {
		case_fail(c, "kernel GET_INFO failed: %s", errname(ks));
		return;
	}
	get_both(c, p, "state GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x5a);
	ge = calloc(1, GETE_HDR + size);
	if (!ge)
		return;
	strcpy(ge->name, "filter");
	ge->size = size;
	for (i = 0; i < 2; i++) {
		memset(ge->entrytable, fills[i], size);
		memset((char *)ge + offsetof(struct ipt_get_entries, size) + 4,
		       fills[i], GETE_HDR - offsetof(struct ipt_get_entries, size) - 4);
		get_both(c, p, "state GET_ENTRIES", IPT_SO_GET_ENTRIES, ge,
			 GETE_HDR + size, fills[i]);
	}
	free(ge);
}

/* How a REPLACE case treats repl->counters. */
enum ctr_mode { CTR_BUFFER, CTR_NULL, CTR_BAD };

/*
 * Submit a REPLACE (len bytes of blob; the buffer holds exactly buflen bytes,
 * so a len beyond it faults) to both sides and compare everything.
 */
static int replace_both(struct abi_ctx *c, struct abi_pair *p, const void *blob,
			uint32_t len, size_t buflen, enum ctr_mode cm)
{
	struct gbuf kb = { 0 }, hb = { 0 }, kc = { 0 }, hc = { 0 };
	uint32_t ncnt = 0;
	size_t clen;
	int ks = -ENOMEM, hs;
	long d;

	if (buflen >= REPL_HDR)
		ncnt = ((const struct ipt_replace *)blob)->num_counters;
	clen = (size_t)(ncnt > 65536 ? 65536 : ncnt) * sizeof(struct xt_counters);
	if (gbuf_alloc(&kb, blob, buflen, 0) || gbuf_alloc(&hb, blob, buflen, 0) ||
	    gbuf_alloc(&kc, NULL, clen, 0xcc) || gbuf_alloc(&hc, NULL, clen, 0xcc)) {
		case_fail(c, "out of memory");
		goto out;
	}
	if (buflen >= REPL_HDR) {
		/* The caller's buffer need not be aligned: store bytes. */
		uint64_t kp = 0, hp = 0;

		switch (cm) {
		case CTR_BUFFER:
			kp = (uintptr_t)kc.p;
			hp = (uintptr_t)hc.p;
			break;
		case CTR_NULL:
			break;
		case CTR_BAD:
			/* The guard page after each side's own counters buffer. */
			kp = (uintptr_t)(kc.map + kc.maplen - ABI_PAGE);
			hp = (uintptr_t)(hc.map + hc.maplen - ABI_PAGE);
			break;
		}
		memcpy(kb.p + offsetof(struct ipt_replace, counters), &kp, sizeof(kp));
		memcpy(hb.p + offsetof(struct ipt_replace, counters), &hp, sizeof(hp));
	}
	ks = side_call(c, &p->k, true, IPT_SO_SET_REPLACE, kb.p, len);
	hs = side_call(c, &p->h, true, IPT_SO_SET_REPLACE, hb.p, len);
	if (!same_status(c, "SET_REPLACE", ks, hs))
		goto out;
	d = first_diff(kc.p, hc.p, clen);
	if (d >= 0)
		case_fail(c, "old counters written to repl->counters differ at byte %ld (counter %ld): kernel %02x helper %02x",
			  d, d / 16, kc.p[d], hc.p[d]);
	/* Nobody may write into the blob itself (counters pointers differ). */
	if (buflen >= REPL_HDR) {
		d = first_diff(kb.p + REPL_HDR, hb.p + REPL_HDR, buflen - REPL_HDR);
		if (d >= 0)
			case_fail(c, "blob modified at offset %ld", d + (long)REPL_HDR);
	}
	if (ks == 0)
		compare_state(c, p);
out:
	gbuf_free(&kb);
	gbuf_free(&hb);
	gbuf_free(&kc);
	gbuf_free(&hc);
	return ks;
}

/* An ADD_COUNTERS on both sides; on success the states must agree. */
static int counters_both(struct abi_ctx *c, struct abi_pair *p, const void *buf,
			 uint32_t len, size_t buflen)
{
	struct gbuf kb = { 0 }, hb = { 0 };
	int ks = -ENOMEM, hs;

	if (gbuf_alloc(&kb, buf, buflen, 0) || gbuf_alloc(&hb, buf, buflen, 0)) {
		case_fail(c, "out of memory");
		goto out;
	}
	ks = side_call(c, &p->k, true, IPT_SO_SET_ADD_COUNTERS, kb.p, len);
	hs = side_call(c, &p->h, true, IPT_SO_SET_ADD_COUNTERS, hb.p, len);
	if (same_status(c, "SET_ADD_COUNTERS", ks, hs) && ks == 0)
		compare_state(c, p);
out:
	gbuf_free(&kb);
	gbuf_free(&hb);
	return ks;
}

/* ---- Recorded iptables-legacy scenarios ---------------------------------- */

#define IPT "iptables-legacy -w 60 "

struct scenario {
	const char *name;
	const char *cmds[12];
};

static const struct scenario scenarios[] = {
	{ "append_tcp", { IPT "-A INPUT -p tcp --dport 22 -j ACCEPT", IPT "-S" } },
	{ "append_counters", {
		IPT "-A INPUT -p tcp --dport 22 -c 5 100 -j ACCEPT",
		IPT "-A OUTPUT -d 10.1.2.3 -c 7 7000 -j DROP",
		IPT "-L -v -n -x" } },
	{ "insert_delete", {
		IPT "-A INPUT -s 192.168.0.0/16 -j DROP",
		IPT "-I INPUT 1 -p udp --dport 53 -j ACCEPT",
		IPT "-I INPUT 2 -p icmp --icmp-type echo-request -j ACCEPT",
		IPT "-D INPUT 2",
		IPT "-D INPUT -s 192.168.0.0/16 -j DROP",
		IPT "-S" } },
	{ "replace_rule", {
		IPT "-A FORWARD -i eth0 -o eth1 -j ACCEPT",
		IPT "-R FORWARD 1 -i eth+ ! -o eth1 -j DROP",
		IPT "-R FORWARD 1 -p tcp --tcp-flags SYN,ACK SYN -j DROP" } },
	{ "user_chains", {
		IPT "-N web",
		IPT "-N ssh",
		IPT "-A web -p tcp --dport 80 -j ACCEPT",
		IPT "-A web -p tcp --dport 443 -j ACCEPT",
		IPT "-A web -j RETURN",
		IPT "-A ssh -s 10.0.0.0/8 -p tcp --dport 22 -j ACCEPT",
		IPT "-A INPUT -j web",
		IPT "-A INPUT -g ssh",
		IPT "-L -n --line-numbers" } },
	{ "rename_delete_chain", {
		IPT "-N old",
		IPT "-A old -j DROP",
		IPT "-E old new",
		IPT "-A INPUT -j new",
		IPT "-D INPUT -j new",
		IPT "-F new",
		IPT "-X new",
		IPT "-N a", IPT "-N b", IPT "-X" } },
	{ "policies", {
		IPT "-P INPUT DROP",
		IPT "-P FORWARD DROP",
		IPT "-P OUTPUT DROP",
		IPT "-P INPUT ACCEPT",
		IPT "-S" } },
	{ "flush_zero", {
		IPT "-A INPUT -p tcp -c 10 1000 -j ACCEPT",
		IPT "-A INPUT -p udp -c 20 2000 -j ACCEPT",
		IPT "-A OUTPUT -c 3 300 -j ACCEPT",
		IPT "-Z INPUT",
		IPT "-Z",
		IPT "-F INPUT",
		IPT "-F" } },
	{ "tcp_options", {
		IPT "-A INPUT -p tcp --sport 1024:65535 --dport 80 -j ACCEPT",
		IPT "-A INPUT -p tcp ! --sport 0:1023 ! --dport 1:2 -j DROP",
		IPT "-A INPUT -p tcp --syn -j DROP",
		IPT "-A INPUT -p tcp ! --syn -j ACCEPT",
		IPT "-A INPUT -p tcp --tcp-flags ALL FIN,PSH,URG -j DROP",
		IPT "-A INPUT -p tcp ! --tcp-flags SYN,RST SYN,RST -j DROP",
		IPT "-A INPUT -p tcp --tcp-option 8 -j ACCEPT",
		IPT "-A INPUT -p tcp ! --tcp-option 2 -j ACCEPT" } },
	{ "udp_icmp_options", {
		IPT "-A INPUT -p udp --sport 53 -j ACCEPT",
		IPT "-A INPUT -p udp ! --dport 67:68 -j DROP",
		IPT "-A INPUT -p udp ! --sport 1 ! --dport 2 -j DROP",
		IPT "-A INPUT -p icmp --icmp-type any -j ACCEPT",
		IPT "-A INPUT -p icmp --icmp-type 3/4 -j DROP",
		IPT "-A INPUT -p icmp ! --icmp-type destination-unreachable -j DROP",
		IPT "-A INPUT -p icmp --icmp-type 8 -j ACCEPT" } },
	{ "addresses_interfaces", {
		IPT "-A INPUT -s 10.0.0.1 -d 10.0.0.2 -j ACCEPT",
		IPT "-A INPUT ! -s 10.0.0.0/255.255.0.255 ! -d 172.16.0.0/12 -j DROP",
		IPT "-A INPUT -i lo -j ACCEPT",
		IPT "-A INPUT ! -i veth+ -j DROP",
		IPT "-A FORWARD -i br0 -o + -j ACCEPT",
		IPT "-A OUTPUT ! -o eth0.100 -j ACCEPT",
		IPT "-A FORWARD -f -j DROP",
		IPT "-A FORWARD ! -f -p 47 -j ACCEPT",
		IPT "-A FORWARD ! -p tcp -j ACCEPT" } },
	{ "jumps_return", {
		IPT "-N c1", IPT "-N c2", IPT "-N c3",
		IPT "-A c3 -p udp -j RETURN",
		IPT "-A c3 -j DROP",
		IPT "-A c2 -j c3",
		IPT "-A c2 -p tcp -g c3",
		IPT "-A c1 -j c2",
		IPT "-A c1 -j RETURN",
		IPT "-A INPUT -j c1",
		IPT "-A OUTPUT -j c2" } },
	{ "empty_chain_jump", {
		IPT "-N empty",
		IPT "-A INPUT -j empty",
		IPT "-A FORWARD -g empty",
		IPT "-I INPUT -j empty",
		IPT "-L -n" } },
	{ "restore_rich", {
		"printf '%s\\n' '*filter' ':INPUT DROP [1:60]' ':FORWARD ACCEPT [2:120]' "
		"':OUTPUT ACCEPT [3:180]' ':chain_a - [0:0]' ':chain_b - [0:0]' "
		"'[4:400] -A INPUT -i lo -j ACCEPT' "
		"'[5:500] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT' "
		"'-A INPUT -s 10.0.0.0/8 -p udp -m udp --sport 53 -j chain_a' "
		"'-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT' "
		"'-A INPUT -i veth+ -g chain_b' "
		"'-A FORWARD -f -j DROP' "
		"'-A OUTPUT -o eth0 -d 192.168.1.0/24 -j DROP' "
		"'-A chain_a -p tcp -m tcp ! --syn -j RETURN' "
		"'-A chain_a -j chain_b' "
		"'-A chain_b -p udp -m udp ! --dport 1000:2000 -j DROP' "
		"'-A chain_b -j RETURN' 'COMMIT' | iptables-legacy-restore -w 60 -c",
		"iptables-legacy-save -c",
		IPT "-A chain_b -p tcp --dport 25 -j DROP",
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' 'COMMIT' "
		"| iptables-legacy-restore -w 60" } },
	{ "restore_noflush", {
		"printf '%s\\n' '*filter' ':x - [0:0]' '-A x -j ACCEPT' "
		"'-A INPUT -j x' 'COMMIT' | iptables-legacy-restore -w 60 -n",
		"printf '%s\\n' '*filter' '-A x -p udp -j DROP' 'COMMIT' "
		"| iptables-legacy-restore -w 60 -n",
		"iptables-legacy-save" } },
	{ "many_rules", {
		"for i in $(seq 1 40); do " IPT "-A INPUT -p tcp --dport $i -j ACCEPT; done",
		IPT "-D INPUT 20",
		IPT "-I INPUT 5 -p udp -j DROP" } },
	{ "errors_from_iptables", {
		IPT "-A INPUT -j nosuchchain",
		IPT "-N dup", IPT "-N dup",
		IPT "-A INPUT -j dup",
		IPT "-X dup",
		IPT "-D INPUT 9",
		IPT "-E dup dup2",
		IPT "-L dup2 -n" } },
	{ "protocol_numbers", {
		IPT "-A INPUT -p 132 -j DROP",
		IPT "-A INPUT -p all -j ACCEPT",
		IPT "-A INPUT ! -p 17 -j ACCEPT",
		IPT "-A OUTPUT -p icmp -j DROP",
		IPT "-A OUTPUT -p udplite -j DROP" } },
	/* The matches beyond tcp/udp/icmp: every option and inversion. */
	{ "multiport_options", {
		IPT "-A INPUT -p tcp -m multiport --dports 22,80:90,443 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport ! --sports 1024:2048,3000 -j DROP",
		IPT "-A INPUT -p udp -m multiport --ports 53,67:68 -j ACCEPT",
		IPT "-A INPUT -p udp -m multiport ! --ports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -j DROP",
		IPT "-A INPUT -p udplite -m multiport --dports 5000:6000 -j DROP",
		IPT "-A INPUT -p sctp -m multiport --sports 9,10 -j DROP",
		IPT "-A INPUT -p dccp -m multiport ! --dports 100 -j DROP",
		IPT "-A INPUT -p 6 -m multiport --source-ports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15 -j ACCEPT",
		IPT "-A FORWARD -p tcp -m multiport --destination-ports 1:65535 -j ACCEPT",
		IPT "-D INPUT -p udp -m multiport --ports 53,67:68 -j ACCEPT",
		IPT "-C INPUT -p dccp -m multiport ! --dports 100 -j DROP",
		IPT "-S" } },
	{ "multiport_errors", {
		/* iptables refuses these itself: nothing but reads reach the kernel. */
		IPT "-A INPUT -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT ! -p tcp -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p icmp -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p all -m multiport --dports 22 -j ACCEPT",
		IPT "-A INPUT -p udp -m multiport --ports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --dports 90:80 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --sports 1 --dports 2 -j ACCEPT",
		IPT "-A INPUT -p tcp -m multiport --dports 22 -j ACCEPT",
		IPT "-D INPUT -p tcp -m multiport --dports 23 -j ACCEPT",
		IPT "-S" } },
	{ "iprange_mark_length", {
		IPT "-A INPUT -m iprange ! --src-range 10.0.0.1-10.0.0.9 --dst-range 192.168.1.1-192.168.1.200 -j DROP",
		IPT "-A INPUT -m iprange --src-range 10.0.0.9-10.0.0.1 -j DROP",
		IPT "-A INPUT -m iprange ! --dst-range 1.2.3.4 -j DROP",
		IPT "-A INPUT -m mark --mark 0x10/0xff -j ACCEPT",
		IPT "-A INPUT -m mark ! --mark 7 -j ACCEPT",
		IPT "-A OUTPUT -m mark --mark 0xffffffff/0x0 -j ACCEPT",
		IPT "-A INPUT -m length ! --length 100:200 -j DROP",
		IPT "-A INPUT -m length --length 1500 -j DROP",
		IPT "-A INPUT -m length --length 200:100 -j DROP",
		IPT "-A OUTPUT -m length --length :64 -m mark ! --mark 1/1 -j DROP",
		IPT "-D INPUT -m mark ! --mark 7 -j ACCEPT",
		IPT "-S" } },
	{ "ttl_tos_dscp", {
		IPT "-A INPUT -m ttl --ttl-lt 5 -j DROP",
		IPT "-A INPUT -m ttl --ttl-gt 200 -j DROP",
		IPT "-A INPUT -m ttl --ttl-eq 64 -j ACCEPT",
		IPT "-A INPUT -m ttl ! --ttl-eq 1 -j ACCEPT",
		IPT "-A INPUT -m tos --tos 0x10/0x3f -j ACCEPT",
		IPT "-A INPUT -m tos ! --tos Minimize-Delay -j ACCEPT",
		IPT "-A OUTPUT -m tos --tos 0xff -j ACCEPT",
		IPT "-A INPUT -m dscp --dscp-class AF41 -j ACCEPT",
		IPT "-A INPUT -m dscp ! --dscp 0x3f -j ACCEPT",
		IPT "-A INPUT -m dscp --dscp 0x40 -j ACCEPT",
		IPT "-A FORWARD -m dscp --dscp-class EF -m ttl --ttl-lt 2 -m tos ! --tos 0/0xe0 -j DROP",
		IPT "-S" } },
	{ "ah_esp", {
		IPT "-A INPUT -p ah -m ah --ahspi 1:100 -j ACCEPT",
		IPT "-A INPUT -p ah -m ah ! --ahspi 5 -j ACCEPT",
		IPT "-A INPUT -p ah -m ah -j ACCEPT",
		/* Protocol errors only the kernel sees: EINVAL. */
		IPT "-A INPUT -m ah --ahspi 5 -j ACCEPT",
		IPT "-A INPUT ! -p ah -m ah --ahspi 5 -j ACCEPT",
		IPT "-A INPUT -p esp -m ah -j ACCEPT",
		IPT "-A INPUT -p esp -m esp ! --espspi 7 -j ACCEPT",
		IPT "-A INPUT -p esp -m esp --espspi 100:50 -j ACCEPT",
		IPT "-A OUTPUT -p 50 -m esp --espspi 0xffffffff -j ACCEPT",
		IPT "-A INPUT -p tcp -m esp --espspi 7 -j ACCEPT",
		IPT "-A INPUT -m esp --espspi 7 -j ACCEPT",
		IPT "-S" } },
	{ "meta_matches", {
		IPT "-A INPUT -m pkttype --pkt-type broadcast -j DROP",
		IPT "-A INPUT -m pkttype ! --pkt-type unicast -j ACCEPT",
		IPT "-A OUTPUT -m pkttype --pkt-type multicast -j ACCEPT",
		IPT "-A INPUT -m devgroup --src-group 7 -j ACCEPT",
		IPT "-A OUTPUT -m devgroup ! --dst-group 0x3/0xf -j ACCEPT",
		IPT "-A FORWARD -m devgroup --src-group 1 ! --dst-group 2 -j DROP",
		IPT "-A INPUT -m realm --realm 5 -j ACCEPT",
		IPT "-A OUTPUT -m realm ! --realm 0x50000/0xffff0000 -j ACCEPT",
		IPT "-A INPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT",
		IPT "-A FORWARD -m mac ! --mac-source 02:00:00:00:00:02 -j DROP",
		IPT "-D INPUT -m pkttype ! --pkt-type unicast -j ACCEPT",
		"iptables-legacy-save -c" } },
	{ "ecn_tcpmss", {
		IPT "-A INPUT -p tcp -m ecn --ecn-tcp-ece -j ACCEPT",
		IPT "-A INPUT -p tcp -m ecn ! --ecn-tcp-cwr ! --ecn-ip-ect 3 -j DROP",
		IPT "-A OUTPUT -m ecn --ecn-ip-ect 2 -j ACCEPT",
		/* TCP bits without -p tcp, or with ! -p tcp: EINVAL from checkentry. */
		IPT "-A INPUT -m ecn --ecn-tcp-ece -j ACCEPT",
		IPT "-A INPUT ! -p tcp -m ecn --ecn-tcp-cwr -j ACCEPT",
		IPT "-A INPUT -p udp -m ecn --ecn-tcp-cwr --ecn-ip-ect 1 -j ACCEPT",
		IPT "-A INPUT -p tcp --syn -m tcpmss --mss 1:536 -j DROP",
		IPT "-A FORWARD -p tcp -m tcpmss ! --mss 1460 -j ACCEPT",
		/* tcpmss is a TCP match: EINVAL elsewhere. */
		IPT "-A INPUT -m tcpmss --mss 1460 -j ACCEPT",
		IPT "-A INPUT -p udp -m tcpmss --mss 1460 -j ACCEPT",
		"iptables-legacy-save -c" } },
	{ "u32", {
		IPT "-A INPUT -m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x47455420\" -j DROP",
		IPT "-A OUTPUT -m u32 ! --u32 \"6&0xFF=6,17&&4&0x3FFF=0\" -j ACCEPT",
		IPT "-A FORWARD -m u32 --u32 \"0x0@0xfffffff0>>31=1:0xffffffff\" -j ACCEPT",
		/* Shifts of 32 or more: EINVAL from checkentry. */
		IPT "-A INPUT -m u32 --u32 \"0<<32=1\" -j ACCEPT",
		IPT "-A INPUT -m u32 --u32 \"0>>40=1\" -j ACCEPT",
		IPT "-D INPUT -m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x47455420\" -j DROP",
		"iptables-legacy-save -c" } },
	/* Devices or headers a hook does not have, also through a jump: EINVAL. */
	{ "meta_hooks", {
		IPT "-A OUTPUT -m devgroup --src-group 7 -j ACCEPT",
		IPT "-A INPUT -m devgroup --dst-group 7 -j ACCEPT",
		IPT "-N dg",
		IPT "-A dg -m devgroup --src-group 5 -j RETURN",
		IPT "-A OUTPUT -j dg",
		IPT "-A INPUT -j dg",
		IPT "-A OUTPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT",
		IPT "-N mc",
		IPT "-A mc -m mac --mac-source 02:00:00:00:00:03 -j RETURN",
		IPT "-A INPUT -j mc",
		IPT "-A OUTPUT -j mc",
		"iptables-legacy-save -c" } },
	{ "comment_combined", {
		IPT "-A INPUT -m comment --comment 'hello world' -j ACCEPT",
		IPT "-A INPUT -p tcp --dport 22 -m comment --comment "
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -j ACCEPT",
		IPT "-A INPUT -m comment --comment '' -j DROP",
		IPT "-N annotated",
		IPT "-A annotated -m comment --comment 'in a user chain' -j RETURN",
		IPT "-I INPUT 2 -m comment --comment jump -j annotated",
		IPT "-A INPUT -p tcp -m multiport --dports 80,443 -m comment --comment web "
		"-m mark --mark 1 -m length --length 0:1000 -m ttl --ttl-gt 1 -m tos --tos 0 "
		"-m dscp --dscp 0 -m iprange --src-range 1.1.1.1-1.1.1.2 -j ACCEPT",
		IPT "-R INPUT 1 -m comment --comment replaced -j DROP",
		IPT "-D INPUT -m comment --comment '' -j DROP",
		"iptables-legacy-save -c" } },
	/* One REPLACE holding every new match: the base of e_corrupt_matches. */
	{ "restore_matches", {
		"printf '%s\\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' "
		"':OUTPUT ACCEPT [0:0]' "
		"'-A INPUT -p tcp -m multiport --dports 22,80:90,443 -j ACCEPT' "
		"'-A INPUT -m iprange ! --src-range 10.0.0.1-10.0.0.9 --dst-range 192.168.1.1-192.168.1.200 -j DROP' "
		"'-A INPUT -m mark --mark 0x10/0xff -j ACCEPT' "
		"'-A INPUT -m length ! --length 100:200 -j DROP' "
		"'-A INPUT -m ttl --ttl-lt 5 -j DROP' "
		"'-A INPUT -m tos --tos 0x10/0x3f -j ACCEPT' "
		"'-A INPUT -m dscp --dscp-class AF41 -j ACCEPT' "
		"'-A INPUT -p ah -m ah --ahspi 1:100 -j ACCEPT' "
		"'-A INPUT -p esp -m esp ! --espspi 7 -j ACCEPT' "
		"'-A INPUT -m comment --comment new-matches -j ACCEPT' "
		"'-A FORWARD -p udp -m comment --comment both -m multiport ! --ports 7,8:9 -m mark ! --mark 3 -j DROP' "
		"'-A FORWARD -m ttl --ttl-gt 1 -m dscp --dscp 1 -j ACCEPT' "
		"'-A OUTPUT -m dscp --dscp 2 -m ttl ! --ttl-eq 3 -j ACCEPT' "
		"'-A INPUT -p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece --ecn-ip-ect 1 -j ACCEPT' "
		"'-A INPUT -p tcp -m tcpmss ! --mss 1000:1460 -j DROP' "
		"'-A INPUT -m u32 --u32 \"0>>22&0x3C@0>>16=22,80:90&&0<<4>>28=5\" -j ACCEPT' "
		"'COMMIT' | iptables-legacy-restore -w 60",
		"iptables-legacy-save -c",
		IPT "-D FORWARD 1" } },
};

static int run_shell(const char *cmd, const char *shim, const char *dir)
{
	pid_t pid = fork();
	int ws;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		if (nul >= 0) {
			dup2(nul, 1);
			dup2(nul, 2);
		}
		setenv("LD_PRELOAD", shim, 1);
		setenv("BPFILTER_RECORD", dir, 1);
		unsetenv(HOSTD_ENV_SOCK);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &ws, 0) < 0)
		return -errno;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
}

/* Run one scenario in its own fresh namespace, in a child process. */
static int record_scenario(const struct scenario *s, const char *shim,
			   const char *root)
{
	char dir[PATH_MAX];
	unsigned int i;
	pid_t pid;
	int ws;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(1);
		for (i = 0; i < ARRAY_SIZE(s->cmds) && s->cmds[i]; i++) {
			snprintf(dir, sizeof(dir), "%s/%s/%02u", root, s->name, i);
			if (mkdir(dir, 0700))
				_exit(2);
			/* Failing commands are expected in some scenarios. */
			run_shell(s->cmds[i], shim, dir);
		}
		_exit(0);
	}
	if (waitpid(pid, &ws, 0) < 0)
		return -errno;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -ECHILD;
}

struct rec {
	struct shim_record h;
	unsigned char *data;
};

static int rec_load(const char *path, struct rec *r)
{
	struct stat st;
	int fd, err = 0;

	r->data = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(r->h) ||
	    read(fd, &r->h, sizeof(r->h)) != (ssize_t)sizeof(r->h) ||
	    r->h.magic != SHIM_RECORD_MAGIC ||
	    (size_t)st.st_size != sizeof(r->h) + r->h.payload_len) {
		err = -EINVAL;
		goto out;
	}
	r->data = malloc(r->h.payload_len ? r->h.payload_len : 1);
	if (!r->data ||
	    read(fd, r->data, r->h.payload_len) != (ssize_t)r->h.payload_len) {
		free(r->data);
		r->data = NULL;
		err = -EIO;
	}
out:
	close(fd);
	return err;
}

static int numeric_only(const struct dirent *d)
{
	return d->d_name[0] >= '0' && d->d_name[0] <= '9';
}

/* Load every record of one scenario, in order. Returns the count or -errno. */
static int scenario_records(const char *root, const char *name, struct rec *out,
			    int max)
{
	struct dirent **cmds = NULL, **files = NULL;
	char dir[PATH_MAX], path[PATH_MAX + 600];
	int nc, nf, i, j, n = 0, err = 0;

	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	nc = scandir(dir, &cmds, numeric_only, alphasort);
	if (nc < 0)
		return -errno;
	for (i = 0; i < nc; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cmds[i]->d_name);
		nf = scandir(path, &files, numeric_only, alphasort);
		for (j = 0; j < nf; j++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir,
				 cmds[i]->d_name, files[j]->d_name);
			if (!err && n < max) {
				err = rec_load(path, &out[n]);
				if (!err)
					n++;
			}
			free(files[j]);
		}
		free(files);
		free(cmds[i]);
	}
	free(cmds);
	return err ? err : n;
}

static const char *cmd_name(bool is_set, int cmd)
{
	static const char *const set[] = { "SET_REPLACE", "SET_ADD_COUNTERS" };
	static const char *const get[] = { "GET_INFO", "GET_ENTRIES",
					   "GET_REVISION_MATCH", "GET_REVISION_TARGET" };

	if (cmd < 64 || cmd > 67 || (is_set && cmd > 65))
		return "?";
	return is_set ? set[cmd - 64] : get[cmd - 64];
}

/* ---- Corruptions of a REPLACE blob -------------------------------------- */

/* A parsed base blob: entry offsets (relative to the entry table). */
struct base {
	const char *name;
	unsigned char *blob;
	size_t len;
	int nent;
	uint32_t off[ABI_MAX_ENTRIES];
};

static struct ipt_entry *ent(unsigned char *b, uint32_t off)
{
	return (struct ipt_entry *)(b + REPL_HDR + off);
}

static struct xt_entry_target *ent_target(struct ipt_entry *e)
{
	return (struct xt_entry_target *)((char *)e + e->target_offset);
}

static int base_parse(struct base *b)
{
	struct ipt_replace *r = (void *)b->blob;
	uint32_t off = 0;

	b->nent = 0;
	if (b->len < REPL_HDR || b->len < REPL_HDR + r->size)
		return -EINVAL;
	while (off < r->size && b->nent < ABI_MAX_ENTRIES) {
		b->off[b->nent++] = off;
		if (ent(b->blob, off)->next_offset < sizeof(struct ipt_entry))
			return -EINVAL;
		off += ent(b->blob, off)->next_offset;
	}
	return off == r->size ? 0 : -EINVAL;
}

static bool is_standard(struct ipt_entry *e)
{
	return ent_target(e)->u.user.name[0] == '\0';
}

static int std_verdict(struct ipt_entry *e)
{
	return ((struct xt_standard_target *)ent_target(e))->verdict;
}

static int find_chain_head(struct base *b, const char *chain)
{
	int i;

	for (i = 0; i < b->nent; i++) {
		struct ipt_entry *e = ent(b->blob, b->off[i]);
		struct xt_entry_target *t = ent_target(e);

		if (!strcmp(t->u.user.name, XT_ERROR_TARGET) &&
		    !strcmp((char *)t->data, chain))
			return i;
	}
	return -1;
}

static int find_match(struct base *b, const char *mname)
{
	int i;

	for (i = 0; i < b->nent; i++) {
		struct ipt_entry *e = ent(b->blob, b->off[i]);
		struct xt_entry_match *m = (void *)e->elems;

		if (e->target_offset > sizeof(*e) && !strcmp(m->u.user.name, mname))
			return i;
	}
	return -1;
}

/* Submit one mutated copy of a base in a fresh pair; one case. */
static void mutant_case(struct abi_ctx *c, struct base *b, const unsigned char *buf,
			uint32_t len, size_t buflen, enum ctr_mode cm)
{
	struct abi_pair p;
	int err;

	err = pair_open(c, &p);
	if (err) {
		case_fail(c, "cannot open namespaces: %s", strerror(-err));
	} else {
		(void)b;
		replace_both(c, &p, buf, len, buflen, cm);
	}
	pair_close(c, &p);
	case_end(c);
}

/* Header corruptions: lengths, counts, names, hooks, counters pointer. */
static void corrupt_header(struct abi_ctx *c, struct base *b)
{
	size_t cap = b->len + 4096;
	unsigned char *buf = calloc(1, cap);
	struct ipt_replace *r = (void *)buf;
	static const uint32_t lens[] = { 0, 1, 40, 95, 96 };
	static const uint32_t ncnt[] = { 0, 1, 3, 5, 1000, INT_MAX / 16,
					 INT_MAX / 16 + 1, 0xffffffff };
	static const uint32_t vh[] = { 0x00, 0x01, 0x02, 0x0c, 0x0f, 0x1e, 0x1f, 0x2e };
	static const char *const names[] = { "nosuch", "", "FILTER", "filte",
					     "filter\0junk" };
	unsigned int i, h;
	uint32_t size;

	if (!buf)
		return;
#define RESET() do { memset(buf, 0, cap); memcpy(buf, b->blob, b->len); } while (0)
	RESET();
	size = r->size;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		RESET();
		case_begin(c, "%s: len=%u", b->name, lens[i]);
		mutant_case(c, b, buf, lens[i], b->len, CTR_BUFFER);
	}
	RESET();
	case_begin(c, "%s: len=96+size-1", b->name);
	mutant_case(c, b, buf, REPL_HDR + size - 1, b->len, CTR_BUFFER);
	RESET();
	case_begin(c, "%s: len=96+size+64 (longer than needed)", b->name);
	mutant_case(c, b, buf, REPL_HDR + size + 64, b->len + 64, CTR_BUFFER);
	RESET();
	case_begin(c, "%s: len beyond the caller's buffer (only 96+size is read)", b->name);
	mutant_case(c, b, buf, b->len + 64, b->len, CTR_BUFFER);
	RESET();
	r->size = size + 4096;
	case_begin(c, "%s: size beyond the caller's buffer", b->name);
	mutant_case(c, b, buf, REPL_HDR + r->size, b->len, CTR_BUFFER);

	for (i = 0; i < ARRAY_SIZE(ncnt); i++) {
		RESET();
		r->num_counters = ncnt[i];
		case_begin(c, "%s: num_counters=%u", b->name, ncnt[i]);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	}
	{
		static const int dsz[] = { -8, 8, 1, -1, -(int)sizeof(struct ipt_entry) };

		for (i = 0; i < ARRAY_SIZE(dsz); i++) {
			RESET();
			r->size = size + dsz[i];
			case_begin(c, "%s: size%+d (len follows)", b->name, dsz[i]);
			mutant_case(c, b, buf, REPL_HDR + r->size,
				    REPL_HDR + (r->size > size ? r->size : size),
				    CTR_BUFFER);
		}
		RESET();
		r->size = 0;
		case_begin(c, "%s: size=0", b->name);
		mutant_case(c, b, buf, REPL_HDR, b->len, CTR_BUFFER);
	}
	{
		static const int dn[] = { -1, 1, -1000 };

		for (i = 0; i < ARRAY_SIZE(dn); i++) {
			RESET();
			r->num_entries += dn[i];
			case_begin(c, "%s: num_entries%+d", b->name, dn[i]);
			mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		}
		RESET();
		r->num_entries = 0;
		case_begin(c, "%s: num_entries=0", b->name);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	}
	for (i = 0; i < ARRAY_SIZE(vh); i++) {
		RESET();
		r->valid_hooks = vh[i];
		case_begin(c, "%s: valid_hooks=0x%x", b->name, vh[i]);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		RESET();
		memset(r->name, 0, sizeof(r->name));
		memcpy(r->name, names[i], i == 4 ? 11 : strlen(names[i]));
		case_begin(c, "%s: table name '%s'", b->name, names[i]);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	}
	RESET();
	memset(r->name, 'f', sizeof(r->name));
	case_begin(c, "%s: table name without NUL", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	RESET();
	memcpy(r->name, "filter\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0x", 32);
	case_begin(c, "%s: table name with a byte in name[31]", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);

	for (h = NF_INET_LOCAL_IN; h <= NF_INET_LOCAL_OUT; h++) {
		static const int64_t dh[] = { 1, 4, 8, -8, 0x10000 };

		for (i = 0; i < ARRAY_SIZE(dh); i++) {
			RESET();
			r->hook_entry[h] += dh[i];
			case_begin(c, "%s: hook_entry[%u]%+lld", b->name, h,
				   (long long)dh[i]);
			mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
			RESET();
			r->underflow[h] += dh[i];
			case_begin(c, "%s: underflow[%u]%+lld", b->name, h,
				   (long long)dh[i]);
			mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		}
		RESET();
		r->hook_entry[h] = 0xffffffff;
		case_begin(c, "%s: hook_entry[%u]=0xffffffff", b->name, h);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		RESET();
		r->underflow[h] = 0xffffffff;
		case_begin(c, "%s: underflow[%u]=0xffffffff", b->name, h);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		RESET();
		r->underflow[h] = r->hook_entry[h];
		case_begin(c, "%s: underflow[%u]=hook_entry", b->name, h);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		RESET();
		r->hook_entry[h] = r->underflow[h];
		case_begin(c, "%s: hook_entry[%u]=underflow", b->name, h);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
		RESET();
		r->hook_entry[h] = size - ent(buf, b->off[b->nent - 1])->next_offset;
		case_begin(c, "%s: hook_entry[%u]=final ERROR entry", b->name, h);
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	}
	RESET();
	r->hook_entry[NF_INET_LOCAL_IN] = r->hook_entry[NF_INET_FORWARD];
	r->underflow[NF_INET_LOCAL_IN] = r->underflow[NF_INET_FORWARD];
	case_begin(c, "%s: INPUT hooks = FORWARD hooks", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	RESET();
	r->hook_entry[NF_INET_PRE_ROUTING] = 8;
	r->underflow[NF_INET_POST_ROUTING] = 12345;
	case_begin(c, "%s: garbage in hooks outside valid_hooks", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);

	RESET();
	case_begin(c, "%s: counters pointer NULL", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_NULL);
	RESET();
	case_begin(c, "%s: counters pointer unmapped", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BAD);
	RESET();
	case_begin(c, "%s: unmodified", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
	RESET();
	/* Submitted counters and comefrom must be ignored. */
	for (i = 0; i < (unsigned int)b->nent; i++) {
		struct ipt_entry *e = ent(buf, b->off[i]);

		e->comefrom = 0xdeadbeef;
		e->counters.pcnt = 1000 + i;
		e->counters.bcnt = 0xffffffffffULL + i;
		e->nfcache = 0x5555;
	}
	case_begin(c, "%s: junk in comefrom/counters/nfcache", b->name);
	mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER);
#undef RESET
	free(buf);
}

/* Per-entry corruptions: offsets, flags, target, verdicts, matches. */
static void corrupt_entries(struct abi_ctx *c, struct base *b)
{
	size_t cap = b->len + 4096;
	unsigned char *buf = calloc(1, cap);
	struct ipt_replace *r = (void *)buf;
	int i, j;

	if (!buf)
		return;
#define RESET() do { memset(buf, 0, cap); memcpy(buf, b->blob, b->len); } while (0)
#define RUN(fmt, ...) do { \
		case_begin(c, "%s: entry %d @%u: " fmt, b->name, i, b->off[i], ##__VA_ARGS__); \
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER); \
	} while (0)
	for (i = 0; i < b->nent; i++) {
		struct ipt_entry *e;
		struct xt_entry_target *t;
		static const int dnext[] = { 4, -8, 8, 1 };
		static const uint16_t nexts[] = { 0, 8, 112, 143, 0xfff8 };
		static const uint16_t toffs[] = { 0, 8, 111, 113 };

		RESET();
		e = ent(buf, b->off[i]);
		t = ent_target(e);
		for (j = 0; j < (int)ARRAY_SIZE(dnext); j++) {
			RESET();
			e->next_offset += dnext[j];
			RUN("next_offset%+d", dnext[j]);
		}
		for (j = 0; j < (int)ARRAY_SIZE(nexts); j++) {
			RESET();
			e->next_offset = nexts[j];
			RUN("next_offset=%u", nexts[j]);
		}
		for (j = 0; j < (int)ARRAY_SIZE(toffs); j++) {
			RESET();
			e->target_offset = toffs[j];
			RUN("target_offset=%u", toffs[j]);
		}
		RESET();
		e->target_offset = e->next_offset - 31;
		RUN("target_offset=next_offset-31");
		RESET();
		e->target_offset += 8;
		RUN("target_offset+8");
		RESET();
		e->ip.flags |= 0x04;
		RUN("ip.flags|=0x04");
		RESET();
		e->ip.flags = IPT_F_FRAG | IPT_F_GOTO;
		RUN("ip.flags=FRAG|GOTO");
		RESET();
		e->ip.invflags |= 0x80;
		RUN("ip.invflags|=0x80");
		RESET();
		e->ip.invflags = IPT_INV_MASK;
		RUN("ip.invflags=0x7f");
		RESET();
		e->ip.proto = IPPROTO_UDP;
		RUN("ip.proto=17");
		RESET();
		e->ip.proto = 0;
		RUN("ip.proto=0");
		RESET();
		e->ip.invflags |= IPT_INV_PROTO;
		RUN("ip.invflags|=INV_PROTO");
		RESET();
		t->u.target_size = 0;
		RUN("target_size=0");
		RESET();
		t->u.target_size = 31;
		RUN("target_size=31");
		RESET();
		t->u.target_size += 8;
		RUN("target_size+8");
		RESET();
		t->u.target_size -= 8;
		RUN("target_size-8");
		RESET();
		t->u.user.revision = 1;
		RUN("target revision 1");
		RESET();
		strcpy(t->u.user.name, "NOSUCHTARGET");
		RUN("target name NOSUCHTARGET");
		if (is_standard(e)) {
			struct xt_standard_target *st = (void *)t;
			int v = st->verdict;
			static const int verdicts[] = { -1, -2, -3, -4, -5, -6, 0,
							INT_MIN, INT_MAX, 8 };
			uint32_t tsz = r->size;

			for (j = 0; j < (int)ARRAY_SIZE(verdicts); j++) {
				RESET();
				((struct xt_standard_target *)ent_target(e))->verdict =
					verdicts[j];
				RUN("verdict %d (was %d)", verdicts[j], v);
			}
			RESET();
			st->verdict = b->off[i];
			RUN("verdict jumps to itself");
			RESET();
			st->verdict = b->off[i] + 8;
			RUN("verdict jumps into the middle of itself");
			RESET();
			st->verdict = tsz;
			RUN("verdict jumps to the end of the table");
			if (i + 1 < b->nent) {
				RESET();
				st->verdict = b->off[i + 1];
				RUN("verdict jumps to the next entry");
				RESET();
				st->verdict = b->off[i + 1] + 112;
				RUN("verdict jumps into the next entry");
			}
			RESET();
			st->verdict = b->off[b->nent - 1];
			RUN("verdict jumps to the final ERROR entry");
			if (i > 0) {
				RESET();
				st->verdict = b->off[0];
				RUN("verdict jumps to the first entry");
				RESET();
				st->verdict = b->off[i - 1];
				RUN("verdict jumps to the previous entry");
			}
			RESET();
			strcpy(t->u.user.name, XT_ERROR_TARGET);
			RUN("standard target renamed ERROR");
		} else if (!strcmp(t->u.user.name, XT_ERROR_TARGET)) {
			RESET();
			memset(t->data, 'x', XT_FUNCTION_MAXNAMELEN);
			RUN("ERROR name without NUL");
			RESET();
			memset(t->data, 0, XT_FUNCTION_MAXNAMELEN);
			RUN("ERROR name empty");
			RESET();
			t->u.user.name[0] = '\0';
			RUN("ERROR target renamed standard");
		}
		/* The first match of the entry, if any. */
		if (e->target_offset > sizeof(*e)) {
			struct xt_entry_match *m = (void *)e->elems;
			static const uint16_t msz[] = { 0, 31, 32 };

			for (j = 0; j < (int)ARRAY_SIZE(msz); j++) {
				RESET();
				m->u.match_size = msz[j];
				RUN("match_size=%u", msz[j]);
			}
			RESET();
			m->u.match_size += 8;
			RUN("match_size+8");
			RESET();
			m->u.match_size += 4;
			RUN("match_size+4 (unaligned)");
			RESET();
			m->u.user.revision = 1;
			RUN("match %s revision 1", m->u.user.name);
			RESET();
			m->u.user.revision = 255;
			RUN("match %s revision 255", m->u.user.name);
			RESET();
			strcpy(m->u.user.name, "nosuchmatch");
			RUN("match name nosuchmatch");
			RESET();
			memset(m->u.user.name, 't', sizeof(m->u.user.name));
			RUN("match name without NUL");
			if (!strcmp(m->u.user.name, "tcp")) {
				struct xt_tcp *tp;

				RESET();
				tp = (void *)((struct xt_entry_match *)ent(buf, b->off[i])->elems)->data;
				tp->invflags |= XT_TCP_INV_MASK + 1;
				RUN("tcp invflags |= 0x%x", XT_TCP_INV_MASK + 1);
				RESET();
				tp->invflags = XT_TCP_INV_MASK;
				RUN("tcp invflags = 0x%x", XT_TCP_INV_MASK);
				RESET();
				tp->flg_mask = 0;
				tp->flg_cmp = 0xff;
				RUN("tcp flags cmp outside mask");
				RESET();
				tp->option = 255;
				RUN("tcp option 255");
			}
			if (!strcmp(m->u.user.name, "udp")) {
				struct xt_udp *up;

				RESET();
				up = (void *)((struct xt_entry_match *)ent(buf, b->off[i])->elems)->data;
				up->invflags |= XT_UDP_INV_MASK + 1;
				RUN("udp invflags |= 0x%x", XT_UDP_INV_MASK + 1);
				RESET();
				up->invflags = XT_UDP_INV_MASK;
				RUN("udp invflags = 0x%x", XT_UDP_INV_MASK);
			}
			if (!strcmp(m->u.user.name, "icmp")) {
				struct ipt_icmp *ip;

				RESET();
				ip = (void *)((struct xt_entry_match *)ent(buf, b->off[i])->elems)->data;
				ip->invflags |= 0x02;
				RUN("icmp invflags |= 0x02");
				RESET();
				ip->invflags = IPT_ICMP_INV;
				RUN("icmp invflags = 0x01");
				RESET();
				ip->type = 0xff;
				ip->code[0] = 5;
				ip->code[1] = 2;
				RUN("icmp any type, code range 5..2");
			}
			RESET();
			m->data[0] = 0xff;
			m->data[1] = 0xff;
			m->data[2] = 0;
			m->data[3] = 0;
			RUN("match payload reversed range/type");
		}
	}
#undef RUN
#undef RESET
	free(buf);
}

/* Targeted semantic corruptions: loops, policies, protocol requirements. */
static void corrupt_semantics(struct abi_ctx *c, struct base *b)
{
	size_t cap = b->len + 4096;
	unsigned char *buf = calloc(1, cap);
		int i, ha, hb_, k;

	if (!buf)
		return;
#define RESET() do { memset(buf, 0, cap); memcpy(buf, b->blob, b->len); } while (0)
#define RUN(fmt, ...) do { \
		case_begin(c, "%s: " fmt, b->name, ##__VA_ARGS__); \
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER); \
	} while (0)
	ha = find_chain_head(b, "chain_a");
	hb_ = find_chain_head(b, "chain_b");
	if (ha >= 0 && hb_ >= 0) {
		uint32_t a_first = b->off[ha + 1], b_first = b->off[hb_ + 1];

		/* chain_a -> chain_b -> chain_a. */
		RESET();
		for (i = hb_ + 1; i < b->nent; i++) {
			struct ipt_entry *e = ent(buf, b->off[i]);

			if (is_standard(e) && std_verdict(e) == XT_RETURN) {
				((struct xt_standard_target *)ent_target(e))->verdict = a_first;
				break;
			}
		}
		RUN("loop chain_a -> chain_b -> chain_a");
		RESET();
		((struct xt_standard_target *)ent_target(ent(buf, b_first)))->verdict = b_first;
		RUN("chain_b's first rule jumps to itself");
		RESET();
		((struct xt_standard_target *)ent_target(ent(buf, b_first)))->verdict =
			b->off[0];
		RUN("chain_b jumps to INPUT's first rule (loop through INPUT)");
		RESET();
		((struct xt_standard_target *)ent_target(ent(buf, b_first)))->verdict =
			b->off[hb_];
		RUN("chain_b's first rule jumps to its own head (ERROR entry)");
		RESET();
		ent(buf, b_first)->ip.flags |= IPT_F_GOTO;
		((struct xt_standard_target *)ent_target(ent(buf, b_first)))->verdict = a_first;
		RUN("chain_b gotos chain_a (loop via goto)");
		/* chain_b loses its RETURN: it falls into the final ERROR. */
		RESET();
		for (i = hb_ + 1; i < b->nent; i++) {
			struct ipt_entry *e = ent(buf, b->off[i]);

			if (is_standard(e) && std_verdict(e) == XT_RETURN) {
				((struct xt_standard_target *)ent_target(e))->verdict =
					-NF_ACCEPT - 1;
				break;
			}
		}
		RUN("chain_b ends with ACCEPT instead of RETURN");
		RESET();
		for (i = hb_ + 1; i < b->nent; i++) {
			struct ipt_entry *e = ent(buf, b->off[i]);

			if (is_standard(e) && std_verdict(e) == XT_RETURN) {
				((struct xt_standard_target *)ent_target(e))->verdict =
					b->off[i] + e->next_offset;
				break;
			}
		}
		RUN("chain_b's RETURN jumps to the next entry (runs off the end)");
		RESET();
		ent(buf, a_first)->ip.flags |= IPT_F_GOTO;
		RUN("goto flag on a RETURN rule");
	}
	/* Policies: must stay unconditional ACCEPT/DROP. */
	for (k = NF_INET_LOCAL_IN; k <= NF_INET_LOCAL_OUT; k++) {
		uint32_t u = ((struct ipt_replace *)b->blob)->underflow[k];
		struct ipt_entry *e;
		static const int pv[] = { -1, -2, -4, -5, 0 };
		unsigned int j;

		for (j = 0; j < ARRAY_SIZE(pv); j++) {
			RESET();
			e = ent(buf, u);
			((struct xt_standard_target *)ent_target(e))->verdict = pv[j];
			RUN("policy of hook %d verdict %d", k, pv[j]);
		}
		RESET();
		e = ent(buf, u);
		e->ip.proto = IPPROTO_TCP;
		RUN("policy of hook %d with -p tcp", k);
		RESET();
		e = ent(buf, u);
		e->ip.invflags = IPT_INV_SRCIP;
		RUN("policy of hook %d with an inversion flag", k);
		RESET();
		e = ent(buf, u);
		e->ip.smsk.s_addr = htonl(0xff000000);
		RUN("policy of hook %d with a source mask", k);
		RESET();
		e = ent(buf, u);
		e->ip.iniface[0] = 'x';
		RUN("policy of hook %d with an input interface", k);
		RESET();
		e = ent(buf, u);
		e->ip.flags = IPT_F_FRAG;
		RUN("policy of hook %d with -f", k);
	}
	/* -m tcp/udp/icmp and -p. */
	{
		static const char *const mnames[] = { "tcp", "udp", "icmp" };
		static const int protos[] = { 0, 6, 17, 1, 132 };
		unsigned int mi, pj;

		for (mi = 0; mi < ARRAY_SIZE(mnames); mi++) {
			i = find_match(b, mnames[mi]);
			if (i < 0)
				continue;
			for (pj = 0; pj < ARRAY_SIZE(protos); pj++) {
				RESET();
				ent(buf, b->off[i])->ip.proto = protos[pj];
				RUN("-m %s with -p %d", mnames[mi], protos[pj]);
			}
			RESET();
			ent(buf, b->off[i])->ip.invflags |= IPT_INV_PROTO;
			RUN("-m %s with ! -p", mnames[mi]);
		}
	}
#undef RUN
#undef RESET
	free(buf);
}

/* ---- Corruptions of the matches beyond tcp/udp/icmp ---------------------- */

/*
 * The x_tables registration each match mirrors: payload size (XT_ALIGN'd),
 * the kernel's matchsize (what GET_ENTRIES copies back; the rest up to size
 * is zeroed), where the struct's own fields end (padding after), the
 * revision, whether it is NFPROTO_UNSPEC (a bad revision is EPROTOTYPE,
 * not ENOENT), and whether it is bound to a protocol (non-zero: ah and esp
 * through xt_match.proto, multiport through its checkentry, which takes
 * tcp, udp, udplite, sctp and dccp).
 */
struct new_match {
	const char *name;
	uint16_t size;
	uint16_t ksize;
	uint16_t fields_end;
	uint8_t revision;
	bool unspec;
	uint8_t proto;
};

#define NM(n, type, last, rev, unspec, proto) \
	{ n, XT_ALIGN(sizeof(type)), sizeof(type), \
	  offsetof(type, last) + sizeof(((type *)0)->last), rev, unspec, proto }

static const struct new_match new_matches[] = {
	NM("comment", struct xt_comment_info, comment, 0, true, 0),
	NM("multiport", struct xt_multiport_v1, invert, 1, false, IPPROTO_TCP),
	NM("iprange", struct xt_iprange_mtinfo, flags, 1, false, 0),
	NM("mark", struct xt_mark_mtinfo1, invert, 1, true, 0),
	NM("length", struct xt_length_info, invert, 0, false, 0),
	NM("ttl", struct ipt_ttl_info, ttl, 0, false, 0),
	NM("tos", struct xt_tos_match_info, invert, 1, false, 0),
	NM("dscp", struct xt_dscp_info, invert, 0, false, 0),
	NM("ah", struct ipt_ah, invflags, 0, false, IPPROTO_AH),
	NM("esp", struct xt_esp, invflags, 0, false, IPPROTO_ESP),
	NM("ecn", struct xt_ecn_info, proto, 0, false, 0),
	NM("tcpmss", struct xt_tcpmss_match_info, invert, 0, false, IPPROTO_TCP),
	NM("u32", struct xt_u32, invert, 0, true, 0),
};

/*
 * The nth occurrence (0 = first) of match @mname anywhere in an entry's
 * match list: its entry index, *moff its offset inside the entry.
 */
static int find_match_at(struct base *b, const char *mname, int nth, uint32_t *moff)
{
	int i;

	for (i = 0; i < b->nent; i++) {
		struct ipt_entry *e = ent(b->blob, b->off[i]);
		uint32_t o = sizeof(*e);

		while (o + sizeof(struct xt_entry_match) <= e->target_offset) {
			struct xt_entry_match *m = (void *)((char *)e + o);

			if (m->u.match_size < sizeof(*m))
				break;
			if (!strcmp(m->u.user.name, mname) && nth-- == 0) {
				*moff = o;
				return i;
			}
			o += m->u.match_size;
		}
	}
	return -1;
}

static struct xt_entry_match *ent_match(unsigned char *buf, struct base *b, int i,
					uint32_t moff)
{
	return (struct xt_entry_match *)((char *)ent(buf, b->off[i]) + moff);
}

/*
 * Copy the base into buf with @delta bytes (a multiple of 8) inserted
 * (zeros) at, or removed from, the end of the payload of the match at
 * @moff of entry @i, so that the table stays well formed and only the
 * match's size is wrong: match_size, target_offset, next_offset, size and
 * every hook or jump past the entry follow. Returns the new length.
 */
static size_t resize_match(struct base *b, unsigned char *buf, size_t cap, int i,
			   uint32_t moff, int delta)
{
	struct ipt_replace *r = (void *)buf;
	struct xt_entry_match *m = ent_match(b->blob, b, i, moff);
	size_t at = REPL_HDR + b->off[i] + moff + m->u.match_size;
	size_t len = b->len + delta;
	uint32_t eoff = b->off[i];
	int k, h;

	if (len > cap || (delta < 0 && m->u.match_size - sizeof(*m) < (size_t)-delta))
		return 0;
	memset(buf, 0, cap);
	if (delta >= 0) {
		memcpy(buf, b->blob, at);
		memcpy(buf + at + delta, b->blob + at, b->len - at);
	} else {
		memcpy(buf, b->blob, at + delta);
		memcpy(buf + at + delta, b->blob + at, b->len - at);
	}
	r->size += delta;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if ((r->valid_hooks & (1u << h)) && r->hook_entry[h] > eoff)
			r->hook_entry[h] += delta;
		if ((r->valid_hooks & (1u << h)) && r->underflow[h] > eoff)
			r->underflow[h] += delta;
	}
	ent_match(buf, b, i, moff)->u.match_size += delta;
	ent(buf, eoff)->target_offset += delta;
	ent(buf, eoff)->next_offset += delta;
	for (k = 0; k < b->nent; k++) {
		struct ipt_entry *e = ent(buf, b->off[k] + (k > i ? delta : 0));
		struct xt_standard_target *st = (void *)ent_target(e);

		if (is_standard(e) && st->verdict >= 0 && (uint32_t)st->verdict > eoff)
			st->verdict += delta;
	}
	return len;
}

/*
 * Every check xt_check_match() and each new match's checkentry make, on a
 * recorded blob that holds them all: revision (ENOENT vs EPROTOTYPE),
 * name, payload size (with the table kept well formed), the protocol the
 * match needs, each payload field checkentry reads (EINVAL, EDOM), padding
 * bytes that GET_ENTRIES must zero or copy back, and the order of the
 * checks within a match and across the matches of one entry.
 */
static void corrupt_matches(struct abi_ctx *c, struct base *b)
{
	size_t cap = b->len + 4096;
	unsigned char *buf = calloc(1, cap);
	unsigned int mi, j;
	uint32_t moff;
	int i;

	if (!buf)
		return;
#define RESET() do { memset(buf, 0, cap); memcpy(buf, b->blob, b->len); } while (0)
#define RUN(fmt, ...) do { \
		case_begin(c, "%s: -m %s (entry %d): " fmt, b->name, nm->name, i, ##__VA_ARGS__); \
		mutant_case(c, b, buf, b->len, b->len, CTR_BUFFER); \
	} while (0)
#define RUN_LEN(len, fmt, ...) do { \
		case_begin(c, "%s: -m %s (entry %d): " fmt, b->name, nm->name, i, ##__VA_ARGS__); \
		mutant_case(c, b, buf, (len), (len), CTR_BUFFER); \
	} while (0)
/* The entry's header and the match's payload in the current buf. */
#define E() ent(buf, b->off[i])
#define M() ent_match(buf, b, i, moff)
#define P(type) ((type *)M()->data)
	for (mi = 0; mi < ARRAY_SIZE(new_matches); mi++) {
		const struct new_match *nm = &new_matches[mi];
		static const uint8_t revs[] = { 0, 1, 2, 255 };
		static const int deltas[] = { 8, -8, 256 };
		size_t len;

		i = find_match_at(b, nm->name, 0, &moff);
		if (i < 0) {
			case_begin(c, "%s: -m %s", b->name, nm->name);
			case_fail(c, "the base holds no -m %s", nm->name);
			case_end(c);
			continue;
		}
		RESET();
		RUN("unmodified");
		/* Lookup: ENOENT for NFPROTO_IPV4 matches, EPROTOTYPE for UNSPEC ones. */
		for (j = 0; j < ARRAY_SIZE(revs); j++) {
			if (revs[j] == nm->revision)
				continue;
			RESET();
			M()->u.user.revision = revs[j];
			RUN("revision %u (an %s match)", revs[j],
			    nm->unspec ? "NFPROTO_UNSPEC" : "NFPROTO_IPV4");
		}
		RESET();
		memset(M()->u.user.name + strlen(nm->name) + 1, 'z',
		       sizeof(M()->u.user.name) - strlen(nm->name) - 1);
		RUN("garbage after the name's NUL");
		RESET();
		for (j = 0; nm->name[j]; j++)
			M()->u.user.name[j] = nm->name[j] - 'a' + 'A';
		RUN("name in upper case");
		RESET();
		M()->u.user.name[strlen(nm->name) - 1] = '\0';
		RUN("name without its last letter");
		/* Size: wrong by whole aligned steps, the table still well formed. */
		for (j = 0; j < ARRAY_SIZE(deltas); j++) {
			len = resize_match(b, buf, cap, i, moff, deltas[j]);
			if (!len)
				continue;
			RUN_LEN(len, "payload %u%+d bytes", nm->size, deltas[j]);
		}
		len = resize_match(b, buf, cap, i, moff, 8);
		if (len) {
			M()->u.user.revision = nm->revision + 1;
			RUN_LEN(len, "payload +8 and revision %u",
				nm->revision + 1);
		}
		/* GET_ENTRIES copies matchsize bytes back and zeroes the rest. */
		if (nm->fields_end < nm->size) {
			RESET();
			memset(M()->data + nm->fields_end, 0xa5, nm->size - nm->fields_end);
			RUN("junk in payload bytes %u..%u (matchsize %u)", nm->fields_end,
			    nm->size - 1, nm->ksize);
		}
		/* The protocol: -p and ! -p. */
		if (nm->proto) {
			static const uint8_t protos[] = { 0, IPPROTO_ICMP, IPPROTO_TCP,
							  IPPROTO_UDP, IPPROTO_DCCP,
							  IPPROTO_ESP, IPPROTO_AH,
							  IPPROTO_SCTP, IPPROTO_UDPLITE, 255 };
			uint8_t orig = ent(b->blob, b->off[i])->ip.proto;

			for (j = 0; j < ARRAY_SIZE(protos); j++) {
				if (protos[j] == orig)
					continue;
				RESET();
				E()->ip.proto = protos[j];
				RUN("with -p %u", protos[j]);
			}
			RESET();
			E()->ip.invflags |= IPT_INV_PROTO;
			RUN("with ! -p %u", orig);
			RESET();
			E()->ip.invflags |= IPT_INV_PROTO;
			E()->ip.proto = 0;
			RUN("with ! -p 0");
			len = resize_match(b, buf, cap, i, moff, 8);
			if (len) {
				E()->ip.proto = 0;
				RUN_LEN(len, "payload +8 and -p 0");
			}
		} else {
			RESET();
			E()->ip.proto = IPPROTO_AH;
			RUN("with -p 51");
			RESET();
			E()->ip.proto = IPPROTO_TCP;
			E()->ip.invflags |= IPT_INV_PROTO;
			RUN("with ! -p 6");
		}
		/* Each match's own payload fields. */
		if (!strcmp(nm->name, "multiport")) {
			/* Recorded: --dports 22,80:90,443: ports 22 80 90 443, pflags 0 1 0 0. */
			static const uint8_t flags[] = { XT_MULTIPORT_SOURCE,
							 XT_MULTIPORT_EITHER, 3, 0x80, 0xff };
			static const uint8_t counts[] = { 0, 1, 2, 3, 15, 16, 255 };

			for (j = 0; j < ARRAY_SIZE(flags); j++) {
				RESET();
				P(struct xt_multiport_v1)->flags = flags[j];
				RUN("flags %u", flags[j]);
			}
			for (j = 0; j < ARRAY_SIZE(counts); j++) {
				RESET();
				P(struct xt_multiport_v1)->count = counts[j];
				RUN("count %u (recorded 4)", counts[j]);
			}
			RESET();
			P(struct xt_multiport_v1)->pflags[P(struct xt_multiport_v1)->count - 1] = 1;
			RUN("range flag on the last port");
			RESET();
			P(struct xt_multiport_v1)->pflags[2] = 1;
			RUN("range flag on a range's end (two in a row)");
			RESET();
			P(struct xt_multiport_v1)->pflags[0] = 1;
			RUN("range flag right before another range");
			RESET();
			P(struct xt_multiport_v1)->ports[1] = 91;
			RUN("range 91:90 (reversed)");
			RESET();
			P(struct xt_multiport_v1)->ports[1] = 90;
			RUN("range 90:90");
			RESET();
			P(struct xt_multiport_v1)->pflags[1] = 0x80;
			RUN("range flag 0x80 (any non-zero)");
			RESET();
			P(struct xt_multiport_v1)->pflags[1] = 0;
			RUN("no range flag");
			RESET();
			P(struct xt_multiport_v1)->pflags[14] = 1;
			P(struct xt_multiport_v1)->pflags[13] = 1;
			P(struct xt_multiport_v1)->ports[13] = 0xffff;
			RUN("bad range flags beyond count are ignored");
			RESET();
			P(struct xt_multiport_v1)->count = 15;
			P(struct xt_multiport_v1)->pflags[14] = 1;
			RUN("count 15, range flag on port 15");
			RESET();
			P(struct xt_multiport_v1)->count = 15;
			P(struct xt_multiport_v1)->pflags[13] = 1;
			P(struct xt_multiport_v1)->ports[13] = 7;
			P(struct xt_multiport_v1)->ports[14] = 7;
			RUN("count 15, range 7:7 as ports 14-15");
			RESET();
			P(struct xt_multiport_v1)->count = 16;
			P(struct xt_multiport_v1)->flags = 3;
			RUN("count 16 and flags 3");
			RESET();
			P(struct xt_multiport_v1)->flags = 3;
			E()->ip.proto = IPPROTO_ICMP;
			RUN("flags 3 and -p 1");
			for (j = 1; j <= 255; j += 254) {
				RESET();
				P(struct xt_multiport_v1)->invert = j;
				RUN("invert %u", j);
			}
			/* Every protocol checkentry allows, each direction. */
			{
				static const uint8_t ok[] = { IPPROTO_UDP, IPPROTO_UDPLITE,
							      IPPROTO_SCTP, IPPROTO_DCCP };
				for (j = 0; j < ARRAY_SIZE(ok); j++) {
					RESET();
					E()->ip.proto = ok[j];
					P(struct xt_multiport_v1)->flags = j % 3;
					RUN("-p %u flags %u", ok[j], j % 3);
				}
			}
		} else if (!strcmp(nm->name, "ttl")) {
			/*
			 * xt_hl.c's ttl_mt_check() refuses modes above
			 * IPT_TTL_GT in the 6.1 sources; whatever the reference
			 * kernel does is what counts here.
			 */
			static const uint8_t modes[] = { IPT_TTL_EQ, IPT_TTL_NE, IPT_TTL_GT,
							 IPT_TTL_GT + 1, 0x80, 0xff };

			for (j = 0; j < ARRAY_SIZE(modes); j++) {
				RESET();
				P(struct ipt_ttl_info)->mode = modes[j];
				RUN("mode %u", modes[j]);
			}
			RESET();
			P(struct ipt_ttl_info)->ttl = 0;
			RUN("ttl 0");
		} else if (!strcmp(nm->name, "dscp")) {
			static const uint8_t v[] = { 0, XT_DSCP_MAX, XT_DSCP_MAX + 1, 0x80, 0xff };

			for (j = 0; j < ARRAY_SIZE(v); j++) {
				RESET();
				P(struct xt_dscp_info)->dscp = v[j];
				RUN("dscp 0x%02x", v[j]);
			}
			RESET();
			P(struct xt_dscp_info)->invert = 0xff;
			RUN("invert 0xff");
			len = resize_match(b, buf, cap, i, moff, 8);
			if (len) {
				P(struct xt_dscp_info)->dscp = 0x40;
				RUN_LEN(len, "payload +8 and dscp 0x40");
			}
			RESET();
			P(struct xt_dscp_info)->dscp = 0x40;
			M()->u.user.revision = 1;
			RUN("revision 1 and dscp 0x40");
		} else if (!strcmp(nm->name, "ah") || !strcmp(nm->name, "esp")) {
			/* struct ipt_ah and struct xt_esp have the same layout. */
			static const uint8_t inv[] = { 0, 0x01, 0x02, 0x03, 0x80, 0xff };

			for (j = 0; j < ARRAY_SIZE(inv); j++) {
				RESET();
				P(struct xt_esp)->invflags = inv[j];
				RUN("invflags 0x%02x", inv[j]);
			}
			RESET();
			P(struct xt_esp)->spis[0] = 0xffffffff;
			P(struct xt_esp)->spis[1] = 0;
			RUN("spi range reversed");
			RESET();
			P(struct xt_esp)->invflags = 0x02;
			E()->ip.proto = 0;
			RUN("invflags 0x02 and -p 0");
		} else if (!strcmp(nm->name, "ecn")) {
			/* Each bit of operation and invert; the TCP bits against -p. */
			for (j = 0; j < 8; j++) {
				RESET();
				P(struct xt_ecn_info)->operation = 1u << j;
				RUN("operation 0x%02x", 1u << j);
				RESET();
				P(struct xt_ecn_info)->invert = 1u << j;
				RUN("invert 0x%02x", 1u << j);
			}
			RESET();
			E()->ip.proto = IPPROTO_UDP;
			RUN("-p udp");
			RESET();
			E()->ip.invflags |= IPT_INV_PROTO;
			RUN("! -p tcp");
			RESET();
			E()->ip.proto = 0;
			P(struct xt_ecn_info)->operation = XT_ECN_OP_MATCH_IP;
			RUN("-p 0 and only --ecn-ip-ect");
			RESET();
			P(struct xt_ecn_info)->operation = 0;
			P(struct xt_ecn_info)->ip_ect = 0xff;
			RUN("no operation, ip_ect 0xff");
			RESET();
			E()->ip.proto = 0;
			P(struct xt_ecn_info)->operation = 0x40;
			RUN("-p 0 and operation 0x40: which error first");
		} else if (!strcmp(nm->name, "tcpmss")) {
			RESET();
			P(struct xt_tcpmss_match_info)->invert = 0xff;
			P(struct xt_tcpmss_match_info)->mss_min = 0xffff;
			RUN("invert 0xff, min 0xffff above max");
		} else if (!strcmp(nm->name, "u32")) {
			/* Counts past the arrays and shift counts, in each test. */
			static const uint8_t counts[] = { 0, 10, 11, 12, 255 };
			static const uint32_t shifts[] = { 0, 31, 32, 33, 0xffffffff };
			struct xt_u32_test *t;

			for (j = 0; j < ARRAY_SIZE(counts); j++) {
				RESET();
				P(struct xt_u32)->ntests = counts[j];
				RUN("ntests %u", counts[j]);
				RESET();
				P(struct xt_u32)->tests[1].nnums = counts[j];
				RUN("tests[1].nnums %u", counts[j]);
				RESET();
				P(struct xt_u32)->tests[0].nvalues = counts[j];
				RUN("tests[0].nvalues %u", counts[j]);
			}
			for (j = 0; j < ARRAY_SIZE(shifts); j++) {
				RESET();
				t = &P(struct xt_u32)->tests[1];
				t->location[2].number = shifts[j];
				RUN("tests[1] >> %u", shifts[j]);
				RESET();
				t = &P(struct xt_u32)->tests[1];
				t->location[1].number = shifts[j];
				RUN("tests[1] << %u", shifts[j]);
				/* Not an operator: location[0], or past nnums. */
				RESET();
				t = &P(struct xt_u32)->tests[1];
				t->location[0].nextop = XT_U32_LEFTSH;
				t->location[0].number = shifts[j];
				RUN("tests[1] location[0] %u with nextop <<", shifts[j]);
				RESET();
				t = &P(struct xt_u32)->tests[1];
				t->location[3].nextop = XT_U32_RIGHTSH;
				t->location[3].number = shifts[j];
				RUN("tests[1] location[3] (past nnums) >> %u", shifts[j]);
				RESET();
				t = &P(struct xt_u32)->tests[5];
				t->location[1].nextop = XT_U32_RIGHTSH;
				t->location[1].number = shifts[j];
				t->nnums = 2;
				RUN("tests[5] (past ntests) >> %u", shifts[j]);
			}
			RESET();
			t = &P(struct xt_u32)->tests[0];
			t->location[1].nextop = 200;
			t->location[1].number = 0xffffffff;
			RUN("unknown operator 200");
			RESET();
			P(struct xt_u32)->ntests = 11;
			P(struct xt_u32)->tests[10].nnums = 12;
			RUN("ntests 11, tests[10].nnums 12");
			RESET();
			P(struct xt_u32)->invert = 0xff;
			RUN("invert 0xff");
		} else if (!strcmp(nm->name, "iprange")) {
			static const uint8_t fl[] = { 0, IPRANGE_SRC, IPRANGE_DST_INV, 0xff };

			for (j = 0; j < ARRAY_SIZE(fl); j++) {
				RESET();
				P(struct xt_iprange_mtinfo)->flags = fl[j];
				RUN("flags 0x%02x", fl[j]);
			}
			RESET();
			P(struct xt_iprange_mtinfo)->src_min.ip = htonl(0xffffffff);
			RUN("src range reversed");
			RESET();
			memset(&P(struct xt_iprange_mtinfo)->src_min.ip6[1], 0x77, 12);
			RUN("junk in the IPv6 part of the addresses");
		} else if (!strcmp(nm->name, "mark")) {
			RESET();
			P(struct xt_mark_mtinfo1)->invert = 0xff;
			RUN("invert 0xff");
			RESET();
			P(struct xt_mark_mtinfo1)->mark = 0xffffffff;
			P(struct xt_mark_mtinfo1)->mask = 0;
			RUN("mark outside the mask");
		} else if (!strcmp(nm->name, "length")) {
			RESET();
			P(struct xt_length_info)->min = 0xffff;
			P(struct xt_length_info)->max = 0;
			RUN("min > max");
			RESET();
			P(struct xt_length_info)->invert = 2;
			RUN("invert 2");
		} else if (!strcmp(nm->name, "tos")) {
			RESET();
			P(struct xt_tos_match_info)->tos_mask = 0;
			P(struct xt_tos_match_info)->tos_value = 0xff;
			RUN("value outside the mask");
			RESET();
			P(struct xt_tos_match_info)->invert = 0xff;
			RUN("invert 0xff");
		} else if (!strcmp(nm->name, "comment")) {
			RESET();
			memset(P(struct xt_comment_info)->comment, 'x', XT_MAX_COMMENT_LEN);
			RUN("256 bytes without a NUL");
			RESET();
			memset(P(struct xt_comment_info)->comment, 0, XT_MAX_COMMENT_LEN);
			RUN("empty");
		}
	}
	/*
	 * The matches of one entry are looked up and checked one after the
	 * other, each completely, before the target: the first bad one decides.
	 */
	{
		static const struct new_match several[] = {
			{ .name = "comment -m multiport -m mark" },
			{ .name = "ttl -m dscp" },
			{ .name = "dscp -m ttl" },
		};
		const struct new_match *nm = &several[0];
		uint32_t m2, m3;

		/* FORWARD: -p udp -m comment -m multiport ! --ports 7,8:9 -m mark ! --mark 3 */
		i = find_match_at(b, "comment", 1, &moff);
		if (i >= 0 && find_match_at(b, "multiport", 1, &m2) == i &&
		    find_match_at(b, "mark", 1, &m3) == i) {
			RESET();
			ent_match(buf, b, i, m2)->data[0] = 3;
			ent_match(buf, b, i, m3)->u.user.revision = 0;
			RUN("2nd match multiport flags 3, 3rd match mark revision 0");
			RESET();
			ent_match(buf, b, i, m2)->u.user.revision = 0;
			M()->u.user.revision = 1;
			RUN("1st match comment revision 1, 2nd match multiport revision 0");
			RESET();
			ent_match(buf, b, i, m2)->u.user.revision = 0;
			strcpy(ent_target(E())->u.user.name, "NOSUCHTARGET");
			RUN("2nd match multiport revision 0 and target NOSUCHTARGET");
			RESET();
			E()->ip.proto = IPPROTO_ICMP;
			ent_match(buf, b, i, m3)->u.user.revision = 0;
			RUN("-p 1 (multiport refuses it) and 3rd match mark revision 0");
			RESET();
			ent_match(buf, b, i, m3)->u.match_size = 0;
			RUN("3rd match mark match_size 0");
		} else {
			case_begin(c, "%s: -m comment -m multiport -m mark entry", b->name);
			case_fail(c, "the base holds no such entry");
			case_end(c);
		}
		/* FORWARD: -m ttl --ttl-gt 1 -m dscp --dscp 1; OUTPUT: -m dscp -m ttl. */
		nm = &several[1];
		i = find_match_at(b, "ttl", 1, &moff);
		if (i >= 0 && find_match_at(b, "dscp", 1, &m2) == i) {
			RESET();
			M()->data[0] = 9;
			ent_match(buf, b, i, m2)->data[0] = 0x40;
			RUN("1st match ttl mode 9, 2nd match dscp 0x40");
		} else {
			case_begin(c, "%s: -m ttl -m dscp entry", b->name);
			case_fail(c, "the base holds no such entry");
			case_end(c);
		}
		nm = &several[2];
		i = find_match_at(b, "dscp", 2, &moff);
		if (i >= 0 && find_match_at(b, "ttl", 2, &m2) == i) {
			RESET();
			M()->data[0] = 0x40;
			ent_match(buf, b, i, m2)->data[0] = 9;
			RUN("1st match dscp 0x40, 2nd match ttl mode 9");
			RESET();
			M()->data[0] = 0x40;
			ent_match(buf, b, i, m2)->u.user.revision = 1;
			RUN("1st match dscp 0x40, 2nd match ttl revision 1");
		} else {
			case_begin(c, "%s: -m dscp -m ttl entry", b->name);
			case_fail(c, "the base holds no such entry");
			case_end(c);
		}
	}
#undef P
#undef M
#undef E
#undef RUN_LEN
#undef RUN
#undef RESET
	free(buf);
}

/* ---- Fixture ------------------------------------------------------------- */

FIXTURE(abi) {
	struct abi_ctx c;
};

FIXTURE_SETUP(abi)
{
	struct rlimit rl;
	const char *logp = getenv("ABI_MISMATCH_LOG");
	int err;

	memset(&self->c, 0, sizeof(self->c));
	ASSERT_NE(NULL, abi_stats);
	/* One descriptor per kept namespace: raise the soft limit if we can. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur > ABI_MAX_HELPER_NS + 256)
			rl.rlim_cur = ABI_MAX_HELPER_NS + 256;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = mbox_driver_helper_path(self->c.helper, sizeof(self->c.helper));
	if (err)
		TH_LOG("helper binary not found (%s): build it with `make helper`",
		       strerror(-err));
	ASSERT_EQ(0, err);
	self->c.opts.helper = self->c.helper;
	self->c.verbose = getenv("ABI_VERBOSE") != NULL;
	ASSERT_EQ(0, mbox_driver_start(&self->c.drv, &self->c.opts));
	self->c.log = fopen(logp ? logp : "/tmp/abi-mismatches.log", "a");
}

FIXTURE_TEARDOWN(abi)
{
	int ws = 0, i;

	mbox_driver_stop(&self->c.drv, &ws);
	for (i = 0; i < self->c.nns; i++)
		close(self->c.ns_fds[i]);
	if (self->c.log)
		fclose(self->c.log);
	/* The helper must leave cleanly on EOF, not crash. */
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		TH_LOG("helper ended with wait status 0x%x", ws);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Run every scenario with the recorder shim against the real ip_tables. */
TEST_F_TIMEOUT(abi, a_record, 600)
{
	char shim[PATH_MAX];
	char tmpl[] = "/tmp/bpfilter-abi-XXXXXX";
	unsigned int i;
	int err, n, total = 0;
	struct rec *recs;

	err = hostd_shim_path(shim, sizeof(shim));
	if (err)
		TH_LOG("shim not found (%s): build it with `make shim`", strerror(-err));
	ASSERT_EQ(0, err);
	ASSERT_NE(NULL, mkdtemp(tmpl));
	snprintf(abi_stats->recdir, sizeof(abi_stats->recdir), "%s", tmpl);
	recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	ASSERT_NE(NULL, recs);
	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		char d[PATH_MAX];
		int j, sets = 0;

		snprintf(d, sizeof(d), "%s/%s", tmpl, scenarios[i].name);
		ASSERT_EQ(0, mkdir(d, 0700));
		ASSERT_EQ(0, record_scenario(&scenarios[i], shim, tmpl));
		n = scenario_records(tmpl, scenarios[i].name, recs, ABI_MAX_RECS);
		ASSERT_LT(0, n) TH_LOG("scenario %s recorded nothing", scenarios[i].name);
		for (j = 0; j < n; j++) {
			sets += recs[j].h.is_set;
			free(recs[j].data);
		}
		/* Each scenario changes the table at least once. */
		EXPECT_LT(0, sets) TH_LOG("scenario %s made no set call", scenarios[i].name);
		total += n;
	}
	free(recs);
	ksft_print_msg("recorded %d sockopt calls from %zu iptables scenarios\n",
		       total, ARRAY_SIZE(scenarios));
	fflush(stdout);
	abi_stats->recorded = 1;
}

/* Replay every recorded call, in order, on a fresh pair per scenario. */
TEST_F_TIMEOUT(abi, b_replay, 600)
{
	struct abi_ctx *c = &self->c;
	struct rec *recs;
	unsigned int i;
	int n, j;

	ASSERT_EQ(1, abi_stats->recorded);
	recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	ASSERT_NE(NULL, recs);
	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		struct abi_pair p;
		int err;

		n = scenario_records(abi_stats->recdir, scenarios[i].name, recs,
				     ABI_MAX_RECS);
		ASSERT_LT(0, n);
		err = pair_open(c, &p);
		ASSERT_EQ(0, err);
		for (j = 0; j < n; j++) {
			struct rec *r = &recs[j];
			int ks;

			case_begin(c, "replay %s #%d %s len %u", scenarios[i].name, j,
				   cmd_name(r->h.is_set, r->h.cmd), r->h.len);
			if (!r->h.is_set) {
				get_both(c, &p, cmd_name(false, r->h.cmd), r->h.cmd,
					 r->data, r->h.len, 0x00);
				if (r->h.cmd == IPT_SO_GET_ENTRIES)
					get_both(c, &p, cmd_name(false, r->h.cmd),
						 r->h.cmd, r->data, r->h.len, 0xa5);
			} else if (r->h.cmd == IPT_SO_SET_REPLACE) {
				ks = replace_both(c, &p, r->data, r->h.len,
						  r->h.payload_len, CTR_BUFFER);
				if (ks != r->h.status)
					case_fail(c, "kernel replay gave %s, recorded %s",
						  errname(ks), errname(r->h.status));
			} else {
				ks = counters_both(c, &p, r->data, r->h.len,
						   r->h.payload_len);
				if (ks != r->h.status)
					case_fail(c, "kernel replay gave %s, recorded %s",
						  errname(ks), errname(r->h.status));
			}
			case_end(c);
			free(r->data);
		}
		pair_close(c, &p);
	}
	free(recs);
}

/* Pick the first REPLACE of a scenario (made on the initial table) as a base. */
static int load_base(struct base *b, const char *scen)
{
	struct rec *recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	int n, j, err = -ENOENT;

	if (!recs)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	b->name = scen;
	n = scenario_records(abi_stats->recdir, scen, recs, ABI_MAX_RECS);
	for (j = 0; j < n; j++) {
		if (err == -ENOENT && recs[j].h.is_set &&
		    recs[j].h.cmd == IPT_SO_SET_REPLACE && recs[j].h.status == 0 &&
		    recs[j].h.payload_len >= REPL_HDR) {
			b->blob = recs[j].data;
			b->len = recs[j].h.payload_len;
			recs[j].data = NULL;
			err = base_parse(b);
		}
		free(recs[j].data);
	}
	free(recs);
	return err;
}

static const char *const base_names[] = { "restore_rich", "append_tcp", "udp_icmp_options",
					  "restore_matches" };

TEST_F_TIMEOUT(abi, c_corrupt_header, 600)
{
	unsigned int i;

	ASSERT_EQ(1, abi_stats->recorded);
	for (i = 0; i < ARRAY_SIZE(base_names); i++) {
		struct base b;

		ASSERT_EQ(0, load_base(&b, base_names[i]));
		corrupt_header(&self->c, &b);
		free(b.blob);
	}
}

TEST_F_TIMEOUT(abi, d_corrupt_entries, 900)
{
	unsigned int i;

	ASSERT_EQ(1, abi_stats->recorded);
	/* All entries of the rich base; the small ones add little. */
	for (i = 0; i < 2; i++) {
		struct base b;

		ASSERT_EQ(0, load_base(&b, base_names[i]));
		corrupt_entries(&self->c, &b);
		free(b.blob);
	}
}

TEST_F_TIMEOUT(abi, e_corrupt_semantics, 600)
{
	unsigned int i;

	ASSERT_EQ(1, abi_stats->recorded);
	for (i = 0; i < ARRAY_SIZE(base_names); i++) {
		struct base b;

		ASSERT_EQ(0, load_base(&b, base_names[i]));
		corrupt_semantics(&self->c, &b);
		free(b.blob);
	}
}

/* Every check of the matches beyond tcp/udp/icmp, on the blob that holds them all. */
TEST_F_TIMEOUT(abi, e_corrupt_matches, 600)
{
	struct base b;

	ASSERT_EQ(1, abi_stats->recorded);
	ASSERT_EQ(0, load_base(&b, "restore_matches"));
	corrupt_matches(&self->c, &b);
	free(b.blob);
}

/* Hand-made gets on the initial table. */
TEST_F_TIMEOUT(abi, f_gets, 300)
{
	struct abi_ctx *c = &self->c;
	static const uint32_t info_lens[] = { 0, 1, 83, 85, 100 };
	static const char *const tnames[] = { "filter", "nosuch", "", "FILTER",
					      "filterfilterfilterfilterfilterfi" };
	static const struct { const char *name; int rev; } mrev[] = {
		{ "tcp", 0 }, { "tcp", 1 }, { "tcp", 255 }, { "udp", 0 },
		{ "udp", 2 }, { "icmp", 0 }, { "icmp", 1 }, { "nosuchmatch", 0 },
		{ "", 0 }, { "TCP", 0 }, { "tcpx", 0 },
		{ "tttttttttttttttttttttttttttt", 0 },
		{ "comment", 0 }, { "comment", 1 }, { "multiport", 0 },
		{ "multiport", 1 }, { "multiport", 2 }, { "iprange", 0 },
		{ "iprange", 1 }, { "mark", 0 }, { "mark", 1 }, { "mark", 2 },
		{ "MARK", 2 }, { "length", 0 }, { "length", 1 }, { "ttl", 0 },
		{ "ttl", 1 }, { "hl", 0 }, { "tos", 0 }, { "tos", 1 },
		{ "TOS", 0 }, { "dscp", 0 }, { "dscp", 1 }, { "DSCP", 0 },
		{ "ah", 0 }, { "ah", 1 }, { "esp", 0 }, { "esp", 255 },
	};
	static const struct { const char *name; int rev; } trev[] = {
		{ "", 0 }, { "", 1 }, { "ERROR", 0 }, { "ERROR", 1 },
		{ "NOSUCHTARGET", 0 }, { "ACCEPT", 0 }, { "DROP", 0 },
		{ "RETURN", 0 }, { "error", 0 },
	};
	struct ipt_get_entries *ge;
	struct xt_get_revision rev;
	struct ipt_getinfo info;
	struct abi_pair p;
	unsigned int i;
	uint32_t sz;

	ASSERT_EQ(0, pair_open(c, &p));
	for (i = 0; i < ARRAY_SIZE(tnames); i++) {
		memset(&info, 0, sizeof(info));
		memcpy(info.name, tnames[i], strlen(tnames[i]));
		case_begin(c, "GET_INFO name '%s'", tnames[i]);
		get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x33);
		case_end(c);
	}
	memset(&info, 0, sizeof(info));
	strcpy(info.name, "filter");
	for (i = 0; i < ARRAY_SIZE(info_lens); i++) {
		unsigned char big[128] = { 0 };

		memcpy(big, &info, sizeof(info));
		case_begin(c, "GET_INFO len %u", info_lens[i]);
		get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, big, info_lens[i], 0x33);
		case_end(c);
	}
	memcpy(info.name, "filter\0garbage", 14);
	case_begin(c, "GET_INFO name with garbage after NUL");
	get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x33);
	case_end(c);

	/* GET_ENTRIES: size and length rules, EAGAIN. */
	sz = 632;
	ge = calloc(1, GETE_HDR + sz + 64);
	ASSERT_NE(NULL, ge);

	if (ge) {
		static const struct { int dlen; int dsize; const char *name; } ent[] = {
			{ 0, 0, "filter" }, { 1, 0, "filter" }, { -1, 0, "filter" },
			{ 8, 8, "filter" }, { -8, -8, "filter" },
			{ -(int)632, -(int)632, "filter" }, { 0, 0, "nosuch" },
			{ 0, 0, "" }, { 64, 64, "filter" }, { 8, 8, "nosuch" },
			{ -(int)632 - 1, 0, "filter" }, { -(int)632 - 40, 0, "filter" },
		};

		for (i = 0; i < ARRAY_SIZE(ent); i++) {
			uint32_t len = GETE_HDR + sz + ent[i].dlen;

			memset(ge, 0, GETE_HDR + sz + 64);
			strcpy(ge->name, ent[i].name);
			ge->size = sz + ent[i].dsize;
			case_begin(c, "GET_ENTRIES len 40+632%+d size 632%+d name '%s'",
				   ent[i].dlen, ent[i].dsize, ent[i].name);
			get_both(c, &p, "GET_ENTRIES", IPT_SO_GET_ENTRIES, ge, len, 0x77);
			case_end(c);
		}
		memset(ge, 0, GETE_HDR);
		memset(ge->name, 'f', sizeof(ge->name));
		ge->size = sz;
		case_begin(c, "GET_ENTRIES name without NUL");
		get_both(c, &p, "GET_ENTRIES", IPT_SO_GET_ENTRIES, ge, GETE_HDR + sz, 0x77);
		case_end(c);
	}
	free(ge);

	for (i = 0; i < ARRAY_SIZE(mrev) * 2 + ARRAY_SIZE(trev) * 2; i++) {
		bool tgt = i >= ARRAY_SIZE(mrev) * 2;
		unsigned int k = tgt ? (i - ARRAY_SIZE(mrev) * 2) / 2 : i / 2;
		const char *name = tgt ? trev[k].name : mrev[k].name;
		int r = tgt ? trev[k].rev : mrev[k].rev;
		int cmd = tgt ? IPT_SO_GET_REVISION_TARGET : IPT_SO_GET_REVISION_MATCH;

		memset(&rev, 0, sizeof(rev));
		memcpy(rev.name, name, strnlen(name, sizeof(rev.name)));
		rev.revision = r;
		if (i & 1) {
			/* Same query with trailing garbage after the NUL. */
			if (strlen(name) + 1 < sizeof(rev.name))
				memset(rev.name + strlen(name) + 1, 'z',
				       sizeof(rev.name) - strlen(name) - 1);
		}
		case_begin(c, "%s '%s' rev %d%s", cmd_name(false, cmd), name, r,
			   i & 1 ? " (garbage after NUL)" : "");
		get_both(c, &p, cmd_name(false, cmd), cmd, &rev, sizeof(rev), 0x11);
		case_end(c);
	}
	{
		static const uint32_t rlens[] = { 0, 29, 31, 64 };
		unsigned char big[64] = { 0 };

		strcpy((char *)big, "tcp");
		for (i = 0; i < ARRAY_SIZE(rlens) * 2; i++) {
			int cmd = i & 1 ? IPT_SO_GET_REVISION_TARGET :
					  IPT_SO_GET_REVISION_MATCH;

			case_begin(c, "%s len %u", cmd_name(false, cmd), rlens[i / 2]);
			get_both(c, &p, "revision", cmd, big, rlens[i / 2], 0x11);
			case_end(c);
		}
	}
	pair_close(c, &p);
}

/* ADD_COUNTERS rules, then a REPLACE must hand back exactly those counters. */
TEST_F_TIMEOUT(abi, g_counters, 300)
{
	struct abi_ctx *c = &self->c;
	struct xt_counters_info *ci;
	struct ipt_replace *r;
	struct abi_pair p;
	unsigned int n, i, k;
	struct base b;
	size_t clen;

	ASSERT_EQ(1, abi_stats->recorded);
	ASSERT_EQ(0, load_base(&b, "restore_rich"));
	r = (void *)b.blob;
	n = r->num_entries;
	clen = sizeof(*ci) + (n + 2) * sizeof(struct xt_counters);
	ci = calloc(1, clen);
	ASSERT_NE(NULL, ci);

	for (k = 0; k < 9; k++) {
		static const char *const what[] = {
			"valid", "num_counters-1", "num_counters+1", "len 40",
			"len 39", "len one short", "name nosuch", "name without NUL",
			"len beyond buffer",
		};
		uint32_t len, cnt = n;
		size_t buflen;

		ASSERT_EQ(0, pair_open(c, &p));
		case_begin(c, "counters setup: restore_rich replace");
		replace_both(c, &p, b.blob, b.len, b.len, CTR_BUFFER);
		case_end(c);

		memset(ci, 0, clen);
		strcpy(ci->name, "filter");
		for (i = 0; i < n + 2; i++) {
			ci->counters[i].pcnt = 1000ULL * (i + 1) + k;
			ci->counters[i].bcnt = 0x100000000ULL * (i + 3) + 7 * i;
		}
		if (k == 1)
			cnt = n - 1;
		if (k == 2)
			cnt = n + 1;
		ci->num_counters = cnt;
		len = sizeof(*ci) + cnt * sizeof(struct xt_counters);
		buflen = len;
		if (k == 3)
			len = 40;
		if (k == 4)
			len = 39;
		if (k == 5)
			len -= 1;
		if (k == 6)
			strcpy(ci->name, "nosuch");
		if (k == 7)
			memset(ci->name, 'f', sizeof(ci->name));
		if (k == 8)
			len += 16;
		case_begin(c, "ADD_COUNTERS %s", what[k]);
		counters_both(c, &p, ci, len, buflen);
		case_end(c);

		/* Twice: counters add up. */
		if (k == 0) {
			case_begin(c, "ADD_COUNTERS valid, second time");
			counters_both(c, &p, ci, len, buflen);
			case_end(c);
		}
		/* The next REPLACE returns the old counters; then EAGAIN. */
		r->num_counters = n;
		case_begin(c, "REPLACE after ADD_COUNTERS %s (old counters)", what[k]);
		replace_both(c, &p, b.blob, b.len, b.len, CTR_BUFFER);
		case_end(c);
		r->num_counters = 4;
		case_begin(c, "REPLACE with stale num_counters=4 after %s", what[k]);
		replace_both(c, &p, b.blob, b.len, b.len, CTR_BUFFER);
		case_end(c);
		pair_close(c, &p);
	}
	free(ci);
	free(b.blob);
}

/* Run cmd through sh with stdout+stderr captured into out (NUL-terminated). */
static int run_capture(const char *cmd, const char *shim, const char *sock,
		       char *out, size_t outlen, int *status)
{
	int fd = memfd_create("abi-out", MFD_CLOEXEC);
	ssize_t n;
	pid_t pid;
	int ws;

	if (fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -errno;
	}
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		unsetenv("BPFILTER_RECORD");
		if (sock) {
			setenv("LD_PRELOAD", shim, 1);
			setenv(HOSTD_ENV_SOCK, sock, 1);
		} else {
			unsetenv("LD_PRELOAD");
			unsetenv(HOSTD_ENV_SOCK);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &ws, 0) < 0) {
		close(fd);
		return -errno;
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	n = pread(fd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return 0;
}

/* The real ip_tables filter table of the current namespace (malloc'd). */
static struct ipt_get_entries *real_table(void)
{
	struct ipt_getinfo gi = { .name = "filter" };
	struct ipt_get_entries *ge = NULL;
	socklen_t l = sizeof(gi);
	int s;

	s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (s < 0)
		return NULL;
	if (getsockopt(s, SOL_IP, IPT_SO_GET_INFO, &gi, &l))
		goto out;
	ge = calloc(1, GETE_HDR + gi.size);
	if (!ge)
		goto out;
	strcpy(ge->name, "filter");
	ge->size = gi.size;
	l = GETE_HDR + gi.size;
	if (getsockopt(s, SOL_IP, IPT_SO_GET_ENTRIES, ge, &l)) {
		free(ge);
		ge = NULL;
	}
out:
	close(s);
	return ge;
}

/* Drop iptables-save's timestamp comments, which differ by nature. */
static void strip_dates(char *s)
{
	char *line = s, *w = s, *nl;

	while (*line) {
		nl = strchr(line, '\n');
		nl = nl ? nl + 1 : line + strlen(line);
		if (strncmp(line, "# Generated by", 14) && strncmp(line, "# Completed on", 14)) {
			memmove(w, line, nl - line);
			w += nl - line;
		}
		line = nl;
	}
	*w = '\0';
}

/*
 * Stock iptables-legacy end to end: every scenario runs once against the
 * real ip_tables and once through the shim and bpfilter-hostd against the
 * helper, each in a fresh namespace; every command's exit status and output
 * and the final iptables-legacy-save -c / -L -v -x must be identical.
 */
TEST_F_TIMEOUT(abi, h_iptables_shim, 600)
{
	static const char *const dumps[] = {
		"iptables-legacy-save -c",
		"iptables-legacy -w 60 -L -v -n -x --line-numbers",
	};
	struct abi_ctx *c = &self->c;
	char shim[PATH_MAX], sock[108];
	size_t outlen = 1 << 20;
	char *ko = malloc(outlen), *ho = malloc(outlen);
	unsigned int i, j, side, ncmd;
	struct ipt_get_entries *before = NULL, *after;
	struct hostd h;
	int ks, hs;

	ASSERT_NE(NULL, ko);
	ASSERT_NE(NULL, ho);
	ASSERT_EQ(0, hostd_shim_path(shim, sizeof(shim)));
	snprintf(sock, sizeof(sock), "/tmp/bpfilter-abi-hostd-%d.sock", getpid());
	ASSERT_EQ(0, hostd_start(&h, sock, &c->opts));

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		const struct scenario *sc = &scenarios[i];
		int korig, fd;

		for (ncmd = 0; ncmd < ARRAY_SIZE(sc->cmds) && sc->cmds[ncmd]; ncmd++)
			;
		/* Keep a way back so that both sides start from the same place. */
		korig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, korig);
		for (j = 0; j < ncmd + ARRAY_SIZE(dumps); j++) {
			const char *cmd = j < ncmd ? sc->cmds[j] : dumps[j - ncmd];

			case_begin(c, "iptables %s #%u: %s", sc->name, j, cmd);
			/* Each side's namespace persists for the whole scenario. */
			if (j == 0) {
				for (side = 0; side < 2; side++) {
					ASSERT_EQ(0, unshare(CLONE_NEWNET));
					fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
					ASSERT_LE(0, fd);
					ASSERT_GT(ABI_MAX_HELPER_NS, c->nns);
					c->ns_fds[c->nns++] = fd;
				}
			}
			/* ns_fds[nns-2] is the kernel's side, [nns-1] the helper's. */
			if (j == 0) {
				ASSERT_EQ(0, setns(c->ns_fds[c->nns - 1], CLONE_NEWNET));
				before = real_table();
			}
			ASSERT_EQ(0, setns(c->ns_fds[c->nns - 2], CLONE_NEWNET));
			ASSERT_EQ(0, run_capture(cmd, shim, NULL, ko, outlen, &ks));
			ASSERT_EQ(0, setns(c->ns_fds[c->nns - 1], CLONE_NEWNET));
			ASSERT_EQ(0, run_capture(cmd, shim, sock, ho, outlen, &hs));
			/*
			 * The helper's side must not touch the real ip_tables:
			 * if the shim were not loaded, both sides would be the
			 * kernel and agree trivially.
			 */
			after = real_table();
			if (!before || !after)
				case_fail(c, "cannot read the real table");
			else if (before->size != after->size ||
				 memcmp(before, after, GETE_HDR + before->size))
				case_fail(c, "the real table changed (%u -> %u bytes): the shim did not intercept",
					  before->size, after->size);
			free(after);
			strip_dates(ko);
			strip_dates(ho);
			c->kst = ks ? -ks : 0;
			if (ks != hs)
				case_fail(c, "exit status: kernel %d helper %d (helper output: %.200s)",
					  ks, hs, ho);
			else if (strcmp(ko, ho))
				case_fail(c, "output differs at byte %ld:\n--- kernel:\n%.600s\n--- helper:\n%.600s",
					  first_diff(ko, ho, strlen(ko) + 1), ko, ho);
			case_end(c);
		}
		free(before);
		before = NULL;
		{
			/* The helper's namespace dies with the scenario. */
			struct stat st;
			struct mbox_request req = {
				.is_set = BPFILTER_MBOX_CONTROL,
				.cmd = BPFILTER_CTL_NETNS_EXIT,
				.pid = getpid(),
			};
			int st_ok = fstat(c->ns_fds[c->nns - 1], &st), status = -1;

			req.netns_ino = st_ok ? 0 : (uint32_t)st.st_ino;
			EXPECT_EQ(0, hostd_request(sock, &req, &status));
			EXPECT_EQ(0, status);
		}
		ASSERT_EQ(0, setns(korig, CLONE_NEWNET));
		close(korig);
	}
	hostd_stop(&h);
	free(ko);
	free(ho);
}

TEST_F(abi, z_summary)
{
	ksft_print_msg("abi-diff mismatch details: see MISMATCH lines above\n");
	printf("abi-diff: %d cases, %d mismatches\n", abi_stats->cases,
	       abi_stats->mismatches);
	fflush(stdout);
	if (abi_stats->recdir[0] && !getenv("ABI_KEEP_RECORDS"))
		nftw(abi_stats->recdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	EXPECT_EQ(0, abi_stats->mismatches);
	EXPECT_LE(ABI_MIN_CASES, abi_stats->cases);
}

TEST_HARNESS_MAIN
