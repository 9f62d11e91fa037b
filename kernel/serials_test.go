package kernel

import "testing"

// An index of objects that all died keeps at most the newest page, however
// many serials went by; a live object keeps its page.
func TestSerialsKeepOnlyLivePages(t *testing.T) {
	var x serials
	var live, young Tracked
	x.put(7, &live)
	for s := uint64(serialPageLen); s < 100*serialPageLen; s++ {
		x.put(s, &young)
		x.drop(s)
	}
	if len(x.pages) != 2 || x.get(7) != &live || x.n != 1 {
		t.Fatalf("%d pages, object 7 %p, %d indexed; want 2 pages (7's and the newest), %p, 1", len(x.pages), x.get(7), x.n, &live)
	}
	x.drop(7)
	if len(x.pages) != 1 || x.n != 0 {
		t.Fatalf("%d pages, %d indexed after the last drop; want the newest page only, 0", len(x.pages), x.n)
	}
}
