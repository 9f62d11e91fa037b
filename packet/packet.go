package packet

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// Sizes of the packet send paths (include/uapi/linux/if_ether.h,
// if_packet.h, if_vlan.h, include/linux/netdevice.h).
const (
	// HardHeaderLen is dev->hard_header_len of Ethernet and loopback
	// devices (ETH_HLEN): the link-layer header a SOCK_RAW packet starts
	// with, and the header SOCK_DGRAM packets get from dev_hard_header.
	HardHeaderLen = 14
	// VlanHLen is VLAN_HLEN, the slack packet_snd allows above the MTU.
	VlanHLen = 4
	// llReserved is LL_RESERVED_SPACE of an Ethernet device: the
	// headroom (prepad) packet_snd allocates.
	llReserved = 16
	// costlyOrder is PAGE_ALLOC_COSTLY_ORDER, the largest page order
	// alloc_skb_with_frags uses for paged data.
	costlyOrder = 3
	// maxWaits bounds how often one call waits.
	maxWaits = 64
)

// Sock is an AF_PACKET socket (struct packet_sock) of type SOCK_RAW or
// SOCK_DGRAM bound to one device.
//
// Ownership: a transmitted skb belongs to Net; its truesize stays charged
// to Sk.WmemAlloc until it is freed. TX ring frames are lent to the stack
// from TP_STATUS_SENDING until the skb's destructor marks them
// TP_STATUS_AVAILABLE.
type Sock struct {
	// Sk is the protocol-independent socket.
	Sk *sock.Sock
	// Route describes the bound device: SG and its MTU.
	Route sock.Route
	// Net transmits (dev_queue_xmit).
	Net sock.Network
	// Wait, if set, is called when a blocking send must wait: for
	// send-buffer space, or in tpacket_snd for pending frames to complete.
	// It returns false to give up. A nil Wait or a false return ends the
	// wait as an expired SO_SNDTIMEO does (EAGAIN, or ETIMEDOUT in
	// tpacket_snd).
	Wait func() bool

	// CPU, if set, returns the CPU the current step runs on: the sending
	// task's for tpacket_snd, the completing device's for a destructor
	// run from its TX completion. Nil means CPU 0.
	CPU func() int

	ring    *Ring
	pending pendingRefcnt // tx_ring.pending_refcnt
	mapped  int           // po->mapped: mappings of the ring
	tpLoss  bool          // PACKET_SOCK_TP_LOSS (PACKET_LOSS)
	hook    protHook      // po->prot_hook: protocol and device
	closed  bool
}

// New returns the packet state of sk (class kernel.ClassPacket), sending
// on the device r describes into n. As packet_create does, a socket made
// with a protocol other than 0 registers its protocol hook for every
// device at once.
func New(sk *sock.Sock, r sock.Route, n sock.Network) *Sock {
	p := &Sock{Sk: sk, Route: r, Net: n}
	p.hook = protHook{proto: sk.Protocol, running: sk.Protocol != 0}
	return p
}

func (p *Sock) host() *kernel.Host { return p.Sk.Host() }

func (p *Sock) raw() bool { return p.Sk.Type.Base() == kernel.SOCK_RAW }

// reserve is the link-layer header packet_snd and tpacket_snd allow on
// top of the MTU: the device header for SOCK_RAW, nothing for SOCK_DGRAM.
func (p *Sock) reserve() int {
	if p.raw() {
		return HardHeaderLen
	}
	return 0
}

// Pending returns the number of TX ring frames in flight as
// packet_read_pending reads it (see ReadPending).
func (p *Sock) Pending() int { return int(p.ReadPending()) }

// Ring returns the TX ring, or nil.
func (p *Sock) Ring() *Ring { return p.ring }

