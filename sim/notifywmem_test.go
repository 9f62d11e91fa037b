package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// Under bug notify-wmem (R5) an unread notification charges
// sk_wmem_alloc, which keeps a closed socket from being freed until it
// drains (sk_free, sock_wfree). A TCP socket's closing destroys the
// connection (inet_csk_destroy_sock), whose sk_stream_kill_queues purges
// the error queue: the notification goes, and the socket with it. A UDP
// socket's error queue is purged only by sk_destruct (inet_sock_destruct),
// which that very charge holds off: the socket and its queue are never
// freed, a leak the sweep at quiescence reports. Without the bug both
// are freed.
func TestNotifyWmemClose(t *testing.T) {
	for _, tt := range []struct {
		profile string
		typ     kernel.SockType
		bug     bool
		leak    bool
	}{
		{"linux-6.18", kernel.SOCK_STREAM, false, false},
		{"linux-6.18", kernel.SOCK_STREAM, true, false},
		{"linux-6.18", kernel.SOCK_DGRAM, false, false},
		{"linux-6.18", kernel.SOCK_DGRAM, true, true},
		{"linux-5.0", kernel.SOCK_STREAM, false, false},
		{"linux-5.0", kernel.SOCK_STREAM, true, true},
	} {
		p, err := kernel.Lookup(tt.profile)
		require.NoError(t, err)
		p.Switch(kernel.BugNotifyWmem, tt.bug)
		w := New(p, 1)
		lo := DefaultDevice("lo", Loopback)
		w.AddDevice(lo)
		task := w.AddTask("main", w.AddUser(1000), 8<<20, true)
		s, r := w.NewSocket(Call{}, "s", task, kernel.AF_INET, tt.typ, 0, lo, PeerOptions{})
		require.Zero(t, r.Errno)
		require.Zero(t, w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1).Errno)
		require.Zero(t, w.Connect(Call{}, s).Errno)
		require.Equal(t, int64(1000), w.Send(Call{}, s, []int{1000}, kernel.MSG_ZEROCOPY).Ret)
		require.NoError(t, w.Settle())
		require.Equal(t, 1, s.Sk.ErrQueue.Len(), "the notification, unread")
		require.Zero(t, w.Close(Call{}, s).Errno)
		require.NoError(t, w.Settle())
		w.CheckQuiescent()
		name := tt.profile + " " + tt.typ.String()
		require.Equal(t, tt.leak, !s.Sk.Freed(), "%s, bug %v: freed", name, tt.bug)
		require.Equal(t, tt.leak, w.ViolationsReported() > 0, "%s, bug %v: leak reported", name, tt.bug)
	}
}
