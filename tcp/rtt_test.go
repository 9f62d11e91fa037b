package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// tcp_rtt_estimator and tcp_set_rto by the kernel's arithmetic: a first
// sample of 1µs gives rttvar tcp_rto_min and an RTO of 51 jiffies; a
// 40ms sample after it moves srtt an eighth of the way, 52 jiffies; a
// first sample of 300ms gives mdev 600ms, above tcp_rto_min, and the RTO
// 3·rtt; once a round's largest mdev (mdev_max, which starts each round
// at tcp_rto_min) is below rttvar, the round's end brings rttvar a
// quarter of the way down to it.
func TestRTTEstimator(t *testing.T) {
	for _, tc := range []struct {
		samples     []int64
		srtt, rttvr int64
		rto         engine.Duration
	}{
		{[]int64{1}, 8, 200000, 204 * engine.Millisecond},
		{[]int64{1, 40000}, 40007, 200000, 208 * engine.Millisecond},
		{[]int64{300000}, 2400000, 600000, 900 * engine.Millisecond},
		{[]int64{300000, 300000, 300000}, 2400000, 534375, 836 * engine.Millisecond},
	} {
		p := newPair(t, "linux-6.18", false)
		p.c.rtt = rttState{}
		for _, m := range tc.samples {
			p.c.sndNxt++ // each sample ends the round the one before began
			p.c.sndUna = p.c.sndNxt
			p.c.rttSample(m)
		}
		require.Equal(t, tc.srtt, p.c.rtt.srtt, "%v", tc.samples)
		require.Equal(t, tc.rttvr, p.c.rtt.rttvar, "%v", tc.samples)
		require.Equal(t, tc.rto, p.c.rto(), "%v", tc.samples)
	}
}

// icsk_rto is TCP_TIMEOUT_INIT before the handshake's sample; a sample
// forgets the backoff; the RTO is bounded by TCP_RTO_MAX_MS (tcp_bound_rto)
// and doubles at each timeout up to it.
func TestRTOBounds(t *testing.T) {
	p := newEnds(t, "linux-6.18", false, true)
	require.Equal(t, timeoutInit, p.c.rto())
	require.Equal(t, uint64(1000000), p.c.Info(kernel.TCPInfoSize)["tcpi_rto"])

	p = newPair(t, "linux-6.18", false)
	require.Equal(t, uint64(204000), p.c.Info(kernel.TCPInfoSize)["tcpi_rto"])
	require.Zero(t, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1000))
	p.c.t.backoff = 3
	p.c.rttSample(900000)
	require.Zero(t, p.c.t.backoff)
	require.Equal(t, engine.Second, p.c.rto(), "tcp_bound_rto")

	p = newPair(t, "linux-6.18", false)
	p.c.Sk.Net.TCPEarlyRetrans = 0
	require.Zero(t, p.c.Setsockopt(kernel.TCP_RTO_MAX_MS, 1000))
	p.send(0, 1000)
	p.w.lose()
	require.Equal(t, []string{
		"204ms rto: retransmission timeout 1, retransmit from snd_una",
		"612ms rto: retransmission timeout 2, retransmit from snd_una",
		"1.428s rto: retransmission timeout 3, retransmit from snd_una",
		"2.428s rto: retransmission timeout 4, retransmit from snd_una",
	}, p.runFor(2500*engine.Millisecond))
}
