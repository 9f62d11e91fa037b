package tcp

import (
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// RxMapping is the VMA tcp_mmap prepared on the socket: address space of
// whole pages into which getsockopt(TCP_ZEROCOPY_RECEIVE) inserts
// received pages (vm_insert_pages). Offsets are from the mapping's start.
//
// Ownership: each filled slot holds one reference on its page, taken by
// the insertion (get_page in insert_page) and dropped when the slot is
// zapped (zap_page_range, before the next insertion over it) or the
// mapping is unmapped. The skb the page came from is freed as soon as its
// bytes are consumed; the page lives on in the mapping.
type RxMapping struct {
	npages int
	// length is the length the program gave mmap, which it passes on
	// as the request's length (Length).
	length int
	// filled lists the slots holding a page, by slot index.
	filled []slot
}

type slot struct {
	index int
	page  *mm.Page
}

// Len returns the mapping's size in bytes: its whole pages.
func (m *RxMapping) Len() int { return m.npages * kernel.PageSize }

// Length returns the length the program asked mmap for, which a program
// passes on as TCP_ZEROCOPY_RECEIVE's length: less than Len for a length
// that is not a whole number of pages.
func (m *RxMapping) Length() int { return m.length }

// Pages returns the pages mapped, in address order.
func (m *RxMapping) Pages() []*mm.Page {
	out := make([]*mm.Page, len(m.filled))
	for i, s := range m.filled {
		out[i] = s.page
	}
	return out
}

// zap models zap_page_range over n slots from slot first: each page there
// loses the mapping's reference.
func (m *RxMapping) zap(first, n int) {
	m.filled = slices.DeleteFunc(m.filled, func(s slot) bool {
		if s.index >= first && s.index < first+n {
			s.page.Put()
			return true
		}
		return false
	})
}

// insert models vm_insert_pages at slot first: each page gets the
// mapping's reference. The slots were zapped before.
func (m *RxMapping) insert(first int, pages []*mm.Page) {
	for i, p := range pages {
		p.Get()
		m.filled = append(m.filled, slot{first + i, p})
	}
	slices.SortFunc(m.filled, func(a, b slot) int { return a.index - b.index })
}

// Mmap models mmap(2) of n bytes with protection prot on the socket:
// tcp_mmap refuses a writable or executable mapping (EPERM) and otherwise
// sets up an empty VMA; a length of 0 is do_mmap's EINVAL, and a profile
// without TCP zerocopy receive has no tcp_mmap (sock_no_mmap: ENODEV). The
// model keeps one mapping per socket: a new one replaces the old, which
// is unmapped.
func (c *Conn) Mmap(n int, prot kernel.Prot) kernel.Errno {
	switch {
	case c.host().Profile.TCPZerocopyRecv == 0:
		return kernel.ENODEV
	case n <= 0:
		return kernel.EINVAL
	case prot&(kernel.PROT_WRITE|kernel.PROT_EXEC) != 0:
		return kernel.EPERM
	}
	c.Munmap()
	c.rxMap = &RxMapping{npages: (n + kernel.PageSize - 1) / kernel.PageSize, length: n}
	return 0
}

// MmapConsume models the seed's tcp_mmap (Profile.TCPMmapConsumes): an
// mmap(2) of n bytes maps the next whole pages of the receive queue and
// consumes them, as a read would. A writable mapping is EPERM, a
// listener ENOTCONN; fewer bytes unread than the mapping's pages is EIO
// after the FIN, else EAGAIN (it never blocks); any page of them that is
// not a whole page frag at offset 0 (data in the linear head, a frag_list,
// a partial or offset frag) is EINVAL, and then nothing is consumed: the
// program must fall back to recvmsg. lockSock is called where tcp_mmap
// takes the socket lock (inside mmap_sem), after the checks of the
// mapping itself; the caller releases it.
func (c *Conn) MmapConsume(n int, prot kernel.Prot, lockSock func()) kernel.Errno {
	switch {
	case n <= 0:
		return kernel.EINVAL
	case prot&kernel.PROT_WRITE != 0:
		return kernel.EPERM
	}
	lockSock()
	if c.Sk.State == sock.LISTEN {
		return kernel.ENOTCONN
	}
	size := (n + kernel.PageSize - 1) &^ (kernel.PageSize - 1)
	if c.Queued() < size {
		if c.rcvFin {
			return kernel.EIO
		}
		return kernel.EAGAIN
	}
	var pages []*mm.Page
	for i := 0; len(pages)*kernel.PageSize < size; i++ {
		r := c.rcvQueue[i]
		off := 0
		if i == 0 {
			off = r.read
		}
		fi, ok := advanceToFrag(r.skb, off)
		if !ok {
			return kernel.EINVAL
		}
		for _, f := range r.skb.Shinfo().Frags[fi:] {
			if len(pages)*kernel.PageSize == size {
				break
			}
			if !canMapFrag(f, false) {
				return kernel.EINVAL
			}
			pages = append(pages, f.Page)
		}
	}
	c.Munmap()
	c.rxMap = &RxMapping{npages: size / kernel.PageSize, length: size}
	c.rxMap.insert(0, pages)
	c.consume(size, false)
	c.rcvSpaceAdjust()
	c.CleanupRbuf(size)
	return 0
}

// Munmap models munmap(2) of the socket's mapping: every page in it loses
// the mapping's reference.
func (c *Conn) Munmap() {
	if c.rxMap == nil {
		return
	}
	c.rxMap.zap(0, c.rxMap.npages)
	c.rxMap = nil
}

// RxMap returns the socket's receive mapping, or nil.
func (c *Conn) RxMap() *RxMapping { return c.rxMap }

// ZcArgs is what a program passes in getsockopt(TCP_ZEROCOPY_RECEIVE): the
// fields of struct tcp_zerocopy_receive it fills in and optlen.
type ZcArgs struct {
	// Offset is address less the start of the socket's mapping.
	Offset int
	Length uint32
	// CopybufLen is copybuf_len, with copybuf_address a valid buffer.
	CopybufLen int32
	// Flags, MsgFlags and Reserved are flags, msg_flags and reserved as
	// the program set them.
	Flags, MsgFlags, Reserved uint32
	// Control is msg_control and msg_controllen: Null, or a buffer of
	// Control.Left bytes.
	Control sock.RecvControl
	Optlen  int
	// Null says optval is NULL: EFAULT once optlen passed its checks.
	Null bool
}

// ZcResult is what the call writes back: the struct's out fields and
// optlen.
type ZcResult struct {
	Length, RecvSkipHint, Inq uint32
	Err, CopybufLen           int32
	// Cmsg says the call reached msg_flags (an optlen that ends at or
	// past it): Control is then what tcp_zc_finalize_rx_tstamp left of
	// msg_control (moved on by Control.Used) and msg_controllen
	// (Control.Left), with the receive timestamps written into it, and
	// Control.Ctrunc msg_flags' MSG_CTRUNC. Tstamp says whether the call
	// took bytes from a timestamped skb (TCP_CMSG_TS), or may have.
	Cmsg    bool
	Control sock.RecvControl
	Tstamp  kernel.RxStamp
	Optlen  int
}

// Offsets of the ends of struct tcp_zerocopy_receive's fields
// (offsetofend), as do_tcp_getsockopt switches on them, and the offsets
// of msg_flags and reserved.
const (
	zcEndLength     = 12
	zcEndInq        = 20
	zcEndErr        = 24
	zcEndCopybufLen = 36
	zcOffMsgFlags   = 56
	zcEndMsgFlags   = 60
	zcOffReserved   = 60
)

// tcpCmsgTS is TCP_CMSG_TS, the one msg_flags bit a program may pass
// (TCP_VALID_ZC_MSG_FLAGS).
const tcpCmsgTS = 2

// ZerocopyReceive models getsockopt(IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE),
// do_tcp_getsockopt's case around tcp_zerocopy_receive, with the struct
// the profile knows (Profile.TCPZerocopyRecv). optlen must equal the
// struct on v4.18 and cover length since v5.7; a longer one is cut to the
// struct (its tail taken as zeroed); then a NULL optval is EFAULT. Since
// v5.12 a nonzero reserved, or a msg_flags other than 0 or TCP_CMSG_TS,
// is EINVAL, as far as optlen reaches into them; flags are not checked
// (TCP_RECEIVE_ZEROCOPY_FLAG_TLB_CLEAN_HINT only defers the zap to an
// insert that finds the slot taken, which ends the same; measured on
// 6.18: flags 2 and 0x80000000 are taken). Fields beyond optlen are
// neither read (copybuf_len is 0 then) nor written: an optlen that
// reaches msg_flags gets the receive timestamps (zcFinalizeTstamp); err
// and inq are written once the socket is released (ZerocopyReceived).
// Without TCP zerocopy receive the option is ENOPROTOOPT.
func (c *Conn) ZerocopyReceive(a ZcArgs) (ZcResult, kernel.Errno) {
	size := c.host().Profile.TCPZerocopyRecv
	var r ZcResult
	switch {
	case size == 0:
		return r, kernel.ENOPROTOOPT
	case size == kernel.TCPZerocopyRecv16 && a.Optlen != size:
		return r, kernel.EINVAL
	case a.Optlen < zcEndLength:
		return r, kernel.EINVAL
	case a.Null:
		return r, kernel.EFAULT
	}
	n := min(a.Optlen, size)
	if size == kernel.TCPZerocopyRecvFull &&
		(readPart(a.Reserved, zcOffReserved, n) != 0 || readPart(a.MsgFlags, zcOffMsgFlags, n)&^tcpCmsgTS != 0) {
		return r, kernel.EINVAL
	}
	r.Optlen = n
	if n < zcEndCopybufLen {
		a.CopybufLen = 0
	}
	err := c.zerocopyReceive(&r, a, size >= kernel.TCPZerocopyRecv40)
	if n >= zcEndMsgFlags {
		r.Cmsg = true
		c.zcFinalizeTstamp(&r, a.Control)
	}
	return r, err
}

// ZerocopyReceived completes r, what a ZerocopyReceive that returned err
// wrote back, as do_tcp_getsockopt does after release_sock, once the
// socket's backlog has been processed: an optlen that reaches err gets
// err (sock_error, which clears sk_err; not after a failed call) and inq
// (tcp_inq_hint), one that ends at inq inq alone. So inq counts the data
// that the call's own window update let the peer send, which waited on
// the backlog meanwhile. Measured on Linux 6.18 (a tcp_mmap recording:
// the zerocopy receive whose ACK brought 18432 bytes reported them in
// inq).
func (c *Conn) ZerocopyReceived(r *ZcResult, err kernel.Errno) {
	n := r.Optlen
	switch {
	case c.host().Profile.TCPZerocopyRecv == kernel.TCPZerocopyRecv16:
	case n >= zcEndMsgFlags || slices.Contains(zcEndsErrOn, n):
		if err == 0 {
			r.Err = -int32(c.takeError())
		}
		r.Inq = c.inqHint()
	case n == zcEndInq:
		r.Inq = c.inqHint()
	}
}

// zcEndsErrOn are the ends of the fields from err to msg_controllen: an
// optlen ending at one gets err and inq back, one ending elsewhere short
// of msg_flags neither (measured on 6.18: optlen 28, 44 and 52 leave inq
// as it was).
var zcEndsErrOn = []int{zcEndErr, 32, zcEndCopybufLen, 40, 48, 56}

// readPart is the part of the u32 field v at offset off that the first n
// bytes of the struct hold (little-endian).
func readPart(v uint32, off, n int) uint32 {
	switch k := n - off; {
	case k <= 0:
		return 0
	case k < 4:
		return v & (1<<(8*k) - 1)
	}
	return v
}

// zcFinalizeTstamp models tcp_zc_finalize_rx_tstamp: when the call took
// bytes from a timestamped skb, tcp_recv_timestamp writes the socket's
// receive timestamp messages (sock.RxTimestampCmsgs) into msg_control
// with put_cmsg, which moves msg_control and msg_controllen on and sets
// MSG_CTRUNC in msg_flags when one does not fit (a NULL msg_control
// included); else msg_flags is 0 and msg_control and msg_controllen come
// back as they went. The values of the timestamps are wall-clock time,
// which the model does not predict.
func (c *Conn) zcFinalizeTstamp(r *ZcResult, ctl sock.RecvControl) {
	r.Control = ctl
	if r.Tstamp == kernel.RxStampNone {
		return
	}
	for _, m := range c.Sk.RxTimestampCmsgs() {
		r.Control.Put(m)
	}
}

// inqHint models tcp_inq_hint: the bytes unread, or 1 after the FIN so
// that the program goes on to read the end of the stream.
func (c *Conn) inqHint() uint32 {
	if n := c.Queued(); n > 0 || !c.rcvFin {
		return uint32(n)
	}
	return 1
}

// zerocopyReceive models tcp_zerocopy_receive; full is the code of v5.11
// on (copybuf and its fallbacks, the mappable-frag hint).
//
//   - address not page aligned: EINVAL; a listener: ENOTCONN.
//   - (full) everything unread fits copybuf: it is read into copybuf
//     (receive_fallback_to_copy); less than a page unread:
//     recv_skip_hint says how much, nothing is mapped (EIO when nothing
//     is unread after the FIN).
//   - address outside a tcp_mmap mapping: EINVAL. From the lookup to the
//     last insert mmap_read_lock is held, inside the socket lock (the
//     lock-order check sees sk_lock → mmap_lock); the copies into
//     copybuf fault on user memory under the socket lock alone.
//   - the whole pages of min(length, the mapping from address, unread)
//     are zapped, then the frags at copied_seq that can be mapped
//     (can_map_frag: a whole order-0 page at offset 0, not user memory)
//     are inserted, skb after skb, until a frag cannot be or the skb
//     ends short of a page; recv_skip_hint is what must be read before
//     mapping may go on (up to the next mappable frag, or the rest of the
//     skb).
//   - (full) up to copybuf_len of that is copied (tcp_zc_handle_leftover).
//   - what was mapped or copied is consumed (copied_seq moves,
//     tcp_cleanup_rbuf may ACK); mapping all that was asked clears the
//     hint; with nothing done and nothing to skip after the FIN: EIO.
func (c *Conn) zerocopyReceive(zc *ZcResult, a ZcArgs, full bool) kernel.Errno {
	if a.Offset%kernel.PageSize != 0 {
		return kernel.EINVAL
	}
	if c.Sk.State == sock.LISTEN {
		return kernel.ENOTCONN
	}
	inq := c.Queued()
	if full {
		if inq > 0 && inq <= int(a.CopybufLen) {
			for _, r := range c.rcvQueue {
				zc.Tstamp = zc.Tstamp.Merge(r.tstamp) // tcp_recvmsg_locked: TCP_CMSG_TS
			}
			c.host().MightFault("receive_fallback_to_copy", c.Sk.Ident())
			got, _ := c.Recv(inq)
			c.CleanupRbuf(got)
			zc.CopybufLen = int32(got)
			return 0
		}
		if inq < kernel.PageSize {
			zc.RecvSkipHint = uint32(inq)
			if inq == 0 && c.rcvFin {
				return kernel.EIO
			}
			return 0
		}
	}
	// mmap_read_lock for the VMA lookup and the page inserts, inside the
	// socket lock: the order every copy to the user has.
	c.host().Acquire(kernel.MmapLock, "tcp_zerocopy_receive", c.Sk.Ident())
	m := c.rxMap
	if m == nil || a.Offset < 0 || a.Offset >= m.Len() {
		c.host().Release(kernel.MmapLock)
		return kernel.EINVAL
	}
	avail := min(int(a.Length), m.Len()-a.Offset, inq)
	want, skip := avail&^(kernel.PageSize-1), 0
	if want > 0 {
		m.zap(a.Offset/kernel.PageSize, want/kernel.PageSize)
	} else {
		want, skip = avail, avail
		if !full {
			skip = inq
		}
	}
	pages, skip, visited := c.mappable(want, skip, full, &zc.Tstamp)
	m.insert(a.Offset/kernel.PageSize, pages)
	c.host().Release(kernel.MmapLock)
	mapped := len(pages) * kernel.PageSize
	copylen := 0
	if full {
		copylen = min(int(a.CopybufLen), skip)
		zc.CopybufLen = int32(copylen)
		skip -= copylen
	}
	if copylen > 0 {
		if !visited {
			zc.Tstamp = zc.Tstamp.Merge(c.rcvQueue[0].tstamp) // the skb at copied_seq
		}
		c.host().MightFault("tcp_zc_handle_leftover", c.Sk.Ident())
	}
	var err kernel.Errno
	switch {
	case mapped+copylen > 0:
		c.consume(mapped+copylen, false)
		c.rcvSpaceAdjust()
		c.CleanupRbuf(mapped + copylen)
		if mapped == want {
			skip = 0
		}
	case skip == 0 && c.rcvFin:
		err = kernel.EIO
	}
	zc.Length, zc.RecvSkipHint = uint32(mapped), uint32(skip)
	return err
}

// mappable walks the receive queue from copied_seq as
// tcp_zerocopy_receive's loop does, for at most want bytes: it returns
// the pages it would insert, the recv_skip_hint it leaves and whether it
// looked at any skb (tcp_recv_skb), and merges the receive timestamp of
// each skb it looked at into ts (TCP_CMSG_TS: tcp_update_recv_tstamps).
func (c *Conn) mappable(want, skip int, full bool, ts *kernel.RxStamp) ([]*mm.Page, int, bool) {
	var pages []*mm.Page
	var frags []skb.Frag
	i, fi := -1, 0
	for (len(pages)+1)*kernel.PageSize <= want {
		if skip < kernel.PageSize {
			if i >= 0 && skip > 0 {
				break
			}
			if i++; i >= len(c.rcvQueue) {
				break
			}
			r := c.rcvQueue[i]
			*ts = ts.Merge(r.tstamp)
			off := 0
			if i == 0 {
				off = r.read
			}
			skip = r.skb.Len - off
			var ok bool
			if fi, ok = advanceToFrag(r.skb, off); !ok {
				break
			}
			frags = r.skb.Shinfo().Frags
		}
		if full {
			if mo := nextMappable(frags[fi:], skip); mo > 0 {
				skip = mo
				break
			}
		} else if !canMapFrag(frags[fi], false) {
			break
		}
		pages = append(pages, frags[fi].Page)
		skip -= kernel.PageSize
		fi++
	}
	return pages, skip, i >= 0
}

// advanceToFrag models skb_advance_to_frag: the frag that starts at byte
// off of b, and false if off is in the linear head, in the middle of a
// frag, or b has a frag_list.
func advanceToFrag(b *skb.Buff, off int) (int, bool) {
	off -= b.HeadLen()
	if off < 0 || off >= b.DataLen || len(b.Shinfo().FragList) > 0 {
		return 0, false
	}
	for i, f := range b.Shinfo().Frags {
		if off == 0 {
			return i, true
		}
		if f.Size > off {
			return 0, false
		}
		off -= f.Size
	}
	return 0, false
}

// canMapFrag models can_map_frag: a whole page at offset 0; on the full
// code also an order-0 page that is no user memory (PageCompound,
// page->mapping).
func canMapFrag(f skb.Frag, full bool) bool {
	if f.Size != kernel.PageSize || f.Off != 0 {
		return false
	}
	return !full || f.Page.Order == 0 && !f.Page.User
}

// nextMappable models find_next_mappable_frag: 0 if the first frag can be
// mapped, else the bytes up to the next that can, within remaining.
func nextMappable(frags []skb.Frag, remaining int) int {
	off := 0
	for _, f := range frags {
		if off >= remaining || canMapFrag(f, true) {
			break
		}
		off += f.Size
	}
	return off
}
