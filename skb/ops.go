package skb

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
)

// IsCloned models skb_cloned: the skb was cloned and its shared info is
// still shared.
func (b *Buff) IsCloned() bool { return b.Cloned && b.shinfo.dataref != 1 }

// Clone models skb_clone: skb_orphan_frags first (a no-op for msg_zerocopy
// skbs, which carry SKBFL_DONT_ORPHAN), then a new sk_buff sharing the
// shared info (dataref++): no new uarg or page reference. The clone has no
// owner. It fails (ENOMEM) only if orphaning fails.
func (b *Buff) Clone() (*Buff, kernel.Errno) {
	if !b.CheckLive("skb_clone") {
		return nil, kernel.EINVAL
	}
	if err := b.OrphanFrags(); err != 0 {
		return nil, kernel.ENOMEM
	}
	n := newBuff(b.Host(), Buff{Len: b.Len, DataLen: b.DataLen, LinearCap: b.LinearCap, Truesize: b.Truesize, Head: b.Head,
		Cloned: true, Segs: b.Segs, users: 1, shinfo: b.shinfo})
	b.Cloned = true
	b.shinfo.dataref++
	n.Note(kernel.Entry{Op: kernel.OpClone, Holder: b.Ident(), Before: int64(b.shinfo.dataref - 1), After: int64(b.shinfo.dataref)})
	b.Note(kernel.Entry{Op: kernel.OpClonedAs, Holder: n.Ident()})
	return n, 0
}

// Copy models pskb_copy (__pskb_copy_fclone): a new skb with a private copy
// of the linear part and a private shared info whose frags reference the
// same pages (get_page each). Only when there are frags does it orphan them
// and give the copy its own uarg reference (skb_orphan_frags, then
// skb_zerocopy_clone): a frag-less zerocopy skb is copied without its uarg.
// Of the shared info's other fields skb_copy_header takes only the GSO
// ones: the copy asks for no transmit timestamp (TxFlags).
func (b *Buff) Copy() (*Buff, kernel.Errno) {
	hasFrags := len(b.shinfo.Frags) > 0
	if hasFrags {
		if err := b.OrphanFrags(); err != 0 {
			return nil, kernel.ENOMEM
		}
	}
	n := Alloc(b.Host(), b.HeadLen())
	n.Len, n.DataLen, n.Segs = b.Len, b.DataLen, b.Segs
	n.shinfo.GSOSize = b.shinfo.GSOSize
	n.shinfo.Flags = b.shinfo.Flags &^ kernel.SKBFL_ALL_ZEROCOPY
	n.shinfo.shareData(b.shinfo)
	n.Truesize, n.Head = b.Truesize, b.Head
	if hasFrags {
		if err := ZerocopyClone(n, b, true); err != 0 {
			n.Free()
			return nil, err
		}
	}
	n.Note(kernel.Entry{Op: kernel.OpPskbCopy, Holder: b.Ident()})
	return n, 0
}

// shareData gives s, a fresh shared info, the frags and frag_list of old,
// taking a reference on each frag page (skb_frag_ref) and each frag_list
// skb (skb_clone_fraglist), as pskb_copy and pskb_expand_head do.
func (s *SharedInfo) shareData(old *SharedInfo) {
	for _, f := range old.Frags {
		f.Page.Get()
		s.AddFrag(f)
	}
	for _, l := range old.FragList {
		l.Get()
		s.FragList = append(s.FragList, l)
	}
}

// ExpandHead models pskb_expand_head. For a cloned skb it makes the shared
// info private: skb_orphan_frags, then a copy that takes a reference on
// every frag page, every frag_list skb and the uarg (net_zcopy_get), and
// skb_release_data on the old, still shared one; the rest of the shared
// info (TxFlags, Tskey) is copied with it. For an unshared skb the head
// just moves and no count changes.
func (b *Buff) ExpandHead() kernel.Errno {
	if !b.IsCloned() {
		b.Cloned = false
		return 0
	}
	if err := b.OrphanFrags(); err != 0 {
		return kernel.ENOMEM
	}
	old := b.shinfo
	s := newShinfo(b.Host())
	s.Flags, s.GSOSize, s.NoUarg = old.Flags, old.GSOSize, old.NoUarg
	s.TxFlags, s.Tskey = old.TxFlags, old.Tskey
	s.shareData(old)
	if u := b.Zcopy(); u != nil {
		u.Get(s.Ident())
		s.Uarg = u
	}
	b.releaseData()
	old.skbs--
	b.shinfo = s
	s.skbs++
	b.Cloned = false
	b.Note(kernel.Entry{Op: kernel.OpExpandHead, Holder: s.Ident()})
	return 0
}

