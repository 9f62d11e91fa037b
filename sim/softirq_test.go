package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// loopbackPair is a connected, zerocopy-enabled TCP socket over loopback.
func loopbackPair(t *testing.T) (*World, *Socket) {
	t.Helper()
	return zcPair(t, kernel.AF_INET6, DefaultDevice("lo", Loopback), PeerOptions{})
}

// zcPair is a connected, zerocopy-enabled TCP socket of family on dev,
// whose peer behaves as po.
func zcPair(t *testing.T, family kernel.Family, dev *Device, po PeerOptions) (*World, *Socket) {
	t.Helper()
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := New(p, 1)
	w.AddDevice(dev)
	s, r := w.NewSocket(Call{Text: "socket s"}, "s", w.Task("main"), family, kernel.SOCK_STREAM, 0, dev, po)
	require.Zero(t, r.Errno)
	require.Zero(t, w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1).Errno)
	require.Zero(t, w.Connect(Call{}, s).Errno)
	return w, s
}

// Over loopback the peer's quick ACK is processed before send returns:
// the notification is readable with no network event run.
func TestLoopbackInsideTheCall(t *testing.T) {
	w, s := loopbackPair(t)
	r := w.Send(Call{Text: "send"}, s, []int{3000}, kernel.MSG_ZEROCOPY)
	require.EqualValues(t, 3000, r.Ret)
	rec := w.Recvmsg(Call{}, s, 0, kernel.MSG_ERRQUEUE)
	require.NotNil(t, rec.Record, "notified before any event ran")
	require.Zero(t, s.Conn().RtxLen())
	require.Zero(t, w.ViolationsReported())
}

// A retransmission timer runs as a softirq: the ACKs its own segments
// draw over loopback are processed after it, not inside its loop over
// the retransmit queue (found by zcsim check: a segment freed by that
// ACK was cloned again).
func TestTimerIsNotReentered(t *testing.T) {
	w, s := loopbackPair(t)
	s.DropAcks(2)
	w.SendTo(Call{Text: "sendto"}, s, []int{40887}, 0)
	require.NoError(t, w.Settle())
	require.Zero(t, w.ViolationsReported())
	require.Zero(t, s.Conn().RtxLen(), "the retransmission was acknowledged")
}
