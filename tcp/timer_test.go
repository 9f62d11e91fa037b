package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// Unacknowledged data arms the retransmission timer; each timeout
// retransmits from snd_una and doubles the next (icsk_rto, 204ms after a
// loopback handshake, up to TCP_RTO_MAX); once tcp_model_timeout of
// tcp_retries2 (924.6s) has passed since the first retransmission the
// connection is given up with ETIMEDOUT, and its timers stop.
// (The tail loss probe, which would stand for the first timeout, is off:
// net.ipv4.tcp_early_retrans 0.)
func TestRetransmitTimer(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.c.Sk.Net.TCPEarlyRetrans = 0
	p.send(0, 1000)
	require.True(t, p.c.Net.Pending(p.c.t.rto))
	_, err := p.w.clock.RunUntilIdle(100)
	require.NoError(t, err)
	require.Len(t, p.w.fired, 15+1)
	require.Equal(t, "204ms rto: retransmission timeout 1, retransmit from snd_una", p.w.fired[0])
	require.Equal(t, "612ms rto: retransmission timeout 2, retransmit from snd_una", p.w.fired[1])
	require.Equal(t, "928.692s rto: retransmissions for tcp_model_timeout of 15 retries (924.6s) unanswered, connection aborted (ETIMEDOUT)", p.w.fired[15])
	require.Len(t, p.w.inFlight, 1+15, "the first transmission and every retransmission")
	require.True(t, p.c.Done())
	require.Equal(t, kernel.ETIMEDOUT, p.c.takeError())
	require.False(t, p.c.Net.Pending(p.c.t.rto))
}

// An ACK that frees the whole retransmit queue stops the timer; one that
// frees part of it restarts the timer (tcp_rearm_rto). What it frees was
// retransmitted, so its send time is no RTT sample (Karn's rule); with
// timestamps the echo is (tcp_rtt_tsopt_us: sent at 612ms, acknowledged
// at 700ms), which forgets the backoff and sets icsk_rto from the new
// estimate (tcp_ack_update_rtt): srtt 11ms, rttvar 200ms, 212ms. Without
// them the backoff stays and the RTO stays doubled twice.
func TestAckRearmsTheTimer(t *testing.T) {
	for _, ts := range []bool{true, false} {
		p := newPair(t, "linux-6.18", false, func(_ *kernel.Profile, r *sock.Route) { r.GSO = 0 })
		p.c.neg.ts = ts
		p.send(0, 3000)
		require.Greater(t, len(p.c.rtx), 1, "one segment per MSS")
		_, err := p.w.clock.RunUntil(engine.Time(700*engine.Millisecond), 10)
		require.NoError(t, err)
		require.Equal(t, 2, p.c.t.backoff)
		p.c.Ack(p.c.rtx[0].end(), 65536)
		ev, ok := p.w.clock.Peek()
		require.True(t, ok)
		if ts {
			require.Zero(t, p.c.t.backoff)
			require.Equal(t, p.w.clock.Now().Add(212*engine.Millisecond), ev.At)
			continue
		}
		require.Equal(t, 2, p.c.t.backoff)
		require.Equal(t, p.w.clock.Now().Add(816*engine.Millisecond), ev.At)
	}
	p := newPair(t, "linux-6.18", false, func(_ *kernel.Profile, r *sock.Route) { r.GSO = 0 })
	p.send(0, 3000)

	for i := 0; len(p.c.rtx) > 0 && i < 4; i++ {
		p.c.Ack(p.c.sndNxt, 65536) // what Nagle held goes out as the rest is acknowledged
	}
	require.Empty(t, p.c.rtx)
	require.False(t, p.c.Net.Pending(p.c.t.rto))
}

// With delayed ACKs a lone segment is acknowledged by the delayed-ACK
// timer after TCP_DELACK_MIN; a second full-sized segment, a FIN, or
// another policy acknowledges at once; sending an ACK stops the timer.
func TestDelayedAck(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	peer := p.back // the peer's ACKs go out on its own wire
	p.peer.SetAckPolicy(AckDelayed)
	require.Equal(t, AckDelayed, p.peer.AckPolicy())
	p.peer.Received(100, false)
	require.Empty(t, peer.acks)
	_, err := p.w.clock.RunUntilIdle(10)
	require.NoError(t, err)
	require.Equal(t, []string{"40ms delack: delayed-ACK timer fires"}, peer.fired)
	require.Len(t, peer.acks, 1)

	p.peer.Received(p.peer.MSS(), false)
	p.peer.Received(p.peer.MSS(), false)
	require.Len(t, peer.acks, 2, "the second full-sized segment is acknowledged at once")
	require.False(t, p.peer.Net.Pending(p.peer.t.delack))
	p.peer.Received(0, true)
	require.Len(t, peer.acks, 3, "a FIN is acknowledged at once")

	p.peer.SetAckPolicy(AckQuick)
	p.peer.Received(1, false)
	require.Len(t, peer.acks, 4)
}
