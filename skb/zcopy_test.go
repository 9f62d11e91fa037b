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

func TestShift(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	zc, _ := f.zc(t, 0, 4096)
	p := []*mm.Page{mm.AllocPages(f.H, 0), mm.AllocPages(f.H, 0), mm.AllocPages(f.H, 0)}
	tgt := kernelSkb(f.H, p[0])
	src := kernelSkb(f.H, p[1], p[2])

	require.Zero(t, skb.Shift(tgt, zc, 4096), "zerocopy source refused")
	require.Zero(t, skb.Shift(zc, src, 4096), "zerocopy target refused")
	require.Equal(t, 4096, zc.Len)

	ts, ss := tgt.Truesize, src.Truesize
	require.Equal(t, 6000, skb.Shift(tgt, src, 6000), "exactly n bytes, the straddling frag split")
	require.Equal(t, []int{ts + 6000, ss - 6000}, []int{tgt.Truesize, src.Truesize}, "truesize moves with the bytes")
	require.Equal(t, 10096, tgt.Len)
	require.Equal(t, 2192, src.Len)
	require.Equal(t, []*mm.Page{p[0], p[1], p[2]}, tgt.AppendPages(nil))
	skbtest.Pages(t, skbtest.PageRef{Page: p[0], Refs: 1}, skbtest.PageRef{Page: p[1], Refs: 1}, skbtest.PageRef{Page: p[2], Refs: 2})

	require.Equal(t, 100, skb.Shift(tgt, src, 100), "a frag that continues tgt's last extends it")
	require.Equal(t, []skb.Frag{{Page: p[0], Size: 4096}, {Page: p[1], Size: 4096}, {Page: p[2], Size: 2004}}, tgt.Shinfo().Frags)
	require.Equal(t, 2092, src.Len)
	require.Equal(t, 2092, skb.Shift(tgt, src, 2092), "merged whole: its page reference dropped")
	require.Equal(t, 0, src.Len)
	require.Empty(t, src.Shinfo().Frags)
	require.Equal(t, []skb.Frag{{Page: p[0], Size: 4096}, {Page: p[1], Size: 4096}, {Page: p[2], Size: 4096}}, tgt.Shinfo().Frags)
	skbtest.Pages(t, skbtest.PageRef{Page: p[2], Refs: 1})

	full := skb.Alloc(f.H, 0)
	for range kernel.MaxSkbFrags {
		full.AppendPageFrag(mm.AllocPages(f.H, 0), 0, 10)
	}
	one := kernelSkb(f.H, mm.AllocPages(f.H, 0))
	require.Zero(t, skb.Shift(full, one, 10), "no frag left in tgt")
	require.Equal(t, 10*kernel.MaxSkbFrags, full.Len)

	lin := skb.Alloc(f.H, 100)
	lin.AppendLinear(10)
	require.Zero(t, skb.Shift(tgt, lin, 10), "a source with linear data is refused")
}

func TestTryCoalesce(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	zc, u := f.zc(t, 0, 100)
	to := skb.Alloc(f.H, 200)
	require.True(t, coalesced(to, zc), "fits in the tailroom: copied, zerocopy or not")
	require.Equal(t, 100, to.Len)
	require.False(t, to.IsZcopy())
	skbtest.Refs(t, u, 1, zc.Shinfo().Ident())

	small := skb.Alloc(f.H, 0)
	require.False(t, coalesced(small, zc), "frags of a zerocopy skb are never merged")
	require.False(t, coalesced(zc, kernelSkb(f.H, mm.AllocPages(f.H, 0))), "nor merged into one")

	p := []*mm.Page{mm.AllocPages(f.H, 0), mm.AllocPages(f.H, 0)}
	a, b := kernelSkb(f.H, p[0]), kernelSkb(f.H, p[1])
	require.True(t, coalesced(a, b))
	require.Equal(t, []*mm.Page{p[0], p[1]}, a.AppendPages(nil))
	require.Equal(t, 8192, a.DataLen)
	require.Zero(t, b.Len)
	b.Free()
	skbtest.Pages(t, skbtest.PageRef{Page: p[1], Refs: 1}, skbtest.PageRef{Page: p[0], Refs: 1})

	c, _ := a.Clone()
	require.False(t, coalesced(a, kernelSkb(f.H, mm.AllocPages(f.H, 0))), "a cloned target is refused")
	c.Free()
	withList := kernelSkb(f.H, mm.AllocPages(f.H, 0))
	withList.Shinfo().FragList = []*skb.Buff{skb.Alloc(f.H, 0)}
	require.False(t, coalesced(a, withList))
	skbtest.NoViolations(t, f.H)
}

