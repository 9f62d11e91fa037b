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

// SetTxRing models packet_set_ring for PACKET_TX_RING with TPACKET_V2:
// EBUSY while a ring exists or frames are pending; EINVAL unless the block
// size is a positive multiple of the page size, the frame size is at least
// TPACKET2_HDRLEN and a multiple of TPACKET_ALIGNMENT, a block holds at
// least one frame and the frame count is frames per block × blocks.
func (p *Sock) SetTxRing(req TpacketReq) kernel.Errno {
	if p.ring != nil || p.pending > 0 {
		return kernel.EBUSY
	}
	switch {
	case req.BlockSize <= 0 || req.BlockSize%kernel.PageSize != 0 || req.BlockNr <= 0,
		req.FrameSize < TPacket2HdrLen || req.FrameSize%TPacketAlignment != 0,
		req.BlockSize/req.FrameSize == 0,
		req.BlockSize/req.FrameSize*req.BlockNr != req.FrameNr:
		return kernel.EINVAL
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

// tpacketSnd models tpacket_snd: from the ring's head, send every frame in
// TP_STATUS_SEND_REQUEST, in order. For each: tp_len above the frame or
// the MTU plus the link-layer reserve is EMSGSIZE, a SOCK_RAW frame
// shorter than the link-layer header EINVAL — the frame is marked
// TP_STATUS_WRONG_FORMAT and the call returns that error. Otherwise an skb
// (sock_alloc_send_skb; if it fails, the bytes sent so far or the error)
// gets the link-layer header copied and the rest of the frame as frags of
// the ring pages (tpacket_fill_skb), is marked zerocopy without a uarg
// (skb_zcopy_set_nouarg, so a clone or orphan copies the frags; missing
// under kernel.BugRingNoCopy), gets tpacket_destruct_skb as destructor, the frame
// becomes TP_STATUS_SENDING and pending is incremented; dev_queue_xmit.
// Without MSG_DONTWAIT the call then waits until no frame is pending (see
// Wait; ETIMEDOUT when the wait ends). It returns the bytes sent. No
// notification is queued: completion is the frame's status.
func (p *Sock) tpacketSnd(flags kernel.MsgFlags) sock.SendResult {
	r := p.ring
	needWait := flags&kernel.MSG_DONTWAIT == 0
	sizeMax := min(r.req.FrameSize-FrameDataOff, p.Route.MTU+p.reserve()+VlanHLen)
	sum := 0
	for waits := 0; ; {
		i := r.head
		if r.status[i] != TP_STATUS_SEND_REQUEST {
			if !needWait || p.pending == 0 {
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
			r.status[i] = TP_STATUS_WRONG_FORMAT
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
			r.status[i] = TP_STATUS_WRONG_FORMAT
			b.Free()
			return sock.Fail(err)
		}
		p.charge(b, &frameOwner{p: p, ring: r, frame: i, skb: b})
		r.status[i] = TP_STATUS_SENDING
		p.pending++
		p.Net.Xmit(sock.Packet{Skb: b, From: p.Sk})
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
		s.Frags = append(s.Frags, skb.Frag{Page: pg, Off: off, Size: n})
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
// as a violation of kernel.RuleNotifyAfterPages.
func (o *frameOwner) Uncharge(d skb.Destructor, truesize int) {
	p := o.p
	if p.ring == o.ring && o.ring != nil {
		p.pending--
		o.ring.status[o.frame] = TP_STATUS_AVAILABLE
		reachable := o.skb.Users() > 0 || o.skb.Shinfo().Dataref() > 1
		if reachable && o.ring.references(o.skb) {
			o.skb.Violate(kernel.RuleNotifyAfterPages,
				"TX ring frame %d returned to the user while ring pages are still referenced", o.frame)
		}
	}
	p.Sk.Uncharge(d, truesize)
}

// references reports whether b's frags point into the ring.
func (r *Ring) references(b *skb.Buff) bool {
	for _, f := range b.Shinfo().Frags {
		for _, pg := range r.Buf.Present() {
			if f.Page == pg {
				return true
			}
		}
	}
	return false
}
