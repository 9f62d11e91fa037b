package udp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// Sendmsg models send(2), or sendmsg(2) without msg_name: the datagram
// goes to the address connect set. An unconnected socket fails with
// EDESTADDRREQ right after the first checks (sendChecks) — unless UDP has
// a corked datagram pending, which takes the append without an address
// (udp_sendmsg's and udpv6_sendmsg's up->pending, before the address;
// raw_sendmsg has no such shortcut). Otherwise it is Sendto. An AF_INET6
// UDP socket, v4-mapped too, fails with EDESTADDRREQ before any check:
// udpv6_sendmsg looks at the destination before it hands a v4-mapped one
// to udp_sendmsg, whose length check would say EMSGSIZE.
func (u *Sock) Sendmsg(iov []mm.Iovec, flags kernel.MsgFlags) sock.SendResult {
	if u.connected || u.pending && !u.raw() {
		return u.Sendto(iov, flags)
	}
	a := u.newCall(iov)
	if u.Sk.Family == kernel.AF_INET6 && !u.raw() {
		return a.result(-1, kernel.EDESTADDRREQ)
	}
	if err := u.sendChecks(a.it.Count(), flags); err != 0 {
		return a.result(-1, err)
	}
	return a.result(-1, kernel.EDESTADDRREQ)
}

// sendChecks are the checks udp_sendmsg, raw_sendmsg and rawv6_sendmsg
// make before the destination: more than 65535 bytes is EMSGSIZE (IPv4
// only: IPv6 checks the length later, in ip6_append_data), then MSG_OOB
// EOPNOTSUPP ("Mirror BSD error message compatibility"). udpv6_sendmsg
// makes neither: MSG_OOB is ignored there.
func (u *Sock) sendChecks(n int, flags kernel.MsgFlags) kernel.Errno {
	switch {
	case u.v6() && !u.raw():
		return 0
	case n > 0xFFFF && !u.v6():
		check := "udp_sendmsg: the payload"
		if u.raw() {
			check = "raw_sendmsg: the payload"
		}
		u.Sk.Note(kernel.Entry{Op: kernel.OpTooLong, Str: check, Args: [4]int64{int64(n), 0xFFFF}})
		return kernel.EMSGSIZE
	case flags&kernel.MSG_OOB != 0:
		return kernel.EOPNOTSUPP
	}
	return 0
}

// Sendto models sendto(2), or sendmsg(2) with msg_name, to the socket's
// peer: udp_sendmsg / udpv6_sendmsg, or raw_sendmsg for a RAW socket.
//
// UDP: first sendChecks (IPv4: more than 65535 bytes is EMSGSIZE and
// MSG_OOB EOPNOTSUPP; IPv6 neither). The control messages (Sk.CmsgSend) are parsed next, unless the call appends
// to a pending datagram, which skips them. Without
// corking (neither UDP_CORK nor MSG_MORE, nothing pending) ip_make_skb
// builds the datagram on a private queue (payload + 8 bytes appended) and
// udp_send_skb transmits it. Otherwise the data is appended to the pending
// datagram on sk_write_queue — the first append with the UDP header, later
// ones without — with MSG_MORE added while corked; an error discards the
// whole pending datagram (udp_flush_pending_frames) and the last uncorked
// append pushes it (udp_push_pending_frames).
//
// On success N is the payload length.
func (u *Sock) Sendto(iov []mm.Iovec, flags kernel.MsgFlags) sock.SendResult {
	a := u.newCall(iov)
	flags = u.dontwait(flags)
	if u.raw() {
		return u.rawSendmsg(a, flags)
	}
	n := a.it.Count()
	if err := u.sendChecks(n, flags); err != 0 {
		return a.result(-1, err)
	}
	corkreq := u.corked || flags&kernel.MSG_MORE != 0
	ulen, transhdrlen := n, 0
	if !u.pending {
		// The control messages: an append to a pending datagram skips
		// them, so they apply to the datagram of the call that opens the
		// cork (measured on 6.18).
		ipc, err := u.cmsgSend()
		if err != 0 {
			return a.result(-1, err)
		}
		ulen, transhdrlen = n+UDPHeaderLen, UDPHeaderLen
		if !corkreq {
			c := u.setupCork(ipc)
			if err := u.ipAppendData(&c, a, ulen, transhdrlen, flags); err != 0 {
				u.flushQueue(&c)
				return a.result(-1, err)
			}
			sent := c
			r := a.result(n, u.udpSendSkb(u.makeSkb(&c), sent))
			r.FailedAfterID = r.ZC && r.Err != 0
			return r
		}
		u.pending = true
		u.cork = u.setupCork(ipc)
	}
	if corkreq {
		flags |= kernel.MSG_MORE
	}
	err := u.ipAppendData(&u.cork, a, ulen, transhdrlen, flags)
	pushed := false
	switch {
	case err != 0:
		u.flushPending()
	case !corkreq:
		err, pushed = u.pushPending(), true
	case len(u.cork.queue) == 0:
		u.pending = false
	}
	r := a.result(n, err)
	// udp_push_pending_frames → udp_send_skb refuses the datagram after
	// this call's append took its id: the freed skb completes the uarg.
	r.FailedAfterID = pushed && r.ZC && r.Err != 0
	return r
}

