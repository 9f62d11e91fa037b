package mm

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/zcsim/zcsim/kernel"
)

// pageSlab and pagePtrSlab hold a Host's pages and its buffers' lists
// of present pages.
var pageSlab, pagePtrSlab = kernel.SlabSlot[Page](), kernel.SlabSlot[*Page]()

// Page is a struct page, or the head of a compound page of 2^Order pages,
// with its reference count.
//
// Ownership: a kernel page starts with one reference owned by whoever
// allocated it and is freed when the count reaches zero. A user page starts
// with one reference owned by the user's mapping (Buffer), dropped only by
// Unmap; pinning it for a frag (get_user_pages) takes another. A page is
// "in flight" while something besides its mapping references it.
type Page struct {
	kernel.Tracked
	// Order is the compound order: the page spans PAGE_SIZE << Order bytes.
	Order int
	// User marks a page of user memory.
	User bool
	// Unmapped marks a user page whose mapping is gone (munmap): only
	// the pins of the network stack still hold it.
	Unmapped bool
	refs     int
	// frags counts the frags of live shared infos on the page (AttachFrag).
	frags int
	// index is a user page's position in its Buffer.
	index int
}

// Frags returns how many frags of live shared infos are on the page: the
// references the page's refcount must cover besides its mapping's.
func (p *Page) Frags() int { return p.frags }

// AttachFrag and DetachFrag keep Frags: the skb package calls them at every
// operation that puts a frag of a live shared info on the page or takes one
// off (skb_fill_page_desc, the frags' moves and trims, the release of the
// shared info), so that the invariant checks read the count where it is
// kept instead of counting the frags of every shared info. They change no
// refcount: the caller takes or drops the frag's page reference itself,
// before it attaches the frag. A page left with fewer references than its
// mapping and frags hold is listed (Uncovered).
func (p *Page) AttachFrag() {
	p.frags++
	if p.refs < p.floor()+p.frags {
		p.uncovered()
	}
}

// DetachFrag is AttachFrag's inverse.
func (p *Page) DetachFrag() { p.frags-- }

// Mapped reports whether a process's mapping holds the page: a user page
// not yet unmapped.
func (p *Page) Mapped() bool { return p.User && !p.Unmapped }

// Size returns the bytes the page spans.
func (p *Page) Size() int { return kernel.PageSize << p.Order }

// Refs returns the reference count.
func (p *Page) Refs() int { return p.refs }

// InFlight reports whether a user page is referenced by anything besides its
// mapping, or a kernel page by anything at all.
func (p *Page) InFlight() bool {
	if p.Mapped() {
		return p.refs > 1
	}
	return p.refs > 0
}

// String renders the page as "upage#4(user,order 0,refs 2)".
func (p *Page) String() string {
	kind := "kernel"
	if p.User {
		kind = "user"
	}
	return fmt.Sprintf("%v(%s,order %d,refs %d)", p.Ident(), kind, p.Order, p.refs)
}

// AllocPages models alloc_pages(order) (with __GFP_COMP when order > 0): a
// kernel page with one reference.
func AllocPages(h *kernel.Host, order int) *Page {
	p := pageSlab.Of(h).New()
	p.Order, p.refs = order, 1
	h.Track(&p.Tracked, "page", p)
	return p
}

// Get models get_page.
func (p *Page) Get() {
	if !p.CheckLive("get_page") {
		return
	}
	if p.refs <= 0 {
		p.Violate(kernel.RuleRefcount, "get_page with refcount %d", p.refs)
		return
	}
	p.refs++
}

// Put models put_page: the last reference frees a kernel page. Dropping a
// user page's mapping reference is a violation.
func (p *Page) Put() {
	if !p.CheckLive("put_page") {
		return
	}
	floor := p.floor()
	if p.refs <= floor {
		p.Violate(kernel.RuleRefcount, "put_page with refcount %d (underflow)", p.refs)
		return
	}
	p.refs--
	switch {
	case p.refs == 0:
		p.Free()
	case p.refs < floor+p.frags:
		p.uncovered()
	}
}

// floor is the reference the page's mapping holds: 1 while mapped.
func (p *Page) floor() int {
	if p.Mapped() {
		return 1
	}
	return 0
}

// uncoveredSlot is where a Host keeps its uncoveredPages.
var uncoveredSlot = kernel.NewSlot[uncoveredPages]()

// uncoveredPages lists the pages put_page or AttachFrag left with fewer
// references than their mapping and frags hold since the last
// ClearUncovered, while the Host keeps its touched list. The page
// refcount invariant can only break where the count falls or a frag is
// added: freeing notes the page, neither of these does. A page may be
// listed while an operation has yet to take a frag off it or move one (the
// check at the step's end finds it whole), but the skb package takes
// frags off their pages before it drops their references, and takes a
// reference before it adds a frag.
type uncoveredPages struct{ pages []*Page }

func (p *Page) uncovered() {
	if h := p.Host(); h.KeepTouched {
		l := uncoveredSlot.Of(h)
		l.pages = append(l.pages, p)
	}
}

// Uncovered returns the pages put_page or AttachFrag left with fewer
// references than their mapping and frags hold (Frags) since the last
// ClearUncovered, while h.KeepTouched is set, in that order, a page once
// each time: with the objects h lists as touched, what an incremental
// check of the page refcounts examines. The slice is valid until
// ClearUncovered.
func Uncovered(h *kernel.Host) []*Page { return uncoveredSlot.Of(h).pages }

// ClearUncovered starts a new list for Uncovered.
func ClearUncovered(h *kernel.Host) {
	l := uncoveredSlot.Of(h)
	clear(l.pages)
	l.pages = l.pages[:0]
}

