// Package ubuf models struct ubuf_info: the refcounted record of user pages
// a MSG_ZEROCOPY send lends to the network stack, and the accounting that
// comes with it.
//
// # Model
//
// A MsgZerocopy Info (struct ubuf_info_msgzc) lives in the cb[] of a
// zero-payload notification skb charged to its socket's optmem. Alloc
// (msg_zerocopy_alloc) charges that skb, accounts the worst-case pinned
// pages of the send to the calling task's user, takes id = sk_zckey++,
// len 1, bytelen, the zerocopy flag, SKBFL_ZEROCOPY_FRAG|SKBFL_DONT_ORPHAN
// and a socket reference. Realloc (msg_zerocopy_realloc) extends the uarg of
// the socket's tail skb when its ids end at sk_zckey, within 512 KiB and
// 65534 calls; a stream socket otherwise allocates anew, a datagram socket
// fails. Complete (msg_zerocopy_complete) ANDs each reference drop's success
// into the zerocopy flag; the last drop runs __msg_zerocopy_callback:
// unaccount the pages, hand a notification [id, id+len-1] to the socket's
// error queue unless len is 0 or the socket is dead, and drop the socket
// reference. PutAbort (msg_zerocopy_put_abort) undoes a failed call's id.
//
// A Legacy Info (vhost_net, tun) has one reference per skb and a completion
// callback, but no id, no accounting and no zerocopy flag.
//
// Accounting: MMPin.Account (mm_account_pinned_pages) charges
// (size >> PAGE_SHIFT) + 2 pages to the per-user locked_vm, against the
// calling task's RLIMIT_MEMLOCK; CAP_IPC_LOCK, a zero size and (per
// profile) RLIM_INFINITY are exempt.
//
// # Ownership
//
// An Info is created with one reference owned by the caller, named by the
// holder ObjectID it passes. Every Get names its new holder and every
// Complete the holder whose reference it drops; Transfer hands a reference
// from one holder to another (skb_zcopy_set with have_uref). Holders
// returns who still holds one, so a leak names its culprit.
//
// # Invariants
//
//	refcnt ≥ 0, len(Holders) = refcnt, no Get from 0, no use after free;
//	sk_zckey after a successful call = id + len of the uarg it used;
//	a failed Alloc/Realloc leaves sk_zckey, optmem and locked_vm unchanged;
//	locked_vm is charged once per call and returned once, at completion.
//
// Violations are reported to the Info's kernel.Host.
//
// # Linux correspondence
//
// net/core/skbuff.c: msg_zerocopy_alloc, msg_zerocopy_realloc,
// msg_zerocopy_complete, __msg_zerocopy_callback, msg_zerocopy_put_abort,
// mm_account_pinned_pages, mm_unaccount_pinned_pages; include/linux/
// skbuff.h: net_zcopy_get, net_zcopy_put_abort.
package ubuf