// flushQueue models __ip_flush_pending_frames: free every queued skb.
func (u *Sock) flushQueue(c *cork) {
	for _, e := range c.queue {
		e.b.Free()
	}
	*c = cork{}
}

// flushPending models udp_flush_pending_frames / ip_flush_pending_frames:
// discard the corked datagram. Ids its appends consumed are still
// notified, when the uargs' last skb goes.
func (u *Sock) flushPending() {
	u.flushQueue(&u.cork)
	u.pending = false
}

// pushPending models udp_push_pending_frames (ip_push_pending_frames on
// RAW): build the corked datagram and send it.
func (u *Sock) pushPending() kernel.Errno {
	c := u.cork
	b := u.makeSkb(&u.cork)
	u.pending = false
	if b == nil {
		return 0
	}
	if u.raw() {
		u.ipSendSkb(b)
		return 0
	}
	return u.udpSendSkb(b, c)
}

// makeSkb models __ip_make_skb: the first queued skb becomes the datagram
// and the others its frag_list (their headers pulled, their truesize and
// its charge moved to the head); the cork is released.
func (u *Sock) makeSkb(c *cork) *skb.Buff {
	if len(c.queue) == 0 {
		return nil
	}
	head := c.queue[0].b
	s := head.Shinfo()
	for _, e := range c.queue[1:] {
		e.b.Orphan()
		u.Sk.WmemAlloc += e.b.Truesize
		head.Truesize += e.b.Truesize
		s.FragList = append(s.FragList, e.b)
		head.Len += e.b.Len
		head.DataLen += e.b.Len
	}
	*c = cork{}
	head.Note(kernel.Entry{Op: kernel.OpMakeSkb, Args: [4]int64{int64(head.Len), int64(len(s.FragList) + 1)}})
	return head
}

// udpSendSkb models udp_send_skb / udp_v6_send_skb for a datagram with
// datalen bytes of payload. With UDP_SEGMENT: EMSGSIZE when one segment
// with its headers exceeds the MTU, EINVAL beyond UDP_MAX_SEGMENTS
// segments — the skb is then freed, and the ids its uarg carries are
// notified although the call fails; a datagram longer than gso_size gets
// gso_size and gso_segs for the device to segment. Then ip_send_skb.
func (u *Sock) udpSendSkb(b *skb.Buff, c cork) kernel.Errno {
	if c.gsoSize > 0 {
		datalen := b.Len
		hlen := u.Sk.IPHeaderLen() + UDPHeaderLen
		if hlen+min(datalen, c.gsoSize) > c.fragsize {
			b.Free()
			return kernel.EMSGSIZE
		}
		if datalen > c.gsoSize*MaxSegments {
			b.Free()
			return kernel.EINVAL
		}
		if datalen > c.gsoSize {
			b.Shinfo().GSOSize = c.gsoSize
			b.Segs = (datalen + c.gsoSize - 1) / c.gsoSize
		}
	}
	u.ipSendSkb(b)
	return 0
}

