// Exercises the descriptor forms of a whole-program strace log: dup, dup2,
// dup3, fcntl(F_DUPFD), writev and sendfile on a socket, poll, ppoll,
// epoll, pselect6, a thread (clone3 with CLONE_FILES), a forked child that
// sends and closes its copy of the socket, close_range. forms.cmd records
// how forms.log was made.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
static char buf[65536];
static int c;
static void *thr(void *a) { send(c, buf, 1000, MSG_ZEROCOPY); return NULL; }
int main(void) {
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	bind(l, (void *)&a, sizeof a); listen(l, 4); getsockname(l, (void *)&a, &al);
	c = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one);
	connect(c, (void *)&a, sizeof a);
	int s = accept(l, NULL, NULL);
	int d1 = dup(c), d2 = dup2(c, 20), d3 = dup3(c, 21, O_CLOEXEC), d4 = fcntl(c, F_DUPFD, 30), d5 = fcntl(c, F_DUPFD_CLOEXEC, 40);
	send(d1, buf, 100, MSG_ZEROCOPY);
	struct iovec iov[2] = {{buf, 10}, {buf, 20}};
	writev(d2, iov, 2);
	int f = open("/etc/hostname", O_RDONLY);
	sendfile(d3, f, NULL, 5);
	struct pollfd p = {.fd = c, .events = POLLERR};
	poll(&p, 1, 10);
	struct timespec ts = {0, 1000000};
	ppoll(&p, 1, &ts, NULL);
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = s};
	epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
	epoll_wait(ep, &ev, 1, 10);
	fd_set rf; FD_ZERO(&rf); FD_SET(s, &rf);
	struct timeval tv = {0, 1000};
	select(s + 1, &rf, NULL, NULL, &tv);
	recv(s, buf, sizeof buf, MSG_DONTWAIT);
	pthread_t t; pthread_create(&t, NULL, thr, NULL); pthread_join(t, NULL);
	pid_t pid = fork();
	if (pid == 0) { send(c, buf, 200, MSG_ZEROCOPY); close(c); _exit(0); }
	waitpid(pid, NULL, 0);
	char cb[100]; struct msghdr m = {.msg_control = cb, .msg_controllen = sizeof cb};
	usleep(10000);
	recvmsg(c, &m, MSG_ERRQUEUE);
	m.msg_controllen = sizeof cb;
	recvmsg(c, &m, MSG_ERRQUEUE);
	recv(s, buf, sizeof buf, MSG_DONTWAIT);
	close(d1); close(d2);
	close_range(21, ~0U, 0);
	close(c);
	close(s); close(l);
	return 0;
}
