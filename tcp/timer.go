package tcp

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
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

// Timer constants of include/net/tcp.h.
const (
	delackMin = 40 * engine.Millisecond  // TCP_DELACK_MIN
	rtoMin    = 200 * engine.Millisecond // TCP_RTO_MIN
	rtoMax    = 120 * engine.Second      // TCP_RTO_MAX
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
	// rtoMax is icsk_rto_max as TCP_RTO_MAX_MS set it, 0 for TCP_RTO_MAX.
	rtoMax engine.Duration
	// icskRto is icsk_rto, 0 for TCP_TIMEOUT_INIT (rto).
	icskRto engine.Duration
	// retransmits is icsk_retransmits, the RTO's retransmissions since
	// snd_una last moved; retransStamp is retrans_stamp, when the first
	// retransmission still outstanding went (retransSet says there is
	// one); probesStamp is icsk_probes_tstamp, when the probe timer first
	// found something to probe (probesSet).
	retransmits               int
	retransStamp, probesStamp engine.Time
	retransSet, probesSet     bool
	// userTimeout is icsk_user_timeout (TCP_USER_TIMEOUT), in ms.
	userTimeout int
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

// armProbe models tcp_check_probe_timer: with nothing in flight and no
// timer of icsk_retransmit_timer pending (the RTO, the loss probe, the
// probe timer), the probe timer is set for tcp_probe0_base.
func (c *Conn) armProbe() {
	if c.done || len(c.rtx) > 0 || c.Net.Pending(c.t.probe) || c.Net.Pending(c.t.rto) || c.Net.Pending(c.tlp.timer) {
		return
	}
	c.resetProbe(c.probe0Base())
}

// probe0Base is tcp_probe0_base: icsk_rto, at least TCP_RTO_MIN.
func (c *Conn) probe0Base() engine.Duration { return max(c.rto(), rtoMin) }

// resetProbe models tcp_reset_xmit_timer(ICSK_TIME_PROBE0): the probe
// timer, pending or not, runs d from now.
func (c *Conn) resetProbe(d engine.Duration) {
	if c.t.onProbe == nil {
		c.t.onProbe = c.probeTimer
	}
	c.Net.Cancel(c.t.probe)
	c.t.probe = c.Net.After(c.Sk, d, "probe", c.t.onProbe)
}

// probe0When is tcp_probe0_when: tcp_probe0_base shifted by the
// backoff, at most ilog2(TCP_RTO_MAX / TCP_RTO_MIN) + 1 places, and at
// most tcp_rto_max.
func (c *Conn) probe0When() engine.Duration {
	return min(c.probe0Base()<<min(c.t.backoff, probe0MaxShift), c.rtoMax())
}

// probe0MaxShift is ilog2(TCP_RTO_MAX / TCP_RTO_MIN) + 1.
const probe0MaxShift = 10

// rtoMax is tcp_rto_max: the socket's icsk_rto_max where the profile has
// it (Profile.TCPRtoMaxOpt), net.ipv4.tcp_rto_max_ms unless
// TCP_RTO_MAX_MS set it; TCP_RTO_MAX otherwise.
func (c *Conn) rtoMax() engine.Duration {
	switch {
	case c.t.rtoMax != 0:
		return c.t.rtoMax
	case c.host().Profile.TCPRtoMaxOpt:
		return engine.Duration(c.Sk.Net.TCPRtoMaxMs) * engine.Millisecond
	}
	return rtoMax
}

// setRtoMax models TCP_RTO_MAX_MS in do_tcp_setsockopt: 1000 to
// TCP_RTO_MAX milliseconds, else EINVAL; ENOPROTOOPT on profiles
// without the option.
func (c *Conn) setRtoMax(ms int) kernel.Errno {
	switch {
	case !c.host().Profile.TCPRtoMaxOpt:
		return kernel.ENOPROTOOPT
	case ms < 1000 || ms > int(rtoMax/engine.Millisecond):
		return kernel.EINVAL
	}
	c.t.rtoMax = engine.Duration(ms) * engine.Millisecond
	return 0
}

// probeTimer models tcp_probe_timer: with data out or nothing to send
// no probe is needed. Otherwise the connection is given up with
// ETIMEDOUT (tcp_write_err) once TCP_USER_TIMEOUT has passed since the
// timer first found something to probe (icsk_probes_tstamp), or once
// icsk_probes_out reaches net.ipv4.tcp_retries2 — probes no ACK
// answered, for an ACK resets the count, so probes a peer answers go on
// for ever — or, for an orphan, tcp_orphan_retries, and at once once its
// backed-off RTO reaches tcp_rto_max ("alive" no more); else
// tcp_send_probe0 (sendProbe0) probes again.
func (c *Conn) probeTimer() string {
	if c.done {
		return "probe timer fires: the connection is gone"
	}
	if len(c.rtx) > 0 || len(c.write) == 0 {
		c.t.probes, c.t.probesSet = 0, false
		return "probe timer fires: nothing to probe"
	}
	if !c.t.probesSet {
		c.t.probesStamp, c.t.probesSet = c.Net.Now(), true
	} else if c.t.userTimeout != 0 && c.Net.Now().Sub(c.t.probesStamp) >= c.userTimeoutJiffies() {
		c.GiveUp()
		return "probe timer fires: TCP_USER_TIMEOUT passed, connection aborted (ETIMEDOUT)"
	}
	maxProbes := c.Sk.Net.TCPRetries2
	if c.Sk.Dead() {
		alive := c.rtoBackoff(c.rtoMax()) < c.rtoMax()
		maxProbes = c.orphanRetries(alive)
		if !alive && c.t.backoff >= maxProbes {
			c.GiveUp()
			return "probe timer fires: the orphan's RTO reached tcp_rto_max, connection aborted (ETIMEDOUT)"
		}
	}
	if c.t.probes >= maxProbes {
		c.GiveUp()
		return "probe timer fires: probes exhausted, connection aborted (ETIMEDOUT)"
	}
	return c.sendProbe0()
}

// sendProbe0 models tcp_send_probe0: tcp_write_wakeup (writeWakeup)
// sends what the peer's window takes, or a zero-window probe. Once data
// is in flight, or nothing is left to send, the probe state is forgotten
// (icsk_probes_out, icsk_backoff and icsk_probes_tstamp) and the RTO runs
// instead; otherwise icsk_probes_out counts the probe, the backoff grows
// (up to tcp_retries2) and the timer runs again after tcp_probe0_when,
// or when TCP_USER_TIMEOUT ends (clampProbe0).
func (c *Conn) sendProbe0() string {
	zero := c.writeWakeup()
	if len(c.rtx) > 0 || len(c.write) == 0 {
		c.t.probes, c.t.backoff, c.t.probesSet = 0, 0, false
		return "probe timer fires: tcp_write_wakeup sends what the window takes"
	}
	c.t.probes++
	if c.t.backoff < c.Sk.Net.TCPRetries2 {
		c.t.backoff++
	}
	c.resetProbe(c.clampProbe0(c.probe0When()))
	if zero {
		return "probe timer fires: zero-window probe (tcp_xmit_probe_skb)"
	}
	return "probe timer fires: tcp_write_wakeup sends nothing"
}

// writeWakeup models tcp_write_wakeup: when the peer's window reaches
// into the write queue's head, its first min(window, MSS) bytes go, cork
// and Nagle or not (probeDue lets splitPoint pass them); when the window
// ends at or before the head, the probe is a segment of no data one byte
// before snd_una (tcp_xmit_probe_skb, xmitProbeSkb), which the peer
// cannot take and answers with its window. It reports whether it sent
// the zero-window probe.
func (c *Conn) writeWakeup() bool {
	if after(c.sndUna+uint32(c.sndWnd), c.write[0].Seq) {
		c.t.probeDue = true
		c.pushPending(c.nonagle)
		c.t.probeDue = false
		return false
	}
	c.xmitProbeSkb()
	return true
}

// Persisting reports whether the connection probes a zero window whose
// peer answers: a connection its user holds, nothing in flight, the write
// queue's head beyond the peer's window, the probe timer armed and no
// probe unanswered. Such probes go on for ever, as the kernel's do (each
// ACK resets icsk_probes_out), and change nothing until the peer reads;
// an orphan's end (probeTimer). A probe's ACK changes something where a
// writer found the send buffer full (SOCK_NOSPACE) and the congestion
// window allows a larger one: tcp_check_space runs tcp_new_space, which
// grows sk_sndbuf and wakes the writer. Measured on Linux 6.18 over
// loopback: a blocking send against a zero window returns once the next
// probe's ACK has raised sk_sndbuf (probe/testdata/tcp-sndbuf-probe.zcs).
func (c *Conn) Persisting() bool {
	return !c.done && !c.Sk.Dead() && len(c.rtx) == 0 && len(c.write) > 0 && c.t.probes == 0 &&
		c.Net.Pending(c.t.probe) && !after(c.sndUna+uint32(c.sndWnd), c.write[0].Seq) &&
		!(c.Sk.NoSpace && c.sndbufFor(c.cwnd) > c.Sk.Sndbuf)
}

// xmitProbeSkb models tcp_xmit_probe_skb: a segment of no data at snd_una
// - 1, charged to sk_wmem_alloc while it travels, carrying the ACK that
// was due; the peer cannot take it and answers with an ACK of its window
// (tcp_send_dupack).
func (c *Conn) xmitProbeSkb() {
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
// probe timer and forgets the backoff and icsk_probes_tstamp; one that
// does not sets the probe timer for tcp_probe0_when from now (clamped to
// TCP_USER_TIMEOUT), pending or not.
func (c *Conn) ackProbe() {
	if len(c.write) == 0 || c.done {
		return
	}
	if !after(c.write[0].EndSeq, c.sndUna+uint32(c.sndWnd)) {
		c.Net.Cancel(c.t.probe)
		c.t.backoff, c.t.probesSet = 0, false
		return
	}
	c.resetProbe(c.clampProbe0(c.probe0When()))
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

// armRTO starts the retransmission timer for icsk_rto.
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
// first data out arms the RTO. It ends with tcp_check_space, as
// tcp_event_new_data_sent does: a writer that found no space gets a
// larger send buffer while the congestion window still has room
// (checkSpace), skb by skb as the window is filled.
func (c *Conn) newDataSent() {
	if c.Net.Pending(c.tlp.timer) {
		c.armRTOIn(max(c.rtoDelta(), c.jiffy()))
	}
	c.syncRTO()
	c.checkSpace()
}

// retransmitTimer models tcp_retransmit_timer: once tcp_write_timeout
// (writeTimeout) says so the connection is given up with ETIMEDOUT
// (tcp_write_err); otherwise everything unacknowledged is retransmitted
// (icsk_retransmits counts it) and the timer restarts with icsk_rto
// doubled, up to tcp_rto_max (exponential backoff), until an RTT sample
// sets it again (tcp_set_rto), or sooner when TCP_USER_TIMEOUT ends
// (tcp_clamp_rto_to_user_timeout).
func (c *Conn) retransmitTimer() string {
	if why := c.writeTimeout(); why != "" {
		c.GiveUp()
		return why + ", connection aborted (ETIMEDOUT)"
	}
	c.Timeout()
	c.retransmitted()
	c.t.retransmits++
	c.t.backoff++
	c.Net.Cancel(c.t.rto)
	c.t.icskRto = min(c.rto()<<1, c.rtoMax())
	c.armRTOIn(c.clampRTO())
	return fmt.Sprintf("retransmission timeout %d, retransmit from snd_una", c.t.backoff)
}

// progress restarts the retransmission timer after an ACK that freed
// something (tcp_rearm_rto); the backoff stays until an RTT sample
// (ackUpdateRTT).
func (c *Conn) progress() { c.Net.Cancel(c.t.rto) }

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
	if c.timeWait && c.twWnd < 0 {
		c.twWnd = win
	}
	return c.rcvNxt, win
}
