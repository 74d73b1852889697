/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF program builder: turns one built-in chain of a validated filter
 * table into a BPF_PROG_TYPE_NETFILTER program that judges packets exactly
 * as ipt_do_table() (ip6t_do_table() for an IPv6 table) does.
 *
 * Pipeline (codegen_hook()): prologue (packet context into a scratch area),
 * the rules from the hook's entry point in blob order with user chains
 * inlined at each call site and runs of similar rules folded into map
 * lookups (codegen_set.c), the hook's underflow (policy) block, then one
 * pass of fixups (codegen_finalize()): jumps to labels and map file
 * descriptors.
 *
 * Register convention of generated code, relied on by every match
 * generator:
 *   r6  scratch area of this run (CG_OFF_*): the packet context
 *   r7  the counters map element this run counts into (codegen_counters_create()),
 *       chunk 0's in a table of several chunks
 *   r8  how much of the transport header of the packet's protocol was
 *       copied to CG_OFF_L4 (CG_L4_*): all of it (tcp 20, udp and icmp 8,
 *       esp 8, ah 12, udplite/sctp/dccp 4 bytes), only the 4 bytes of the
 *       ports, or nothing (ip_tables: skb_header_pointer() == NULL =>
 *       hotdrop for a match that needs more)
 *   r9  fragment offset: ntohs(iph->frag_off) & IP_OFFSET; for IPv6 the
 *       byte offset of the fragment header ipv6_find_hdr() found (0 if none)
 *   r0-r5 scratch, clobbered by calls.
 * Rules never touch the stack: packet data is in the scratch area, a map
 * value. Every register at a rule boundary is then a scalar or one of
 * those two pointers, the verifier prunes states there, and its stack
 * liveness analysis (a pass over the whole program each time a new stack
 * access is seen, Linux 6.18) has nothing to redo rule after rule: big
 * tables verify in linear time. The one exception is a table of more
 * than CG_CNT_MAX_ENTRIES entries: a rule of a counters chunk past the
 * first reads its chunk's element from the stack (CG_STK_CNTPTR()), one
 * slot written once in the program; 20,000 such rules load no slower
 * than the same rules in chunk 0 (Linux 6.18, 7 programs, 1.1 s each way).
 */
#ifndef NET_BPFILTER_CODEGEN_H
#define NET_BPFILTER_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/netfilter.h>

#include "btf.h"

struct table;
struct rule;
struct match;

/*
 * Scratch area slots (offsets from r6) filled by the prologue. Of the
 * headers, only the bytes rules read are sure to be copied (gen_prologue()):
 * IPv4 0-7, 9 and 12-19 (and 8 with CG_NEED_TTL); IPv6 all 40; transport
 * 0-3, for TCP 12-13, for AH 4-7.
 */
#define CG_OFF_IPH	0	/* copy of the IPv4 header, 20 bytes */
#define CG_OFF_L4	24	/* copy of the transport header, up to 20 bytes */
#define CG_OFF_INDEV	48	/* state->in->name or 16 zero bytes */
#define CG_OFF_OUTDEV	64	/* state->out->name or 16 zero bytes */
#define CG_OFF_SKBLEN	80	/* skb->len as u64, what ip_tables counts */
#define CG_OFF_THOFF	88	/* u64: transport header offset, iph->ihl * 4 (IPv6: CG_OFF_NH's) */
#define CG_OFF_OPTS	96	/* 40 bytes: copy of the TCP options */
#define CG_OFF_OPTSET	136	/* 256 bits: option kinds tcp_find_option() would see */
#define CG_OFF_OPTST	168	/* u64: 0 OPTSET valid, else a hotdrop (bad doff, short) */
/* 176: 16 bytes free */
#define CG_OFF_MARK	192	/* u32: skb->mark (CG_NEED_MARK) */
#define CG_OFF_CTSTATE	196	/* u32: conntrack state bit (CG_NEED_CT, CG_CT_*) */
#define CG_OFF_CTINFO	200	/* u32: ctinfo, skb->_nfct & 7 (CG_NEED_CT) */
#define CG_OFF_TCPMSS	204	/* u32: tcpmss_mt()'s MSS, or CG_TCPMSS_NONE; valid if OPTST is 0 */
#define CG_OFF_NFCT	208	/* u64: skb->_nfct (CG_NEED_CT) */
/* Of a tracked packet's conntrack entry (CG_NEED_CT_ENTRY), else undefined: */
#define CG_OFF_CTSTATUS	216	/* u64: nf_conn.status */
#define CG_OFF_CTEXPIRES 224	/* u64: nf_ct_expires() / HZ, in seconds */
#define CG_OFF_CTTUPLE	232	/* 2 x 40 bytes: tuplehash[dir].tuple, ORIGINAL then REPLY */
#define CG_OFF_KARG	312	/* a match's own bytes: kfunc arguments, kernel memory it reads */
#define CG_KARG_SIZE	232
#define CG_OFF_SHARED	544	/* u32: non-zero when r7 is the shared element: atomic adds */
#define CG_OFF_RULE	548	/* u32: index of the rule a count-and-exit block counts */
#define CG_OFF_IP6	552	/* copy of the IPv6 header, 40 bytes */
/*
 * u32: the protocol ipv6_find_hdr() finds past the extension headers
 * (rules with RULE_F_PROTO need it), or CG_NH_BAD where it fails
 * without a fragment offset: ip6_packet_match() then hotdrops.
 */
