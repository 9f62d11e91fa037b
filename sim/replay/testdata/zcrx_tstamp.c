// Exercises the receive timestamps getsockopt(TCP_ZEROCOPY_RECEIVE)
// writes into msg_control over loopback with an MTU of 49204 (twelve
// pages a segment): SO_TIMESTAMPNS and SO_TIMESTAMPING (RX_SOFTWARE |
// SOFTWARE) on each accepted socket, a MSG_ZEROCOPY sender of 100000
// bytes on each of three connections, then receives with a 128-byte
// control buffer (both messages fit) and one that copies the rest into
// copybuf with a 17-byte buffer (the first message is cut: MSG_CTRUNC);
// a 48-byte one (the second is cut), one that maps nothing (less than a
// page left: no timestamps) and one without a buffer that copies
// (MSG_CTRUNC); one whose buffer has no room left. The same buffer ends
// every call at the same address, as a program reusing it does.
// zcrx_tstamp.cmd records how zcrx_tstamp.log was made.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_TIMESTAMPNS
#define SO_TIMESTAMPNS 35
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

static char ctl[128], copybuf[4096];

static void zc(int fd, char *addr, int ctllen, int copylen)
{
	struct tcp_zerocopy_receive z;
	socklen_t n = sizeof(z);

	memset(&z, 0, sizeof(z));
	z.address = (unsigned long)addr;
	z.length = 1 << 20;
	if (copylen) {
		z.copybuf_address = (unsigned long)copybuf;
		z.copybuf_len = copylen;
	}
	if (ctllen >= 0) {
		z.msg_control = (unsigned long)(ctl + sizeof(ctl) - ctllen);
		z.msg_controllen = ctllen;
	}
	getsockopt(fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &z, &n);
}

static int conn(int l, char **m)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(8124), .sin_addr.s_addr = htonl(0x7f000001)};
	int on = 1, tsflags = (1 << 3) | (1 << 4), c, s;
	static char buf[100000];

	c = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on));
	connect(c, (void *)&a, sizeof(a));
	s = accept(l, NULL, NULL);
	setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	setsockopt(s, SOL_SOCKET, SO_TIMESTAMPING, &tsflags, sizeof(tsflags));
	usleep(10000);
	*m = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, s, 0);
	send(c, buf, sizeof(buf), MSG_ZEROCOPY);
	usleep(20000);
	return s;
}

int main(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(8124), .sin_addr.s_addr = htonl(0x7f000001)};
	int on = 1, l, s;
	char *m;

	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	bind(l, (void *)&a, sizeof(a));
	listen(l, 4);
	s = conn(l, &m);
	zc(s, m, 128, 0);
	zc(s, m, 17, sizeof(copybuf));
	s = conn(l, &m);
	zc(s, m, 48, 0);
	zc(s, m, 128, 0);
	zc(s, m, -1, sizeof(copybuf));
	s = conn(l, &m);
	zc(s, m, 0, 0);
	return 0;
}