// Setsockopt models packet_setsockopt for SOL_PACKET and sock_setsockopt
// for SOL_SOCKET (where SO_ZEROCOPY follows the profile: EOPNOTSUPP on
// merged kernels, ENOPROTOOPT on the RFC). PACKET_TX_RING takes a struct
// tpacket_req, so through this integer form it is EINVAL (short optlen);
// use SetTxRing. PACKET_LOSS sets PACKET_SOCK_TP_LOSS, EBUSY once a ring
// exists. Other options are ENOPROTOOPT.
func (p *Sock) Setsockopt(opt kernel.SockOpt, val int) kernel.Errno {
	switch {
	case opt.Level == kernel.SOL_SOCKET:
		return p.Sk.Setsockopt(opt, val)
	case opt == kernel.PACKET_TX_RING:
		return kernel.EINVAL
	case opt == kernel.PACKET_LOSS:
		if p.ring != nil {
			return kernel.EBUSY
		}
		p.tpLoss = val != 0
		return 0
	}
	return kernel.ENOPROTOOPT
}

// Sendmsg models packet_sendmsg: tpacket_snd when a TX ring is set up
// (the iovecs are ignored then: the ring frames are the data), else
// packet_snd. Both parse the control messages (sock_cmsg_send, Sk.CmsgSend)
// before they build an skb, and fail with their errno; the cookie's
// SO_TIMESTAMPING flags (the socket's, or a control message's for this
// call) are what skb_setup_tx_timestamp asks for.
func (p *Sock) Sendmsg(iov []mm.Iovec, flags kernel.MsgFlags) sock.SendResult {
	holder := kernel.SendmsgCall(p.host().Step)
	if p.Sk.Type&kernel.SOCK_NONBLOCK != 0 {
		flags |= kernel.MSG_DONTWAIT
	}
	cm := p.Sk.InitSockcm()
	if err := p.Sk.CmsgSend(&cm); err != 0 {
		return sock.Fail(err)
	}
	if p.ring != nil {
		return p.tpacketSnd(flags, cm.Tsflags)
	}
	return p.packetSnd(mm.NewIter(iov...), holder, flags, cm.Tsflags)
}

// Close models packet_release: the TX ring is torn down (frames still in
// flight keep their pages; their destructor no longer touches the ring),
// then sock_orphan and sock_put. The socket stays allocated while sent
// skbs are charged to sk_wmem_alloc, as with the kernel's wmem bias.
func (p *Sock) Close() {
	if p.closed {
		return
	}
	p.closed = true
	p.ring = nil
	p.Sk.Close()
}

// charge models skb_set_owner_w with owner o (the socket, or a TX ring
// frame's destructor).
func (p *Sock) charge(b *skb.Buff, o skb.Owner) {
	p.Sk.WmemAlloc += b.Truesize
	b.SetOwner(o, skb.SockWfree)
}

// allocSendSkb models sock_alloc_send_pskb's admission: the send buffer
// must have room (sk_wmem_alloc < sk_sndbuf), else EAGAIN when the call
// cannot wait; the allocation may fail (fault site alloc_skb: ENOBUFS).
func (p *Sock) allocSendSkb(linear int, noblock bool) (*skb.Buff, kernel.Errno) {
	for waits := 0; p.Sk.WmemAlloc >= p.Sk.Sndbuf; waits++ {
		if noblock || p.Wait == nil || waits == maxWaits || !p.Wait() {
			p.Sk.Note(kernel.Entry{Op: kernel.OpSendNoSpace, Args: [4]int64{int64(p.Sk.WmemAlloc), int64(p.Sk.Sndbuf)}})
			return nil, kernel.EAGAIN
		}
	}
	if p.host().Fail(kernel.FaultAllocSkb) {
		p.Sk.Note(kernel.Entry{Op: kernel.OpFaultFailed, Str: kernel.FaultAllocSkb})
		return nil, kernel.ENOBUFS
	}
	return skb.Alloc(p.host(), linear), 0
}

