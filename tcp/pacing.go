package tcp

import (
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// pacing is a connection's internal pacing state (tcp_sock's
// tcp_wstamp_ns, data_segs_out and pacing_timer).
type pacing struct {
	// wstamp is tcp_wstamp_ns: the earliest time the next data segment
	// may leave.
	wstamp engine.Time
	// dataSegsOut counts the data segments transmitted, retransmissions
	// included (data_segs_out, tcp_skb_pcount each).
	dataSegsOut int
	// timer is the pacing hrtimer; onFire its function, bound once.
	timer  engine.Handle
	onFire func() string
}

// unpacedSegs is how many data segments leave before pacing starts
// ("original sch_fq does not pace first 10 MSS").
const unpacedSegs = 10

// pacingCheck models tcp_pacing_check at the head of tcp_write_xmit's
// loop: with internal pacing (SO_MAX_PACING_RATE set, no fq qdisc) and
// tcp_wstamp_ns still ahead of the clock, the pacing timer is armed for
// that time, unless it already runs, and nothing is sent now.
func (c *Conn) pacingCheck() bool {
	if !c.Sk.PacingNeeded || c.pace.wstamp <= c.Net.Now() {
		return false
	}
	if !c.Net.Pending(c.pace.timer) {
		if c.pace.onFire == nil {
			c.pace.onFire = c.paceKick
		}
		c.pace.timer = c.Net.After(c.Sk, c.pace.wstamp.Sub(c.Net.Now()), "pacing", c.pace.onFire)
	}
	return true
}

// paceKick models the pacing timer's tcp_pace_kick → tcp_tsq_handler →
// tcp_tsq_write: tcp_write_xmit goes on with what waits.
func (c *Conn) paceKick() string {
	if c.done {
		return "pacing timer fires: the connection is gone"
	}
	c.pushPending(c.nonagle)
	return "pacing timer fires: tcp_write_xmit sends what the pacing rate allows"
}

// paced models the pacing arithmetic of __tcp_transmit_skb and
// tcp_update_skb_after_send for a data skb of n bytes, pcount segments:
// tcp_wstamp_ns catches up with the clock (what it gained is idle
// credit), data_segs_out grows, and once ten segments have left each skb
// pushes tcp_wstamp_ns on by its length at sk_pacing_rate, less half of
// it at most as the idle credit ("OS jitter").
//
// The model's sk_pacing_rate is sk_max_pacing_rate: tcp_update_pacing_rate
// sets min(mss · max(cwnd, packets_out) · 1.2 or 2 / srtt, the limit),
// and on the model's paths (loopback, microseconds of link delay) the
// first term is far above any limit a program sets.
func (c *Conn) paced(n, pcount int) {
	prior := c.pace.wstamp
	c.pace.wstamp = max(c.pace.wstamp, c.Net.Now())
	c.pace.dataSegsOut += pcount
	rate := c.Sk.MaxPacingRate
	if !c.Sk.PacingNeeded || rate == sock.NoPacingLimit || rate == 0 || c.pace.dataSegsOut < unpacedSegs {
		return
	}
	lenNs := engine.Duration(uint64(n) * uint64(engine.Second) / rate)
	credit := c.pace.wstamp.Sub(prior)
	lenNs -= min(lenNs/2, credit)
	c.pace.wstamp = c.pace.wstamp.Add(lenNs)
}
