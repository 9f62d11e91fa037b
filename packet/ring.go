package packet

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// Status is a TX ring frame's tp_status (include/uapi/linux/if_packet.h).
type Status uint32

// Frame states of a TX ring.
const (
	// TP_STATUS_AVAILABLE: the frame belongs to the user.
	TP_STATUS_AVAILABLE Status = 0
	// TP_STATUS_SEND_REQUEST: the user filled it and asks for it to be sent.
	TP_STATUS_SEND_REQUEST Status = 1
	// TP_STATUS_SENDING: an skb references it.
	TP_STATUS_SENDING Status = 2
	// TP_STATUS_WRONG_FORMAT: tpacket_snd refused it.
	TP_STATUS_WRONG_FORMAT Status = 4
)

// TPacket2HdrLen is TPACKET2_HDRLEN, the frame header plus the
// sockaddr_ll (the smallest frame); FrameDataOff is where a TPACKET_V2 TX
// frame's data starts (tp_hdrlen - sizeof(struct sockaddr_ll)); and
// TPacketAlignment is TPACKET_ALIGNMENT.
const (
	TPacket2HdrLen   = 52
	FrameDataOff     = 32
	TPacketAlignment = 16
)

// TpacketReq is struct tpacket_req, the argument of PACKET_TX_RING.
type TpacketReq struct {
	BlockSize, BlockNr, FrameSize, FrameNr int
}

// Ring is a PACKET_TX_RING (TPACKET_V2): blocks of memory mapped into the
// process, cut into frames, each with a status word and a length.
//
// Ownership: the ring's pages belong to the mapping (Buf); an skb built
// from a frame references them as frags, one per page the frame's data
// spans, until the skb is freed.
type Ring struct {
	// Buf is the ring memory as the process maps it.
	Buf    *mm.Buffer
	req    TpacketReq
	status []Status
	length []int
	head   int
	// xmitting is set while tpacket_snd is inside dev_queue_xmit, and
	// early lists the frames given back meanwhile while ring pages were
	// still referenced (see frameOwner.Uncharge).
	xmitting bool
	early    []earlyReturn
}

// Frames returns the number of frames.
func (r *Ring) Frames() int { return len(r.status) }

// Status returns frame i's tp_status; a frame outside the ring reads as
// TP_STATUS_AVAILABLE (the zero Status).
func (r *Ring) Status(i int) Status {
	if i < 0 || i >= len(r.status) {
		return TP_STATUS_AVAILABLE
	}
	return r.status[i]
}

// Request is what the process does to send from the ring: write n bytes
// into frame i, set tp_len and then tp_status = TP_STATUS_SEND_REQUEST.
// Writing a frame the kernel still owns is the misuse bug B3 made
// invisible; it returns false and changes nothing, as it does for a frame
// outside the ring or a negative length.
func (r *Ring) Request(i, n int) bool {
	if i < 0 || i >= len(r.status) || n < 0 ||
		r.status[i] == TP_STATUS_SENDING || r.status[i] == TP_STATUS_SEND_REQUEST {
		return false
	}
	r.length[i], r.status[i] = n, TP_STATUS_SEND_REQUEST
	return true
}

// frameOffset is where frame i starts in the ring memory.
func (r *Ring) frameOffset(i int) int {
	perBlock := r.req.BlockSize / r.req.FrameSize
	return i/perBlock*r.req.BlockSize + i%perBlock*r.req.FrameSize
}

