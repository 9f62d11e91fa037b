package skb

import (
	"fmt"
	"math/bits"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/ubuf"
)

// Overhead is SKB_TRUESIZE(0) on x86_64: the sk_buff and the
// skb_shared_info, each cache-aligned (256 + 320 bytes).
const (
	Overhead   = 576
	shinfoSize = 320
)

// Truesize models SKB_TRUESIZE(linear): what an skb with a linear area of
// linear bytes costs its socket before any frag is added.
func Truesize(linear int) int { return Overhead + align(linear, 64) }

func align(n, a int) int { return (n + a - 1) / a * a }

// fragSlab, sharedInfoSlab and buffSlab hold a Host's frag arrays,
// shared infos and skbs.
var fragSlab, sharedInfoSlab, buffSlab = kernel.SlabSlot[Frag](), kernel.SlabSlot[SharedInfo](), kernel.SlabSlot[Buff]()

// Frag is an skb_frag_t: len bytes at offset off of a page. The frag owns one
// reference on the page.
type Frag struct {
	Page *mm.Page
	Off  int
	Size int
}

// SharedInfo is struct skb_shared_info, the part of an skb's data that
// clones share.
//
// Ownership: it lives in the head buffer and has Dataref references, one per
// skb (original or clone) that uses it. It owns one reference on each frag's
// page, one reference on Uarg (destructor_arg) unless NoUarg, and each skb in
// FragList.
type SharedInfo struct {
	kernel.Tracked
	dataref int
	// skbs counts the live sk_buffs that use it: kept where an skb is
	// made on it, moves off it and is freed, it is what dataref must
	// equal (SharedInfo.Skbs).
	skbs     int
	Frags    []Frag
	Flags    kernel.SkbFlags
	Uarg     *ubuf.Info
	NoUarg   bool
	FragList []*Buff
	GSOSize  int
	// TxFlags are the transmit timestamps the packet asks for, and Tskey
	// the key they report (tx_flags, tskey).
	TxFlags kernel.SkbTx
	Tskey   uint32
}

func newShinfo(h *kernel.Host) *SharedInfo {
	s := sharedInfoSlab.Of(h).New()
	s.dataref = 1
	h.Track(&s.Tracked, "shinfo", s)
	return s
}

// AddFrag appends f to the frags, growing them in the Host's slab
// (skb_fill_page_desc without the page reference, which the caller
// takes or hands on). With SetFrags it is the only way to change which
// pages the frags are on: both keep the pages' frag counts
// (mm.Page.Frags), which the invariant checks read.
func (s *SharedInfo) AddFrag(f Frag) {
	s.Frags = fragSlab.Of(s.Host()).Append(s.Frags, f)
	if !s.Freed() {
		f.Page.AttachFrag()
	}
}

// SetFrags replaces the frags by fr (which may share storage with them),
// moving the pages' frag counts from the old frags to the new; page
// references are the caller's to take or drop.
func (s *SharedInfo) SetFrags(fr []Frag) {
	if !s.Freed() {
		for _, f := range s.Frags {
			f.Page.DetachFrag()
		}
		for _, f := range fr {
			f.Page.AttachFrag()
		}
	}
	s.Frags = fr
}

// setFrag replaces frag i by f.
func (s *SharedInfo) setFrag(i int, f Frag) {
	if !s.Freed() {
		s.Frags[i].Page.DetachFrag()
		f.Page.AttachFrag()
	}
	s.Frags[i] = f
}

// Free frees the shared info: its frags stop counting on their pages
// (whatever references they still own, which the page refcount check
// then no longer covers).
func (s *SharedInfo) Free() {
	if !s.Freed() {
		for _, f := range s.Frags {
			f.Page.DetachFrag()
		}
	}
	s.Tracked.Free()
}

// Skbs returns how many live sk_buffs use the shared info: what Dataref
// counts when every skb_clone, pskb_expand_head and release took or
// dropped its reference.
func (s *SharedInfo) Skbs() int { return s.skbs }

// newBuff returns a new sk_buff of h, n's fields but the Tracked ones,
// tracked, and counted as a user of its shared info.
func newBuff(h *kernel.Host, n Buff) *Buff {
	b := buffSlab.Of(h).New()
	*b = n
	h.Track(&b.Tracked, "skb", b)
	b.shinfo.skbs++
	return b
}

// Dataref returns the number of skbs sharing this shared info.
func (s *SharedInfo) Dataref() int { return s.dataref }

