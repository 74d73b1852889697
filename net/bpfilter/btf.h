/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF code generator needs to know about the running kernel, read
 * from its BTF (/sys/kernel/btf/vmlinux) once at start: kfunc ids and the
 * offsets of the kernel struct members the generated programs load. Nothing
 * here is hard-coded, so one helper binary works on every kernel with
 * BPF_PROG_TYPE_NETFILTER.
 */
#ifndef _BPFILTER_BTF_H
#define _BPFILTER_BTF_H

#include <stdbool.h>
#include <stdint.h>

struct btf_info {
	/* BTF type ids of the kfuncs used by generated programs. */
	int32_t kf_dynptr_from_skb;
	int32_t kf_dynptr_slice;
	int32_t kf_rdonly_cast;
	/* BTF type ids of the headers bpf_rdonly_cast() gives a packet pointer. */
	int32_t ty_iphdr;
	int32_t ty_ipv6hdr;	/* struct ipv6hdr, or < 0: no IPv6 programs */
	int32_t ty_tcphdr;
	int32_t ty_udphdr;
	/* Byte offsets of members of kernel structs. */
	uint32_t nf_ctx_state;		/* struct bpf_nf_ctx.state */
	uint32_t nf_ctx_skb;		/* struct bpf_nf_ctx.skb */
	uint32_t state_in;		/* struct nf_hook_state.in */
	uint32_t state_out;		/* struct nf_hook_state.out */
	uint32_t state_hook;		/* struct nf_hook_state.hook, u8 */
	uint32_t netdev_name;		/* struct net_device.name */
	uint32_t skb_len;		/* struct sk_buff.len */
	uint32_t skb_data_len;		/* struct sk_buff.data_len */
	uint32_t skb_data;		/* struct sk_buff.data */
	uint32_t skb_mark;		/* struct sk_buff.mark */
	uint32_t skb_nfct;		/* struct sk_buff._nfct, 0 without conntrack */
	/* Read by extension matches; 0 where this kernel lacks the member. */
	uint32_t skb_dev;		/* struct sk_buff.dev */
	uint32_t skb_head;		/* struct sk_buff.head */
	uint32_t skb_mac_header;	/* struct sk_buff.mac_header, u16 */
	uint32_t skb_network_header;	/* struct sk_buff.network_header, u16 */
	uint32_t skb_refdst;		/* struct sk_buff._skb_refdst */
	uint32_t skb_pkt_type;		/* byte holding the bitfield sk_buff.pkt_type, */
	uint32_t skb_pkt_type_shift;	/* ... its lowest bit in that byte */
	uint32_t skb_pkt_type_mask;	/* ... and its mask once shifted down */
	uint32_t netdev_type;		/* struct net_device.type, u16 (ARPHRD_*) */
	uint32_t netdev_group;		/* struct net_device.group */
	uint32_t dst_tclassid;		/* struct dst_entry.tclassid (CONFIG_IP_ROUTE_CLASSID) */
	/*
	 * struct nf_conn, from vmlinux or the nf_conntrack module's BTF (the
	 * conntrack match options that read the entry); ct_ok if found.
	 */
	bool ct_ok;
	uint32_t ct_status;		/* nf_conn.status */
	uint32_t ct_timeout;		/* nf_conn.timeout, u32 jiffies */
	uint32_t ct_tuple;		/* nf_conn.tuplehash[0].tuple */
	uint32_t ct_tuple_stride;	/* sizeof(struct nf_conntrack_tuple_hash) */
	uint32_t ct_tuple_size;		/* sizeof(struct nf_conntrack_tuple) */
	uint32_t tuple_src_u3;		/* in nf_conntrack_tuple: src.u3 */
	uint32_t tuple_src_port;	/* src.u.all */
	uint32_t tuple_dst_u3;		/* dst.u3 */
	uint32_t tuple_dst_port;	/* dst.u.all */
	uint32_t tuple_protonum;	/* dst.protonum */
	uint32_t ct_mark;		/* nf_conn.mark, 0 without CONFIG_NF_CONNTRACK_MARK */
	uint32_t hz;			/* the kernel's HZ ($BPFILTER_HZ), 0 if unknown */
	/*
	 * bpfilter.ko's kfuncs (bpfilter_kfunc.c), in its module BTF: ids, or
	 * -1 without the module; mod_btf_fd is that BTF's fd (fd_array[1] of a
	 * program that calls them), or -1.
	 */
	int32_t kf_reject;
	int32_t kf_log;
	int32_t kf_nflog;
	int32_t kf_xt_match;
	int32_t kf_xt_target;
	int32_t kf_addrtype;
	int32_t kf_mark;
	int32_t kf_notrack;
	int mod_btf_fd;
	bool loaded;
};

/* Fill *bi from the running kernel's vmlinux BTF; 0 or -errno (-ENOENT when
 * a kfunc or member is missing, i.e. the kernel lacks BPF netfilter). */
int btf_info_load(struct btf_info *bi);
/* The kernel's HZ, which bpfilter.ko passes as $BPFILTER_HZ (BTF has none); 0 if unknown. */
uint32_t btf_kernel_hz(void);
/* Release what btf_info_load() keeps open (the module BTF fd). */
void btf_info_free(struct btf_info *bi);

#endif /* _BPFILTER_BTF_H */
