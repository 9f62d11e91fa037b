package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// lose frees every packet in flight, as a network that drops them.
func (w *wire) lose() {
	for _, p := range w.inFlight {
		p.Skb.Free()
	}
	w.inFlight = w.inFlight[:0]
}

// runFor runs the pair's clock for d and returns what the timers did.
func (p *pair) runFor(d engine.Duration) []string {
	p.t.Helper()
	from := len(p.w.fired)
	_, err := p.w.clock.RunUntil(p.w.clock.Now().Add(d), 100)
	require.NoError(p.t, err)
	return p.w.fired[from:]
}

// With one segment out the probe timeout allows for the peer's delayed
// ACK (2·srtt + TCP_RTO_MIN), so the RTO bound decides: the probe goes
// when the RTO would, retransmits the segment, and the RTO restarts from
// then. The RTO is 204ms (51 jiffies: tcp_set_rto of an srtt of
// microseconds and rttvar tcp_rto_min). Measured on Linux 6.18 with
// packetdrill: a lone unacknowledged segment is sent again 208ms after
// it, and again 208ms later (the timer wheel adds a jiffy).
func TestLossProbeOnePacket(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.send(0, 1000)
	require.Len(t, p.w.inFlight, 1)
	p.w.lose()
	require.Equal(t, []string{"204ms loss_probe: loss probe timer fires: tcp_send_loss_probe sent a probe"}, p.runFor(407*engine.Millisecond))
	require.Len(t, p.w.inFlight, 1)
	require.Equal(t, uint32(0), p.w.inFlight[0].Seq)
	require.True(t, p.w.inFlight[0].Retransmit)
	require.Equal(t, []string{"408ms rto: retransmission timeout 1, retransmit from snd_una"}, p.runFor(2*engine.Millisecond))
}

// With more than one segment out the probe timeout is 2·srtt + 2ms,
// rounded up to a jiffy (4ms at HZ 250); the probe resends the last MSS
// of the last skb, split off first (tcp_fragment in the retransmit
// queue), and no second probe goes while it is outstanding. Measured on
// Linux 6.18 with packetdrill: 2000 bytes in one GSO skb, unacknowledged,
// see their last 1000 sent again 4 to 8ms later (the timer wheel adds up
// to a jiffy, which the model does not).
func TestLossProbeLastSegment(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	mss := p.c.MSS()
	p.send(0, 3*mss)
	require.Len(t, p.w.inFlight, 1, "one GSO skb")
	p.w.lose()
	require.Equal(t, []string{"4ms loss_probe: loss probe timer fires: tcp_send_loss_probe sent a probe"}, p.runFor(5*engine.Millisecond))
	require.Len(t, p.w.inFlight, 1)
	probe := p.w.inFlight[0]
	require.Equal(t, uint32(2*mss), probe.Seq)
	require.Equal(t, uint32(3*mss), probe.EndSeq)
	require.Len(t, p.c.rtx, 2, "split in the retransmit queue")
	require.True(t, p.c.tlp.out)
	require.Equal(t, []string{"208ms rto: retransmission timeout 1, retransmit from snd_una"}, p.runFor(204*engine.Millisecond))
}

// The probe waits while the copy last transmitted is still in the host,
// charged to the socket (a NIC's ring holds it until TX completion), but
// not for a copy the path orphaned (loopback_xmit, tun_net_xmit), though
// it is alive in the peer's receive queue (skb_still_in_host_queue,
// skb_fclone_busy; measured over loopback,
// probe/testdata/tcp-loss-probe-loopback.zcs).
func TestLossProbeStillInHost(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.send(0, 3*p.c.MSS())
	require.Equal(t, []string{"4ms loss_probe: loss probe timer fires: no probe, the last segment is still in the host"}, p.runFor(5*engine.Millisecond))

	p = newPair(t, "linux-6.18", true)
	p.send(0, 3*p.c.MSS())
	for _, pk := range p.w.inFlight {
		pk.Skb.Orphan() // queued at the peer, unacknowledged
	}
	require.Equal(t, []string{"4ms loss_probe: loss probe timer fires: tcp_send_loss_probe sent a probe"}, p.runFor(5*engine.Millisecond))
}