// SetTxRing models packet_set_ring for PACKET_TX_RING with TPACKET_V2,
// not closing. First, EBUSY while the ring is mapped or frames are
// pending (packet_read_pending). A request with blocks sets a ring up:
// EBUSY if one exists; EINVAL unless the block size is a positive
// multiple of the page size, the frame size is at least TPACKET2_HDRLEN
// and a multiple of TPACKET_ALIGNMENT, a block holds at least one frame
// and the frame count is frames per block × blocks; ENOMEM beyond
// MaxRing. A request without
// blocks tears the ring down, EINVAL if it still names frames. Either
// way a running protocol hook is unhooked (synchronize_net) and hooked
// again.
func (p *Sock) SetTxRing(req TpacketReq) kernel.Errno {
	if p.mapped > 0 || p.ReadPending() != 0 {
		return kernel.EBUSY
	}
	switch {
	case req.BlockNr == 0 && req.FrameNr != 0:
		return kernel.EINVAL
	case req.BlockNr == 0:
	case p.ring != nil:
		return kernel.EBUSY
	case req.BlockSize <= 0 || req.BlockSize%kernel.PageSize != 0 || req.BlockNr < 0,
		req.FrameSize < TPacket2HdrLen || req.FrameSize%TPacketAlignment != 0,
		req.BlockSize/req.FrameSize == 0,
		req.BlockSize/req.FrameSize*req.BlockNr != req.FrameNr:
		return kernel.EINVAL
	case req.BlockSize*req.BlockNr > MaxRing:
		return kernel.ENOMEM
	}
	if p.hook.running {
		p.hook.syncs++
	}
	if req.BlockNr == 0 {
		p.ring = nil
		p.Sk.Note(kernel.Entry{Op: kernel.OpTxRing})
		return 0
	}
	p.ring = &Ring{
		Buf:    mm.NewBuffer(p.host(), req.BlockSize*req.BlockNr),
		req:    req,
		status: make([]Status, req.FrameNr),
		length: make([]int, req.FrameNr),
	}
	p.Sk.Note(kernel.Entry{Op: kernel.OpTxRing, Args: [4]int64{int64(req.FrameNr), int64(req.FrameSize)}})
	return 0
}

// MaxRing is the largest ring the model allocates: beyond it SetTxRing
// fails as alloc_pg_vec does when the pages cannot be had (ENOMEM).
const MaxRing = 64 << 20

// Mmap models packet_mmap of the TX ring: EINVAL without a ring, else
// po->mapped is incremented, which makes the ring unchangeable.
func (p *Sock) Mmap() kernel.Errno {
	if p.ring == nil {
		return kernel.EINVAL
	}
	p.mapped++
	return 0
}

// Munmap models munmap of the ring (packet_mm_close): one mapping fewer.
// Unmapping what is not mapped does nothing and succeeds, as munmap does.
func (p *Sock) Munmap() {
	if p.mapped > 0 {
		p.mapped--
	}
}

// Mapped reports whether the ring is mapped.
func (p *Sock) Mapped() bool { return p.mapped > 0 }

