package tcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// net.ipv4.tcp_timestamps 0 takes the timestamp option out of the
// implicit handshake: over loopback the MSS is 65495, not 65483, half
// the peer's 65495-byte window 32747 (measured on Linux 6.18:
// probe/testdata/tcp-timestamps-off.zcs), and a segment's header is the
// bare tcphdr.
func TestTimestampsSysctlImplicit(t *testing.T) {
	on := newPair(t, "linux-6.18", true)
	require.True(t, on.c.Timestamps())
	require.Equal(t, 32, on.c.HeaderLen())
	require.Equal(t, 32741, on.c.MSS())

	p := unconnectedPair(t, "linux-6.18", true)
	p.c.Sk.Net.TCPTimestamps = 0
	require.Equal(t, 0, int(p.handshake()))
	require.False(t, p.c.Timestamps())
	require.False(t, p.peer.Timestamps())
	require.Equal(t, 20, p.c.HeaderLen())
	require.Equal(t, 65495, p.peer.SynWindow(), "whole 65495-byte segments")
	require.Equal(t, 32747, p.c.MSS())

	p.c.Sk.Net.TCPTimestamps = 1
	require.False(t, p.c.Timestamps(), "the handshake decided")
}

// The SYN offers SACK permitted and timestamps as net.ipv4.tcp_sack and
// tcp_timestamps say (tcp_syn_options); a SYN-ACK answers with what the
// SYN offered and this end's sysctls take (tcp_parse_options,
// tcp_synack_options), rounding its window to whole MSS less the
// timestamps only when it keeps them (tcp_openreq_init_rwin).
func TestSynOptionsSysctls(t *testing.T) {
	p := unconnectedPair(t, "linux-6.18", true)
	net := p.c.Sk.Net
	syn, err := p.c.StartConnect()
	require.Equal(t, 0, int(err))
	require.True(t, syn.TS)
	require.True(t, syn.SackOK)

	net.TCPTimestamps, net.TCPSack = 0, 0
	q := unconnectedPair(t, "linux-6.18", true)
	q.c.Sk.Net = net
	syn, _ = q.c.StartConnect()
	require.False(t, syn.TS)
	require.False(t, syn.SackOK)

	offered := SynOptions{Window: 65535, MSS: 65495, Wscale: 7, SackOK: true, TS: true}
	q.peer.Sk.Net = net
	got := q.peer.SynAckOffer(offered)
	want := SynOptions{Window: 65495, MSS: 65495, Wscale: got.Wscale, SackOK: false, TS: false}
	require.Empty(t, cmp.Diff(want, got))
	q.peer.Accepted(offered, 100)
	require.False(t, q.peer.Timestamps(), "the listener's sysctl ignores the SYN's timestamps")
	require.Equal(t, 20, q.peer.HeaderLen())

	r := unconnectedPair(t, "linux-6.18", true)
	got = r.peer.SynAckOffer(offered)
	require.Equal(t, 65483, got.Window, "whole segments less the timestamps")
	require.True(t, got.TS)
	require.True(t, got.SackOK)
}

// A client whose sysctl is 0 does not take the timestamps of a SYN-ACK
// (tcp_rcv_synsent_state_process: saw_tstamp stays 0), and its MSS keeps
// the 12 bytes.
func TestSynAckTimestampsIgnored(t *testing.T) {
	p := unconnectedPair(t, "linux-6.18", true)
	p.c.Sk.Net.TCPTimestamps = 0
	_, err := p.c.StartConnect()
	require.Equal(t, 0, int(err))
	ok, _ := p.c.SynAckReceived(SynOptions{Window: 65535, MSS: 1460, Wscale: 7, SackOK: true, TS: true}, 0)
	require.True(t, ok)
	require.False(t, p.c.Timestamps())
	require.Equal(t, 1460, p.c.MSS())
}

// A SYN's header is struct tcphdr and the options tcp_options_write lays
// out: MSS (4), SACK permitted in the timestamps' padding (12) or with two
// NOPs (4), window scale with a NOP (4). Measured on Linux 6.18 over
// loopback: 40 bytes by default, 32 with net.ipv4.tcp_timestamps 0.
func TestSynHeaderLen(t *testing.T) {
	for _, tc := range []struct {
		o    SynOptions
		want int
	}{
		{SynOptions{MSS: 65495, Wscale: 7, SackOK: true, TS: true}, 40},
		{SynOptions{MSS: 65495, Wscale: 7, TS: true}, 40},
		{SynOptions{MSS: 65495, Wscale: 7, SackOK: true}, 32},
		{SynOptions{MSS: 65495, Wscale: 7}, 28},
		{SynOptions{MSS: 1460, Wscale: NoWscale}, 24},
		{SynOptions{Wscale: NoWscale}, 20},
	} {
		if got := SynHeaderLen(tc.o); got != tc.want {
			t.Errorf("SynHeaderLen(%+v) = %d, want %d", tc.o, got, tc.want)
		}
	}
}
