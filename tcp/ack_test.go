package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// deliverKernel hands what is in flight to the peer, which acknowledges
// with its own policy; each ACK it sends reaches the sender at once. It
// returns how many ACKs the peer sent.
func (p *pair) deliverKernel() int {
	sent := 0
	for len(p.w.inFlight) > 0 {
		sent += p.deliverHead()
	}
	return sent
}

// deliverHead hands the first packet in flight to the peer and the last
// ACK it sends back to the sender; it returns how many ACKs the peer sent.
func (p *pair) deliverHead() int {
	pk := p.w.inFlight[0]
	p.w.inFlight = p.w.inFlight[1:]
	pk.Skb.Orphan()
	pk.Skb.OrphanFragsRx(kernel.CopyLoopback)
	n := pk.Skb.Len
	require.True(p.t, p.peer.Receive(pk.Skb, pk.Seq, pk.EndSeq, pk.Fin, 0, pk.Push))
	before := len(p.back.acks)
	p.peer.Received(n, pk.Fin)
	if len(p.back.acks) == before {
		return 0
	}
	p.c.Ack(p.back.acks[len(p.back.acks)-1], p.peer.rw.wnd)
	return len(p.back.acks) - before
}

// The kernel's receiver grants rcv_wnd / (2 × rcv_mss) quick ACKs (at most
// 16), one more when the first segment grows rcv_ssthresh, then delays:
// the counts measured on Linux 6.18 over loopback for a peer that reads
// nothing.
func TestKernelQuickAcks(t *testing.T) {
	for _, tt := range []struct{ size, quick int }{{1000, 16}, {2338, 14}, {4000, 9}, {8185, 5}, {6548, 5}} {
		p := newPair(t, "linux-6.18", true)
		require.Equal(t, AckKernel, p.peer.AckPolicy())
		immediate := 0
		for range 20 {
			r := p.send(kernel.MSG_ZEROCOPY, tt.size)
			require.Equal(t, tt.size, r.N)
			if p.deliverKernel() > 0 {
				immediate++
			} else {
				break
			}
		}
		require.Equal(t, tt.quick, immediate, "%d-byte sends", tt.size)
		require.True(t, p.w.clock.Pending(p.peer.t.delack), "the next ACK is delayed")
		p.w.clock.RunUntil(p.w.clock.Now().Add(delackMin), 100)
		require.Len(t, p.back.acks, tt.quick+1, "the delayed-ACK timer acknowledges after TCP_DELACK_MIN")
	}
}

// The first window over loopback is 65483 (65536 rounded down to whole
// MSS); the sender's segments are half of it; a 4000-byte segment
// leaves 4928 bytes of sk_rmem_alloc and a window of 102400.
func TestKernelWindow(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Equal(t, 65483, p.c.sndWnd)
	require.Equal(t, 32741, p.c.MSS())
	p.send(kernel.MSG_ZEROCOPY, 4000)
	p.deliverKernel()
	require.Equal(t, 4928, p.peer.Sk.RmemAlloc)
	require.Equal(t, 102400, p.c.sndWnd)
	require.Equal(t, 51200, p.c.MSS(), "bounded to half the grown window")
	p.send(kernel.MSG_ZEROCOPY, 4000)
	p.deliverKernel()
	require.Equal(t, 4928+4096, p.peer.Sk.RmemAlloc, "coalesced into the tail: pages only")
	require.Len(t, p.peer.ReceiveQueue(), 1)
	require.Equal(t, []int{4000, 4000}, p.peer.QueuedSegments(), "the segments as they arrived")
	n, _ := p.peer.Recv(5000)
	require.Equal(t, 5000, n)
	require.Equal(t, []int{3000}, p.peer.QueuedSegments())
}