// tpacketSnd models tpacket_snd: from the ring's head, send every frame in
// TP_STATUS_SEND_REQUEST, in order. For each: tp_len above the frame or
// the MTU plus the link-layer reserve is EMSGSIZE, a SOCK_RAW frame
// shorter than the link-layer header EINVAL — the frame is marked
// TP_STATUS_WRONG_FORMAT and the call returns that error, unless
// PACKET_LOSS is set: then the frame is given back (TP_STATUS_AVAILABLE),
// the head moves on and the loop goes on (tpacket_error). Otherwise an skb
// (sock_alloc_send_skb; if it fails, the bytes sent so far or the error)
// gets the link-layer header copied and the rest of the frame as frags of
// the ring pages (tpacket_fill_skb), is marked zerocopy without a uarg
// (skb_zcopy_set_nouarg, so a clone or orphan copies the frags; missing
// under kernel.BugRingNoCopy), gets tpacket_destruct_skb as destructor, the frame
// becomes TP_STATUS_SENDING and pending is incremented; dev_queue_xmit.
// Without MSG_DONTWAIT the call then waits until no frame is pending (see
// Wait; ETIMEDOUT when the wait ends). It returns the bytes sent. No
// notification is queued: completion is the frame's status.
func (p *Sock) tpacketSnd(flags kernel.MsgFlags, tsflags kernel.Timestamping) sock.SendResult {
	r := p.ring
	needWait := flags&kernel.MSG_DONTWAIT == 0
	sizeMax := min(r.req.FrameSize-FrameDataOff, p.Route.MTU+p.reserve()+VlanHLen)
	sum := 0
	for waits := 0; ; {
		i := r.head
		if r.status[i] != TP_STATUS_SEND_REQUEST {
			if !needWait || p.ReadPending() == 0 {
				break
			}
			if p.Wait == nil || waits == maxWaits || !p.Wait() {
				return sock.Fail(kernel.ETIMEDOUT)
			}
			waits++
			continue
		}
		tpLen := r.length[i]
		if tpLen > sizeMax {
			if p.tpacketError(i, nil) {
				continue
			}
			return sock.Fail(kernel.EMSGSIZE)
		}
		b, err := p.allocSendSkb(0, !needWait)
		if err != 0 {
			if sum > 0 {
				return sock.SendResult{N: sum}
			}
			return sock.Fail(err)
		}
		if err := p.fillSkb(b, i, tpLen); err != 0 {
			if p.tpacketError(i, b) {
				continue
			}
			return sock.Fail(err)
		}
		p.charge(b, &frameOwner{p: p, ring: r, frame: i, skb: b})
		r.status[i] = TP_STATUS_SENDING
		p.pending.inc(p.cpu())
		p.checkPending()
		r.xmit(p, b, tsflags)
		r.head = (i + 1) % len(r.status)
		sum += tpLen
	}
	return sock.SendResult{N: sum}
}

// fillSkb models tpacket_fill_skb: mark the skb nouarg, copy a SOCK_RAW
// frame's link-layer header into the linear part (EINVAL if the frame is
// shorter: dev_validate_header), and reference the rest of the frame as
// one frag per page it spans (EFAULT past MAX_SKB_FRAGS). Then the MTU
// check (EMSGSIZE).
func (p *Sock) fillSkb(b *skb.Buff, i, tpLen int) kernel.Errno {
	r := p.ring
	if !p.host().Profile.Bugs.Has(kernel.BugRingNoCopy) {
		b.SetNoUarg()
	}
	data := r.frameOffset(i) + FrameDataOff
	toWrite := tpLen
	if p.raw() {
		if tpLen < HardHeaderLen {
			return kernel.EINVAL
		}
		b.LinearCap = HardHeaderLen
		b.AppendLinear(HardHeaderLen)
		data += HardHeaderLen
		toWrite -= HardHeaderLen
	}
	s := b.Shinfo()
	b.Len += toWrite
	b.DataLen += toWrite
	b.Truesize += toWrite
	for toWrite > 0 {
		if len(s.Frags) >= kernel.MaxSkbFrags {
			return kernel.EFAULT
		}
		off := data % kernel.PageSize
		n := min(kernel.PageSize-off, toWrite)
		pg := r.Buf.Page(data / kernel.PageSize)
		pg.Get()
		s.AddFrag(skb.Frag{Page: pg, Off: off, Size: n})
		data += n
		toWrite -= n
	}
	if tpLen > p.Route.MTU+p.reserve() {
		return kernel.EMSGSIZE
	}
	return 0
}

// frameOwner is tpacket_destruct_skb: the destructor of an skb built from
// ring frame frame.
type frameOwner struct {
	p     *Sock
	ring  *Ring
	frame int
	skb   *skb.Buff
}

