package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sock"
)

// TCP_QUICKACK reads 1 unless pingpong mode is on; 0 turns it on and any
// other value off; with pingpong on no ACK is quick, and the delayed-ACK
// timer turns it off again (probe/testdata/tcp-quickack-opt.zcs).
func TestQuickackOption(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	get := func() int {
		v, err := p.peer.Getsockopt(kernel.TCP_QUICKACK)
		require.Zero(t, err)
		return v
	}
	require.Equal(t, 1, get())
	require.Zero(t, p.peer.Setsockopt(kernel.TCP_QUICKACK, 0))
	require.Equal(t, 0, get())
	p.send(kernel.MSG_ZEROCOPY, 1000)
	p.w.deliver()
	require.True(t, p.peer.ack.pending&ackSched != 0, "pingpong: the ACK is delayed though quick ACKs are left")
	require.Positive(t, p.peer.ack.quick)
	require.Equal(t, "delayed-ACK timer fires", p.peer.delackTimer())
	require.Equal(t, 1, get(), "the missed delayed ACK ends pingpong mode")
	for _, v := range []int{0, 2, -1} {
		require.Zero(t, p.peer.Setsockopt(kernel.TCP_QUICKACK, v))
		require.Equal(t, boolInt(v != 0), get(), "value %d with no ACK due", v)
	}
}

// A reply within ato of the data it answers enters pingpong mode
// (tcp_event_data_sent) and carries the ACK that was due; the next
// segment's ACK is delayed (probe/testdata/tcp-pingpong.zcs).
func TestPingpongOnReply(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.send(kernel.MSG_ZEROCOPY, 1000)
	p.w.deliver()
	require.True(t, p.peer.ack.pending&ackSched != 0)
	call := p.peer.Sendmsg([]mm.Iovec{{Buf: mm.NewBuffer(p.h, 100), Len: 100}}, 0, kernel.ObjectID{Kind: "sendmsg", Serial: 99})
	require.True(t, call.Done())
	require.Empty(t, p.back.acks, "no ACK of its own")
	require.Len(t, p.back.inFlight, 1)
	require.True(t, p.back.inFlight[0].Acks, "the reply carries the ACK")
	require.Equal(t, p.peer.RcvNxt(), p.back.inFlight[0].Ack)
	require.Zero(t, p.peer.ack.pending, "nothing left to acknowledge")
	require.True(t, p.peer.ack.pingpong, "a reply within ato")
	p.send(kernel.MSG_ZEROCOPY, 1000)
	p.w.deliver()
	p.peer.Received(1000, false)
	require.Empty(t, p.back.acks, "in pingpong mode no ACK is quick")
	require.True(t, p.peer.ack.pending&ackTimer != 0)
}

// A sender's first segment never enters pingpong mode: with no data
// received, ato is zero.
func TestNoPingpongBeforeData(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.send(kernel.MSG_ZEROCOPY, 1000)
	require.False(t, p.c.ack.pingpong)
}

// A FIN that makes the connection CLOSE_WAIT enters pingpong mode and
// its ACK is delayed (tcp_fin); tacked on to a corked tail skb it is one
// segment with the data (tcp_send_fin), so the data's notification waits
// for that delayed ACK (probe/testdata/tcp-fin-delack.zcs).
func TestFinDelayedAck(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 1))
	p.send(kernel.MSG_ZEROCOPY, 1000)
	require.Empty(t, p.w.inFlight, "corked")
	p.c.Shutdown()
	require.Len(t, p.w.inFlight, 1, "the FIN rides on the data")
	require.True(t, p.w.inFlight[0].Fin)
	pk := p.w.inFlight[0]
	p.w.inFlight = nil
	require.True(t, p.peer.Receive(pk.Skb, pk.Seq, pk.EndSeq, pk.Fin, 0, pk.Push))
	p.peer.Received(1000, true)
	require.Equal(t, sock.CLOSE_WAIT, p.peer.Sk.State)
	require.True(t, p.peer.ack.pingpong)
	require.Empty(t, p.back.acks, "the FIN's ACK is delayed")
	require.Equal(t, "delayed-ACK timer fires", p.peer.delackTimer())
	require.Equal(t, []uint32{p.peer.RcvNxt()}, p.back.acks)
}
