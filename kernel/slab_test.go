package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

func TestSlabNewIsZeroAndDistinct(t *testing.T) {
	var s kernel.Slab[obj]
	seen := map[*obj]bool{}
	for range 1000 {
		o := s.New()
		require.Zero(t, *o)
		require.False(t, seen[o], "a value handed out twice")
		seen[o] = true
		o.name = "used"
	}
}

func TestSlabCarveAndAppend(t *testing.T) {
	var s kernel.Slab[int]
	a, b := s.Carve(3), s.Carve(3)
	require.Equal(t, 0, len(a))
	require.Equal(t, 3, cap(a))
	a = append(a, 1, 2, 3)
	b = append(b, 4, 5, 6)
	require.Equal(t, []int{1, 2, 3}, a, "carved slices overlap")
	require.Equal(t, []int{4, 5, 6}, b)
	require.Equal(t, 1000, cap(s.Carve(1000)), "a large slice gets storage of its own")

	var v []int
	for i := range 100 {
		v = s.Append(v, i)
	}
	require.Len(t, v, 100)
	for i, x := range v {
		require.Equal(t, i, x)
	}
	require.Equal(t, []int{1, 2, 3}, a, "growing one slice overwrote another")
}

func TestSlotIsPerHostAndSlot(t *testing.T) {
	h1, h2 := newHost(t), newHost(t)
	require.Same(t, objSlab.Of(h1), objSlab.Of(h1))
	require.NotSame(t, objSlab.Of(h1), objSlab.Of(h2))
	ints, later := kernel.SlabSlot[int](), kernel.NewSlot[[]string]()
	require.Same(t, ints.Of(h1), ints.Of(h1))
	require.Same(t, objSlab.Of(h1), objSlab.Of(h1), "a slot made later moved an earlier one's value")
	*later.Of(h2) = []string{"x"}
	require.Empty(t, *later.Of(h1), "one Host's value seen in another")
	require.Equal(t, []string{"x"}, *later.Of(h2))
	var same kernel.Slot[kernel.Slab[obj]] = kernel.SlabSlot[obj]()
	require.NotSame(t, objSlab.Of(h1), same.Of(h1), "two slots of one type share a value")
	require.Panics(t, func() { kernel.Slot[int]{}.Of(h1) }, "the zero Slot")
}

// A slab never hands a freed object's storage to a new one, so a use of
// the freed object is still reported, with its own identity, however many
// objects were created since.
func TestSlabObjectUseAfterFreeIsCaught(t *testing.T) {
	h := newHost(t)
	s := objSlab.Of(h)
	newObj := func() *obj {
		o := s.New()
		h.Track(&o.Tracked, "skb", o)
		return o
	}
	freed := newObj()
	id := freed.Ident()
	freed.Free()
	for range 3000 {
		newObj().Free()
	}
	require.False(t, freed.CheckLive("kfree_skb"))
	v := h.TakeViolations()
	require.Len(t, v, 1)
	require.Equal(t, id, v[0].Object)
	require.Equal(t, kernel.RuleRefcount, v[0].Rule)
	require.Contains(t, v[0].Message, "kfree_skb after free")
}