func TestCanCoalesce(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	p := mm.AllocPages(f.H, 0)
	b := skb.Alloc(f.H, 0)
	require.False(t, b.CanCoalesce(p, 0), "no frag to extend")
	require.True(t, b.AppendPageFrag(p, 0, 100))
	require.True(t, b.CanCoalesce(p, 100))
	require.False(t, b.CanCoalesce(p, 101))
	require.False(t, b.CanCoalesce(mm.AllocPages(f.H, 0), 100))

	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
	b.ZcopySet(u, call, nil)
	require.False(t, b.CanCoalesce(p, 100), "never after a zerocopy append")
}

func TestAppendPageFrag(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	p := mm.AllocPages(f.H, 0)
	b := skb.Alloc(f.H, 0)
	require.True(t, b.AppendPageFrag(p, 0, 100))
	require.True(t, b.AppendPageFrag(p, 100, 200), "extends the last frag")
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 300, DataLen: 300, Truesize: 876, Users: 1, Dataref: 1,
		Frags: []skbtest.Frag{skbtest.F(p, 0, 300)}})
	skbtest.Pages(t, skbtest.PageRef{Page: p, Refs: 2})
	for i := 1; i < kernel.MaxSkbFrags; i++ {
		require.True(t, b.AppendPageFrag(p, 1000+10*i, 1))
	}
	require.False(t, b.AppendPageFrag(p, 3000, 1), "no frag slot left")
	require.Len(t, b.Shinfo().Frags, 17)
	require.Equal(t, 316, b.Len)
}

func TestAppendLinear(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 100)
	b.AppendLinear(60)
	require.Equal(t, 40, b.Tailroom())
	b.AppendLinear(41)
	skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleBounds, Object: b.Ident(), Message: "skb_put of 41 bytes with 40 tailroom"})
	require.Equal(t, 60, b.Len)
}

func TestOrphanFrags(t *testing.T) {
	t.Run("not zerocopy", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		p := mm.AllocPages(f.H, 0)
		b := kernelSkb(f.H, p)
		require.Zero(t, b.OrphanFrags())
		require.Equal(t, []*mm.Page{p}, b.AppendPages(nil))
	})
	t.Run("msg_zerocopy: DONT_ORPHAN", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		before := skbtest.SkbOf(b)
		require.Zero(t, b.OrphanFrags())
		skbtest.CheckSkb(t, b, before)
		require.True(t, u.Zerocopy)
	})
	t.Run("legacy: copied", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u, old := legacySkb(t, f.H)
		require.Zero(t, b.OrphanFrags())
		require.True(t, u.Done)
		require.False(t, u.Success)
		require.False(t, b.IsZcopy())
		skbtest.Pages(t, skbtest.PageRef{Page: old[0]}, skbtest.PageRef{Page: old[1]}, skbtest.PageRef{Page: old[2]})
		require.Equal(t, kernel.SkbFlags(0), b.Shinfo().Flags)
	})
	t.Run("nouarg: copied without completion", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		ring := mm.NewBuffer(f.H, 4096) // a PACKET_TX_RING frame
		b := skb.Alloc(f.H, 0)
		b.AppendPageFrag(ring.Page(0), 0, 1500)
		b.SetNoUarg()
		require.True(t, b.IsZcopy())
		require.Nil(t, b.Zcopy())
		require.Zero(t, b.OrphanFrags())
		require.False(t, b.IsZcopy())
		require.False(t, b.Shinfo().NoUarg)
		require.Empty(t, ring.InFlight(), "the ring frame is free for reuse")
		require.False(t, b.AppendPages(nil)[0].User)
		skbtest.NoViolations(t, f.H)
	})
}

