package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// tcp_rcvbuf_grow to the byte, per profile's form. The linux-6.18 figure
// was measured over loopback (TCP_INFO, SO_RCVBUF): a reader that copied
// 113152 bytes in an RTT after a first measurement of 65483, at scaling
// ratio 251, got a buffer of 566855.
func TestRcvbufGrowForms(t *testing.T) {
	tests := []struct {
		profile    string
		ratio      int
		wantRcvbuf int
		wantClamp  int
	}{
		// rcvwin = 226304 + 2·(226304·47669/65483 = 164737)
		{"linux-6.18", 251, 566855, 566855 * 251 >> 8},
		// advmss 65495 (the IPv4 MTU counted at most 65535): rcvwin =
		// 226304 + 16·65495 + 2·(1274224·47669/65483) = 3129380, 47
		// segments of rcvmem 131031 (65495 + 320 + 576, raised 128 at a
		// time until its half holds 65495)
		{"linux-5.0", 0, 47 * 131031, 47*131031 - 47*131031>>1},
		// 113152 ≥ 1.5·65483: rcvwin doubles to 2·(226304 + 16·65495)
		{"linux-4.14", 0, 2548448 / 65495 * 131031, 2548448},
	}
	for _, tt := range tests {
		p := newPair(t, tt.profile, true)
		c := p.peer
		c.scalingRatio = tt.ratio
		c.rs.space = 65483
		c.rcvbufGrow(p.h.Profile.TCPRcvbufGrow, 113152)
		require.Equal(t, tt.wantRcvbuf, c.Sk.Rcvbuf, tt.profile)
		require.Equal(t, tt.wantClamp, c.rw.clamp, tt.profile)
		require.Equal(t, 113152, c.rs.space, tt.profile)
	}
}

// Growth stops at tcp_rmem[2], never shrinks the buffer, and leaves a
// locked one and one under tcp_moderate_rcvbuf 0 alone; the measurement
// is taken all the same.
func TestRcvbufGrowBounds(t *testing.T) {
	for name, tune := range map[string]func(*Conn){
		"locked":    func(c *Conn) { c.Sk.RcvbufLocked = true },
		"moderate0": func(c *Conn) { c.Sk.Net.TCPModerateRcvbuf = 0 },
		"shrink":    func(c *Conn) { c.Sk.Rcvbuf = 2 << 20 },
	} {
		p := newPair(t, "linux-6.18", true)
		c := p.peer
		c.rs.space = 65483
		tune(c)
		before, clamp := c.Sk.Rcvbuf, c.rw.clamp
		c.rcvbufGrow(p.h.Profile.TCPRcvbufGrow, 113152)
		require.Equal(t, before, c.Sk.Rcvbuf, name)
		require.Equal(t, clamp, c.rw.clamp, name)
		require.Equal(t, 113152, c.rs.space, name)
	}
	p := newPair(t, "linux-6.18", true)
	p.peer.rs.space = 65483
	p.peer.Sk.Net.TCPRmem[2] = 200000
	p.peer.rcvbufGrow(p.h.Profile.TCPRcvbufGrow, 113152)
	require.Equal(t, 200000, p.peer.Sk.Rcvbuf, "capped at tcp_rmem[2]")
}

// A reader grows the buffer only once an RTT was sampled (a window's
// worth arrived) and only that long after the last measurement, in the
// simulation's time; bytes still queued do not count.
func TestRcvSpaceAdjustGate(t *testing.T) {
	burst := func(p *pair) {
		p.send(kernel.MSG_DONTWAIT, 60000)
		p.deliverKernel()
	}
	p := newPair(t, "linux-6.18", true)
	c := p.peer
	burst(p)
	require.Zero(t, c.rs.rtt, "less than a window arrived: no sample")
	n, _ := c.Recv(1 << 30)
	require.Equal(t, 60000, n)
	require.Zero(t, c.rs.seq, "no RTT: not even a measurement")
	burst(p)
	require.Equal(t, int64(1)<<3, c.rs.rtt, "a window at one instant: the 1us floor")
	c.consume(1<<30, false)
	c.rcvSpaceAdjust()
	require.Equal(t, 131072, c.Sk.Rcvbuf, "no time has passed since tcp_init_buffer_space")
	require.Zero(t, c.rs.seq)
	require.True(t, c.rs.flagged, "undetermined: the kernel's clock moves, and it may grow here")

	// Two bursts, the first read at once, then a millisecond: the RTT
	// sample (1us) has passed, and the reader takes part of the rest.
	sampledThenRead := func(n int) *Conn {
		p := newPair(t, "linux-6.18", true)
		burst(p)
		p.peer.Recv(1 << 30)
		burst(p)
		p.w.clock.RunUntil(p.w.clock.Now().Add(engine.Millisecond), 100)
		require.Equal(t, 47616, p.peer.Queued(), "the second burst to the window's edge")
		p.peer.consume(n, false)
		p.peer.rcvSpaceAdjust()
		require.Equal(t, p.peer.copiedSeq, p.peer.rs.seq, "a measurement")
		return p.peer
	}
	// A read with the gate closed where the kernel's may be open, then a
	// growth across it: undetermined too.
	p = newPair(t, "linux-6.18", true)
	burst(p)
	p.peer.Recv(1 << 30)
	burst(p)
	p.peer.consume(10000, true)
	require.True(t, p.peer.rs.restartable)
	p.w.clock.RunUntil(p.w.clock.Now().Add(engine.Millisecond), 100)
	p.peer.consume(1<<30, false)
	p.peer.rcvSpaceAdjust()
	require.Greater(t, p.peer.Sk.Rcvbuf, 131072)
	require.False(t, p.peer.rs.restartable, "a new measurement")

	c = sampledThenRead(10000)
	require.Equal(t, 131072, c.Sk.Rcvbuf, "70000 copied less 37616 queued is not above 65483")
	c = sampledThenRead(30000)
	require.Greater(t, c.Sk.Rcvbuf, 131072, "90000 copied less 17616 queued is above 65483")
	require.Equal(t, c.fullSpace(), c.rw.clamp, "window_clamp follows the buffer")
}

// SO_RCVLOWAT grows an unlocked buffer to the space of its window at the
// connection's scaling ratio, and the clamp to the mark.
func TestSetRcvlowatGrows(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	c := p.peer
	c.scalingRatio = 249
	require.Zero(t, c.Setsockopt(kernel.SO_RCVLOWAT, 200000))
	require.Equal(t, 205622, c.Sk.Rcvbuf, "measured on Linux 6.18")
	require.Equal(t, 200000, c.rw.clamp)
	require.Equal(t, 200000, c.Sk.Rcvlowat)

	p = newPair(t, "linux-6.18", true)
	require.Zero(t, p.peer.Setsockopt(kernel.SO_RCVBUF, 1000))
	require.Zero(t, p.peer.Setsockopt(kernel.SO_RCVLOWAT, 5000))
	require.Equal(t, sock.MinRcvbuf, p.peer.Sk.Rcvbuf, "locked: no growth")
	require.Equal(t, 1152, p.peer.Sk.Rcvlowat, "capped at half the locked buffer")
}
