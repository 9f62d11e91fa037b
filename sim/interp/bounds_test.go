package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A call may name as many bytes as the kernel takes: a send's or read's
// one buffer any size_t, cut to MAX_RW_COUNT (import_ubuf). A gigabyte or
// a 4 GiB TCP send over a NIC sends what the send buffer takes, a UDP send
// of either is EMSGSIZE, a read of 4 GiB or SIZE_MAX returns what arrived
// (measured on Linux 6.18: send 4 GiB MSG_DONTWAIT = 3919467, recv SIZE_MAX
// = what is queued, UDP sendto 4 GiB = EMSGSIZE).
func TestGigabyteCalls(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
send s 1G MSG_DONTWAIT
settle
recv s.peer 1G
send s 4G MSG_DONTWAIT
settle
recv s.peer 18446744073709551615
socket u AF_INET SOCK_DGRAM via=eth0
connect u => 0
send u 1G 0 => -1 EMSGSIZE
send u 4G 0 => -1 EMSGSIZE
sendmsg u [2147479552, 2147479552] 0 => -1 EMSGSIZE
sendmsg u [9223372036854775807] 0 => -1 EMSGSIZE
`)
	requireOK(t, tr)
	for _, c := range []struct{ send, recv string }{{"send s 1G", "recv s.peer 1G"}, {"send s 4G", "recv s.peer 18446744073709551615"}} {
		sent := *event(t, tr, c.send).Ret
		require.Positive(t, sent, c.send)
		require.Less(t, sent, int64(4<<20), c.send)
		got := *event(t, tr, c.recv).Ret
		require.Positive(t, got, "what arrived, in one read")
		require.LessOrEqual(t, got, sent)
	}
}

// An iovec's length is at most SSIZE_MAX (copy_iovec_from_user refuses a
// longer one); the total is the kernel's to cut, not an input error.
func TestCallBounds(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"socket s AF_INET SOCK_STREAM\nsendmsg s [1, 9223372036854775808] 0\n", `test.zcs:2:15: an iovec's length must be between 0 and 9223372036854775807 (at "9223372036854775808")`},
		{"socket s AF_INET SOCK_STREAM\nsendmsg s [" + strings.Repeat("1, ", 1024) + "1] 0\n", `at most 1024 iovecs (UIO_MAXIOV)`},
		{"socket r AF_INET SOCK_RAW IPPROTO_RAW ihl=16\n", `test.zcs:1:43: ihl must be between 0 and 15 (at "16")`},
	} {
		_, err := Run("test.zcs", []byte(c.src), Options{})
		require.ErrorContains(t, err, c.want, c.src)
	}
}
