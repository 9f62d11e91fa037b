package skb_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

const zcFlags = kernel.SKBFL_ZEROCOPY_ENABLE | kernel.SKBFL_SHARED_FRAG | kernel.SKBFL_DONT_ORPHAN

var call = skbtest.Call(1)

// fixture is one TCP socket sending from one user buffer.
type fixture struct {
	*skbtest.Env
	sk  *sock.Sock
	buf *mm.Buffer
}

func newFixture(t testing.TB, profile string, bugs ...kernel.Bug) *fixture {
	e := skbtest.NewEnv(t, profile, bugs...)
	return &fixture{Env: e, sk: e.TCP(), buf: mm.NewBuffer(e.H, 32*kernel.PageSize)}
}

// zc returns a frag-only skb holding n bytes of the buffer from offset off
// and the uarg of the send, whose only reference is then the skb's (the
// call's temporary reference is dropped, as tcp_sendmsg does at out).
func (f *fixture) zc(t testing.TB, off, n int) (*skb.Buff, *ubuf.Info) {
	t.Helper()
	u, out := ubuf.Alloc(f.H, f.sk, f.Task, uint32(n), call)
	require.Equal(t, ubuf.Allocated, out)
	b := skb.Alloc(f.H, 0)
	got, err := b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Off: off, Len: n}), n, u, call)
	require.Zero(t, err)
	require.Equal(t, n, got)
	u.Complete(call, true)
	return b, u
}

// kernelSkb returns an skb with one frag of each of the given kernel pages
// (whose own references are dropped, so the skb holds the only ones).
func kernelSkb(h *kernel.Host, pages ...*mm.Page) *skb.Buff {
	b := skb.Alloc(h, 0)
	for _, p := range pages {
		b.AppendPageFrag(p, 0, p.Size())
		p.Put()
	}
	return b
}

func TestTruesize(t *testing.T) {
	for _, tt := range []struct{ linear, want int }{{0, 576}, {1, 640}, {64, 640}, {65, 704}, {1500, 2112}} {
		require.Equal(t, tt.want, skb.Truesize(tt.linear), "linear %d", tt.linear)
	}
}

func TestAlloc(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 100)
	skbtest.CheckSkb(t, b, skbtest.Skb{Truesize: 704, Users: 1, Dataref: 1})
	require.Equal(t, 100, b.Tailroom())
	require.Equal(t, 0, b.HeadLen())
	require.Nil(t, b.Zcopy())
	require.False(t, b.IsZcopy())
	o, d := b.Owner()
	require.Nil(t, o)
	require.Equal(t, skb.NoDestructor, d)
	require.Equal(t, fmt.Sprintf("%v[len 0 frags 0]", b.Ident()), b.String())
	b.Free()
	require.True(t, b.Freed())
	require.True(t, b.Shinfo().Freed())
	b.Free()
	skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleRefcount, Object: b.Ident(), Message: "kfree_skb after free"})
}

func TestZerocopyFromIter(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	skbtest.CheckSkb(t, b, skbtest.Skb{Len: 8192, DataLen: 8192, Truesize: 576 + 2*4096, Users: 1, Dataref: 1,
		Flags: zcFlags, Uarg: u.Ident(), Frags: skbtest.FragsOf(f.buf.Pages(), 4096, 4096)})
	skbtest.Refs(t, u, 1, b.Shinfo().Ident())
	skbtest.BufferRefs(t, f.buf, append([]int{2, 2}, ones(30)...)...)
	f.pageRefs(t, 2, 2, 1)
	require.Equal(t, fmt.Sprintf("%v[len 8192 frags 2 %v]", b.Ident(), u.Ident()), b.String())
	require.Equal(t, []*mm.Page{f.buf.Page(0), f.buf.Page(1)}, b.AppendPages(nil))
	skbtest.NoViolations(t, f.H)
}

func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