// ipSendSkb models ip_send_skb → ip_output: a datagram built of several
// fragments (a frag_list and no GSO) is split by ip_do_fragment's fast
// path, each fragment a packet of its own charged to the socket
// (sock_wfree); then each packet goes to the network, which owns it.
func (u *Sock) ipSendSkb(b *skb.Buff) {
	s := b.Shinfo()
	frags := s.FragList
	if s.GSOSize == 0 && len(frags) > 0 {
		s.FragList = nil
		for _, f := range frags {
			b.Truesize -= f.Truesize
			b.Len -= f.Len
			b.DataLen -= f.Len
			f.SetOwner(u.Sk, skb.SockWfree)
		}
		b.Note(kernel.Entry{Op: kernel.OpFragment, Args: [4]int64{int64(len(frags) + 1)}})
	} else {
		frags = nil
	}
	u.ipID++ // ip_select_ident
	off := b.Len
	u.Net.Xmit(sock.Packet{Skb: b, From: u.Sk, MoreFrags: len(frags) > 0, IPID: u.ipID})
	for i, f := range frags {
		u.Net.Xmit(sock.Packet{Skb: f, From: u.Sk, MoreFrags: i < len(frags)-1, IPID: u.ipID, FragOff: off})
		off += f.Len
	}
}

// ipcm is the part of struct ipcm_cookie the model reads: the call's
// sockcm cookie and its gso_size (UDP_SEGMENT).
type ipcm struct {
	sockc   sock.Sockcm
	gsoSize int
}

// cmsgSend models how udp_sendmsg and udpv6_sendmsg parse the call's
// control messages, starting from the socket's settings (ipcm_init_sk,
// up->gso_size): udp_cmsg_send takes the SOL_UDP ones — UDP_SEGMENT, a u16
// (any other length EINVAL; measured on 6.18: 1000 on a 3000-byte send
// gives three datagrams, a u32 EINVAL, 0 or at least the length one
// datagram), sets the call's gso_size; any other type is EINVAL — where
// the profile has it (UDPSegment: before v4.18 udp_sendmsg called
// ip_cmsg_send alone, which skips SOL_UDP). If a message of another level
// is present, ip_cmsg_send (ip6_datagram_send_ctl on AF_INET6) hands each
// SOL_SOCKET one to __sock_cmsg_send (sock.Sock.SockCmsg), then the
// SCM_ZC_NOTIFICATION; other levels are skipped (measured: level 1234 is
// ignored). A RAW socket has only ip_cmsg_send (raw_sendmsg). The first
// error fails the call as it is.
func (u *Sock) cmsgSend() (ipcm, kernel.Errno) {
	ipc := ipcm{sockc: u.Sk.InitSockcm(), gsoSize: u.gsoSize}
	ctl := u.Sk.Control
	if ctl == nil {
		return ipc, 0
	}
	needIP := u.raw() || !u.host().Profile.UDPSegment || ctl.Zc != nil
	if !needIP {
		for _, m := range ctl.Msgs {
			if m.Type.Level != kernel.SOL_UDP {
				needIP = true
				continue
			}
			if m.Type != kernel.SCM_UDP_SEGMENT || m.Len != 2 {
				return ipc, kernel.EINVAL
			}
			ipc.gsoSize = int(uint16(m.Data))
		}
	}
	if !needIP {
		return ipc, 0
	}
	for _, m := range ctl.Msgs {
		if m.Type.Level != kernel.SOL_SOCKET {
			continue
		}
		if err := u.Sk.SockCmsg(m, &ipc.sockc); err != 0 {
			return ipc, err
		}
	}
	return ipc, u.Sk.ZcCmsg()
}
