package tcp

import "github.com/zcsim/zcsim/sim/engine"

// rttState is a connection's round-trip estimate, tcp_sock's fields
// in the kernel's units: srtt is srtt_us (µs scaled by 8), mdev, mdevMax
// and rttvar are mdev_us, mdev_max_us and rttvar_us (µs scaled by 4),
// seq is rtt_seq (snd_nxt when the current round of samples began). The
// zero value is a connection with no sample yet (srtt 0).
type rttState struct {
	srtt, mdev, mdevMax, rttvar int64
	seq                         uint32
}

// rttEstimator models tcp_rtt_estimator for a round-trip sample m (µs):
// the first sample sets srtt to it and mdev to twice it, rttvar to at
// least tcp_rto_min (TCP_RTO_MIN, 200ms); each later one moves srtt an
// eighth of the way and mdev a quarter (an error below the estimate
// counts an eighth as much), rttvar follows the round's largest mdev up
// at once and down by a quarter of the distance once a round ends
// (snd_una past rtt_seq), when mdev_max starts over from tcp_rto_min.
func (c *Conn) rttEstimator(m int64) {
	r := &c.rtt
	rtoMinUs := int64(rtoMin / engine.Microsecond)
	if r.srtt == 0 {
		r.srtt = m << 3
		r.mdev = m << 1 // rto = 3·rtt
		r.rttvar = max(r.mdev, rtoMinUs)
		r.mdevMax = r.rttvar
		r.seq = c.sndNxt
		r.srtt = max(r.srtt, 1)
		return
	}
	m -= r.srtt >> 3
	r.srtt += m
	if m < 0 {
		m = -m - r.mdev>>2
		if m > 0 {
			m >>= 3
		}
	} else {
		m -= r.mdev >> 2
	}
	r.mdev += m
	if r.mdev > r.mdevMax {
		r.mdevMax = r.mdev
		r.rttvar = max(r.rttvar, r.mdevMax)
	}
	if after(c.sndUna, r.seq) {
		if r.mdevMax < r.rttvar {
			r.rttvar -= (r.rttvar - r.mdevMax) >> 2
		}
		r.seq = c.sndNxt
		r.mdevMax = rtoMinUs
	}
	r.srtt = max(r.srtt, 1)
}

// setRTO models tcp_set_rto: icsk_rto is __tcp_set_rto, srtt + rttvar
// (srtt_us/8 + rttvar_us) rounded up to whole jiffies
// (usecs_to_jiffies), bounded by tcp_bound_rto to tcp_rto_max. Over
// loopback, where srtt is microseconds and rttvar tcp_rto_min, that is
// 51 jiffies at HZ 250: 204ms, as TCP_INFO's tcpi_rto reads on Linux
// 6.18 (probe/testdata/tcp-rto.zcs).
func (c *Conn) setRTO() {
	us := engine.Duration(c.rtt.srtt>>3+c.rtt.rttvar) * engine.Microsecond
	c.t.icskRto = min(c.toJiffies(us)*c.jiffy(), c.rtoMax())
}

// ackUpdateRTT models tcp_ack_update_rtt for an ACK that acknowledged
// new data: the sample is seqRtt, the time since the oldest newly
// acknowledged skb was sent, unless retransmitted data is among what it
// acknowledges (Karn's rule: tcp_clean_rtx_queue's
// FLAG_RETRANS_DATA_ACKED). Then, with timestamps, the sample is the
// echoed timestamp's age (tcp_rtt_tsopt_us: whole milliseconds of the
// TCP timestamp clock, at least 1), the echo being taken as the first
// acknowledged segment's last transmission (sentAt), which its
// retransmission filled the hole with; without them there is no sample.
// A round trip the model's time makes 0 (loopback) is taken as 1µs, as
// the kernel's is never shorter.
// A sample updates the estimate (tcp_rtt_estimator), sets icsk_rto
// (tcp_set_rto) and forgets the backoff (RFC 6298: only on a valid RTT
// measurement).
func (c *Conn) ackUpdateRTT(seqRtt engine.Duration, karn bool, sentAt engine.Time) {
	us := max(int64(seqRtt/engine.Microsecond), 1)
	if karn {
		if !c.neg.ts {
			return
		}
		now, sent := int64(c.Net.Now())/int64(engine.Millisecond), int64(sentAt)/int64(engine.Millisecond)
		us = max(now-sent, 1) * int64(engine.Millisecond/engine.Microsecond)
	}
	c.rttSample(us)
}

// rttSample takes a valid RTT sample of us microseconds (tcp_ack_update_rtt
// past its checks): tcp_rtt_estimator, tcp_set_rto, and icsk_backoff 0.
func (c *Conn) rttSample(us int64) {
	c.rttEstimator(us)
	c.setRTO()
	c.t.backoff = 0
}

// rto is icsk_rto: TCP_TIMEOUT_INIT until the first RTT sample
// (tcp_init_sock), then what tcp_set_rto made of the estimate, doubled
// by each retransmission timeout since (tcp_retransmit_timer).
func (c *Conn) rto() engine.Duration {
	if c.t.icskRto == 0 {
		return timeoutInit
	}
	return c.t.icskRto
}

// rtoBackoff is inet_csk_rto_backoff: icsk_rto shifted by icsk_backoff,
// at most max.
func (c *Conn) rtoBackoff(max engine.Duration) engine.Duration {
	if c.t.backoff >= 63 || c.rto() > max>>c.t.backoff {
		return max
	}
	return c.rto() << c.t.backoff
}
