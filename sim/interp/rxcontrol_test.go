package interp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A recvmsg reading data writes the receive timestamps of what it read
// into its control buffer, per protocol (tcp_recv_timestamp,
// __sock_recv_timestamp): the messages the live kernel wrote in
// probe/testdata/recv-timestamp.zcs.
func TestRecvmsgWritesReceiveTimestamps(t *testing.T) {
	tr := runSrc(t, `
socket q AF_INET SOCK_DGRAM
connect q => 0
send q 100 0 => 100
setsockopt q.peer SOL_SOCKET SO_TIMESTAMPING 16 => 0
recvmsg q.peer 0 => 100
setsockopt q.peer SOL_SOCKET SO_TIMESTAMPNS 1 => 0
wait 1ms
send q 100 0 => 100
recvmsg q.peer 0 control=40 => 100
socket t AF_INET SOCK_STREAM
connect t => 0
setsockopt t.peer SOL_SOCKET SO_TIMESTAMP_NEW 1 => 0
setsockopt t.peer IPPROTO_TCP TCP_INQ 1 => 0
wait 1ms
send t 100 0 => 100
recvmsg t.peer MSG_PEEK => 100
recv t.peer 100 => 100
socket l AF_INET SOCK_STREAM
setsockopt l SOL_SOCKET SO_TIMESTAMPING 24 => 0
listen l => 0
accept l a
send a.peer 100 0 => 100
recvmsg a 0 => 100
`)
	requireOK(t, tr)
	var got []string
	for _, e := range events(tr) {
		if e.Op == "recv" {
			got = append(got, e.RecvControl)
		}
	}
	want := []string{
		"", // SOFTWARE alone, nothing stamped: nothing written
		"cmsgs [SO_TIMESTAMPNS/32] msg_controllen=32 msg_flags=MSG_CTRUNC",
		"cmsgs [SO_TIMESTAMP_NEW/32 TCP_INQ/20] msg_controllen=56 msg_flags=0",
		"", // recv(2) has no control buffer
		"cmsgs [SO_TIMESTAMPING/64] msg_controllen=64 msg_flags=0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what each read wrote (-want +got):\n%s", diff)
	}
}