func TestOrphanFragsRx(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	u.Get(call) // the send call still holds its own
	require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback))
	require.False(t, u.Zerocopy, "COPIED")
	skbtest.Refs(t, u, 1, call)
	pg := b.AppendPages(nil)
	require.Len(t, pg, 2)
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 8192, DataLen: 8192, Truesize: 576 + 8192, Users: 1, Dataref: 1,
		Frags: []skbtest.Frag{skbtest.F(pg[0], 0, 4096), skbtest.F(pg[1], 0, 4096)}})
	require.Equal(t, 0, pg[0].Order)
	f.pageRefs(t, 1, 1)

	require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback), "no longer zerocopy: nothing to do")
	require.Equal(t, pg, b.AppendPages(nil))
	skbtest.NoViolations(t, f.H)
}

// bigZc returns a zerocopy skb of pagelen bytes in frags of 16 KiB
// compound kernel pages (a BIG TCP skb), holding its uarg's only reference.
func bigZc(t *testing.T, f *fixture, pagelen int) (*skb.Buff, *ubuf.Info) {
	t.Helper()
	f.Task.Memlock = kernel.RLIM_INFINITY
	u, out := ubuf.Alloc(f.H, f.sk, f.Task, uint32(pagelen), call)
	require.Equal(t, ubuf.Allocated, out)
	b := skb.Alloc(f.H, 0)
	for left := pagelen; left > 0; left -= 16384 {
		p := mm.AllocPages(f.H, 2)
		require.True(t, b.AppendPageFrag(p, 0, min(left, 16384)))
		p.Put()
	}
	have := true
	b.ZcopySet(u, call, &have)
	return b, u
}

func TestCopyUbufsPageOrder(t *testing.T) {
	tests := []struct {
		profile  string
		bugs     []kernel.Bug
		pagelen  int
		order    int
		count    int
		overflow bool
	}{
		{"linux-6.18", nil, 69632, 0, 17, false},
		{"linux-6.18", nil, 69633, 1, 9, false},
		{"linux-6.18", nil, 114688, 1, 14, false},
		{"linux-6.18", []kernel.Bug{kernel.BugCopyUbufsOrder0}, 69632, 0, 17, false},
		{"linux-6.18", []kernel.Bug{kernel.BugCopyUbufsOrder0}, 69633, 0, 18, true},
		{"linux-5.0", nil, 114688, 0, 28, true},
	}
	for _, tt := range tests {
		f := newFixture(t, tt.profile, tt.bugs...)
		b, u := bigZc(t, f, tt.pagelen)
		require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback))
		fr := b.Shinfo().Frags
		require.Len(t, fr, tt.count, "%s %v %d", tt.profile, tt.bugs, tt.pagelen)
		require.Equal(t, tt.order, fr[0].Page.Order)
		last := tt.pagelen - (tt.count-1)*(kernel.PageSize<<tt.order)
		require.Equal(t, last, fr[len(fr)-1].Size)
		require.True(t, u.Freed())
		if tt.overflow {
			msg := "skb_copy_ubufs needs 28 frags of 4096 bytes for 114688 bytes: more than MAX_SKB_FRAGS"
			if tt.pagelen == 69633 {
				msg = "skb_copy_ubufs needs 18 frags of 4096 bytes for 69633 bytes: more than MAX_SKB_FRAGS"
			}
			skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleBounds, Object: b.Ident(), Message: msg})
		} else {
			skbtest.NoViolations(t, f.H)
		}
	}
}