// An ACK that frees part of what is out schedules the probe again
// (tcp_set_xmit_timer), bounded by a whole RTO; an ACK that reaches
// tlp_high_seq ends the probe's episode, and one that frees everything
// stops every timer.
func TestLossProbeAck(t *testing.T) {
	p := newPair(t, "linux-6.18", false, func(_ *kernel.Profile, r *sock.Route) { r.GSO = 0 })
	mss := p.c.MSS()
	p.send(0, 3*mss)
	require.Len(t, p.c.rtx, 3)
	p.w.lose()
	p.runFor(4 * engine.Millisecond)
	require.True(t, p.c.tlp.out)
	p.c.Ack(uint32(mss), 65535)
	require.True(t, p.c.tlp.out, "tlp_high_seq not reached")
	require.True(t, p.c.Net.Pending(p.c.tlp.timer))
	require.False(t, p.c.Net.Pending(p.c.t.rto))
	p.c.Ack(uint32(3*mss), 65535)
	require.False(t, p.c.tlp.out)
	require.False(t, p.c.Net.Pending(p.c.tlp.timer))
	require.False(t, p.c.Net.Pending(p.c.t.rto))
}

// Before v6.6 the 2ms floor was two jiffies added after rounding (8ms at
// HZ 250), and before that 10ms; net.ipv4.tcp_early_retrans below 3, a
// connection without SACK, or the loss state after an RTO arm the RTO
// instead.
func TestLossProbeTimeouts(t *testing.T) {
	for _, tc := range []struct {
		profile string
		set     func(p *pair)
		want    string
	}{
		{"linux-6.18", nil, "4ms loss_probe"},
		{"linux-5.0", nil, "12ms loss_probe"},
		{"rfc-v2", nil, "12ms loss_probe"},
		{"linux-6.18", func(p *pair) { p.c.Sk.Net.TCPEarlyRetrans = 2 }, "204ms rto"},
		{"linux-6.18", func(p *pair) { p.c.neg = negotiated{set: true, mssClamp: p.c.MSS()} }, "204ms rto"},
		{"linux-6.18", func(p *pair) { p.c.enterLoss() }, "204ms rto"},
	} {
		p := newPair(t, tc.profile, false, func(_ *kernel.Profile, r *sock.Route) { r.GSO = 0 })
		if tc.set != nil {
			tc.set(p)
		}
		p.send(0, 3*p.c.MSS())
		p.w.lose()
		fired := p.runFor(300 * engine.Millisecond)
		require.NotEmpty(t, fired, tc.profile)
		require.Contains(t, fired[0], tc.want, tc.profile)
	}
}

// A segment received twice puts the receiver in quickack mode
// (tcp_enter_quickack_mode: out of pingpong, quick ACKs granted, ato at
// TCP_ATO_MIN) and is acknowledged at once; but with more than a segment
// unacknowledged and less than half the buffer free, __tcp_select_window
// ends the quick ACKs and the delayed ACK carries it.
func TestDuplicateAck(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.peer.ack.pingpong, p.peer.ack.quick = true, 0
	p.peer.rcvNxt = 1000
	p.peer.Rejected(0, 1000)
	require.False(t, p.peer.ack.pingpong)
	require.Equal(t, atoMin, p.peer.ack.ato)
	require.Len(t, p.back.acks, 1, "acknowledged at once")

	b := skb.Alloc(p.h, 1500)
	b.AppendLinear(1500)
	p.peer.Sk.Rcvbuf = b.Truesize + 500
	require.True(t, p.peer.Receive(b, 1000, 2500, false, 0, false))
	p.peer.rcvMSS = 100
	p.peer.Rejected(1000, 2500)
	require.Len(t, p.back.acks, 1, "delayed")
	require.True(t, p.peer.Net.Pending(p.peer.t.delack))
	require.Zero(t, p.peer.ack.quick)
}
