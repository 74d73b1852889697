// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel layout discovery through vmlinux BTF, with libbpf's BTF API.
 */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf.h"

/*
 * Find member @name of the struct or union @t, looking into anonymous
 * struct/union members too (sk_buff nests most of its fields in them).
 * Adds the member's byte offset to *off. Returns 0 or -ENOENT.
 */
static int find_member(const struct btf *btf, const struct btf_type *t,
		       const char *name, uint32_t *off, int depth)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, n = btf_vlen(t);

	if (depth > 8)
		return -ENOENT;
	for (i = 0; i < n; i++, m++) {
		uint32_t bitoff = btf_member_bit_offset(t, i);
		const char *mname = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;

		if (mname && mname[0]) {
			if (strcmp(mname, name))
				continue;
			/* Bitfields are not what the generator loads. */
			if (bitoff % 8 || btf_member_bitfield_size(t, i))
				return -ENOENT;
			*off += bitoff / 8;
			return 0;
		}
		mt = btf__type_by_id(btf, m->type);
		while (mt && (btf_is_mod(mt) || btf_is_typedef(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (!mt || !btf_is_composite(mt) || bitoff % 8)
			continue;
		uint32_t sub = *off + bitoff / 8;

		if (!find_member(btf, mt, name, &sub, depth + 1)) {
			*off = sub;
			return 0;
		}
	}
	return -ENOENT;
}

/* Byte offset of @member in struct @sname; 0 or -ENOENT. */
static int member_off(const struct btf *btf, const char *sname,
		      const char *member, uint32_t *out)
{
	const struct btf_type *t;
	uint32_t off = 0;
	int32_t id;
	int err;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	if (!t)
		return -ENOENT;
	err = find_member(btf, t, member, &off, 0);
	if (err)
		return err;
	*out = off;
	return 0;
}

int btf_info_load(struct btf_info *bi)
{
	struct btf *btf;
	int err;

	memset(bi, 0, sizeof(*bi));
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return errno ? -errno : -ENOENT;

	bi->kf_dynptr_from_skb = btf__find_by_name_kind(btf, "bpf_dynptr_from_skb",
							BTF_KIND_FUNC);
	bi->kf_dynptr_slice = btf__find_by_name_kind(btf, "bpf_dynptr_slice", BTF_KIND_FUNC);
	bi->kf_rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC);
	bi->ty_iphdr = btf__find_by_name_kind(btf, "iphdr", BTF_KIND_STRUCT);
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
	if (!err)
		bi->loaded = true;
out:
	btf__free(btf);
	return err;
}
