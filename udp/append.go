package udp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
)

// cork is struct inet_cork with the queue it builds: sk_write_queue for a
// corked socket, a private queue for ip_make_skb.
type cork struct {
	queue []*entry
	// length is cork->length: bytes appended, transport header included.
	length int
	// gsoSize is cork->gso_size (UDP_SEGMENT); fragsize the path MTU.
	gsoSize, fragsize int
	// tsflags are cork->tsflags, the SO_TIMESTAMPING flags the datagram
	// is sent under.
	tsflags kernel.Timestamping
}

// entrySlab and entryPtrSlab hold a Host's cork entries and its
// sockets' queues of them.
var entrySlab, entryPtrSlab = kernel.SlabSlot[entry](), kernel.SlabSlot[*entry]()

// entry is one skb of a cork queue. The model's skb lengths count
// payload only; hdrs is what the kernel's skb->len adds: the IP header of
// every fragment and the UDP header of the first.
type entry struct {
	b       *skb.Buff
	hdrs    int
	partial bool // ip_summed == CHECKSUM_PARTIAL
}

// klen is the kernel's skb->len.
func (e *entry) klen() int { return e.b.Len + e.hdrs }

// setupCork models ip_setup_cork / ip6_setup_cork with the call's
// cookie: its gso_size and timestamping flags.
func (u *Sock) setupCork(ipc ipcm) cork {
	return cork{gsoSize: ipc.gsoSize, fragsize: u.Route.MTU, tsflags: ipc.sockc.Tsflags}
}

// PageFrag returns the page of the socket's page frag, or nil.
func (u *Sock) PageFrag() *mm.Page { return u.pfrag.Page }

// Corked returns the skbs of the datagram being built on the socket's
// cork queue (sk_write_queue while up->pending), oldest first: the
// socket owns them until udp_push_pending_frames sends them or
// ip_flush_pending_frames frees them.
func (u *Sock) Corked() []*skb.Buff {
	out := make([]*skb.Buff, len(u.cork.queue))
	for i, e := range u.cork.queue {
		out[i] = e.b
	}
	return out
}

// appendState is the local state of one __ip_append_data call.
type appendState struct {
	c             *cork
	a             *call
	flags         kernel.MsgFlags
	length        int
	transhdrlen   int
	fragheaderlen int
	mtu           int
	maxfraglen    int
	partial       bool
	// notPartial is why the append is not CHECKSUM_PARTIAL, NotCopied
	// when it is: the reason a zerocopy append copies after all.
	notPartial kernel.CopyWhy
	paged, zc  bool
	rfcZC      bool
	extraUref  bool
}

