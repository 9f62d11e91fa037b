package notify_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/notify"
)

func TestUnionExactly(t *testing.T) {
	r := func(lo, hi uint32) notify.Range { return notify.Range{Lo: lo, Hi: hi} }
	tests := []struct {
		name string
		read []notify.Range
		want notify.Range
		ok   bool
		why  string
	}{
		{"one record", []notify.Range{r(0, 31)}, r(0, 31), true, ""},
		{"any split in order", []notify.Range{r(0, 3), r(4, 4), r(5, 31)}, r(0, 31), true, ""},
		{"out of order", []notify.Range{r(5, 31), r(0, 3), r(4, 4)}, r(0, 31), true, ""},
		{"across the wrap", []notify.Range{r(0xfffffffe, 0xffffffff), r(0, 1)}, r(0xfffffffe, 1), true, ""},
		{"nothing read", nil, r(0, 0), false, "no id"},
		{"a gap", []notify.Range{r(0, 3), r(5, 31)}, r(0, 31), false, "[0,3] [5,31], id 4 missing"},
		{"an id twice", []notify.Range{r(0, 3), r(3, 31)}, r(0, 31), false, "[0,3] [3,31], id 3 twice"},
		{"the same record twice", []notify.Range{r(0, 31), r(0, 31)}, r(0, 31), false, "[0,31] [0,31], id 0 twice"},
		{"upper bound too high", []notify.Range{r(0, 30)}, r(0, 31), false, "[0,30], ids from 31 missing"},
		{"upper bound too low", []notify.Range{r(0, 31)}, r(0, 30), false, "[0,31], id 31 outside [0,30]"},
		{"below the lower bound", []notify.Range{r(0, 31)}, r(1, 31), false, "[0,31], id 0 outside [1,31]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u notify.Union
			for _, x := range tt.read {
				u.Add(x)
			}
			ok, why := u.Exactly(tt.want)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.why, why)
		})
	}
}

// TestUnionAnySplit: the ids of an interval read in any split and any
// order make it exactly; with one id left out or one read twice, not.
func TestUnionAnySplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Uint32().Draw(t, "lo")
		n := rapid.IntRange(1, 64).Draw(t, "n")
		var parts []notify.Range
		for from := 0; from < n; {
			k := rapid.IntRange(1, n-from).Draw(t, "k")
			parts = append(parts, notify.Range{Lo: lo + uint32(from), Hi: lo + uint32(from+k-1)})
			from += k
		}
		perm := rapid.Permutation(parts).Draw(t, "order")
		want := notify.Range{Lo: lo, Hi: lo + uint32(n-1)}
		var u notify.Union
		for _, p := range perm {
			u.Add(p)
		}
		if ok, why := u.Exactly(want); !ok {
			t.Fatalf("%v read as %v: %s", want, perm, why)
		}
		u.Add(perm[rapid.IntRange(0, len(perm)-1).Draw(t, "again")])
		if ok, _ := u.Exactly(want); ok {
			t.Fatalf("%v with a range read twice passed", want)
		}
		var gap notify.Union
		skip := rapid.IntRange(0, len(perm)-1).Draw(t, "skip")
		for i, p := range perm {
			if i != skip {
				gap.Add(p)
			}
		}
		if ok, _ := gap.Exactly(want); ok {
			t.Fatalf("%v with %v left out passed", want, perm[skip])
		}
	})
}