// Uncharge runs tpacket_destruct_skb: if the ring still exists, decrement
// the pending count and give the frame back (TP_STATUS_AVAILABLE); then
// sock_wfree. Giving a frame back while an skb — a clone sharing the
// frags, or this skb itself when orphaned early — still references ring
// pages lets the user overwrite data in flight (bug B3): that is reported
// as a violation of kernel.RuleNotifyAfterPages. A frame given back inside
// dev_queue_xmit (loopback_xmit orphans the skb before netif_rx) is judged
// when dev_queue_xmit returns: by then the receive softirq has run in the
// same call, and skb_orphan_frags_rx has copied the frags of a nouarg skb,
// so a single-threaded program cannot see the frame early.
func (o *frameOwner) Uncharge(d skb.Destructor, truesize int) {
	p := o.p
	if r := o.ring; p.ring == r && r != nil {
		p.pending.dec(p.cpu())
		r.status[o.frame] = TP_STATUS_AVAILABLE
		p.checkPending()
		reachable := o.skb.Users() > 0 || o.skb.Shinfo().Dataref() > 1
		switch sh := o.skb.Shinfo(); {
		case !reachable || !r.references(sh):
		case r.xmitting:
			r.early = append(r.early, earlyReturn{o, sh})
		default:
			o.violate()
		}
	}
	p.Sk.Uncharge(d, truesize)
}

// Charged is skb->sk: tpacket_destruct_skb ends in sock_wfree on the
// packet socket, so the skb holds its sk_wmem_alloc charge until then.
func (o *frameOwner) Charged() *sock.Sock { return o.p.Sk }

func (o *frameOwner) violate() {
	o.skb.Violate(kernel.RuleNotifyAfterPages,
		"TX ring frame %d returned to the user while ring pages are still referenced", o.frame)
}

// earlyReturn is a frame given back inside dev_queue_xmit while the
// shared info sh of its skb still referenced ring pages.
type earlyReturn struct {
	*frameOwner
	sh *skb.SharedInfo
}

// xmit runs dev_queue_xmit for b, then judges the frames given back
// during it: still a violation if an skb still shares sh's ring frags.
func (r *Ring) xmit(p *Sock, b *skb.Buff, tsflags kernel.Timestamping) {
	r.xmitting = true
	p.Sk.SetupTxTimestamp(b, tsflags) // tpacket_snd: skb_setup_tx_timestamp
	p.Net.Xmit(sock.Packet{Skb: b, From: p.Sk})
	r.xmitting = false
	for _, e := range r.early {
		if e.sh.Dataref() > 0 && r.references(e.sh) {
			e.violate()
		}
	}
	r.early = r.early[:0]
}

// references reports whether sh's frags point into the ring.
func (r *Ring) references(sh *skb.SharedInfo) bool {
	for _, f := range sh.Frags {
		for _, pg := range r.Buf.Present() {
			if f.Page == pg {
				return true
			}
		}
	}
	return false
}

// tpacketError models tpacket_error for frame i (and the skb built for
// it, if any): with PACKET_LOSS the frame is given back
// (TP_STATUS_AVAILABLE), the head moves past it, the skb is freed, and the
// send goes on (true); without, the frame is TP_STATUS_WRONG_FORMAT and the
// call fails (false).
func (p *Sock) tpacketError(i int, b *skb.Buff) bool {
	r := p.ring
	if b != nil {
		b.Free()
	}
	if !p.tpLoss {
		r.status[i] = TP_STATUS_WRONG_FORMAT
		return false
	}
	r.status[i] = TP_STATUS_AVAILABLE
	r.head = (i + 1) % len(r.status)
	return true
}

// cpu is the CPU the current step runs on.
func (p *Sock) cpu() int {
	if p.CPU == nil {
		return 0
	}
	return p.CPU() % NrCPUs
}

// NrCPUs is the number of possible CPUs of the model's host: the size of
// a per-CPU counter.
const NrCPUs = 4

// pendingRefcnt is tx_ring.pending_refcnt, an unsigned int per possible
// CPU: packet_inc_pending increments the counter of the CPU it runs on,
// packet_dec_pending decrements that of the CPU it runs on, each modulo
// 2^32. One counter alone means nothing; their sum modulo 2^32 is the
// number of frames in flight. The zero value counts none.
type pendingRefcnt [NrCPUs]uint32