// A read that empties the receive queue after a PSH segment acknowledges
// at once (tcp_cleanup_rbuf with ICSK_ACK_PUSHED); a read that leaves
// data does not.
func TestCleanupRbuf(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	for range 16 {
		p.send(kernel.MSG_ZEROCOPY, 1000)
		require.Equal(t, 1, p.deliverKernel())
	}
	p.send(kernel.MSG_ZEROCOPY, 1000)
	require.Zero(t, p.deliverKernel(), "quick ACKs used up")
	n, _ := p.peer.Recv(500)
	p.peer.CleanupRbuf(n)
	require.Len(t, p.back.acks, 16, "data left: no ACK")
	n, _ = p.peer.Recv(1 << 20)
	p.peer.CleanupRbuf(n)
	require.Len(t, p.back.acks, 17, "the read emptied the queue")
	require.False(t, p.w.clock.Pending(p.peer.t.delack))
}

// tcp_grow_skb on Linux 6.18 over loopback (measured): a copied
// 100000-byte send fills two 32741-byte skbs into the first window; once
// the first ACK widens the MSS the third skb takes the last one's 1777
// bytes and goes as one 34518-byte segment. skb_shift refuses zerocopy
// skbs, so a zerocopy send keeps its 1777-byte tail, which Nagle holds
// behind the short third segment; so does a profile without tcp_grow_skb.
func TestGrowSkb(t *testing.T) {
	for _, tt := range []struct {
		grow  bool
		flags kernel.MsgFlags
		sent  []int
	}{
		{true, 0, []int{32741, 32741, 34518}},
		{true, kernel.MSG_ZEROCOPY, []int{32741, 32741, 32741}},
		{false, 0, []int{32741, 32741, 32741}},
	} {
		p := newPair(t, "linux-6.18", true, func(p *kernel.Profile, _ *sock.Route) { p.TCPGrowSkb = tt.grow })
		var sent []int
		require.Equal(t, 100000, p.send(tt.flags, 100000).N)
		for len(p.w.inFlight) > 0 {
			sent = append(sent, int(p.w.inFlight[0].EndSeq-p.w.inFlight[0].Seq))
			p.deliverHead()
		}
		require.Equal(t, tt.sent, sent, "tcp_grow_skb %v, %v", tt.grow, tt.flags)
		p.noViolations()
	}
}

// A receive buffer fixed at 32768 bytes before the handshake leaves no
// window scale (tcp_select_initial_window under SOCK_RCVBUF_LOCK), and
// the windows offered are whole segments of rcv_mss: measured on Linux
// 6.18 over loopback, the sender's 8192-byte segments fill 24576 bytes of
// an unread peer whose window stays 16384.
func TestKernelWindowUnscaled(t *testing.T) {
	p := unconnectedPair(t, "linux-6.18", true)
	p.peer.Sk.Rcvbuf, p.peer.Sk.RcvbufLocked = 32768, true
	require.Equal(t, kernel.Errno(0), p.handshake())
	require.Zero(t, p.peer.rw.wscale)
	require.Equal(t, 16384, p.c.sndWnd)
	require.Equal(t, 8192, p.c.MSS(), "half the window")
	p.send(kernel.MSG_DONTWAIT, 100000)
	p.deliverKernel()
	require.Equal(t, 16384, p.peer.rw.wnd)
	require.Equal(t, 24576, p.peer.Queued())

	p = unconnectedPair(t, "linux-6.18", true)
	p.peer.Sk.Rcvbuf, p.peer.Sk.RcvbufLocked = 200000, true
	require.Equal(t, kernel.Errno(0), p.handshake())
	require.Equal(t, uint(1), p.peer.rw.wscale, "the scale of the 100000-byte window")
}

// A window above max_window moves the MSS while half of it bounds the
// MSS (tcp_bound_to_half_wnd); one at or below max_window does not, nor
// one past twice the unbounded MSS.
func TestWindowMovesMSS(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Equal(t, 65483, p.c.maxWindow)
	require.True(t, p.c.WindowMovesMSS(95232))
	require.False(t, p.c.WindowMovesMSS(65483))
	p.c.maxWindow = 1 << 20
	require.False(t, p.c.WindowMovesMSS(2<<20), "the MSS is no longer half the window")
}