// Split models skb_split(skb, skb1, len) as tcp_fragment uses it: keep the
// first n bytes in b and move the rest into a new skb, splitting a frag that
// straddles n (both halves then reference its page). The new skb inherits
// SKBFL_SHARED_FRAG and gets its own uarg reference (skb_zerocopy_clone
// without gfp).
// Preconditions: 0 < n < b.Len; b is not cloned.
func (b *Buff) Split(n int) (*Buff, kernel.Errno) {
	if n <= 0 || n >= b.Len {
		return nil, kernel.EINVAL
	}
	rest := b.Len - n
	b1 := Alloc(b.Host(), max(0, b.HeadLen()-n))
	s, s1 := b.shinfo, b1.shinfo
	if n < b.HeadLen() {
		// Split inside the linear part: the tail of it and all frags move.
		b1.Len, b1.DataLen = rest, b.DataLen
		moved := s.Frags
		s.SetFrags(nil)
		s1.SetFrags(moved)
		b.Len, b.DataLen = n, 0
	} else {
		pos := b.HeadLen()
		frags := fragSlab.Of(b.Host())
		var keep, moved []Frag
		for _, f := range s.Frags {
			switch {
			case pos+f.Size <= n:
				keep = frags.Append(keep, f)
			case pos >= n:
				moved = frags.Append(moved, f)
			default:
				head := n - pos
				f.Page.Get()
				keep = frags.Append(keep, Frag{Page: f.Page, Off: f.Off, Size: head})
				moved = frags.Append(moved, Frag{Page: f.Page, Off: f.Off + head, Size: f.Size - head})
			}
			pos += f.Size
		}
		s.SetFrags(keep) // off the pages' counts before b1's frags count on them
		s1.SetFrags(moved)
		b1.Len, b1.DataLen = rest, rest
		b.Len, b.DataLen = n, b.DataLen-rest
	}
	s1.Flags |= s.Flags & (kernel.SKBFL_SHARED_FRAG | kernel.SKBFL_PURE_ZEROCOPY)
	if err := ZerocopyClone(b1, b, false); err != 0 {
		return b1, err
	}
	b.Note(kernel.Entry{Op: kernel.OpSplit, Holder: b1.Ident(), Args: [4]int64{int64(n)}})
	return b1, 0
}

// TrimHead models __pskb_trim_head as tcp_trim_head uses it on an skb
// the peer acknowledged in part: drop the first n bytes, the linear
// area's first, then whole frags (each putting its page) and the front
// of the frag that straddles n. It returns the frag bytes dropped, the
// truesize tcp_trim_head takes off the skb and sk_wmem_queued.
// Preconditions: 0 < n < b.Len; b is not cloned.
func (b *Buff) TrimHead(n int) int {
	lin := min(n, b.HeadLen())
	b.Len -= lin
	b.LinearCap -= lin
	eat := n - lin
	frags := b.shinfo.Frags
	b.shinfo.SetFrags(nil) // off the pages' counts before their references go
	k := 0
	for _, f := range frags {
		if f.Size <= eat {
			eat -= f.Size
			f.Page.Put()
			continue
		}
		f.Off += eat
		f.Size -= eat
		eat = 0
		frags[k] = f
		k++
	}
	b.shinfo.SetFrags(frags[:k])
	b.Len -= n - lin
	b.DataLen -= n - lin
	return n - lin
}

