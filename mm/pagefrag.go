package mm

import "github.com/zcsim/zcsim/kernel"

// FragPageOrder is SKB_FRAG_PAGE_ORDER: the 32 KiB compound pages a page
// frag hands out.
const FragPageOrder = 3

// PageFrag is struct page_frag as sk_page_frag_refill uses it: the kernel
// page that copied payload is appended to, and the offset of its free
// space. It owns one reference on the page. The zero value has no page.
type PageFrag struct {
	Page *Page
	Off  int
}

// Refill models skb_page_frag_refill(32, pfrag): reuse the page from the
// start if nothing else references it, keep it while 32 bytes are left,
// else drop it and allocate a fresh compound page.
func (f *PageFrag) Refill(h *kernel.Host) {
	if f.Page != nil {
		if f.Page.Refs() == 1 {
			f.Off = 0
			return
		}
		if f.Off+32 <= f.Page.Size() {
			return
		}
		f.Page.Put()
	}
	f.Page, f.Off = AllocPages(h, FragPageOrder), 0
}

// Release drops the page (sk_destruct's put_page of sk_frag).
func (f *PageFrag) Release() {
	if f.Page != nil {
		f.Page.Put()
	}
	*f = PageFrag{}
}
