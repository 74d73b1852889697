#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seed corpus of fuzz_blob: valid filter tables as stock iptables-legacy builds them.

    fuzz_seeds.py OUTDIR [SRCTREE]

EXTENSIONS below is the one description of every extension payload: kind,
name, revision, the rule's ip header, the packed payload and the iptables
command line it stands for. Each row becomes a table of its own (the rule
first in INPUT), and the first row of each extension one more table (also
with fuzz_blob's variants: a kernel without kfuncs or conntrack, tiny
segments); a few tables for chains (jump, goto, RETURN), folded rule runs
and a realistic server add the structure. Rows of an extension whose
net/bpfilter/ext_<name>.c is absent are left out; an ext_*.c whose
extension has no row is an error.

Writes one file per table into OUTDIR and prints the NAME/REV of every
extension the seeds carry, one per line: 30-fuzz.sh checks that fuzz_blob
accepted each seed and ran each of these generators.
"""
import os
import re
import socket
import struct
import sys

TCP, UDP, ICMP, ESP, AH, ICMPV6, MH = 6, 17, 1, 50, 51, 58, 135
NF_DROP, NF_ACCEPT = 0, 1
XT_RETURN = -5				# -NF_REPEAT - 1
IPT_F_GOTO = 0x02
IPT_INV_PROTO = 0x40
IP6T_F_PROTO, IP6T_F_GOTO = 0x01, 0x04
HOOKS = {"INPUT": 1, "FORWARD": 2, "OUTPUT": 3}	# NF_INET_LOCAL_IN...
# Each table's built-in chains (x_tables' valid_hooks).
TABLE_HOOKS = {"filter": HOOKS, "raw": {"PREROUTING": 0, "OUTPUT": 3},
               "nat": {"PREROUTING": 0, "INPUT": 1, "OUTPUT": 3, "POSTROUTING": 4}}
IPT_IP_SIZE, IP6T_IP6_SIZE = 84, 136	# struct ipt_ip, struct ip6t_ip6
M, T = "match", "target"


def xt_align(n):
    return (n + 7) & ~7


def addr(a):
    """'a.b.c.d[/len]' -> (address, mask), network order."""
    a, _, plen = a.partition("/")
    plen = int(plen) if plen else 32
    mask = (0xffffffff << (32 - plen)) & 0xffffffff if plen else 0
    return socket.inet_aton(a), struct.pack(">I", mask)


def iface(name):
    """iptables' interface and mask: 'eth+' matches the prefix, 'eth0' the name and its NUL."""
    if not name:
        return b"\0" * 16, b"\0" * 16
    if name.endswith("+"):
        name = name[:-1]
        n = len(name)
    else:
        n = len(name) + 1
    return name.encode().ljust(16, b"\0"), (b"\xff" * n).ljust(16, b"\0")


def ipt_ip(proto=0, src=None, dst=None, i=None, o=None, inv=0, flags=0):
    s, sm = addr(src) if src else (b"\0" * 4, b"\0" * 4)
    d, dm = addr(dst) if dst else (b"\0" * 4, b"\0" * 4)
    ii, im = iface(i)
    oi, om = iface(o)
    return s + d + sm + dm + ii + oi + im + om + struct.pack("<HBB", proto, flags, inv)


def addr6(a):
    """'x::y[/len]' -> (address, mask), network order."""
    a, _, plen = a.partition("/")
    plen = int(plen) if plen else 128
    mask = ((1 << 128) - 1) ^ ((1 << (128 - plen)) - 1)
    return socket.inet_pton(socket.AF_INET6, a), mask.to_bytes(16, "big")


def ip6t_ip6(proto=0, src=None, dst=None, i=None, o=None, inv=0, flags=0, tos=0):
    """ip6tables sets IP6T_F_PROTO with -p; the struct ends in 3 bytes of padding."""
    s, sm = addr6(src) if src else (b"\0" * 16, b"\0" * 16)
    d, dm = addr6(dst) if dst else (b"\0" * 16, b"\0" * 16)
    ii, im = iface(i)
    oi, om = iface(o)
    flags |= IP6T_F_PROTO if proto else 0
    return (s + d + sm + dm + ii + oi + im + om +
            struct.pack("<HBBB3x", proto, tos, flags, inv))


def nf_addr(a):
    """union nf_inet_addr with an IPv4 or IPv6 address (network order)."""
    if ":" in a:
        return socket.inet_pton(socket.AF_INET6, a)
    return socket.inet_aton(a) + b"\0" * 12


def cstr(s, n):
    b = s.encode()
    assert len(b) < n, s
    return b.ljust(n, b"\0")


# Payloads: one function per kernel struct, exactly sizeof(struct) bytes.
def xt_tcp(sport=(0, 65535), dport=(0, 65535), option=0, flags=(0, 0), inv=0):
    return struct.pack("<4H4B", *sport, *dport, option, *flags, inv)


def xt_udp(sport=(0, 65535), dport=(0, 65535), inv=0):
    return struct.pack("<4HBx", *sport, *dport, inv)


def ipt_icmp(typ, code=(0, 255), inv=0):
    return struct.pack("<4B", typ, *code, inv)


def xt_comment_info(text):
    return cstr(text, 256)


def xt_multiport_v1(flags, ports, invert=0):
    """ports: ints and (lo, hi) ranges; flags 0 --sports, 1 --dports, 2 --ports."""
    p, pf = [], []
    for x in ports:
        if isinstance(x, tuple):
            p += list(x)
            pf += [1, 0]
        else:
            p.append(x)
            pf.append(0)
    assert len(p) <= 15
    return struct.pack("<BB15H15BB", flags, len(p), *(p + [0] * (15 - len(p))),
                       *(pf + [0] * (15 - len(pf))), invert)


def xt_iprange_mtinfo(src=None, dst=None, src_inv=False, dst_inv=False):
    flags = ((1 if src else 0) | (2 if dst else 0) |
             (0x10 if src_inv else 0) | (0x20 if dst_inv else 0))
    z = ("0.0.0.0", "0.0.0.0")
    s, d = src or z, dst or z
    return (nf_addr(s[0]) + nf_addr(s[1]) + nf_addr(d[0]) + nf_addr(d[1]) +
            struct.pack("<B3x", flags))


def xt_mark_mtinfo1(mark, mask=0xffffffff, invert=0):
    return struct.pack("<IIB3x", mark, mask, invert)


def xt_mark_tginfo2(mark, mask):
    return struct.pack("<II", mark, mask)


NAT_MAP_IPS, NAT_PROTO = 1, 2		# NF_NAT_RANGE_MAP_IPS, NF_NAT_RANGE_PROTO_SPECIFIED


def nat_compat(flags, lo=None, hi=None, ports=(0, 0)):
    """struct nf_nat_ipv4_multi_range_compat with one range (ports in network order)."""
    return struct.pack("<I", 1) + struct.pack("<I", flags) + nf_addr(lo or "0.0.0.0")[:4] + \
        nf_addr(hi or lo or "0.0.0.0")[:4] + struct.pack(">HH", *ports)


def nat_range(rev, flags, lo=None, hi=None, ports=(0, 0)):
    """struct nf_nat_range (rev 1) or nf_nat_range2 (rev 2, base_proto 0 and padding)."""
    r = struct.pack("<I", flags) + nf_addr(lo or "0.0.0.0") + nf_addr(hi or lo or "0.0.0.0") + \
        struct.pack(">HH", *ports)
    return r + (b"\0" * 4 if rev == 2 else b"")


def xt_ct_target_info(rev, flags, zone=0, helper=""):
    """struct xt_ct_target_info (rev 0) or _v1 (rev 1, 2); the kernel's ct pointer zeroed."""
    info = struct.pack("<HHII", flags, zone, 0, 0) + cstr(helper, 16)
    if rev:
        info += b"\0" * 32			# timeout[32]
    return info + b"\0" * 4 + b"\0" * 8	# padding, then the aligned ct pointer


def xt_length_info(lo, hi, invert=0):
    return struct.pack("<HHBx", lo, hi, invert)