func TestCopyUbufsFailures(t *testing.T) {
	t.Run("page allocation fails", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		f.H.Faults = skbtest.Faults{kernel.FaultCopyUbufs: 1}
		before := skbtest.SkbOf(b)
		require.Equal(t, kernel.ENOMEM, b.OrphanFragsRx(kernel.CopyLoopback))
		skbtest.CheckSkb(t, b, before)
		skbtest.Refs(t, u, 1, b.Shinfo().Ident())
		require.True(t, u.Zerocopy)
		f.pageRefs(t, 2, 2)
		require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback), "the next attempt succeeds")
	})
	t.Run("shared skb", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 8192)
		b.Get()
		require.Equal(t, kernel.EINVAL, b.OrphanFragsRx(kernel.CopyLoopback))
		require.True(t, u.Zerocopy)
		f.pageRefs(t, 2, 2)
	})
	t.Run("orphaning a shared legacy skb fails", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u, _ := legacySkb(t, f.H)
		b.Get()
		c, err := b.Clone()
		require.Nil(t, c)
		require.Equal(t, kernel.ENOMEM, err)
		n, err := b.Copy()
		require.Nil(t, n)
		require.Equal(t, kernel.ENOMEM, err)
		segs, err := b.Segment(1448)
		require.Nil(t, segs)
		require.Equal(t, kernel.ENOMEM, err)
		require.False(t, u.Done)
		skbtest.Live(t, f.H, map[string]int{"sock": 1, "page": 3, "skb": 1, "shinfo": 1, "ubuf": 1})
	})
}

// TestCopyUbufsCloned: a cloned skb is made private first (+1 uarg
// reference for its new shared info), then that reference is dropped with
// COPIED; the clone keeps the user pages.
func TestCopyUbufsCloned(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	old := b.Shinfo()
	c, _ := b.Clone()
	var trail []string
	f.H.Trace = func(t *kernel.Tracked, e *kernel.Entry) {
		if t.Ident() == u.Ident() {
			trail = append(trail, e.Text())
		}
	}
	require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback))
	require.NotSame(t, old, b.Shinfo())
	require.Len(t, trail, 3)
	require.Contains(t, trail[0], "get by "+b.Shinfo().Ident().String()+" → refcnt 2")
	require.Equal(t, "zerocopy = 0, the notification will say COPIED: "+kernel.CopyLoopback.String(), trail[1])
	require.Contains(t, trail[2], "success=false (copied: loopback) → refcnt 1")
	require.Equal(t, kernel.CopyLoopback, u.Copied)
	skbtest.Refs(t, u, 1, old.Ident())
	require.False(t, u.Zerocopy)
	require.False(t, b.IsZcopy())
	require.Equal(t, u, c.Zcopy())
	f.pageRefs(t, 2, 2)
	c.Free()
	require.True(t, u.Freed())
	f.pageRefs(t, 1, 1)
	require.True(t, f.sk.ErrQueue.Records()[0].Copied())
	skbtest.NoViolations(t, f.H)
}

func TestCopyUbufsNoFrags(t *testing.T) {
	for _, bug := range []bool{false, true} {
		var bugs []kernel.Bug
		if bug {
			bugs = append(bugs, kernel.BugCopyUbufsNoFrags)
		}
		f := newFixture(t, "linux-6.18", bugs...)
		u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
		b := skb.Alloc(f.H, 128)
		b.AppendLinear(100)
		have := true
		b.ZcopySet(u, call, &have)
		require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback))
		if bug {
			require.Equal(t, u, b.Zcopy(), "B2: the uarg stays attached")
			skbtest.Refs(t, u, 1, b.Shinfo().Ident())
		} else {
			require.True(t, u.Freed(), "fixed: released with COPIED")
			require.True(t, f.sk.ErrQueue.Records()[0].Copied())
			require.False(t, b.IsZcopy())
		}
	}
}

