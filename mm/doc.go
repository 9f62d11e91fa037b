// Package mm models the memory zcsim's skbs point at: struct page with its
// reference count, compound pages, and the user memory a process lends to
// MSG_ZEROCOPY sends.
//
// # Model
//
// A Page is a kernel page (alloc_pages, freed by its last put_page) or a
// user page, held by the process's mapping until Buffer.Unmap (munmap) and
// then only by the pins of the network stack; Mapped tells the two apart.
// A Buffer is page-aligned user memory, an anonymous mapping whose pages
// are faulted in on first touch: mapping it reserves the identities of all
// its pages and builds none, and a page is built (and tracked) only when
// the send path peeks at it to pin or copy it, so a call costs the pages
// it reaches, not the length it names. Pinning a user page for an skb frag
// (get_user_pages in __zerocopy_sg_from_iter) is a Get; unref'ing the frag
// (skb_frag_unref) is a Put.
//
// # Invariants
//
// A page's count never goes below its floor (1 for a mapped user page, 0
// for a kernel or unmapped user page) nor up from zero; a page is freed
// exactly once, when its count reaches zero. Every misuse is reported to the page's kernel.Host as
// a violation of kernel.RuleRefcount, never a panic.
//
// # Linux correspondence
//
// get_page, put_page, alloc_pages (with __GFP_COMP for order > 0),
// pin_user_pages / iov_iter_get_pages, handle_mm_fault of an anonymous
// page on first access (Buffer.Page), munmap; iov_iter_count and
// iov_iter_advance (Iter).
package mm
