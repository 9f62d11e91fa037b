// An event loop over loopback: one poll(2) watches a non-blocking TCP
// MSG_ZEROCOPY sender, its receiver in the same thread and a self-pipe
// that never becomes readable. The sender sends while POLLOUT, reads
// its notifications on POLLERR; the receiver reads on POLLIN.
// poll_loop.cmd records how poll_loop.log was made.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
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
static char buf[16384], rbuf[65536], ctl[128];

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9125) };
	int one = 1, l, c, s, p[2], i, sends = 0, want = 64;
	unsigned int done = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4))
		return 1;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || setsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	s = accept(l, NULL, NULL);
	if (s < 0 || pipe(p) || fcntl(c, F_SETFL, O_NONBLOCK))
		return 1;
	for (i = 0; i < 4000 && done < (unsigned)want; i++) {
		struct pollfd fds[3] = {
			{ .fd = c, .events = sends < want ? POLLOUT : 0 },
			{ .fd = s, .events = POLLIN },
			{ .fd = p[0], .events = POLLIN },
		};
		if (poll(fds, 3, 100) < 0)
			return 1;
		if (fds[1].revents & POLLIN && recv(s, rbuf, sizeof(rbuf), 0) < 0)
			return 1;
		if (fds[0].revents & POLLERR) {
			struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
			struct cmsghdr *cm;
			struct sock_extended_err *ee;

			if (recvmsg(c, &m, MSG_ERRQUEUE) < 0)
				continue;
			cm = CMSG_FIRSTHDR(&m);
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
			done += ee->ee_data - ee->ee_info + 1;
		}
		if (fds[0].revents & POLLOUT && sends < want) {
			if (send(c, buf, sizeof(buf), MSG_ZEROCOPY) == sizeof(buf))
				sends++;
			else if (errno != EAGAIN)
				return 1;
		}
	}
	printf("%d sends, %u notified, %d polls\n", sends, done, i);
	close(c);
	close(s);
	close(l);
	return 0;
}