func TestZerocopy(t *testing.T) {
	tests := []struct {
		name     string
		hlen     int
		frags    []int
		toLen    int
		pageRefs []int
	}{
		{"no header", 0, []int{4096, 4096}, 8192, []int{3, 3}},
		{"100-byte header", 100, []int{3996, 4096}, 8192, []int{3, 3}},
		{"header spans the first frag", 5000, []int{3192}, 8192, []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "linux-6.18")
			from, u := f.zc(t, 0, 8192)
			to := skb.Alloc(f.H, 8192)
			require.Zero(t, skb.Zerocopy(to, from, 8192, tt.hlen))
			var sizes []int
			for _, fr := range to.Shinfo().Frags {
				sizes = append(sizes, fr.Size)
			}
			require.Equal(t, tt.frags, sizes)
			require.Equal(t, tt.toLen, to.Len)
			require.Equal(t, tt.hlen, to.HeadLen())
			skbtest.Refs(t, u, 2, from.Shinfo().Ident(), to.Shinfo().Ident())
			f.pageRefs(t, tt.pageRefs...)
		})
	}
	t.Run("legacy source is orphaned first", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		from, u, _ := legacySkb(t, f.H)
		to := skb.Alloc(f.H, 0)
		require.Zero(t, skb.Zerocopy(to, from, 3000, 0))
		require.True(t, u.Done)
		require.False(t, to.IsZcopy())
		require.Equal(t, 3000, to.Len)
	})
	t.Run("orphaning fails", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		from, _, _ := legacySkb(t, f.H)
		f.H.Faults = skbtest.Faults{kernel.FaultCopyUbufs: 1}
		to := skb.Alloc(f.H, 0)
		require.Equal(t, kernel.ENOMEM, skb.Zerocopy(to, from, 3000, 0))
		require.Zero(t, to.Len)
	})
}

func TestPullTail(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	require.Equal(t, kernel.EINVAL, b.PullTail(8193))
	require.Zero(t, b.PullTail(100))
	// An unowned skb's truesize grows with its head (pskb_expand_head).
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 8192, DataLen: 8092, Truesize: 576 + 8192 + 228, Users: 1, Dataref: 1,
		Flags: zcFlags, Uarg: u.Ident(),
		Frags: []skbtest.Frag{skbtest.F(f.buf.Page(0), 100, 3996), skbtest.F(f.buf.Page(1), 0, 4096)}})
	require.Equal(t, 228, b.LinearCap, "the head grew by delta + 128")
	require.True(t, u.Zerocopy, "frags remain: no copy reported yet")

	require.Zero(t, b.Linearize())
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 8192, Truesize: 576 + 8192 + 8320, Users: 1, Dataref: 1})
	require.Equal(t, 8320, b.LinearCap)
	require.True(t, u.Freed())
	require.True(t, f.sk.ErrQueue.Records()[0].Copied(), "data_len 0: skb_zcopy_clear(skb, false)")
	f.pageRefs(t, 1, 1)
	skbtest.NoViolations(t, f.H)
}

func TestPullTailCloned(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	old := b.Shinfo()
	c, _ := b.Clone()
	require.Zero(t, b.PullTail(4096))
	require.NotSame(t, old, b.Shinfo(), "a cloned head is made private first")
	skbtest.Refs(t, u, 2, old.Ident(), b.Shinfo().Ident())
	f.pageRefs(t, 2, 3)
	require.Equal(t, 8192, c.DataLen, "the clone is untouched")
}

func TestTxError(t *testing.T) {
	t.Run("not cloned", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 100)
		b.TxError()
		require.True(t, u.Freed())
		require.False(t, f.sk.ErrQueue.Records()[0].Copied(), "success")
		require.False(t, b.IsZcopy())
		b.Free()
		skbtest.NoViolations(t, f.H)
	})
	t.Run("cloned: no-op", func(t *testing.T) {
		f := newFixture(t, "linux-6.18")
		b, u := f.zc(t, 0, 100)
		c, _ := b.Clone()
		c.TxError()
		skbtest.Refs(t, u, 1, b.Shinfo().Ident())
		require.Equal(t, u, b.Zcopy())
	})
	t.Run("B22: cloned shared info cleared", func(t *testing.T) {
		f := newFixture(t, "linux-6.18", kernel.BugTxErrorClone)
		b, u := f.zc(t, 0, 100)
		c, _ := b.Clone()
		c.TxError()
		require.True(t, u.Freed(), "notified while the original still holds the pages")
		require.Nil(t, b.Zcopy())
		f.pageRefs(t, 2)
	})
}

