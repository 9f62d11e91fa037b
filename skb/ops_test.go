package skb_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
)

func TestCopy(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	b.Shinfo().GSOSize = 1448
	n, err := b.Copy()
	require.Zero(t, err)
	skbtest.CheckSkb(t, n, skbtest.Skb{Len: 8192, DataLen: 8192, Truesize: 576 + 8192, Users: 1, Dataref: 1,
		Flags: zcFlags, Uarg: u.Ident(), Frags: skbtest.FragsOf(f.buf.Pages(), 4096, 4096)})
	require.NotSame(t, b.Shinfo(), n.Shinfo())
	require.Equal(t, 1448, n.Shinfo().GSOSize)
	skbtest.Refs(t, u, 2, b.Shinfo().Ident(), n.Shinfo().Ident())
	f.pageRefs(t, 3, 3, 1)
	n.Free()
	skbtest.Refs(t, u, 1, b.Shinfo().Ident())
	f.pageRefs(t, 2, 2, 1)
	skbtest.NoViolations(t, f.H)
}

// TestCopyWithoutFrags: __pskb_copy_fclone orphans and clones the uarg only
// when there are frags, so a linear zerocopy skb is copied without it.
func TestCopyWithoutFrags(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
	b := skb.Alloc(f.H, 128)
	b.AppendLinear(100)
	have := true
	b.ZcopySet(u, call, &have)
	require.False(t, have, "the call's reference was handed to the skb")
	n, err := b.Copy()
	require.Zero(t, err)
	skbtest.CheckSkb(t, n, skbtest.Skb{Len: 100, Truesize: 704, Users: 1, Dataref: 1})
	skbtest.Refs(t, u, 1, b.Shinfo().Ident())
}

func TestCopyFragList(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 0)
	l := skb.Alloc(f.H, 0)
	pg := mm.AllocPages(f.H, 0)
	l.AppendPageFrag(pg, 0, 10)
	pg.Put()
	b.Shinfo().FragList = []*skb.Buff{l}
	require.Len(t, b.AppendPages(nil), 1, "Pages includes the frag_list's")
	n, _ := b.Copy()
	require.Equal(t, 2, l.Users())
	n.Free()
	b.Free()
	require.True(t, l.Freed())
	skbtest.Live(t, f.H, map[string]int{"sock": 1}) // the fixture's buffer was never touched
	skbtest.NoViolations(t, f.H)
}

func TestExpandHead(t *testing.T) {
	t.Run("not cloned", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		s := b.Shinfo()
		require.Zero(t, b.ExpandHead())
		require.Same(t, s, b.Shinfo(), "the shared info just moves")
		skbtest.Refs(t, u, 1, s.Ident())
		f.pageRefs(t, 2, 2)
	})
	t.Run("cloned", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		old := b.Shinfo()
		c, _ := b.Clone()
		require.Zero(t, b.ExpandHead())
		s := b.Shinfo()
		require.NotSame(t, old, s)
		skbtest.CheckSkb(t, b, skbtest.Skb{Len: 8192, DataLen: 8192, Truesize: 576 + 8192, Users: 1, Dataref: 1,
			Flags: zcFlags, Uarg: u.Ident(), Frags: skbtest.FragsOf(f.buf.Pages(), 4096, 4096)})
		require.Equal(t, 1, old.Dataref(), "the clone keeps the old one")
		require.False(t, c.IsCloned())
		skbtest.Refs(t, u, 2, old.Ident(), s.Ident())
		f.pageRefs(t, 3, 3)
		c.Free()
		skbtest.Refs(t, u, 1, s.Ident())
		f.pageRefs(t, 2, 2)
	})
}

func TestSplitInsideLinear(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 8192, call)
	b := skb.Alloc(f.H, 200)
	b.AppendLinear(100)
	b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Len: 8192}), 8192, u, call)
	u.Complete(call, true)

	b1, err := b.Split(50)
	require.Zero(t, err)
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 50, Truesize: 832 + 8192, Users: 1, Dataref: 1, Flags: zcFlags, Uarg: u.Ident()})
	skbtest.CheckSkb(t, b1, skbtest.Skb{Len: 8242, DataLen: 8192, Truesize: 640, Users: 1, Dataref: 1,
		Flags: zcFlags, Uarg: u.Ident(), Frags: skbtest.FragsOf(f.buf.Pages(), 4096, 4096)})
	require.Equal(t, 50, b1.HeadLen())
	skbtest.Refs(t, u, 2, b.Shinfo().Ident(), b1.Shinfo().Ident())
	f.pageRefs(t, 2, 2, 1)
}

