package tcp

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// When a connection whose data or window probes go unanswered is given
// up (tcp_write_timeout, tcp_probe_timer): after a time, not a count, of
// retransmissions, which net.ipv4.tcp_retries2 and tcp_orphan_retries
// turn into a time (tcp_model_timeout) and TCP_USER_TIMEOUT sets
// directly.

// modelTimeout models tcp_model_timeout: the time boundary
// retransmissions take from rtoBase doubling, linear at TCP_RTO_MAX past
// ilog2(TCP_RTO_MAX / rtoBase).
func modelTimeout(boundary int, rtoBase engine.Duration) engine.Duration {
	thresh := 0
	for rtoBase<<(thresh+1) <= rtoMax {
		thresh++
	}
	if boundary <= thresh {
		return engine.Duration((2<<boundary)-1) * rtoBase
	}
	return engine.Duration((2<<thresh)-1)*rtoBase + engine.Duration(boundary-thresh)*rtoMax
}

// msSince is how far the TCP timestamp clock (tcp_time_stamp, whole
// milliseconds) has moved since t.
func (c *Conn) msSince(t engine.Time) engine.Duration {
	ms := int64(engine.Millisecond)
	return engine.Duration(int64(c.Net.Now())/ms-int64(t)/ms) * engine.Millisecond
}

// writeTimeout models tcp_write_timeout for a connection past its
// handshake: it returns why the connection is to be given up, or "".
// The limit is net.ipv4.tcp_retries2 retransmissions, an orphan's
// tcp_orphan_retries (alive while icsk_rto is below tcp_rto_max), as
// the time tcp_model_timeout makes of them from TCP_RTO_MIN, or the
// socket's TCP_USER_TIMEOUT, since the first retransmission still
// outstanding (retransmits_timed_out: never before the RTO retransmitted
// anything). The model has no soft errors, no black-hole detection
// (tcp_retries1) and no tcp_out_of_resources.
func (c *Conn) writeTimeout() string {
	retryUntil := c.Sk.Net.TCPRetries2
	if c.Sk.Dead() {
		retryUntil = c.orphanRetries(c.rto() < c.rtoMax())
	}
	if c.t.retransmits == 0 || !c.t.retransSet {
		return ""
	}
	limit := modelTimeout(retryUntil, rtoMin)
	why := fmt.Sprintf("retransmissions for tcp_model_timeout of %d retries (%v) unanswered", retryUntil, limit)
	if c.t.userTimeout != 0 {
		limit = engine.Duration(c.t.userTimeout) * engine.Millisecond
		why = fmt.Sprintf("retransmissions unanswered for TCP_USER_TIMEOUT (%v)", limit)
	}
	if c.msSince(c.t.retransStamp) < limit {
		return ""
	}
	return why
}

// orphanRetries models tcp_orphan_retries: net.ipv4.tcp_orphan_retries,
// and 8 for its default 0 while the orphan is alive (the model has no
// soft error, which would make it 0 once not alive).
func (c *Conn) orphanRetries(alive bool) int {
	n := c.Sk.Net.TCPOrphanRetries
	if n == 0 && alive {
		return 8
	}
	return n
}

// clampRTO models tcp_clamp_rto_to_user_timeout: icsk_rto, or with
// TCP_USER_TIMEOUT what is left of it since the first retransmission
// (msecs_to_jiffies), a jiffy once none is.
func (c *Conn) clampRTO() engine.Duration {
	if c.t.userTimeout == 0 {
		return c.rto()
	}
	left := engine.Duration(c.t.userTimeout)*engine.Millisecond - c.msSince(c.t.retransStamp)
	if left <= 0 {
		return c.jiffy()
	}
	return min(c.rto(), c.toJiffies(left)*c.jiffy())
}

// clampProbe0 models tcp_clamp_probe0_to_user_timeout: with
// TCP_USER_TIMEOUT and icsk_probes_tstamp set, the probe timer's when is
// at most what is left of the user timeout since then, and at least
// TCP_TIMEOUT_MIN (2 jiffies).
func (c *Conn) clampProbe0(when engine.Duration) engine.Duration {
	if c.t.userTimeout == 0 || !c.t.probesSet {
		return when
	}
	left := max(c.userTimeoutJiffies()-c.Net.Now().Sub(c.t.probesStamp), timeoutMin*c.jiffy())
	return min(left, when)
}

// userTimeoutJiffies is msecs_to_jiffies(icsk_user_timeout).
func (c *Conn) userTimeoutJiffies() engine.Duration {
	return c.toJiffies(engine.Duration(c.t.userTimeout)*engine.Millisecond) * c.jiffy()
}

// setUserTimeout models TCP_USER_TIMEOUT in do_tcp_setsockopt: the
// milliseconds unacknowledged data and unanswered window probes may
// last (0, the default, is the sysctls' limits), EINVAL below 0.
func (c *Conn) setUserTimeout(ms int) kernel.Errno {
	if ms < 0 {
		return kernel.EINVAL
	}
	c.t.userTimeout = ms
	return 0
}

// retransmitted models what tcp_retransmit_skb keeps of a retransmission
// the RTO sent: retrans_stamp, set by the first one since the last loss
// episode ended (the tail loss probe's __tcp_retransmit_skb does not).
func (c *Conn) retransmitted() {
	if !c.t.retransSet {
		c.t.retransStamp, c.t.retransSet = c.Net.Now(), true
	}
}

// ackedRetransmits models what an ACK does to the give-up clocks:
// snd_una moving forgets icsk_retransmits (tcp_ack), and the end of the
// loss state forgets retrans_stamp (tcp_fastretrans_alert in
// TCP_CA_Open).
func (c *Conn) ackedRetransmits(advanced bool) {
	if advanced {
		c.t.retransmits = 0
	}
	if !c.tlp.inLoss {
		c.t.retransSet = false
	}
}