func TestZcopySet(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	u1, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
	u2, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
	b := skb.Alloc(f.H, 0)
	b.ZcopySet(nil, call, nil)
	require.False(t, b.IsZcopy())
	b.ZcopySet(u1, call, nil)
	skbtest.Refs(t, u1, 2, call, b.Shinfo().Ident())
	have := true
	b.ZcopySet(u2, call, &have)
	require.True(t, have, "an skb points at one uarg only: nothing happens")
	skbtest.Refs(t, u2, 1, call)
	require.Equal(t, zcFlags, b.Shinfo().Flags)
}

func TestZerocopyClone(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	orig, u := f.zc(t, 0, 100)
	plain := skb.Alloc(f.H, 0)
	require.Zero(t, skb.ZerocopyClone(plain, skb.Alloc(f.H, 0), true), "orig not zerocopy")
	require.False(t, plain.IsZcopy())

	require.Zero(t, skb.ZerocopyClone(plain, orig, false))
	require.Zero(t, skb.ZerocopyClone(plain, orig, true), "same uarg: no second reference")
	skbtest.Refs(t, u, 2, orig.Shinfo().Ident(), plain.Shinfo().Ident())

	other, v := f.zc(t, 4096, 100)
	require.Equal(t, kernel.ENOMEM, skb.ZerocopyClone(other, orig, false))
	skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleRefcount, Object: other.Ident(),
		Message: "skb_zerocopy_clone without gfp on an skb holding " + v.String()})

	f.H.Faults = skbtest.Faults{kernel.FaultCopyUbufs: 1}
	require.Equal(t, kernel.EIO, skb.ZerocopyClone(other, orig, true))
	require.Equal(t, v, other.Zcopy())

	require.Zero(t, skb.ZerocopyClone(other, orig, true))
	require.True(t, v.Freed(), "nskb's own uarg was released with COPIED")
	require.Equal(t, u, other.Zcopy())
	skbtest.Refs(t, u, 3, orig.Shinfo().Ident(), plain.Shinfo().Ident(), other.Shinfo().Ident())
}

func BenchmarkZerocopyFromIter64K(b *testing.B) {
	f := newFixture(b, "linux-6.18")
	b.ReportAllocs()
	for b.Loop() {
		u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 65536, call)
		s := skb.Alloc(f.H, 0)
		s.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Len: 65536}), 65536, u, call)
		u.Complete(call, true)
		s.Free()
		f.sk.RecvErrqueue()
	}
}

func BenchmarkCloneFree(b *testing.B) {
	f := newFixture(b, "linux-6.18")
	s, _ := f.zc(b, 0, 65536)
	b.ReportAllocs()
	for b.Loop() {
		c, _ := s.Clone()
		c.Free()
	}
}

func BenchmarkSegment64K(b *testing.B) {
	f := newFixture(b, "linux-6.18")
	s, _ := f.zc(b, 0, 65536)
	b.ReportAllocs()
	for b.Loop() {
		segs, _ := s.Segment(1448)
		for _, seg := range segs {
			seg.Free()
		}
	}
}

// coalesced reports whether skb.TryCoalesce merged from into to.
func coalesced(to, from *skb.Buff) bool {
	_, ok := skb.TryCoalesce(to, from)
	return ok
}

// rxSkb is a received TCP skb without linear payload: one frag of n bytes
// in a kernel page behind a head of SKB_TRUESIZE(256), as a zerocopy skb
// reaches a loopback receiver after skb_copy_ubufs.
func rxSkb(h *kernel.Host, n int) *skb.Buff {
	b := skb.Alloc(h, 0)
	b.Reserve(256)
	p := mm.AllocPages(h, 0)
	b.AppendPageFrag(p, 0, n)
	p.Put()
	b.Truesize = b.Head + kernel.PageSize
	return b
}

