package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/tcp"
)

// A Background send that runs out of send buffer returns asleep; the
// peer's reads, each a call of their own, free the window whose ACK wakes
// it to queue more, and it returns once everything is queued. A second
// one, interrupted, returns what it had queued.
func TestBackgroundSendSleeps(t *testing.T) {
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := New(p, 1)
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	s, _ := w.NewSocket(Call{Text: "socket s"}, "s", w.Task("main"), kernel.AF_INET, kernel.SOCK_STREAM, 0, lo, PeerOptions{Ack: tcp.AckQuick})
	require.Zero(t, w.Connect(Call{}, s).Errno)

	const size = 20 << 20
	r := w.Send(Call{Text: "send", Background: true}, s, []int{size}, 0)
	a := r.Asleep
	require.NotNil(t, a, "the send waits for send buffer")
	require.False(t, a.Done())
	first := a.Copied()
	require.Positive(t, first)
	require.Less(t, first, size)

	read := 0
	for i := 0; i < 1000 && !a.Done(); i++ {
		got := w.Recv(Call{Text: "recv"}, s.Peer, 1<<20, kernel.MSG_DONTWAIT)
		require.Zero(t, got.Errno, "read %d", i)
		read += int(got.Ret)
		require.NoError(t, w.Settle())
	}
	require.True(t, a.Done(), "the peer's reads woke the send until it returned")
	require.Greater(t, read, first)
	res := a.Interrupt(kernel.EINTR)
	require.EqualValues(t, size, res.Ret, "a call that returned keeps its result")

	b := w.Send(Call{Text: "send", Background: true}, s, []int{size}, 0).Asleep
	require.NotNil(t, b)
	queued := b.Copied()
	res = b.Interrupt(kernel.EINTR)
	require.True(t, b.Done())
	require.EqualValues(t, queued, res.Ret, "a signal ends the wait with what was queued")
	require.Empty(t, w.asleep)
	require.False(t, w.Failed())
}
