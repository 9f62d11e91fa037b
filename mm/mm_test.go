package mm_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
)

func host(t *testing.T) *kernel.Host { return skbtest.NewEnv(t, kernel.DefaultProfile).H }

func TestKernelPage(t *testing.T) {
	h := host(t)
	p := mm.AllocPages(h, 2)
	require.Equal(t, 16384, p.Size())
	require.Equal(t, 1, p.Refs())
	require.True(t, p.InFlight(), "a kernel page is in flight while referenced at all")
	require.Equal(t, "page#1(kernel,order 2,refs 1)", p.String())

	p.Get()
	require.Equal(t, 2, p.Refs())
	p.Put()
	p.Put()
	require.True(t, p.Freed(), "the last put_page frees a kernel page")
	require.Empty(t, h.Live())
	skbtest.NoViolations(t, h)

	p.Put()
	p.Get()
	skbtest.Violations(t, h,
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: p.Ident(), Message: "put_page after free"},
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: p.Ident(), Message: "get_page after free"},
	)
	require.Equal(t, 0, p.Refs(), "misuse is reported, never applied")
}

func TestUserPageFloor(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 5000)
	require.Len(t, b.Pages(), 2)
	require.Equal(t, 8192, b.Len())
	u := b.Page(1)
	require.Equal(t, "upage#2(user,order 0,refs 1)", u.String())
	require.False(t, u.InFlight(), "the mapping's reference alone is not in flight")
	require.Empty(t, b.InFlight())

	u.Get()
	require.True(t, u.InFlight())
	require.Equal(t, []*mm.Page{u}, b.InFlight())
	u.Put()
	skbtest.NoViolations(t, h)

	u.Put() // would drop the mapping's reference
	skbtest.Violations(t, h, skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(),
		Message: "put_page with refcount 1 (underflow)"})
	require.Equal(t, 1, u.Refs())
	require.False(t, u.Freed(), "user pages are never freed by put_page")
	require.Len(t, h.Live(), 2)
}

// TestUnmap: munmap drops the mapping's reference. An unpinned page is
// freed at once; a pinned one is no longer Mapped, so its floor falls to 0
// and the network stack's last put_page frees it.
func TestUnmap(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 2*kernel.PageSize)
	idle, pinned := b.Page(0), b.Page(1)
	require.True(t, idle.Mapped())
	pinned.Get()
	b.Unmap()
	require.True(t, idle.Freed(), "an unpinned page goes with its mapping")
	require.False(t, pinned.Freed(), "the stack's pin keeps the page")
	require.False(t, pinned.Mapped())
	require.True(t, pinned.Unmapped)
	require.Equal(t, 1, pinned.Refs())
	require.True(t, pinned.InFlight(), "an unmapped page is in flight while pinned at all")
	require.Equal(t, []*mm.Page{pinned}, b.InFlight())

	b.Unmap()
	require.Equal(t, 1, pinned.Refs(), "a second munmap drops nothing")
	pinned.Put()
	require.True(t, pinned.Freed(), "the last put_page frees an unmapped page")
	require.Empty(t, h.Live())
	skbtest.NoViolations(t, h)

	k := mm.AllocPages(h, 0)
	require.False(t, k.Mapped(), "kernel pages are never mapped")
}

func TestNewBufferSizes(t *testing.T) {
	h := host(t)
	for _, tt := range []struct{ size, pages int }{{0, 0}, {1, 1}, {4096, 1}, {4097, 2}, {65536, 16}} {
		require.Equal(t, tt.pages, mm.NewBuffer(h, tt.size).NumPages(), "size %d", tt.size)
	}
}

// chunk is a Chunk as tests compare it.
type chunk struct {
	Page     string
	Off, Len int
}

// drain reads it in chunks of at most max bytes until it is exhausted.
func drain(it *mm.Iter, max int) []chunk {
	var out []chunk
	for range 1000 {
		c, ok := it.Peek(max)
		if !ok {
			break
		}
		out = append(out, chunk{c.Page.Ident().String(), c.Off, c.Len})
		it.Advance(c.Len)
	}
	return out
}

func TestIterChunks(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 4*kernel.PageSize) // upage#1 … upage#4
	it := mm.NewIter(
		mm.Iovec{Buf: b, Off: 4000, Len: 5000}, // 96 bytes of page 0, 4096 of page 1, 808 of page 2
		mm.Iovec{Buf: b, Off: 100, Len: 0},     // empty: skipped
		mm.Iovec{Buf: b, Off: 100, Len: 200},   // page 0 again, a new iovec
		mm.Iovec{Buf: b, Off: 3 * kernel.PageSize, Len: 4096},
	)
	require.Equal(t, 9296, it.Count())
	want := []chunk{
		{"upage#1", 4000, 96},
		{"upage#2", 0, 4096},
		{"upage#3", 0, 808},
		{"upage#1", 100, 200},
		{"upage#4", 0, 4096},
	}
	if d := cmp.Diff(want, drain(it, 1<<20)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	require.Equal(t, 0, it.Count())
	_, ok := it.Peek(100)
	require.False(t, ok)
}

