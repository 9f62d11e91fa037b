// A TCP sender with a small send buffer and non-blocking MSG_ZEROCOPY
// sends over loopback, its receiver in the same thread reading now and
// then: many sends fail with EAGAIN until the receiver's delayed ACKs
// free the send buffer. sndbuf_eagain.cmd records how
// sndbuf_eagain.log was made.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
static char buf[1000], rbuf[65536], ctl[128];

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9123) };
	int one = 1, sndbuf = 8192, l, s, c, i, ok = 0, eagain = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4))
		return 1;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) ||
	    setsockopt(s, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	c = accept(l, NULL, NULL);
	if (c < 0)
		return 1;
	for (i = 0; i < 400; i++) {
		if (send(s, buf, sizeof(buf), MSG_ZEROCOPY | MSG_DONTWAIT) < 0) {
			if (errno != EAGAIN)
				return 1;
			eagain++;
			usleep(200);
		} else {
			ok++;
		}
		if (i % 8 == 7)
			recv(c, rbuf, 3000, MSG_DONTWAIT);
		if (i % 32 == 31) {
			struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };

			while (recvmsg(s, &m, MSG_ERRQUEUE) >= 0)
				m.msg_controllen = sizeof(ctl);
		}
	}
	fprintf(stderr, "%d sent, %d EAGAIN\n", ok, eagain);
	return 0;
}
