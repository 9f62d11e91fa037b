package skb

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/ubuf"
)

// ZcopySet models skb_zcopy_set(skb, uarg, have_ref): attach uarg to the
// skb's shared info unless it already has one (an skb points at one uarg
// only, and then nothing happens). If *haveRef, the reference held by from
// is handed over and *haveRef becomes false; otherwise a new one is taken.
// The uarg's flags are ORed into the shared info.
func (b *Buff) ZcopySet(u *ubuf.Info, from kernel.ObjectID, haveRef *bool) {
	if u == nil || b.IsZcopy() {
		return
	}
	s := b.shinfo
	if haveRef != nil && *haveRef {
		u.Transfer(from, s.Ident())
		*haveRef = false
	} else {
		u.Get(s.Ident())
	}
	s.Uarg = u
	s.Flags |= u.Flags
	b.Note(kernel.Entry{Op: kernel.OpZcopySet, Holder: u.Ident(), After: int64(u.Refcnt()), Args: [4]int64{int64(u.ID), int64(u.ID + uint32(u.Len) - 1), kernel.Bool(u.Flavour == ubuf.Legacy)}})
}

// SetNoUarg models skb_zcopy_set_nouarg: mark the skb zerocopy without a
// uarg (PF_PACKET TX ring frames), so that orphaning and cloning copy its
// frags and no completion is ever called.
func (b *Buff) SetNoUarg() {
	b.shinfo.NoUarg = true
	b.shinfo.Flags |= kernel.SKBFL_ZEROCOPY_FRAG
}

// zcopyClear models skb_zcopy_clear(skb, success): drop the shared info's
// uarg reference (ops->complete) and clear every zerocopy flag. A drop
// with success false passes on why, the code path that copied.
func (b *Buff) zcopyClear(success bool, why kernel.CopyWhy) {
	s := b.shinfo
	b.nouargDeref("skb_zcopy_clear")
	if u := b.Zcopy(); u != nil {
		b.Note(kernel.Entry{Op: kernel.OpZcopyClear, Args: [4]int64{kernel.Bool(success)}})
		if success {
			u.Complete(s.Ident(), true)
		} else {
			u.CompleteCopied(s.Ident(), why)
		}
	}
	s.Uarg, s.NoUarg = nil, false
	s.Flags &^= kernel.SKBFL_ALL_ZEROCOPY
}

// nouargDeref is bug B4 (kernel.BugNoUargDeref): fn read uarg->callback
// before testing skb_zcopy_is_nouarg, so a TX ring skb's destructor_arg,
// a tagged ring pointer, was dereferenced as a ubuf_info.
func (b *Buff) nouargDeref(fn string) {
	s := b.shinfo
	if s.NoUarg && s.Flags&kernel.SKBFL_ZEROCOPY_ENABLE != 0 && b.Host().Profile.Bugs.Has(kernel.BugNoUargDeref) {
		b.Violate(kernel.RuleRefcount, "%s read uarg->callback through a nouarg destructor_arg, a tagged ring pointer that is no ubuf_info (bug nouarg-deref)", fn)
	}
}

// ZcopyClear models skb_zcopy_clear(skb, true) called by a user of the
// skb, not by its release: the uarg reference of the shared info is
// dropped and the zerocopy flags cleared. The shared info may only be
// changed when the skb is not cloned; sk_wmem_free_skb with the v5.1 tx
// skb cache did it on clones too (bug B5, kernel.BugRecycleCloned).
func (b *Buff) ZcopyClear() { b.zcopyClear(true, kernel.NotCopied) }