func TestSplitFrags(t *testing.T) {
	tests := []struct {
		name       string
		at         int
		keep, move []int // frag sizes
		pageRefs   []int
	}{
		{"straddling frag", 6000, []int{4096, 1904}, []int{2192}, []int{2, 3}},
		{"on a frag boundary", 4096, []int{4096}, []int{4096}, []int{2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "linux-6.18")
			b, u := f.zc(t, 0, 8192)
			b1, err := b.Split(tt.at)
			require.Zero(t, err)
			require.Equal(t, tt.at, b.Len)
			require.Equal(t, tt.at, b.DataLen)
			require.Equal(t, 8192-tt.at, b1.Len)
			require.Equal(t, 8192-tt.at, b1.DataLen)
			var keep, move []int
			for _, fr := range b.Shinfo().Frags {
				keep = append(keep, fr.Size)
			}
			for _, fr := range b1.Shinfo().Frags {
				move = append(move, fr.Size)
			}
			require.Equal(t, tt.keep, keep)
			require.Equal(t, tt.move, move)
			require.Equal(t, f.buf.Page(1), b1.Shinfo().Frags[0].Page)
			require.Equal(t, tt.at-4096, b1.Shinfo().Frags[0].Off)
			require.Equal(t, zcFlags, b1.Shinfo().Flags)
			skbtest.Refs(t, u, 2, b.Shinfo().Ident(), b1.Shinfo().Ident())
			f.pageRefs(t, tt.pageRefs...)
			b.Free()
			b1.Free()
			f.pageRefs(t, 1, 1)
			require.True(t, u.Freed())
			skbtest.NoViolations(t, f.H)
		})
	}
}

func TestSplitBounds(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, _ := f.zc(t, 0, 100)
	for _, n := range []int{0, 100, -1} {
		b1, err := b.Split(n)
		require.Nil(t, b1)
		require.Equal(t, kernel.EINVAL, err)
	}
}

// segmentPageRefs is the sum, over the 46 segments of a page-aligned
// 64 KiB skb cut at mss 1448, of the pages each segment touches.
const segmentPageRefs = 61

func TestSegment(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 65536)
	segs, err := b.Segment(1448)
	require.Zero(t, err)
	require.Len(t, segs, 46)
	require.Equal(t, 47, u.Refcnt(), "one reference per segment plus the original's")
	total := 0
	for _, s := range segs[:45] {
		require.Equal(t, 1448, s.Len)
		require.Equal(t, 1448, s.DataLen)
		require.Equal(t, u, s.Zcopy())
		require.Equal(t, zcFlags, s.Shinfo().Flags)
		total += len(s.Shinfo().Frags)
	}
	last := segs[45]
	require.Equal(t, 65536-45*1448, last.Len)
	total += len(last.Shinfo().Frags)
	require.Equal(t, segmentPageRefs, total)
	refs := 0
	for _, p := range f.buf.Pages()[:16] {
		refs += p.Refs() - 2 // the mapping's and the original skb's
	}
	require.Equal(t, segmentPageRefs, refs)

	b.Free()
	for _, s := range segs {
		require.Zero(t, f.sk.ErrQueue.Len(), "not before the last segment")
		s.Free()
	}
	require.True(t, u.Freed())
	require.Equal(t, 1, f.sk.ErrQueue.Len())
	skbtest.BufferRefs(t, f.buf, ones(32)...)
	skbtest.NoViolations(t, f.H)
}

func TestSegmentLinearHead(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 4096, call)
	b := skb.Alloc(f.H, 100)
	b.AppendLinear(100)
	b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Len: 4096}), 4096, u, call)
	segs, err := b.Segment(1448)
	require.Zero(t, err)
	var got [][2]int
	for _, s := range segs {
		got = append(got, [2]int{s.HeadLen(), s.DataLen})
	}
	require.Equal(t, [][2]int{{100, 1348}, {0, 1448}, {0, 1300}}, got)
}

func TestSegmentBounds(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, _ := f.zc(t, 0, 100)
	_, err := b.Segment(0)
	require.Equal(t, kernel.EINVAL, err)
	b.Shinfo().FragList = []*skb.Buff{skb.Alloc(f.H, 0)}
	_, err = b.Segment(1448)
	require.Equal(t, kernel.EINVAL, err, "frag_list GSO is not modelled")
}

// legacySkb returns an skb with one 1000-byte frag on each of three kernel
// pages, marked zerocopy by a legacy (vhost/tun) ubuf.
func legacySkb(t *testing.T, h *kernel.Host) (*skb.Buff, *ubuf.Info, []*mm.Page) {
	t.Helper()
	pages := []*mm.Page{mm.AllocPages(h, 0), mm.AllocPages(h, 0), mm.AllocPages(h, 0)}
	b := skb.Alloc(h, 0)
	for _, p := range pages {
		b.AppendPageFrag(p, 0, 1000)
		p.Put()
	}
	u := ubuf.NewLegacy(h, call)
	have := true
	b.ZcopySet(u, call, &have)
	skbtest.Refs(t, u, 1, b.Shinfo().Ident())
	return b, u, pages
}