#define CG_OFF_NH	592
/*
 * With CG_NEED_IP6_EXT, the walk notes where it first saw each kind of
 * extension header (u32 offsets, 0 if not seen; CG_XHDR_*), and in
 * CG_OFF_XEND whether a header it did not see is one ipv6_find_hdr() with
 * that target would not find (0: -ENOENT) or would fail on (-EBADMSG) or
 * we cannot know (past CG_IP6_MAX_EXTHDRS headers): a hotdrop.
 */
#define CG_OFF_XHDR	596
#define CG_OFF_XEND	616
#define CG_OFF_SETKEY	624	/* 24 bytes: key of a rule-run set lookup (an IPv6 one: 22) */
#define CG_SCRATCH_SIZE	648

#define CG_NH_BAD	0x100u
/* Extension headers the prologue walks; a longer chain fails closed (CG_NH_BAD). */
#define CG_IP6_MAX_EXTHDRS	8

/*
 * Stack slots (offsets from r10), used by the prologue and tail calls only,
 * and CG_STK_CNTPTR() by the counting of rules past the first counters chunk.
 */
#define CG_STK_CTX	(-8)	/* struct bpf_nf_ctx *, the program's context */
#define CG_STK_DYNPTR	(-24)	/* struct bpf_dynptr over the skb, 16 bytes */
#define CG_STK_KEY	(-32)	/* u32: key of the counters map lookup */
#define CG_STK_DATA	(-40)	/* skb->data: the IPv4 header at these hooks */
#define CG_STK_HEADLEN	(-48)	/* u64: skb_headlen(), the bytes at skb->data */
#define CG_STK_CT	(-56)	/* struct nf_conn * of the packet (CG_NEED_CT_ENTRY) */
#define CG_STK_CNTKEY	(-64)	/* u32: key of the counters element this run counts into */
/* Chunk @c (>= 1) of this run's counters element (a table past CG_CNT_MAX_ENTRIES entries). */
#define CG_STK_CNTPTR(c) (-64 - 8 * (int)(c))

#define CG_REG_PKT	BPF_REG_6
#define CG_REG_CNT	BPF_REG_7
#define CG_REG_L4ERR	BPF_REG_8
#define CG_REG_FRAG	BPF_REG_9

/* CG_OFF_TCPMSS when the options hold no MSS option tcpmss_mt() takes. */
#define CG_TCPMSS_NONE	0x10000u

/* Values of CG_REG_L4ERR. */
#define CG_L4_FULL	0	/* the whole header of the packet's protocol */
#define CG_L4_NONE	1	/* nothing: other protocol, fragment, or < 4 bytes */
#define CG_L4_PORTS	2	/* only bytes 0-3, the ports: the header is cut short */

/*
 * What a match reads beyond the IPv4 header bytes always copied
 * (match_ops.needs): the prologue fetches only what some rule of the
 * table needs, so a small table pays for nothing else.
 */
#define CG_NEED_L4	(1u << 0)	/* tcp, udp, icmp headers: CG_OFF_L4, r8 */
#define CG_NEED_PORTS	(1u << 1)	/* also udplite, sctp, dccp, and cut-short ports */
#define CG_NEED_ESP	(1u << 2)	/* the ESP header */
#define CG_NEED_AH	(1u << 3)	/* the AH header */
#define CG_NEED_TCPOPT	(1u << 4)	/* TCP option kinds: CG_OFF_OPTSET, CG_OFF_OPTST */
#define CG_NEED_TTL	(1u << 5)	/* IPv4 byte 8 at CG_OFF_IPH + 8 */
#define CG_NEED_MARK	(1u << 6)	/* skb->mark at CG_OFF_MARK */
#define CG_NEED_CT	(1u << 7)	/* conntrack state: CG_OFF_CTSTATE, _CTINFO, _NFCT */
#define CG_NEED_CT_ENTRY (1u << 8)	/* also the entry: CG_OFF_CTSTATUS, _CTEXPIRES, _CTTUPLE */
#define CG_NEED_PKT	(1u << 9)	/* reads packet bytes anywhere: cg_read_packet() */
#define CG_NEED_TCPMSS	(1u << 10)	/* the option walk for any TCP packet: CG_OFF_TCPMSS */
#define CG_NEED_IP6_EXT	(1u << 11)	/* IPv6 extension headers: CG_OFF_XHDR, CG_OFF_XEND */

/*
 * CG_OFF_CTSTATE: the state bit xt_conntrack and xt_state compute, 1 << (ctinfo
 * % IP_CT_IS_REPLY + 1) for a tracked packet, else INVALID or UNTRACKED. The
 * two matches number UNTRACKED differently; here it is a bit of its own that
 * each maps its mask onto.
 */
#define CG_CT_INVALID	(1u << 0)
#define CG_CT_TRACKED	0x0eu		/* ESTABLISHED, RELATED, NEW: bits 1-3 */
#define CG_CT_UNTRACKED	(1u << 30)
#define CG_NEED_ANY_L4	(CG_NEED_L4 | CG_NEED_PORTS | CG_NEED_ESP | CG_NEED_AH)

