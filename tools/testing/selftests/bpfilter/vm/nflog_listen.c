// SPDX-License-Identifier: GPL-2.0
/*
 * nflog_listen GROUP COUNT SECONDS: bind to nfnetlink_log group GROUP in
 * the current network namespace, as ulogd2 or `tcpdump -i nflog:N` would,
 * write "ready" to stderr, then print one line per logged packet until
 * COUNT packets arrived or SECONDS passed:
 *
 *   prefix=PFX hook=H hwproto=0xPPPP in=IF out=IF len=N proto=P src=A dst=A sport=S dport=D
 *
 * len is the payload length nfnetlink_log sent (the packet cut to
 * --nflog-size); the addresses and ports come from that payload. Exit
 * status 0 when COUNT packets were seen, 1 on timeout, 2 on error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>

static struct mnl_socket *nl;

static int config(uint16_t group, uint8_t family, uint8_t cmd, bool mode)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = family;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(group);
	if (mode) {
		struct nfulnl_msg_config_mode m = {
			.copy_range = htonl(0xffff),
			.copy_mode = NFULNL_COPY_PACKET,
		};

		mnl_attr_put(nlh, NFULA_CFG_MODE, sizeof(m), &m);
	} else {
		struct nfulnl_msg_config_cmd c = { .command = cmd };

		mnl_attr_put(nlh, NFULA_CFG_CMD, sizeof(c), &c);
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	if (mnl_socket_recvfrom(nl, buf, sizeof(buf)) < 0)
		return -errno;
	return mnl_cb_run(buf, sizeof(buf), 0, 0, NULL, NULL) < 0 ? -errno : 0;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type <= NFULA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static const char *ifname(const struct nlattr *a, char *buf)
{
	if (!a)
		return "-";
	if (!if_indextoname(ntohl(mnl_attr_get_u32(a)), buf))
		return "?";
	return buf;
}

static int packet_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NFULA_MAX + 1] = { 0 };
	const struct nfulnl_msg_packet_hdr *ph;
	char in[IF_NAMESIZE], out[IF_NAMESIZE];
	char src[INET6_ADDRSTRLEN] = "-", dst[INET6_ADDRSTRLEN] = "-";
	const unsigned char *p = NULL;
	unsigned int len = 0, sport = 0, dport = 0, proto = 0;
	int *seen = data;

	mnl_attr_parse(nlh, sizeof(struct nfgenmsg), attr_cb, tb);
	if (!tb[NFULA_PACKET_HDR])
		return MNL_CB_OK;
	ph = mnl_attr_get_payload(tb[NFULA_PACKET_HDR]);
	if (tb[NFULA_PAYLOAD]) {
		p = mnl_attr_get_payload(tb[NFULA_PAYLOAD]);
		len = mnl_attr_get_payload_len(tb[NFULA_PAYLOAD]);
	}
	/* IPv4, or IPv6 with the transport header right after the fixed one. */
	if (len >= 40 && p[0] >> 4 == 6) {
		proto = p[6];
		inet_ntop(AF_INET6, p + 8, src, sizeof(src));
		inet_ntop(AF_INET6, p + 24, dst, sizeof(dst));
		if ((proto == 6 || proto == 17) && len >= 44) {
			sport = p[40] << 8 | p[41];
			dport = p[42] << 8 | p[43];
		}
	} else if (len >= 20) {
		unsigned int ihl = (p[0] & 15) * 4;

		proto = p[9];
		inet_ntop(AF_INET, p + 12, src, sizeof(src));
		inet_ntop(AF_INET, p + 16, dst, sizeof(dst));
		if ((proto == 6 || proto == 17) && len >= ihl + 4) {
			sport = p[ihl] << 8 | p[ihl + 1];
			dport = p[ihl + 2] << 8 | p[ihl + 3];
		}
	}
	printf("prefix=%s hook=%u hwproto=0x%04x in=%s out=%s len=%u proto=%u src=%s dst=%s sport=%u dport=%u\n",
	       tb[NFULA_PREFIX] ? mnl_attr_get_str(tb[NFULA_PREFIX]) : "-", ph->hook,
	       ntohs(ph->hw_protocol), ifname(tb[NFULA_IFINDEX_INDEV], in),
	       ifname(tb[NFULA_IFINDEX_OUTDEV], out), len, proto, src, dst, sport, dport);
	fflush(stdout);
	(*seen)++;
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int group, count, seen = 0, err;
	struct timespec now, end;

	if (argc != 4) {
		fprintf(stderr, "usage: nflog_listen GROUP COUNT SECONDS\n");
		return 2;
	}
	group = atoi(argv[1]);
	count = atoi(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atoi(argv[3]);
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("nflog_listen: netlink");
		return 2;
	}
	err = config(group, AF_INET, NFULNL_CFG_CMD_BIND, false);
	if (!err)
		err = config(group, AF_INET, 0, true);
	if (err) {
		fprintf(stderr, "nflog_listen: bind group %d: %s\n", group, strerror(-err));
		return 2;
	}
	fprintf(stderr, "ready\n");
	while (seen < count) {
		struct pollfd pfd = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };
		long ms;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
			break;
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			perror("nflog_listen: recv");
			return 2;
		}
		if (mnl_cb_run(buf, n, 0, 0, packet_cb, &seen) < 0) {
			perror("nflog_listen: parse");
			return 2;
		}
	}
	mnl_socket_close(nl);
	return seen >= count ? 0 : 1;
}
