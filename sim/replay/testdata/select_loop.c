// An event loop over loopback, as poll_loop.c but with select(2) (the
// raw syscall: the C library's select is pselect6) and pselect6(2) in
// turn: the sets watch a non-blocking TCP MSG_ZEROCOPY
// sender (write set while it has sends left, except set), its receiver
// in the same thread (read set) and a self-pipe that never becomes
// readable (read set). select reports a queued notification as the
// sender being in the write set (POLLERR is in select's write set);
// the loop reads the error queue whenever the sender is writable. A
// first select of the receiver alone, with nothing sent, times out.
// select_loop.cmd records how select_loop.log was made.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9126) };
	int one = 1, l, c, s, p[2], i, n, max, sends = 0, want = 64;
	unsigned int done = 0;
	struct timeval tv = { 0, 0 };
	fd_set rd, wr, ex;
	sigset_t mask;

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
	FD_ZERO(&rd);
	FD_SET(s, &rd);
	if (select(s + 1, &rd, NULL, NULL, &tv) != 0)
		return 1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	max = c > s ? c : s;
	max = max > p[0] ? max : p[0];
	for (i = 0; i < 4000 && done < (unsigned)want; i++) {
		FD_ZERO(&rd);
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		FD_SET(s, &rd);
		FD_SET(p[0], &rd);
		FD_SET(c, &wr);
		FD_SET(c, &ex);
		if (i % 2 == 0) {
			struct timeval t = { 0, 100000 };

			n = syscall(SYS_select, max + 1, &rd, &wr, &ex, &t);
		} else {
			struct timespec t = { 0, 100000000 };

			n = pselect(max + 1, &rd, &wr, NULL, &t, &mask);
		}
		if (n < 0)
			return 1;
		if (FD_ISSET(s, &rd) && recv(s, rbuf, sizeof(rbuf), 0) < 0)
			return 1;
		if (!FD_ISSET(c, &wr))
			continue;
		for (;;) {
			struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
			struct cmsghdr *cm;
			struct sock_extended_err *ee;

			if (recvmsg(c, &m, MSG_ERRQUEUE) < 0)
				break;
			cm = CMSG_FIRSTHDR(&m);
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
			done += ee->ee_data - ee->ee_info + 1;
		}
		if (sends < want) {
			if (send(c, buf, sizeof(buf), MSG_ZEROCOPY) == sizeof(buf))
				sends++;
			else if (errno != EAGAIN && errno != ENOBUFS)
				return 1;
		}
	}
	printf("%d sends, %u notified, %d selects\n", sends, done, i);
	close(c);
	close(s);
	close(l);
	return 0;
}
