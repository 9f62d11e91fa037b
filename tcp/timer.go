package tcp

import (
	"fmt"

	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// Network is what a Conn needs of the world below and around it: the path
// its segments take (sock.Network), the path its ACKs take, and the
// virtual clock its timers run on. The simulator implements it.
type Network interface {
	sock.Network
	// SendAck sends the connection's peer a cumulative ACK of ack with
	// receive window win (tcp_send_ack).
	SendAck(from *sock.Sock, ack uint32, win int)
	// After runs fire d of virtual time from now, as an event of its own
	// on sk's behalf called op; fire says what it did. The handle is
	// always safe to cancel.
	After(sk *sock.Sock, d engine.Duration, op string, fire func() string) engine.Handle
	// Now returns the virtual time.
	Now() engine.Time
	// Cancel stops a pending event; Pending reports whether it is still
	// to run.
	Cancel(h engine.Handle) bool
	Pending(h engine.Handle) bool
	// FlushBacklog models sk_flush_backlog from inside a call that owns
	// sk: the packets queued on its backlog meanwhile are processed
	// (__release_sock) and the call keeps the socket. It reports whether
	// there were any.
	FlushBacklog(sk *sock.Sock) bool
}

// AckPolicy is how the connection acknowledges the data it receives.
type AckPolicy uint8

// The ACK policies.
const (
	// AckKernel is the kernel's own: quick ACKs after the handshake, then
	// delayed ACKs, an ACK for more than one full segment when the window
	// moves, and ACKs when the application reads (ackSndCheck,
	// CleanupRbuf).
	AckKernel AckPolicy = iota
	// AckImmediate acknowledges every segment at once.
	AckImmediate
	// AckDelayed acknowledges every second full-sized segment, or when the
	// delayed-ACK timer fires after TCP_DELACK_MIN.
	AckDelayed
	// AckQuick is quickack mode (TCP_QUICKACK): every segment at once.
	AckQuick
)

// Timer constants of include/net/tcp.h and the sysctl default.
const (
	delackMin = 40 * engine.Millisecond  // TCP_DELACK_MIN
	rtoMin    = 200 * engine.Millisecond // TCP_RTO_MIN
	rtoMax    = 120 * engine.Second      // TCP_RTO_MAX
	retries2  = 15                       // net.ipv4.tcp_retries2
)

// timers is a connection's timer state (inet_connection_sock's icsk_timeout
// and icsk_ack): the retransmission timer with its backoff, and the
// delayed-ACK timer with the data it waits to acknowledge.
type timers struct {
	rto     engine.Handle
	backoff int // icsk_backoff: timeouts since the last progress
	delack  engine.Handle
	unacked int // bytes received and not yet acknowledged (AckDelayed)
	policy  AckPolicy
	// probe is the probe timer (ICSK_TIME_PROBE0); probeDue lets its
	// tcp_write_wakeup send into a window smaller than a segment.
	probe    engine.Handle
	probeDue bool
	probes   int // icsk_probes_out: probes the peer has not answered
	// onRTO, onDelack and onProbe are retransmitTimer, delackTimer and
	// probeTimer bound to the connection once (fired, armProbe), so
	// arming a timer allocates nothing.
	onRTO, onDelack, onProbe func() string
}

// fired returns the functions the retransmission and delayed-ACK timers
// run, binding them on first use.
func (c *Conn) fired() (rto, delack func() string) {
	if c.t.onRTO == nil {
		c.t.onRTO, c.t.onDelack = c.retransmitTimer, c.delackTimer
	}
	return c.t.onRTO, c.t.onDelack
}

// armProbe models tcp_check_probe_timer: unless it runs already, the
// probe timer is set for the RTO, doubled by each probe so far
// (icsk_backoff), up to TCP_RTO_MAX (tcp_probe0_when).
func (c *Conn) armProbe() {
	if c.done || c.Net.Pending(c.t.probe) {
		return
	}
	if c.t.onProbe == nil {
		c.t.onProbe = c.probeTimer
	}
	c.t.probe = c.Net.After(c.Sk, c.probe0When(), "probe", c.t.onProbe)
}

// probe0When is tcp_probe0_when: the RTO (at least TCP_RTO_MIN) doubled
// by the backoff, at most TCP_RTO_MAX.
func (c *Conn) probe0When() engine.Duration { return min(rtoMin<<c.t.backoff, rtoMax) }

// probeTimer models tcp_probe_timer and tcp_send_probe0: with data out
// or nothing to send the probe is not needed; after tcp_retries2 probes
// no ACK answered (icsk_probes_out) the connection is given up
// (tcp_write_err); otherwise tcp_write_wakeup sends what the peer's
// window takes, partial segment or corked data included, or, when the
// window ends before the write queue's head, a zero-window probe
// (sendProbe0), and the timer is armed again with the backoff doubled,
// until data is out (measured on Linux 6.18 with packetdrill: against a
// window of 0, probes of no data at snd_una - 1 go 208ms after the send
// and 440ms after that, each answered with the window still 0).
func (c *Conn) probeTimer() string {
	if c.done {
		return "probe timer fires: the connection is gone"
	}
	if len(c.rtx) > 0 || len(c.write) == 0 {
		c.t.probes = 0
		return "probe timer fires: nothing to probe"
	}
	c.t.probes++
	if c.t.probes > retries2 {
		c.GiveUp()
		return "probe timer fires: probes exhausted, connection aborted (ETIMEDOUT)"
	}
	c.t.probeDue = true
	c.t.backoff = min(c.t.backoff+1, retries2)
	c.pushPending(c.nonagle)
	zero := c.t.probeDue && len(c.rtx) == 0 && len(c.write) > 0 && !after(c.sndUna+uint32(c.sndWnd), c.write[0].Seq)
	c.t.probeDue = false
	if len(c.rtx) > 0 || len(c.write) == 0 {
		// tcp_send_probe0: the probe sent data (or nothing is left), so
		// the probe state is forgotten.
		c.t.probes, c.t.backoff = 0, 0
		return "probe timer fires: tcp_write_wakeup sends what the window takes"
	}
	if zero {
		c.sendProbe0()
		c.armProbe()
		return "probe timer fires: zero-window probe (tcp_xmit_probe_skb)"
	}
	return "probe timer fires: tcp_write_wakeup sends nothing"
}

// Persisting reports whether the connection probes a zero window whose
// peer answers: nothing in flight, the write queue's head beyond the
// peer's window, the probe timer armed and no probe unanswered. Such
// probes go on for ever, as the kernel's do (each ACK resets
// icsk_probes_out), and change nothing until the peer reads.
func (c *Conn) Persisting() bool {
	return !c.done && len(c.rtx) == 0 && len(c.write) > 0 && c.t.probes == 0 &&
		c.Net.Pending(c.t.probe) && !after(c.sndUna+uint32(c.sndWnd), c.write[0].Seq)
}

// sendProbe0 models tcp_xmit_probe_skb: a segment of no data at snd_una
// - 1, charged to sk_wmem_alloc while it travels, carrying the ACK that
// was due; the peer cannot take it and answers with an ACK of its window
// (tcp_send_dupack).
func (c *Conn) sendProbe0() {
	b := skb.Alloc(c.host(), 0)
	b.Reserve(c.host().Profile.TCPHeadroom)
	c.Sk.ChargeW(b)
	seq := c.sndUna - 1
	p := sock.Packet{Skb: b, From: c.Sk, Seq: seq, EndSeq: seq}
	if c.ack.pending&ackSched != 0 {
		p.Acks = true
		p.Ack, p.Win = c.takeAck()
	}
	c.Net.Xmit(p)
}

// ackProbe models tcp_ack_probe for an ACK that found nothing
// outstanding: a window that now takes the write queue's head stops the
// probe timer and forgets the backoff; one that does not re-arms the
// timer from now.
func (c *Conn) ackProbe() {
	if len(c.write) == 0 || c.done {
		return
	}
	if !after(c.write[0].EndSeq, c.sndUna+uint32(c.sndWnd)) {
		c.Net.Cancel(c.t.probe)
		c.t.backoff = 0
		return
	}
	if c.Net.Pending(c.t.probe) {
		c.Net.Cancel(c.t.probe)
		c.armProbe()
	}
}

// syncRTO models inet_csk_reset_xmit_timer / inet_csk_clear_xmit_timer as
// tcp_rearm_rto uses them: the retransmission timer runs while data is
// unacknowledged and the connection exists, and is stopped otherwise
// (the backoff stays, for the zero-window probes; an ACK that frees data
// forgot it already).
func (c *Conn) syncRTO() {
	if c.done || len(c.rtx) == 0 {
		c.Net.Cancel(c.t.rto)
		c.Net.Cancel(c.tlp.timer)
		return
	}
	// ICSK_TIME_RETRANS, ICSK_TIME_LOSS_PROBE and ICSK_TIME_PROBE0 are
	// one timer (icsk_retransmit_timer): with data in flight the
	// zero-window probe is off, and a loss probe stands for the RTO.
	c.Net.Cancel(c.t.probe)
	if !c.Net.Pending(c.t.rto) && !c.Net.Pending(c.tlp.timer) {
		c.armRTO()
	}
}

// armRTO starts the retransmission timer for icsk_rto, TCP_RTO_MIN
// doubled by each timeout so far up to TCP_RTO_MAX.
func (c *Conn) armRTO() { c.armRTOIn(c.rto()) }

// armRTOIn starts the retransmission timer d from now, in place of a
// loss probe.
func (c *Conn) armRTOIn(d engine.Duration) {
	c.Net.Cancel(c.tlp.timer)
	c.Net.Cancel(c.t.rto)
	fire, _ := c.fired()
	c.t.rto = c.Net.After(c.Sk, d, "rto", fire)
}

// newDataSent models tcp_event_new_data_sent's tcp_rearm_rto: new data
// sent while a loss probe is pending turns it back into the RTO of the
// retransmit queue's head (tcp_rto_delta_us, at least a jiffy), which
// tcp_write_xmit's tcp_schedule_loss_probe then replaces again; the
// first data out arms the RTO.
func (c *Conn) newDataSent() {
	if c.Net.Pending(c.tlp.timer) {
		c.armRTOIn(max(c.rtoDelta(), c.jiffy()))
	}
	c.syncRTO()
}

// retransmitTimer models tcp_retransmit_timer: after tcp_retries2 timeouts
// the connection is given up with ETIMEDOUT (tcp_write_err); otherwise
// everything unacknowledged is retransmitted and the timer restarts with
// twice the timeout (exponential backoff).
func (c *Conn) retransmitTimer() string {
	c.t.backoff++
	if c.t.backoff > retries2 {
		c.GiveUp()
		return "retransmissions exhausted, connection aborted (ETIMEDOUT)"
	}
	c.Timeout()
	c.Net.Cancel(c.t.rto)
	c.armRTO()
	return fmt.Sprintf("retransmission timeout %d, retransmit from snd_una", c.t.backoff)
}

// progress restarts the retransmission timer after an ACK that freed
// something (tcp_rearm_rto): the backoff is forgotten.
func (c *Conn) progress() {
	c.Net.Cancel(c.t.rto)
	c.t.backoff = 0
}

// SetAckPolicy sets how the connection acknowledges what it receives.
func (c *Conn) SetAckPolicy(p AckPolicy) { c.t.policy = p }

// AckPolicy returns how the connection acknowledges what it receives.
func (c *Conn) AckPolicy() AckPolicy { return c.t.policy }

// Received acknowledges n in-order bytes (and maybe a FIN) just queued.
// Under AckKernel it is __tcp_ack_snd_check (ackSndCheck), also for a
// FIN that made the connection CLOSE_WAIT, which tcp_fin left in
// pingpong mode, so that its ACK is delayed unless more than a segment
// is unacknowledged (measured on Linux 6.18); a FIN that ends the
// connection's own close is acknowledged at once (tcp_fin, tcp_time_wait). AckDelayed waits for a second full-sized segment
// or the delayed-ACK timer after TCP_DELACK_MIN (tcp_send_delayed_ack);
// the other policies acknowledge at once.
func (c *Conn) Received(n int, fin bool) {
	switch c.t.policy {
	case AckKernel:
		if fin && c.Sk.State != sock.CLOSE_WAIT {
			c.SendAck() // tcp_fin in FIN_WAIT1, FIN_WAIT2, TIME_WAIT
			return
		}
		c.ackSndCheck()
		return
	case AckDelayed:
		c.t.unacked += n
		if !fin && c.t.unacked < 2*c.MSS() {
			if !c.Net.Pending(c.t.delack) {
				c.ack.pending |= ackSched | ackTimer
				_, fire := c.fired()
				c.t.delack = c.Net.After(c.Sk, delackMin, "delack", fire)
			}
			return
		}
	}
	c.SendAck()
}

// SendAck models tcp_send_ack: the cumulative ACK and the window now
// (tcp_select_window), then tcp_event_ack_sent (ackSent), which stops the
// delayed-ACK timer.
func (c *Conn) SendAck() {
	ack, win := c.takeAck()
	c.Net.SendAck(c.Sk, ack, win)
}

// takeAck is what any segment sent does for the ACK it carries: the
// cumulative ACK and the window it offers, then tcp_event_ack_sent.
func (c *Conn) takeAck() (ack uint32, win int) {
	win = c.Window()
	c.ackSent()
	c.t.unacked = 0
	return c.rcvNxt, win
}
