package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// rcvSkb is an skb on the receive queue and how much of it was read.
type rcvSkb struct {
	skb  *skb.Buff
	read int
}

// Receive models the in-order part of tcp_rcv_established / tcp_data_queue
// for a segment [seq, endSeq) that arrived in b (nil for a segment without
// payload): in-order data is queued on the receive queue, charged to
// sk_rmem_alloc (skb_set_owner_r); anything else is dropped and only
// re-acknowledged. A FIN moves an established connection to CLOSE_WAIT.
// A connection that is already done still takes the peer's FIN, as
// TIME_WAIT acknowledges it, but no data. It reports whether the segment
// was accepted. The caller then acknowledges RcvNxt with Window.
func (c *Conn) Receive(b *skb.Buff, seq, endSeq uint32, fin bool) bool {
	if seq != c.rcvNxt || (c.done && endSeq != seq) {
		if b != nil {
			b.Free()
		}
		return false
	}
	if b != nil {
		c.measureRcvMSS(b)
		if b.Len == 0 {
			b.Free()
		} else {
			c.Sk.RmemAlloc += b.Truesize
			b.SetOwner(c.Sk, skb.SockRfree)
			r := kernel.HostSlab[rcvSkb](c.host()).New()
			r.skb = b
			c.rcvQueue = kernel.HostSlab[*rcvSkb](c.host()).Append(c.rcvQueue, r)
		}
	}
	c.rcvNxt = endSeq
	if fin && !c.rcvFin {
		c.rcvFin = true
		c.rcvNxt++
		if c.Sk.State == sock.ESTABLISHED {
			c.Sk.State = sock.CLOSE_WAIT
		}
	}
	return true
}

// AbortOnData models tcp_rcv_state_process in FIN_WAIT1 and FIN_WAIT2 on
// a socket shut down for reading (RCV_SHUTDOWN): a segment [seq, endSeq)
// with data past rcv_nxt resets the connection (tcp_reset, counted as
// LINUX_MIB_TCPABORTONDATA) instead of being queued, and the caller
// answers it with a RST (tcp_v4_do_rcv: tcp_v4_send_reset). It reports
// whether it did; ESTABLISHED (SHUT_RD alone) still queues the data.
// Probed on Linux 6.18: after shutdown(SHUT_RDWR) the peer's write makes
// the socket TCP_CLOSE with SO_ERROR ECONNRESET and the peer's next write
// EPIPE.
//
// The model has no FIN_WAIT2 state: a connection whose FIN was
// acknowledged is finished (tcp/doc.go, Simplifications), and stands for
// FIN_WAIT2 here until the reset.
func (c *Conn) AbortOnData(seq, endSeq uint32, fin bool) bool {
	if c.Sk.Shutdown&sock.RcvShutdown == 0 || (c.Sk.State != sock.FIN_WAIT1 && !c.finWait2) {
		return false
	}
	dataEnd := endSeq
	if fin {
		dataEnd--
	}
	if endSeq == seq || int32(dataEnd-c.rcvNxt) <= 0 {
		return false
	}
	if c.finWait2 {
		c.finWait2 = false
		c.Sk.Err = kernel.ECONNRESET // tcp_reset in FIN_WAIT2; tcp_done already ran
		c.Sk.Shutdown = sock.ShutdownMask
		return true
	}
	c.Reset()
	return true
}

// RcvNxt returns rcv_nxt, the next sequence number expected.
func (c *Conn) RcvNxt() uint32 { return c.rcvNxt }

// Window models tcp_select_window: the window an ACK sent now offers. It
// is the receive buffer not yet taken by queued skbs (tcp_space), scaled
// by tp->scaling_ratio where the profile has it, else halved
// (tcp_adv_win_scale 1) — but never so small that the right edge already
// offered moves back (TCP does not shrink its window). The edge it offers
// is remembered for the next call.
func (c *Conn) Window() int {
	free := max(0, c.Sk.Rcvbuf-c.Sk.RmemAlloc)
	win := free / 2
	if c.host().Profile.TCPScalingRatio {
		win = free * c.ratio() >> 8
	}
	if offered := int(int32(c.rcvEdge - c.rcvNxt)); c.edgeSet && win < offered {
		win = offered
	}
	c.rcvEdge, c.edgeSet = c.rcvNxt+uint32(win), true
	return win
}

// defaultScalingRatio is TCP_DEFAULT_SCALING_RATIO: half, in 1/256ths.
const defaultScalingRatio = 128

func (c *Conn) ratio() int {
	if c.scalingRatio == 0 {
		return defaultScalingRatio
	}
	return c.scalingRatio
}

// tcpMSSDefault is TCP_MSS_DEFAULT, where tcp_initialize_rcv_mss starts
// rcv_mss.
const tcpMSSDefault = 536

// measureRcvMSS models tcp_measure_rcv_mss: a segment at least rcv_mss
// long, and not exactly that long, sets scaling_ratio to its payload per
// truesize in 1/256ths; rcv_mss follows the segments up to the MSS.
func (c *Conn) measureRcvMSS(b *skb.Buff) {
	if c.rcvMSS == 0 {
		c.rcvMSS = tcpMSSDefault
	}
	if b.Len < c.rcvMSS {
		return
	}
	if b.Len != c.rcvMSS {
		c.scalingRatio = max(b.Len<<8/b.Truesize, 1)
	}
	c.rcvMSS = min(b.Len, c.MSS())
}

// Queued returns the bytes received and not yet read.
func (c *Conn) Queued() int {
	n := 0
	for _, r := range c.rcvQueue {
		n += r.skb.Len - r.read
	}
	return n
}

// ReceiveQueue returns the skbs on the receive queue, oldest first.
func (c *Conn) ReceiveQueue() []*skb.Buff {
	out := make([]*skb.Buff, len(c.rcvQueue))
	for i, r := range c.rcvQueue {
		out[i] = r.skb
	}
	return out
}

// Recv models tcp_recvmsg without MSG_PEEK: read up to n bytes, freeing
// each skb once read (which returns its rmem). With nothing queued,
// tcp_recvmsg_locked decides in this order: ENOTCONN on a listener; 0 after a FIN (SOCK_DONE);
// the pending socket error, reported once (sock_error); 0 once
// RCV_SHUTDOWN is set (by shutdown, even one that failed with ENOTCONN,
// or by tcp_done) or the connection is finished (the model's FIN_WAIT2
// too, see AbortOnData); ENOTCONN on a socket that is TCP_CLOSE otherwise (never
// connected); else EAGAIN, for the caller to wait on or report.
func (c *Conn) Recv(n int) (int, kernel.Errno) {
	if len(c.rcvQueue) == 0 {
		switch {
		case c.Sk.State == sock.LISTEN:
			return 0, kernel.ENOTCONN
		case c.rcvFin:
			return 0, 0
		case c.Sk.Err != 0:
			return 0, c.takeError()
		case c.Sk.Shutdown&sock.RcvShutdown != 0 || c.done:
			return 0, 0
		case c.Sk.State == sock.CLOSE:
			return 0, kernel.ENOTCONN
		}
		return 0, kernel.EAGAIN
	}
	got := 0
	for got < n && len(c.rcvQueue) > 0 {
		r := c.rcvQueue[0]
		take := min(n-got, r.skb.Len-r.read)
		r.read += take
		got += take
		if r.read == r.skb.Len {
			c.rcvQueue = c.rcvQueue[1:]
			r.skb.Free()
		}
	}
	return got, 0
}
