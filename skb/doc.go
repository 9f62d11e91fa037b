// Package skb models struct sk_buff and struct skb_shared_info as far as
// MSG_ZEROCOPY sees them: lengths rather than bytes, frags over refcounted
// pages, the uarg in destructor_arg, the zerocopy flags, and every
// operation that moves, shares or copies them.
//
// # Model
//
// A Buff has Len bytes of payload, DataLen of them in frags; its
// SharedInfo holds the frags, the SKBFL_* flags, the uarg (or the nouarg
// mark of PF_PACKET rings), the frag_list and the GSO size. Clones share
// a SharedInfo (dataref); copies get their own.
//
// Zerocopy effects, as the kernel has them:
//
//	Clone        dataref++; no uarg or page reference (skb_clone)
//	Copy         private shinfo: get_page per frag, +1 uarg (pskb_copy)
//	ExpandHead   on a clone: private shinfo, +1 uarg, old shinfo released
//	Split        second half +1 uarg, straddling frag +1 page (skb_split)
//	Segment      each segment +1 uarg, +1 page per frag (skb_segment)
//	Shift, TryCoalesce, CanCoalesce   refuse zerocopy skbs
//	OrphanFrags  no-op with SKBFL_DONT_ORPHAN, else CopyUbufs
//	OrphanFragsRx  always CopyUbufs
//	CopyUbufs    unclone, copy frags to kernel pages, -1 uarg with COPIED
//	PullTail     linearizing the last frag: -1 uarg with COPIED
//	TxError      -1 uarg with success, never through a clone
//	Free         last user: destructor, then skb_release_data: last
//	             dataref: -1 uarg with success, put_page per frag
//
// # Ownership
//
// A Buff starts with one user. The SharedInfo owns one reference on each
// frag page, each frag_list skb, and (unless nouarg) one on its uarg,
// recorded with the SharedInfo's ObjectID as holder. An owned Buff's
// truesize is charged to its Owner until it is orphaned or freed. Of the
// truesize, Head is the head buffer's (SKB_TRUESIZE(skb_end_offset), with
// the headroom Reserve counts); the rest is frag pages, which TryCoalesce
// moves to the receiving skb with the frags.
//
// # Invariants
//
//	users ≥ 1 and dataref ≥ 1 while live; freed exactly once;
//	len(Frags) ≤ MAX_SKB_FRAGS (kernel.RuleBounds);
//	a SharedInfo holds a uarg reference iff SKBFL_ZEROCOPY_ENABLE && !NoUarg.
//
// # Linux correspondence
//
// net/core/skbuff.c and include/linux/skbuff.h: alloc_skb, skb_clone,
// pskb_copy, pskb_expand_head, skb_split, skb_segment, skb_shift,
// skb_try_coalesce, skb_can_coalesce, skb_orphan_frags,
// skb_orphan_frags_rx, skb_copy_ubufs, skb_zerocopy, skb_zerocopy_clone,
// skb_zcopy_set, skb_zcopy_clear, __zerocopy_sg_from_iter,
// __pskb_pull_tail, skb_tx_error, skb_release_data, kfree_skb.
package skb