// packetSnd models packet_snd. A packet longer than the MTU plus the
// link-layer reserve (and VLAN_HLEN) is EMSGSIZE. packet_alloc_skb keeps
// a packet under a page linear and otherwise puts all but the link-layer
// header into kernel page frags, into which the data is copied; a SOCK_RAW
// packet shorter than the link-layer header is EINVAL
// (dev_validate_header); then dev_queue_xmit.
//
// Under the RFC (patch 11) with MSG_ZEROCOPY, the linear part holds at most
// MAX_HEADER bytes (the link-layer header of SOCK_DGRAM is pushed in front
// of it) and the rest of the user's pages are pinned as frags
// (zerocopy_sg_from_iter: EMSGSIZE past MAX_SKB_FRAGS); only then is the
// uarg allocated for the whole length (skb_zerocopy_alloc: ENOMEM when
// optmem or RLIMIT_MEMLOCK refuse) — also for an empty packet. A later
// error aborts the id (skb_zcopy_abort) before the skb is freed.
func (p *Sock) packetSnd(it *mm.Iter, holder kernel.ObjectID, flags kernel.MsgFlags, tsflags kernel.Timestamping) sock.SendResult {
	h := p.host()
	n := it.Count()
	if n > p.Route.MTU+p.reserve()+VlanHLen {
		return sock.Fail(kernel.EMSGSIZE)
	}
	zc := flags&kernel.MSG_ZEROCOPY != 0 && p.Sk.Zerocopy()
	linear := min(n, HardHeaderLen)
	switch {
	case zc:
		linear = min(n, max(linear, kernel.MaxHeader))
	case llReserved+n < kernel.PageSize || linear == 0:
		linear = n
	}
	b, err := p.allocSendSkb(linear, flags&kernel.MSG_DONTWAIT != 0)
	if err != 0 {
		return sock.Fail(err)
	}
	b.AppendLinear(linear)
	it.Advance(linear)
	res := sock.SendResult{N: n}
	if zc {
		got, zerr := b.ZerocopyFromIter(it, n-linear, nil, holder)
		if zerr != 0 || got != n-linear {
			b.Free()
			return sock.Fail(kernel.EMSGSIZE)
		}
		uarg, out := ubuf.Alloc(h, p.Sk, p.Sk.Task, uint32(n), holder)
		res.Outcome = out
		if uarg == nil {
			b.Free()
			return sock.SendResult{N: -1, Err: kernel.ENOMEM, Outcome: out}
		}
		haveRef := true
		b.ZcopySet(uarg, holder, &haveRef)
		res.ZC, res.ID, res.Uarg = true, uarg.ID, uarg
	} else {
		p.copyPaged(b, n-linear)
		it.Advance(n - linear)
	}
	if (p.raw() && n < HardHeaderLen) || n > p.Route.MTU+p.reserve() {
		err := kernel.EINVAL
		if n > p.Route.MTU+p.reserve() {
			err = kernel.EMSGSIZE
		}
		if res.Uarg != nil {
			res.Uarg.PutAbort(holder, false)
		}
		b.Free()
		return sock.SendResult{N: -1, Err: err, Outcome: res.Outcome}
	}
	p.charge(b, p.Sk)
	p.Sk.SetupTxTimestamp(b, tsflags) // packet_snd: skb_setup_tx_timestamp
	p.Net.Xmit(sock.Packet{Skb: b, From: p.Sk})
	return res
}

// copyPaged models the paged part of packet_alloc_skb
// (alloc_skb_with_frags, pages of up to PAGE_ALLOC_COSTLY_ORDER) and the
// copy into it (skb_copy_datagram_from_iter).
func (p *Sock) copyPaged(b *skb.Buff, n int) {
	for n > 0 {
		pg := mm.AllocPages(p.host(), costlyOrder)
		chunk := min(n, pg.Size())
		b.AppendPageFrag(pg, 0, chunk)
		pg.Put()
		n -= chunk
	}
}
