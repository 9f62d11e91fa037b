package kernel_test

import (
	"testing"

	"github.com/zcsim/zcsim/kernel"
)

// BenchmarkTrackFree creates and frees objects as a send does: most die
// young, one in eight lives for a thousand more.
func BenchmarkTrackFree(b *testing.B) {
	p, err := kernel.Lookup(kernel.DefaultProfile)
	if err != nil {
		b.Fatal(err)
	}
	h := kernel.NewHost(p)
	s := objSlab.Of(h)
	var old [1024]*obj
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o := s.New()
		h.Track(&o.Tracked, "skb", o)
		if i%8 != 0 {
			o.Free()
			continue
		}
		k := i / 8 % len(old)
		if old[k] != nil {
			old[k].Free()
		}
		old[k] = o
	}
}