// Destructor says which socket counter an skb's truesize is charged to and
// which destructor returns it.
type Destructor uint8

// Destructors.
const (
	NoDestructor Destructor = iota
	// SockWfree: sk_wmem_alloc (skb_set_owner_w, sock_wfree, tcp_wfree).
	SockWfree
	// SockRfree: sk_rmem_alloc (skb_set_owner_r, sock_rfree).
	SockRfree
	// SockOfree: sk_omem_alloc (sock_omalloc, sock_ofree).
	SockOfree
	// WmemQueued: TCP's sk_wmem_queued for skbs on the write and
	// retransmit queues (sk_wmem_free_skb).
	WmemQueued
)

var destructorNames = [...]string{"none", "sock_wfree", "sock_rfree", "sock_ofree", "wmem_queued"}

// String names the destructor.
func (d Destructor) String() string {
	if int(d) < len(destructorNames) {
		return destructorNames[d]
	}
	return fmt.Sprintf("destructor %d", d)
}

// Owner is the socket an skb's truesize is charged to. Uncharge returns the
// charge when the skb is orphaned or freed.
type Owner interface {
	Uncharge(d Destructor, truesize int)
}

// Buff is a struct sk_buff.
//
//	head ──────── data ───────── tail ─────── end ┬ skb_shared_info
//	  headroom   │ linear: Len-DataLen│ tailroom   │ Frags[0..nr_frags): DataLen
//	                                             │ FragList, destructor_arg
//
// The model keeps lengths, not bytes: Len is the total payload, DataLen the
// part in frags (and frag_list), so the linear part is Len-DataLen bytes of
// LinearCap.
//
// Ownership: a new Buff has one user (Users). Clone returns a second Buff
// that shares the SharedInfo; Copy-like operations return Buffs with their
// own. Free drops a user; the last one runs the destructor and releases the
// data (skb_release_data), which drops the shared info's reference when its
// Dataref reaches zero.
type Buff struct {
	kernel.Tracked
	Len, DataLen int
	LinearCap    int
	Truesize     int
	// Head is the part of Truesize the head buffer accounts for,
	// SKB_TRUESIZE(skb_end_offset): the rest is frag pages.
	Head   int
	Cloned bool
	// Segs is the number of segments a GSO skb becomes (gso_segs).
	Segs int
	// RxTstamp is the software receive timestamp net_timestamp_check gave
	// the skb as it entered the receiving host's stack (skb->tstamp).
	RxTstamp kernel.RxStamp

	users      int
	shinfo     *SharedInfo
	owner      Owner
	destructor Destructor
}

// Alloc models alloc_skb(linear): one user, a private shared info, no
// frags, truesize SKB_TRUESIZE(linear).
func Alloc(h *kernel.Host, linear int) *Buff {
	b := newBuff(h, Buff{LinearCap: linear, Truesize: Truesize(linear), Head: Truesize(linear), users: 1, shinfo: newShinfo(h)})
	b.Note(kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{int64(linear)}})
	return b
}

// AllocHead models __alloc_skb of size bytes of head as kmalloc_reserve
// sizes it: the object, SKB_HEAD_ALIGN(size), comes from
// skb_small_head_cache when it fits Profile.SkbSmallHead, else from the
// kmalloc bucket it rounds up to (kmalloc_size_roundup: a power of two
// at these sizes); the truesize is SKB_TRUESIZE of the object less the
// shared info. Linux 6.18's ICMP errors over loopback have these
// truesizes (probe/testdata/icmp-truesize.zcs).
func AllocHead(h *kernel.Host, size int) *Buff {
	b := Alloc(h, size)
	b.Truesize = HeadSize(h, size) + Overhead
	b.Head = b.Truesize
	return b
}

// HeadSize is the room __alloc_skb gives a head of size bytes before the
// shared info (skb_end_offset): the object kmalloc_reserve sizes, as
// AllocHead says, less struct skb_shared_info.
func HeadSize(h *kernel.Host, size int) int {
	obj := align(size, 64) + shinfoSize
	if small := h.Profile.SkbSmallHead; obj <= small {
		obj = small
	} else {
		obj = 1 << bits.Len(uint(obj-1))
	}
	return obj - shinfoSize
}

