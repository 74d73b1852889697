// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel layout discovery through vmlinux BTF, with libbpf's BTF API.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf.h"

/*
 * Find member @name of the struct or union @t, looking into anonymous
 * struct/union members too (sk_buff nests most of its fields in them).
 * Adds the member's bit offset to *bitoff and sets *bits to its bitfield
 * size (0: not a bitfield). Returns 0 or -ENOENT.
 */
static int find_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       uint32_t *bitoff, uint32_t *bits, uint32_t *type_id, int depth);

/* The struct or union type @id stands for, through modifiers and typedefs. */
static const struct btf_type *resolve(const struct btf *btf, uint32_t id, uint32_t *out)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out)
		*out = id;
	return t;
}

/*
 * Byte offset of the dotted member path @path ("dst.u3") in struct @sname,
 * descending into named members' types: 0 or -ENOENT.
 */
static int path_off(const struct btf *btf, const char *sname, const char *path,
		    uint32_t *out)
{
	char comp[64];
	const struct btf_type *t;
	uint32_t off = 0, bits, type_id;
	int32_t id;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	while (t && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (len >= sizeof(comp) || !btf_is_composite(t))
			return -ENOENT;
		memcpy(comp, path, len);
		comp[len] = '\0';
		if (find_member(btf, t, comp, &off, &bits, &type_id, 0) || bits || off % 8)
			return -ENOENT;
		t = resolve(btf, type_id, NULL);
		path = dot ? dot + 1 : path + len;
	}
	if (!t)
		return -ENOENT;
	*out = off / 8;
	return 0;
}

/* Size of struct @sname, 0 if unknown. */
static uint32_t struct_size(const struct btf *btf, const char *sname)
{
	int32_t id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	long sz = id < 0 ? -1 : btf__resolve_size(btf, id);

	return sz > 0 ? sz : 0;
}

/*
 * The layout of struct nf_conn the conntrack match reads. It is in vmlinux
 * when conntrack is built in, else in the nf_conntrack module's BTF (which
 * needs the module loaded: bpfilter.ko depends on it).
 */
static void ct_layout_load(struct btf *vmlinux, struct btf_info *bi)
{
	struct btf *btf = vmlinux, *mod = NULL;
	uint32_t th, tuple;
	int err;

	if (btf__find_by_name_kind(btf, "nf_conn", BTF_KIND_STRUCT) < 0) {
		mod = btf__load_module_btf("nf_conntrack", vmlinux);
		if (!mod)
			return;
		btf = mod;
	}
	err = path_off(btf, "nf_conn", "status", &bi->ct_status);
	err = err ?: path_off(btf, "nf_conn", "timeout", &bi->ct_timeout);
	err = err ?: path_off(btf, "nf_conn", "tuplehash", &th);
	err = err ?: path_off(btf, "nf_conntrack_tuple_hash", "tuple", &tuple);
	err = err ?: path_off(btf, "nf_conntrack_tuple", "src.u3", &bi->tuple_src_u3);
	err = err ?: path_off(btf, "nf_conntrack_tuple", "src.u", &bi->tuple_src_port);
	err = err ?: path_off(btf, "nf_conntrack_tuple", "dst.u3", &bi->tuple_dst_u3);
	err = err ?: path_off(btf, "nf_conntrack_tuple", "dst.u", &bi->tuple_dst_port);
	err = err ?: path_off(btf, "nf_conntrack_tuple", "dst.protonum", &bi->tuple_protonum);
	/* Only with CONFIG_NF_CONNTRACK_MARK; connmark needs it. */
	if (path_off(btf, "nf_conn", "mark", &bi->ct_mark))
		bi->ct_mark = 0;
	bi->ct_tuple = th + tuple;
	bi->ct_tuple_stride = struct_size(btf, "nf_conntrack_tuple_hash");
	bi->ct_tuple_size = struct_size(btf, "nf_conntrack_tuple");
	/* What the prologue copies must fit its slots (codegen.h, CG_OFF_CTTUPLE). */
	bi->ct_ok = !err && bi->ct_tuple_stride && bi->ct_tuple_size &&
		    bi->ct_tuple_size <= 40;
	btf__free(mod);
}

/* An fd of the loaded BTF object named @name (a module's), or -1. */
static int module_btf_fd(const char *name)
{
	uint32_t id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = { 0 };
		uint32_t len = sizeof(info);
		char buf[64] = "";
		int fd;

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		info.name = (uintptr_t)buf;
		info.name_len = sizeof(buf);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(buf, name))
			return fd;
		close(fd);
	}
	return -1;
}

