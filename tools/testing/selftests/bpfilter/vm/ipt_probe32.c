// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_probe32: a 32-bit (i386) process asks IPT_SO_GET_INFO for "filter" and
 * prints "info32: 0" or "info32: -ERRNO". Built freestanding (-m32
 * -nostdlib: no 32-bit libc needed) with raw int $0x80 system calls, so that
 * the sockopt arrives in the kernel as a compat syscall, like a 32-bit
 * iptables would.
 */
#define NR_exit		1
#define NR_write	4
#define NR_socket	359
#define NR_getsockopt	365

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static long sys5(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret)
		     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
	return ret;
}

static void put(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys3(NR_write, 1, (long)s, n);
}

void _start(void)
{
	/* struct ipt_getinfo: name[32] then 52 bytes of answer. */
	static char info[84] = "filter";
	char num[16], *p = num + sizeof(num) - 1;
	unsigned int len = sizeof(info);
	long fd, ret;

	fd = sys3(NR_socket, 2 /* AF_INET */, 3 /* SOCK_RAW */, 255 /* IPPROTO_RAW */);
	if (fd < 0) {
		put("socket32: failed\n");
		sys3(NR_exit, 1, 0, 0);
	}
	ret = sys5(NR_getsockopt, fd, 0 /* IPPROTO_IP */, 64 /* IPT_SO_GET_INFO */,
		   (long)info, (long)&len);
	*p = '\0';
	if (ret < 0)
		ret = -ret;
	do {
		*--p = '0' + ret % 10;
		ret /= 10;
	} while (ret);
	put("info32: ");
	if (*p != '0')
		put("-");
	put(p);
	put("\n");
	sys3(NR_exit, 0, 0, 0);
	__builtin_unreachable();
}