/*
 * Runs and counters. A softirq can run a hook while a task is inside one
 * on the same CPU (and a task can be preempted there), so runs nest.
 *
 * The runs map (BPF_MAP_TYPE_ARRAY, CG_LEVELS elements per possible CPU,
 * key cpu * CG_LEVELS + level) holds each run's busy flag and scratch
 * area. A run takes the first element of its CPU that is free (an atomic
 * exchange of the busy flag); deeper than CG_LEVELS it drops: fail closed.
 *
 * The counters map (BPF_MAP_TYPE_ARRAY) holds a struct xt_counters per
 * entry of the table in each of ncpus + 1 elements: key 1 + cpu for the
 * runs that hold level 0 of that CPU, which count with plain adds (no
 * other run touches that element meanwhile: two locked adds per counted
 * rule were most of a small table's cost), and key 0, shared by every
 * nested run of every CPU, which count there with atomic adds. So the
 * counters take (ncpus + 1) / ncpus of ip_tables' per-CPU counters, not
 * CG_LEVELS times; each element is padded to whole cache lines, as
 * ip_tables' are to 4 KiB blocks (xt_percpu_counter_alloc()). Counting is
 * at a constant offset from r7 with no helper call (each inlined lookup
 * would be a patch that moves all the program's branches: verification
 * turned quadratic).
 *
 * An array map's value is at most KMALLOC_MAX_SIZE (4 MiB), 262,144
 * entries (CG_CNT_MAX_ENTRIES), and ip_tables takes tables of millions.
 * A bigger table's counters are cut into nchunks equal chunks of at most
 * that many entries (the last one padded), all in the one map: key
 * chunk * (ncpus + 1) + slot, slot being 0 (shared) or 1 + cpu as above,
 * so chunk 0's keys, the whole map of a table that fits one chunk, are
 * those of old. r7 stays chunk 0's element; a program that counts rules
 * of later chunks looks their elements up once, in a block at its end
 * the prologue jumps to and back from (the rules are generated by then,
 * so only the chunks they count are looked up), with the same slot as
 * chunk 0's, and spills the pointers to CG_STK_CNTPTR(chunk): counting a
 * rule of chunk c > 0 is one stack load more, still without a call. A
 * rule index known only at run time (a folded run's lookup, a
 * count-and-exit block) picks its chunk with compares against the
 * chunks the generator knows it can be in. A table of at most
 * CG_CNT_MAX_ENTRIES entries has one chunk and exactly the code of old.
 *
 * Level 0's busy flag is what keeps two runs from plain-adding into one
 * element, also across a helper restart (old and new programs run side
 * by side): the runs map lives as long as the namespace's program array
 * and is pinned and taken back with it.
 */
#define CG_LEVELS		4
#define CG_RUN_BUSY		0	/* u64: non-zero while a run holds the element */
#define CG_RUN_SCRATCH		8	/* the holder's scratch area */
/* Elements padded to whole cache lines: no two CPUs' hot bytes share one. */
#define CG_RUN_SIZE		((CG_RUN_SCRATCH + CG_SCRATCH_SIZE + 63) & ~63u)
#define CG_CNT_SHARED		0	/* key of the nested runs' element */
#define CG_CNT_MAX_ENTRIES	((4u << 20) / 16)	/* per chunk */
/*
 * Chunks of a table: ip_tables takes at most XT_MAX_TABLE_SIZE (512 MiB)
 * of entries of at least 144 bytes (a target without data), 3.7M entries,
 * 15 chunks. Their pointers take CG_STK_CNTPTR(1 .. 15): 184 bytes of stack.
 */
#define CG_CNT_MAX_CHUNKS	16

struct xt_counters;

/* A runs map (the layout above): fd or -errno. */
int codegen_runs_create(void);
/* Is @fd a runs map of this layout (one a restart takes back)? */
bool codegen_runs_fit(int fd);
/* Bytes of a runs map on @ncpus CPUs (its values). */
uint64_t codegen_runs_bytes(unsigned int ncpus);
/*
 * Entries per counters chunk of a table of @num_entries entries, their
 * number in *@nchunks (1: @num_entries, the table fits one element).
 */
uint32_t codegen_counters_chunk(uint32_t num_entries, uint32_t *nchunks);
/* A counters map for @num_entries entries: fd or -errno (-E2BIG past CG_CNT_MAX_CHUNKS chunks). */
int codegen_counters_create(uint32_t num_entries);
/* Is @fd a counters map of this layout for @num_entries entries (one a restart takes back)? */
bool codegen_counters_fit(int fd, uint32_t num_entries);
/* Add every element's counters of entries 0 .. @n - 1 of map @fd to @out: 0 or -errno. */
int codegen_counters_sum(int fd, uint32_t n, struct xt_counters *out);
/* Bytes of a counters map for @num_entries entries on @ncpus CPUs (its values). */
uint64_t codegen_counters_bytes(uint32_t num_entries, unsigned int ncpus);

/* Largest program we generate: the kernel's limit for privileged loads. */
#define CG_MAX_INSNS	1000000

/* NF_DROP / NF_ACCEPT, the only return values the verifier allows. */
#define CG_NF_DROP	0
#define CG_NF_ACCEPT	1

