package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
)

// Timer constants of include/net/tcp.h that the tail loss probe uses.
const (
	timeoutMinUs = 2 * engine.Millisecond // TCP_TIMEOUT_MIN_US
	timeoutMin   = 2                      // TCP_TIMEOUT_MIN, in jiffies
	timeoutInit  = engine.Second          // TCP_TIMEOUT_INIT
	tlpFloor     = 10 * engine.Millisecond
)

// lossProbe is a connection's tail loss probe state: the timer
// (ICSK_TIME_LOSS_PROBE, which shares icsk_retransmit_timer with the RTO
// and the zero-window probe, so at most one of them runs) and
// tlp_high_seq, snd_nxt when the outstanding probe went out.
type lossProbe struct {
	timer   engine.Handle
	high    uint32
	out     bool // tlp_high_seq != 0: a probe is outstanding
	onFire  func() string
	inLoss  bool   // icsk_ca_state TCP_CA_Loss, entered by an RTO
	lossEnd uint32 // high_seq: snd_nxt when the loss began
}

// jiffy is one tick of the profile's CONFIG_HZ.
func (c *Conn) jiffy() engine.Duration { return engine.Second / engine.Duration(c.host().Profile.HZ) }

// toJiffies is usecs_to_jiffies (and msecs_to_jiffies): d rounded up to
// whole jiffies.
func (c *Conn) toJiffies(d engine.Duration) engine.Duration {
	j := c.jiffy()
	return (d + j - 1) / j
}

// packetsOut is tp->packets_out: the segments sent and not yet
// acknowledged, those given up as lost included.
func (c *Conn) packetsOut() int {
	n, mss := 0, c.MSS()
	for _, seg := range c.rtx {
		n += segments(seg.Skb.Len, mss)
	}
	return n
}

// sack is tcp_is_sack: SACK was negotiated (net.ipv4.tcp_sack on both
// ends, as by default).
func (c *Conn) sack() bool { return c.neg.sack }

// rtoDelta is tcp_rto_delta_us: how far in the future the RTO of the
// retransmit queue's head falls, from when it was last sent.
func (c *Conn) rtoDelta() engine.Duration {
	return c.rtx[0].sentAt.Add(c.rto()).Sub(c.Net.Now())
}

// probeTimeout is the probe timeout (PTO) in jiffies of the profile's
// form (kernel.LossProbe) for packets_out segments out: about twice
// srtt, with one packet room for the peer's delayed ACK, and
// TCP_TIMEOUT_INIT without an RTT sample.
func (c *Conn) probeTimeout(packetsOut int) engine.Duration {
	hz := engine.Duration(c.host().Profile.HZ)
	if c.rtt.srtt == 0 {
		return c.toJiffies(timeoutInit)
	}
	srtt2 := engine.Duration(c.rtt.srtt>>2) * engine.Microsecond
	switch c.host().Profile.TCPLossProbe {
	case kernel.LossProbeFloor10ms:
		rtt := c.toJiffies(srtt2 / 2)
		t := rtt << 1
		if packetsOut == 1 {
			t = max(t, rtt+rtt>>1+hz/5) // TCP_DELACK_MAX
		}
		return max(t, c.toJiffies(tlpFloor))
	case kernel.LossProbeTicks:
		if packetsOut == 1 {
			return c.toJiffies(srtt2) + hz/5 // TCP_RTO_MIN
		}
		return c.toJiffies(srtt2) + timeoutMin
	}
	if packetsOut == 1 {
		return c.toJiffies(srtt2 + rtoMin) // tcp_rto_min_us
	}
	return c.toJiffies(srtt2 + timeoutMinUs)
}

// scheduleLossProbe models tcp_schedule_loss_probe, after tcp_write_xmit
// sent new data and (advancing) after an ACK that freed some: with
// net.ipv4.tcp_early_retrans 3 or 4, data out, SACK, not in loss
// recovery and not a Fast Open child before its handshake completes, the
// loss probe replaces the RTO, due after the probe timeout, or sooner if
// the RTO would come first (icsk_rto from now when advancing, the head's
// RTO otherwise). Timers fire at their nominal expiry (the package doc's
// "When a timer fires": the kernel's timer wheel fires later).
func (c *Conn) scheduleLossProbe(advancing bool) bool {
	er := c.Sk.Net.TCPEarlyRetrans
	if c.done || c.fastOpenChild || er != 3 && er != 4 || len(c.rtx) == 0 || !c.sack() || c.tlp.inLoss {
		return false
	}
	timeout := c.probeTimeout(c.packetsOut()) * c.jiffy()
	delta := c.rto()
	if !advancing {
		delta = c.rtoDelta()
	}
	if delta > 0 {
		timeout = min(timeout, c.toJiffies(delta)*c.jiffy())
	}
	c.Net.Cancel(c.t.rto)
	c.Net.Cancel(c.t.probe)
	c.Net.Cancel(c.tlp.timer)
	if c.tlp.onFire == nil {
		c.tlp.onFire = c.sendLossProbe
	}
	c.tlp.timer = c.Net.After(c.Sk, timeout, "loss_probe", c.tlp.onFire)
	return true
}

