package pktdrill

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/zcsim/zcsim/sim/scenario"
)

// FuzzImport checks that Import never panics, that its errors are
// positioned inside the input, and that what it translates parses.
func FuzzImport(f *testing.F) {
	files, _ := os.ReadDir("../../examples/packetdrill")
	for _, e := range files {
		if src, err := os.ReadFile("../../examples/packetdrill/" + e.Name()); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 fcntl(3, F_SETFL, O_NONBLOCK) = 0\n+0 < S. 0:0(0) ack 1 win 5 <mss 10,TS val 1 ecr 2>\n"))
	f.Add([]byte("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 epoll_create(1) = 4\n+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLIN|EPOLLET, fd=3}) = 0\n+0 epoll_wait(4, {events=EPOLLERR, fd=3}, 1, 10) = 1\n+0 epoll_wait(4, {events=0, u32=0}, 1, -1) = 0\n+0 fcntl(3, F_GETFL) = 2\n+0 close(4) = 0\n"))
	f.Add([]byte("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 recvmsg(3, {msg_flags=MSG_ERRQUEUE|MSG_CTRUNC, msg_control=[{cmsg_level=CMSG_LEVEL_IP, cmsg_type=CMSG_TYPE_RECVERR, cmsg_data={ee_errno=0, ee_info=1}}]}, MSG_ERRQUEUE) = 0\n"))
	f.Add([]byte("--ip_version=ipv6\n`sysctl -q x`\n* recvmsg(3, {a={b=[1,2]}}, 0) = -1 EAGAIN (x)\n"))
	f.Add([]byte("`sysctl -q net.ipv4.tcp_fastopen=0x207`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 sendto(3, ..., 10, MSG_FASTOPEN, ..., ...) = 10\n+0 > S 0:10(10) <mss 1460,FOEXP,FO 0a0b0c0d,nop,nop>\n+0 poll([{fd=3, events=POLLIN, revents=POLLERR|POLLHUP}], 1, 5) = 1\n+0 epoll_create(1) = 4\n+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLIN, ptr=9}) = 0\n+0 epoll_wait(4, {events=EPOLLIN, ptr=9}, 1, 0) = 1\n"))
	f.Add([]byte(cmsgScript))
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := Import("f.pkt", src)
		if err != nil {
			var list scenario.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Import error is %T, want ErrorList: %v", err, err)
			}
			lines := bytes.Count(src, []byte("\n")) + 1
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
					t.Fatalf("error outside the input: %v", e)
				}
			}
			return
		}
		if _, err := scenario.Parse("f.zcs", r.Scenario); err != nil {
			t.Fatalf("the translation does not parse: %v\n%s", err, r.Scenario)
		}
	})
}
