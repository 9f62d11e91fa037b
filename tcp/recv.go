package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// rcvSkbSlab and rcvSkbPtrSlab hold a Host's received skbs and its
// receive queues.
var rcvSkbSlab, rcvSkbPtrSlab = kernel.SlabSlot[rcvSkb](), kernel.SlabSlot[*rcvSkb]()

// rcvSkb is an skb on the receive queue and how much of it was read;
// segs are the lengths of the segments it holds, in the order they
// arrived (more than one once tcp_try_coalesce appended to it).
type rcvSkb struct {
	skb  *skb.Buff
	read int
	// tstamp is TCP_SKB_CB(skb)->has_rxtstamp: the skb's software
	// receive timestamp, or any of those coalesced into it.
	tstamp kernel.RxStamp
	// segs[:nsegs]: each segment brings at least one frag, so at most
	// MAX_SKB_FRAGS share an skb.
	segs  [kernel.MaxSkbFrags]int32
	nsegs int
}

// Receive models the in-order part of tcp_rcv_established / tcp_data_queue
// for a segment [seq, endSeq) that arrived in b (nil for a segment without
// payload), a GSO skb of segments of gso bytes (0: one segment), with PSH
// if push: in-order data joins the receive queue, appended to its tail skb
// when skb_try_coalesce can (tcp_queue_rcv → tcp_try_coalesce: only the
// frag pages are charged then) or queued and charged to sk_rmem_alloc
// (skb_set_owner_r); then tcp_event_data_recv measures it. Anything else
// is dropped, for the caller to acknowledge with Rejected. A FIN schedules an ACK and moves
// an established connection to CLOSE_WAIT in pingpong mode (tcp_fin). A connection that is already done still takes
// the peer's FIN, as TIME_WAIT acknowledges it, but no data. It reports
// whether the segment was accepted. The caller then acknowledges with
// Received.
func (c *Conn) Receive(b *skb.Buff, seq, endSeq uint32, fin bool, gso int, push bool) bool {
	if seq != c.rcvNxt || (c.done && endSeq != seq) {
		if b != nil {
			b.Free()
		}
		return false
	}
	c.rcvNxt = endSeq
	if b != nil && b.Len == 0 {
		b.Free()
	} else if b != nil {
		s := rcvSeg{len: b.Len, gso: gso, push: push, truesize: b.Truesize, head: b.Head, headless: b.HeadLen() == 0}
		c.tryRmemSchedule()
		c.queueRcv(b)
		c.eventDataRecv(s)
	}
	if fin && !c.rcvFin {
		c.fin()
	}
	return true
}

// Rejected acknowledges a segment [seq, endSeq) that Receive did not
// take. Under AckKernel, data received already (a retransmission, a loss
// probe) enters quickack mode and is acknowledged as tcp_data_queue
// leaves it to tcp_ack_snd_check (tcp_enter_quickack_mode,
// inet_csk_schedule_ack, __tcp_ack_snd_check): at once, unless more than
// a segment waits unacknowledged and __tcp_select_window, finding less
// than half the buffer free, ends the quick ACKs, and then the delayed
// ACK carries it. Measured on Linux 6.18 over loopback: a loss probe of a
// 54-byte tail behind two 32741-byte segments to an unread peer waits
// for the delayed ACK, one of a 300-byte segment is answered at once
// (TcpExtTCPDSACKOldSent, TcpExtDelayedACKs). Anything else, and every
// segment under the other policies, is acknowledged at once
// (tcp_send_dupack; an out-of-order segment's duplicate ACK).
func (c *Conn) Rejected(seq, endSeq uint32) {
	if endSeq == seq && after(c.rw.wup, endSeq) {
		// tcp_validate_incoming: tcp_sequence finds it before the
		// window (a zero-window probe at snd_una - 1), and a segment of
		// no data is answered at most once per tcp_invalid_ratelimit.
		if !c.oowRateLimited() {
			c.SendAck()
		}
		return
	}
	if c.t.policy == AckKernel && !c.done && endSeq != seq && !after(endSeq, c.rcvNxt) {
		c.enterQuickackMode()
		c.ackSndCheck()
		return
	}
	c.SendAck()
}

