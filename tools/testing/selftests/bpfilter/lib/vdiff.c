// SPDX-License-Identifier: GPL-2.0
/* The differential verdict tests' shared pieces (vdiff.h says which). */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "mbox_driver.h"
#include "vdiff.h"

const char *const vd_outcome_name[VD_NOUTCOMES] = {
	"dropped", "sent (OUTPUT accepted)", "delivered locally", "forwarded", "send error",
};

const char *const vd_path_name[3] = {
	"from T's raw socket (OUTPUT)", "from S over vd0p (arrives on vd0)",
	"from S over vd1p (arrives on vd1)",
};

void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		b->cap = b->cap ? b->cap * 2 + n : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
}

uint32_t vd_csum_add(uint32_t sum, const unsigned char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

uint16_t vd_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

int vd_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int vd_socket_in(const char *ns, int domain, int type, int proto, const char *dev)
{
	char path[128];
	int self, fd, sk = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (self >= 0 && fd >= 0 && !setns(fd, CLONE_NEWNET)) {
		sk = socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
		if (sk >= 0 && dev &&
		    setsockopt(sk, SOL_SOCKET, SO_BINDTODEVICE, dev, strlen(dev) + 1)) {
			close(sk);
			sk = -1;
		}
		if (setns(self, CLONE_NEWNET))
			abort();
	}
	if (fd >= 0)
		close(fd);
	if (self >= 0)
		close(self);
	return sk;
}

long vd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int vd_hostd_start(struct vd_hostd *h, const char *tag, const char *log, bool ct_held)
{
	char backend[64], *argv[3] = { NULL, backend, NULL };
	struct mbox_driver_opts opts = { 0 };
	int err;

	h->log_fd = -1;
	err = hostd_shim_path(h->shim, sizeof(h->shim));
	if (!err && access(h->shim, R_OK))
		err = -ENOENT;
	if (!err)
		err = mbox_driver_helper_path(h->helper, sizeof(h->helper));
	if (err)
		return err;
	argv[0] = h->helper;
	/* VERDICT_DIFF_BACKEND=store checks the checker: nothing enforced, mismatches. */
	snprintf(backend, sizeof(backend), "--backend=%s",
		 getenv("VERDICT_DIFF_BACKEND") ?: "bpf");
	opts.helper = h->helper;
	opts.argv = argv;
	opts.ct_held = ct_held;
	/* The helper's log (one line per replace) goes to a file, not the TAP output. */
	h->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (h->log_fd >= 0)
		opts.stderr_fd = h->log_fd;
	snprintf(h->sock, sizeof(h->sock), "/tmp/%s%d.sock", tag, getpid());
	return hostd_start(&h->hostd, h->sock, &opts);
}

void vd_hostd_stop(struct vd_hostd *h)
{
	if (h->hostd.pid)
		hostd_stop(&h->hostd);
	h->hostd.pid = 0;
	if (h->log_fd >= 0)
		close(h->log_fd);
	h->log_fd = -1;
}

int vd_run_in(const char *ns, const struct vd_hostd *h, const char *cmd, struct buf *out)
{
	char full[PATH_MAX * 3];
	char line[4096];
	FILE *f;
	int st;

	snprintf(full, sizeof(full), "ip netns exec %s env %s%s %s%s %s 2>&1", ns,
		 h ? "LD_PRELOAD=" : "", h ? h->shim : "",
		 h ? HOSTD_ENV_SOCK "=" : "", h ? h->sock : "", cmd);
	f = popen(full, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (out && line[0] != '#')
			bprintf(out, "%s", line);
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int vd_restore(const char *ns, const struct vd_hostd *h, const char *restore, const char *file,
	       const struct buf *rules, struct buf *out)
{
	char cmd[256];
	FILE *f;

	f = fopen(file, "w");
	if (!f)
		return -errno;
	if (fwrite(rules->p, 1, rules->len, f) != rules->len) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -w < %s", restore, file);
	return vd_run_in(ns, h, cmd, out);
}

void vd_report_exits(FILE *f, unsigned int round, const char *what, const int rc[2],
		     const struct buf out[2])
{
	int s;

	vd_report(f, "# ruleset %u: %s exits %d on the kernel's tables, %d via bpfilter\n", round,
		  what, rc[0], rc[1]);
	for (s = 0; s < 2; s++)
		if (out[s].len)
			vd_report(f, "#   %s: %.*s", s ? "bpfilter" : "kernel", (int)out[s].len,
				  out[s].p);
}

bool vd_restore_both(FILE *f, const char *const ns[2], const struct vd_hostd *h,
		     const char *restore, const char *file, const struct buf *rules,
		     unsigned int round)
{
	struct buf out[2] = { { 0 }, { 0 } };
	int rc[2], s;

	for (s = 0; s < 2; s++)
		rc[s] = vd_restore(ns[s], s ? h : NULL, restore, file, rules, &out[s]);
	if (rc[0] || rc[1])
		vd_report_exits(f, round, restore, rc, out);
	free(out[0].p);
	free(out[1].p);
	return !rc[0] && !rc[1];
}

void vd_save_both(const char *const ns[2], const struct vd_hostd *h, const char *save_cmd,
		  struct buf save[2])
{
	int s;

	for (s = 0; s < 2; s++) {
		vd_run_in(ns[s], s ? h : NULL, save_cmd, &save[s]);
		vd_strip_comments(&save[s]);
	}
}

void vd_strip_comments(struct buf *b)
{
	char *line = b->p, *w = b->p, *nl;

	if (!b->p)
		return;
	b->p[b->len] = '\0';
	while (*line) {
		nl = strchrnul(line, '\n');
		if (*nl)
			nl++;
		if (line[0] != '#') {
			memmove(w, line, nl - line);
			w += nl - line;
		}
		line = nl;
	}
	b->len = w - b->p;
	b->p[b->len] = '\0';
}

bool vd_saves_equal(const struct buf save[2])
{
	return save[0].p && save[1].p && strstr(save[0].p, "\nCOMMIT") &&
	       save[0].len == save[1].len && !memcmp(save[0].p, save[1].p, save[0].len);
}

unsigned int vd_count_hit_with(const struct buf *save, const char *s)
{
	const char *l, *end;
	unsigned int n = 0;

	for (l = save->p; l && *l; l = end + !!*end) {
		end = strchrnul(l, '\n');
		if (l[0] == '[' && strncmp(l, "[0:0] -A", 8) && memmem(l, end - l, s, strlen(s)))
			n++;
	}
	return n;
}

void vd_side_init(struct vd_side *sd)
{
	unsigned int k;

	memset(sd, 0, sizeof(*sd));
	sd->out_sk = sd->in_sk[0] = sd->in_sk[1] = sd->obs_fwd = sd->l2_sk = -1;
	for (k = 0; k < VD_MAX_OBS; k++)
		sd->obs_local[k] = -1;
}

int vd_side_netns(struct vd_side *sd, const char *prefix, int i)
{
	snprintf(sd->t, sizeof(sd->t), "%sT%c%d", prefix, i ? 'H' : 'K', getpid());
	snprintf(sd->s, sizeof(sd->s), "%sS%c%d", prefix, i ? 'H' : 'K', getpid());
	return vd_sh("ip netns add %s && ip netns add %s", sd->t, sd->s) ? -EIO : 0;
}

int vd_side_links(struct vd_side *sd)
{
	const char *t = sd->t, *s = sd->s;

	if (vd_sh("ip -n %s link add vd0 address 02:00:00:00:00:10 type veth peer name vd0p "
		  "address 02:00:00:00:00:10 netns %s && "
		  "ip -n %s link add vd1 address 02:00:00:00:00:11 type veth peer name vd1p "
		  "address 02:00:00:00:00:11 netns %s", t, s, t, s) ||
	    vd_sh("ip -n %s link set lo up && ip -n %s link set vd0 up arp off && "
		  "ip -n %s link set vd1 up arp off && ip -n %s link set lo up && "
		  "ip -n %s link set vd0p up arp off && ip -n %s link set vd1p up arp off",
		  t, t, t, s, s, s))
		return -EIO;
	return 0;
}

int vd_side_sockets(struct vd_side *sd, int family, uint16_t eth_p, const uint8_t *protos,
		    unsigned int n)
{
	unsigned int k;

	if (n > VD_MAX_OBS)
		return -E2BIG;
	sd->out_sk = vd_socket_in(sd->t, family, SOCK_RAW, IPPROTO_RAW, NULL);
	sd->in_sk[0] = vd_socket_in(sd->s, family, SOCK_RAW, IPPROTO_RAW, "vd0p");
	sd->in_sk[1] = vd_socket_in(sd->s, family, SOCK_RAW, IPPROTO_RAW, "vd1p");
	sd->obs_fwd = vd_socket_in(sd->s, AF_PACKET, SOCK_DGRAM, htons(eth_p), NULL);
	if (sd->out_sk < 0 || sd->in_sk[0] < 0 || sd->in_sk[1] < 0 || sd->obs_fwd < 0)
		return -errno;
	for (sd->nobs = 0; sd->nobs < n; sd->nobs++) {
		k = sd->nobs;
		sd->obs_local[k] = vd_socket_in(sd->t, family, SOCK_RAW, protos[k], NULL);
		if (sd->obs_local[k] < 0)
			return -errno;
	}
	return 0;
}

void vd_side_close(struct vd_side *sd)
{
	int *fds[] = { &sd->out_sk, &sd->in_sk[0], &sd->in_sk[1], &sd->obs_fwd, &sd->l2_sk };
	unsigned int k;

	for (k = 0; k < sizeof(fds) / sizeof(fds[0]); k++)
		if (*fds[k] >= 0)
			close(*fds[k]);
	for (k = 0; k < VD_MAX_OBS; k++)
		if (sd->obs_local[k] >= 0)
			close(sd->obs_local[k]);
	if (sd->t[0])
		vd_sh("ip netns del %s 2>/dev/null", sd->t);
	if (sd->s[0])
		vd_sh("ip netns del %s 2>/dev/null", sd->s);
	vd_side_init(sd);
}

void vd_prepare(struct vd_hostd *hd, struct vd_side side[2])
{
	memset(hd, 0, sizeof(*hd));
	hd->log_fd = -1;
	vd_side_init(&side[0]);
	vd_side_init(&side[1]);
}

void vd_close_all(struct vd_hostd *hd, struct vd_side side[2], const char *tmp, FILE *report,
		 struct buf *rules)
{
	vd_hostd_stop(hd);
	vd_side_close(&side[0]);
	vd_side_close(&side[1]);
	if (tmp[0])
		unlink(tmp);
	if (report)
		fclose(report);
	free(rules->p);
	memset(rules, 0, sizeof(*rules));
}

enum outcome vd_wait_observed(struct vd_side *sd, vd_observe_fn *observe, const void *pkt,
			      int ms)
{
	long end = vd_now_ms() + ms;
	struct pollfd pfd[VD_MAX_OBS + 1];
	enum outcome o;
	unsigned int k;

	for (k = 0; k < sd->nobs; k++)
		pfd[k] = (struct pollfd){ .fd = sd->obs_local[k], .events = POLLIN };
	pfd[sd->nobs] = (struct pollfd){ .fd = sd->obs_fwd, .events = POLLIN };
	for (;;) {
		o = observe(sd, pkt);
		if (o != OUT_DROPPED || vd_now_ms() >= end)
			return o;
		poll(pfd, sd->nobs + 1, end - vd_now_ms() > 0 ? end - vd_now_ms() : 0);
	}
}

void vd_send_both(struct vd_side side[2], enum path path, vd_send_fn *send,
		  vd_observe_fn *observe, const void *pkt, void *ctx, enum outcome o[2])
{
	int s;

	for (s = 0; s < 2; s++) {
		observe(&side[s], NULL);	/* leftovers of earlier cases */
		if (send(&side[s], pkt, ctx) < 0) {
			/* Only LOCAL_OUT's NF_DROP turns into EPERM. */
			o[s] = errno == EPERM && path == PATH_OUTPUT ? OUT_DROPPED : OUT_ERROR;
			continue;
		}
		/*
		 * veth hands the frame to the peer's backlog, which is processed
		 * when sendto() re-enables bottom halves: the answer is almost
		 * always there already; the wait only covers a busy softirq.
		 */
		o[s] = path == PATH_OUTPUT ? OUT_SENT : vd_wait_observed(&side[s], observe, pkt, 5);
	}
	/* Before calling a drop a mismatch, give a late packet more time. */
	for (s = 0; s < 2; s++)
		if (o[s] == OUT_DROPPED && o[!s] != OUT_DROPPED && path != PATH_OUTPUT)
			o[s] = vd_wait_observed(&side[s], observe, pkt, 300);
}

void vd_vreport(FILE *f, const char *fmt, va_list ap)
{
	va_list aq;

	va_copy(aq, ap);
	vprintf(fmt, ap);
	if (f) {
		vfprintf(f, fmt, aq);
		fflush(f);
	}
	va_end(aq);
}

void vd_report(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vd_vreport(f, fmt, ap);
	va_end(ap);
}

void vd_print_ruleset(FILE *f, const struct buf *rules, const char *cmd, size_t big,
		      const char *keep)
{
	char *line, *save = NULL, *copy;
	char chain[32], policy[16];
	FILE *k;

	if (rules->len > big) {
		/* Too long to read as commands: keep it as a restore file. */
		k = fopen(keep, "w");
		if (k) {
			fwrite(rules->p, 1, rules->len, k);
			fclose(k);
		}
		vd_report(f, "#   %s-restore < %s  (%zu bytes, kept)\n", cmd, keep, rules->len);
		return;
	}
	copy = strndup(rules->p ?: "", rules->len);
	if (!copy)
		return;
	vd_report(f, "#   %s -F; %s -X\n", cmd, cmd);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == ':' && sscanf(line, ":%31s %15s", chain, policy) == 2) {
			if (strcmp(policy, "-"))
				vd_report(f, "#   %s -P %s %s\n", cmd, chain, policy);
			else
				vd_report(f, "#   %s -N %s\n", cmd, chain);
		} else if (line[0] == '-') {
			vd_report(f, "#   %s %s\n", cmd, line);
		}
	}
	free(copy);
}

void vd_report_saves(FILE *f, const struct buf save[2], const struct buf *rules, size_t big,
		     unsigned int round, unsigned int npackets)
{
	const char *a = save[0].p ?: "", *b = save[1].p ?: "";
	unsigned int line = 1;
	size_t i = 0, start = 0;

	if (rules->len <= big) {
		vd_report(f, "# ruleset %u: counters differ after its %u packets\n"
			  "# ip_tables (save -c):\n%.*s# bpfilter (save -c):\n%.*s", round,
			  npackets, (int)save[0].len, a, (int)save[1].len, b);
		return;
	}
	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	vd_report(f, "# first difference, line %u:\n#   ip_tables: %.*s\n#   bpfilter:  %.*s\n",
		  line, (int)strcspn(a + start, "\n"), a + start, (int)strcspn(b + start, "\n"),
		  b + start);
}

bool vd_round_mismatch(struct vd_round *r)
{
	r->bad++;
	if (r->quiet)
		return false;
	if (!r->shown)
		r->header(r->ctx, r->round);
	r->shown = true;
	return true;
}

bool vd_round_case(struct vd_round *r, unsigned int i, const enum outcome o[2],
		   unsigned long *outcomes, bool *show)
{
	*show = false;
	if (o[0] == OUT_ERROR && o[1] == OUT_ERROR)
		return false;
	outcomes[o[0]]++;
	if (o[0] != o[1] && vd_round_mismatch(r)) {
		vd_report(r->report, "# ruleset %u packet %u: %s: %s, bpfilter: %s\n", r->round, i,
			  r->tables, vd_outcome_name[o[0]], vd_outcome_name[o[1]]);
		*show = true;
	}
	return true;
}

bool vd_round_restore(struct vd_round *r, const char *restore, const char *file,
		      const struct buf *rules)
{
	const char *ns[2] = { r->side[0].t, r->side[1].t };

	if (vd_restore_both(r->report, ns, r->hd, restore, file, rules, r->round))
		return true;
	r->header(r->ctx, r->round);
	r->shown = true;
	r->bad++;
	return false;
}

void vd_round_saves(struct vd_round *r, const char *save_cmd, struct buf save[2],
		    const struct buf *rules, size_t big, unsigned int npackets)
{
	const char *ns[2] = { r->side[0].t, r->side[1].t };

	vd_save_both(ns, r->hd, save_cmd, save);
	if (!vd_saves_equal(save) && vd_round_mismatch(r))
		vd_report_saves(r->report, save, rules, big, r->round, npackets);
}

unsigned int vd_round_end(struct vd_round *r, struct buf save[2], bool verbose,
			  unsigned long *shown)
{
	if (verbose && save[0].p)
		printf("%.*s", (int)save[0].len, save[0].p);
	if (r->bad)
		(*shown)++;
	free(save[0].p);
	free(save[1].p);
	return r->bad;
}

FILE *vd_open_report(const char *path, const char *mode, const char *what, unsigned long seed,
		     const char *rerun)
{
	FILE *f = fopen(path, mode);

	if (f) {
		fprintf(f, "# %s mismatches, seed %lu (rerun: %s)\n", what, seed, rerun);
		fflush(f);
	}
	return f;
}

void vd_print_outcomes(const char *tag, const char *tables, const unsigned long *o)
{
	printf("# %s%s outcomes: %lu dropped, %lu sent by OUTPUT, %lu delivered, %lu forwarded, "
	       "%lu send errors\n", tag, tables, o[OUT_DROPPED], o[OUT_SENT], o[OUT_LOCAL],
	       o[OUT_FORWARDED], o[OUT_ERROR]);
}

bool vd_every_outcome(const unsigned long *o)
{
	return o[OUT_DROPPED] && o[OUT_SENT] && o[OUT_LOCAL] && o[OUT_FORWARDED];
}

void vd_hex(char *out, size_t size, const unsigned char *d, unsigned int len)
{
	unsigned int i, n = 0;

	out[0] = '\0';
	for (i = 0; i < len && n + 4 < size; i++)
		n += snprintf(out + n, size - n, "%s%02x", i % 4 ? "" : " ", d[i]);
}

void *vd_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int vd_start(void (*summary)(void))
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return atexit(summary) ? -1 : 0;
}

unsigned long vd_env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}