// ipAppendData models __ip_append_data and __ip6_append_data: append
// length bytes (the UDP header included on the first append of a datagram,
// transhdrlen > 0) from a.it to the cork's queue.
//
//   - EMSGSIZE when the datagram would exceed 65535 bytes of IP packet
//     (65507 bytes of UDP payload over IPv4, 65527 over IPv6), before any
//     uarg is taken, reported on the error queue too (localError, with
//     the path MTU pmtu).
//   - CHECKSUM_PARTIAL only on the first append, without IP fragmentation,
//     with checksum offload, and without MSG_MORE unless UDP_SEGMENT.
//   - MSG_ZEROCOPY with length > 0 on a socket where it takes effect:
//     msg_zerocopy_realloc(sk, length, skb_zcopy(tail)); NULL is ENOBUFS.
//     extra_uref = !skb_zcopy(tail). With scatter-gather and
//     CHECKSUM_PARTIAL the payload goes into zerocopy frags (paged, zc);
//     otherwise uarg->zerocopy = 0 and the data is copied with the uarg
//     attached (skb_zcopy_set on the tail), so the notification says
//     COPIED when that skb is freed.
//   - Every skb alloc_new_skb creates gets skb_zcopy_set(skb, uarg,
//     &extra_uref): the first takes the allocation's reference, the others
//     one more each.
//   - Copied data goes into the linear area (no scatter-gather), or into
//     page frags, which never coalesce with the frags of a zerocopy skb
//     (skb_can_coalesce): at MAX_SKB_FRAGS the append fails with EMSGSIZE.
//   - The datagram's first skb asks for the transmit timestamps of the
//     call that opened the cork (cork->tx_flags: the socket's, or its
//     control message's) and takes the next OPT_ID key; later skbs and
//     later appends to a cork ask for none (sock.Sock.SetupTxTimestamp).
//   - On error net_zcopy_put_abort(uarg, extra_uref) rolls back the id,
//     and hold_tskey the key; the caller flushes the queue.
func (u *Sock) ipAppendData(c *cork, a *call, length, transhdrlen int, flags kernel.MsgFlags) kernel.Errno {
	s := &appendState{c: c, a: a, flags: flags, length: length, transhdrlen: transhdrlen,
		fragheaderlen: u.Sk.IPHeaderLen(), mtu: c.fragsize, paged: c.gsoSize > 0}
	if c.gsoSize > 0 {
		s.mtu = IPMaxMTU
		if u.v6() {
			s.mtu = IP6MaxMTU
		}
	}
	s.maxfraglen = (s.mtu-s.fragheaderlen)&^7 + s.fragheaderlen
	limit := IPMaxMTU - s.fragheaderlen
	if u.v6() {
		s.maxfraglen -= FragHeaderLen
		limit = IPv6MaxPlen
	}
	if c.length+length > limit {
		u.Sk.Note(kernel.Entry{Op: kernel.OpTooLong, Str: "__ip_append_data: the datagram's IP payload",
			Args: [4]int64{int64(c.length + length), int64(limit)}})
		u.localError(kernel.EMSGSIZE, u.pmtu(s))
		return kernel.EMSGSIZE
	}
	s.notPartial = u.csumPartial(s, c.gsoSize)
	s.partial = s.notPartial == kernel.NotCopied
	var tail *entry
	if n := len(c.queue); n > 0 {
		tail = c.queue[n-1]
	}
	first := tail == nil
	if flags&kernel.MSG_ZEROCOPY != 0 && length > 0 && u.Sk.Zerocopy() {
		if err := u.takeUarg(s, tail); err != 0 {
			return err
		}
	}
	c.length += length
	if err := u.appendLoop(s, tail); err != 0 {
		a.abort(s.extraUref)
		c.length -= s.length
		return err
	}
	if first {
		u.Sk.SetupTxTimestamp(c.queue[0].b, c.tsflags) // alloc_new_skb: cork->tx_flags, tskey
	}
	return 0
}

// csumPartial is __ip_append_data's choice of csummode: CHECKSUM_PARTIAL
// (NotCopied) for the first append of a datagram (transhdrlen > 0) that
// needs no IP fragmentation, on a device with checksum offload, without
// MSG_MORE unless UDP_SEGMENT, and not on a RAW socket; otherwise the
// first condition that fails, as the reason a zerocopy send copies.
func (u *Sock) csumPartial(s *appendState, gsoSize int) kernel.CopyWhy {
	switch {
	case u.raw():
		return kernel.CopyRaw
	case s.transhdrlen == 0:
		return kernel.CopyCorkedAppend
	case s.length+s.fragheaderlen > s.mtu:
		return kernel.CopyFragmented
	case !u.Route.Csum:
		return kernel.CopyNoCsum
	case s.flags&kernel.MSG_MORE != 0 && gsoSize == 0:
		return kernel.CopyMore
	}
	return kernel.NotCopied
}

