// Exercises getsockopt(TCP_ZEROCOPY_RECEIVE) and mmap/munmap of a TCP
// socket over loopback: 5000 bytes queued (less than a page, so the call
// maps nothing and says how much to read), optlen 16, 24, 8 (EINVAL) and
// 64, an address one byte past the mapping's start (EINVAL), a mapping of
// the client's socket at an offset, munmap. zcrx_probe.cmd records how
// zcrx_probe.log was made.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static void zc(int fd, char *addr, socklen_t n)
{
	struct tcp_zerocopy_receive z;

	memset(&z, 0, sizeof(z));
	z.address = (unsigned long)addr;
	z.length = 65536;
	getsockopt(fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &z, &n);
}

int main(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(8123), .sin_addr.s_addr = htonl(0x7f000001)};
	int on = 1, l, c, s;
	char buf[5000];
	char *m;

	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	bind(l, (void *)&a, sizeof(a));
	listen(l, 1);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (void *)&a, sizeof(a));
	s = accept(l, NULL, NULL);
	memset(buf, 1, sizeof(buf));
	send(c, buf, sizeof(buf), 0);
	usleep(10000);
	m = mmap(NULL, 65536, PROT_READ, MAP_SHARED, s, 0);
	zc(s, m, 16);
	zc(s, m, 24);
	zc(s, m, 8);
	zc(s, m + 1, sizeof(struct tcp_zerocopy_receive));
	zc(s, m, sizeof(struct tcp_zerocopy_receive));
	mmap(NULL, 4096, PROT_READ, MAP_SHARED, c, 4096);
	munmap(m, 65536);
	return 0;
}