static void module_kfuncs_none(struct btf_info *bi)
{
	bi->mod_btf_fd = -1;
	bi->kf_reject = -1;
	bi->kf_log = -1;
	bi->kf_nflog = -1;
	bi->kf_xt_match = -1;
	bi->kf_xt_target = -1;
	bi->kf_addrtype = -1;
	bi->kf_mark = -1;
	bi->kf_notrack = -1;
}

/* bpfilter_kfunc.ko's kfuncs, when the module is loaded (kf_* -1 otherwise). */
static void module_kfuncs_load(struct btf *vmlinux, struct btf_info *bi)
{
	struct btf *mod = btf__load_module_btf("bpfilter_kfunc", vmlinux);

	module_kfuncs_none(bi);
	if (!mod)
		return;
	bi->mod_btf_fd = module_btf_fd("bpfilter_kfunc");
	if (bi->mod_btf_fd >= 0) {
		bi->kf_reject = btf__find_by_name_kind(mod, "bpfilter_reject", BTF_KIND_FUNC);
		bi->kf_log = btf__find_by_name_kind(mod, "bpfilter_log", BTF_KIND_FUNC);
		bi->kf_nflog = btf__find_by_name_kind(mod, "bpfilter_nflog", BTF_KIND_FUNC);
		bi->kf_xt_match = btf__find_by_name_kind(mod, "bpfilter_xt_match", BTF_KIND_FUNC);
		bi->kf_xt_target = btf__find_by_name_kind(mod, "bpfilter_xt_target",
							  BTF_KIND_FUNC);
		bi->kf_addrtype = btf__find_by_name_kind(mod, "bpfilter_addrtype", BTF_KIND_FUNC);
		bi->kf_mark = btf__find_by_name_kind(mod, "bpfilter_mark", BTF_KIND_FUNC);
		bi->kf_notrack = btf__find_by_name_kind(mod, "bpfilter_notrack", BTF_KIND_FUNC);
	}
	btf__free(mod);
}

uint32_t btf_kernel_hz(void)
{
	const char *hz = getenv("BPFILTER_HZ");

	return hz ? strtoul(hz, NULL, 10) : 0;
}

void btf_info_free(struct btf_info *bi)
{
	if (bi->mod_btf_fd >= 0)
		close(bi->mod_btf_fd);
	module_kfuncs_none(bi);
}

static int find_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       uint32_t *bitoff, uint32_t *bits, uint32_t *type_id, int depth)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, n = btf_vlen(t);

	if (depth > 8)
		return -ENOENT;
	for (i = 0; i < n; i++, m++) {
		uint32_t moff = btf_member_bit_offset(t, i);
		const char *mname = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;
		uint32_t sub;

		if (mname && mname[0]) {
			if (strcmp(mname, name))
				continue;
			*bitoff += moff;
			*bits = btf_member_bitfield_size(t, i);
			if (type_id)
				*type_id = m->type;
			return 0;
		}
		mt = resolve(btf, m->type, NULL);
		if (!mt || !btf_is_composite(mt))
			continue;
		sub = *bitoff + moff;
		if (!find_member(btf, mt, name, &sub, bits, type_id, depth + 1)) {
			*bitoff = sub;
			return 0;
		}
	}
	return -ENOENT;
}

/* Bit offset and bitfield size (0: none) of @member in struct @sname; 0 or -ENOENT. */
static int member_bits(const struct btf *btf, const char *sname, const char *member,
		       uint32_t *bitoff, uint32_t *bits)
{
	const struct btf_type *t;
	int32_t id;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	if (!t)
		return -ENOENT;
	*bitoff = 0;
	return find_member(btf, t, member, bitoff, bits, NULL, 0);
}

/* Byte offset of @member, not a bitfield, in struct @sname; 0 or -ENOENT. */
static int member_off(const struct btf *btf, const char *sname,
		      const char *member, uint32_t *out)
{
	uint32_t bitoff, bits;

	if (member_bits(btf, sname, member, &bitoff, &bits) || bits || bitoff % 8)
		return -ENOENT;
	*out = bitoff / 8;
	return 0;
}

/*
 * The members extension matches read (btf.h): each is 0 when this kernel
 * lacks it, and the match that needs it refuses its rules.
 */