// Segment models skb_segment for a GSO skb without frag_list: orphan the
// head skb's frags first (v6.6 order, 2ea35288c83b), then cut its payload
// into segments of mss bytes. Each segment's head is allocated as large
// as the head skb's headroom and its part of the linear area
// (__alloc_skb(hsize + doffset + headroom)), and its truesize grows by
// the frag bytes it holds (nskb->truesize += nskb->data_len): over
// loopback a segment costs its receiver what an skb the sender built
// would. Each segment's frags reference the pages (get_page) and each
// segment takes its own uarg reference (skb_zerocopy_clone). b itself is untouched; the caller frees it.
// Under kernel.BugSegmentStaleFrags the frags are read before orphaning.
func (b *Buff) Segment(mss int) ([]*Buff, kernel.Errno) {
	if mss <= 0 || len(b.shinfo.FragList) > 0 {
		return nil, kernel.EINVAL
	}
	frags := b.shinfo.Frags
	stale := b.Host().Profile.Bugs.Has(kernel.BugSegmentStaleFrags)
	if err := b.OrphanFrags(); err != 0 {
		return nil, kernel.ENOMEM
	}
	if !stale {
		frags = b.shinfo.Frags
	}
	var segs []*Buff
	head := b.HeadLen()
	reserve := max(b.Head-Truesize(b.LinearCap), 0)
	fi, foff := 0, 0
	for off := 0; off < b.Len; off += mss {
		n := min(mss, b.Len-off)
		lin := min(max(head-off, 0), n)
		seg := Alloc(b.Host(), lin)
		seg.Truesize += reserve
		seg.Head += reserve
		seg.Len = n
		for need := n - lin; need > 0 && fi < len(frags); {
			f := frags[fi]
			take := min(need, f.Size-foff)
			if !f.Page.CheckLive("skb_segment frag") {
				break
			}
			f.Page.Get()
			seg.shinfo.AddFrag(Frag{Page: f.Page, Off: f.Off + foff, Size: take})
			seg.DataLen += take
			need -= take
			if foff += take; foff == f.Size {
				fi, foff = fi+1, 0
			}
		}
		seg.Truesize += seg.DataLen
		seg.shinfo.Flags |= b.shinfo.Flags & kernel.SKBFL_SHARED_FRAG
		if err := ZerocopyClone(seg, b, true); err != 0 {
			seg.Free()
			freeAll(segs)
			return nil, err
		}
		segs = append(segs, seg)
	}
	b.Note(kernel.Entry{Op: kernel.OpSegment, Args: [4]int64{int64(mss), int64(len(segs))}})
	return segs, 0
}

func freeAll(skbs []*Buff) {
	for _, s := range skbs {
		s.Free()
	}
}

// Shift models skb_shift(tgt, skb, n): move exactly n bytes from the front
// of b's frags to the end of tgt's, or nothing (it returns 0). A first frag
// that continues tgt's last one on the same page (skb_can_coalesce) extends
// it, its own page reference dropped once it is wholly merged; a frag that
// straddles n is split, both halves referencing its page. It refuses a
// zerocopy skb on either side, a source with linear data, and a shift that
// would leave tgt more than MAX_SKB_FRAGS frags. The bytes' truesize moves
// with them (skb_len_add), and so does SKBFL_SHARED_FRAG.
func Shift(tgt, b *Buff, n int) int {
	if n <= 0 || n > b.Len || b.HeadLen() > 0 || tgt.IsZcopy() || b.IsZcopy() {
		return 0
	}
	s, t := b.shinfo, tgt.shinfo
	first := s.Frags[0]
	merge := tgt.CanCoalesce(first.Page, first.Off)
	if merge && n < first.Size {
		t.Frags[len(t.Frags)-1].Size += n
		s.Frags[0].Off += n
		s.Frags[0].Size -= n
		shiftLen(tgt, b, n)
		return n
	}
	from, todo := 0, n
	if merge {
		from, todo = 1, n-first.Size
	}
	need := 0
	for i, left := from, todo; left > 0; i++ {
		need++
		left -= s.Frags[i].Size
	}
	if len(t.Frags)+need > kernel.MaxSkbFrags {
		return 0
	}
	start := from
	var cut Frag // the front of a frag that straddles n, which tgt takes
	for todo > 0 {
		f := s.Frags[from]
		if todo < f.Size {
			f.Page.Get()
			cut = Frag{Page: f.Page, Off: f.Off, Size: todo}
			s.Frags[from].Off += todo
			s.Frags[from].Size -= todo
			break
		}
		todo -= f.Size
		from++
	}
	moved := s.Frags[start:from]
	s.SetFrags(s.Frags[from:]) // off the pages' counts before tgt's frags count on them
	for _, f := range moved {
		t.AddFrag(f)
	}
	if cut.Page != nil {
		t.AddFrag(cut)
	}
	if merge {
		t.Frags[len(t.Frags)-1-need].Size += first.Size
		first.Page.Put()
	}
	shiftLen(tgt, b, n)
	return n
}

