package kernel

import "testing"

// An object's first history is as long as the last freed history of its
// kind, so that objects made in a loop carve no history they outgrow; a
// full one grows to the next of historySizes or twice its length.
func TestFirstHistoryFitsTheLastFreedOfItsKind(t *testing.T) {
	p, err := Lookup(DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(p)
	newObj := func(kind string) *Tracked {
		var o Tracked
		return h.Track(&o, kind, nil)
	}
	first := newObj("uarg")
	for range 8 {
		first.Note(Entry{Op: OpSocket})
	}
	first.Free() // its ninth entry
	next, other := newObj("uarg"), newObj("skb")
	next.Note(Entry{Op: OpSocket})
	other.Note(Entry{Op: OpSocket})
	if got := cap(next.history); got != 9 {
		t.Errorf("a uarg after one of 9 entries was freed: first history of %d entries, want 9", got)
	}
	if got := cap(other.history); got != historySizes[0] {
		t.Errorf("an skb, none freed before: first history of %d entries, want %d", got, historySizes[0])
	}
	for range 9 {
		next.Note(Entry{Op: OpSetsockopt})
	}
	if got, n := cap(next.history), len(next.History()); got != 18 || n != 10 {
		t.Errorf("a history of 9 entries noting a tenth: capacity %d, %d entries; want 18, 10", got, n)
	}
	for n, want := range map[int]int{1: 8, 7: 14, 8: 16, 9: 18, 16: historyCap, 30: historyCap} {
		if got := grownHistory(n); got != want {
			t.Errorf("grownHistory(%d) = %d, want %d", n, got, want)
		}
	}
}