// Reserve counts the headroom in the head's truesize, not in the linear
// area: 832 bytes for MAX_TCP_HEADER 256.
func TestReserve(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 0)
	b.Reserve(256)
	require.Equal(t, 832, b.Truesize)
	require.Equal(t, 832, b.Head)
	require.Zero(t, b.Tailroom())
	b.Free()
	skbtest.NoViolations(t, f.H)
}

// TestCoalesceTruesize: the tail takes the source's truesize less its
// head, which is what tcp_try_coalesce charges: three 4000-byte segments
// cost 832 + 3 pages, as sk_rmem_alloc shows on Linux 6.18.
func TestCoalesceTruesize(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	to := rxSkb(f.H, 4000)
	for range 2 {
		from := rxSkb(f.H, 4000)
		delta, ok := skb.TryCoalesce(to, from)
		require.True(t, ok)
		require.Equal(t, kernel.PageSize, delta)
		from.Free()
	}
	require.Equal(t, 12000, to.Len)
	require.Equal(t, 832+3*kernel.PageSize, to.Truesize)
	require.Equal(t, 832, to.Head)
	to.Free()
	skbtest.NoViolations(t, f.H)
}

// A cloned source (over loopback, the clone of an skb its sender still
// holds) is merged too: its frags stay with the skb it shares them with,
// and each page gains the tail's reference (__skb_frag_ref), so the
// pages outlive the sender's skb and the clone.
func TestCoalesceClonedSource(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	to := rxSkb(f.H, 4000)
	orig := rxSkb(f.H, 4000)
	p := orig.Shinfo().Frags[0].Page
	from, _ := orig.Clone()
	delta, ok := skb.TryCoalesce(to, from)
	require.True(t, ok)
	require.Equal(t, kernel.PageSize, delta)
	require.Equal(t, 8000, to.Len)
	require.Len(t, orig.Shinfo().Frags, 1, "the sender's skb keeps its frag")
	skbtest.Pages(t, skbtest.PageRef{Page: p, Refs: 2})
	from.Free()
	orig.Free()
	skbtest.Pages(t, skbtest.PageRef{Page: p, Refs: 1})
	to.Free()
	skbtest.NoViolations(t, f.H)
}

// Seed 000, "sock: skb_copy_ubufs support for compound pages": "These
// skbuffs can have both kernel and zerocopy fragments, e.g., when corking.
// Avoid unnecessary copying of fragments that have no userspace
// reference": a frag whose page_count is 1 is kept ("goto copy_done"),
// each other one copied into a page of its own. Merged kernels copy and
// re-pack every frag.
func TestCopyUbufsKeepsPrivateFrags(t *testing.T) {
	for _, tt := range []struct {
		profile string
		kept    bool
	}{{"rfc-v2", true}, {"linux-6.18", false}} {
		f := newFixture(t, tt.profile)
		b, u := f.zc(t, 0, 2*kernel.PageSize)
		own := mm.AllocPages(f.H, 0)
		b.AppendPageFrag(own, 0, 100)
		own.Put() // the skb holds its only reference: page_count 1
		users := []*mm.Page{b.Shinfo().Frags[0].Page, b.Shinfo().Frags[1].Page}
		require.Zero(t, b.OrphanFragsRx(kernel.CopyLoopback))
		fr := b.Shinfo().Frags
		require.Len(t, fr, 3, tt.profile)
		require.Equal(t, tt.kept, fr[len(fr)-1].Page == own, tt.profile)
		for _, p := range users {
			for _, g := range fr {
				require.NotSame(t, p, g.Page, "%s: a user page is still a frag", tt.profile)
			}
		}
		require.True(t, u.Freed(), tt.profile)
		b.Free()
	}
}