enum cg_fixup_kind {
	CG_FIX_JMP,		/* conditional jump: off = label - (insn + 1), must fit s16 */
	CG_FIX_JA,		/* unconditional jump: JA if it fits s16, else gotol (JMP32|JA) */
	CG_FIX_MAP_COUNTERS,	/* ld_imm64: fd of the counters map */
	CG_FIX_MAP_RUNS,	/* ld_imm64: fd of the runs map */
	CG_FIX_MAP_PROGS,	/* ld_imm64: fd of the dispatcher's program array */
	CG_FIX_MAP_SET,		/* ld_imm64: fd of set number .label (struct cg_set) */
	CG_FIX_MAP_CONT,	/* ld_imm64: fd of the hook's continuation prog array */
	CG_FIX_MAP_STATE,	/* ld_imm64: fd of the table's rule state map */
};

/*
 * Long chains are cut into segments: programs of about CG_SEG_INSNS
 * instructions, each ending in a tail call to the next one through a
 * continuation prog array. Cuts fall only between rules of the built-in
 * chain, where ip_tables' jump stack is empty, so a segment restarts from
 * the packet alone. The verifier's per-program budget (1M processed
 * instructions) is then never approached, whatever the table. A packet may
 * take at most 33 tail calls; the dispatcher uses one, so a program is at
 * most CG_MAX_SEGS - 1 tail calls from the hook's first one.
 */
#define CG_SEG_INSNS	65536
#define CG_MAX_SEGS	32

/* Runs of at least this many similar rules become one map lookup (0: never). */
#define CG_FOLD_MIN	4

/*
 * Runs of at least this many jumps to user chains, no two of which can
 * match the same packet (kube-proxy's KUBE-SERVICES: -d IP -p tcp --dport
 * P -j KUBE-SVC-...), become one lookup and a tail call into the program
 * that holds the matched rule's chain (a "leaves" program, see struct
 * cg_entry). Shorter runs stay rules: the tail call and the leaf's prologue
 * cost more than a few rules.
 */
#define CG_FOLD_JUMP_MIN	64

/*
 * A run of consecutive rules that differ only in one address or port and
 * share everything else, target included (codegen_set.c): one map lookup
 * gives the index of the first rule of the run that matches, so per-rule
 * counters and first-match order stay exact.
 */
enum cg_set_type {
	CG_SET_ADDR_HASH,	/* key: address (network order), all full length */
	CG_SET_ADDR_LPM,	/* key: u32 prefixlen, address */
	CG_SET_PORT,		/* key: u32 port, host order */
	CG_SET_PORT_ADDR_HASH,	/* key: u32 port (host order), address; all full length */
	CG_SET_PORT_ADDR_LPM,	/* key: u32 prefixlen (16 + plen), port (big endian), address */
};

/* The shape verdict of a run of jumps to user chains (not an xt verdict). */
#define CG_RUN_JUMP	INT32_MIN

struct cg_set_elem {
	uint8_t addr[16];	/* as in the packet; an IPv4 address in the first 4 bytes */
	uint32_t port;		/* host order; with l4_key the protocol << 16 too */
	uint8_t plen;		/* prefix length of the address */
	uint32_t index;		/* rule index */
};

/* A program uses at most 64 maps: runs, counters and the others, then at most this many sets. */
#define CG_MAX_SETS	56

struct cg_set {
	enum cg_set_type type;
	uint32_t start, len;	/* the run [start, start + len) it stands for */
	bool addr_only;		/* only the run's addresses (see cg_gen_run()) */
	bool l4_key;		/* the packet's protocol is in the key (a run of jumps) */
	uint8_t alen;		/* bytes of an address: 4 (IPv4) or 16 (IPv6) */
	struct cg_set_elem *elems;
	uint32_t n, cap;
	int fd;			/* created by codegen_finalize(), closed by codegen_free() */
	bool fd_shared;		/* @fd is the loader's, for every program's same run: not closed */
};

struct cg_fixup {
	enum cg_fixup_kind kind;
	uint32_t insn;
	uint32_t label;
};

struct cg_label {
	uint32_t pos;		/* insn index, UINT32_MAX until placed */
	bool used;		/* something jumps to it */
};

/*
 * Where a program of a hook starts. The hook's first program is a SEQ
 * entry at the built-in chain's first rule. A SEQ entry at rule @start
 * with ip_tables' jump stack @frames (the rules RETURN goes back to,
 * outermost first) walks on from there, as ipt_do_table() would: a segment
 * cut, or what follows a folded run of jumps. A LEAVES entry holds the
 * chains of the folded jump run [@start, @start + @len): its programs each
 * take some of the run's rules, find the matched rule again with the
 * run's lookup, and inline that rule's chain; the run's rules fill slots
 * @slot .. @slot + @len - 1, so the first program jumps to slot
 * @slot + rule - @start without knowing which program holds the rule.
 */
enum cg_entry_kind {
	CG_ENTRY_SEQ,
	CG_ENTRY_LEAVES,
};

struct cg_entry {
	enum cg_entry_kind kind;
	unsigned int hook;	/* the built-in chain it is a program of */
	uint32_t start, len;	/* SEQ: first rule (len 0); LEAVES: the run */
	uint32_t slot;		/* continuation array slot (LEAVES: the first of @len) */
	uint32_t depth;		/* tail calls from the hook's first program */
	uint32_t nframes;
	uint32_t *frames;	/* return rules, outermost first */
};

