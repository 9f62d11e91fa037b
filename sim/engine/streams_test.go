package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/engine"
)

// draw returns the next n numbers of stream name.
func draw(s *engine.Streams, name string, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = s.Rand(name).Uint64()
	}
	return out
}

func TestStreamsSameSeedSameNumbers(t *testing.T) {
	a, b := engine.NewStreams(42), engine.NewStreams(42)
	if diff := cmp.Diff(draw(a, "net", 8), draw(b, "net", 8)); diff != "" {
		t.Errorf("same seed and name (-a +b):\n%s", diff)
	}
	require.Same(t, a.Rand("net"), a.Rand("net"), "one stream object per name")
}

func TestStreamsDoNotPerturbEachOther(t *testing.T) {
	alone := draw(engine.NewStreams(7), "net", 16)

	s := engine.NewStreams(7)
	var mixed []uint64
	for range 16 {
		draw(s, "fault/alloc", 3) // a new stream, drawn from in between
		mixed = append(mixed, draw(s, "net", 1)...)
	}
	if diff := cmp.Diff(alone, mixed); diff != "" {
		t.Errorf("stream net changed when fault/alloc was added (-alone +mixed):\n%s", diff)
	}
}

func TestStreamsDiffer(t *testing.T) {
	s := engine.NewStreams(1)
	require.NotEqual(t, draw(s, "net", 4), draw(s, "loss", 4), "different names")
	require.NotEqual(t, draw(engine.NewStreams(1), "net", 4), draw(engine.NewStreams(2), "net", 4), "different seeds")
}

// TestStreamsGolden pins the seed derivation: a change here changes every recorded run.
func TestStreamsGolden(t *testing.T) {
	want := []uint64{18430464034020703466, 17196268766102001026, 585787794392799840}
	if diff := cmp.Diff(want, draw(engine.NewStreams(1), "net", 3)); diff != "" {
		t.Errorf("stream derivation changed (-want +got):\n%s", diff)
	}
}

func TestStreamsNamesAndSeed(t *testing.T) {
	var zero engine.Streams
	require.Zero(t, zero.Seed())
	require.Empty(t, zero.Names())
	require.Equal(t, draw(engine.NewStreams(0), "x", 2), draw(&zero, "x", 2), "zero Streams is seed 0")

	s := engine.NewStreams(99)
	for _, name := range []string{"net", "fault/a", "loss"} {
		s.Rand(name)
	}
	require.Equal(t, uint64(99), s.Seed())
	require.Equal(t, []string{"fault/a", "loss", "net"}, s.Names())
}