// ZerocopyFromIter models __zerocopy_sg_from_iter followed by skb_zcopy_set
// (skb_zerocopy_iter_stream / _dgram): pin up to n bytes of the user's pages
// as frags, one frag per page chunk, extending the last frag when the chunk
// continues it in the same (compound) page, whichever iovec it comes from:
// iovecs that lie back to back in user memory share frags
// (Profile.ZerocopyCombinePages; before v5.10 every base page chunk is a
// frag of its own, a huge page's too). An skb whose MAX_SKB_FRAGS frags are used takes nothing more, not even a chunk that
// would continue its last frag (the check opens every batch of
// iov_iter_get_pages2). Each chunk adds the whole pages it touches to
// truesize (PAGE_ALIGN(copied + start)), a continued frag too, so truesize
// never falls below len. It returns the bytes added; when no frag slot is
// left and nothing was added, EMSGSIZE. If the skb already holds a
// different uarg it returns EEXIST and adds nothing.
func (b *Buff) ZerocopyFromIter(it *mm.Iter, n int, u *ubuf.Info, from kernel.ObjectID) (int, kernel.Errno) {
	if cur := b.Zcopy(); cur != nil && cur != u {
		return 0, kernel.EEXIST
	}
	added := 0
	for added < n {
		c, ok := it.Peek(n - added)
		if !ok {
			break
		}
		if len(b.shinfo.Frags) == kernel.MaxSkbFrags {
			break
		}
		combine := b.Host().Profile.ZerocopyCombinePages
		if !combine {
			c.Len = min(c.Len, kernel.PageSize-c.Off%kernel.PageSize) // skb_fill_page_desc per base page
		}
		if !combine || !b.extendLastFrag(c) {
			if len(b.shinfo.Frags) == kernel.MaxSkbFrags-1 {
				// The batch that starts the last frag pins one page
				// (maxpages MAX_SKB_FRAGS - frag), so a compound page's
				// chunk stops at its first base page's end.
				c.Len = min(c.Len, kernel.PageSize-c.Off%kernel.PageSize)
			}
			c.Page.Get()
			b.shinfo.AddFrag(Frag{Page: c.Page, Off: c.Off, Size: c.Len})
		}
		// Each batch of pinned pages counts whole pages:
		// PAGE_ALIGN(copied + start), even when it continues a frag.
		b.Truesize += align(c.Off%kernel.PageSize+c.Len, kernel.PageSize)
		it.Advance(c.Len)
		added += c.Len
	}
	if added == 0 && n > 0 {
		return 0, kernel.EMSGSIZE
	}
	b.Len += added
	b.DataLen += added
	b.ZcopySet(u, from, nil)
	b.Note(kernel.Entry{Op: kernel.OpZerocopyFill, Args: [4]int64{int64(added), int64(len(b.shinfo.Frags))}})
	return added, 0
}

// extendLastFrag grows the last frag by c when c starts where it ends.
func (b *Buff) extendLastFrag(c mm.Chunk) bool {
	fr := b.shinfo.Frags
	if len(fr) == 0 {
		return false
	}
	last := &fr[len(fr)-1]
	if last.Page != c.Page || last.Off+last.Size != c.Off {
		return false
	}
	last.Size += c.Len
	return true
}

// AppendLinear copies n bytes into the linear part (skb_put_data), which
// must have room. Data copied there is never a frag, so no later
// skb_orphan_frags_rx can report it as copied.
func (b *Buff) AppendLinear(n int) {
	if n > b.Tailroom() {
		b.Violate(kernel.RuleBounds, "skb_put of %d bytes with %d tailroom", n, b.Tailroom())
		return
	}
	b.Len += n
}

// CanCoalesce models skb_can_coalesce(skb, i, page, off): a copied chunk at
// page+off can extend the last frag. Never for a zerocopy skb.
func (b *Buff) CanCoalesce(page *mm.Page, off int) bool {
	if b.IsZcopy() {
		return false
	}
	fr := b.shinfo.Frags
	if len(fr) == 0 {
		return false
	}
	last := fr[len(fr)-1]
	return last.Page == page && last.Off+last.Size == off
}

// AppendPageFrag models the copy path's skb_copy_to_page_nocache: n bytes
// copied into a kernel page frag at page+off, either extending the last frag
// (CanCoalesce) or as a new frag that takes a page reference. It reports
// false when a new frag is needed and none is left.
func (b *Buff) AppendPageFrag(page *mm.Page, off, n int) bool {
	if b.CanCoalesce(page, off) {
		b.shinfo.Frags[len(b.shinfo.Frags)-1].Size += n
	} else {
		if len(b.shinfo.Frags) == kernel.MaxSkbFrags {
			return false
		}
		page.Get()
		b.shinfo.AddFrag(Frag{Page: page, Off: off, Size: n})
	}
	b.Len += n
	b.DataLen += n
	b.Truesize += n
	return true
}

// ZerocopyClone models skb_zerocopy_clone(nskb, orig): give nskb its own
// reference on orig's uarg. If nskb already holds a different uarg, its
// frags are first copied (skb_copy_ubufs; EIO if that fails), unless
// mayCopy is false (the gfp == 0 callers, skb_split), where that is ENOMEM.
func ZerocopyClone(nskb, orig *Buff, mayCopy bool) kernel.Errno {
	u := orig.Zcopy()
	if u == nil {
		return 0
	}
	if cur := nskb.Zcopy(); cur != nil {
		if cur == u {
			return 0
		}
		if !mayCopy {
			nskb.Violate(kernel.RuleRefcount, "skb_zerocopy_clone without gfp on an skb holding %v", cur)
			return kernel.ENOMEM
		}
		if nskb.CopyUbufs(kernel.CopyZerocopyClone) != 0 {
			return kernel.EIO
		}
	}
	nskb.ZcopySet(u, kernel.ObjectID{}, nil)
	return 0
}