/*
 * Where the programs of a LEAVES entry go on when the matched rule's chain
 * returns: slot @base + the hook (ctx->state->hook), which holds that
 * hook's SEQ entry after the run. The leaves' code then names no hook, and
 * the programs of a run that several hooks reach (kube-proxy's
 * KUBE-SERVICES, from INPUT, FORWARD and OUTPUT) come out byte for byte the
 * same in each: they are loaded once (codegen_load_table()). One block per
 * run, jump stack depth and tail call depth; a hook that reaches it with
 * other return rules than the ones it has for that hook takes another.
 */
struct cg_after {
	uint32_t start, len, nframes, depth;
	uint32_t base;			/* first of NF_INET_NUMHOOKS slots */
	uint32_t *frames[NF_INET_NUMHOOKS];	/* per hook: its return rules, or NULL */
};

struct codegen;

/*
 * Every program of the hooks of one table (codegen_plan_hook() adds a
 * hook's), sharing one continuation array. Zero it before the first hook.
 */
struct cg_plan {
	struct cg_entry *entries;
	uint32_t nentries, entries_cap;
	struct codegen *progs;		/* generated, in entry order */
	uint32_t *prog_slot;		/* per program: first slot it fills */
	uint32_t *prog_nslots;		/* per program: slots it fills (0: a hook's first program) */
	uint32_t *prog_same;		/* per program: the earlier one it is, not generated, or itself */
	uint32_t nprogs, progs_cap;
	uint32_t nslots;		/* size of the continuation array */
	struct cg_after *afters;
	uint32_t nafters, afters_cap;
};

struct codegen {
	struct bpf_insn *insns;
	uint32_t len, cap;
	struct cg_label *labels;
	uint32_t nlabels, labels_cap;
	struct cg_fixup *fixups;
	uint32_t nfixups, fixups_cap;
	int err;		/* first error; emitters do nothing once set */
	bool dead;		/* next instruction is unreachable: not emitted */
	uint32_t ja_end;	/* len right after the last cg_ja() until a label is placed */
	uint32_t err_rule;	/* index of the rule that has no translation */
	const char *err_what;	/* what of it has none (cg_unsupported()), or NULL */

	const struct btf_info *bi;
	const struct table *table;
	unsigned int hook;
	uint32_t stacksize;	/* ip_tables' jump stack size: ERROR entries */
	uint32_t fail_label;	/* where the rule being generated goes if it does not match */
	uint32_t underflow_label;
	uint32_t depth;		/* C recursion depth of inlining, bounded */
	bool fail_used;		/* a jump to fail_label was emitted */
	bool inject_fault;	/* tests: emit an instruction the verifier rejects */
	bool mod_kfuncs;	/* calls bpfilter.ko's kfuncs: load with its BTF fd */
	bool slow_reads;	/* tests: read headers as if the skb were not linear */
	bool level_held;	/* past the prologue's take: exits give the element back */
	uint32_t count_exit[2];	/* per verdict: count rule CG_OFF_RULE, exit (or CG_NO_LABEL) */
	uint32_t cx_first;	/* the rules sent there: [cx_first, cx_end) */
	uint32_t cx_end;
	uint32_t cnt_chunk;	/* entries per counters chunk (codegen_counters_chunk()) */
	uint32_t cnt_nchunks;
	uint32_t cnt_used;	/* chunks > 0 this program counts in: bit per chunk */
	uint32_t cnt_lookups;	/* label of their lookups (gen_cnt_lookups()) */
	uint32_t cnt_back;	/* label they go back to, in the prologue */
	uint32_t needs;		/* CG_NEED_* of all the table's matches */
	bool need_indev;	/* some rule tests -i: the prologue copies CG_OFF_INDEV */
	bool need_outdev;	/* some rule tests -o: the prologue copies CG_OFF_OUTDEV */
	bool need_proto;	/* IPv6: some rule tests -p: the prologue walks to CG_OFF_NH */
	uint32_t fold_min;	/* CG_FOLD_MIN by default; 0 disables folding */
	uint32_t fold_jump_min;	/* CG_FOLD_JUMP_MIN with a plan; 0 disables folding jumps */
	uint32_t seg_insns;	/* cut when the rules' code passes this size; 0: one program */
	uint32_t prologue_len;	/* instructions before the first rule */
	struct cg_plan *plan;	/* the hook's programs, or NULL: one program, no cuts */
	struct cg_entry ent;	/* with a plan: where this program starts */
	uint32_t leaf_lo;	/* LEAVES: first rule of the run this program holds */
	uint32_t leaf_hi;	/* LEAVES: past its last; UINT32_MAX: as many as fit */
	uint32_t leaf_end;	/* out, LEAVES: past the last rule it holds */
	uint32_t after;		/* out, LEAVES: its after block, or UINT32_MAX if none */
	bool own_entries;	/* out: it tail-calls entries of its hook's own */
	bool hook_code;		/* out: it reaches its hook's underflow (policy) block */
	int cont_fd;		/* continuation prog array (CG_FIX_MAP_CONT), or -1 */
	int state_fd;		/* the table's rule state map (CG_FIX_MAP_STATE), or -1 */
	int runs_fd;		/* the runs map (CG_FIX_MAP_RUNS) */
	struct cg_set *sets;	/* maps of folded rule runs */
	uint32_t nsets, sets_cap;
};

/* Zero @cg and remember the kernel layout @bi. */
void codegen_init(struct codegen *cg, const struct btf_info *bi);
/* Free what @cg holds; @cg can be reused after codegen_init(). */
void codegen_free(struct codegen *cg);

