package mm

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

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
}

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
	p := &Page{Order: order, refs: 1}
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
	floor := 0
	if p.Mapped() {
		floor = 1
	}
	if p.refs <= floor {
		p.Violate(kernel.RuleRefcount, "put_page with refcount %d (underflow)", p.refs)
		return
	}
	p.refs--
	if p.refs == 0 {
		p.Free()
	}
}

// Buffer is a region of user memory, as a process passes it to send: whole
// pages, each held by the process's mapping. The pages are base pages, or
// with Order > 0 compound (huge) pages of PAGE_SIZE << Order bytes each.
type Buffer struct {
	Pages []*Page
	Order int
}

// NewBuffer maps size bytes of user memory starting at a page boundary.
func NewBuffer(h *kernel.Host, size int) *Buffer { return NewHugeBuffer(h, size, 0) }

// NewHugeBuffer maps size bytes of user memory backed by compound pages of
// the given order, as a MAP_HUGETLB or transparent-huge-page mapping is
// (order 9 is 2 MiB on x86-64). __zerocopy_sg_from_iter describes such
// memory with one frag per compound page (offsets from compound_head), so
// one skb's MAX_SKB_FRAGS frags can hold far more than 68 KiB: the skbs
// of BIG TCP that bug B15 needed.
func NewHugeBuffer(h *kernel.Host, size, order int) *Buffer {
	psize := kernel.PageSize << order
	n := (size + psize - 1) / psize
	b := &Buffer{Pages: make([]*Page, n), Order: order}
	for i := range b.Pages {
		p := &Page{User: true, Order: order, refs: 1}
		h.Track(&p.Tracked, "upage", p)
		b.Pages[i] = p
	}
	return b
}

// PageSize returns the bytes each of the buffer's pages spans.
func (b *Buffer) PageSize() int { return kernel.PageSize << b.Order }

// Len returns the size of the buffer in bytes.
func (b *Buffer) Len() int { return len(b.Pages) * b.PageSize() }

// Unmap models munmap of the buffer: each page loses its mapping's
// reference and is freed, unless the network stack still pins it, in which
// case the last put_page frees it.
func (b *Buffer) Unmap() {
	for _, p := range b.Pages {
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

// InFlight returns the pages still referenced by the network stack.
func (b *Buffer) InFlight() []*Page {
	var out []*Page
	for _, p := range b.Pages {
		if p.InFlight() {
			out = append(out, p)
		}
	}
	return out
}