func TestZerocopyFromIterUnaligned(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, _ := f.zc(t, 100, 8192)
	pg := f.buf.Pages()
	want := []skbtest.Frag{skbtest.F(pg[0], 100, 3996), skbtest.F(pg[1], 0, 4096), skbtest.F(pg[2], 0, 100)}
	got := skbtest.SkbOf(b)
	require.Equal(t, want, got.Frags)
	require.Equal(t, 576+3*4096, got.Truesize, "each page chunk adds a full page")
}

func TestZerocopyFromIterIovecs(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 400, call)
	b := skb.Alloc(f.H, 0)
	// Two iovecs back to back in one page share a frag
	// (__zerocopy_sg_from_iter compares the page and offset only).
	it := mm.NewIter(mm.Iovec{Buf: f.buf, Off: 0, Len: 100}, mm.Iovec{Buf: f.buf, Off: 100, Len: 300})
	n, err := b.ZerocopyFromIter(it, 100, u, call)
	require.Equal(t, 100, n)
	require.Zero(t, err)
	n, err = b.ZerocopyFromIter(it, 150, u, call)
	require.Equal(t, 150, n)
	require.Zero(t, err)
	n, _ = b.ZerocopyFromIter(it, 150, u, call)
	require.Equal(t, 150, n)
	pg := f.buf.Page(0)
	require.Equal(t, []skbtest.Frag{skbtest.F(pg, 0, 400)}, skbtest.SkbOf(b).Frags)
	// Every call pins a page's worth (PAGE_ALIGN(copied + start)), even
	// when it continues a frag, so truesize never falls below len.
	require.Equal(t, 576+3*4096, b.Truesize)
	skbtest.Pages(t, skbtest.PageRef{Page: pg, Refs: 2})
	skbtest.Refs(t, u, 2, call, b.Shinfo().Ident())
	// An iovec that does not start where the last one ended starts a
	// frag of its own, in the same page too.
	apart := skb.Alloc(f.H, 0)
	it = mm.NewIter(mm.Iovec{Buf: f.buf, Off: 1000, Len: 100}, mm.Iovec{Buf: f.buf, Off: 1132, Len: 100})
	n, _ = apart.ZerocopyFromIter(it, 200, u, call)
	require.Equal(t, 200, n)
	require.Equal(t, []skbtest.Frag{skbtest.F(pg, 1000, 100), skbtest.F(pg, 1132, 100)}, skbtest.SkbOf(apart).Frags)
}

// Before v5.10 (Profile.ZerocopyCombinePages off) every base page chunk
// is a frag of its own: iovecs back to back do not share one, nor do the
// base pages of a huge page.
func TestZerocopyFromIterUncombined(t *testing.T) {
	f := newFixture(t, "linux-5.0")
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 1<<20, call)
	b := skb.Alloc(f.H, 0)
	it := mm.NewIter(mm.Iovec{Buf: f.buf, Off: 0, Len: 100}, mm.Iovec{Buf: f.buf, Off: 100, Len: 300})
	n, _ := b.ZerocopyFromIter(it, 400, u, call)
	require.Equal(t, 400, n)
	pg := f.buf.Page(0)
	require.Equal(t, []skbtest.Frag{skbtest.F(pg, 0, 100), skbtest.F(pg, 100, 300)}, skbtest.SkbOf(b).Frags)
	huge := mm.NewHugeBuffer(f.H, 1<<21, 9)
	hb := skb.Alloc(f.H, 0)
	n, _ = hb.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: huge, Off: 0, Len: 3 * kernel.PageSize}), 3*kernel.PageSize, u, call)
	require.Equal(t, 3*kernel.PageSize, n)
	require.Len(t, hb.Shinfo().Frags, 3)
}

// A full skb takes nothing more, not even bytes that would continue its
// last frag: the MAX_SKB_FRAGS check opens each batch of pinned pages.
func TestZerocopyFromIterFullSkbContiguous(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	var iov []mm.Iovec
	for i := range kernel.MaxSkbFrags {
		iov = append(iov, mm.Iovec{Buf: f.buf, Off: i * kernel.PageSize, Len: 1})
	}
	iov = append(iov, mm.Iovec{Buf: f.buf, Off: (kernel.MaxSkbFrags-1)*kernel.PageSize + 1, Len: 1})
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, uint32(len(iov)), call)
	b := skb.Alloc(f.H, 0)
	n, err := b.ZerocopyFromIter(mm.NewIter(iov...), len(iov), u, call)
	require.Equal(t, kernel.MaxSkbFrags, n)
	require.Zero(t, err)
	require.Equal(t, 1, skbtest.SkbOf(b).Frags[kernel.MaxSkbFrags-1].Size)
}

