package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// lostSend leaves p's sender with 1000 bytes that no ACK will answer, the
// tail loss probe off, after set changed the connection.
func lostSend(t *testing.T, set func(p *pair)) *pair {
	t.Helper()
	p := newPair(t, "linux-6.18", false)
	p.c.Sk.Net.TCPEarlyRetrans = 0
	set(p)
	p.send(0, 1000)
	p.w.lose()
	return p
}

// The RTO gives up after a time since its first retransmission
// (retransmits_timed_out): tcp_model_timeout of tcp_retries2 (3: 3s from
// TCP_RTO_MIN), also when TCP_RTO_MAX_MS keeps the timeouts at 1s, so
// that more retransmissions fit; or TCP_USER_TIMEOUT, to which the
// timer is clamped (tcp_clamp_rto_to_user_timeout).
func TestWriteTimeout(t *testing.T) {
	p := lostSend(t, func(p *pair) { p.c.Sk.Net.TCPRetries2 = 3 })
	fired := p.runFor(10 * engine.Second)
	require.Len(t, fired, 5)
	require.Equal(t, "6.324s rto: retransmissions for tcp_model_timeout of 3 retries (3s) unanswered, connection aborted (ETIMEDOUT)", fired[4])
	require.Equal(t, kernel.ETIMEDOUT, p.c.takeError())

	p = lostSend(t, func(p *pair) {
		p.c.Sk.Net.TCPRetries2 = 3
		require.Zero(t, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1000))
	})
	fired = p.runFor(10 * engine.Second)
	require.Len(t, fired, 5)
	require.Equal(t, "3.428s rto: retransmissions for tcp_model_timeout of 3 retries (3s) unanswered, connection aborted (ETIMEDOUT)", fired[4])

	p = lostSend(t, func(p *pair) { require.Zero(t, p.c.Setsockopt(kernel.TCP_USER_TIMEOUT, 1000)) })
	v, err := p.c.Getsockopt(kernel.TCP_USER_TIMEOUT)
	require.Zero(t, err)
	require.Equal(t, 1000, v)
	require.Equal(t, []string{
		"204ms rto: retransmission timeout 1, retransmit from snd_una",
		"612ms rto: retransmission timeout 2, retransmit from snd_una",
		"1.204s rto: retransmissions unanswered for TCP_USER_TIMEOUT (1s), connection aborted (ETIMEDOUT)",
	}, p.runFor(10*engine.Second))
	require.Equal(t, kernel.EINVAL, p.c.Setsockopt(kernel.TCP_USER_TIMEOUT, -1))
}

// TCP_USER_TIMEOUT ends zero-window probes no ACK answers once it has
// passed since the probe timer first found something to probe
// (icsk_probes_tstamp), the timer clamped to it
// (tcp_clamp_probe0_to_user_timeout); tcp_orphan_retries bounds an
// orphan's probes.
func TestProbeTimeouts(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Setsockopt(kernel.TCP_USER_TIMEOUT, 500))
	zeroWindow(t, p)
	require.Equal(t, []string{
		"204ms probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)",
		"612ms probe: probe timer fires: zero-window probe (tcp_xmit_probe_skb)",
		"704ms probe: probe timer fires: TCP_USER_TIMEOUT passed, connection aborted (ETIMEDOUT)",
	}, p.runFor(10*engine.Second))

	p = newPair(t, "linux-6.18", false)
	p.c.Sk.Net.TCPOrphanRetries = 2
	zeroWindow(t, p)
	p.c.Close()
	fired := p.runFor(10 * engine.Second)
	require.Len(t, fired, 3)
	require.Equal(t, "1.428s probe: probe timer fires: probes exhausted, connection aborted (ETIMEDOUT)", fired[2])
}

// tcp_model_timeout: doubling from the base up to TCP_RTO_MAX, then
// linear; tcp_invalid_ratelimit is kept in whole jiffies.
func TestModelTimeout(t *testing.T) {
	require.Equal(t, 924600*engine.Millisecond, modelTimeout(15, rtoMin))
	require.Equal(t, 3*engine.Second, modelTimeout(3, rtoMin))
	require.Equal(t, 127*engine.Second, modelTimeout(6, timeoutInit))
	require.Equal(t, 247*engine.Second, modelTimeout(7, timeoutInit))
	p := newPair(t, "linux-6.18", false)
	require.Equal(t, 500*engine.Millisecond, p.c.invalidRatelimit())
	p.c.Sk.Net.TCPInvalidRatelimitMs = 1
	require.Equal(t, 4*engine.Millisecond, p.c.invalidRatelimit())
}
