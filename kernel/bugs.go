package kernel

import "slices"

// Historical bugs the model can re-introduce. Each is named after what went
// wrong; the catalog of scenarios that trigger them lives with the
// simulator. A profile switches a bug on with Switch(BugX, true).
const (
	// BugAbortGap (RFC v1, fixed in RFC v2): an aborted send still
	// consumed an id, leaving a gap in the notification ids.
	BugAbortGap Bug = "abort-gap"
	// BugReallocFails (RFC v1): when msg_zerocopy_realloc could not extend
	// the tail uarg it failed the send instead of allocating a new uarg.
	BugReallocFails Bug = "realloc-fails"
	// BugID16 (RFC v1): notification ids were 16 bits wide.
	BugID16 Bug = "id16"
	// BugNoSockRef (RFC v1): the notification skb held no socket reference
	// of its own, so a completion after close used a freed socket.
	BugNoSockRef Bug = "no-sock-ref"
	// BugNotifyWmem (RFC v1): notification skbs were charged to sk_wmem_alloc
	// instead of optmem, disturbing TSQ and the send buffer.
	BugNotifyWmem Bug = "notify-wmem"
	// BugMemlockPerProcess (RFC v1): locked pages were limited per process
	// instead of per user.
	BugMemlockPerProcess Bug = "memlock-per-process"
	// BugCopiedAfterOverwrite (B11, fixed by 3bdd5ee0ec8c in v5.13): the
	// callback read uarg->zerocopy after the sock_exterr_skb in cb[] had
	// overwritten it, so COPIED was reported wrongly.
	BugCopiedAfterOverwrite Bug = "copied-after-overwrite"
	// BugCopyUbufsNoFrags (B2, fixed in v4.15): skb_copy_ubufs returned
	// early for an skb without frags and never released its uarg.
	BugCopyUbufsNoFrags Bug = "copy-ubufs-no-frags"
	// BugCopyUbufsOrder0 (B15, fixed by 7e692df39336 in v6.4):
	// skb_copy_ubufs used order-0 pages only and overflowed MAX_SKB_FRAGS
	// for skbs above 68 KiB (BIG TCP).
	BugCopyUbufsOrder0 Bug = "copy-ubufs-order0"
	// BugSegmentStaleFrags (B16, fixed by 2ea35288c83b in v6.6):
	// skb_segment read nr_frags and the frags before skb_orphan_frags, which
	// may re-pack them through skb_copy_ubufs.
	BugSegmentStaleFrags Bug = "segment-stale-frags"
	// BugTstampLeak (B14, fixed by 50749f2dd685 in v6.3): the TX timestamp
	// clone queued on the error queue kept the zerocopy frags and so the
	// uarg, which holds the socket, whose error queue is purged only when
	// the socket is freed: a leak cycle.
	BugTstampLeak Bug = "tstamp-leak"
	// BugTxErrorClone (B22): skb_tx_error cleared the zerocopy state of a
	// cloned skb, whose shared info another clone still used.
	BugTxErrorClone Bug = "tx-error-clone"
	// BugLegacyDoublePut (B10, fixed by 01e31bea7e62 in v5.11): vhost_net
	// dropped a legacy ubuf's reference again after a failed sendmsg whose
	// callback had already dropped it.
	BugLegacyDoublePut Bug = "legacy-double-put"

	// BugUDPMoreRefcnt (B6, fixed by 100f6d8e0990 in v5.2-rc3): every
	// msg_zerocopy_realloc extension took a reference for the caller, also
	// on datagram sockets, and extra_uref was always true. A corked append
	// creates no skb that could take that reference, so with MSG_MORE the
	// uarg's refcount stays above zero: no notification, a leaked socket.
	BugUDPMoreRefcnt Bug = "udp-more-refcnt"
	// BugUDPAppendRefcnt (B7, fixed by 522924b58308 in v5.2): extra_uref
	// was !skb instead of !skb_zcopy(skb), so a uarg first allocated on a
	// corked append (a plain MSG_MORE send, then MSG_ZEROCOPY) was attached
	// to the tail skb with a new reference while the allocation's own
	// reference was never handed over: a leak.
	BugUDPAppendRefcnt Bug = "udp-append-refcnt"
	// BugRingNoCopy (B3, fixed by 5cd8d46ea156 in v4.20):
	// tpacket_snd did not mark its skbs zerocopy (skb_zcopy_set_nouarg), so
	// a clone or an orphaned skb kept referencing ring frames after the
	// destructor had handed them back to the user.
	BugRingNoCopy Bug = "packet-ring-no-copy"
	// BugPendingSigned (review of "packet: use percpu mmap tx frame
	// pending refcount", seed 002, respun with unsigned counters before it
	// was merged in v3.14): the per-CPU pending counters of a TX ring were
	// int, summed as signed values. A frame's increment (tpacket_snd, on
	// the sender's CPU) and its decrement (the destructor, on the CPU that
	// completes the transmit) land on different counters when the task and
	// the completion run apart, so one counter climbs and another falls
	// without bound; each wraps, and only their sum modulo 2^32 means
	// anything, "provided all the arithmetic is unsigned and the variables
	// all the same type". Read as signed ints and summed into a wider
	// signed type, the sum is off by 2^32 once the signed values overflow:
	// the ring looks busy for ever.
	BugPendingSigned Bug = "packet-pending-signed"
	// BugZcCmsgLoss (review of the unmerged v7 series "net: A lightweight
	// zero-copy notification", seed 003): the SCM_ZC_NOTIFICATION handler
	// unlinks and frees the completions it takes from the error queue
	// while the send runs, and they reach the user only if the call then
	// succeeds and put_cmsg can write them back. A send that fails after
	// the handler, or a put_cmsg that faults, loses them for ever: the
	// program never learns that those buffers are free. Off, the handler
	// copies each completion to the user before unlinking it (the
	// user-address scheme of the series' v4, which the thread names as the
	// clean way to unroll), and a failed copy leaves the queue untouched
	// and fails the call. The zc-cmsg-v7 profile has it on, as posted.
	BugZcCmsgLoss Bug = "zc-cmsg-loss"
	// BugUncheckedRealloc (R4, RFC v1; "fix: in tcp, check return value
	// of second allocation attempt" in the RFC v2 changelog): after
	// sk_stream_wait_memory, tcp_sendmsg's second sock_zerocopy_realloc
	// was not checked, so a second failure went on to
	// sock_zerocopy_get(NULL): an oops. Only a profile with
	// TCPZerocopyWaitRetry (rfc-v2) makes that second attempt.
	BugUncheckedRealloc Bug = "unchecked-realloc"
	// BugNoUargDeref (B4, fixed by 185ce5c38ea7 "net: test nouarg before
	// dereferencing zerocopy pointers", v5.2-rc): skb_orphan_frags and
	// skb_zcopy_clear read uarg->callback before testing
	// skb_zcopy_is_nouarg, so a PACKET_TX_RING skb, whose destructor_arg
	// is a tagged ring pointer and no ubuf_info (B3's fix), was
	// dereferenced as one.
	BugNoUargDeref Bug = "nouarg-deref"
	// BugRecycleCloned (the clone half of B5: "tcp: do not recycle cloned
	// skbs", May 2019, fixing 4f661542a402 "tcp: fix zerocopy and
	// notsent_lowat issues"): sk_wmem_free_skb cleared the zerocopy state
	// of an acknowledged skb (skb_zcopy_clear) before caching it in
	// sk_tx_skb_cache, also when the skb was still cloned, so the clone a
	// driver still transmits lost the uarg reference that kept the pages
	// pinned. The v5.1 cache was removed in 2021; off, an acknowledged skb
	// is simply freed.
	BugRecycleCloned Bug = "recycle-cloned"
	// BugLegacyUnaccount (B20, "sock: fix zerocopy panic in mem
	// accounting", 2017): every refcounted ubuf's last put ran
	// mm_unaccount_pinned_pages, also a vhost-net ubuf's, whose mmp was
	// never set (it is vhost's own kmalloc'ed array): a panic. The RFC v2
	// has it -- its sock_zerocopy_put unaccounts before looking at the
	// callback, and its vhost_net gives each ubuf a refcnt -- so the
	// rfc-v2 profile carries it.
	BugLegacyUnaccount Bug = "legacy-unaccount"
	// BugTstampCloneLeak (B23, the follow-up of B14: "net: fix skb leak in
	// __skb_tstamp_tx()", May 2023): when skb_orphan_frags_rx failed on
	// the TX timestamp's clone, __skb_tstamp_tx returned without freeing
	// the clone.
	BugTstampCloneLeak Bug = "tstamp-clone-leak"
	// BugTCPLinear (B18, fixed by "tcp: place all zerocopy payload in
	// frags" in v4.18): tcp_sendmsg copied the first bytes of a zerocopy
	// send into the linear area of a new skb, a copy no reference drop
	// reports, so a small send over loopback was notified without COPIED.
	// Unlike the other switches this one is a knob: switching it sets
	// Profile.TCPLinear (see Switch), and linux-4.14 has it on. The RFC v2
	// did not: its select_size gave a zerocopy skb no linear area.
	BugTCPLinear Bug = "tcp-linear"
	// BugTCPMmapLockOrder (B8, the seed series "tcp: add zero copy
	// receive", replaced by 05255b823a61 "tcp: add TCP_ZEROCOPY_RECEIVE
	// support for zerocopy receive" before v4.18): tcp_mmap mapped and
	// consumed received pages inside mmap(2), taking the socket lock under
	// mmap_sem, the reverse of every copy to the user made under the socket
	// lock; lockdep found the possible deadlock. A knob like BugTCPLinear:
	// switching it sets Profile.TCPMmapConsumes, and tcp-mmap-rfc has it.
	BugTCPMmapLockOrder Bug = "tcp-mmap-lock-order"
)