// shiftLen moves n bytes of paged length and their truesize from b to
// tgt (skb_len_add), with SKBFL_SHARED_FRAG, and notes the shift on both.
func shiftLen(tgt, b *Buff, n int) {
	tgt.Note(kernel.Entry{Op: kernel.OpShift, Holder: b.Ident(), Args: [4]int64{int64(n)}})
	b.Note(kernel.Entry{Op: kernel.OpShift, Holder: tgt.Ident(), Args: [4]int64{int64(n), 1}})
	tgt.shinfo.Flags |= b.shinfo.Flags & kernel.SKBFL_SHARED_FRAG
	tgt.Len, tgt.DataLen, tgt.Truesize = tgt.Len+n, tgt.DataLen+n, tgt.Truesize+n
	b.Len, b.DataLen, b.Truesize = b.Len-n, b.DataLen-n, b.Truesize-n
}

// TryCoalesce models skb_try_coalesce(to, from) on a receive queue: if from's
// payload fits in to's tailroom it is copied there (delta 0); otherwise
// from's frags are appended to to's, which is refused when either skb is
// zerocopy, has a frag_list, or to is cloned, and to takes from's truesize
// less its head (delta: from->truesize - SKB_TRUESIZE(skb_end_offset),
// which tcp_try_coalesce charges to the socket). A cloned from (over
// loopback, the clone of an skb its sender still holds) keeps its frags
// and each page gains a reference (__skb_frag_ref); otherwise the
// references move. On success the caller frees from (kfree_skb_partial).
func TryCoalesce(to, from *Buff) (delta int, ok bool) {
	if to.IsCloned() {
		return 0, false
	}
	if from.Len <= to.Tailroom() {
		to.Len += from.Len
		return 0, true
	}
	if len(to.shinfo.FragList) > 0 || len(from.shinfo.FragList) > 0 ||
		to.IsZcopy() || from.IsZcopy() || from.HeadLen() > 0 ||
		len(to.shinfo.Frags)+len(from.shinfo.Frags) > kernel.MaxSkbFrags {
		return 0, false
	}
	moved := from.shinfo.Frags
	if from.IsCloned() {
		for _, f := range moved {
			f.Page.Get()
		}
	} else {
		from.shinfo.SetFrags(nil) // off the pages' counts before to's frags count on them
	}
	for _, f := range moved {
		to.shinfo.AddFrag(f)
	}
	to.shinfo.Flags |= from.shinfo.Flags & kernel.SKBFL_SHARED_FRAG
	to.Len, to.DataLen = to.Len+from.DataLen, to.DataLen+from.DataLen
	from.Len, from.DataLen = 0, 0
	delta = from.Truesize - from.Head
	to.Truesize += delta
	to.Note(kernel.Entry{Op: kernel.OpCoalesce, Holder: from.Ident(), Args: [4]int64{int64(delta)}})
	return delta, true
}

// OrphanFrags models skb_orphan_frags: nothing for an skb that is not
// zerocopy or whose uarg asks not to be orphaned (SKBFL_DONT_ORPHAN, every
// msg_zerocopy uarg); otherwise skb_copy_ubufs (legacy ubufs and nouarg
// PF_PACKET ring frames get a private copy), for reason kernel.CopyOrphan.
func (b *Buff) OrphanFrags() kernel.Errno {
	b.nouargDeref("skb_orphan_frags")
	if !b.IsZcopy() || (!b.shinfo.NoUarg && b.shinfo.Flags&kernel.SKBFL_DONT_ORPHAN != 0) {
		return 0
	}
	return b.CopyUbufs(kernel.CopyOrphan)
}