// In compound pages the last frag's first batch pins one base page
// (iov_iter_get_pages2's maxpages is MAX_SKB_FRAGS less the frags used),
// and then the skb is full: it ends at that base page's end.
func TestZerocopyFromIterLastFragHuge(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	huge := mm.NewHugeBuffer(f.H, kernel.MaxSkbFrags<<21, 9)
	var iov []mm.Iovec
	for i := range kernel.MaxSkbFrags {
		iov = append(iov, mm.Iovec{Buf: huge, Off: i<<21 + 100, Len: 3 * kernel.PageSize})
	}
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 1<<20, call)
	b := skb.Alloc(f.H, 0)
	n, err := b.ZerocopyFromIter(mm.NewIter(iov...), 1<<20, u, call)
	require.Zero(t, err)
	require.Equal(t, (kernel.MaxSkbFrags-1)*3*kernel.PageSize+kernel.PageSize-100, n)
}

// TestZerocopyFromIterMaxFrags: 18 one-byte iovecs fill 17 frags, then the
// next call gets EMSGSIZE (packetdrill maxfrags.pkt).
func TestZerocopyFromIterMaxFrags(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	var iov []mm.Iovec
	for i := range 18 {
		iov = append(iov, mm.Iovec{Buf: f.buf, Off: i * kernel.PageSize, Len: 1})
	}
	it := mm.NewIter(iov...)
	u, _ := ubuf.Alloc(f.H, f.sk, f.Task, 18, call)
	b := skb.Alloc(f.H, 0)
	n, err := b.ZerocopyFromIter(it, 18, u, call)
	require.Equal(t, 17, n, "partial")
	require.Zero(t, err)
	n, err = b.ZerocopyFromIter(it, 1, u, call)
	require.Equal(t, 0, n)
	require.Equal(t, kernel.EMSGSIZE, err)
	require.Len(t, b.Shinfo().Frags, kernel.MaxSkbFrags)
	require.Equal(t, 1, it.Count())
	require.Equal(t, 576+17*4096, b.Truesize)
	skbtest.Pages(t, skbtest.PageRef{Page: f.buf.Page(16), Refs: 2}, skbtest.PageRef{Page: f.buf.Page(17), Refs: 1})
}

func TestZerocopyFromIterOtherUarg(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u1 := f.zc(t, 0, 100)
	u2, _ := ubuf.Alloc(f.H, f.sk, f.Task, 100, call)
	before := skbtest.SkbOf(b)
	n, err := b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: f.buf, Len: 100}), 100, u2, call)
	require.Equal(t, 0, n)
	require.Equal(t, kernel.EEXIST, err)
	skbtest.CheckSkb(t, b, before)
	skbtest.Refs(t, u1, 1, b.Shinfo().Ident())
	skbtest.Refs(t, u2, 1, call)
}

func TestFree(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	owner := &skbtest.Owner{}
	b.SetOwner(owner, skb.WmemQueued)
	b.Get()
	b.Free()
	require.False(t, b.Freed(), "one user left")
	require.Empty(t, owner.Uncharges)
	b.Free()
	require.True(t, b.Freed())
	require.Equal(t, []skbtest.Uncharge{{D: skb.WmemQueued, Truesize: 576 + 8192}}, owner.Uncharges)
	require.True(t, u.Freed(), "the last dataref completes the uarg")
	skbtest.BufferRefs(t, f.buf, ones(32)...)
	require.False(t, f.sk.ErrQueue.Records()[0].Copied())
	skbtest.Live(t, f.H, map[string]int{"sock": 1, "upage": 32})
	b.Get()
	skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleRefcount, Object: b.Ident(), Message: "skb_get after free"})
}