// bufferSlab holds a Host's user buffers.
var bufferSlab = kernel.SlabSlot[Buffer]()

// Buffer is a region of user memory, as a process passes it to send: an
// anonymous mapping of whole pages, base pages or with Order > 0 compound
// (huge) pages of PAGE_SIZE << Order bytes each.
//
// Pages are faulted in lazily, as the kernel's are: a page exists (is
// tracked, holds its mapping's reference) only once something pins or
// reads it (Page, or an Iter chunk over it), so mapping a gigabyte that a
// send never reaches costs O(1). A page's identity is fixed when the
// buffer is mapped: the i-th page is "upage#(first+i)" whenever it is
// faulted in, as if every page had been built at once.
//
// Ownership: the mapping holds one reference on each present page until
// Unmap. The zero value is an empty mapping.
type Buffer struct {
	// Order is the compound order of the buffer's pages.
	Order int
	// Head is what the program wrote at the start of the buffer, as far
	// as the model knows it (nil: nothing is known of its contents), for
	// a send path that reads its payload: raw_send_hdrinc's IP header.
	Head  []byte
	host  *kernel.Host
	n     int    // pages in the mapping
	first uint64 // serial of page 0
	// present holds the pages faulted in, in address order; it and the
	// pages are carved from the Host's slabs.
	present  []*Page
	unmapped bool
}

// presentChunk is how many present slots the first growth of the present
// list adds at least.
const presentChunk = 64

// NewBuffer maps size bytes of user memory starting at a page boundary.
func NewBuffer(h *kernel.Host, size int) *Buffer { return NewHugeBuffer(h, size, 0) }

// NewHugeBuffer maps size bytes of user memory backed by compound pages of
// the given order, as a MAP_HUGETLB or transparent-huge-page mapping is
// (order 9 is 2 MiB on x86-64). __zerocopy_sg_from_iter describes such
// memory with one frag per compound page (offsets from compound_head), so
// one skb's MAX_SKB_FRAGS frags can hold far more than 68 KiB: the skbs
// of BIG TCP that bug B15 needed. No page is faulted in yet.
func NewHugeBuffer(h *kernel.Host, size, order int) *Buffer {
	psize := kernel.PageSize << order
	n := (size + psize - 1) / psize
	b := bufferSlab.Of(h).New()
	*b = Buffer{Order: order, host: h, n: n, first: h.Reserve(n)}
	return b
}

// PageSize returns the bytes each of the buffer's pages spans.
func (b *Buffer) PageSize() int { return kernel.PageSize << b.Order }

// Len returns the size of the buffer in bytes.
func (b *Buffer) Len() int { return b.n * b.PageSize() }

// NumPages returns how many pages the mapping spans, present or not.
func (b *Buffer) NumPages() int { return b.n }

// Page returns the i-th page of the buffer, faulting it in (one reference,
// the mapping's) if it is not present yet: what get_user_pages or a
// copy_from_user does to a page not yet touched. After Unmap only a page
// that was present is returned; one never faulted in no longer exists, and
// neither does an index outside the mapping: both are nil.
func (b *Buffer) Page(i int) *Page {
	if i < 0 || i >= b.n {
		return nil
	}
	// A send faults its pages in in address order: the new page is most
	// often the last one, or past it.
	at, k := len(b.present), len(b.present)
	switch {
	case k > 0 && b.present[k-1].index == i:
		return b.present[k-1]
	case k > 0 && b.present[k-1].index > i:
		var found bool
		at, found = slices.BinarySearchFunc(b.present, i, func(p *Page, i int) int { return cmp.Compare(p.index, i) })
		if found {
			return b.present[at]
		}
	}
	if b.unmapped {
		return nil
	}
	p := pageSlab.Of(b.host).New()
	*p = Page{User: true, Order: b.Order, refs: 1, index: i}
	b.host.TrackReserved(&p.Tracked, "upage", b.first+uint64(i), p)
	if k == cap(b.present) {
		// Room for the pages a send will reach next.
		grown := pagePtrSlab.Of(b.host).Carve(k + min(b.n-k, max(k, presentChunk)))
		b.present = append(grown, b.present...)
	}
	if at == k {
		b.present = append(b.present, p)
	} else {
		b.present = slices.Insert(b.present, at, p)
	}
	return p
}

// Present returns the pages faulted in so far, in address order. The
// slice is the buffer's own: the caller must not modify it.
func (b *Buffer) Present() []*Page { return b.present }

// Pages faults in every page of the buffer and returns them in address
// order, as Present then does; for small buffers (tests, a ring), since
// it costs a page per PAGE_SIZE << Order bytes.
func (b *Buffer) Pages() []*Page {
	for i := range b.n {
		b.Page(i)
	}
	return b.present
}

// Unmap models munmap of the buffer: each present page loses its
// mapping's reference and is freed, unless the network stack still pins
// it, in which case the last put_page frees it. Pages never faulted in
// simply cease to exist.
func (b *Buffer) Unmap() {
	b.unmapped = true
	for _, p := range b.present {
		if p.Unmapped || p.Freed() {
			continue
		}
		p.Unmapped = true
		p.refs--
		if p.refs == 0 {
			p.Free()
		}
	}
}

// InFlight returns the pages still referenced by the network stack. A
// page never faulted in was never pinned, so only present pages are
// examined.
func (b *Buffer) InFlight() []*Page {
	var out []*Page
	for _, p := range b.present {
		if p.InFlight() {
			out = append(out, p)
		}
	}
	return out
}