// takeUarg is the MSG_ZEROCOPY block of __ip_append_data. Under
// kernel.Profile.DgramZerocopyPagedOnly it follows the RFC's rule
// (sock_can_zerocopy): a uarg is taken only when the data can go into
// frags — scatter-gather, and for UDP a CHECKSUM_PARTIAL skb — and the
// payload past MAX_HEADER is then always zerocopy, on corked appends too.
// The merged kernels (b5947e5d1e71, v5.0) always take the uarg and copy
// with the uarg attached instead.
func (u *Sock) takeUarg(s *appendState, tail *entry) kernel.Errno {
	h := u.host()
	rfc := h.Profile.DgramZerocopyPagedOnly
	var tailUarg *ubuf.Info
	if tail != nil {
		tailUarg = tail.b.Zcopy()
	}
	if rfc {
		summed := s.partial
		if tail != nil {
			summed = tail.partial
		}
		if !u.Route.SG || !(u.raw() || summed) {
			return 0
		}
	}
	uarg, out := ubuf.Realloc(h, u.Sk, u.Sk.Task, uint32(s.length), tailUarg, s.a.holder)
	s.a.outcome = out
	if uarg == nil {
		return kernel.ENOBUFS
	}
	s.a.took(u, uarg, out)
	// extra_uref = !skb_zcopy(skb): the call owns the allocation's
	// reference only for a uarg on a datagram without one. Under
	// Profile.AbortDropsNewUarg (the RFC's sock_zerocopy_put_abort) a uarg
	// allocated beside the tail's (whose ids a raw_send_hdrinc in between
	// broke) is the call's to drop when the tail refuses it
	// (skb_zerocopy_add_frags_iter: EEXIST).
	s.extraUref = tailUarg == nil || h.Profile.AbortDropsNewUarg && out == ubuf.Allocated
	switch {
	case h.Profile.Bugs.Has(kernel.BugUDPMoreRefcnt):
		if out == ubuf.Extended {
			uarg.Get(s.a.holder)
		}
		s.extraUref = true
	case h.Profile.Bugs.Has(kernel.BugUDPAppendRefcnt):
		s.extraUref = tail == nil
	}
	if rfc {
		s.zc, s.rfcZC = true, true
		return 0
	}
	if u.Route.SG && s.partial {
		s.paged, s.zc = true, true
		return 0
	}
	why := s.notPartial
	if !u.Route.SG {
		why = kernel.CopyNoSG
	}
	uarg.SetCopied(why)
	s.a.copied = true
	if tail != nil {
		tail.b.ZcopySet(uarg, s.a.holder, &s.extraUref)
	}
	return 0
}

// appendLoop is the loop of __ip_append_data: fill the tail skb up to the
// MTU (or the last 8-byte fragment boundary), allocating a new skb when it
// is full or there is none.
func (u *Sock) appendLoop(s *appendState, tail *entry) kernel.Errno {
	needNew := tail == nil
	for needNew || s.length > 0 {
		copy := 0
		if !needNew {
			copy = s.mtu - tail.klen()
			if copy < s.length {
				copy = s.maxfraglen - tail.klen()
			}
		}
		if needNew || copy <= 0 {
			needNew = false
			e, err := u.allocNewSkb(s, tail)
			if err != 0 {
				return err
			}
			tail = e
			continue
		}
		copy = min(copy, s.length)
		n, err := u.appendTo(s, tail, copy)
		if err != 0 {
			return err
		}
		s.length -= n
	}
	return 0
}

// pmtu is the MTU ip_local_error and ipv6_local_error report (ee_info)
// for a datagram too long: IPv4's cork MTU, at most IP_MAX_MTU
// (ipv4_mtu caps the dst MTU cork->fragsize takes), and IPv6's less the
// IPv6 headers plus the fixed header (mtu - headersize + sizeof(struct
// ipv6hdr)), at least 0. Measured on Linux 6.18 over loopback (MTU
// 65536): 65535 and 65536.
func (u *Sock) pmtu(s *appendState) uint32 {
	if u.v6() {
		return uint32(max(s.mtu-s.fragheaderlen+40, 0))
	}
	return uint32(min(s.mtu, IPMaxMTU))
}

// appendTo adds up to n bytes to the tail skb: into its linear area
// without scatter-gather, as zerocopy frags (zc), or copied into the
// socket's page frag.
func (u *Sock) appendTo(s *appendState, tail *entry, n int) (int, kernel.Errno) {
	b := tail.b
	switch {
	case !u.Route.SG && b.Tailroom() >= n:
		b.AppendLinear(n)
		s.a.it.Advance(n)
		return n, 0
	case s.zc:
		b.ZcopySet(s.a.uarg, s.a.holder, &s.extraUref)
		before := b.Truesize
		got, err := b.ZerocopyFromIter(&s.a.it, n, s.a.uarg, s.a.holder)
		u.Sk.WmemAlloc += b.Truesize - before
		if err == 0 && got < n {
			err = kernel.EMSGSIZE
		}
		return got, err
	}
	// The kernel uses the task's page frag (current->task_frag); the model
	// keeps one per socket, which no notification can tell apart.
	f := &u.pfrag
	f.Refill(u.host())
	if !b.CanCoalesce(f.Page, f.Off) && len(b.Shinfo().Frags) == kernel.MaxSkbFrags {
		return 0, kernel.EMSGSIZE
	}
	n = min(n, f.Page.Size()-f.Off)
	b.AppendPageFrag(f.Page, f.Off, n)
	f.Off += n
	u.Sk.WmemAlloc += n
	s.a.it.Advance(n)
	return n, 0
}