func TestOwner(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 0)
	o := &skbtest.Owner{}
	b.SetOwner(o, skb.SockWfree)
	got, d := b.Owner()
	require.Same(t, o, got)
	require.Equal(t, skb.SockWfree, d)
	b.SetOwner(o, skb.SockRfree)
	skbtest.Violations(t, f.H, skbtest.Violation{Rule: kernel.RuleAccounting, Object: b.Ident(), Message: "set owner while owned (sock_wfree)"})
	b.Orphan()
	require.Equal(t, []skbtest.Uncharge{{D: skb.SockRfree, Truesize: 576}}, o.Uncharges)
	b.Orphan()
	b.Free()
	require.Len(t, o.Uncharges, 1, "an orphan is uncharged once")

	var names []string
	for d := skb.NoDestructor; d <= skb.WmemQueued; d++ {
		names = append(names, d.String())
	}
	require.Equal(t, []string{"none", "sock_wfree", "sock_rfree", "sock_ofree", "wmem_queued"}, names)
	require.Equal(t, "destructor 9", skb.Destructor(9).String())
}

func TestClone(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b, u := f.zc(t, 0, 8192)
	b.SetOwner(&skbtest.Owner{}, skb.WmemQueued)
	c, err := b.Clone()
	require.Zero(t, err)
	want := skbtest.Skb{Len: 8192, DataLen: 8192, Truesize: 576 + 8192, Users: 1, Dataref: 2, Cloned: true,
		Flags: zcFlags, Uarg: u.Ident(), Frags: skbtest.FragsOf(f.buf.Pages(), 4096, 4096)}
	skbtest.CheckSkb(t, b, want)
	skbtest.CheckSkb(t, c, want)
	require.Same(t, b.Shinfo(), c.Shinfo())
	o, _ := c.Owner()
	require.Nil(t, o, "a clone has no owner")
	require.Equal(t, fmt.Sprintf("%v[len 8192 frags 2 %v cloned]", c.Ident(), u.Ident()), c.String())
	skbtest.Refs(t, u, 1, b.Shinfo().Ident())
	f.pageRefs(t, 2, 2, 1)

	c.Free()
	require.Equal(t, 1, b.Shinfo().Dataref())
	require.False(t, b.IsCloned(), "dataref 1: no longer shared")
	require.False(t, u.Freed())
	b.Free()
	require.True(t, u.Freed())
	f.pageRefs(t, 1, 1)
	skbtest.NoViolations(t, f.H)
}

// pageRefs checks the reference counts of the buffer's first pages.
func (f *fixture) pageRefs(t testing.TB, refs ...int) {
	t.Helper()
	var want []skbtest.PageRef
	for i, r := range refs {
		want = append(want, skbtest.PageRef{Page: f.buf.Page(i), Refs: r})
	}
	skbtest.Pages(t, want...)
}

// AllocHead sizes a head as kmalloc_reserve does: from
// skb_small_head_cache up to its size on 6.18, else the kmalloc bucket;
// the truesizes of Linux 6.18's ICMP errors over loopback
// (probe/testdata/icmp-truesize.zcs).
func TestAllocHead(t *testing.T) {
	for _, c := range []struct {
		profile        string
		size, truesize int
	}{
		{"linux-6.18", 187, 832},  // a 156-byte ICMP error: 512 ≤ 576
		{"linux-6.18", 256, 832},  // the largest small head
		{"linux-6.18", 257, 1280}, // 640: the 1024 bucket
		{"linux-6.18", 607, 1280}, // a 576-byte ICMP error
		{"linux-6.18", 1304, 2304},
		{"linux-5.0", 187, 768}, // no small-head cache: the 512 bucket
	} {
		p, err := kernel.Lookup(c.profile)
		require.NoError(t, err)
		b := skb.AllocHead(kernel.NewHost(p), c.size)
		require.Equal(t, c.truesize, b.Truesize, "%s %d", c.profile, c.size)
		require.Equal(t, c.truesize, b.Head)
		b.Free()
	}
}
