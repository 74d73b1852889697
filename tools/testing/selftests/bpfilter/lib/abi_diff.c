// SPDX-License-Identifier: GPL-2.0
/*
 * The differential ABI test of either family against this kernel's real
 * ip_tables or ip6_tables: the cases, the two sides, the recorded sessions
 * and the corruptions that both families share (abi_diff.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "abi_diff.h"
#include "hostd.h"
#include "ipt_sockopt.h"

/* What the generic code assumes of the two families' blobs. */
_Static_assert(sizeof(struct ip6t_replace) == sizeof(struct ipt_replace), "replace");
_Static_assert(offsetof(struct ip6t_replace, counters) ==
	       offsetof(struct ipt_replace, counters), "replace counters");
_Static_assert(sizeof(struct ip6t_get_entries) == sizeof(struct ipt_get_entries), "gete");
_Static_assert(sizeof(struct ip6t_getinfo) == sizeof(struct ipt_getinfo), "getinfo");
_Static_assert(sizeof(struct ip6t_icmp) == sizeof(struct ipt_icmp) &&
	       offsetof(struct ip6t_icmp, invflags) == offsetof(struct ipt_icmp, invflags) &&
	       IP6T_ICMP_INV == IPT_ICMP_INV, "icmp");
_Static_assert(offsetof(struct ipt_entry, target_offset) ==
	       offsetof(struct ipt_entry, nfcache) + 4 &&
	       offsetof(struct ipt_entry, comefrom) == offsetof(struct ipt_entry, nfcache) + 8 &&
	       offsetof(struct ip6t_entry, target_offset) ==
	       offsetof(struct ip6t_entry, nfcache) + 4 &&
	       offsetof(struct ip6t_entry, comefrom) ==
	       offsetof(struct ip6t_entry, nfcache) + 8, "struct abi_etail");

#define REPL_HDR	ABI_REPL_HDR
#define GETE_HDR	ABI_GETE_HDR
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Inside a function with an err and an out label: fail loudly. */
#define ABI_REQUIRE(cond) do { \
		if (!(cond)) { \
			printf("# %s:%d: %s failed\n", __FILE__, __LINE__, #cond); \
			fflush(stdout); \
			err = err ? err : -EIO; \
			goto out; \
		} \
	} while (0)

struct abi_stats *abi_stats;

const char *const abi_base_names[] = { "restore_rich", "append_tcp", "udp_icmp_options",
				       ABI_MATCHES_BASE };
const unsigned int abi_nbases = ARRAY_LEN(abi_base_names);