def ipt_ttl_info(mode, ttl):		# mode: 0 eq, 1 ne, 2 lt, 3 gt
    return struct.pack("<BB", mode, ttl)


def xt_tos_match_info(value, mask, invert=0):
    return struct.pack("<BBB", mask, value, invert)


def xt_dscp_info(dscp, invert=0):
    return struct.pack("<BB", dscp, invert)


def xt_ecn_info(operation, invert=0, ip_ect=0):
    return struct.pack("<BBBB", operation, invert, ip_ect, 0)


def xt_tcpmss_match_info(lo, hi, invert=0):
    return struct.pack("<HHBx", lo, hi, invert)


def xt_u32(tests, invert=0):
    """tests: [([(number, nextop), ...], [(min, max), ...]), ...]"""
    out = b""
    for locs, vals in tests:
        t = b"".join(struct.pack("<IB3x", n, op) for n, op in locs)
        t += b"\0" * 8 * (11 - len(locs))
        t += b"".join(struct.pack("<II", lo, hi) for lo, hi in vals)
        t += b"\0" * 8 * (11 - len(vals))
        out += t + struct.pack("<BBxx", len(locs), len(vals))
    out += b"\0" * 180 * (11 - len(tests))
    return out + struct.pack("<BBxx", len(tests), invert)


def spi_range(lo, hi, inv=0):		# struct ipt_ah, struct xt_esp
    return struct.pack("<IIB3x", lo, hi, inv)


# xt_conntrack: match_flags, state bits.
CT_STATE, CT_PROTO, CT_ORIGSRC, CT_ORIGDST = 1 << 0, 1 << 1, 1 << 2, 1 << 3
CT_REPLSRC, CT_REPLDST, CT_STATUS, CT_EXPIRES = 1 << 4, 1 << 5, 1 << 6, 1 << 7
CT_ORIGSRC_PORT, CT_ORIGDST_PORT = 1 << 8, 1 << 9
CT_REPLSRC_PORT, CT_REPLDST_PORT = 1 << 10, 1 << 11
CT_DIRECTION, CT_STATE_ALIAS = 1 << 12, 1 << 13
ST_INVALID, ST_ESTABLISHED, ST_RELATED, ST_NEW = 1 << 0, 1 << 1, 1 << 2, 1 << 3
ST_SNAT, ST_DNAT, ST_UNTRACKED = 1 << 6, 1 << 7, 1 << 8	# xt_conntrack's
IPS_EXPECTED, IPS_SEEN_REPLY, IPS_ASSURED = 1 << 0, 1 << 1, 1 << 2


def xt_conntrack_mtinfo(rev, flags, inv=0, state=0, status=0, orig_src=None, orig_dst=None,
                        repl_src=None, repl_dst=None, proto=0, ports=(0, 0, 0, 0),
                        ports_high=(0, 0, 0, 0), expires=(0, 0)):
    """Revisions 1 (u8 masks), 2 (u16 masks) and 3 (and port ranges, host order);
    ports of revisions 1 and 2 are in network order."""
    body = b""
    for a in (orig_src, orig_dst, repl_src, repl_dst):
        if not a:
            body += b"\0" * 32
        elif ":" in a:
            a, m = addr6(a)
            body += a + m
        else:
            a, m = addr(a)
            body += a + b"\0" * 12 + m + b"\0" * 12
    if rev < 3:
        ports = tuple(socket.htons(p) for p in ports)
    body += struct.pack("<IIH4HHH", *expires, proto, *ports, flags, inv)
    if rev == 1:
        return body + struct.pack("<BB", state, status)
    body += struct.pack("<HH", state, status)
    if rev == 2:
        return body + b"\0\0"
    return body + struct.pack("<4H", *ports_high) + b"\0\0"


def xt_state_info(mask):
    return struct.pack("<I", mask)


