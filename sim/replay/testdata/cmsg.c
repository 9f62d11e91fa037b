/* sendmsg with control messages over loopback, for the replay: a UDP
 * socket connected to a bound receiver, then a TCP connection. */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <linux/net_tstamp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static char buf[3000];

/* send len bytes on fd with one control message of n data bytes */
static void send_cmsg(int fd, size_t len, int level, int type, uint64_t val, size_t n)
{
	char ctl[CMSG_SPACE(8)] = {0};
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = CMSG_SPACE(n)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(n);
	memcpy(CMSG_DATA(c), &val, n);
	sendmsg(fd, &m, MSG_NOSIGNAL);
}

int main(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int r = socket(AF_INET, SOCK_DGRAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	int l = socket(AF_INET, SOCK_STREAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);

	bind(r, (struct sockaddr *)&a, sizeof(a));
	getsockname(r, (struct sockaddr *)&a, &alen);
	connect(u, (struct sockaddr *)&a, sizeof(a));
	send_cmsg(u, 3000, SOL_UDP, UDP_SEGMENT, 1000, 2);	/* value not shown */
	send_cmsg(u, 3000, SOL_UDP, UDP_SEGMENT, 1000, 4);	/* EINVAL */
	send_cmsg(u, 3000, SOL_UDP, 99, 0, 4);			/* EINVAL */
	send_cmsg(u, 100, 1234, 5, 0, 4);			/* ignored */
	send_cmsg(u, 100, SOL_SOCKET, 99, 0, 4);		/* EINVAL */
	send_cmsg(u, 100, SOL_SOCKET, SO_TIMESTAMPING, SOF_TIMESTAMPING_TX_SOFTWARE, 8);	/* EINVAL */
	send_cmsg(u, 100, SOL_SOCKET, SO_TIMESTAMPING, SOF_TIMESTAMPING_TX_SOFTWARE, 4);	/* value not shown */
	send_cmsg(u, 100, SOL_SOCKET, SO_MARK, 7, 2);		/* EPERM or EINVAL */
	send_cmsg(u, 100, SOL_SOCKET, SCM_RIGHTS, 0, 4);	/* ignored */

	a.sin_port = 0;
	bind(l, (struct sockaddr *)&a, sizeof(a));
	alen = sizeof(a);
	getsockname(l, (struct sockaddr *)&a, &alen);
	listen(l, 1);
	send_cmsg(t, 100, SOL_SOCKET, 99, 0, 4);		/* EPIPE first */
	connect(t, (struct sockaddr *)&a, sizeof(a));
	send_cmsg(t, 100, SOL_UDP, 99, 0, 4);			/* ignored */
	send_cmsg(t, 100, SOL_SOCKET, 99, 0, 4);		/* EINVAL */
	send_cmsg(t, 100, SOL_SOCKET, SO_MARK, 7, 4);		/* EPERM without CAP_NET_ADMIN */
	return 0;
}
