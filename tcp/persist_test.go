package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// zeroWindow leaves p's sender with 1000 bytes to send, nothing in
// flight and a peer window of 0: the probe timer armed for
// tcp_probe0_base (tcp_check_probe_timer).
func zeroWindow(t *testing.T, p *pair) {
	t.Helper()
	p.c.Sk.Net.TCPEarlyRetrans = 0
	p.send(0, 1000)
	p.w.inFlight = nil
	p.c.Ack(p.c.sndNxt, 0)
	p.send(0, 1000)
	require.Empty(t, p.w.inFlight)
	require.Len(t, p.c.write, 1)
	require.True(t, p.c.Net.Pending(p.c.t.probe))
	ev, ok := p.w.clock.Peek()
	require.True(t, ok)
	require.Equal(t, p.w.clock.Now().Add(204*engine.Millisecond), ev.At, "tcp_probe0_base: icsk_rto")
}

// Probes no ACK answers: a segment of no data one byte before snd_una,
// the wait doubling from the RTO (204ms) to TCP_RTO_MAX (tcp_probe0_when),
// until icsk_probes_out reaches tcp_retries2 and the connection is given
// up with ETIMEDOUT (tcp_probe_timer, tcp_write_err).
func TestZeroWindowProbesUnanswered(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	zeroWindow(t, p)
	fired := p.runFor(2000 * engine.Second)
	require.Len(t, fired, 15+1)
	require.Equal(t, "204ms probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)", fired[0])
	require.Equal(t, "612ms probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)", fired[1])
	require.Equal(t, "208.692s probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)", fired[9])
	require.Equal(t, "328.692s probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)", fired[10], "TCP_RTO_MAX caps the wait")
	require.Equal(t, "928.692s probe: probe timer fires: probes exhausted, connection aborted (ETIMEDOUT)", fired[15])
	require.Len(t, p.w.inFlight, 15)
	for _, pk := range p.w.inFlight {
		require.Equal(t, p.c.sndUna-1, pk.Seq)
		require.Equal(t, pk.Seq, pk.EndSeq)
		require.Zero(t, pk.Skb.Len)
	}
	require.True(t, p.c.Done())
	require.Equal(t, kernel.ETIMEDOUT, p.c.takeError())
}

// An answer of the same window resets icsk_probes_out and sets the timer
// for tcp_probe0_when from now, the backoff kept (tcp_ack_probe): the
// connection persists. A window that takes a part of the head lets
// tcp_write_wakeup send that part, which forgets the probe state; one
// that takes all of it stops the timer and the data goes as usual.
func TestZeroWindowProbesAnswered(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	zeroWindow(t, p)
	for i := 1; i <= 3; i++ {
		require.Len(t, p.runFor(p.c.probe0Base()<<(i-1)), 1)
		require.Equal(t, 1, p.c.t.probes)
		p.c.Ack(p.c.sndUna, 0)
		require.Zero(t, p.c.t.probes)
		require.Equal(t, i, p.c.t.backoff)
		require.True(t, p.c.Persisting())
		ev, _ := p.w.clock.Peek()
		require.Equal(t, p.w.clock.Now().Add(p.c.probe0Base()<<i), ev.At)
	}
	p.w.inFlight = nil

	p.c.Ack(p.c.sndUna, 500)
	require.Empty(t, p.w.inFlight, "half a segment waits for the probe timer")
	require.False(t, p.c.Persisting())
	require.Equal(t, 3, p.c.t.backoff)
	require.Equal(t, []string{"3.06s probe: probe timer fires: tcp_write_wakeup sends what the window takes"}, p.runFor(p.c.probe0Base()<<3))
	require.Len(t, p.w.inFlight, 1)
	require.Equal(t, 500, p.w.inFlight[0].Skb.Len)
	require.Zero(t, p.c.t.backoff)

	p.c.Ack(p.c.sndNxt, 0)
	require.True(t, p.c.Net.Pending(p.c.t.probe))
	p.c.Ack(p.c.sndUna, 65536)
	require.False(t, p.c.Net.Pending(p.c.t.probe))
	require.Len(t, p.w.inFlight, 2, "the rest goes at once")
}

// An orphan's probes stop at tcp_orphan_retries: 8 unanswered while its
// backed-off RTO is below tcp_rto_max, at once once it reaches it —
// with TCP_RTO_MAX_MS 1000 after three probes, answered or not.
func TestZeroWindowOrphan(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	zeroWindow(t, p)
	p.c.Close()
	require.False(t, p.c.Persisting(), "an orphan's probes end")
	fired := p.runFor(1000 * engine.Second)
	require.Len(t, fired, 9)
	require.Equal(t, "104.244s probe: probe timer fires: probes exhausted, connection aborted (ETIMEDOUT)", fired[8])
	require.True(t, p.c.Done())

	p = newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1000))
	zeroWindow(t, p)
	p.c.Close()
	for range 3 {
		p.runFor(p.c.probe0When())
		p.c.Ack(p.c.sndUna, 0)
	}
	require.Equal(t, []string{"2.428s probe: probe timer fires: the orphan's RTO reached tcp_rto_max, connection aborted (ETIMEDOUT)"}, p.runFor(engine.Second))
}

// TCP_RTO_MAX_MS takes 1000 to 120000 ms and caps the probes' wait and
// the RTO (v6.15); the older profiles refuse it.
func TestRtoMaxOption(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	v, err := p.c.Getsockopt(kernel.TCP_RTO_MAX_MS)
	require.Zero(t, err)
	require.Equal(t, 120000, v)
	require.Equal(t, kernel.EINVAL, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 999))
	require.Equal(t, kernel.EINVAL, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 120001))
	require.Zero(t, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1500))
	v, _ = p.c.Getsockopt(kernel.TCP_RTO_MAX_MS)
	require.Equal(t, 1500, v)
	p.c.t.backoff = 4
	require.Equal(t, 1500*engine.Millisecond, p.c.rtoBackoff(p.c.rtoMax()))
	require.Equal(t, 1500*engine.Millisecond, p.c.probe0When())

	old := newPair(t, "linux-5.0", false)
	require.Equal(t, kernel.ENOPROTOOPT, old.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1000))
	_, err = old.c.Getsockopt(kernel.TCP_RTO_MAX_MS)
	require.Equal(t, kernel.ENOPROTOOPT, err)
}

// The peer answers a probe before its window at most once per
// tcp_invalid_ratelimit (tcp_oow_rate_limited); a retransmission of data
// is answered every time.
func TestOutOfWindowAckRateLimit(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.send(0, 1000)
	p.w.deliver()
	acks := len(p.back.acks)
	nxt := p.peer.RcvNxt()
	p.peer.SendAck() // rcv_wup = rcv_nxt
	acks++
	p.peer.Rejected(nxt-1, nxt-1)
	require.Len(t, p.back.acks, acks+1)
	p.peer.Rejected(nxt-1, nxt-1)
	require.Len(t, p.back.acks, acks+1, "within 500ms: no answer")
	p.runFor(p.c.invalidRatelimit())
	p.peer.Rejected(nxt-1, nxt-1)
	require.Len(t, p.back.acks, acks+2)
}