// sendLossProbe models tcp_send_loss_probe when the probe timer fires:
// with no probe outstanding, new data goes if the window takes the head
// of the write queue (tcp_write_xmit with TCP_NAGLE_OFF, one skb);
// otherwise the retransmit queue's last skb is retransmitted, split
// first to its last MSS (tcp_fragment), unless its previous transmission
// is still in the host (skb_still_in_host_queue: its clone not yet
// freed). A probe sent records tlp_high_seq and restarts the RTO from
// now; no probe re-arms the RTO for the head (tcp_rearm_rto).
func (c *Conn) sendLossProbe() string {
	if c.done || len(c.rtx) == 0 {
		return "loss probe timer fires: nothing is outstanding"
	}
	why := "a probe is outstanding already"
	if !c.tlp.out {
		why = c.lossProbe()
		if why == "" {
			c.tlp.high, c.tlp.out = c.sndNxt, true
			c.armRTO()
			return "loss probe timer fires: tcp_send_loss_probe sent a probe"
		}
	}
	c.armRTOIn(max(c.rtoDelta(), c.jiffy()))
	return "loss probe timer fires: no probe, " + why
}

// lossProbe sends the probe and returns "", or why none went.
func (c *Conn) lossProbe() string {
	mss := c.MSS()
	if len(c.write) > 0 && c.sndWndTest(c.write[0], mss) {
		from := c.sndNxt
		c.writeXmit(nagleOff, pushOneProbe)
		if c.sndNxt != from {
			return ""
		}
		return "new data could not go"
	}
	last := c.rtx[len(c.rtx)-1]
	if c.stillInHost(last) {
		return "the last segment is still in the host"
	}
	if n := c.pcount(last); n > 1 && last.Skb.Len > (n-1)*mss {
		if !c.fragment(last, (n-1)*mss) {
			return "the last segment could not be split"
		}
		last = c.rtx[len(c.rtx)-1]
	}
	if !c.transmit(last, true) {
		return "the retransmission failed"
	}
	return ""
}

// stillInHost models skb_still_in_host_queue (skb_fclone_busy): the
// copy last transmitted is alive and still charged to the socket, in a
// qdisc or a driver's ring; a loopback or tun delivery orphaned it
// (loopback_xmit, tun_net_xmit), even while it waits in the peer's
// receive queue.
func (c *Conn) stillInHost(seg *Segment) bool {
	b := seg.clone
	if b == nil || b.Freed() || b.Ident() != seg.cloneID {
		return false
	}
	o, _ := b.Owner()
	return o == skb.Owner(c.Sk)
}

// sndWndTest is tcp_snd_wnd_test: the skb's first MSS fits the peer's
// window.
func (c *Conn) sndWndTest(seg *Segment, mss int) bool {
	end := seg.Seq + uint32(min(seg.Skb.Len, mss))
	return !after(end, c.sndUna+uint32(c.sndWnd))
}

// processTLPAck models tcp_process_tlp_ack: an ACK that reaches
// tlp_high_seq ends the probe episode. The kernel tells a probe that
// repaired a loss (then it reduces the window, TCP_CA_CWR) from one the
// peer reports a duplicate of (DSACK); the model has no SACK and counts
// every such ACK a duplicate's.
func (c *Conn) processTLPAck(ack uint32) {
	if c.tlp.out && !after(c.tlp.high, ack) {
		c.tlp.out = false
	}
}

// enterLoss models the loss state tcp_enter_loss starts: no loss probe
// until snd_una reaches what was sent when it began (high_seq).
func (c *Conn) enterLoss() { c.tlp.inLoss, c.tlp.lossEnd = true, c.sndNxt }

// lossRecovered ends the loss state once snd_una reaches high_seq
// (tcp_fastretrans_alert back to TCP_CA_Open).
func (c *Conn) lossRecovered() {
	if c.tlp.inLoss && !after(c.tlp.lossEnd, c.sndUna) {
		c.tlp.inLoss = false
	}
}