func (c *pendingRefcnt) inc(cpu int) { c[cpu]++ }
func (c *pendingRefcnt) dec(cpu int) { c[cpu]-- }

// ReadPending models packet_read_pending: the sum of the per-CPU counters
// in unsigned 32-bit arithmetic, right even when counters have wrapped.
// Under kernel.BugPendingSigned each counter is read as a signed int and
// summed into a wider signed type — not "all the arithmetic unsigned and
// the variables all the same type", the review's condition — which is off
// by a multiple of 2^32 once the counters' signed values overflow.
func (p *Sock) ReadPending() int64 {
	if p.host().Profile.Bugs.Has(kernel.BugPendingSigned) {
		var sum int64
		for _, c := range p.pending {
			sum += int64(int32(c))
		}
		return sum
	}
	var sum uint32
	for _, c := range p.pending {
		sum += c
	}
	return int64(sum)
}

// PendingCPU returns CPU cpu's counter as it stands, 0 for a CPU outside
// the model.
func (p *Sock) PendingCPU(cpu int) uint32 {
	if cpu < 0 || cpu >= NrCPUs {
		return 0
	}
	return p.pending[cpu]
}

// Skew changes the per-CPU counters as n frames sent on CPU from and
// completed on CPU to would have (from's counter up by n, to's down by n,
// modulo 2^32): the shortcut a lesson on wrapped counters needs, for
// there is no time to send 2^31 frames. It changes no sum, and no frame.
func (p *Sock) Skew(n uint32, from, to int) {
	p.pending[from%NrCPUs] += n
	p.pending[to%NrCPUs] -= n
	p.checkPending()
}

// checkPending is the ring's invariant: packet_read_pending equals the
// number of frames in TP_STATUS_SENDING; a reader that disagrees (the
// signed sum of kernel.BugPendingSigned) is reported as a violation of
// kernel.RuleAccounting.
func (p *Sock) checkPending() {
	if p.ring == nil {
		return
	}
	sending := 0
	for _, st := range p.ring.status {
		if st == TP_STATUS_SENDING {
			sending++
		}
	}
	if got := p.ReadPending(); got != int64(sending) {
		p.Sk.Violate(kernel.RuleAccounting, "packet_read_pending is %d, but %d frames are TP_STATUS_SENDING (per-CPU counters %v)",
			got, sending, p.pending)
	}
}

// protHook is po->prot_hook as far as bind is concerned: the protocol
// (po->num), the device (ifindex, 0 for every device), whether the hook is
// registered (PACKET_SOCK_RUNNING), and how many times it was unhooked,
// each costing a synchronize_net.
type protHook struct {
	proto   kernel.Protocol
	ifindex int
	running bool
	syncs   int
}

// Bind models packet_do_bind with the re-hook avoidance of seed 002
// ("packet: improve socket create/bind latency in some cases", v3.14):
// when the protocol and the device are those already hooked, nothing is
// done — no unregister_prot_hook, no synchronize_net, no register. Else
// the hook is unregistered (a synchronize_net when it was running), the
// new protocol and device are set, and the hook is registered again unless
// the protocol is 0. A bind with protocol 0 keeps the socket's protocol
// (packet_bind: sll_protocol ? : po->num). It reports whether it re-hooked.
func (p *Sock) Bind(proto kernel.Protocol, ifindex int) bool {
	if proto == 0 {
		proto = p.hook.proto
	}
	h := &p.hook
	if h.proto == proto && h.ifindex == ifindex {
		return false
	}
	if h.running {
		h.syncs++
		h.running = false
	}
	h.proto, h.ifindex = proto, ifindex
	h.running = proto != 0
	return true
}

// Hook returns the socket's hook: protocol, ifindex, whether it is
// registered, and how many synchronize_net calls unhooking it cost.
func (p *Sock) Hook() (proto kernel.Protocol, ifindex int, running bool, syncs int) {
	h := p.hook
	return h.proto, h.ifindex, h.running, h.syncs
}
