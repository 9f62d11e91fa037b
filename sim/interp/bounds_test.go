package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A call may name as many bytes as the kernel moves in one call
// (MAX_RW_COUNT): a gigabyte TCP send over a NIC sends what the send
// buffer takes, a gigabyte UDP send is EMSGSIZE, a gigabyte read returns
// what arrived.
func TestGigabyteCalls(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
send s 1G MSG_DONTWAIT
settle
recv s.peer 1G
socket u AF_INET SOCK_DGRAM via=eth0
connect u => 0
send u 1G 0 => -1 EMSGSIZE
sendmsg u [2147479552, 2147479552] 0 => -1 EMSGSIZE
`)
	requireOK(t, tr)
	sent := *event(t, tr, "send s 1G").Ret
	require.Positive(t, sent)
	require.Less(t, sent, int64(4<<20))
	got := *event(t, tr, "recv s.peer 1G").Ret
	require.Positive(t, got, "what arrived, in one read")
	require.LessOrEqual(t, got, sent)
}

// One buffer's length is at most MAX_RW_COUNT, as are each iovec's; their
// total is the kernel's to cut, not an input error.
func TestCallBounds(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"socket s AF_INET SOCK_STREAM\nsend s 2147479553 0\n", `test.zcs:2:8: a send's length must be between 0 and 2147479552 (at "2147479553")`},
		{"socket s AF_INET SOCK_STREAM\nrecv s 4G\n", `test.zcs:2:8: a read's length must be between 0 and 2147479552 (at "4G")`},
		{"socket s AF_INET SOCK_STREAM\nsendmsg s [1, 2147479553] 0\n", `test.zcs:2:15: an iovec's length must be between 0 and 2147479552 (at "2147479553")`},
		{"socket s AF_INET SOCK_STREAM\nsendmsg s [" + strings.Repeat("1, ", 1024) + "1] 0\n", `at most 1024 iovecs (UIO_MAXIOV)`},
	} {
		_, err := Run("test.zcs", []byte(c.src), Options{})
		require.ErrorContains(t, err, c.want, c.src)
	}
}