/* Append one instruction (sticky error on allocation failure). */
void cg_emit(struct codegen *cg, struct bpf_insn insn);
/* A new, not yet placed label, or 0 with cg->err set. */
uint32_t cg_new_label(struct codegen *cg);
/* Place @label at the next instruction. */
void cg_place(struct codegen *cg, uint32_t label);
/* Conditional jump template @insn (its off is patched) to @label. */
void cg_jmp(struct codegen *cg, struct bpf_insn insn, uint32_t label);
/* Unconditional jump to @label, any distance. */
void cg_ja(struct codegen *cg, uint32_t label);
/* Conditional jump template @insn to the current rule's no-match label. */
void cg_jmp_fail(struct codegen *cg, struct bpf_insn insn);
/* Unconditional jump to the current rule's no-match label. */
void cg_ja_fail(struct codegen *cg);
/* Return @verdict (CG_NF_DROP / CG_NF_ACCEPT) from the program. */
void cg_exit_verdict(struct codegen *cg, int verdict);
/* If the 64-bit @reg is non-zero (@if_nonzero) or zero, return NF_DROP (hotdrop). */
void cg_drop_if(struct codegen *cg, int reg, bool if_nonzero);
/* Load a 64-bit immediate into @reg (two instructions). */
void cg_ld_imm64(struct codegen *cg, int reg, uint64_t imm);
/* Call BPF helper @id. */
void cg_call_helper(struct codegen *cg, int id);

/*
 * Generate the program for built-in chain @hook (NF_INET_*) of @t: without
 * cg->plan the whole chain in one program, with it the program of entry
 * cg->ent (cuts and folded jump runs add entries to the plan). 0 or -errno
 * (-EOPNOTSUPP for a rule that has no BPF translation, -E2BIG past
 * CG_MAX_INSNS or CG_MAX_SEGS). Map fds are fixups resolved by
 * codegen_finalize().
 */
int codegen_hook(struct codegen *cg, const struct table *t, unsigned int hook);

/* Loading a table's hooks, every segment of them (codegen_load_table()). */
struct cg_hook_load {
	const struct btf_info *bi;
	int counters_fd, progs_fd;
	int runs_fd;		/* codegen_runs_create()'s map */
	int state_fd;		/* codegen_rule_state_create()'s map, or -1 */
	uint32_t fold_min;	/* as struct codegen */
	uint32_t fold_jump_min;	/* as struct codegen; CG_FOLD_JUMP_MIN in the helper */
	uint32_t seg_insns;	/* as struct codegen; CG_SEG_INSNS in the helper */
	bool inject_fault;	/* program fault_prog (0: the first) fails verification */
	uint32_t fault_prog;
	bool slow_reads;
	char *log;		/* the verifier's log on a failed load, may be NULL */
	size_t log_size;
	/* Results, also on failure: */
	int cont_fd;		/* continuation prog array, -1 if one program sufficed */
	uint32_t nsegs;		/* programs generated */
	uint32_t ngen;		/* of them, generated: the others are another hook's leaves */
	uint32_t nloaded;	/* of them, loaded: the others are the same as one loaded */
	uint32_t err_hook;	/* the hook of the one that failed */
	uint32_t err_prog;	/* the one that failed (0: the first generated) */
	uint32_t insns;		/* instructions in all of them */
	uint32_t insns_loaded;	/* in the ones loaded */
	uint32_t nsets;		/* folded runs in all of them */
	uint32_t err_rule;	/* a rule without a BPF translation, or UINT32_MAX */
	const char *err_what;	/* what of it has none, or NULL */
	const char *err_stage;	/* "generation", "fixups", "verifier", "continuation" */
	uint64_t gen_ns;	/* time spent generating every program */
	uint64_t verify_ns;	/* time spent loading them (the kernel's verifier) */
};

/*
 * Add every program of @hook of @t to @p (l's options; its results nsegs,
 * insns, err_rule, err_what count this hook's): 0 or -errno. Nothing is
 * loaded; free @p with codegen_plan_free() either way.
 */
int codegen_plan_hook(struct cg_plan *p, struct cg_hook_load *l, const struct table *t,
		      unsigned int hook);
/* Free what codegen_plan_hook() made. */
void codegen_plan_free(struct cg_plan *p);

/*
 * Generate, finalize and load every program of the hooks in @hooks (a bit
 * per NF_INET_*) of @t, the first of hook h named @names[h]; programs that
 * come out the same are loaded once. 0 with fds[h] each hook's first
 * program, or -errno with @l's results saying where it failed (nothing
 * left open). Later programs are held by l->cont_fd, which the caller owns
 * and must keep open (or pinned) as long as a first program is used: a
 * prog array whose last user reference goes away is emptied.
 */
int codegen_load_table(struct cg_hook_load *l, const struct table *t, uint32_t hooks,
		       const char *const *names, int *fds);
/* codegen_load_table() of one hook: its first program's fd, or -errno. */
int codegen_load_hook(struct cg_hook_load *l, const struct table *t, unsigned int hook,
		      const char *name);
/* The fixed dispatcher of @hook: tail call into slot @hook of the prog array, else NF_DROP. */
int codegen_dispatcher(struct codegen *cg, unsigned int hook);
/*
 * Create and fill the maps of folded runs, resolve labels and map fds; after
 * this cg->insns/cg->len are loadable. 0 or -errno.
 */