// OrphanFragsRx models skb_orphan_frags_rx: any zerocopy skb that may loop
// into a receive path (loopback, veth, tun, packet taps, the TX timestamp
// clone) gets a private copy of its frags, and its uarg reports COPIED.
// why names the caller's path (kernel.CopyLoopback, CopyTun, CopyTap, …).
func (b *Buff) OrphanFragsRx(why kernel.CopyWhy) kernel.Errno {
	if !b.IsZcopy() {
		return 0
	}
	return b.CopyUbufs(why)
}

// CopyUbufs models skb_copy_ubufs: replace the user frags by kernel pages
// holding a copy, then drop the uarg reference with success false (COPIED)
// and clear the zerocopy flags. A shared skb (users > 1) cannot be changed
// (EINVAL); a cloned one is first made private (skb_unclone, that is
// pskb_expand_head, which takes a uarg reference for the new shared info;
// EINVAL if that fails). The copy uses the
// smallest page order that fits MAX_SKB_FRAGS where the profile has
// CopyUbufsHighOrder, order 0 otherwise. If the page allocation fails
// (fault site skb_copy_ubufs) it returns ENOMEM and changes nothing.
//
// why names the caller's path; the history entry and the uarg record it.
func (b *Buff) CopyUbufs(why kernel.CopyWhy) kernel.Errno {
	if b.users > 1 {
		return kernel.EINVAL
	}
	if err := b.ExpandHead(); err != 0 {
		return kernel.EINVAL
	}
	h := b.Host()
	s := b.shinfo
	if len(s.Frags) == 0 {
		if h.Profile.Bugs.Has(kernel.BugCopyUbufsNoFrags) {
			return 0
		}
		b.zcopyClear(false, why)
		return 0
	}
	if h.Profile.CopyUbufsKeepPrivate {
		return b.copyUbufsPerFrag(why)
	}
	pagelen := 0
	for _, f := range s.Frags {
		pagelen += f.Size
	}
	order := 0
	if h.Profile.CopyUbufsHighOrder && !h.Profile.Bugs.Has(kernel.BugCopyUbufsOrder0) {
		for (kernel.PageSize<<order)*kernel.MaxSkbFrags < pagelen {
			order++
		}
	}
	psize := kernel.PageSize << order
	count := (pagelen + psize - 1) / psize
	if count > kernel.MaxSkbFrags {
		b.Violate(kernel.RuleBounds, "skb_copy_ubufs needs %d frags of %d bytes for %d bytes: more than MAX_SKB_FRAGS", count, psize, pagelen)
	}
	if h.Fail(kernel.FaultCopyUbufs) {
		b.Note(kernel.Entry{Op: kernel.OpCopyUbufsFailed, Args: [4]int64{int64(why)}})
		return kernel.ENOMEM
	}
	copies := fragSlab.Of(h).Carve(count)
	for left := pagelen; left > 0; left -= psize {
		copies = append(copies, Frag{Page: mm.AllocPages(h, order), Size: min(left, psize)})
	}
	user := s.Frags
	s.SetFrags(copies)
	for _, f := range user {
		f.Page.Put()
	}
	b.Note(kernel.Entry{Op: kernel.OpCopyUbufs, Args: [4]int64{int64(pagelen), int64(count), int64(order), int64(why)}})
	b.zcopyClear(false, why)
	return 0
}

// copyUbufsPerFrag is the RFC v2's skb_copy_ubufs (Profile.CopyUbufsKeepPrivate):
// frag by frag, a kernel page no one else references (page_count 1: only
// this skb's reference) is kept, as "Avoid unnecessary copying of
// fragments that have no userspace reference"; every other frag is copied
// into a page of its own, compound when the frag spans more than a page
// (get_order(f->size)). The frag count does not change, so no bound can be
// outgrown. A user page always counts as referenced: the model forgets a
// call's buffer when the call returns (sim's send calls unmap it), which a
// program waiting for its notification does not do, so its page_count
// would be 2 or more. If the allocation fails (fault site skb_copy_ubufs) it returns
// ENOMEM and changes nothing.
func (b *Buff) copyUbufsPerFrag(why kernel.CopyWhy) kernel.Errno {
	h := b.Host()
	if h.Fail(kernel.FaultCopyUbufs) {
		b.Note(kernel.Entry{Op: kernel.OpCopyUbufsFailed, Args: [4]int64{int64(why)}})
		return kernel.ENOMEM
	}
	copied, count := 0, 0
	for i, f := range b.shinfo.Frags {
		if !f.Page.User && f.Page.Refs() == 1 {
			continue
		}
		order := 0
		for kernel.PageSize<<order < f.Size {
			order++
		}
		b.shinfo.setFrag(i, Frag{Page: mm.AllocPages(h, order), Size: f.Size})
		f.Page.Put()
		copied += f.Size
		count++
	}
	b.Note(kernel.Entry{Op: kernel.OpCopyUbufs, Args: [4]int64{int64(copied), int64(count), 0, int64(why)}})
	b.zcopyClear(false, why)
	return 0
}