// invalidRatelimit is net.ipv4.tcp_invalid_ratelimit, which the kernel
// keeps in jiffies (proc_dointvec_ms_jiffies rounds a write up to one).
func (c *Conn) invalidRatelimit() engine.Duration {
	return c.toJiffies(engine.Duration(c.Sk.Net.TCPInvalidRatelimitMs)*engine.Millisecond) * c.jiffy()
}

// oowRateLimited models tcp_oow_rate_limited for a segment of no data:
// true when the last out-of-window ACK went less than
// tcp_invalid_ratelimit ago (tp->last_oow_ack_time); otherwise that
// time becomes now. Measured on Linux 6.18 over loopback: of zero-window
// probes 208ms and 440ms after the window closed, the second is not
// answered (TCP_INFO's tcpi_probes stays 1 until the third).
func (c *Conn) oowRateLimited() bool {
	now := c.Net.Now()
	if c.lastOowAck.set && now.Sub(c.lastOowAck.at) < c.invalidRatelimit() {
		return true
	}
	c.lastOowAck.at, c.lastOowAck.set = now, true
	return false
}

// fin models tcp_fin: the FIN takes a sequence number and schedules an
// ACK; ESTABLISHED becomes CLOSE_WAIT in pingpong mode, FIN_WAIT1 (a
// simultaneous close) CLOSING, and FIN_WAIT2 ends: the ACK goes out
// (Received) and tcp_time_wait hands the connection to a time-wait
// socket (tcp_done).
func (c *Conn) fin() {
	c.rcvFin = true
	c.rcvNxt++
	c.ack.pending |= ackSched // inet_csk_schedule_ack
	switch c.Sk.State {
	case sock.ESTABLISHED:
		c.Sk.State = sock.CLOSE_WAIT
		c.ack.pingpong = true // inet_csk_enter_pingpong_mode
	case sock.FIN_WAIT1:
		c.Sk.State = sock.CLOSING
	case sock.FIN_WAIT2:
		c.enterTimeWait()
		c.Sk.Shutdown = sock.ShutdownMask
		c.finish()
	}
}

// queueRcv models tcp_queue_rcv: b is coalesced into the tail of the
// receive queue, charging its frag pages, or queued and charged whole.
func (c *Conn) queueRcv(b *skb.Buff) {
	if n := len(c.rcvQueue); n > 0 {
		tail, size := c.rcvQueue[n-1], b.Len
		if delta, ok := skb.TryCoalesce(tail.skb, b); ok {
			c.Sk.RmemAlloc += delta
			tail.tstamp = tail.tstamp.Merge(b.RxTstamp) // tcp_try_coalesce
			if tail.nsegs < len(tail.segs) {
				tail.segs[tail.nsegs] = int32(size)
				tail.nsegs++
			} else {
				tail.segs[len(tail.segs)-1] += int32(size)
			}
			b.Free()
			return
		}
	}
	c.Sk.RmemAlloc += b.Truesize
	b.SetOwner(c.Sk, skb.SockRfree)
	r := rcvSkbSlab.Of(c.host()).New()
	r.skb, r.segs[0], r.nsegs, r.tstamp = b, int32(b.Len), 1, b.RxTstamp
	c.rcvQueue = rcvSkbPtrSlab.Of(c.host()).Append(c.rcvQueue, r)
}

