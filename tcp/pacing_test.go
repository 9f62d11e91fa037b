package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// With SO_MAX_PACING_RATE set, the first ten data segments leave at once;
// the tenth pushes tcp_wstamp_ns on by its length at the rate (1000
// bytes at 1000 bytes a second: a second), so the eleventh waits for the
// pacing timer. Without a limit all fourteen leave.
func TestPacingAfterTenSegments(t *testing.T) {
	for _, limit := range []bool{true, false} {
		p := newPair(t, "linux-6.18", true)
		if limit {
			require.Equal(t, kernel.Errno(0), p.c.Sk.Setsockopt(kernel.SO_MAX_PACING_RATE, 1000))
		}
		p.c.nonagle = nagleOff
		for range 14 {
			require.Equal(t, 1000, p.send(0, 1000).N)
			p.w.deliver()
			p.back.deliver()
		}
		if !limit {
			require.Equal(t, uint32(14000), p.c.SndNxt())
			continue
		}
		require.Equal(t, uint32(10000), p.c.SndNxt(), "ten segments unpaced")
		p.w.clock.RunUntil(p.w.clock.Now().Add(999*engine.Millisecond), 100)
		require.Equal(t, uint32(10000), p.c.SndNxt(), "the eleventh waits a second")
		p.w.clock.RunUntil(p.w.clock.Now().Add(2*engine.Millisecond), 100)
		require.Greater(t, p.c.SndNxt(), uint32(10000), "the pacing timer sent it")
	}
}

// tcp_sendmsg_locked flushes the socket's backlog every 16 skbs it
// allocates (process_backlog).
func TestSendFlushesBacklogEvery16Skbs(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Sndbuf = 1 << 30
	mss := p.c.sizeGoal(0)
	p.send(zc, 33*mss)
	require.Equal(t, 2, p.w.flushes, "at the 17th and the 33rd skb")
}