// allocNewSkb is alloc_new_skb in __ip_append_data: a new skb for the
// rest of the datagram (or the next IP fragment), taking over the bytes of
// the previous skb past the fragment boundary (fraggap). Its linear area
// holds the whole fragment, or only the headers when the payload goes into
// frags (paged: zerocopy, UDP_SEGMENT, or a fragment too large for a
// linear allocation), or MAX_HEADER bytes under the RFC.
func (u *Sock) allocNewSkb(s *appendState, prev *entry) (*entry, kernel.Errno) {
	fraggap := 0
	if prev != nil {
		fraggap = prev.klen() - s.maxfraglen
	}
	datalen := s.length + fraggap
	if datalen > s.mtu-s.fragheaderlen {
		datalen = s.maxfraglen - s.fragheaderlen
	}
	fraglen := datalen + s.fragheaderlen
	pagedlen := 0
	var linearCap int
	switch {
	case s.flags&kernel.MSG_MORE != 0 && !u.Route.SG:
		linearCap = s.mtu - s.fragheaderlen - s.transhdrlen
	case s.rfcZC:
		linearCap = max(min(fraglen, kernel.MaxHeader)-s.fragheaderlen-s.transhdrlen, 0)
	case !s.paged && (fraglen+allocExtra < skbMaxAlloc || !u.Route.SG):
		linearCap = datalen - s.transhdrlen
	default:
		pagedlen = datalen - s.transhdrlen
	}
	linearCap = max(linearCap, fraggap)
	copy := datalen - s.transhdrlen - fraggap - pagedlen
	if s.rfcZC {
		copy = min(copy, linearCap-fraggap)
	}
	copy = max(copy, 0)
	hdrs := s.fragheaderlen + s.transhdrlen
	var b *skb.Buff
	var err kernel.Errno
	if s.transhdrlen > 0 {
		b, err = u.allocSendSkb(linearCap+hdrs, s.flags)
	} else {
		b, err = u.allocSkb(linearCap + hdrs)
	}
	if err != 0 {
		return nil, err
	}
	b.LinearCap = linearCap
	if fraggap > 0 {
		trimTail(prev.b, fraggap)
		b.AppendLinear(fraggap)
	}
	if copy > 0 {
		b.AppendLinear(copy)
		s.a.it.Advance(copy)
	}
	s.length -= copy + s.transhdrlen
	h := u.host()
	e := entrySlab.Of(h).New()
	*e = entry{b: b, hdrs: hdrs, partial: s.partial}
	s.transhdrlen, s.partial, s.notPartial = 0, false, kernel.CopyCorkedAppend
	b.ZcopySet(s.a.uarg, s.a.holder, &s.extraUref)
	u.Sk.ChargeW(b)
	s.c.queue = entryPtrSlab.Of(h).Append(s.c.queue, e)
	return e, 0
}

// trimTail models pskb_trim_unique(skb, len-n): drop the last n bytes of b,
// from its frags first (unpinning frags that become empty), then from its
// linear area. Truesize is unchanged, as in the kernel.
func trimTail(b *skb.Buff, n int) {
	s := b.Shinfo()
	for n > 0 && len(s.Frags) > 0 {
		last := &s.Frags[len(s.Frags)-1]
		cut := min(n, last.Size)
		last.Size -= cut
		b.Len, b.DataLen, n = b.Len-cut, b.DataLen-cut, n-cut
		if last.Size == 0 {
			pg := last.Page
			s.SetFrags(s.Frags[:len(s.Frags)-1]) // off the page's count before its reference goes
			pg.Put()
		}
	}
	b.Len -= n
}