// tryRmemSchedule models tcp_try_rmem_schedule for an in-order data
// segment about to be queued (tcp_data_queue): while sk_rmem_alloc is
// above sk_rcvbuf — the truesize of what the window let in exceeds the
// buffer — tcp_prune_queue runs tcp_clamp_window, which ends the quick
// ACKs and, unless SO_RCVBUF locked it, lets sk_rcvbuf grow to
// sk_rmem_alloc (at most tcp_rmem[2]); a buffer still overcommitted
// drops rcv_ssthresh to 2 × advmss (at most window_clamp). What the
// kernel does when that is not enough — collapse the queue into tighter
// skbs (tcp_collapse) and, failing that, drop the segment — is not
// modelled: the segment is queued. Measured on Linux 6.18 over loopback
// (probe/testdata/tcp-clamp-window.zcs, tcp-rcvbuf-clamp.zcs): an unread
// peer's buffer grows to the 133568 (149120) bytes its queue held when a
// zero-window probe's data came, nothing collapsed, and the read that
// follows opens the window again.
func (c *Conn) tryRmemSchedule() {
	sk := c.Sk
	if sk.RmemAlloc <= sk.Rcvbuf {
		return
	}
	c.ack.quick = 0
	if rmem2 := sk.Net.TCPRmem[2]; sk.Rcvbuf < rmem2 && !sk.RcvbufLocked {
		sk.Rcvbuf = min(sk.RmemAlloc, rmem2)
	}
	if sk.RmemAlloc > sk.Rcvbuf {
		c.rw.ssthresh = min(c.rw.clamp, 2*c.rw.advmss)
	}
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
func (c *Conn) AbortOnData(seq, endSeq uint32, fin bool) bool {
	if c.Sk.Shutdown&sock.RcvShutdown == 0 || (c.Sk.State != sock.FIN_WAIT1 && c.Sk.State != sock.FIN_WAIT2) {
		return false
	}
	dataEnd := endSeq
	if fin {
		dataEnd--
	}
	if endSeq == seq || int32(dataEnd-c.rcvNxt) <= 0 {
		return false
	}
	c.Reset()
	return true
}

// RcvNxt returns rcv_nxt, the next sequence number expected.
func (c *Conn) RcvNxt() uint32 { return c.rcvNxt }

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

// Queued returns the bytes received and not yet read.
func (c *Conn) Queued() int {
	n := 0
	for _, r := range c.rcvQueue {
		n += r.skb.Len - r.read
	}
	return n
}

// QueuedSegments returns the unread bytes of each segment on the receive
// queue as it arrived, oldest first: the first may have been read in
// part, and segments coalesced into one skb count one by one.
func (c *Conn) QueuedSegments() []int {
	var out []int
	for _, r := range c.rcvQueue {
		skip := r.read
		for _, n32 := range r.segs[:r.nsegs] {
			n := int(n32)
			if n > skip {
				out = append(out, n-skip)
			}
			skip = max(skip-n, 0)
		}
	}
	return out
}

// ReceiveTail returns the last skb on the receive queue, or nil.
func (c *Conn) ReceiveTail() *skb.Buff {
	if len(c.rcvQueue) == 0 {
		return nil
	}
	return c.rcvQueue[len(c.rcvQueue)-1].skb
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
// each skb once read (which returns its rmem), with tcp_rcv_space_adjust
// after each skb copied from. With nothing queued,
// tcp_recvmsg_locked decides in this order: ENOTCONN on a listener; 0 after a FIN (SOCK_DONE);
// the pending socket error, reported once (sock_error); 0 once
// RCV_SHUTDOWN is set (by shutdown, even one that failed with ENOTCONN,
// or by tcp_done) or the connection is finished; ENOTCONN on a socket that is TCP_CLOSE otherwise (never
// connected, or disconnected by the connect that reported its end: Disconnect); else EAGAIN, for the caller to wait on or report. A read
// stops before the urgent byte and skips it when it starts there
// (readSpan); one that found nothing but the byte it skipped answers as
// a read of an empty queue.
func (c *Conn) Recv(n int) (int, kernel.Errno) {
	if len(c.rcvQueue) == 0 {
		return 0, c.emptyRead()
	}
	skip, got := c.readSpan(c.copiedSeq, c.Queued(), n)
	c.consume(skip+got, true)
	c.urgPassed()
	if got == 0 && skip > 0 && len(c.rcvQueue) == 0 {
		return 0, c.emptyRead()
	}
	return got, 0
}

// consume takes up to n queued bytes as a read does, skb by skb: each
// moves copied_seq and frees its skb once all of it is taken; with
// adjust, each skb taken from is followed by tcp_rcv_space_adjust (as in
// tcp_recvmsg_locked). It returns the bytes taken.
func (c *Conn) consume(n int, adjust bool) int {
	got := 0
	for got < n && len(c.rcvQueue) > 0 {
		r := c.rcvQueue[0]
		take := min(n-got, r.skb.Len-r.read)
		r.read += take
		got += take
		c.copiedSeq += uint32(take)
		if r.read == r.skb.Len {
			c.rcvQueue = c.rcvQueue[1:]
			r.skb.Free()
		}
		if adjust {
			c.rcvSpaceAdjust()
		}
	}
	return got
}

// Peek models tcp_recvmsg with MSG_PEEK: it copies up to n of the bytes
// queued after the first skip (peek_seq, a private copy of copied_seq,
// has moved past those) and consumes nothing, so every skb and its rmem
// stay; an empty queue answers as Recv's does. Measured on Linux 6.18:
// a 3-byte peek of 5 queued bytes returns 3, a 10-byte one 5, and the
// read after them 5 (probe/testdata/tcp-peek.zcs). The urgent byte
// stops and is skipped as in Recv, and stays.
func (c *Conn) Peek(skip, n int) (int, kernel.Errno) {
	if len(c.rcvQueue) == 0 {
		return 0, c.emptyRead()
	}
	avail := max(c.Queued()-skip, 0)
	hole, got := c.readSpan(c.copiedSeq+uint32(skip), avail, n)
	if got == 0 && hole == avail && hole > 0 {
		return 0, c.emptyRead()
	}
	return got, 0
}

// ReadSleeps reports whether a blocking read with nothing queued sleeps
// in sk_wait_data: tcp_recvmsg_locked returns at once on a listener,
// after the FIN, with a socket error, once RCV_SHUTDOWN is set, on a
// finished or never-connected socket (emptyRead's answers other than
// EAGAIN), and with bytes copied it stops for the same reasons. Measured
// on Linux 6.18: a zero-length read of a socket shut down for reading
// returns 0 at once, before the sender's probe brings the data that
// would reset it (probe/testdata/tcp-shutdown-read.zcs).
func (c *Conn) ReadSleeps() bool {
	return c.Sk.Err == 0 && c.emptyRead() == kernel.EAGAIN
}

// emptyRead is what tcp_recvmsg_locked answers with nothing queued.
func (c *Conn) emptyRead() kernel.Errno {
	switch {
	case c.Sk.State == sock.LISTEN:
		return kernel.ENOTCONN
	case c.rcvFin:
		return 0
	case c.Sk.Err != 0:
		return c.takeError()
	case c.Sk.Shutdown&sock.RcvShutdown != 0 || c.done && !c.disconnected:
		return 0
	case c.Sk.State == sock.CLOSE:
		return kernel.ENOTCONN
	}
	return kernel.EAGAIN
}

// ReadStamp returns whether a read of n bytes after the first skip queued
// ones (a peek's; 0 for a read that consumes) reaches an skb with a
// software receive timestamp: tcp_recvmsg_locked sets TCP_CMSG_TS for
// each skb it copies from whose has_rxtstamp is set (tcp_update_recv_tstamps),
// a zero-length read for the skb it stops at. It changes nothing.
func (c *Conn) ReadStamp(skip, n int) kernel.RxStamp {
	var ts kernel.RxStamp
	start, end := skip, skip+max(n, 1)
	off := 0
	for _, r := range c.rcvQueue {
		left := r.skb.Len - r.read
		if off < end && off+left > start {
			ts = ts.Merge(r.tstamp)
		}
		off += left
	}
	return ts
}

// RecvmsgInq reports whether TCP_INQ is on: recvmsg then writes the bytes
// left to read in a TCP_CM_INQ control message (tcp_recvmsg).
func (c *Conn) RecvmsgInq() bool { return c.recvmsgInq }