func TestIterMaxAndAdvance(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 2*kernel.PageSize)
	it := mm.NewIter(mm.Iovec{Buf: b, Off: 0, Len: 6000}, mm.Iovec{Buf: b, Off: 7000, Len: 100})

	c, ok := it.Peek(1000)
	require.True(t, ok)
	require.Equal(t, mm.Chunk{Page: b.Page(0), Off: 0, Len: 1000}, c)
	c2, _ := it.Peek(1000)
	require.Equal(t, c, c2, "Peek does not consume")
	_, ok = it.Peek(0)
	require.False(t, ok, "max 0 yields nothing")

	it.Advance(1000)
	require.Equal(t, 5100, it.Count())
	want := []chunk{
		{"upage#1", 1000, 1500},
		{"upage#1", 2500, 1500},
		{"upage#1", 4000, 96},
		{"upage#2", 0, 1500},
		{"upage#2", 1500, 404},
		{"upage#2", 2904, 100},
	}
	if d := cmp.Diff(want, drain(it, 1500)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}

	it = mm.NewIter(mm.Iovec{Buf: b, Len: 100}, mm.Iovec{Buf: b, Off: 200, Len: 100})
	it.Advance(150) // across the iovec boundary
	require.Equal(t, 50, it.Count())
	c, _ = it.Peek(kernel.PageSize)
	require.Equal(t, mm.Chunk{Page: b.Page(0), Off: 250, Len: 50}, c)
	it.Advance(1 << 20) // more than is left: stops at the end
	require.Equal(t, 0, it.Count())

	var zero mm.Iter
	require.Equal(t, 0, zero.Count())
	_, ok = zero.Peek(10)
	require.False(t, ok)
	zero.Advance(10)
}

func ExampleIter() {
	p, _ := kernel.Lookup(kernel.DefaultProfile)
	h := kernel.NewHost(p)
	buf := mm.NewBuffer(h, 3*kernel.PageSize)
	// One iovec of 6000 bytes starting 1000 bytes into the buffer: the send
	// path pins it page chunk by page chunk.
	it := mm.NewIter(mm.Iovec{Buf: buf, Off: 1000, Len: 6000})
	for {
		c, ok := it.Peek(it.Count())
		if !ok {
			break
		}
		c.Page.Get() // get_user_pages
		fmt.Printf("%v off %d len %d\n", c.Page.Ident(), c.Off, c.Len)
		it.Advance(c.Len)
	}
	fmt.Println("in flight:", len(buf.InFlight()))
	// Output:
	// upage#1 off 1000 len 3096
	// upage#2 off 0 len 2904
	// in flight: 2
}

// A huge-page buffer yields one chunk per compound page, however large.
func TestHugeBufferChunks(t *testing.T) {
	h := host(t)
	b := mm.NewHugeBuffer(h, 3<<20, 9) // two 2 MiB pages
	require.Len(t, b.Pages(), 2)
	require.Equal(t, 2<<20, b.PageSize())
	require.Equal(t, 4<<20, b.Len())
	require.Equal(t, 9, b.Page(0).Order)
	require.True(t, b.Page(0).User)
	it := mm.NewIter(mm.Iovec{Buf: b, Off: 4096, Len: 3 << 20})
	want := []chunk{
		{"upage#1", 4096, 2<<20 - 4096},
		{"upage#2", 0, 1<<20 + 4096},
	}
	if d := cmp.Diff(want, drain(it, 1<<30)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	_, ok := mm.NewIter(mm.Iovec{Buf: b, Off: 4 << 20, Len: 1}).Peek(1)
	require.False(t, ok, "past the mapping: EFAULT")
}

// An iovec without a buffer, past its buffer or with a negative length
// yields nothing (the kernel's EFAULT), never a bad chunk.
func TestIterBadIovecs(t *testing.T) {
	h := host(t)
	buf := mm.NewBuffer(h, 4096)
	for _, iov := range []mm.Iovec{{Buf: nil, Len: 10}, {Buf: buf, Off: 8192, Len: 10}, {Buf: buf, Len: -5}} {
		_, ok := mm.NewIter(iov).Peek(100)
		require.False(t, ok, "%+v", iov)
	}
}

// TestBufferLazy: a mapping's pages exist only once touched, each with the
// identity it was given when the buffer was mapped; a gigabyte never
// touched costs nothing, and one touched in two places costs two pages.
func TestBufferLazy(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 1<<30)
	next := mm.AllocPages(h, 0) // the serial after the buffer's reservation
	require.Equal(t, 1<<18, b.NumPages())
	require.Equal(t, 1<<30, b.Len())
	require.Empty(t, b.Present())
	require.Len(t, h.Live(), 1, "only the kernel page exists")
	require.Equal(t, uint64(1<<18+1), next.Ident().Serial)

	last, first := b.Page(1<<18-1), b.Page(0)
	require.Equal(t, "upage#262144(user,order 0,refs 1)", last.String())
	require.Equal(t, "upage#1(user,order 0,refs 1)", first.String())
	require.Same(t, first, b.Page(0), "a present page is found, not faulted in again")
	require.Equal(t, []*mm.Page{first, last}, b.Present(), "address order")
	require.Nil(t, b.Page(-1))
	require.Nil(t, b.Page(1<<18))

	it := mm.NewIter(mm.Iovec{Buf: b, Off: 5 * kernel.PageSize, Len: 1 << 29})
	c, ok := it.Peek(100)
	require.True(t, ok)
	require.Equal(t, "upage#6", c.Page.Ident().String(), "peeking faults the page in")
	require.Len(t, b.Present(), 3)

	last.Get()
	require.Equal(t, []*mm.Page{last}, b.InFlight())
	b.Unmap()
	require.Nil(t, b.Page(7), "after munmap a page never touched does not exist")
	require.Same(t, last, b.Page(1<<18-1), "a pinned page outlives its mapping")
	_, ok = it.Peek(100)
	require.False(t, ok, "after munmap: EFAULT, even on a page that was present")
	last.Put()
	require.Equal(t, []kernel.ObjectID{next.Ident()}, h.Live())
	skbtest.NoViolations(t, h)
}