int abi_stats_init(void)
{
	void *p;

	if (abi_stats)
		return 0;
	p = mmap(NULL, sizeof(*abi_stats), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	memset(p, 0, sizeof(*abi_stats));
	abi_stats = p;
	return 0;
}

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

long abi_first_diff(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

const char *abi_errname(int st)
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

static void case_vbegin(struct abi_ctx *c, const char *prefix, const char *fmt,
			va_list ap)
{
	size_t n = 0;

	if (prefix)
		n = snprintf(c->name, sizeof(c->name), "%s: ", prefix);
	if (n < sizeof(c->name))
		vsnprintf(c->name + n, sizeof(c->name) - n, fmt, ap);
	c->bad = false;
	c->kst = 0;
}

void abi_case_begin(struct abi_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	case_vbegin(c, NULL, fmt, ap);
	va_end(ap);
}

void abi_case_fail(struct abi_ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->bad = true;
	/* Test children leave with _exit(): flush so that nothing is lost. */
	printf("# MISMATCH %s: %s\n", c->name, msg);
	fflush(stdout);
	if (c->log) {
		fprintf(c->log, "MISMATCH %s: %s\n", c->name, msg);
		fflush(c->log);
	}
}

void abi_case_end(struct abi_ctx *c)
{
	if (c->verbose) {
		printf("# case %s: kernel %s%s\n", c->name, abi_errname(c->kst),
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

/*
 * One call on one side. cmd is ip_tables' number (BPFILTER_IPT_SO_*): the
 * kernel gets its family's optname, the helper the request's family.
 */
static int side_call(struct abi_ctx *c, struct abi_side *s, bool is_set, int cmd,
		     void *buf, uint32_t len)
{
	uint32_t family = c->fam->nfproto;
	socklen_t l = len;
	int err, status, level, opt;

	if (!s->drv) {
		level = ipt_sockopt_level(family);
		opt = ipt_sockopt_optname(family, is_set, cmd);
		if (is_set)
			err = setsockopt(s->sock, level, opt, buf, len);
		else
			err = getsockopt(s->sock, level, opt, buf, &l);
		return err ? -errno : 0;
	}
	err = mbox_driver_sockopt_family(s->drv, family, is_set, cmd, buf, len,
					 s->ino, &status);
	if (err) {
		abi_case_fail(c, "helper transport error %d (%s), restarting it",
			      err, strerror(-err));
		helper_restart(c);
		return ABI_DEAD;
	}
	return status;
}

/* Two fresh namespaces: a kernel socket in one, the helper's id the other. */
int abi_pair_open(struct abi_ctx *c, struct abi_pair *p)
{
	int fd;

	memset(p, 0, sizeof(*p));
	p->k.sock = -1;
	if (unshare(CLONE_NEWNET))
		return -errno;
	p->k.sock = socket(ipt_sockopt_af(c->fam->nfproto), SOCK_RAW, IPPROTO_RAW);
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

void abi_pair_close(struct abi_ctx *c, struct abi_pair *p)
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
	abi_case_fail(c, "%s: kernel %s helper %s", what, abi_errname(ks),
		      abi_errname(hs));
	return false;
}

/* A get with identical input on both sides; compares status and bytes. */
int abi_get_both(struct abi_ctx *c, struct abi_pair *p, const char *what,
		 int cmd, const void *in, uint32_t len, int fill)
{
	struct gbuf kb = { 0 }, hb = { 0 };
	int ks, hs;
	long d;

	if (gbuf_alloc(&kb, NULL, len, fill) || gbuf_alloc(&hb, NULL, len, fill)) {
		abi_case_fail(c, "%s: out of memory", what);
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
	d = abi_first_diff(kb.p, hb.p, len);
	if (d >= 0)
		abi_case_fail(c, "%s (fill 0x%02x, len %u): bytes differ at offset %ld: kernel %02x helper %02x",
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
		abi_case_fail(c, "kernel GET_INFO failed: %s", abi_errname(ks));
		return;
	}
	abi_get_both(c, p, "state GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x5a);
	ge = calloc(1, GETE_HDR + size);
	if (!ge)
		return;
	strcpy(ge->name, "filter");
	ge->size = size;
	for (i = 0; i < 2; i++) {
		memset(ge->entrytable, fills[i], size);
		memset((char *)ge + offsetof(struct ipt_get_entries, size) + 4,
		       fills[i], GETE_HDR - offsetof(struct ipt_get_entries, size) - 4);
		abi_get_both(c, p, "state GET_ENTRIES", IPT_SO_GET_ENTRIES, ge,
			     GETE_HDR + size, fills[i]);
	}
	free(ge);
}

/*
 * Submit a REPLACE (len bytes of blob; the buffer holds exactly buflen bytes,
 * so a len beyond it faults) to both sides and compare everything.
 */
int abi_replace_both(struct abi_ctx *c, struct abi_pair *p, const void *blob,
		     uint32_t len, size_t buflen, enum abi_ctr_mode cm)
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
		abi_case_fail(c, "out of memory");
		goto out;
	}
	if (buflen >= REPL_HDR) {
		/* The caller's buffer need not be aligned: store bytes. */
		uint64_t kp = 0, hp = 0;

		switch (cm) {
		case ABI_CTR_BUFFER:
			kp = (uintptr_t)kc.p;
			hp = (uintptr_t)hc.p;
			break;
		case ABI_CTR_NULL:
			break;
		case ABI_CTR_BAD:
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
	d = abi_first_diff(kc.p, hc.p, clen);
	if (d >= 0)
		abi_case_fail(c, "old counters written to repl->counters differ at byte %ld (counter %ld): kernel %02x helper %02x",
			      d, d / 16, kc.p[d], hc.p[d]);
	/* Nobody may write into the blob itself (counters pointers differ). */
	if (buflen >= REPL_HDR) {
		d = abi_first_diff(kb.p + REPL_HDR, hb.p + REPL_HDR, buflen - REPL_HDR);
		if (d >= 0)
			abi_case_fail(c, "blob modified at offset %ld", d + (long)REPL_HDR);
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
int abi_counters_both(struct abi_ctx *c, struct abi_pair *p, const void *buf,
		      uint32_t len, size_t buflen)
{
	struct gbuf kb = { 0 }, hb = { 0 };
	int ks = -ENOMEM, hs;

	if (gbuf_alloc(&kb, buf, buflen, 0) || gbuf_alloc(&hb, buf, buflen, 0)) {
		abi_case_fail(c, "out of memory");
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

/* ---- Recorded iptables sessions ----------------------------------------- */

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
static int record_scenario(const struct abi_scenario *s, const char *shim,
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
		for (i = 0; i < ARRAY_LEN(s->cmds) && s->cmds[i]; i++) {
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

/* One record; h.cmd is the request's cmd (ip_tables' number), h.family set. */
struct rec {
	struct shim_record h;
	unsigned char *data;
};

/* Load one record of family f: either layout (shim_record.h). */
static int rec_load(const char *path, const struct abi_family *f, struct rec *r)
{
	struct stat st;
	size_t hdr;
	uint32_t family;
	int fd, cmd, err = 0;

	memset(&r->h, 0, sizeof(r->h));
	r->data = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The first layout's header is a prefix of the second's. */
	hdr = offsetof(struct shim_record, family);
	if (fstat(fd, &st) || read(fd, &r->h, hdr) != (ssize_t)hdr) {
		err = -EINVAL;
		goto out;
	}
	hdr = shim_record_hdr_size(r->h.magic);
	if (!hdr || (hdr > offsetof(struct shim_record, family) &&
		     pread(fd, &r->h, hdr, 0) != (ssize_t)hdr) ||
	    (size_t)st.st_size != hdr + r->h.payload_len) {
		err = -EINVAL;
		goto out;
	}
	if (r->h.magic == SHIM_RECORD_MAGIC)
		r->h.family = NFPROTO_IPV4;
	cmd = ipt_sockopt_cmd(ipt_sockopt_level(r->h.family), r->h.is_set,
			      r->h.cmd, &family);
	if (cmd < 0 || family != f->nfproto) {
		printf("# %s: optname %u of family %u, not a %s call\n", path,
		       r->h.cmd, r->h.family, f->nfproto_name);
		err = -EPROTO;
		goto out;
	}
	r->h.cmd = cmd;
	r->data = malloc(r->h.payload_len ? r->h.payload_len : 1);
	if (!r->data ||
	    pread(fd, r->data, r->h.payload_len, hdr) != (ssize_t)r->h.payload_len) {
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
static int scenario_records(const struct abi_family *f, const char *root,
			    const char *name, struct rec *out, int max)
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
				err = rec_load(path, f, &out[n]);
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

static void recs_free(struct rec *recs, int n)
{
	int j;

	for (j = 0; j < n; j++)
		free(recs[j].data);
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

/* Run every scenario with the recorder shim against the real kernel. */
int abi_record(const struct abi_family *f)
{
	char shim[PATH_MAX], d[PATH_MAX];
	char tmpl[] = "/tmp/bpfilter-abi-XXXXXX";
	struct rec *recs = NULL;
	unsigned int i;
	int err, n, j, sets, total = 0, idle = 0;

	err = hostd_shim_path(shim, sizeof(shim));
	if (err)
		printf("# shim not found (%s): build it with `make shim`\n", strerror(-err));
	ABI_REQUIRE(!err);
	ABI_REQUIRE(mkdtemp(tmpl));
	snprintf(abi_stats->recdir, sizeof(abi_stats->recdir), "%s", tmpl);
	recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	ABI_REQUIRE(recs);
	for (i = 0; i < f->nscenarios; i++) {
		snprintf(d, sizeof(d), "%s/%s", tmpl, f->scenarios[i].name);
		ABI_REQUIRE(!mkdir(d, 0700));
		ABI_REQUIRE(!record_scenario(&f->scenarios[i], shim, tmpl));
		n = scenario_records(f, tmpl, f->scenarios[i].name, recs, ABI_MAX_RECS);
		if (n <= 0)
			printf("# scenario %s recorded nothing (%d)\n", f->scenarios[i].name, n);
		ABI_REQUIRE(n > 0);
		for (j = 0, sets = 0; j < n; j++)
			sets += recs[j].h.is_set;
		recs_free(recs, n);
		/* Each scenario changes the table at least once. */
		if (!sets) {
			printf("# scenario %s made no set call\n", f->scenarios[i].name);
			idle++;
		}
		total += n;
	}
	printf("# recorded %d sockopt calls from %u %s scenarios\n", total,
	       f->nscenarios, f->tool);
	fflush(stdout);
	abi_stats->recorded = 1;
	err = idle ? -EINVAL : 0;
out:
	free(recs);
	return err;
}

/* Replay every recorded call, in order, on a fresh pair per scenario. */
int abi_replay(struct abi_ctx *c)
{
	const struct abi_family *f = c->fam;
	struct rec *recs = NULL;
	struct abi_pair p;
	unsigned int i;
	int n = 0, j, ks, err = 0;

	ABI_REQUIRE(abi_stats->recorded == 1);
	recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	ABI_REQUIRE(recs);
	for (i = 0; i < f->nscenarios; i++) {
		n = scenario_records(f, abi_stats->recdir, f->scenarios[i].name, recs,
				     ABI_MAX_RECS);
		ABI_REQUIRE(n > 0);
		err = abi_pair_open(c, &p);
		ABI_REQUIRE(!err);
		for (j = 0; j < n; j++) {
			struct rec *r = &recs[j];

			abi_case_begin(c, "replay %s #%d %s len %u", f->scenarios[i].name, j,
				       cmd_name(r->h.is_set, r->h.cmd), r->h.len);
			if (!r->h.is_set) {
				abi_get_both(c, &p, cmd_name(false, r->h.cmd), r->h.cmd,
					     r->data, r->h.len, 0x00);
				if (r->h.cmd == IPT_SO_GET_ENTRIES)
					abi_get_both(c, &p, cmd_name(false, r->h.cmd),
						     r->h.cmd, r->data, r->h.len, 0xa5);
			} else if (r->h.cmd == IPT_SO_SET_REPLACE) {
				ks = abi_replace_both(c, &p, r->data, r->h.len,
						      r->h.payload_len, ABI_CTR_BUFFER);
				if (ks != r->h.status)
					abi_case_fail(c, "kernel replay gave %s, recorded %s",
						      abi_errname(ks), abi_errname(r->h.status));
			} else {
				ks = abi_counters_both(c, &p, r->data, r->h.len,
						       r->h.payload_len);
				if (ks != r->h.status)
					abi_case_fail(c, "kernel replay gave %s, recorded %s",
						      abi_errname(ks), abi_errname(r->h.status));
			}
			abi_case_end(c);
		}
		recs_free(recs, n);
		n = 0;
		abi_pair_close(c, &p);
	}
out:
	if (n > 0)
		recs_free(recs, n);
	free(recs);
	return err;
}

/* ---- Blobs --------------------------------------------------------------- */

/* The entry at offset off of a blob's entry table. */
static void *ent(unsigned char *blob, uint32_t off)
{
	return blob + REPL_HDR + off;
}

struct xt_entry_target *abi_ent_target(const struct abi_family *f, void *e)
{
	return (struct xt_entry_target *)((char *)e + ABI_TAIL(f, e)->target_offset);
}

bool abi_is_standard(const struct abi_family *f, void *e)
{
	return abi_ent_target(f, e)->u.user.name[0] == '\0';
}

static int std_verdict(const struct abi_family *f, void *e)
{
	return ((struct xt_standard_target *)abi_ent_target(f, e))->verdict;
}

static int *verdict_of(const struct abi_family *f, void *e)
{
	return &((struct xt_standard_target *)abi_ent_target(f, e))->verdict;
}

static int base_parse(struct abi_base *b)
{
	struct ipt_replace *r = (void *)b->blob;
	uint32_t off = 0;

	b->nent = 0;
	if (b->len < REPL_HDR || b->len < REPL_HDR + r->size)
		return -EINVAL;
	while (off < r->size && b->nent < ABI_MAX_ENTRIES) {
		b->off[b->nent++] = off;
		if (ABI_TAIL(b->fam, ent(b->blob, off))->next_offset <
		    b->fam->entry_size)
			return -EINVAL;
		off += ABI_TAIL(b->fam, ent(b->blob, off))->next_offset;
	}
	return off == r->size ? 0 : -EINVAL;
}

static int find_chain_head(struct abi_base *b, const char *chain)
{
	int i;

	for (i = 0; i < b->nent; i++) {
		struct xt_entry_target *t =
			abi_ent_target(b->fam, ent(b->blob, b->off[i]));

		if (!strcmp(t->u.user.name, XT_ERROR_TARGET) &&
		    !strcmp((char *)t->data, chain))
			return i;
	}
	return -1;
}

/* The first entry whose first match is mname. */
static int find_match(struct abi_base *b, const char *mname)
{
	const struct abi_family *f = b->fam;
	int i;

	for (i = 0; i < b->nent; i++) {
		char *e = ent(b->blob, b->off[i]);
		struct xt_entry_match *m = (void *)(e + f->entry_size);

		if (ABI_TAIL(f, e)->target_offset > f->entry_size &&
		    !strcmp(m->u.user.name, mname))
			return i;
	}
	return -1;
}

/*
 * The nth occurrence (0 = first) of match @mname anywhere in an entry's
 * match list: its entry index, *moff its offset inside the entry.
 */
int abi_find_match_at(struct abi_base *b, const char *mname, int nth, uint32_t *moff)
{
	const struct abi_family *f = b->fam;
	int i;

	for (i = 0; i < b->nent; i++) {
		char *e = ent(b->blob, b->off[i]);
		uint32_t o = f->entry_size;

		while (o + sizeof(struct xt_entry_match) <= ABI_TAIL(f, e)->target_offset) {
			struct xt_entry_match *m = (void *)(e + o);

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

/* Pick the first REPLACE of a scenario (made on the initial table) as a base. */
int abi_load_base(struct abi_base *b, const struct abi_family *f, const char *scen)
{
	struct rec *recs = calloc(ABI_MAX_RECS, sizeof(*recs));
	int n, j, err = -ENOENT;

	if (!recs)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	b->fam = f;
	b->name = scen;
	n = scenario_records(f, abi_stats->recdir, scen, recs, ABI_MAX_RECS);
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
	if (err)
		printf("# no base in scenario %s: %s\n", scen, strerror(-err));
	return err;
}

/* ---- Corruption runs ------------------------------------------------------ */

static int mut_init(struct abi_mut *m, struct abi_ctx *c, struct abi_base *b)
{
	memset(m, 0, sizeof(*m));
	m->c = c;
	m->b = b;
	m->f = b->fam;
	m->cap = b->len + 4096;
	m->buf = calloc(1, m->cap);
	snprintf(m->prefix, sizeof(m->prefix), "%s", b->name);
	return m->buf ? 0 : -ENOMEM;
}

void abi_mut_prefix(struct abi_mut *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->prefix, sizeof(m->prefix), fmt, ap);
	va_end(ap);
}

void abi_mut_reset(struct abi_mut *m)
{
	memset(m->buf, 0, m->cap);
	memcpy(m->buf, m->b->blob, m->b->len);
}

void *abi_mut_ent(struct abi_mut *m)
{
	return ent(m->buf, m->b->off[m->i]);
}

struct xt_entry_match *abi_mut_match_at(struct abi_mut *m, uint32_t moff)
{
	return (struct xt_entry_match *)((char *)abi_mut_ent(m) + moff);
}

struct xt_entry_match *abi_mut_match(struct abi_mut *m)
{
	return abi_mut_match_at(m, m->moff);
}

bool abi_mut_find(struct abi_mut *m, unsigned int n, const char *const *names,
		  const int *nths, uint32_t *offs)
{
	char what[128] = "";
	unsigned int k;
	size_t l = 0;
	int i = -1;

	for (k = 0; k < n; k++) {
		int at = abi_find_match_at(m->b, names[k], nths[k], &offs[k]);

		if (k == 0)
			i = at;
		else if (at != i)
			i = -1;
		if (l < sizeof(what))
			l += snprintf(what + l, sizeof(what) - l, "%s-m %s", k ? " " : "",
				      names[k]);
	}
	if (i < 0) {
		abi_case_begin(m->c, "%s: %s entry", m->b->name, what);
		abi_case_fail(m->c, "the base holds no such entry");
		abi_case_end(m->c);
		return false;
	}
	m->i = i;
	m->moff = offs[0];
	abi_mut_prefix(m, "%s: %s (entry %d)", m->b->name, what, i);
	return true;
}

/* Submit one mutated copy of a base in a fresh pair; one case. */
void abi_mut_case(struct abi_mut *m, uint32_t len, size_t buflen,
		  enum abi_ctr_mode cm, const char *fmt, ...)
{
	struct abi_ctx *c = m->c;
	struct abi_pair p;
	va_list ap;
	int err;

	va_start(ap, fmt);
	case_vbegin(c, m->prefix, fmt, ap);
	va_end(ap);
	err = abi_pair_open(c, &p);
	if (err)
		abi_case_fail(c, "cannot open namespaces: %s", strerror(-err));
	else
		abi_replace_both(c, &p, m->buf, len, buflen, cm);
	abi_pair_close(c, &p);
	abi_case_end(c);
}

size_t abi_mut_resize_match(struct abi_mut *m, int delta)
{
	const struct abi_family *f = m->f;
	struct abi_base *b = m->b;
	unsigned char *buf = m->buf;
	struct ipt_replace *r = (void *)buf;
	char *be = ent(b->blob, b->off[m->i]);
	struct xt_entry_match *bm = (void *)(be + m->moff);
	size_t at = REPL_HDR + b->off[m->i] + m->moff + bm->u.match_size;
	size_t len = b->len + delta;
	uint32_t eoff = b->off[m->i];
	int k, h;

	if (len > m->cap ||
	    (delta < 0 && bm->u.match_size - sizeof(*bm) < (size_t)-delta))
		return 0;
	memset(buf, 0, m->cap);
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
	abi_mut_match(m)->u.match_size += delta;
	ABI_TAIL(f, abi_mut_ent(m))->target_offset += delta;
	ABI_TAIL(f, abi_mut_ent(m))->next_offset += delta;
	for (k = 0; k < b->nent; k++) {
		void *e = ent(buf, b->off[k] + (k > m->i ? delta : 0));

		if (abi_is_standard(f, e) && std_verdict(f, e) >= 0 &&
		    (uint32_t)std_verdict(f, e) > eoff)
			*verdict_of(f, e) += delta;
	}
	return len;
}

/* ---- Header corruptions: lengths, counts, names, hooks, counters pointer -- */

static void corrupt_header(struct abi_mut *m)
{
	const struct abi_family *f = m->f;
	struct abi_base *b = m->b;
	struct ipt_replace *r = (void *)m->buf;
	static const uint32_t lens[] = { 0, 1, 40, 95, 96 };
	static const uint32_t ncnt[] = { 0, 1, 3, 5, 1000, INT_MAX / 16,
					 INT_MAX / 16 + 1, 0xffffffff };
	static const uint32_t vh[] = { 0x00, 0x01, 0x02, 0x0c, 0x0f, 0x1e, 0x1f, 0x2e };
	static const char *const names[] = { "nosuch", "", "FILTER", "filte",
					     "filter\0junk" };
	static const int dsz[] = { -8, 8, 1, -1, 0 /* -entry_size */ };
	static const int dn[] = { -1, 1, -1000 };
	unsigned int i, h;
	uint32_t size;
	int d;

	RESET();
	size = r->size;
	for (i = 0; i < ARRAY_LEN(lens); i++) {
		RESET();
		abi_mut_case(m, lens[i], b->len, ABI_CTR_BUFFER, "len=%u", lens[i]);
	}
	RESET();
	abi_mut_case(m, REPL_HDR + size - 1, b->len, ABI_CTR_BUFFER, "len=96+size-1");
	RESET();
	abi_mut_case(m, REPL_HDR + size + 64, b->len + 64, ABI_CTR_BUFFER,
		     "len=96+size+64 (longer than needed)");
	RESET();
	abi_mut_case(m, b->len + 64, b->len, ABI_CTR_BUFFER,
		     "len beyond the caller's buffer (only 96+size is read)");
	RESET();
	r->size = size + 4096;
	abi_mut_case(m, REPL_HDR + r->size, b->len, ABI_CTR_BUFFER,
		     "size beyond the caller's buffer");

	for (i = 0; i < ARRAY_LEN(ncnt); i++) {
		RESET();
		r->num_counters = ncnt[i];
		RUN("num_counters=%u", ncnt[i]);
	}
	for (i = 0; i < ARRAY_LEN(dsz); i++) {
		d = dsz[i] ? dsz[i] : -(int)f->entry_size;
		RESET();
		r->size = size + d;
		abi_mut_case(m, REPL_HDR + r->size,
			     REPL_HDR + (r->size > size ? r->size : size),
			     ABI_CTR_BUFFER, "size%+d (len follows)", d);
	}
	RESET();
	r->size = 0;
	abi_mut_case(m, REPL_HDR, b->len, ABI_CTR_BUFFER, "size=0");
	for (i = 0; i < ARRAY_LEN(dn); i++) {
		RESET();
		r->num_entries += dn[i];
		RUN("num_entries%+d", dn[i]);
	}
	RESET();
	r->num_entries = 0;
	RUN("num_entries=0");
	for (i = 0; i < ARRAY_LEN(vh); i++) {
		RESET();
		r->valid_hooks = vh[i];
		RUN("valid_hooks=0x%x", vh[i]);
	}
	for (i = 0; i < ARRAY_LEN(names); i++) {
		RESET();
		memset(r->name, 0, sizeof(r->name));
		memcpy(r->name, names[i], i == 4 ? 11 : strlen(names[i]));
		RUN("table name '%s'", names[i]);
	}
	RESET();
	memset(r->name, 'f', sizeof(r->name));
	RUN("table name without NUL");
	RESET();
	memcpy(r->name, "filter\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0x", 32);
	RUN("table name with a byte in name[31]");

	for (h = NF_INET_LOCAL_IN; h <= NF_INET_LOCAL_OUT; h++) {
		static const int64_t dh[] = { 1, 4, 8, -8, 0x10000 };

		for (i = 0; i < ARRAY_LEN(dh); i++) {
			RESET();
			r->hook_entry[h] += dh[i];
			RUN("hook_entry[%u]%+lld", h, (long long)dh[i]);
			RESET();
			r->underflow[h] += dh[i];
			RUN("underflow[%u]%+lld", h, (long long)dh[i]);
		}
		RESET();
		r->hook_entry[h] = 0xffffffff;
		RUN("hook_entry[%u]=0xffffffff", h);
		RESET();
		r->underflow[h] = 0xffffffff;
		RUN("underflow[%u]=0xffffffff", h);
		RESET();
		r->underflow[h] = r->hook_entry[h];
		RUN("underflow[%u]=hook_entry", h);
		RESET();
		r->hook_entry[h] = r->underflow[h];
		RUN("hook_entry[%u]=underflow", h);
		RESET();
		r->hook_entry[h] = size -
			ABI_TAIL(f, ent(m->buf, b->off[b->nent - 1]))->next_offset;
		RUN("hook_entry[%u]=final ERROR entry", h);
	}
	RESET();
	r->hook_entry[NF_INET_LOCAL_IN] = r->hook_entry[NF_INET_FORWARD];
	r->underflow[NF_INET_LOCAL_IN] = r->underflow[NF_INET_FORWARD];
	RUN("INPUT hooks = FORWARD hooks");
	RESET();
	r->hook_entry[NF_INET_PRE_ROUTING] = 8;
	r->underflow[NF_INET_POST_ROUTING] = 12345;
	RUN("garbage in hooks outside valid_hooks");

	RESET();
	abi_mut_case(m, b->len, b->len, ABI_CTR_NULL, "counters pointer NULL");
	RESET();
	abi_mut_case(m, b->len, b->len, ABI_CTR_BAD, "counters pointer unmapped");
	RESET();
	RUN("unmodified");
	RESET();
	/* Submitted counters and comefrom must be ignored. */
	for (i = 0; i < (unsigned int)b->nent; i++) {
		char *e = ent(m->buf, b->off[i]);
		struct xt_counters *ctr = (void *)(e + f->off_counters);

		ABI_TAIL(f, e)->comefrom = 0xdeadbeef;
		ctr->pcnt = 1000 + i;
		ctr->bcnt = 0xffffffffffULL + i;
		ABI_TAIL(f, e)->nfcache = 0x5555;
	}
	RUN("junk in comefrom/counters/nfcache");
}

/* ---- Per-entry corruptions: offsets, flags, target, verdicts, matches ----- */

/* Corruptions of the entry's first match (at m->moff). */
static void corrupt_first_match(struct abi_mut *m, const char *name)
{
	static const uint16_t msz[] = { 0, 31, 32 };
	unsigned int j;

	for (j = 0; j < ARRAY_LEN(msz); j++) {
		RESET();
		M()->u.match_size = msz[j];
		RUN("match_size=%u", msz[j]);
	}
	RESET();
	M()->u.match_size += 8;
	RUN("match_size+8");
	RESET();
	M()->u.match_size += 4;
	RUN("match_size+4 (unaligned)");
	RESET();
	M()->u.user.revision = 1;
	RUN("match %s revision 1", name);
	RESET();
	M()->u.user.revision = 255;
	RUN("match %s revision 255", name);
	RESET();
	strcpy(M()->u.user.name, "nosuchmatch");
	RUN("match name nosuchmatch");
	RESET();
	memset(M()->u.user.name, 't', sizeof(M()->u.user.name));
	RUN("match name without NUL");
	if (!strcmp(name, "tcp")) {
		RESET();
		P(struct xt_tcp)->invflags |= XT_TCP_INV_MASK + 1;
		RUN("tcp invflags |= 0x%x", XT_TCP_INV_MASK + 1);
		RESET();
		P(struct xt_tcp)->invflags = XT_TCP_INV_MASK;
		RUN("tcp invflags = 0x%x", XT_TCP_INV_MASK);
		RESET();
		P(struct xt_tcp)->flg_mask = 0;
		P(struct xt_tcp)->flg_cmp = 0xff;
		RUN("tcp flags cmp outside mask");
		RESET();
		P(struct xt_tcp)->option = 255;
		RUN("tcp option 255");
	}
	if (!strcmp(name, "udp")) {
		RESET();
		P(struct xt_udp)->invflags |= XT_UDP_INV_MASK + 1;
		RUN("udp invflags |= 0x%x", XT_UDP_INV_MASK + 1);
		RESET();
		P(struct xt_udp)->invflags = XT_UDP_INV_MASK;
		RUN("udp invflags = 0x%x", XT_UDP_INV_MASK);
	}
	if (!strcmp(name, "icmp") || !strcmp(name, "icmp6")) {
		/* struct ipt_icmp and struct ip6t_icmp are laid out alike. */
		RESET();
		P(struct ipt_icmp)->invflags |= 0x02;
		RUN("%s invflags |= 0x02", name);
		RESET();
		P(struct ipt_icmp)->invflags = IPT_ICMP_INV;
		RUN("%s invflags = 0x01", name);
		RESET();
		P(struct ipt_icmp)->type = 0xff;
		P(struct ipt_icmp)->code[0] = 5;
		P(struct ipt_icmp)->code[1] = 2;
		RUN("%s any type, code range 5..2", name);
	}
	RESET();
	M()->data[0] = 0xff;
	M()->data[1] = 0xff;
	M()->data[2] = 0;
	M()->data[3] = 0;
	RUN("match payload reversed range/type");
}

static void corrupt_entry(struct abi_mut *m)
{
	const struct abi_family *f = m->f;
	struct abi_base *b = m->b;
	const int dnext[] = { 4, -8, 8, 1 };
	const uint16_t nexts[] = { 0, 8, f->entry_size,
				   f->entry_size + sizeof(struct xt_entry_target) - 1,
				   0xfff8 };
	const uint16_t toffs[] = { 0, 8, f->entry_size - 1, f->entry_size + 1 };
	struct xt_entry_target *t;
	int i = m->i, j;
	char name[XT_EXTENSION_MAXNAMELEN];

	abi_mut_prefix(m, "%s: entry %d @%u", b->name, i, b->off[i]);
	for (j = 0; j < (int)ARRAY_LEN(dnext); j++) {
		RESET();
		ABI_TAIL(f, E())->next_offset += dnext[j];
		RUN("next_offset%+d", dnext[j]);
	}
	for (j = 0; j < (int)ARRAY_LEN(nexts); j++) {
		RESET();
		ABI_TAIL(f, E())->next_offset = nexts[j];
		RUN("next_offset=%u", nexts[j]);
	}
	for (j = 0; j < (int)ARRAY_LEN(toffs); j++) {
		RESET();
		ABI_TAIL(f, E())->target_offset = toffs[j];
		RUN("target_offset=%u", toffs[j]);
	}
	RESET();
	ABI_TAIL(f, E())->target_offset = ABI_TAIL(f, E())->next_offset - 31;
	RUN("target_offset=next_offset-31");
	RESET();
	ABI_TAIL(f, E())->target_offset += 8;
	RUN("target_offset+8");
	f->entry_ip(m);
	RESET();
	t = abi_ent_target(f, E());
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
	RESET();
	if (abi_is_standard(f, E())) {
		/*
		 * Not -4 (-NF_QUEUE - 1): bpfilter refuses QUEUE with
		 * EOPNOTSUPP by design (README), a BPF program cannot queue.
		 */
		static const int verdicts[] = { -1, -2, -3, -5, -6, 0,
						INT_MIN, INT_MAX, 8 };
		int v = std_verdict(f, E());

		for (j = 0; j < (int)ARRAY_LEN(verdicts); j++) {
			RESET();
			*verdict_of(f, E()) = verdicts[j];
			RUN("verdict %d (was %d)", verdicts[j], v);
		}
		RESET();
		*verdict_of(f, E()) = b->off[i];
		RUN("verdict jumps to itself");
		RESET();
		*verdict_of(f, E()) = b->off[i] + 8;
		RUN("verdict jumps into the middle of itself");
		RESET();
		*verdict_of(f, E()) = ((struct ipt_replace *)b->blob)->size;
		RUN("verdict jumps to the end of the table");
		if (i + 1 < b->nent) {
			RESET();
			*verdict_of(f, E()) = b->off[i + 1];
			RUN("verdict jumps to the next entry");
			RESET();
			*verdict_of(f, E()) = b->off[i + 1] + f->entry_size;
			RUN("verdict jumps into the next entry");
		}
		RESET();
		*verdict_of(f, E()) = b->off[b->nent - 1];
		RUN("verdict jumps to the final ERROR entry");
		if (i > 0) {
			RESET();
			*verdict_of(f, E()) = b->off[0];
			RUN("verdict jumps to the first entry");
			RESET();
			*verdict_of(f, E()) = b->off[i - 1];
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
	/* The first match of the entry, if any: its name as in the base. */
	RESET();
	if (ABI_TAIL(f, E())->target_offset > f->entry_size) {
		m->moff = f->entry_size;
		snprintf(name, sizeof(name), "%s", M()->u.user.name);
		corrupt_first_match(m, name);
	}
}

/* ---- Targeted semantic corruptions: loops, policies, protocol requirements */

/* Entry index i's standard verdict, in buf. */
static int *mut_verdict(struct abi_mut *m, int i)
{
	return verdict_of(m->f, ent(m->buf, m->b->off[i]));
}

/* The first RETURN of chain_b (from entry index from on), or -1. */
static int find_return(struct abi_base *b, int from)
{
	int i;

	for (i = from; i < b->nent; i++) {
		void *e = ent(b->blob, b->off[i]);

		if (abi_is_standard(b->fam, e) && std_verdict(b->fam, e) == XT_RETURN)
			return i;
	}
	return -1;
}

static void corrupt_loops(struct abi_mut *m, int ha, int hb_)
{
	const struct abi_family *f = m->f;
	struct abi_base *b = m->b;
	uint32_t a_first = b->off[ha + 1], b_first = b->off[hb_ + 1];
	int ret = find_return(b, hb_ + 1);

	m->i = hb_ + 1;
	/* chain_a -> chain_b -> chain_a. */
	RESET();
	if (ret >= 0)
		*mut_verdict(m, ret) = a_first;
	RUN("loop chain_a -> chain_b -> chain_a");
	RESET();
	*mut_verdict(m, m->i) = b_first;
	RUN("chain_b's first rule jumps to itself");
	RESET();
	*mut_verdict(m, m->i) = b->off[0];
	RUN("chain_b jumps to INPUT's first rule (loop through INPUT)");
	RESET();
	*mut_verdict(m, m->i) = b->off[hb_];
	RUN("chain_b's first rule jumps to its own head (ERROR entry)");
	RESET();
	ABI_FLAGS(f, E()) |= f->flag_goto;
	*mut_verdict(m, m->i) = a_first;
	RUN("chain_b gotos chain_a (loop via goto)");
	/* chain_b loses its RETURN: it falls into the final ERROR. */
	RESET();
	if (ret >= 0)
		*mut_verdict(m, ret) = -NF_ACCEPT - 1;
	RUN("chain_b ends with ACCEPT instead of RETURN");
	RESET();
	if (ret >= 0)
		*mut_verdict(m, ret) = b->off[ret] +
			ABI_TAIL(f, ent(b->blob, b->off[ret]))->next_offset;
	RUN("chain_b's RETURN jumps to the next entry (runs off the end)");
	RESET();
	m->i = ha + 1;
	ABI_FLAGS(f, E()) |= f->flag_goto;
	RUN("goto flag on a RETURN rule");
}

static void corrupt_semantics(struct abi_mut *m)
{
	const struct abi_family *f = m->f;
	struct abi_base *b = m->b;
	static const int pv[] = { -1, -2, -4, -5, 0 };
	int ha, hb_, k, i;
	unsigned int j, mi, pj;
	char *e;

	ha = find_chain_head(b, "chain_a");
	hb_ = find_chain_head(b, "chain_b");
	if (ha >= 0 && hb_ >= 0)
		corrupt_loops(m, ha, hb_);
	/* Policies: must stay unconditional ACCEPT/DROP. */
	for (k = NF_INET_LOCAL_IN; k <= NF_INET_LOCAL_OUT; k++) {
		uint32_t u = ((struct ipt_replace *)b->blob)->underflow[k];

		for (j = 0; j < ARRAY_LEN(pv); j++) {
			RESET();
			*verdict_of(f, ent(m->buf, u)) = pv[j];
			RUN("policy of hook %d verdict %d", k, pv[j]);
		}
		RESET();
		e = ent(m->buf, u);
		ABI_PROTO(f, e) = IPPROTO_TCP;
		RUN("policy of hook %d with -p tcp", k);
		RESET();
		ABI_INVFLAGS(f, e) = IPT_INV_SRCIP;
		RUN("policy of hook %d with an inversion flag", k);
		RESET();
		e[f->off_smsk] = 0xff;
		RUN("policy of hook %d with a source mask", k);
		RESET();
		e[f->off_iniface] = 'x';
		RUN("policy of hook %d with an input interface", k);
		for (j = 0; j < f->npolicy_flags; j++) {
			RESET();
			ABI_FLAGS(f, e) = f->policy_flags[j].bit;
			RUN("policy of hook %d with %s", k, f->policy_flags[j].name);
		}
	}
	/* -m tcp/udp/icmp and -p. */
	for (mi = 0; mi < f->nproto_matches; mi++) {
		i = find_match(b, f->proto_matches[mi]);
		if (i < 0)
			continue;
		e = ent(m->buf, b->off[i]);
		for (pj = 0; pj < f->nprotos; pj++) {
			RESET();
			ABI_PROTO(f, e) = f->protos[pj];
			RUN("-m %s with -p %d", f->proto_matches[mi], f->protos[pj]);
		}
		RESET();
		ABI_INVFLAGS(f, e) |= IPT_INV_PROTO;
		RUN("-m %s with ! -p", f->proto_matches[mi]);
	}
}

/* ---- Corruptions of the matches beyond tcp/udp/icmp ---------------------- */

/* multiport, mark and comment: the same payloads in both families. */
static void corrupt_common_fields(struct abi_mut *m, const struct abi_match *nm)
{
	const struct abi_family *f = m->f;
	unsigned int j;

	if (!strcmp(nm->name, "multiport")) {
		/* Recorded: --dports 22,80:90,443: ports 22 80 90 443, pflags 0 1 0 0. */
		static const uint8_t flags[] = { XT_MULTIPORT_SOURCE,
						 XT_MULTIPORT_EITHER, 3, 0x80, 0xff };
		static const uint8_t counts[] = { 0, 1, 2, 3, 15, 16, 255 };
		static const uint8_t ok[] = { IPPROTO_UDP, IPPROTO_UDPLITE,
					      IPPROTO_SCTP, IPPROTO_DCCP };

		for (j = 0; j < ARRAY_LEN(flags); j++) {
			RESET();
			P(struct xt_multiport_v1)->flags = flags[j];
			RUN("flags %u", flags[j]);
		}
		for (j = 0; j < ARRAY_LEN(counts); j++) {
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
		ABI_PROTO(f, E()) = IPPROTO_ICMP;
		RUN("flags 3 and -p 1");
		for (j = 1; j <= 255; j += 254) {
			RESET();
			P(struct xt_multiport_v1)->invert = j;
			RUN("invert %u", j);
		}
		/* Every protocol checkentry allows, each direction. */
		for (j = 0; j < ARRAY_LEN(ok); j++) {
			RESET();
			ABI_PROTO(f, E()) = ok[j];
			P(struct xt_multiport_v1)->flags = j % 3;
			RUN("-p %u flags %u", ok[j], j % 3);
		}
	} else if (!strcmp(nm->name, "mark")) {
		RESET();
		P(struct xt_mark_mtinfo1)->invert = 0xff;
		RUN("invert 0xff");
		RESET();
		P(struct xt_mark_mtinfo1)->mark = 0xffffffff;
		P(struct xt_mark_mtinfo1)->mask = 0;
		RUN("mark outside the mask");
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
 * Every check xt_check_match() and each match's checkentry make, on a
 * recorded blob that holds them all: revision (ENOENT vs EPROTOTYPE),
 * name, payload size (with the table kept well formed), the protocol the
 * match needs, each payload field checkentry reads, padding bytes that
 * GET_ENTRIES must zero or copy back.
 */
static void corrupt_match(struct abi_mut *m, const struct abi_match *nm)
{
	const struct abi_family *f = m->f;
	static const uint8_t revs[] = { 0, 1, 2, 255 };
	static const int deltas[] = { 8, -8, 256 };
	uint16_t orig;
	unsigned int j;
	size_t len;

	m->i = abi_find_match_at(m->b, nm->name, 0, &m->moff);
	if (m->i < 0) {
		abi_case_begin(m->c, "%s: -m %s", m->b->name, nm->name);
		abi_case_fail(m->c, "the base holds no -m %s", nm->name);
		abi_case_end(m->c);
		return;
	}
	abi_mut_prefix(m, "%s: -m %s (entry %d)", m->b->name, nm->name, m->i);
	RESET();
	RUN("unmodified");
	/* Lookup: ENOENT for the family's own matches, EPROTOTYPE for UNSPEC ones. */
	for (j = 0; j < ARRAY_LEN(revs); j++) {
		if (revs[j] == nm->revision)
			continue;
		RESET();
		M()->u.user.revision = revs[j];
		RUN("revision %u (an %s match)", revs[j],
		    nm->unspec ? "NFPROTO_UNSPEC" : f->nfproto_name);
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
	for (j = 0; j < ARRAY_LEN(deltas); j++) {
		len = abi_mut_resize_match(m, deltas[j]);
		if (!len)
			continue;
		RUN_LEN(len, "payload %u%+d bytes", nm->size, deltas[j]);
	}
	len = abi_mut_resize_match(m, 8);
	if (len) {
		M()->u.user.revision = nm->revision + 1;
		RUN_LEN(len, "payload +8 and revision %u", nm->revision + 1);
	}
	/* GET_ENTRIES copies the user's fields back and zeroes the rest. */
	if (nm->fields_end < nm->size) {
		RESET();
		memset(M()->data + nm->fields_end, 0xa5, nm->size - nm->fields_end);
		RUN("junk in payload bytes %u..%u (matchsize %u)", nm->fields_end,
		    nm->size - 1, nm->ksize);
	}
	/* The protocol: -p and ! -p. */
	if (nm->proto) {
		orig = ABI_PROTO(f, ent(m->b->blob, m->b->off[m->i]));
		for (j = 0; j < f->nmatch_protos; j++) {
			if (f->match_protos[j] == orig)
				continue;
			RESET();
			ABI_PROTO(f, E()) = f->match_protos[j];
			RUN("with -p %u", f->match_protos[j]);
		}
		RESET();
		ABI_INVFLAGS(f, E()) |= IPT_INV_PROTO;
		RUN("with ! -p %u", orig);
		RESET();
		ABI_INVFLAGS(f, E()) |= IPT_INV_PROTO;
		ABI_PROTO(f, E()) = 0;
		RUN("with ! -p 0");
		len = abi_mut_resize_match(m, 8);
		if (len) {
			ABI_PROTO(f, E()) = 0;
			RUN_LEN(len, "payload +8 and -p 0");
		}
	} else {
		RESET();
		ABI_PROTO(f, E()) = IPPROTO_AH;
		RUN("with -p 51");
		RESET();
		ABI_PROTO(f, E()) = IPPROTO_TCP;
		ABI_INVFLAGS(f, E()) |= IPT_INV_PROTO;
		RUN("with ! -p 6");
	}
	/* Each match's own payload fields. */
	corrupt_common_fields(m, nm);
	if (f->match_fields)
		f->match_fields(m, nm);
}

/*
 * The matches of one entry are looked up and checked one after the other,
 * each completely, before the target: the first bad one decides. The
 * matches base's FORWARD chain starts with
 * -p udp -m comment -m multiport ! --ports 7,8:9 -m mark ! --mark 3.
 */
static void corrupt_several(struct abi_mut *m)
{
	static const char *const names[] = { "comment", "multiport", "mark" };
	static const int second[] = { 1, 1, 1 };
	uint32_t o[3];

	if (!abi_mut_find(m, 3, names, second, o))
		return;
	RESET();
	M_AT(o[1])->data[0] = 3;
	M_AT(o[2])->u.user.revision = 0;
	RUN("2nd match multiport flags 3, 3rd match mark revision 0");
	RESET();
	M_AT(o[1])->u.user.revision = 0;
	M()->u.user.revision = 1;
	RUN("1st match comment revision 1, 2nd match multiport revision 0");
	RESET();
	M_AT(o[1])->u.user.revision = 0;
	strcpy(abi_ent_target(m->f, E())->u.user.name, "NOSUCHTARGET");
	RUN("2nd match multiport revision 0 and target NOSUCHTARGET");
	RESET();
	ABI_PROTO(m->f, E()) = IPPROTO_ICMP;
	M_AT(o[2])->u.user.revision = 0;
	RUN("-p 1 (multiport refuses it) and 3rd match mark revision 0");
	RESET();
	M_AT(o[2])->u.match_size = 0;
	RUN("3rd match mark match_size 0");
}

/* ---- The tests ------------------------------------------------------------ */

/*
 * bpfilter.ko passes the kernel's CONFIG_HZ to its helper (limit's credits
 * count jiffies): do the same for the helpers we start, unless it is set.
 */
static void export_hz(void)
{
	char line[256], path[300];
	struct utsname u;
	gzFile z;

	if (getenv("BPFILTER_HZ"))
		return;
	z = gzopen("/proc/config.gz", "r");
	if (!z && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		z = gzopen(path, "r");
	}
	if (!z)
		return;
	while (gzgets(z, line, sizeof(line))) {
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			line[strcspn(line, "\n")] = '\0';
			setenv("BPFILTER_HZ", line + 10, 0);
			break;
		}
	}
	gzclose(z);
}

int abi_ctx_setup(struct abi_ctx *c, const struct abi_family *f)
{
	const char *logp = getenv("ABI_MISMATCH_LOG");
	struct rlimit rl;
	int err;

	memset(c, 0, sizeof(*c));
	c->fam = f;
	if (!abi_stats)
		return -ENOMEM;
	/* One descriptor per kept namespace: raise the soft limit if we can. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur > ABI_MAX_HELPER_NS + 256)
			rl.rlim_cur = ABI_MAX_HELPER_NS + 256;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = mbox_driver_helper_path(c->helper, sizeof(c->helper));
	if (err) {
		printf("# helper binary not found (%s): build it with `make helper`\n",
		       strerror(-err));
		return err;
	}
	export_hz();
	c->opts.helper = c->helper;
	c->verbose = getenv("ABI_VERBOSE") != NULL;
	err = mbox_driver_start(&c->drv, &c->opts);
	if (err)
		return err;
	c->log = fopen(logp ? logp : "/tmp/abi-mismatches.log", "a");
	return 0;
}

int abi_ctx_teardown(struct abi_ctx *c)
{
	int ws = 0, i;

	mbox_driver_stop(&c->drv, &ws);
	for (i = 0; i < c->nns; i++)
		close(c->ns_fds[i]);
	c->nns = 0;
	if (c->log)
		fclose(c->log);
	c->log = NULL;
	return ws;
}

/* Run one corruption pass on the base recorded by scenario scen. */
static int corrupt_base(struct abi_ctx *c, const char *scen,
			void (*pass)(struct abi_mut *m))
{
	struct abi_base b;
	struct abi_mut m;
	int err;

	if (abi_stats->recorded != 1)
		return -ENOENT;
	err = abi_load_base(&b, c->fam, scen);
	if (err)
		return err;
	err = mut_init(&m, c, &b);
	if (!err)
		pass(&m);
	free(m.buf);
	free(b.blob);
	return err;
}

int abi_corrupt_header(struct abi_ctx *c, const char *scen)
{
	return corrupt_base(c, scen, corrupt_header);
}

static void corrupt_entries(struct abi_mut *m)
{
	for (m->i = 0; m->i < m->b->nent; m->i++)
		corrupt_entry(m);
}

int abi_corrupt_entries(struct abi_ctx *c, const char *scen)
{
	return corrupt_base(c, scen, corrupt_entries);
}

int abi_corrupt_semantics(struct abi_ctx *c, const char *scen)
{
	return corrupt_base(c, scen, corrupt_semantics);
}

static void corrupt_matches(struct abi_mut *m)
{
	unsigned int mi;

	for (mi = 0; mi < m->f->nmatches; mi++)
		corrupt_match(m, &m->f->matches[mi]);
	corrupt_several(m);
	if (m->f->several)
		m->f->several(m);
}

int abi_corrupt_matches(struct abi_ctx *c)
{
	return corrupt_base(c, ABI_MATCHES_BASE, corrupt_matches);
}

/* Hand-made gets on the initial table. */
int abi_gets(struct abi_ctx *c)
{
	const struct abi_family *f = c->fam;
	static const uint32_t info_lens[] = { 0, 1, 83, 85, 100 };
	static const char *const tnames[] = { "filter", "nosuch", "", "FILTER",
					      "filterfilterfilterfilterfilterfi" };
	static const uint32_t rlens[] = { 0, 29, 31, 64 };
	const int sz = (int)f->init_size;
	const struct { int dlen; int dsize; const char *name; } ent[] = {
		{ 0, 0, "filter" }, { 1, 0, "filter" }, { -1, 0, "filter" },
		{ 8, 8, "filter" }, { -8, -8, "filter" },
		{ -sz, -sz, "filter" }, { 0, 0, "nosuch" },
		{ 0, 0, "" }, { 64, 64, "filter" }, { 8, 8, "nosuch" },
		{ -sz - 1, 0, "filter" }, { -sz - 40, 0, "filter" },
	};
	unsigned char big[128];
	struct ipt_get_entries *ge = NULL;
	struct xt_get_revision rev;
	struct ipt_getinfo info;
	struct abi_pair p;
	unsigned int i, nrev = (f->nmrev + f->ntrev) * 2;
	int err;

	err = abi_pair_open(c, &p);
	if (err)
		return err;
	for (i = 0; i < ARRAY_LEN(tnames); i++) {
		memset(&info, 0, sizeof(info));
		memcpy(info.name, tnames[i], strlen(tnames[i]));
		abi_case_begin(c, "GET_INFO name '%s'", tnames[i]);
		abi_get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x33);
		abi_case_end(c);
	}
	memset(&info, 0, sizeof(info));
	strcpy(info.name, "filter");
	for (i = 0; i < ARRAY_LEN(info_lens); i++) {
		memset(big, 0, sizeof(big));
		memcpy(big, &info, sizeof(info));
		abi_case_begin(c, "GET_INFO len %u", info_lens[i]);
		abi_get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, big, info_lens[i], 0x33);
		abi_case_end(c);
	}
	memcpy(info.name, "filter\0garbage", 14);
	abi_case_begin(c, "GET_INFO name with garbage after NUL");
	abi_get_both(c, &p, "GET_INFO", IPT_SO_GET_INFO, &info, sizeof(info), 0x33);
	abi_case_end(c);

	/* GET_ENTRIES: size and length rules, EAGAIN. */
	ge = calloc(1, GETE_HDR + sz + 64);
	if (!ge) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ARRAY_LEN(ent); i++) {
		uint32_t len = GETE_HDR + sz + ent[i].dlen;

		memset(ge, 0, GETE_HDR + sz + 64);
		strcpy(ge->name, ent[i].name);
		ge->size = sz + ent[i].dsize;
		abi_case_begin(c, "GET_ENTRIES len 40+%d%+d size %d%+d name '%s'",
			       sz, ent[i].dlen, sz, ent[i].dsize, ent[i].name);
		abi_get_both(c, &p, "GET_ENTRIES", IPT_SO_GET_ENTRIES, ge, len, 0x77);
		abi_case_end(c);
	}
	memset(ge, 0, GETE_HDR);
	memset(ge->name, 'f', sizeof(ge->name));
	ge->size = sz;
	abi_case_begin(c, "GET_ENTRIES name without NUL");
	abi_get_both(c, &p, "GET_ENTRIES", IPT_SO_GET_ENTRIES, ge, GETE_HDR + sz, 0x77);
	abi_case_end(c);

	/* Each query twice: the second with garbage after the name's NUL. */
	for (i = 0; i < nrev; i++) {
		bool tgt = i >= f->nmrev * 2;
		unsigned int k = tgt ? (i - f->nmrev * 2) / 2 : i / 2;
		const char *name = tgt ? f->trev[k].name : f->mrev[k].name;
		int r = tgt ? f->trev[k].rev : f->mrev[k].rev;
		int cmd = tgt ? IPT_SO_GET_REVISION_TARGET : IPT_SO_GET_REVISION_MATCH;

		memset(&rev, 0, sizeof(rev));
		memcpy(rev.name, name, strnlen(name, sizeof(rev.name)));
		rev.revision = r;
		if ((i & 1) && strlen(name) + 1 < sizeof(rev.name))
			memset(rev.name + strlen(name) + 1, 'z',
			       sizeof(rev.name) - strlen(name) - 1);
		abi_case_begin(c, "%s '%s' rev %d%s", cmd_name(false, cmd), name, r,
			       i & 1 ? " (garbage after NUL)" : "");
		abi_get_both(c, &p, cmd_name(false, cmd), cmd, &rev, sizeof(rev), 0x11);
		abi_case_end(c);
	}
	memset(big, 0, sizeof(big));
	strcpy((char *)big, "tcp");
	for (i = 0; i < ARRAY_LEN(rlens) * 2; i++) {
		int cmd = i & 1 ? IPT_SO_GET_REVISION_TARGET : IPT_SO_GET_REVISION_MATCH;

		abi_case_begin(c, "%s len %u", cmd_name(false, cmd), rlens[i / 2]);
		abi_get_both(c, &p, "revision", cmd, big, rlens[i / 2], 0x11);
		abi_case_end(c);
	}
out:
	free(ge);
	abi_pair_close(c, &p);
	return err;
}

/* ADD_COUNTERS rules, then a REPLACE must hand back exactly those counters. */
int abi_counters(struct abi_ctx *c)
{
	static const char *const what[] = {
		"valid", "num_counters-1", "num_counters+1", "len 40",
		"len 39", "len one short", "name nosuch", "name without NUL",
		"len beyond buffer",
	};
	struct xt_counters_info *ci = NULL;
	struct ipt_replace *r;
	struct abi_pair p;
	unsigned int n, i, k;
	struct abi_base b = { 0 };
	size_t clen;
	int err = 0;

	ABI_REQUIRE(abi_stats->recorded == 1);
	err = abi_load_base(&b, c->fam, abi_base_names[0]);
	ABI_REQUIRE(!err);
	r = (void *)b.blob;
	n = r->num_entries;
	clen = sizeof(*ci) + (n + 2) * sizeof(struct xt_counters);
	ci = calloc(1, clen);
	ABI_REQUIRE(ci);

	for (k = 0; k < ARRAY_LEN(what); k++) {
		uint32_t len, cnt = n;
		size_t buflen;

		err = abi_pair_open(c, &p);
		ABI_REQUIRE(!err);
		abi_case_begin(c, "counters setup: %s replace", b.name);
		abi_replace_both(c, &p, b.blob, b.len, b.len, ABI_CTR_BUFFER);
		abi_case_end(c);

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
		abi_case_begin(c, "ADD_COUNTERS %s", what[k]);
		abi_counters_both(c, &p, ci, len, buflen);
		abi_case_end(c);

		/* Twice: counters add up. */
		if (k == 0) {
			abi_case_begin(c, "ADD_COUNTERS valid, second time");
			abi_counters_both(c, &p, ci, len, buflen);
			abi_case_end(c);
		}
		/* The next REPLACE returns the old counters; then EAGAIN. */
		r->num_counters = n;
		abi_case_begin(c, "REPLACE after ADD_COUNTERS %s (old counters)", what[k]);
		abi_replace_both(c, &p, b.blob, b.len, b.len, ABI_CTR_BUFFER);
		abi_case_end(c);
		r->num_counters = 4;
		abi_case_begin(c, "REPLACE with stale num_counters=4 after %s", what[k]);
		abi_replace_both(c, &p, b.blob, b.len, b.len, ABI_CTR_BUFFER);
		abi_case_end(c);
		abi_pair_close(c, &p);
	}
out:
	free(ci);
	free(b.blob);
	return err;
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

/* The kernel's own filter table of the family in this namespace (malloc'd). */
static struct ipt_get_entries *real_table(const struct abi_family *f)
{
	struct ipt_getinfo gi = { .name = "filter" };
	struct ipt_get_entries *ge = NULL;
	int level = ipt_sockopt_level(f->nfproto);
	socklen_t l = sizeof(gi);
	int s;

	s = socket(ipt_sockopt_af(f->nfproto), SOCK_RAW, IPPROTO_RAW);
	if (s < 0)
		return NULL;
	if (getsockopt(s, level, IPT_SO_GET_INFO, &gi, &l))
		goto out;
	ge = calloc(1, GETE_HDR + gi.size);
	if (!ge)
		goto out;
	strcpy(ge->name, "filter");
	ge->size = gi.size;
	l = GETE_HDR + gi.size;
	if (getsockopt(s, level, IPT_SO_GET_ENTRIES, ge, &l)) {
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

/* Tell the helper behind hostd that the namespace of ns_fd is gone. */
static int netns_exit(const char *sock, int ns_fd)
{
	struct stat st;
	struct mbox_request req = {
		.is_set = BPFILTER_MBOX_CONTROL,
		.cmd = BPFILTER_CTL_NETNS_EXIT,
		.pid = getpid(),
	};
	int status = -1, err;

	req.netns_ino = fstat(ns_fd, &st) ? 0 : (uint32_t)st.st_ino;
	err = hostd_request(sock, &req, &status);
	return err ? err : status;
}

/*
 * Stock iptables end to end: every scenario runs once against the real
 * kernel and once through the shim and bpfilter-hostd against the helper,
 * each in a fresh namespace; every command's exit status and output and the
 * final save -c / -L -v -x must be identical.
 */
int abi_iptables_shim(struct abi_ctx *c)
{
	const struct abi_family *f = c->fam;
	char dumps[2][128];
	char shim[PATH_MAX], sock[108];
	size_t outlen = 1 << 20;
	char *ko = malloc(outlen), *ho = malloc(outlen);
	struct ipt_get_entries *before = NULL, *after;
	unsigned int i, j, side, ncmd;
	struct hostd h = { 0 };
	int ks, hs, korig = -1, fd, err = 0;

	snprintf(dumps[0], sizeof(dumps[0]), "%s-save -c", f->ipt);
	snprintf(dumps[1], sizeof(dumps[1]), "%s -w 60 -L -v -n -x --line-numbers", f->ipt);
	ABI_REQUIRE(ko && ho);
	ABI_REQUIRE(!hostd_shim_path(shim, sizeof(shim)));
	snprintf(sock, sizeof(sock), "/tmp/bpfilter-abi-hostd-%d.sock", getpid());
	ABI_REQUIRE(!hostd_start(&h, sock, &c->opts));

	for (i = 0; i < f->nscenarios; i++) {
		const struct abi_scenario *sc = &f->scenarios[i];

		for (ncmd = 0; ncmd < ARRAY_LEN(sc->cmds) && sc->cmds[ncmd]; ncmd++)
			;
		/* Keep a way back so that both sides start from the same place. */
		korig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		ABI_REQUIRE(korig >= 0);
		/* Each side's namespace persists for the whole scenario. */
		for (side = 0; side < 2; side++) {
			ABI_REQUIRE(!unshare(CLONE_NEWNET));
			fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
			ABI_REQUIRE(fd >= 0);
			ABI_REQUIRE(c->nns < ABI_MAX_HELPER_NS);
			c->ns_fds[c->nns++] = fd;
		}
		/* ns_fds[nns-2] is the kernel's side, [nns-1] the helper's. */
		ABI_REQUIRE(!setns(c->ns_fds[c->nns - 1], CLONE_NEWNET));
		before = real_table(f);
		for (j = 0; j < ncmd + ARRAY_LEN(dumps); j++) {
			const char *cmd = j < ncmd ? sc->cmds[j] : dumps[j - ncmd];

			abi_case_begin(c, "%s %s #%u: %s", f->tool, sc->name, j, cmd);
			ABI_REQUIRE(!setns(c->ns_fds[c->nns - 2], CLONE_NEWNET));
			ABI_REQUIRE(!run_capture(cmd, shim, NULL, ko, outlen, &ks));
			ABI_REQUIRE(!setns(c->ns_fds[c->nns - 1], CLONE_NEWNET));
			ABI_REQUIRE(!run_capture(cmd, shim, sock, ho, outlen, &hs));
			/*
			 * The helper's side must not touch the real tables: if
			 * the shim were not loaded, both sides would be the
			 * kernel and agree trivially.
			 */
			after = real_table(f);
			if (!before || !after)
				abi_case_fail(c, "cannot read the real table");
			else if (before->size != after->size ||
				 memcmp(before, after, GETE_HDR + before->size))
				abi_case_fail(c, "the real table changed (%u -> %u bytes): the shim did not intercept",
					      before->size, after->size);
			free(after);
			strip_dates(ko);
			strip_dates(ho);
			c->kst = ks ? -ks : 0;
			if (ks != hs)
				abi_case_fail(c, "exit status: kernel %d helper %d (helper output: %.200s)",
					      ks, hs, ho);
			else if (strcmp(ko, ho))
				abi_case_fail(c, "output differs at byte %ld:\n--- kernel:\n%.600s\n--- helper:\n%.600s",
					      abi_first_diff(ko, ho, strlen(ko) + 1), ko, ho);
			abi_case_end(c);
		}
		free(before);
		before = NULL;
		/* The helper's namespace dies with the scenario. */
		ks = netns_exit(sock, c->ns_fds[c->nns - 1]);
		if (ks) {
			printf("# NETNS_EXIT after %s: %d\n", sc->name, ks);
			err = -EIO;
		}
		ABI_REQUIRE(!setns(korig, CLONE_NEWNET));
		close(korig);
		korig = -1;
	}
out:
	if (korig >= 0) {
		setns(korig, CLONE_NEWNET);
		close(korig);
	}
	free(before);
	hostd_stop(&h);
	free(ko);
	free(ho);
	return err;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int abi_summary(const struct abi_family *f)
{
	printf("# %s mismatch details: see MISMATCH lines above\n", f->tag);
	printf("%s: %d cases, %d mismatches\n", f->tag, abi_stats->cases,
	       abi_stats->mismatches);
	fflush(stdout);
	if (abi_stats->recdir[0] && !getenv("ABI_KEEP_RECORDS"))
		nftw(abi_stats->recdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (abi_stats->mismatches)
		return -EINVAL;
	return abi_stats->cases >= f->min_cases ? 0 : -ENODATA;
}