// TestSegmentStaleFrags: skb_segment orphans the frags of a legacy ubuf
// skb first, which re-packs three 1000-byte frags into one page; under
// B16 it reads the frags before that and uses the freed pages.
func TestSegmentStaleFrags(t *testing.T) {
	t.Run("fixed", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u, old := legacySkb(t, f.H)
		segs, err := b.Segment(1448)
		require.Zero(t, err)
		require.True(t, u.Done)
		require.False(t, u.Success, "orphaning copied the frags")
		skbtest.Pages(t, skbtest.PageRef{Page: old[0]}, skbtest.PageRef{Page: old[1]}, skbtest.PageRef{Page: old[2]})
		fresh := b.Shinfo().Frags[0].Page
		skbtest.CheckSkb(t, b, skbtest.Skb{Len: 3000, DataLen: 3000, Truesize: 3576, Users: 1, Dataref: 1,
			Frags: []skbtest.Frag{skbtest.F(fresh, 0, 3000)}})
		require.Len(t, segs, 3)
		for i, want := range []skbtest.Frag{skbtest.F(fresh, 0, 1448), skbtest.F(fresh, 1448, 1448), skbtest.F(fresh, 2896, 104)} {
			// Each segment's truesize is its own head and the frag bytes
			// it holds (nskb->truesize += nskb->data_len).
			skbtest.CheckSkb(t, segs[i], skbtest.Skb{Len: want.Size, DataLen: want.Size, Truesize: 576 + want.Size, Users: 1, Dataref: 1,
				Frags: []skbtest.Frag{want}})
		}
		skbtest.Pages(t, skbtest.PageRef{Page: fresh, Refs: 4})
		skbtest.NoViolations(t, f.H)
	})
	t.Run("B16", func(t *testing.T) {
		f := newFixture(t, "linux-6.18", kernel.BugSegmentStaleFrags)
		b, _, old := legacySkb(t, f.H)
		segs, err := b.Segment(1448)
		require.Zero(t, err)
		use := skbtest.Violation{Rule: kernel.RuleRefcount, Object: old[0].Ident(), Message: "skb_segment frag after free"}
		skbtest.Violations(t, f.H, use, use, use)
		for _, s := range segs {
			require.Empty(t, s.Shinfo().Frags)
		}
	})
}

// TestSegmentTruesize: each segment's head is as large as the head skb's
// (its headroom reserved) and its truesize counts the frag bytes it
// holds, as skb_segment's nskb->truesize += nskb->data_len.
func TestSegmentTruesize(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, _ := f.zc(t, 0, 8192)
	b.Reserve(256)
	segs, err := b.Segment(4000)
	require.Zero(t, err)
	var got []int
	for _, s := range segs {
		got = append(got, s.Truesize)
	}
	require.Equal(t, []int{832 + 4000, 832 + 4000, 832 + 192}, got)
}

// TestTrimHead: tcp_trim_head's __pskb_trim_head drops the acknowledged
// bytes, the linear area's first, puts the page of each frag wholly
// dropped, and returns the frag bytes, the truesize the skb loses.
func TestTrimHead(t *testing.T) {
	t.Run("frags", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		require.Equal(t, 5000, b.TrimHead(5000))
		skbtest.CheckSkb(t, b, skbtest.Skb{Len: 3192, DataLen: 3192, Truesize: 576 + 8192, Users: 1, Dataref: 1,
			Flags: zcFlags, Uarg: u.Ident(), Frags: []skbtest.Frag{skbtest.F(f.buf.Page(1), 904, 3192)}})
		f.pageRefs(t, 1, 2)
	})
	t.Run("linear first", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 4096, call)
		b := skb.Alloc(f.H, 100)
		b.AppendLinear(100)
		b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Len: 4096}), 4096, u, call)
		require.Equal(t, 50, b.TrimHead(150))
		require.Equal(t, 0, b.HeadLen())
		require.Equal(t, 0, b.Tailroom())
		require.Equal(t, 4046, b.Len)
		require.Equal(t, 4046, b.DataLen)
		f.pageRefs(t, 2)
	})
}

// The counts the invariant checks read follow the operations that move
// them: a shared info's live skbs (Skbs) match its dataref through clone,
// pskb_expand_head and free, and each page counts the frags of live
// shared infos on it (mm.Page.Frags) through split, copy, skb_copy_ubufs
// and release.
func TestCounters(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, _ := f.zc(t, 0, 8192)
	p0, p1 := f.buf.Page(0), f.buf.Page(1)
	frags := func(want0, want1 int) {
		t.Helper()
		require.Equal(t, []int{want0, want1}, []int{p0.Frags(), p1.Frags()})
	}
	frags(1, 1)
	s := b.Shinfo()
	c, err := b.Clone()
	require.Zero(t, err)
	require.Equal(t, 2, s.Skbs())
	require.Equal(t, s.Dataref(), s.Skbs())
	frags(1, 1)
	require.Zero(t, b.ExpandHead()) // b gets a private copy of the frags
	require.Equal(t, 1, s.Skbs())
	require.Equal(t, 1, b.Shinfo().Skbs())
	frags(2, 2)
	tail, err := b.Split(6000) // the second page's frag is cut in two
	require.Zero(t, err)
	frags(2, 3)
	n, err := c.Copy()
	require.Zero(t, err)
	frags(3, 4)
	require.Zero(t, n.CopyUbufs(kernel.CopyLoopback)) // kernel pages replace the user's
	frags(2, 3)
	for _, x := range []*skb.Buff{c, b, tail, n} {
		x.Free()
	}
	frags(0, 0)
	require.Zero(t, s.Skbs())
	skbtest.NoViolations(t, f.H)
}
