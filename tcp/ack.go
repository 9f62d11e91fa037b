package tcp

import (
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// ackState is the delayed-ACK engine of a receiver (inet_connection_sock's
// icsk_ack) under AckKernel.
type ackState struct {
	// quick is the number of quick ACKs left (icsk_ack.quick).
	quick int
	// ato is the delayed-ACK timeout, zero until the first data segment.
	ato engine.Duration
	// lrcvtime is when the last data segment arrived.
	lrcvtime engine.Time
	// pending holds the ICSK_ACK_* flags; timeout is when the armed
	// delayed-ACK timer fires.
	pending ackFlags
	timeout engine.Time
	// lastSegSize is icsk_ack.last_seg_size, the payload of the last
	// small segment that counted as full-sized.
	lastSegSize int
	// pingpong is inet_csk_in_pingpong_mode (icsk_ack.pingpong at
	// tcp_pingpong_thresh, 1): interactive mode, in which no ACK is quick
	// and a small pushed segment does not make a read ACK.
	pingpong bool
}

// ackFlags are the ICSK_ACK_* bits of icsk_ack.pending.
type ackFlags uint8

const (
	ackSched   ackFlags = 1 << iota // ICSK_ACK_SCHED: an ACK is due
	ackTimer                        // ICSK_ACK_TIMER: the delayed-ACK timer is armed
	ackPushed                       // ICSK_ACK_PUSHED: a small segment arrived
	ackPushed2                      // ICSK_ACK_PUSHED2: two did
)

// Delayed-ACK constants of include/net/tcp.h (HZ-independent values).
const (
	atoMin       = 40 * engine.Millisecond  // TCP_ATO_MIN
	delackMax    = 200 * engine.Millisecond // TCP_DELACK_MAX
	maxQuickacks = 16                       // TCP_MAX_QUICKACKS
	tcpMinMSS    = 88                       // TCP_MIN_MSS
	maxAtoIdle   = 500 * engine.Millisecond // HZ / 2
)

// rcvMSSNow is icsk_ack.rcv_mss, the receiver's estimate of the sender's
// segment size: tcp_initialize_rcv_mss's TCP_MSS_DEFAULT until a segment
// was measured.
func (c *Conn) rcvMSSNow() int {
	if c.rcvMSS == 0 {
		return tcpMSSDefault
	}
	return c.rcvMSS
}

// rcvSeg is what the receive side measures of an arriving data segment:
// its payload, its gso_size (0 for a single segment), PSH, its truesize
// and what of that is its head (SKB_TRUESIZE(skb_end_offset)), before
// tcp_try_coalesce moved its frags.
type rcvSeg struct {
	len, gso       int
	push           bool
	truesize, head int
	headless       bool
}

// eventDataRecv models tcp_event_data_recv for a data segment already
// queued: an ACK is scheduled, rcv_mss measured (tcp_measure_rcv_mss);
// the receive RTT sampled (tcp_rcv_rtt_measure);
// the first data segment grants quick ACKs (tcp_incr_quickack) and starts
// ato at TCP_ATO_MIN; later ones adapt ato to the gap since the last one,
// and a gap longer than the RTO grants quick ACKs again; a segment of at
// least 128 bytes may grow the window (tcp_grow_window).
func (c *Conn) eventDataRecv(s rcvSeg) {
	a := &c.ack
	a.pending |= ackSched
	c.measureRcvMSS(s)
	c.rcvRttMeasure()
	now := c.Net.Now()
	if a.ato == 0 {
		c.incrQuickack()
		a.ato = atoMin
	} else {
		m := now.Sub(a.lrcvtime)
		switch {
		case m <= atoMin/2:
			a.ato = a.ato/2 + atoMin/2
		case m < a.ato:
			a.ato = min(a.ato/2+m, c.rto())
		case m > c.rto():
			c.incrQuickack()
		}
	}
	a.lrcvtime = now
	if s.len >= 128 {
		truesize := s.truesize
		if s.headless && truesize-s.head >= s.len {
			truesize -= s.head // truesize_adjust
		}
		c.growWindow(s.len, truesize)
	}
}

// incrQuickack models tcp_incr_quickack: quick ACKs for half the offered
// window in segments of rcv_mss, at least 2 and at most
// TCP_MAX_QUICKACKS; never fewer than are left.
func (c *Conn) incrQuickack() {
	q := c.rw.wnd / (2 * c.rcvMSSNow())
	if q == 0 {
		q = 2
	}
	c.ack.quick = max(c.ack.quick, min(q, maxQuickacks))
}

// enterQuickackMode models tcp_enter_quickack_mode(sk, TCP_MAX_QUICKACKS)
// for a segment received twice: quick ACKs again (tcp_incr_quickack),
// pingpong mode left, ato back to TCP_ATO_MIN, and an ACK scheduled
// (inet_csk_schedule_ack) for the caller to send.
func (c *Conn) enterQuickackMode() {
	c.incrQuickack()
	c.ack.pingpong = false
	c.ack.ato = atoMin
	c.ack.pending |= ackSched
}

// measureRcvMSS models tcp_measure_rcv_mss: a segment (its gso_size, or
// its length) at least rcv_mss long sets rcv_mss, up to advmss, and, if
// not exactly rcv_mss long, sets scaling_ratio to its payload per
// truesize in 1/256ths, which moves window_clamp (profiles with
// tp->scaling_ratio); with PSH and exactly rcv_mss long it marks the ACK
// pushed (ICSK_ACK_PUSHED: Profile.TCPPushedAtMSS). A shorter segment that still counts as full-sized
// (long enough, or without PSH) sets rcv_mss when two in a row have the
// same size; otherwise it marks the ACK pushed (ICSK_ACK_PUSHED, twice:
// PUSHED2).
func (c *Conn) measureRcvMSS(s rcvSeg) {
	a := &c.ack
	lss := a.lastSegSize
	a.lastSegSize = 0
	n := s.len
	if s.gso > 0 {
		n = s.gso
	}
	if n >= c.rcvMSSNow() {
		if n != c.rcvMSSNow() && c.host().Profile.TCPScalingRatio {
			old := c.ratio()
			c.scalingRatio = max(s.len<<8/s.truesize, 1)
			if c.scalingRatio != old {
				c.setWindowClamp()
			}
		}
		c.rcvMSS = min(n, c.rw.advmss)
		if s.push && n == c.rcvMSS && c.host().Profile.TCPPushedAtMSS {
			a.pending |= ackPushed
		}
		return
	}
	seen := n + c.HeaderLen()
	if seen >= tcpMSSDefault+tcpHdrLen || (seen >= tcpMinMSS+tcpHdrLen && !s.push) {
		n = seen - c.HeaderLen()
		a.lastSegSize = n
		if n == lss {
			c.rcvMSS = n
			return
		}
	}
	if a.pending&ackPushed != 0 {
		a.pending |= ackPushed2
	}
	a.pending |= ackPushed
}

// ackSndCheck models __tcp_ack_snd_check under AckKernel: an ACK now when
// more than one full segment arrived since the last ACK and the window
// would move right (or less than SO_RCVLOWAT is unread), or in quickack
// mode (quick ACKs left and not pingpong); otherwise the delayed ACK.
func (c *Conn) ackSndCheck() {
	unread := c.Queued()
	if int32(c.rcvNxt-c.rw.wup) > int32(c.rcvMSSNow()) &&
		(unread < c.Sk.Rcvlowat || c.selectWindowNow() >= c.rw.wnd) ||
		c.ack.quick > 0 && !c.ack.pingpong { // tcp_in_quickack_mode
		c.SendAck()
		return
	}
	c.sendDelayedAck()
}

// sendDelayedAck models tcp_send_delayed_ack: the timer is set ato from
// now (an ato above TCP_DELACK_MIN bounded by HZ/2, by TCP_DELACK_MAX in
// pingpong mode or after a pushed segment, and by the smoothed RTT in
// jiffies, at least TCP_DELACK_MIN; any ato by icsk_delack_max,
// TCP_DELACK_MAX); an armed timer keeps its earlier
// deadline, and one due within a quarter of ato sends the ACK now. An
// ato still zero (nothing but a FIN received yet) is a timer due at once,
// which runs at the next timer tick: the model takes the whole jiffy
// (Linux 6.18 under packetdrill acknowledges such a FIN within 4ms).
func (c *Conn) sendDelayedAck() {
	a := &c.ack
	ato := a.ato
	if ato > delackMin {
		maxAto := maxAtoIdle
		if a.pingpong || a.pending&ackPushed != 0 {
			maxAto = delackMax
		}
		if c.rtt.srtt != 0 {
			srtt := engine.Duration(c.rtt.srtt>>3) * engine.Microsecond
			maxAto = min(maxAto, max(c.toJiffies(srtt)*c.jiffy(), delackMin))
		}
		ato = min(ato, maxAto)
	}
	ato = min(ato, delackMax)
	if ato == 0 {
		ato = c.jiffy()
	}
	now := c.Net.Now()
	timeout := now.Add(ato)
	if a.pending&ackTimer != 0 && c.Net.Pending(c.t.delack) {
		if a.timeout <= now.Add(ato/4) {
			c.SendAck()
			return
		}
		timeout = min(timeout, a.timeout)
	}
	a.pending |= ackSched | ackTimer
	a.timeout = timeout
	c.Net.Cancel(c.t.delack)
	_, fire := c.fired()
	c.t.delack = c.Net.After(c.Sk, timeout.Sub(now), "delack", fire)
}

// delackTimer models tcp_delack_timer_handler: an ACK still due is sent,
// and ato, missed, doubles up to the RTO — or, in pingpong mode, the
// connection leaves it and ato falls to TCP_ATO_MIN (measured on Linux
// 6.18: TCP_QUICKACK reads 1 again once a delayed ACK went out).
func (c *Conn) delackTimer() string {
	a := &c.ack
	a.pending &^= ackTimer
	if a.pending&ackSched == 0 {
		return "delayed-ACK timer fires: nothing to acknowledge"
	}
	if c.t.policy == AckKernel {
		if a.pingpong {
			a.pingpong, a.ato = false, atoMin
		} else {
			a.ato = min(a.ato<<1, c.rto())
		}
	}
	c.SendAck()
	return "delayed-ACK timer fires"
}

// eventDataSent models tcp_event_data_sent after a segment with payload
// went out (__tcp_transmit_skb skips it for a segment of headers alone,
// such as a FIN by itself): a reply within ato of the last data segment received enters
// pingpong mode (inet_csk_inc_pingpong_cnt, at tcp_pingpong_thresh 1;
// 4.14 and 5.0 set the flag itself). Measured on Linux 6.18: after the
// peer answers a segment, TCP_QUICKACK reads 0 on it and the next
// zerocopy send's notification waits for the delayed ACK.
func (c *Conn) eventDataSent() {
	a := &c.ack
	if c.Net.Now().Sub(a.lrcvtime) < a.ato {
		a.pingpong = true
	}
}

// ackSent models tcp_event_ack_sent: an ACK of new data uses up a quick
// ACK (tcp_dec_quickack_mode; the last one resets ato to TCP_ATO_MIN),
// and the delayed-ACK timer stops with nothing pending.
func (c *Conn) ackSent() {
	a := &c.ack
	if a.quick > 0 {
		if a.pending&ackSched != 0 {
			a.quick--
		}
		if a.quick == 0 {
			a.ato = atoMin
		}
	}
	a.pending = 0
	c.Net.Cancel(c.t.delack)
}

// CleanupRbuf models tcp_cleanup_rbuf after a read of copied bytes: under
// AckKernel an ACK goes out if one is due and either more than a full
// segment arrived since the last ACK or the read emptied the buffer after
// a small pushed segment, or if the read at least doubled a window that
// had fallen to half window_clamp or less. Under the other policies every
// read that copied something sends the window update.
func (c *Conn) CleanupRbuf(copied int) {
	if c.t.policy != AckKernel {
		if copied > 0 {
			c.SendAck()
		}
		return
	}
	a := &c.ack
	now := false
	if a.pending&ackSched != 0 {
		pushed := a.pending&ackPushed2 != 0 || a.pending&ackPushed != 0 && !a.pingpong
		now = int32(c.rcvNxt-c.rw.wup) > int32(c.rcvMSSNow()) ||
			copied > 0 && pushed && c.Sk.RmemAlloc == 0
	}
	if copied > 0 && !now && c.Sk.Shutdown&sock.RcvShutdown == 0 && !c.rcvFin {
		cur := c.receiveWindow()
		if 2*cur <= c.rw.clamp {
			if w := c.selectWindowNow(); w > 0 && w >= 2*cur {
				now = true
			}
		}
	}
	if now {
		c.SendAck()
	}
}

// setQuickack models __tcp_sock_set_quickack: 0 enters pingpong mode;
// anything else leaves it and, on a connection with an ACK due, marks it
// pushed and runs tcp_cleanup_rbuf as a read of one byte would (which
// sends it only if the receive queue is empty or more than a segment
// waits), re-entering pingpong for an even value. Measured on Linux 6.18:
// getsockopt says 1 by default and after 2 or -1, 0 after 0; a
// 1000-byte segment to a receiver set to 0 waits for the delayed ACK.
func (c *Conn) setQuickack(val int) {
	a := &c.ack
	if val == 0 {
		a.pingpong = true
		return
	}
	a.pingpong = false
	if (c.Sk.State == sock.ESTABLISHED || c.Sk.State == sock.CLOSE_WAIT) && a.pending&ackSched != 0 {
		a.pending |= ackPushed
		c.CleanupRbuf(1)
		a.pingpong = val&1 == 0
	}
}