static void ext_fields_load(const struct btf *btf, struct btf_info *bi)
{
	static const struct {
		const char *sname, *member;
		size_t at;
	} fields[] = {
		{ "sk_buff", "dev", offsetof(struct btf_info, skb_dev) },
		{ "sk_buff", "head", offsetof(struct btf_info, skb_head) },
		{ "sk_buff", "mac_header", offsetof(struct btf_info, skb_mac_header) },
		{ "sk_buff", "network_header", offsetof(struct btf_info, skb_network_header) },
		{ "sk_buff", "_skb_refdst", offsetof(struct btf_info, skb_refdst) },
		{ "net_device", "type", offsetof(struct btf_info, netdev_type) },
		{ "net_device", "group", offsetof(struct btf_info, netdev_group) },
		{ "dst_entry", "tclassid", offsetof(struct btf_info, dst_tclassid) },
	};
	uint32_t bitoff, bits;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (member_off(btf, fields[i].sname, fields[i].member,
			       (uint32_t *)((char *)bi + fields[i].at)))
			*(uint32_t *)((char *)bi + fields[i].at) = 0;
	/* A 3-bit field: one byte holds it (the verifier lets a program load that byte). */
	if (!member_bits(btf, "sk_buff", "pkt_type", &bitoff, &bits) && bits &&
	    bitoff % 8 + bits <= 8) {
		bi->skb_pkt_type = bitoff / 8;
		bi->skb_pkt_type_shift = bitoff % 8;
		bi->skb_pkt_type_mask = (1u << bits) - 1;
	}
}

int btf_info_load(struct btf_info *bi)
{
	struct btf *btf;
	int err;

	memset(bi, 0, sizeof(*bi));
	module_kfuncs_none(bi);
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return errno ? -errno : -ENOENT;

	bi->kf_dynptr_from_skb = btf__find_by_name_kind(btf, "bpf_dynptr_from_skb",
							BTF_KIND_FUNC);
	bi->kf_dynptr_slice = btf__find_by_name_kind(btf, "bpf_dynptr_slice", BTF_KIND_FUNC);
	bi->kf_rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC);
	bi->ty_iphdr = btf__find_by_name_kind(btf, "iphdr", BTF_KIND_STRUCT);
	bi->ty_ipv6hdr = btf__find_by_name_kind(btf, "ipv6hdr", BTF_KIND_STRUCT);
	bi->ty_tcphdr = btf__find_by_name_kind(btf, "tcphdr", BTF_KIND_STRUCT);
	bi->ty_udphdr = btf__find_by_name_kind(btf, "udphdr", BTF_KIND_STRUCT);
	if (bi->kf_dynptr_from_skb < 0 || bi->kf_dynptr_slice < 0 || bi->kf_rdonly_cast < 0 ||
	    bi->ty_iphdr < 0 || bi->ty_tcphdr < 0 || bi->ty_udphdr < 0) {
		err = -ENOENT;
		goto out;
	}
	err = member_off(btf, "bpf_nf_ctx", "state", &bi->nf_ctx_state);
	if (!err)
		err = member_off(btf, "bpf_nf_ctx", "skb", &bi->nf_ctx_skb);
	if (!err)
		err = member_off(btf, "nf_hook_state", "in", &bi->state_in);
	if (!err)
		err = member_off(btf, "nf_hook_state", "out", &bi->state_out);
	if (!err)
		err = member_off(btf, "nf_hook_state", "hook", &bi->state_hook);
	if (!err)
		err = member_off(btf, "net_device", "name", &bi->netdev_name);
	if (!err)
		err = member_off(btf, "sk_buff", "len", &bi->skb_len);
	if (!err)
		err = member_off(btf, "sk_buff", "data_len", &bi->skb_data_len);
	if (!err)
		err = member_off(btf, "sk_buff", "data", &bi->skb_data);
	if (!err)
		err = member_off(btf, "sk_buff", "mark", &bi->skb_mark);
	/* A kernel without conntrack has no _nfct: only conntrack matches need it. */
	if (!err && member_off(btf, "sk_buff", "_nfct", &bi->skb_nfct))
		bi->skb_nfct = 0;
	if (!err) {
		ext_fields_load(btf, bi);
		ct_layout_load(btf, bi);
		module_kfuncs_load(btf, bi);
		bi->hz = btf_kernel_hz();
		bi->loaded = true;
	}
out:
	btf__free(btf);
	return err;
}