int codegen_finalize(struct codegen *cg, int counters_fd, int progs_fd);

/*
 * Load @cg's finalized program as a BPF_NETFILTER program named @name.
 * Returns an fd or -errno; the verifier's log goes to @log (may be NULL).
 */
int codegen_load(const struct codegen *cg, const char *name, char *log, size_t log_size);

/*
 * Length of the foldable run of rules at index @i (0: none, below
 * cg->fold_min, or for jumps cg->fold_jump_min); *@jumps says it is a run
 * of jumps to user chains.
 */
uint32_t cg_run_length(const struct codegen *cg, uint32_t i, bool *jumps);
/*
 * Emit the lookup of the run [i, i + len): on a miss jump to @skip; on a hit
 * r1 = the matching rule's index, counted if @count, and fall through.
 */
int cg_gen_run(struct codegen *cg, uint32_t i, uint32_t len, uint32_t skip, bool count);
/* r0 = the element of set @k whose key is at scratch offset @off, or NULL. */
void cg_lookup_set(struct codegen *cg, uint32_t k, int16_t off);
/*
 * Rule state: matches that keep state across packets (limit's bucket) get
 * CG_STATE_SIZE bytes shared by every CPU and hook, in one array map per
 * table, made anew by each replace (as the kernel's checkentry makes their
 * state anew): key rule * CG_STATE_PER_RULE + how many stateful matches
 * come before the match in its rule (at most CG_STATE_PER_RULE a rule).
 */
#define CG_STATE_SIZE		16
#define CG_STATE_PER_RULE	4
/* The rule state map of @t, filled by match_ops.state_init: fd, -1 if none needed, or -errno. */
int codegen_rule_state_create(const struct table *t);
/* r0 = the state slot of match @k of rule @rule (uses CG_OFF_SETKEY): 0 or -errno. */
int cg_rule_state(struct codegen *cg, uint32_t rule, uint32_t k);

/* Count a match of the rule whose index is in @reg (32 bits), one of [@first, @end). */
void cg_counter_reg(struct codegen *cg, int reg, uint32_t first, uint32_t end);
/* Create and fill the maps of cg->sets (set fds in them): 0 or -errno. */
int codegen_sets_create(struct codegen *cg);

/*
 * Building blocks of the match generators (ext_*.c). A generator jumps to
 * the rule's no-match label when its match fails and returns NF_DROP where
 * the kernel's match sets hotdrop.
 */
/* "Must not be a fragment": a non-first fragment fails; @tcp: offset 1 is a hotdrop (tcp_mt()). */
void cg_first_fragment(struct codegen *cg, bool tcp);
/* Hotdrop unless at least the ports (@ports_only) or the whole transport header were read. */
void cg_need_l4(struct codegen *cg, bool ports_only);
/* Fail the rule unless (min <= @reg <= max) ^ @inv, unsigned 32-bit compares. */
void cg_fail_unless_in(struct codegen *cg, int reg, uint32_t min, uint32_t max, bool inv);
/* Jump to @label if min <= @reg <= max (32 bits, unsigned), else fall through. */
void cg_jmp_if_in(struct codegen *cg, int reg, uint32_t min, uint32_t max, uint32_t label);
/* Fail unless (min <= ntohl(u32 at CG_OFF_L4 + @off) <= max) ^ @inv: spi_match(). */
void cg_l4_u32_range(struct codegen *cg, int off, uint32_t min, uint32_t max, bool inv);
/* Fail unless (min <= port <= max) ^ @inv, for the port at CG_OFF_L4 + @off. */
void cg_port_range(struct codegen *cg, int off, uint16_t min, uint16_t max, bool inv);
/*
 * Close a test whose control reaches @hit when its condition holds and
 * falls through here when not: the match holds on a hit iff @on_hit, on a
 * miss iff @on_miss. Kernel matches return "cond ^ invert": with a
 * normalised invert (!!) that is (!inv, inv); with a raw u8 invert
 * promoted to int, (inv != 1, inv != 0).
 */
void cg_result(struct codegen *cg, uint32_t hit, bool on_hit, bool on_miss);
/*
 * Fail the rule unless ((u32 at scratch + @off & @mask) == @value) ^ @invert,
 * the C expression of xt_mark and its kin, with their raw invert value: only
 * 0 and 1 invert (any other value always matches).
 */
void cg_u32_masked(struct codegen *cg, int off, uint32_t mask, uint32_t value, uint32_t invert);
/*
 * Fail the rule unless (@words 32-bit words at scratch + @off) & @mask equal
 * @want, inverted by @inv: ip_packet_match(), ipv6_masked_addr_cmp(),
 * conntrack_addrcmp(). @want (already masked) and @mask in network order.
 */
void cg_addr_masked(struct codegen *cg, int off, const uint8_t *want, const uint8_t *mask,
		    unsigned int words, bool inv);
/*
 * @reg = the packet's protocol: IPv4's protocol byte, or the one the IPv6
 * walk found behind the extension headers (CG_NH_BAD where it failed).
 */
