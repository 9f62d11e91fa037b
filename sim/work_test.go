package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/tcp"
)

// nicSender is a zerocopy TCP socket over a NIC whose peer reads
// everything.
func nicSender(t *testing.T) (*World, *Socket) {
	t.Helper()
	return zcPair(t, kernel.AF_INET, DefaultDevice("eth0", NIC), PeerOptions{Ack: tcp.AckQuick, AutoRead: true})
}

// A send that sleeps for send buffer goes on after the events that wake
// it, in steps of its own: every byte it took from user pages is in the
// trace, in the steps of the send.
func TestWokenSendIsTraced(t *testing.T) {
	w, s := nicSender(t)
	const size = 4 << 20
	r := w.Send(Call{Text: "send s"}, s, []int{size}, kernel.MSG_ZEROCOPY)
	require.EqualValues(t, size, r.Ret)
	filled, wakes := int64(0), 0
	for _, rec := range w.Trace().Records {
		e := rec.Event
		if e == nil {
			continue
		}
		for _, tc := range e.Touched {
			if tc.Entry.Op == kernel.OpZerocopyFill {
				require.Equal(t, "send", e.Op, "step %d: a fill outside the send's steps", e.Step)
				filled += tc.Entry.Args[0]
			}
		}
		if e.Text == "send s goes on, then blocks again in sk_stream_wait_memory" {
			wakes++
		}
	}
	require.EqualValues(t, size, filled)
	require.Positive(t, wakes, "the call slept more than once")
}

// Work counts the frames this host sends and the ACKs it processes;
// the peer across the NIC is another machine, whose receive is not.
func TestWorkOnThisHost(t *testing.T) {
	w, s := nicSender(t)
	require.True(t, s.Peer.Far())
	require.False(t, s.Far())
	before := w.Work()
	w.Send(Call{}, s, []int{100}, 0)
	require.NoError(t, w.Settle())
	got := w.Work().since(before)
	require.Equal(t, Work{TxFrames: 1, Acks: 1}, got)
	var steps Work
	far := 0
	for _, rec := range w.Trace().Records {
		if e := rec.Event; e != nil {
			k := e.Work()
			steps.TxFrames += k.TxFrames
			steps.RxFrames += k.RxFrames
			steps.Acks += k.Acks
			if e.FarHost() {
				far++
			}
		}
	}
	require.Equal(t, w.Work(), steps, "each step's share adds up to the run's")
	require.Positive(t, far, "the peer's receive is a step on the far host")
}

// Over loopback both ends are this host's: the frame is sent and
// received here, and the ACK counts at both ends.
func TestWorkOverLoopback(t *testing.T) {
	w, s := zcPair(t, kernel.AF_INET, DefaultDevice("lo", Loopback), PeerOptions{Ack: tcp.AckQuick, AutoRead: true})
	require.False(t, s.Peer.Far())
	before := w.Work()
	w.Send(Call{}, s, []int{100}, 0)
	require.Equal(t, Work{TxFrames: 1, RxFrames: 1, RxReadBytes: 100, Acks: 2}, w.Work().since(before))
}