// Zerocopy models skb_zerocopy(to, from, len, hlen) (openvswitch upcalls,
// nfqueue): copy hlen bytes into to's linear part and share from's frags for
// the rest (get_page each), after orphaning from's frags (ENOMEM); to then
// takes its own reference on from's uarg (skb_zerocopy_clone; EIO).
func Zerocopy(to, from *Buff, n, hlen int) kernel.Errno {
	if err := from.OrphanFrags(); err != 0 {
		return kernel.ENOMEM
	}
	to.Len += hlen
	pos, need := from.HeadLen(), n-hlen
	for _, f := range from.shinfo.Frags {
		if need <= 0 {
			break
		}
		if pos+f.Size <= hlen {
			pos += f.Size
			continue
		}
		start := max(0, hlen-pos)
		take := min(f.Size-start, need)
		f.Page.Get()
		to.shinfo.AddFrag(Frag{Page: f.Page, Off: f.Off + start, Size: take})
		to.Len, to.DataLen = to.Len+take, to.DataLen+take
		need -= take
		pos += f.Size
	}
	return ZerocopyClone(to, from, true)
}

// PullTail models __pskb_pull_tail(skb, delta): copy delta bytes of frag data
// into the linear part (making the head private first if it is cloned or
// too small), dropping frags that were consumed. When no frag data is left
// the skb is linear and skb_zcopy_clear(skb, false) reports the copy: this
// is how a device without scatter-gather, or a software checksum, produces
// COPIED.
func (b *Buff) PullTail(delta int) kernel.Errno {
	if delta > b.DataLen {
		return kernel.EINVAL
	}
	if delta > b.Tailroom() || b.IsCloned() {
		if err := b.ExpandHead(); err != 0 {
			return kernel.ENOMEM
		}
		grown := max(b.LinearCap, b.HeadLen()+delta+128)
		if owner, _ := b.Owner(); owner == nil {
			// pskb_expand_head grows truesize only for an unowned skb,
			// whose charge no destructor will return.
			b.Truesize += grown - b.LinearCap
			b.Head += grown - b.LinearCap
		}
		b.LinearCap = grown
	}
	s := b.shinfo
	eat := delta
	var keep, eaten []Frag
	for _, f := range s.Frags {
		switch {
		case eat >= f.Size:
			eat -= f.Size
			eaten = append(eaten, f)
		case eat > 0:
			keep = append(keep, Frag{Page: f.Page, Off: f.Off + eat, Size: f.Size - eat})
			eat = 0
		default:
			keep = append(keep, f)
		}
	}
	s.SetFrags(keep) // off the pages' counts before their references go
	for _, f := range eaten {
		f.Page.Put()
	}
	b.DataLen -= delta
	b.Note(kernel.Entry{Op: kernel.OpPullTail, Args: [4]int64{int64(delta), int64(b.DataLen)}})
	if b.DataLen == 0 {
		b.zcopyClear(false, kernel.CopyPullTail)
	}
	return 0
}

// Linearize models skb_linearize: pull every frag into the linear part.
func (b *Buff) Linearize() kernel.Errno { return b.PullTail(b.DataLen) }

// TxError models skb_tx_error, a driver dropping an skb it failed to send:
// complete the uarg with success, unless the skb is a clone, whose shared
// info (and zerocopy state) others still use. Under kernel.BugTxErrorClone
// the clone guard is missing.
func (b *Buff) TxError() {
	if b.IsCloned() && !b.Host().Profile.Bugs.Has(kernel.BugTxErrorClone) {
		return
	}
	b.zcopyClear(true, kernel.NotCopied)
}