void cg_ld_proto(struct codegen *cg, int reg);
/* @reg = the packet's DS field: IPv4's tos byte, ipv6_get_dsfield() for IPv6. */
void cg_ds_field(struct codegen *cg, int reg);
/* Call kfunc @btf_id of bpfilter.ko (btf_info.kf_*): r1-r5 arguments, r0 result. */
void cg_call_module_kfunc(struct codegen *cg, int32_t btf_id);
/* Load the program's context (struct bpf_nf_ctx *) into @reg. */
void cg_ld_ctx(struct codegen *cg, int reg);
/* Load the packet's struct sk_buff * (ctx->skb, BTF-typed) into @reg. */
void cg_ld_skb(struct codegen *cg, int reg);
/*
 * Copy @len bytes of kernel memory at the address in r3 to scratch + @dst
 * (bpf_probe_read_kernel()); NF_DROP if the read fails. Clobbers r0-r5.
 */
void cg_probe_read(struct codegen *cg, int dst, uint32_t len);

/*
 * Copy @len bytes of the packet at the offset in r4 (from the IPv4 header,
 * below 2^32) to scratch + @dst: r0 is 0, or negative if the packet is
 * shorter (skb_header_pointer() == NULL), non-linear data included. Needs
 * CG_NEED_PKT; clobbers r0-r5.
 */
void cg_read_packet(struct codegen *cg, int dst, uint32_t len);
/* Call kfunc @btf_id as f(ctx, copy of @mem, @size): at most CG_KARG_SIZE bytes, a multiple of 4. */
void cg_call_kfunc_ctx_mem(struct codegen *cg, int32_t btf_id, const void *mem, uint32_t size);
/* A match option without an exact translation: remember @what, return -EOPNOTSUPP. */
int cg_unsupported(struct codegen *cg, const char *what);
/* match_ops.needs of a match that reads the transport header only. */
uint32_t cg_needs_l4(const void *data);
/* match_ops.needs of an IPv6 match that reads an extension header. */
uint32_t cg_needs_ip6_ext(const void *data);
/*
 * Copy @len bytes of the packet at the offset in @reg to scratch + @dst,
 * as skb_header_pointer() does, or hotdrop if the packet is shorter.
 */
void cg_read_or_hotdrop(struct codegen *cg, int reg, int dst, uint32_t len);
/*
 * The start of the ip6t_* matches that read an extension header: the
 * first header @nexthdr (IPPROTO_HOPOPTS, _ROUTING, _FRAGMENT, _AH or
 * _DSTOPTS) that ipv6_find_hdr(skb, &off, @nexthdr, NULL, NULL) finds
 * (-ENOENT: the rule fails; another error: hotdrop), its offset saved as a
 * u64 at scratch + @off_slot and its first @len bytes copied to scratch +
 * @dst (a shorter packet: hotdrop). But for a fragment header (8 bytes,
 * no length field), then r2 = the length the header claims (ipv6_authlen()
 * for AH, else ipv6_optlen()), r3 = its offset, and a packet shorter than
 * that is a hotdrop, as "skb->len - ptr < hdrlen" is in those matches.
 */
void cg_ip6_ext_hdr(struct codegen *cg, uint8_t nexthdr, int dst, uint32_t len, int off_slot);
/*
 * r3 = skb->head + skb->mac_header, the Ethernet header of a packet that
 * came from an Ethernet device (the rule fails otherwise). A MAC header
 * unset or less than ETH_HLEN before the network header fails the rule
 * (xt_mac), or with @hotdrop drops the packet (ip6t_eui64). 0, or
 * -EOPNOTSUPP (@who) when the kernel's BTF lacks a member it reads.
 */
int cg_eth_header(struct codegen *cg, const char *who, bool hotdrop);
/* r2 = the length of extension header r1 (not a fragment header) whose hdrlen byte is in r2. */
void cg_ip6_optlen(struct codegen *cg);

/* Name of built-in chain @hook as iptables prints it ("INPUT"...), "?" otherwise. */
const char *codegen_hook_name(unsigned int hook);

/* Instruction constructors, as in the kernel's filter.h. */
#define CG_INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define CG_MOV64_REG(d, s)	CG_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define CG_MOV64_IMM(d, i)	CG_INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define CG_ALU64_IMM(op, d, i)	CG_INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define CG_ALU64_REG(op, d, s)	CG_INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define CG_ALU32_IMM(op, d, i)	CG_INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define CG_ALU32_REG(op, d, s)	CG_INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define CG_BE16(d)		CG_INSN(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 16)
#define CG_BE32(d)		CG_INSN(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 32)
#define CG_LDX(sz, d, s, o)	CG_INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define CG_STX(sz, d, s, o)	CG_INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define CG_ST(sz, d, o, i)	CG_INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define CG_ATOMIC_XCHG64(d, s, o) CG_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_XCHG)
#define CG_ATOMIC_ADD64(d, s, o) CG_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define CG_JMP_IMM(op, d, i, o)	CG_INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define CG_JMP_REG(op, d, s, o)	CG_INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define CG_JMP32_IMM(op, d, i, o) CG_INSN(BPF_JMP32 | (op) | BPF_K, d, 0, o, i)
#define CG_JMP32_REG(op, d, s, o) CG_INSN(BPF_JMP32 | (op) | BPF_X, d, s, o, 0)
#define CG_JA(o)		CG_INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CG_EXIT()		CG_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#endif /* NET_BPFILTER_CODEGEN_H */
