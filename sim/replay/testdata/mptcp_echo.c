/* An MPTCP echo server and its clients in one process, over loopback:
 * an MPTCP client (whose MSG_ZEROCOPY send copies, with no notification),
 * a plain TCP client of the MPTCP listener (its accepted child falls back
 * to TCP and takes SO_ZEROCOPY), and an MPTCP client of a plain TCP
 * listener (fallback on the client's side). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

static char buf[65536];

static int listener(int proto, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, l = socket(AF_INET, SOCK_STREAM, proto);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8))
		perror("listen");
	return l;
}

static int client(int proto, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int c = socket(AF_INET, SOCK_STREAM, proto);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(c, (struct sockaddr *)&a, sizeof a))
		perror("connect");
	return c;
}

/* echo sends n bytes on c with flags, and the server's child a sends them back. */
static void echo(int c, int a, int n, int flags)
{
	ssize_t got = send(c, buf, n, flags), back;
	if (got < 0)
		perror("send");
	back = recv(a, buf, sizeof buf, 0);
	if (back > 0)
		send(a, buf, back, 0);
	recv(c, buf, sizeof buf, 0);
}

int main(void)
{
	int one = 1, v;
	socklen_t len = sizeof v;
	char ctl[128];
	struct iovec iov = {buf, sizeof buf};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};

	int l = listener(IPPROTO_MPTCP, 7070);
	int c = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &len);
	if (setsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one))
		perror("SO_ZEROCOPY");
	getsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &v, &len);
	getsockopt(c, SOL_SOCKET, SO_SNDBUF, &v, &len);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(7070)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(c, (struct sockaddr *)&a, sizeof a))
		perror("connect");
	int s = accept(l, NULL, NULL);
	echo(c, s, 4096, MSG_ZEROCOPY);
	if (recvmsg(c, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		perror("MSG_ERRQUEUE");
	int f = open("/proc/self/exe", O_RDONLY);
	off_t off = 0;
	sendfile(c, f, &off, 1000);
	recv(s, buf, sizeof buf, 0);
	close(f);
	close(c);
	close(s);

	/* A plain TCP client of the MPTCP listener. */
	int t = client(IPPROTO_TCP, 7070);
	int ts = accept(l, NULL, NULL);
	if (setsockopt(ts, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one))
		perror("SO_ZEROCOPY child");
	echo(t, ts, 100, 0);
	close(t);
	close(ts);
	close(l);

	/* An MPTCP client of a plain TCP listener. */
	int tl = listener(IPPROTO_TCP, 7071);
	int mc = client(IPPROTO_MPTCP, 7071);
	int ms = accept(tl, NULL, NULL);
	if (setsockopt(mc, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one))
		perror("SO_ZEROCOPY fallback");
	echo(mc, ms, 200, MSG_ZEROCOPY);
	if (recvmsg(mc, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		perror("MSG_ERRQUEUE fallback");
	close(mc);
	close(ms);
	close(tl);
	return 0;
}