def xt_rateinfo(rate, seconds, burst):
    """--limit rate/(seconds: 1 sec, 60 min...) --limit-burst burst, as iptables
    sends it: avg in XT_LIMIT_SCALE units, the kernel's own fields zero."""
    return struct.pack("<IIQIIIxxxxQ", 10000 * seconds // rate, burst, 0, 0, 0, 0, 0)


RECENT_CHECK, RECENT_SET, RECENT_UPDATE, RECENT_REMOVE, RECENT_TTL, RECENT_REAP = 1, 2, 4, 8, 16, 32


def xt_recent_mtinfo(rev, name, check_set, seconds=0, hit_count=0, invert=0, side=0,
                     mask="255.255.255.255"):
    """Revision 0, and 1 with its mask; side 0 --rsource, 1 --rdest."""
    b = struct.pack("<IIBB", seconds, hit_count, check_set, invert) + cstr(name, 200)
    b += struct.pack("<Bx", side)
    return b if rev == 0 else b + nf_addr(mask)


def xt_cpu_info(cpu, invert=0):
    return struct.pack("<II", cpu, invert)


def xt_statistic_info(mode, flags=0, probability=0, every=0, packet=0):
    """mode 0 random (probability in 2^31 units), 1 nth (count = packet, as
    iptables sends it); the kernel's master pointer zero."""
    if mode == 0:
        return struct.pack("<HHIIIQ", mode, flags, probability, 0, 0, 0)
    return struct.pack("<HHIIIQ", mode, flags, every, packet, packet, 0)


def xt_addrtype_info(rev, src=0, dst=0, flags=0, inv_src=0, inv_dst=0):
    """Type masks are 1 << RTN_*; revision 1 flags: 1 ! src, 2 ! dst, 4 in, 8 out."""
    if rev == 0:
        return struct.pack("<HHII", src, dst, inv_src, inv_dst)
    return struct.pack("<HHI", src, dst, flags)


def xt_pkttype_info(pkttype, invert=0):	# PACKET_HOST 0, BROADCAST 1, MULTICAST 2
    return struct.pack("<ii", pkttype, invert)


def xt_devgroup_info(flags, src=0, src_mask=0, dst=0, dst_mask=0):
    """flags: 1 src, 2 ! src, 4 dst, 8 ! dst."""
    return struct.pack("<IIIII", flags, src, src_mask, dst, dst_mask)


def xt_realm_info(id_, mask=0xffffffff, invert=0):
    return struct.pack("<IIB", id_, mask, invert)


def xt_mac_info(mac, invert=0):
    return bytes(int(b, 16) for b in mac.split(":")) + b"\0\0" + struct.pack("<i", invert)


def xt_connmark_mtinfo1(mark, mask=0xffffffff, invert=0):
    return struct.pack("<IIB", mark, mask, invert)


def xt_owner_match_info(match, invert=0, uid=(0, 0), gid=(0, 0)):
    """match/invert: 1 uid, 2 gid, 4 socket-exists, 8 suppl-groups."""
    return struct.pack("<IIIIBB", uid[0], uid[1], gid[0], gid[1], match, invert)


def xt_set_info_match_v4(index, dim, flags, packets=(0, 0), bytes_=(0, 0), mflags=0):
    """flags: bit (dim - 1) set for each dst side; packets/bytes: (value, op)."""
    return struct.pack("<HBB4xQB7xQB7xI4x", index, dim, flags, packets[0], packets[1],
                       bytes_[0], bytes_[1], mflags)


def xt_hashlimit_mtinfo3(name, mode, avg, burst, upto=True):
    """Revision 3: mode 1 srcip, 2 srcport, 4 dstip, 8 dstport; 0x10 invert (above)."""
    cfg = struct.pack("<QQQIIIIIBB2x", mode | (0 if upto else 0x10), avg, burst, 0, 0, 0, 0,
                      0, 32, 0)
    return (cstr(name, 255) + b"\0" + cfg).ljust(312 - 8, b"\0")[:304] + b"\0" * 8


def xt_connlimit_info(limit, flags=0, mask="255.255.255.255"):
    """flags: 1 invert, 2 daddr."""
    return nf_addr(mask) + struct.pack("<II", limit, flags) + b"\0" * 8


def xt_string_info(pattern, algo="bm", from_=0, to=65535, invert=0):
    return (struct.pack("<HH", from_, to) + cstr(algo, 16) + cstr(pattern, 128) +
            struct.pack("<BB2x", len(pattern), invert) + b"\0" * 8)


def ipt_reject_info(with_):		# 3 port-unreachable, 5 net-prohibited, 7 tcp-reset, 8 admin
    return struct.pack("<I", with_)


def xt_log_info(level, flags, prefix):
    return struct.pack("<BB", level, flags) + cstr(prefix, 30)


def xt_nflog_info(group, prefix, size=0, threshold=1):
    return struct.pack("<IHHHH", size, group, threshold, 1 if size else 0, 0) + cstr(prefix, 64)


SIZES = {				# sizeof() of each payload struct, x86_64
    "tcp": 12, "udp": 10, "icmp": 4, "icmp6": 4, "comment": 256, "multiport": 48, "iprange": 68,
    "mark": 12, "length": 6, "ttl": 2, "tos": 3, "dscp": 2, "ah": 12, "esp": 12,
    "conntrack/1": 152, "conntrack/2": 156, "conntrack/3": 164, "state": 4, "limit": 40,
    "recent/0": 212, "recent/1": 228, "REJECT": 4, "LOG": 32, "NFLOG": 76, "cpu": 8,
    "statistic": 24, "addrtype/0": 12, "addrtype/1": 8, "pkttype": 8, "devgroup": 20,
    "realm": 9, "mac": 12, "connmark": 9, "owner": 18, "set/0": 32, "set/1": 4, "set/2": 4,
    "set/3": 48, "set/4": 48, "hashlimit/1": 56, "hashlimit/2": 304, "hashlimit/3": 312,
    "connlimit": 32, "string": 160, "time": 24, "physdev": 66, "cgroup/0": 8, "cgroup/1": 4112,
    "cgroup/2": 528, "ecn": 4, "tcpmss": 6, "u32": 1984, "MARK": 8,
    "hl": 2, "mh": 3, "eui64": 4, "NOTRACK": 0, "CT/0": 40, "CT/1": 72, "CT/2": 72,
    "DNAT/0": 20, "SNAT/0": 20, "DNAT/1": 40, "SNAT/1": 40, "DNAT/2": 44, "SNAT/2": 44,
    "MASQUERADE": 20, "REDIRECT": 20, "NETMAP": 20,
    "MASQUERADE6": 40, "REDIRECT6": 40, "NETMAP6": 40,
    # ip6_tables' own payloads; "ah6" is IPv6's ah (struct ip6t_ah).
    "frag": 16, "hbh": 40, "dst": 40, "rt": 280, "ah6": 16, "ipv6header": 3,
}

def ip6t_frag(ids=(0, 0xffffffff), flags=0, inv=0, hdrlen=0):
    """flags: 0x04 --fragres, 0x08 --fragfirst, 0x10 --fragmore, 0x20 --fraglast."""
    return struct.pack("<IIIBBxx", ids[0], ids[1], hdrlen,
                       flags | (1 if ids != (0, 0xffffffff) else 0), inv)


def ip6t_opts(hdrlen=None, opts=(), inv=0):
    """--hbh-len/--dst-len and the strict --hbh-opts list: (type, length or 0xff)."""
    flags = (0x01 if hdrlen is not None else 0) | (0x02 if opts else 0)
    words = [t << 8 | l for t, l in opts] + [0] * (16 - len(opts))
    return struct.pack("<IBB16HBx", hdrlen or 0, flags, inv, *words, len(opts))


def ip6t_rt(rt_type=None, segsleft=(0, 0xffffffff), hdrlen=None, res=False, addrs=(), inv=0):
    flags = ((0x01 if rt_type is not None else 0) | (0x02 if segsleft != (0, 0xffffffff) else 0) |
             (0x04 if hdrlen is not None else 0) | (0x08 if res else 0) | (0x10 if addrs else 0))
    a = b"".join(socket.inet_pton(socket.AF_INET6, x) for x in addrs).ljust(256, b"\0")
    return (struct.pack("<IIIIBBxx", rt_type or 0, segsleft[0], segsleft[1], hdrlen or 0, flags, inv) +
            a + struct.pack("<B3x", len(addrs)))


def ip6t_ah(spis=(0, 0xffffffff), hdrlen=0, res=0, inv=0):
    return struct.pack("<IIIBBxx", spis[0], spis[1], hdrlen, res, inv)


# kind, name, revision, the rule's ipt_ip, payload, iptables' words for it.
EXTENSIONS = [
    (M, "tcp", 0, ipt_ip(TCP, src="198.51.100.0/24"),
     xt_tcp(sport=(1024, 65535), dport=(22, 22), flags=(0x17, 0x02)),
     "-s 198.51.100.0/24 -p tcp --sport 1024:65535 --dport 22 --syn"),
    (M, "tcp", 0, ipt_ip(TCP, i="eth0"),
     xt_tcp(dport=(80, 80), option=8, inv=0x02 | 0x08),
     "-i eth0 -p tcp ! --dport 80 ! --tcp-option 8"),
    (M, "udp", 0, ipt_ip(UDP, dst="192.0.2.53"), xt_udp(sport=(1024, 65535), dport=(53, 53)),
     "-d 192.0.2.53 -p udp --sport 1024:65535 --dport 53"),
    (M, "udp", 0, ipt_ip(UDP, o="wg+"), xt_udp(sport=(67, 68), inv=0x01),
     "-o wg+ -p udp ! --sport 67:68"),
    (M, "icmp", 0, ipt_ip(ICMP), ipt_icmp(8), "-p icmp --icmp-type echo-request"),
    (M, "icmp", 0, ipt_ip(ICMP), ipt_icmp(3, (3, 3), inv=1),
     "-p icmp ! --icmp-type port-unreachable"),
    (M, "icmp", 0, ipt_ip(ICMP), ipt_icmp(0xff), "-p icmp --icmp-type any"),
    (M, "comment", 0, ipt_ip(TCP), xt_comment_info("ssh from the office, ticket 4711"),
     '-p tcp -m comment --comment "ssh from the office, ticket 4711"'),
    (M, "multiport", 1, ipt_ip(TCP), xt_multiport_v1(1, [80, 443, (8000, 8080)]),
     "-p tcp -m multiport --dports 80,443,8000:8080"),
    (M, "multiport", 1, ipt_ip(UDP), xt_multiport_v1(2, [500, 4500], invert=1),
     "-p udp -m multiport ! --ports 500,4500"),
    (M, "iprange", 1, ipt_ip(),
     xt_iprange_mtinfo(src=("192.168.1.100", "192.168.1.200"), dst=("10.0.0.1", "10.0.0.9"),
                       dst_inv=True),
     "-m iprange --src-range 192.168.1.100-192.168.1.200 ! --dst-range 10.0.0.1-10.0.0.9"),
    (M, "mark", 1, ipt_ip(), xt_mark_mtinfo1(0x1, 0xff), "-m mark --mark 0x1/0xff"),
    (M, "mark", 1, ipt_ip(), xt_mark_mtinfo1(0x10000, 0xffff0000, invert=1),
     "-m mark ! --mark 0x10000/0xffff0000"),
    (M, "length", 0, ipt_ip(), xt_length_info(1400, 65535), "-m length --length 1400:65535"),
    (M, "ttl", 0, ipt_ip(), ipt_ttl_info(2, 5), "-m ttl --ttl-lt 5"),
    (M, "ttl", 0, ipt_ip(), ipt_ttl_info(1, 64), "-m ttl ! --ttl-eq 64"),
    (M, "tos", 1, ipt_ip(), xt_tos_match_info(0x10, 0x3f), "-m tos --tos Minimize-Delay"),
    (M, "dscp", 0, ipt_ip(), xt_dscp_info(46), "-m dscp --dscp 46"),
    (M, "dscp", 0, ipt_ip(), xt_dscp_info(34, invert=1), "-m dscp ! --dscp-class AF41"),
    (M, "ah", 0, ipt_ip(AH), spi_range(256, 512), "-p ah -m ah --ahspi 256:512"),
    (M, "esp", 0, ipt_ip(ESP), spi_range(1000, 1000, inv=1), "-p esp -m esp ! --espspi 1000"),
    (M, "conntrack", 1, ipt_ip(),
     xt_conntrack_mtinfo(1, CT_STATE | CT_DIRECTION, state=ST_ESTABLISHED | ST_RELATED),
     "-m conntrack --ctstate ESTABLISHED,RELATED --ctdir ORIGINAL (revision 1)"),
    (M, "conntrack", 2, ipt_ip(TCP),
     xt_conntrack_mtinfo(2, CT_STATE | CT_PROTO | CT_ORIGDST | CT_ORIGDST_PORT | CT_STATUS,
                         state=ST_NEW | ST_DNAT, status=IPS_ASSURED, orig_dst="203.0.113.7",
                         proto=TCP, ports=(0, 80, 0, 0)),
     "-p tcp -m conntrack --ctstate NEW,DNAT --ctproto tcp --ctorigdst 203.0.113.7 "
     "--ctorigdstport 80 --ctstatus ASSURED (revision 2)"),
    (M, "conntrack", 3, ipt_ip(),
     xt_conntrack_mtinfo(3, CT_STATE | CT_ORIGSRC | CT_REPLDST | CT_REPLSRC | CT_ORIGSRC_PORT |
                         CT_REPLDST_PORT | CT_STATUS | CT_EXPIRES | CT_DIRECTION | CT_PROTO,
                         inv=CT_REPLSRC | CT_STATUS | CT_DIRECTION,
                         state=ST_ESTABLISHED | ST_SNAT | ST_UNTRACKED, status=IPS_EXPECTED,
                         orig_src="10.0.0.0/8", repl_src="10.1.2.3", repl_dst="198.51.100.9",
                         proto=UDP, ports=(1024, 0, 0, 53), ports_high=(65535, 0, 0, 53),
                         expires=(10, 3600)),
     "-m conntrack --ctstate ESTABLISHED,SNAT,UNTRACKED --ctproto udp --ctorigsrc 10.0.0.0/8 "
     "! --ctreplsrc 10.1.2.3 --ctrepldst 198.51.100.9 --ctorigsrcport 1024:65535 "
     "--ctrepldstport 53 ! --ctstatus EXPECTED --ctexpire 10:3600 --ctdir REPLY"),
    (M, "conntrack", 3, ipt_ip(),
     xt_conntrack_mtinfo(3, CT_STATE | CT_STATE_ALIAS, state=ST_INVALID),
     "-m state --state INVALID (iptables 1.8: conntrack revision 3)"),
    (M, "state", 0, ipt_ip(), xt_state_info(ST_ESTABLISHED | ST_RELATED | (1 << 6)),
     "-m state --state ESTABLISHED,RELATED,UNTRACKED (xt_state)"),
    (M, "limit", 0, ipt_ip(ICMP), xt_rateinfo(5, 60, 10),
     "-p icmp -m limit --limit 5/min --limit-burst 10"),
    (M, "limit", 0, ipt_ip(), xt_rateinfo(3, 1, 5), "-m limit --limit 3/sec --limit-burst 5"),
    (M, "recent", 0, ipt_ip(TCP),
     xt_recent_mtinfo(0, "ssh", RECENT_CHECK | RECENT_TTL, seconds=60, hit_count=4),
     "-p tcp -m recent --name ssh --rcheck --seconds 60 --hitcount 4 --rttl (revision 0)"),
    (M, "recent", 1, ipt_ip(), xt_recent_mtinfo(1, "badguys", RECENT_SET, side=1,
                                                mask="255.255.255.0"),
     "-m recent --name badguys --set --rdest --mask 255.255.255.0"),
    (M, "cpu", 0, ipt_ip(), xt_cpu_info(1, invert=1), "-m cpu ! --cpu 1"),
    (M, "statistic", 0, ipt_ip(), xt_statistic_info(0, probability=0x40000000),
     "-m statistic --mode random --probability 0.5"),
    (M, "statistic", 0, ipt_ip(UDP), xt_statistic_info(1, flags=1, every=3, packet=2),
     "-p udp -m statistic --mode nth ! --every 4 --packet 2"),
    (M, "addrtype", 0, ipt_ip(), xt_addrtype_info(0, src=1 << 3, inv_src=1),
     "-m addrtype ! --src-type BROADCAST (revision 0)"),
    (M, "addrtype", 1, ipt_ip(), xt_addrtype_info(1, dst=(1 << 2) | (1 << 5), flags=4 | 2),
     "-m addrtype ! --dst-type LOCAL,MULTICAST --limit-iface-in"),
    (M, "pkttype", 0, ipt_ip(), xt_pkttype_info(1, invert=1), "-m pkttype ! --pkt-type broadcast"),
    (M, "devgroup", 0, ipt_ip(), xt_devgroup_info(1 | 2, src=7, src_mask=0xff),
     "-m devgroup ! --src-group 0x7/0xff"),
    (M, "realm", 0, ipt_ip(), xt_realm_info(0x50000, 0xffff0000), "-m realm --realm 0x50000/0xffff0000"),
    (M, "mac", 0, ipt_ip(), xt_mac_info("02:00:00:00:00:01", invert=1),
     "-m mac ! --mac-source 02:00:00:00:00:01"),
    (M, "connmark", 1, ipt_ip(), xt_connmark_mtinfo1(0x5, 0xf), "-m connmark --mark 0x5/0xf"),
    (M, "owner", 1, ipt_ip(), xt_owner_match_info(4, invert=4), "-m owner ! --socket-exists"),
    (M, "set", 4, ipt_ip(), xt_set_info_match_v4(3, 1, 0), "-m set --match-set blocklist src"),
    # The older revisions' payloads (the kernel checks their contents): the set's index,
    # its dimension and the side flags, zeros after; hashlimit's name and zeros.
    (M, "set", 0, ipt_ip(), struct.pack("<H2xI", 3, 1).ljust(32, b"\0"), "revision 0"),
    (M, "set", 1, ipt_ip(), struct.pack("<HBB", 3, 1, 0), "revision 1"),
    (M, "set", 2, ipt_ip(), struct.pack("<HBB", 3, 2, 2), "src,dst (revision 2)"),
    (M, "set", 3, ipt_ip(), struct.pack("<HBB", 3, 1, 0).ljust(48, b"\0"), "revision 3"),
    (M, "hashlimit", 1, ipt_ip(), cstr("ssh", 16).ljust(56, b"\0"), "revision 1"),
    (M, "hashlimit", 2, ipt_ip(), cstr("ssh", 255).ljust(304, b"\0"), "revision 2"),
    (M, "hashlimit", 3, ipt_ip(), xt_hashlimit_mtinfo3("ssh", 1, 10000, 5),
     "-m hashlimit --hashlimit-upto 100/sec --hashlimit-mode srcip --hashlimit-name ssh"),
    (M, "connlimit", 1, ipt_ip(TCP), xt_connlimit_info(10), "-p tcp -m connlimit --connlimit-above 10"),
    (M, "string", 1, ipt_ip(), xt_string_info("evil"), '-m string --string "evil" --algo bm'),
    # time: date_start 0, date_stop 2^31-1, daytime 08:00-17:00 (seconds), all days.
    (M, "time", 0, ipt_ip(), struct.pack("<IIIIIBBBx", 0, 0x7fffffff, 8 * 3600, 17 * 3600,
                                         0xfffffffe, 0xfe, 0, 0),
     "-m time --timestart 08:00 --timestop 17:00"),
    (M, "physdev", 0, ipt_ip(), cstr("br0", 16) + b"\xff" * 3 + b"\0" * 13 + b"\0" * 32 +
     struct.pack("<BB", 1, 0), "-m physdev --physdev-in br0"),
    (M, "cgroup", 0, ipt_ip(), struct.pack("<II", 0x100001, 0), "-m cgroup --cgroup 0x100001"),
    (M, "cgroup", 1, ipt_ip(), struct.pack("<BBBB", 1, 0, 0, 0) + cstr("/system.slice", 4096) +
     b"\0" * 12, "-m cgroup --path /system.slice (revision 1)"),
    (M, "cgroup", 2, ipt_ip(), struct.pack("<BBBB", 1, 0, 0, 0) + cstr("/user.slice", 512) +
     b"\0" * 12, "-m cgroup --path /user.slice"),
    (M, "ecn", 0, ipt_ip(TCP), xt_ecn_info(0x31, invert=0x10, ip_ect=1),
     "-p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece --ecn-ip-ect 1"),
    (M, "ecn", 0, ipt_ip(), xt_ecn_info(0x01, invert=0x01, ip_ect=0), "-m ecn ! --ecn-ip-ect 0"),
    (M, "tcpmss", 0, ipt_ip(TCP), xt_tcpmss_match_info(1, 536), "-p tcp -m tcpmss --mss 1:536"),
    (M, "tcpmss", 0, ipt_ip(TCP), xt_tcpmss_match_info(1460, 1460, invert=1),
     "-p tcp -m tcpmss ! --mss 1460"),
    (M, "u32", 0, ipt_ip(),
     xt_u32([([(0, 0), (22, 2), (0x3c, 0), (12, 3), (26, 2), (0x3c, 0), (0, 3)],
              [(0x47455420, 0x47455420)]),
             ([(6, 0), (0xff, 0)], [(6, 6), (17, 17)])]),
     '-m u32 --u32 "0>>22&0x3C@12>>26&0x3C@0=0x47455420&&6&0xFF=6,17"'),
    (M, "u32", 0, ipt_ip(), xt_u32([([(0, 0), (4, 1), (28, 2)], [(5, 5)])], invert=1),
     '-m u32 ! --u32 "0<<4>>28=5"'),
    (T, "REJECT", 0, ipt_ip(TCP), ipt_reject_info(7), "-p tcp -j REJECT --reject-with tcp-reset"),
    (T, "REJECT", 0, ipt_ip(src="192.0.2.0/24"), ipt_reject_info(8),
     "-s 192.0.2.0/24 -j REJECT --reject-with icmp-admin-prohibited"),
    (T, "LOG", 0, ipt_ip(TCP), xt_log_info(4, 0x02 | 0x04, "IN-DROP: "),
     '-p tcp -j LOG --log-level 4 --log-prefix "IN-DROP: " --log-tcp-options --log-ip-options'),
    (T, "NFLOG", 0, ipt_ip(), xt_nflog_info(5, "nflog: ", size=128),
     '-j NFLOG --nflog-group 5 --nflog-prefix "nflog: " --nflog-size 128'),
    (T, "MARK", 2, ipt_ip(), xt_mark_tginfo2(0x5, 0xff), "-j MARK --set-xmark 0x5/0xff"),
    (T, "MARK", 2, ipt_ip(UDP), xt_mark_tginfo2(0x0, 0xfffffff0), "-p udp -j MARK --set-xmark 0x0/0xfffffff0"),
    # The raw table's: xt_CT's NOTRACK and CT --notrack (XT_CT_NOTRACK 1, _ALIAS 2).
    (T, "NOTRACK", 0, ipt_ip(TCP), b"", "-t raw -p tcp -j NOTRACK"),
    (T, "CT", 0, ipt_ip(), xt_ct_target_info(0, 1), "-t raw -j CT --notrack"),
    (T, "CT", 1, ipt_ip(UDP), xt_ct_target_info(1, 1, zone=3, helper="ftp"),
     "-t raw -p udp -j CT --notrack --zone 3 --helper ftp"),
    (T, "CT", 2, ipt_ip(src="10.0.0.0/8"), xt_ct_target_info(2, 3), "-t raw -s 10.0.0.0/8 -j NOTRACK"),
    # The nat table's: xt_nat's DNAT/SNAT, MASQUERADE, REDIRECT, NETMAP (held by bpfilter.ko).
    (T, "DNAT", 2, ipt_ip(TCP), nat_range(2, NAT_MAP_IPS | NAT_PROTO, "10.0.0.2", ports=(80, 80)),
     "-t nat -p tcp -j DNAT --to-destination 10.0.0.2:80"),
    (T, "DNAT", 1, ipt_ip(), nat_range(1, NAT_MAP_IPS, "10.0.0.2", "10.0.0.9"),
     "-t nat -j DNAT --to-destination 10.0.0.2-10.0.0.9"),
    (T, "DNAT", 0, ipt_ip(UDP), nat_compat(NAT_MAP_IPS, "10.0.0.3"), "-t nat -p udp -j DNAT --to 10.0.0.3"),
    (T, "SNAT", 2, ipt_ip(UDP), nat_range(2, NAT_MAP_IPS | NAT_PROTO, "192.0.2.1",
                                         ports=(20000, 20010)),
     "-t nat -p udp -j SNAT --to-source 192.0.2.1:20000-20010"),
    (T, "SNAT", 1, ipt_ip(), nat_range(1, NAT_MAP_IPS, "192.0.2.1"), "-t nat -j SNAT --to 192.0.2.1"),
    (T, "SNAT", 0, ipt_ip(), nat_compat(NAT_MAP_IPS, "192.0.2.1"), "-t nat -j SNAT --to 192.0.2.1"),
    (T, "MASQUERADE", 0, ipt_ip(src="10.88.0.0/16"), nat_compat(0),
     "-t nat -s 10.88.0.0/16 -j MASQUERADE"),
    (T, "REDIRECT", 0, ipt_ip(TCP), nat_compat(NAT_PROTO, ports=(3128, 3128)),
     "-t nat -p tcp -j REDIRECT --to-ports 3128"),
    (T, "NETMAP", 0, ipt_ip(dst="10.9.0.0/16"), nat_compat(NAT_MAP_IPS, "10.8.0.0", "10.8.255.255"),
     "-t nat -d 10.9.0.0/16 -j NETMAP --to 10.8.0.0/16"),
    # ip6tables: rows with an ip6t_ip6 go into ip6_tables blobs.
    (M, "icmp6", 0, ip6t_ip6(ICMPV6), ipt_icmp(128),
     "-p ipv6-icmp --icmpv6-type echo-request"),
    (M, "icmp6", 0, ip6t_ip6(ICMPV6, src="2001:db8::/32"), ipt_icmp(1, (4, 4), inv=1),
     "-s 2001:db8::/32 -p ipv6-icmp ! --icmpv6-type port-unreachable"),
    (M, "tcp", 0, ip6t_ip6(TCP, dst="2001:db8:1::1", i="eth0"),
     xt_tcp(dport=(22, 22), flags=(0x17, 0x02)),
     "-d 2001:db8:1::1/128 -i eth0 -p tcp --dport 22 --syn"),
    (M, "udp", 0, ip6t_ip6(UDP, src="fe80::/10", inv=0x08), xt_udp(dport=(546, 547)),
     "! -s fe80::/10 -p udp --dport 546:547"),
    (M, "multiport", 1, ip6t_ip6(TCP, o="wg+"), xt_multiport_v1(1, [80, 443, (8000, 8080)]),
     "-o wg+ -p tcp -m multiport --dports 80,443,8000:8080"),
    (M, "mark", 1, ip6t_ip6(), xt_mark_mtinfo1(0x1, 0xff), "-m mark --mark 0x1/0xff"),
    (M, "comment", 0, ip6t_ip6(), xt_comment_info("v6 from the office"),
     '-m comment --comment "v6 from the office"'),
    (M, "limit", 0, ip6t_ip6(ICMPV6), xt_rateinfo(5, 60, 10),
     "-p ipv6-icmp -m limit --limit 5/min --limit-burst 10"),
    (M, "statistic", 0, ip6t_ip6(UDP), xt_statistic_info(1, every=4, packet=1),
     "-p udp -m statistic --mode nth --every 4 --packet 1"),
    (T, "MARK", 2, ip6t_ip6(TCP), xt_mark_tginfo2(0x7, 0xffffffff), "-p tcp -j MARK --set-mark 0x7"),
    (T, "NOTRACK", 0, ip6t_ip6(UDP), b"", "-t raw -p udp -j NOTRACK"),
    (T, "CT", 2, ip6t_ip6(), xt_ct_target_info(2, 3), "-t raw -j NOTRACK"),
    (T, "DNAT", 2, ip6t_ip6(TCP), nat_range(2, NAT_MAP_IPS | NAT_PROTO, "2001:db8::2", ports=(80, 80)),
     "-t nat -p tcp -j DNAT --to-destination [2001:db8::2]:80"),
    (T, "MASQUERADE", 0, ip6t_ip6(src="fd00::/8"), nat_range(1, 0), "-t nat -s fd00::/8 -j MASQUERADE"),
    (T, "REDIRECT", 0, ip6t_ip6(TCP), nat_range(1, NAT_PROTO, ports=(3128, 3128)),
     "-t nat -p tcp -j REDIRECT --to-ports 3128"),
    (T, "NETMAP", 0, ip6t_ip6(dst="2001:db8:1::/48"),
     nat_range(1, NAT_MAP_IPS, "2001:db8:2::", "2001:db8:2:ffff:ffff:ffff:ffff:ffff"),
     "-t nat -d 2001:db8:1::/48 -j NETMAP --to 2001:db8:2::/48"),
    # struct ip6t_hl_info: mode (0 eq, 1 ne, 2 lt, 3 gt), hop_limit.
    (M, "hl", 0, ip6t_ip6(), struct.pack("<BB", 0, 255), "-m hl --hl-eq 255"),
    (M, "hl", 0, ip6t_ip6(TCP), struct.pack("<BB", 2, 64), "-p tcp -m hl --hl-lt 64"),
    (M, "hl", 0, ip6t_ip6(src="2001:db8::/32"), struct.pack("<BB", 1, 1),
     "-s 2001:db8::/32 -m hl ! --hl-eq 1"),
    # struct ip6t_mh: types[2], invflags (IP6T_MH_INV_TYPE 0x01).
    (M, "mh", 0, ip6t_ip6(MH), struct.pack("<BBB", 5, 5, 0), "-p mh -m mh --mh-type binding-update"),
    (M, "mh", 0, ip6t_ip6(MH, i="eth0"), struct.pack("<BBB", 0, 3, 1),
     "-i eth0 -p mh -m mh ! --mh-type 0:3"),
    # eui64 has an int of payload that nothing reads, and only PRE_ROUTING, INPUT, FORWARD.
    (M, "eui64", 0, ip6t_ip6(src="fe80::/64"), struct.pack("<i", 0), "-s fe80::/64 -m eui64"),
    # The extension header matches: ipv6_find_hdr() with a target.
    (M, "frag", 0, ip6t_ip6(), ip6t_frag((1, 5), 0x04 | 0x08), "-m frag --fragid 1:5 --fragres --fragfirst"),
    (M, "frag", 0, ip6t_ip6(UDP), ip6t_frag((7, 7), 0x10, inv=0x01),
     "-p udp -m frag ! --fragid 7 --fragmore"),
    (M, "hbh", 0, ip6t_ip6(), ip6t_opts(8, [(1, 4), (0, 0xff), (30, 0xff)], inv=0x01),
     "-m hbh ! --hbh-len 8 --hbh-opts 1:4,0,30"),
    (M, "dst", 0, ip6t_ip6(TCP), ip6t_opts(16, [(30, 3)]), "-p tcp -m dst --dst-len 16 --dst-opts 30:3"),
    (M, "rt", 0, ip6t_ip6(), ip6t_rt(0, (0, 3), 24, True, ["::1"], inv=0x02),
     "-m rt --rt-type 0 ! --rt-segsleft 0:3 --rt-len 24 --rt-0-res --rt-0-addrs ::1"),
    (M, "rt", 0, ip6t_ip6(), ip6t_rt(2, inv=0x01), "-m rt ! --rt-type 2"),
    (M, "ah", 0, ip6t_ip6(), ip6t_ah((256, 300), 16, 1, inv=0x02),
     "-m ah --ahspi 256:300 ! --ahlen 16 --ahres"),
    # struct ip6t_ipv6header_info: matchflags, invflags, modeflag (--soft).
    (M, "ipv6header", 0, ip6t_ip6(), struct.pack("<BBB", 0x80 | 0x10 | 0x01, 0, 1),
     "-m ipv6header --header hop,frag,prot --soft"),
    (M, "ipv6header", 0, ip6t_ip6(), struct.pack("<BBB", 0x02, 0xff, 0),
     "-m ipv6header ! --header none"),
    # Stateful IPv6: conntrack's tuple addresses are 16 bytes; ip6t_REJECT's own numbering.
    (M, "conntrack", 3, ip6t_ip6(TCP),
     xt_conntrack_mtinfo(3, CT_STATE | CT_ORIGSRC | CT_REPLDST | CT_ORIGDST_PORT,
                         inv=CT_REPLDST, state=ST_NEW | ST_ESTABLISHED,
                         orig_src="2001:db8::/32", repl_dst="fd00::1", ports=(0, 22, 0, 0),
                         ports_high=(0, 22, 0, 0)),
     "-p tcp -m conntrack --ctstate NEW,ESTABLISHED --ctorigsrc 2001:db8::/32 "
     "! --ctrepldst fd00::1 --ctorigdstport 22"),
    (M, "state", 0, ip6t_ip6(), xt_state_info(1 << 1 | 1 << 2), "-m state --state RELATED,ESTABLISHED"),
    (T, "REJECT", 0, ip6t_ip6(TCP), ipt_reject_info(6), "-p tcp -j REJECT --reject-with tcp-reset"),
    (T, "REJECT", 0, ip6t_ip6(src="2001:db8::/32"), ipt_reject_info(1),
     "-s 2001:db8::/32 -j REJECT --reject-with icmp6-adm-prohibited"),
    (T, "LOG", 0, ip6t_ip6(TCP), xt_log_info(4, 0x02 | 0x20, "IN6-DROP: "),
     "-p tcp -j LOG --log-prefix 'IN6-DROP: ' --log-tcp-options --log-macdecode"),
    (T, "NFLOG", 0, ip6t_ip6(), xt_nflog_info(6, "nflog6: ", size=64),
     "-j NFLOG --nflog-group 6 --nflog-prefix 'nflog6: ' --nflog-size 64"),
    # The matches the kernel runs, held per family by the module.
    (M, "recent", 1, ip6t_ip6(TCP), xt_recent_mtinfo(1, "ssh6", RECENT_CHECK, seconds=60,
                                                     hit_count=4),
     "-p tcp -m recent --name ssh6 --rcheck --seconds 60 --hitcount 4"),
    (M, "hashlimit", 3, ip6t_ip6(), xt_hashlimit_mtinfo3("web6", 1, 10000, 5),
     "-m hashlimit --hashlimit-upto 100/sec --hashlimit-mode srcip --hashlimit-name web6"),
    (M, "string", 1, ip6t_ip6(), xt_string_info("evil"), '-m string --string "evil" --algo bm'),
    (M, "owner", 1, ip6t_ip6(), xt_owner_match_info(4, invert=4), "-m owner ! --socket-exists"),
    # Matches with an IPv6 form or none in particular.
    (M, "length", 0, ip6t_ip6(), xt_length_info(1280, 65535), "-m length --length 1280:65535"),
    (M, "tos", 1, ip6t_ip6(), xt_tos_match_info(0x10, 0x3f), "-m tos --tos Minimize-Delay"),
    (M, "dscp", 0, ip6t_ip6(UDP), xt_dscp_info(46, invert=1), "-p udp -m dscp ! --dscp 46"),
    (M, "ecn", 0, ip6t_ip6(TCP), xt_ecn_info(0x31, invert=0x10, ip_ect=2),
     "-p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece --ecn-ip-ect 2"),
    (M, "esp", 0, ip6t_ip6(ESP), spi_range(256, 512), "-p esp -m esp --espspi 256:512"),
    (M, "tcpmss", 0, ip6t_ip6(TCP), xt_tcpmss_match_info(1220, 1440), "-p tcp -m tcpmss --mss 1220:1440"),
    (M, "pkttype", 0, ip6t_ip6(), xt_pkttype_info(2), "-m pkttype --pkt-type multicast"),
    (M, "cpu", 0, ip6t_ip6(), xt_cpu_info(0), "-m cpu --cpu 0"),
    (M, "devgroup", 0, ip6t_ip6(), xt_devgroup_info(1, src=3, src_mask=0xff), "-m devgroup --src-group 3"),
    (M, "mac", 0, ip6t_ip6(), xt_mac_info("02:00:00:00:00:02"), "-m mac --mac-source 02:00:00:00:00:02"),
    (M, "connmark", 1, ip6t_ip6(), xt_connmark_mtinfo1(0x1, 0xff, invert=1),
     "-m connmark ! --mark 0x1/0xff"),
    (M, "u32", 0, ip6t_ip6(), xt_u32([([(6, 0), (24, 2)], [(17, 17)])]), '-m u32 --u32 "6>>24=17"'),
    (M, "iprange", 1, ip6t_ip6(),
     xt_iprange_mtinfo(src=("2001:db8::10", "2001:db8::1:0"), dst=("fd00::", "fd00::ffff"),
                       src_inv=True),
     "-m iprange ! --src-range 2001:db8::10-2001:db8::1:0 --dst-range fd00::-fd00::ffff"),
]


def is_ip6(ip):
    return len(ip) == IP6T_IP6_SIZE


# Extensions whose rules iptables only takes in OUTPUT (xt_match.hooks); the rest go in INPUT.
OUTPUT_ONLY = {"owner"}
# Extensions of the raw table alone (xt_target.table): their rows make raw tables, in PREROUTING.
RAW_ONLY = {"NOTRACK", "CT"}
# The nat table's targets: their rows make nat tables, in the chain named.
NAT_ONLY = {"DNAT": "PREROUTING", "REDIRECT": "PREROUTING", "NETMAP": "PREROUTING",
            "SNAT": "POSTROUTING", "MASQUERADE": "POSTROUTING"}


def ext(name, rev, payload):
    """xt_entry_match / xt_entry_target: size, name, revision, payload padded to 8."""
    pad = xt_align(len(payload)) - len(payload)
    return (struct.pack("<H", 32 + len(payload) + pad) + name.encode().ljust(29, b"\0") +
            bytes([rev]) + payload + b"\0" * pad)


class Rule:
    """ip: ipt_ip bytes; matches: [(name, rev, payload)]; target: 'ACCEPT', 'DROP',
    'RETURN', ('jump', chain), ('goto', chain) or (name, rev, payload)."""

    def __init__(self, ip=None, matches=(), target="ACCEPT"):
        self.ip = ip if ip is not None else ipt_ip()
        self.matches = list(matches)
        self.target = target

    def target_bytes(self, chains):
        t = self.target
        verdicts = {"ACCEPT": -NF_ACCEPT - 1, "DROP": -NF_DROP - 1, "RETURN": XT_RETURN}
        if t in verdicts:
            return ext("", 0, struct.pack("<i4x", verdicts[t]))
        if t[0] in ("jump", "goto"):
            return ext("", 0, struct.pack("<i4x", chains[t[1]] if chains else 0))
        if t[0] == "ERROR":
            return ext("ERROR", 0, cstr(t[1], 30) + b"\0\0")
        return ext(*t)

    def bytes(self, chains=None):
        ip = self.ip
        # The flags byte and the rest of struct ipt_entry / struct ip6t_entry.
        flags, goto, tail = (131, IP6T_F_GOTO, "<IHHI4xQQ") if is_ip6(ip) else \
            (82, IPT_F_GOTO, "<IHHIQQ")
        if isinstance(self.target, tuple) and self.target[0] == "goto":
            ip = ip[:flags] + bytes([ip[flags] | goto]) + ip[flags + 1:]
        m = b"".join(ext(*x) for x in self.matches)
        t = self.target_bytes(chains)
        size = len(ip) + struct.calcsize(tail)
        return ip + struct.pack(tail, 0, size + len(m), size + len(m) + len(t), 0, 0, 0) + m + t


# fuzz_blob's generation variants, in ipt_replace.counters (a pointer the parser never
# reads); V_IPV6 says the blob is an ip6_tables one.
V_BARE, V_NOFOLD, V_SEGMENTS, V_SLOW, V_IPV6 = 1, 2, 4, 8, 16


def table(builtin, user=(), policy=None, variant=0, ip6=False, name="filter"):
    """The blob of table @name: its built-in chains (rules + policy; the filter
    table's INPUT, FORWARD, OUTPUT), user chains (ERROR head, rules, RETURN), the
    final ERROR; with its ipt_replace (ip6t_replace is laid out alike). @ip6: the
    rules carry ip6t_ip6 headers."""
    policy = policy or {}
    hooks = TABLE_HOOKS[name]
    ip = ip6t_ip6 if ip6 else ipt_ip
    variant |= V_IPV6 if ip6 else 0
    layout = []				# (chain or None, Rule, kind)
    for c in hooks:
        layout += [(c, r, "rule") for r in builtin.get(c, [])]
        layout.append((c, Rule(ip(), target=policy.get(c, "ACCEPT")), "policy"))
    for chain, rules in user:
        layout.append((chain, Rule(ip(), target=("ERROR", chain)), "head"))
        layout += [(chain, r, "rule") for r in rules]
        layout.append((chain, Rule(ip(), target="RETURN"), "return"))
    layout.append((None, Rule(ip(), target=("ERROR", "ERROR")), "end"))
    offs, off = [], 0
    for _, r, _ in layout:
        offs.append(off)
        off += len(r.bytes())
    # A jump goes to the entry after the chain's ERROR head, as libiptc does.
    chains = {}
    for k, (c, _, kind) in enumerate(layout):
        if kind == "head":
            chains[c] = offs[k + 1]
    blob = b"".join(r.bytes(chains) for _, r, _ in layout)
    hook_entry, underflow = [0] * 5, [0] * 5
    for c, h in hooks.items():
        ks = [k for k, (cc, _, _) in enumerate(layout) if cc == c]
        hook_entry[h] = offs[ks[0]]
        underflow[h] = offs[ks[-1]]
    valid_hooks = sum(1 << h for h in hooks.values())
    hdr = cstr(name, 32) + struct.pack("<III", valid_hooks, len(layout), len(blob))
    hdr += struct.pack("<5I", *hook_entry) + struct.pack("<5I", *underflow)
    # num_counters: the old table's entries
    hdr += struct.pack("<IQ", len(hooks) + 1, variant)
    return hdr + blob


def row_rule(kind, name, rev, ip, payload, target="ACCEPT"):
    if kind == M:
        return Rule(ip, [(name, rev, payload)], target)
    return Rule(ip, [], (name, rev, payload))


def structural_tables():
    tcp_dport = lambda p: ("tcp", 0, xt_tcp(dport=(p, p)))
    udp_dport = lambda p: ("udp", 0, xt_udp(dport=(p, p)))
    ctstate = lambda s: ("conntrack", 3, xt_conntrack_mtinfo(3, CT_STATE | CT_STATE_ALIAS, state=s))
    log = lambda p: ("LOG", 0, xt_log_info(4, 0, p))
    yield "initial", table({})
    # Jumps from two hooks into one chain, a goto, RETURN, nested chains.
    yield "chains", table({
        "INPUT": [Rule(ipt_ip(TCP), [tcp_dport(22)], "ACCEPT"),
                  Rule(ipt_ip(), [], ("jump", "services")),
                  Rule(ipt_ip(src="203.0.113.0/24"), [], ("goto", "logdrop"))],
        "FORWARD": [Rule(ipt_ip(i="eth1"), [], ("jump", "services"))],
        "OUTPUT": [Rule(ipt_ip(UDP), [udp_dport(123)], ("jump", "ntp"))],
    }, user=[
        ("logdrop", [Rule(ipt_ip(), [], log("dropped: ")), Rule(target="DROP")]),
        ("ntp", [Rule(ipt_ip(dst="192.0.2.123"), [], "RETURN"),
                 Rule(ipt_ip(), [], ("jump", "logdrop"))]),
        ("services", [Rule(ipt_ip(UDP), [udp_dport(53)], "ACCEPT"),
                      Rule(ipt_ip(ICMP), [("icmp", 0, ipt_icmp(8))], "ACCEPT"),
                      Rule(ipt_ip(TCP, inv=IPT_INV_PROTO), [], "RETURN"),
                      Rule(ipt_ip(TCP), [tcp_dport(25)], "DROP")]),
    ], policy={"INPUT": "DROP", "FORWARD": "DROP"})
    # The same structure in ip6_tables: IP6T_F_GOTO, inverted addresses and protocol.
    yield "chains6", table({
        "INPUT": [Rule(ip6t_ip6(TCP), [tcp_dport(22)], "ACCEPT"),
                  Rule(ip6t_ip6(), [], ("jump", "services")),
                  Rule(ip6t_ip6(src="2001:db8:bad::/48"), [], ("goto", "drop"))],
        "FORWARD": [Rule(ip6t_ip6(i="eth1", dst="fd00::/8", inv=0x10), [], ("jump", "services"))],
    }, user=[
        ("drop", [Rule(ip6t_ip6(), [("limit", 0, xt_rateinfo(1, 1, 5))], "RETURN"),
                  Rule(ip6t_ip6(), [], "DROP")]),
        ("services", [Rule(ip6t_ip6(UDP), [udp_dport(53)], "ACCEPT"),
                      Rule(ip6t_ip6(ICMPV6), [("icmp6", 0, ipt_icmp(128))], "ACCEPT"),
                      Rule(ip6t_ip6(TCP, inv=IPT_INV_PROTO), [], "RETURN"),
                      Rule(ip6t_ip6(TCP), [tcp_dport(25)], "DROP")]),
    ], policy={"INPUT": "DROP", "FORWARD": "DROP"}, ip6=True)
    # Runs that codegen_set.c folds: a /32 blocklist, prefixes, a port list, source+port.
    yield "fold", table({
        "INPUT": [Rule(ipt_ip(src="198.51.100.%d" % i), [], "DROP") for i in range(1, 7)] +
                 [Rule(ipt_ip(src=p), [], "DROP") for p in
                  ("10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "172.16.0.0/12", "10.1.2.3")] +
                 [Rule(ipt_ip(TCP), [tcp_dport(p)], "ACCEPT") for p in (22, 80, 443, 8080, 8443)] +
                 [Rule(ipt_ip(UDP, src="192.0.2.%d" % i), [udp_dport(53)], "ACCEPT")
                  for i in range(1, 5)],
        "OUTPUT": [Rule(ipt_ip(dst="203.0.113.%d/32" % i), [], "RETURN") for i in range(4)],
    })
    # A realistic server firewall.
    c = lambda text: ("comment", 0, xt_comment_info(text))
    yield "server", table({
        "INPUT": [
            Rule(ipt_ip(i="lo"), [], "ACCEPT"),
            Rule(ipt_ip(), [ctstate(ST_ESTABLISHED | ST_RELATED)], "ACCEPT"),
            Rule(ipt_ip(), [ctstate(ST_INVALID)], "DROP"),
            Rule(ipt_ip(TCP), [tcp_dport(22), ctstate(ST_NEW),
                               ("limit", 0, xt_rateinfo(1, 60, 3)), c("ssh")], "ACCEPT"),
            Rule(ipt_ip(TCP), [("multiport", 1, xt_multiport_v1(1, [80, 443]))], "ACCEPT"),
            Rule(ipt_ip(ICMP), [("icmp", 0, ipt_icmp(8)), ("limit", 0, xt_rateinfo(1, 1, 5))],
                 "ACCEPT"),
            Rule(ipt_ip(), [("limit", 0, xt_rateinfo(5, 60, 5))], log("INPUT drop: ")),
            Rule(ipt_ip(TCP), [], ("REJECT", 0, ipt_reject_info(7))),
            Rule(ipt_ip(), [], ("REJECT", 0, ipt_reject_info(3))),
        ],
        "FORWARD": [Rule(ipt_ip(i="docker0", o="eth0"), [], "ACCEPT"),
                    Rule(ipt_ip(), [("mark", 1, xt_mark_mtinfo1(0x2, 0x2))], "DROP")],
    }, policy={"INPUT": "DROP", "FORWARD": "DROP"})
    # A raw table: a jump to a NOTRACK chain, a DROP before conntrack, MARK in OUTPUT.
    yield "raw-chains", table({
        "PREROUTING": [Rule(ipt_ip(TCP), [tcp_dport(5002)], ("jump", "notrack_in")),
                       Rule(ipt_ip(src="10.254.3.99"), [], "DROP")],
        "OUTPUT": [Rule(ipt_ip(TCP), [], ("NOTRACK", 0, b"")),
                   Rule(ipt_ip(ICMP), [], ("MARK", 2, xt_mark_tginfo2(0x7, 0xffffffff)))],
    }, user=[("notrack_in", [Rule(ipt_ip(), [], ("CT", 2, xt_ct_target_info(2, 1)))])],
        name="raw")


def main():
    out = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__),
                                                            "../../../..")
    helper = os.path.join(src, "net/bpfilter")
    have = {f[4:-2] for f in os.listdir(helper) if f.startswith("ext_") and f.endswith(".c")}
    registered = set()
    for f in have:
        registered |= set(re.findall(r'\.name\s*=\s*"([^"]*)"',
                                     open(os.path.join(helper, "ext_%s.c" % f)).read()))
    rows = [r for r in EXTENSIONS if r[1].lower() in have or r[1] in registered]
    # Every extension the helper has needs a row: scan its ext_*.c for the names it registers.
    names = {r[1] for r in rows}
    for f in sorted(have):
        text = open(os.path.join(helper, "ext_%s.c" % f)).read()
        for n in re.findall(r'\.name\s*=\s*"([^"]*)"', text):
            if n not in names:
                sys.exit("fuzz_seeds.py: ext_%s.c: no seed row for extension '%s'" % (f, n))
    os.makedirs(out, exist_ok=True)
    count, first = {}, set()
    all_rules = {v6: {"INPUT": [], "OUTPUT": []} for v6 in (False, True)}
    for kind, name, rev, ip, payload, _words in rows:
        size = SIZES.get("%s/%d" % (name, rev), SIZES.get(name))
        if is_ip6(ip):
            size = SIZES.get(name + "6", size)
        assert len(payload) == size, (name, rev, len(payload), size)
        rule = row_rule(kind, name, rev, ip, payload)
        count[(name, rev)] = count.get((name, rev), 0) + 1
        fn = "ext-%s-r%d-%d" % (name, rev, count[(name, rev)])
        if name in RAW_ONLY or name in NAT_ONLY:
            tname, chain = ("raw", "PREROUTING") if name in RAW_ONLY else ("nat", NAT_ONLY[name])
            with open(os.path.join(out, fn), "wb") as f:
                f.write(table({chain: [rule]}, ip6=is_ip6(ip), name=tname))
            continue
        chain = "OUTPUT" if name in OUTPUT_ONLY else "INPUT"
        with open(os.path.join(out, fn), "wb") as f:
            f.write(table({chain: [rule]}, ip6=is_ip6(ip)))
        if (name, rev, is_ip6(ip)) not in first:
            first.add((name, rev, is_ip6(ip)))
            all_rules[is_ip6(ip)][chain].append(rule)
    # The first row of each extension in one chain: a prologue that fetches everything.
    tables = []
    for v6, suffix in ((False, ""), (True, "6")):
        tables += [("all-extensions" + suffix, table(all_rules[v6], ip6=v6)),
                   ("all-extensions%s-bare" % suffix,
                    table(all_rules[v6], variant=V_BARE, ip6=v6)),
                   ("all-extensions%s-segments" % suffix,
                    table(all_rules[v6], variant=V_SEGMENTS | V_SLOW, ip6=v6))]
    for fn, blob in tables + list(structural_tables()):
        with open(os.path.join(out, fn), "wb") as f:
            f.write(blob)
    for name, rev in sorted(count):
        print("%s/%d" % (name, rev))


if __name__ == "__main__":
    main()
