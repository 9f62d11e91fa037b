package check

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A sendSet behaves as a map from id to send whatever the ids: in order,
// taken out of order, wrapping past 2^32, or far from the others.
func TestSendSet(t *testing.T) {
	var s sendSet
	want := map[uint32]*sendRec{}
	put := func(id uint32) {
		r := &sendRec{id: id}
		s.put(id, r)
		want[id] = r
	}
	take := func(id uint32) {
		r, ok := s.take(id)
		w, had := want[id]
		require.Equal(t, had, ok, "take %d", id)
		require.Same(t, w, r, "take %d", id)
		delete(want, id)
	}
	same := func() {
		require.Equal(t, len(want), s.len())
		for id, w := range want {
			r, ok := s.get(id)
			require.True(t, ok, "get %d", id)
			require.Same(t, w, r)
		}
		got := slices.Collect(s.all())
		require.Len(t, got, len(want))
		for _, r := range got {
			require.Same(t, want[r.id], r)
		}
	}
	for id := uint32(0xFFFFFFF0); id != 0x20; id++ {
		put(id)
	}
	same()
	take(0xFFFFFFF5)
	take(0xFFFFFFF0)
	take(3)
	take(3)
	same()
	put(1 << 20) // far from the window
	put(0x21)
	put(0x21) // replaced
	same()
	_, ok := s.get(0x30)
	require.False(t, ok)
	for id := uint32(0xFFFFFFF0); id != 0x22; id++ {
		take(id)
	}
	take(1 << 20)
	same()
	require.Zero(t, s.len())
	put(7)
	same()
}