// TestBufferPages faults every page in, in address order.
func TestBufferPages(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 3*kernel.PageSize)
	mid := b.Page(1)
	all := b.Pages()
	require.Len(t, all, 3)
	require.Same(t, mid, all[1])
	require.Equal(t, "upage#1", all[0].Ident().String())
	require.Equal(t, all, b.Present())
}

// Truncate leaves at most n bytes, across iovecs and from a position
// inside one, and never changes the caller's iovecs.
func TestIterTruncate(t *testing.T) {
	b := mm.NewBuffer(host(t), 300)
	iov := []mm.Iovec{{Buf: b, Len: 100}, {Buf: b, Off: 100, Len: 200}}
	it := mm.NewIter(iov...)
	it.Advance(50)
	it.Truncate(120)
	require.Equal(t, 120, it.Count())
	it.Truncate(500)
	require.Equal(t, 120, it.Count(), "never grows")
	it.Truncate(0)
	require.Equal(t, 0, it.Count())
	require.Equal(t, 200, iov[1].Len)
}

// Byte reads the program's known bytes at the iterator's position, across
// iovecs, and nothing the program is not known to have written.
func TestIterByte(t *testing.T) {
	h := host(t)
	b := mm.NewBuffer(h, 100)
	it := mm.NewIter(mm.Iovec{Buf: b, Off: 0, Len: 0}, mm.Iovec{Buf: b, Off: 0, Len: 10})
	_, ok := it.Byte()
	require.False(t, ok, "no contents known")
	b.Head = []byte{0x45, 0x00}
	got, ok := it.Byte()
	require.True(t, ok)
	require.Equal(t, byte(0x45), got, "the empty iovec is skipped")
	it.Advance(1)
	got, ok = it.Byte()
	require.True(t, ok)
	require.Equal(t, byte(0), got)
	it.Advance(1)
	_, ok = it.Byte()
	require.False(t, ok, "past the known head")
	it.Advance(8)
	_, ok = it.Byte()
	require.False(t, ok, "exhausted")
}

// While the Host keeps its touched list, put_page and AttachFrag list a
// page they leave with fewer references than its mapping and frags hold,
// and only such a page: that is where the page refcount invariant breaks.
func TestUncoveredPages(t *testing.T) {
	prof, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	h := kernel.NewHost(prof)
	h.KeepTouched = true
	p := mm.AllocPages(h, 0)
	p.Get()
	p.AttachFrag()
	p.Put() // 1 reference for 1 frag: whole
	require.Empty(t, mm.Uncovered(h))
	p.Get()
	p.AttachFrag() // 2 references for 2 frags
	require.Empty(t, mm.Uncovered(h))
	p.AttachFrag() // without a reference of its own
	require.Equal(t, []*mm.Page{p}, mm.Uncovered(h), "2 references for 3 frags")
	mm.ClearUncovered(h)
	p.Put() // 1 reference for 3 frags
	require.Equal(t, []*mm.Page{p}, mm.Uncovered(h))
	mm.ClearUncovered(h)
	require.Empty(t, mm.Uncovered(h))
	require.Equal(t, 3, p.Frags())
	p.DetachFrag()
	p.DetachFrag()
	p.DetachFrag()
	p.Put() // freed: the free is noted, not listed
	require.Empty(t, mm.Uncovered(h))
	require.True(t, p.Freed())
}
