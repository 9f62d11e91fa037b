package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// span is a packet's sequence range, length, gso_size and flags, as the
// tests compare them.
type span struct {
	seq, endSeq uint32
	len, gso    int
	push, fin   bool
}

func spans(fs []frame) []span {
	out := make([]span, len(fs))
	for i, f := range fs {
		out[i] = span{f.seq, f.endSeq, f.len, f.gso, f.push, f.fin}
	}
	return out
}

// mssFrames returns n back-to-back single-segment frames of 1448 bytes
// from seq 0.
func mssFrames(n int) []frame {
	fs := make([]frame, n)
	for i := range fs {
		seq := uint32(i * 1448)
		fs[i] = frame{len: 1448, seq: seq, endSeq: seq + 1448}
	}
	return fs
}

const hdrV4 = 20 + 20 + 12 // IPv4, TCP and its timestamp option

// GRO merges in-order segments until the next would reach gro_max_size
// with the headers: 45 segments of 1448 (65212 bytes with 52 of headers;
// 46 would be 66660).
func TestGROMergesUpToMaxSize(t *testing.T) {
	got := groPackets(mssFrames(50), true, hdrV4)
	require.Equal(t, []span{
		{0, 65160, 65160, 1448, false, false},
		{65160, 72400, 7240, 1448, false, false},
	}, spans(got))
}

// PSH, FIN and a short segment end the packet they join; a segment that
// does not follow on starts a new one; a bare FIN is never held.
func TestGROFlushRules(t *testing.T) {
	fs := mssFrames(6)
	fs[1].push = true
	fs[3].len, fs[3].endSeq = 1000, fs[3].seq+1000 // short: ends its packet
	fs[4].seq, fs[4].endSeq = 10000, 11448         // a gap
	fs[5].seq, fs[5].endSeq = 11448, 12896
	fin := frame{seq: 12896, endSeq: 12896, fin: true}
	got := groPackets(append(fs, fin), true, hdrV4)
	require.Equal(t, []span{
		{0, 2896, 2896, 1448, true, false},
		{2896, 5344, 2448, 1448, false, false},
		{10000, 12896, 2896, 1448, false, false},
		{12896, 12896, 0, 0, false, true},
	}, spans(got))
}

// Without GRO a TSO frame goes up as the wire segments the NIC cut it
// into, PSH and FIN on the last; with GRO it is merged back whole.
func TestGROOffCutsWireSegments(t *testing.T) {
	tso := frame{len: 4000, seq: 0, endSeq: 4000, gso: 1448, push: true}
	require.Equal(t, []span{
		{0, 1448, 1448, 0, false, false},
		{1448, 2896, 1448, 0, false, false},
		{2896, 4000, 1104, 0, true, false},
	}, spans(groPackets([]frame{tso}, false, hdrV4)))
	require.Equal(t, []span{{0, 4000, 4000, 1448, true, false}},
		spans(groPackets([]frame{tso}, true, hdrV4)))
}