// Reserve models the headroom an allocation includes before skb_reserve
// hands it to the headers (tcp_stream_alloc_skb allocates MAX_TCP_HEADER
// more than its linear area): the head, and so the truesize, grow by
// headroom rounded to the cache line, and no payload fits there.
func (b *Buff) Reserve(headroom int) {
	grown := Truesize(b.LinearCap+headroom) - Truesize(b.LinearCap)
	b.Truesize += grown
	b.Head += grown
}

// Shinfo returns the shared info.
func (b *Buff) Shinfo() *SharedInfo { return b.shinfo }

// Users returns skb->users.
func (b *Buff) Users() int { return b.users }

// HeadLen returns skb_headlen: the payload in the linear part.
func (b *Buff) HeadLen() int { return b.Len - b.DataLen }

// Tailroom returns the linear space left.
func (b *Buff) Tailroom() int { return b.LinearCap - b.HeadLen() }

// Zcopy models skb_zcopy: the uarg, or nil (also for nouarg skbs).
func (b *Buff) Zcopy() *ubuf.Info {
	if b.shinfo.Flags&kernel.SKBFL_ZEROCOPY_ENABLE == 0 || b.shinfo.NoUarg {
		return nil
	}
	return b.shinfo.Uarg
}

// IsZcopy reports SKBFL_ZEROCOPY_ENABLE, true for nouarg skbs too.
func (b *Buff) IsZcopy() bool { return b.shinfo.Flags&kernel.SKBFL_ZEROCOPY_ENABLE != 0 }

// Owner returns the socket the skb is charged to and how.
func (b *Buff) Owner() (Owner, Destructor) { return b.owner, b.destructor }

// SetOwner models skb_set_owner_w/_r and friends: the caller has charged
// Truesize to o's counter for d; the destructor returns it.
// Precondition: the skb has no owner.
func (b *Buff) SetOwner(o Owner, d Destructor) {
	if b.owner != nil {
		b.Violate(kernel.RuleAccounting, "set owner while owned (%v)", b.destructor)
	}
	b.owner, b.destructor = o, d
}

// Orphan models skb_orphan: run the destructor now.
func (b *Buff) Orphan() {
	if b.owner != nil {
		b.owner.Uncharge(b.destructor, b.Truesize)
		b.owner, b.destructor = nil, NoDestructor
	}
}

// String renders the skb for a timeline: "skb#7[len 4096 frags 1 uarg#3]".
func (b *Buff) String() string {
	s := fmt.Sprintf("%v[len %d frags %d", b.Ident(), b.Len, len(b.shinfo.Frags))
	if u := b.Zcopy(); u != nil {
		s += " " + u.Ident().String()
	}
	if b.Cloned {
		s += " cloned"
	}
	return s + "]"
}

// Get models skb_get: another user of the same skb.
func (b *Buff) Get() {
	if b.CheckLive("skb_get") {
		b.users++
	}
}

// Free models kfree_skb and consume_skb: drop a user; the last one runs the
// destructor and releases the data.
func (b *Buff) Free() {
	if !b.CheckLive("kfree_skb") {
		return
	}
	b.users--
	if b.users > 0 {
		return
	}
	b.Orphan()
	b.releaseData()
	b.shinfo.skbs--
	b.Tracked.Free()
}

// releaseData models skb_release_data: drop this skb's reference on the
// shared info; the last one completes the uarg with success (skb_zcopy_clear
// (skb, true)), unrefs the frags and frees the frag_list.
func (b *Buff) releaseData() {
	s := b.shinfo
	s.dataref--
	b.Note(kernel.Entry{Op: kernel.OpReleaseData, Before: int64(s.dataref + 1), After: int64(s.dataref)})
	if s.dataref > 0 {
		return
	}
	if s.dataref < 0 {
		b.Violate(kernel.RuleRefcount, "shared info dataref %d (underflow)", s.dataref)
		return
	}
	b.zcopyClear(true, kernel.NotCopied)
	frags := s.Frags
	s.SetFrags(nil) // off the pages' counts before their references go
	for _, f := range frags {
		f.Page.Put()
	}
	for _, l := range s.FragList {
		l.Free()
	}
	s.FragList = nil
	s.Free()
}

// AppendPages appends the pages the skb's frags reference, frag_list
// included, to dst and returns the extended slice.
func (b *Buff) AppendPages(dst []*mm.Page) []*mm.Page {
	for _, f := range b.shinfo.Frags {
		dst = append(dst, f.Page)
	}
	for _, l := range b.shinfo.FragList {
		dst = l.AppendPages(dst)
	}
	return dst
}