// TCPLinearPre418 is the linear area tcp_sendmsg gave a new skb on a GSO
// route before v4.18: SKB_WITH_OVERHEAD(2048 - MAX_TCP_HEADER) on x86-64.
const TCPLinearPre418 = 1408

// Switch switches bug b on or off in the profile. For most bugs that only
// sets Bugs[b]; a bug that is a knob's historical value also sets the
// knob: BugTCPLinear sets TCPLinear to TCPLinearPre418 when on and to 0
// when off, BugTCPMmapLockOrder sets TCPMmapConsumes. Switch is the one way a front end should change a bug.
func (p *Profile) Switch(b Bug, on bool) {
	if p.Bugs == nil {
		p.Bugs = BugSet{}
	}
	if on {
		p.Bugs[b] = true
	} else {
		delete(p.Bugs, b)
	}
	switch b {
	case BugTCPLinear:
		p.TCPLinear = 0
		if on {
			p.TCPLinear = TCPLinearPre418
		}
	case BugTCPMmapLockOrder:
		p.TCPMmapConsumes = on
	}
}

// KnownBugs lists every bug switch the model implements, in name order.
func KnownBugs() []Bug {
	bugs := []Bug{
		BugAbortGap, BugCopiedAfterOverwrite, BugCopyUbufsNoFrags, BugCopyUbufsOrder0,
		BugID16, BugLegacyDoublePut, BugMemlockPerProcess, BugNoSockRef, BugNotifyWmem, BugPendingSigned,
		BugReallocFails, BugRingNoCopy, BugSegmentStaleFrags, BugTCPLinear, BugTCPMmapLockOrder, BugTstampLeak,
		BugTxErrorClone, BugUDPAppendRefcnt, BugUDPMoreRefcnt, BugZcCmsgLoss,
		BugUncheckedRealloc, BugNoUargDeref, BugRecycleCloned, BugLegacyUnaccount, BugTstampCloneLeak,
	}
	slices.Sort(bugs)
	return bugs
}
