package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/engine"
)

// The wheel's slack is its level's granularity (calc_wheel_index): a
// jiffy below LVL_START(1) = 63 jiffies ahead, 8 jiffies from there to
// 503, 64 to 4031, 512 beyond; at HZ 250 a jiffy is 4ms.
func TestWheelSlack(t *testing.T) {
	ms := engine.Millisecond
	for _, c := range []struct{ d, want engine.Duration }{
		{4 * ms, 4 * ms},             // one jiffy (a loss probe)
		{40 * ms, 4 * ms},            // TCP_DELACK_MIN, 10 jiffies
		{248 * ms, 4 * ms},           // 62 jiffies
		{249 * ms, 32 * ms},          // rounded up to 63 jiffies: level 1
		{208 * 8 * ms, 256 * ms / 8}, // 416 jiffies
		{2012 * ms, 32 * ms},         // 503 jiffies
		{2016 * ms, 256 * ms},        // 504 jiffies: level 2
		{16128 * ms, 2048 * ms},      // 4032 jiffies: level 3
		{120 * engine.Second, 2048 * ms},
		{7200 * engine.Second, 131072 * ms}, // 1.8M jiffies: level 5
	} {
		require.Equal(t, c.want, wheelSlack(c.d, 250), "%v ahead", c.d)
	}
	require.Equal(t, 10*ms, wheelSlack(40*ms, 100), "a jiffy is 10ms at HZ 100")
	// The last level is LVL_DEPTH-1: 8 at HZ 250, its granularity 8^8
	// jiffies; 7 at HZ 100, where the wheel has 8 levels.
	far := 1000 * 24 * 3600 * engine.Second
	require.Equal(t, 4*ms<<24, wheelSlack(far, 250))
	require.Equal(t, 10*ms<<21, wheelSlack(far, 100))
}
