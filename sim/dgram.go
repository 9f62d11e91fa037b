package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/udp"
)

// dgram is a datagram socket: its send path if it sends (udp for UDP and
// RAW, pkt for PF_PACKET), and the datagrams it received and has not read.
type dgram struct {
	udp *udp.Sock
	pkt *packet.Sock
	rx  []datagram
	// partial holds the datagrams being reassembled from IP fragments
	// (the ipq queues of ip_defrag), oldest first.
	partial []*ipq
	// wait is the send-buffer wait hook (waitHook), waiting the call it
	// runs for and stuck whether that call could never wake.
	wait    func() bool
	waiting Call
	stuck   bool
}

// waitHook returns the hook a send of s calls when it sleeps for
// send-buffer space: waitWmem for the call in progress (d.waiting),
// noting in d.stuck whether it could never wake. It is made once per
// socket, not once per call.
func (d *dgram) waitHook(w *World, s *Socket) func() bool {
	if d.wait == nil {
		d.wait = func() bool {
			if d.pkt != nil {
				d.stuck = !w.waitPacket(d.waiting, s, d.pkt)
			} else {
				d.stuck = !w.waitWmem(d.waiting, s)
			}
			return !d.stuck
		}
	}
	return d.wait
}

// datagramSlab holds a Host's receive queues of datagrams.
var datagramSlab = kernel.SlabSlot[datagram]()

// datagram is a received datagram: the skb that completed it and its
// length after reassembly.
type datagram struct {
	skb *skb.Buff
	len int
	// tstamp is the software receive timestamp net_timestamp_check gave
	// it as it entered the stack.
	tstamp kernel.RxStamp
}

// ipq is one datagram being reassembled: the fragments that arrived, how
// many payload bytes they cover from offset 0, and the ip_expire timer.
type ipq struct {
	id    uint32
	frags []*skb.Buff
	next  int
	// gap is set once a fragment arrived beyond next: one was lost, and
	// the datagram can only expire.
	gap    bool
	expire engine.Handle
}

// ipfragTime is net.ipv4.ipfrag_time: how long ip_defrag keeps an
// incomplete datagram before ip_expire frees its fragments.
const ipfragTime = 30 * engine.Second

func (d *dgram) queued() []*skb.Buff {
	var out []*skb.Buff
	for _, q := range d.partial {
		out = append(out, q.frags...)
	}
	for _, g := range d.rx {
		out = append(out, g.skb)
	}
	return out
}

// receive models ip_defrag, then udp_rcv_segment and __udp_queue_rcv_skb
// → sock_queue_rcv_skb: fragments wait in their datagram's queue until
// the last one completes it (defrag); a complete UDP datagram goes first
// to every RAW socket of its protocol (rawCopy), then to r; a GSO
// datagram the device sent whole is cut into its segments; each datagram
// is charged to sk_rmem_alloc and queued, or dropped when the receive
// buffer is full.
func (d *dgram) receive(w *World, r *Socket, f frame) line {
	b, n, ok := d.defrag(w, r, f)
	if !ok {
		return line{text: fmt.Sprintf("%s receives an IP fragment of %d bytes", r.Name, f.skb.Len)}
	}
	text := w.rawCopy(r, b, n)
	if f.gso == 0 || n <= f.gso {
		l := d.queue(w, r, b, n)
		if text == nil {
			return l
		}
		return line{text: string(l.appendTo(append(text, "; "...)))}
	}
	b.Free()
	for off := 0; off < n; off += f.gso {
		seg := min(f.gso, n-off)
		sb := skb.Alloc(w.Host, seg)
		sb.AppendLinear(seg)
		if len(text) > 0 {
			text = append(text, "; "...)
		}
		l := d.queue(w, r, sb, seg)
		text = l.appendTo(text)
	}
	return line{text: string(text)}
}

// defrag models ip_defrag for a frame r receives: an unfragmented one is
// its datagram, of f.skb.Len bytes; a fragment waits in its datagram's
// queue (ok false) until the last one completes it, which returns the
// last fragment's skb and the datagram's length, the earlier fragments
// freed (or, for fragments that reach ip_local_deliver unorphaned,
// reasmKeep's datagram); a datagram missing a fragment is freed by
// ip_expire after ipfrag_time.
func (d *dgram) defrag(w *World, r *Socket, f frame) (b *skb.Buff, n int, ok bool) {
	b = f.skb
	if !f.moreFrags && f.fragOff == 0 {
		return b, b.Len, true
	}
	q := d.reassembly(w, r, f.ipID)
	q.frags = append(q.frags, b)
	if f.fragOff != q.next {
		q.gap = true
	}
	q.next = f.fragOff + b.Len
	if f.moreFrags || q.gap {
		return nil, 0, false
	}
	d.drop(w, q)
	if orphanAfterDefrag(r) {
		return reasmKeep(w, r, q.frags)
	}
	for _, frag := range q.frags[:len(q.frags)-1] {
		n += frag.Len
		frag.Free()
	}
	return b, n + b.Len, true
}

// orphanAfterDefrag reports whether the fragments of an IPv4 datagram r
// receives over loopback keep their zerocopy frags until reassembly:
// under Profile.OrphanRxAtLocalDeliver skb_orphan_frags_rx runs in
// ip_local_deliver_finish, after ip_defrag, not in
// __netif_receive_skb_core (World.wire leaves them). An IPv6 fragment is
// copied in ip6_input_finish, before the fragment header's handler
// reassembles it.
func orphanAfterDefrag(r *Socket) bool {
	return r.Dev.Kind == Loopback && r.Sk.Host().Profile.OrphanRxAtLocalDeliver && trafficFamily(r.Sk) == kernel.AF_INET
}

// reasmKeep models ip_frag_reasm (inet_frag_reasm_prepare and _finish)
// of frags, an IPv4 datagram's fragments in order, as they arrived over
// loopback with their zerocopy state: the first fragment's skb is the
// datagram's head (the completing skb takes its data, skb_morph); each
// later fragment is copied into the head's tailroom when it fits
// (skb_try_coalesce copies a short skb before it looks at zerocopy) and
// freed, its uarg reference with it (kfree_skb_partial), else chained on
// the head's frag_list, where it keeps its uarg reference until the
// datagram is freed. Then ip_local_deliver_finish copies the head's own
// frags (skb_orphan_frags_rx), not the frag_list's. The tailroom is the
// kernel's: the head's buffer of __ip_append_data's alloclen (its linear
// bytes and the IP and UDP headers) plus LL_RESERVED_SPACE and 15, as
// kmalloc_reserve sizes it (skb.HeadSize), less the reserved link-layer
// space and the headers and bytes in it. Measured on Linux 6.18 at MTU
// 1500 (probe/testdata/udp-frag-notify.zcs): 212 bytes of tailroom, so
// a 1684-byte datagram (a second fragment of 212 bytes) is notified as
// the send returns and a 1685-byte one once it is read, as is every
// datagram with a full-sized fragment after the first.
func reasmKeep(w *World, r *Socket, frags []*skb.Buff) (*skb.Buff, int, bool) {
	head := frags[0]
	hdrs := r.Sk.IPHeaderLen()
	if r.Sk.Class == kernel.ClassUDP {
		hdrs += udpHdrLen
	}
	linear := head.HeadLen() + hdrs
	tailroom := skb.HeadSize(w.Host, linear+llReserved+ip4AllocPad) - llReserved - linear
	s := head.Shinfo()
	for _, fp := range frags[1:] {
		if fp.Len <= tailroom && head.DataLen == 0 { // skb_tailroom: 0 once nonlinear
			tailroom -= fp.Len
			head.Len += fp.Len
			head.LinearCap += fp.Len // the kernel's tailroom, which the model's exact head lacks
			fp.Free()
			continue
		}
		s.FragList = append(s.FragList, fp)
		head.Len += fp.Len
		head.DataLen += fp.Len
		head.Truesize += fp.Truesize
	}
	if r.Dev.orphanRx(head, kernel.CopyLocalDeliver) != 0 {
		head.Free()
		return nil, 0, false
	}
	return head, head.Len, true
}

// reassembly returns the queue of datagram id (ip_find), creating it with
// its ip_expire timer.
func (d *dgram) reassembly(w *World, r *Socket, id uint32) *ipq {
	for _, q := range d.partial {
		if q.id == id {
			return q
		}
	}
	q := &ipq{id: id}
	q.expire = w.after(ipfragTime, "ip_expire", "ip_expire "+r.Name, func(e *Event) {
		d.drop(w, q)
		for _, frag := range q.frags {
			frag.Free()
		}
		e.Socket, e.Text = r.Name, fmt.Sprintf("%s: reassembly of IP datagram %d timed out (ip_expire): %d fragments freed",
			r.Name, id, len(q.frags))
	})
	d.partial = append(d.partial, q)
	return q
}

// drop removes q from the reassembly queues and stops its timer.
func (d *dgram) drop(w *World, q *ipq) {
	w.Loop.Cancel(q.expire)
	d.partial = slices.DeleteFunc(d.partial, func(p *ipq) bool { return p == q })
}

// queue charges one datagram of n bytes in b to the receiver and queues
// it, and says so.
func (d *dgram) queue(w *World, r *Socket, b *skb.Buff, n int) line {
	sk := r.Sk
	if !d.admits(w, sk, b.Truesize) {
		b.Free()
		return line{text: fmt.Sprintf("%s: receive buffer full, datagram of %d bytes dropped", r.Name, n)}
	}
	sk.RmemAlloc += b.Truesize
	b.SetOwner(sk, skb.SockRfree)
	d.rx = datagramSlab.Of(w.Host).Append(d.rx, datagram{b, n, w.Host.Netstamp.Stamp(w.Host.Time())})
	sk.WakeUp(kernel.POLLIN | kernel.POLLPRI | kernel.POLLRDNORM | kernel.POLLRDBAND) // sock_def_readable
	if r.Dev.Kind == Loopback {
		w.rxQueued(r, b)
	}
	if r.autoRead {
		d.recv(1<<30, 0)
	}
	return line{kind: lineDatagram, name: r.Name, num: n}
}

// admits models the receive-buffer check a datagram of truesize bytes
// meets on its way to sk's queue. A UDP socket's
// __udp_enqueue_schedule_skb, where the profile has UDPRcvbufCountsSkb,
// takes it if it fits in sk_rcvbuf, or if the queue is empty
// (sk_rmem_alloc 0) and sk_rcvbuf at most INT_MAX/2; before, it takes
// it while sk_rmem_alloc is at most sk_rcvbuf, whatever its size. A RAW
// socket's __sock_queue_rcv_skb takes it while sk_rmem_alloc is below
// sk_rcvbuf, whatever its size. Measured on Linux 6.18 with sk_rcvbuf
// 2304 (probe/testdata/dgram-rcvbuf-first.zcs): UDP takes one
// 8000-byte datagram (truesize 16640) and then none, or two of 10 bytes
// (832 each) and not a third; RAW takes three of those, then none.
func (d *dgram) admits(w *World, sk *sock.Sock, truesize int) bool {
	rmem, rcvbuf := sk.RmemAlloc, sk.Rcvbuf
	switch {
	case sk.Class == kernel.ClassRAW:
		return rmem < rcvbuf
	case !w.Host.Profile.UDPRcvbufCountsSkb:
		return rmem <= rcvbuf
	}
	return rmem+truesize <= rcvbuf || rmem == 0 && rcvbuf <= math.MaxInt32>>1
}

// recv models udp_recvmsg: one datagram, truncated to n; EAGAIN if none.
//
// With MSG_TRUNC the result is the datagram's whole length, whatever n
// (udp_recvmsg returns ulen: the selftest msg_zerocopy reads 65435-byte
// datagrams into 64 bytes this way, and Linux 6.18 answers 65435).
// MSG_PEEK leaves the datagram queued (__skb_recv_udp peeks, and only
// skb_consume_udp unlinks it), a zero-length peek too: measured on Linux
// 6.18, a 0-byte MSG_PEEK returns 0 and the next read gets the same
// datagram (probe/testdata/udp-peek.zcs).
func (d *dgram) recv(n int, flags kernel.MsgFlags) (int, kernel.Errno) {
	if len(d.rx) == 0 {
		return 0, kernel.EAGAIN
	}
	g := d.rx[0]
	if flags&kernel.MSG_PEEK == 0 {
		d.rx = d.rx[1:]
		g.skb.Free()
	}
	if flags&kernel.MSG_TRUNC != 0 {
		return g.len, 0
	}
	return min(n, g.len), 0
}

// headStamp is the receive timestamp of the datagram a read takes next.
func (d *dgram) headStamp() kernel.RxStamp {
	if len(d.rx) == 0 {
		return kernel.RxStampNone
	}
	return d.rx[0].tstamp
}

// purge frees unread datagrams and incomplete reassemblies when the
// socket closes.
func (d *dgram) purge(w *World) {
	for _, b := range d.queued() {
		b.Free()
	}
	for _, q := range d.partial {
		w.Loop.Cancel(q.expire)
	}
	d.rx, d.partial = nil, nil
}

// ICMP sizes (include/uapi/linux/ip.h, icmp.h, ipv6.h): icmp_send quotes
// as much of the offending datagram (IP header, UDP header, payload) as
// fits in 576 bytes, icmp6_send in the IPv6 minimum MTU of 1280. The
// error's skb has room for loopback's link-layer header besides
// (LL_RESERVED_SPACE, 16) and 15 bytes of alignment slack
// (__ip_append_data) or an IPv6 fragment header (__ip6_append_data).
const (
	icmpv4Room   = 576
	icmpv6Room   = 1280
	icmpHdrLen   = 8
	udpHdrLen    = 8
	llReserved   = 16
	ip4AllocPad  = 15
	ip6FragHdrSz = 8
)

// portUnreachable models icmp_send(ICMP_DEST_UNREACH, ICMP_PORT_UNREACH)
// (icmpv6_send for AF_INET6) from __udp4_lib_rcv, which found no socket
// for a datagram of n bytes of UDP payload that r's peer sent to the
// closed r: after the link delay (over loopback inside the current step,
// onPath) the ICMP error reaches the sender, which __udp4_lib_err hands to
// the socket (udp.Sock.PortUnreachable), unless the sender is gone too.
// Measured on Linux 6.18: reading such a record returns the quoted UDP
// payload, 100 bytes for 100, 520 for 2000 (1184 over IPv6).
//
// ICMP rate limits: over loopback the kernel sends every error
// (icmpv4_xrlim_allow exempts IFF_LOOPBACK; measured on Linux 6.18: 500
// errors in one burst, ten times net.ipv4.icmp_msgs_burst, all reached
// the error queue, which kept what its sk_rcvbuf allowed). On other
// devices icmp_global_allow and the per-peer net.ipv4.icmp_ratelimit
// token buckets may drop errors after a burst, depending on wall-clock
// time a scenario does not show: the model assumes every error is sent.
func (w *World) portUnreachable(r *Socket, n int) {
	from := r.Peer
	ip, room, pad := r.Sk.IPHeaderLen(), icmpv4Room, ip4AllocPad
	if r.Sk.IPv6() {
		room, pad = icmpv6Room, ip6FragHdrSz
	}
	size := ip + icmpHdrLen + min(ip+udpHdrLen+n, room-ip-icmpHdrLen)
	w.onPath(r, "icmp", "ICMP", arrival{kind: arriveICMP, to: from, size: size, alloc: size + llReserved + pad})
}

// icmpArrives hands an ICMP port unreachable of size bytes, in an skb of
// alloc bytes of head, to the socket from whose datagram drew it.
//
// Over loopback raw_local_deliver first hands the error to every RAW
// socket of the ICMP protocol of its family, as it does any packet
// (icmpRaw), whether or not the sender is still there.
func (w *World) icmpArrives(from *Socket, size, alloc int, e *Event) {
	e.Socket = from.Name
	icmp := skb.AllocHead(w.Host, alloc)
	icmp.AppendLinear(size)
	raw := w.icmpRaw(from, icmp, size)
	if from.Sk.Dead() || from.Sk.Freed() || from.dgrm == nil || from.dgrm.udp == nil {
		icmp.Free()
		e.Text = fmt.Sprintf("%s: closed, ICMP port unreachable dropped%s", from.Name, raw)
		return
	}
	from.dgrm.udp.PortUnreachable(icmp)
	e.Text = fmt.Sprintf("%s receives an ICMP port unreachable (%d bytes)%s", from.Name, size, raw)
}

// icmpRaw queues a clone of the ICMP error icmp of size bytes (IP header
// included) that reaches from over loopback on every RAW socket of
// IPPROTO_ICMP (IPPROTO_ICMPV6) of from's traffic family, as they read
// it: with the IPv4 header, without the IPv6 one (raw_v4_input,
// raw6_local_deliver). Measured on Linux 6.18: the error a 100-byte UDP
// datagram to a closed port draws is read as 156 bytes on an AF_INET
// RAW ICMP socket and on an AF_INET6 RAW ICMPv6 one. It returns what it
// did as a clause, empty when no such socket is open.
func (w *World) icmpRaw(from *Socket, icmp *skb.Buff, size int) string {
	if from.Dev.Kind != Loopback {
		return ""
	}
	family, proto := trafficFamily(from.Sk), kernel.IPPROTO_ICMP
	if family == kernel.AF_INET6 {
		proto, size = kernel.IPPROTO_ICMPV6, size-from.Sk.IPHeaderLen()
	}
	return string(w.rawClone(from.Dev, family, proto, icmp, size, []byte("; raw_local_deliver")))
}

// rawLocalDeliver models raw_local_deliver for a datagram b of n bytes
// (reassembled) that the RAW socket from sent over loopback, where it is
// addressed to no socket: raw_v4_input (raw6_local_deliver) hands a clone
// to every RAW socket of from's family and protocol on the device, from
// itself and the implicit peer included, before the protocol's
// own handler sees it. An IPv4 RAW socket reads the IP header too
// (raw_rcv), an IPv6 one the payload. The model assumes the payload draws
// no answer (an ICMP echo request would). Measured on Linux 6.18
// (probe/testdata/raw-rcv.zcs): 12 bytes sent on an IPPROTO_ICMP socket
// are read back as 32 on it and on a second one, 12 on an IPPROTO_ICMPV6
// socket.
//
// With IP_HDRINCL the packet is the header the program wrote: ihl= states
// it, version 4, that ihl and zeros (tot_len, the checksum, saddr and id
// filled in by raw_send_hdrinc), so protocol 0, which no RAW socket can
// be bound to and no protocol handles: ip_protocol_deliver_rcu answers
// with an ICMP protocol unreachable quoting the packet up to 576 bytes in
// all, which every RAW ICMP socket reads (measured: 68 bytes for a
// 40-byte packet, 576 for a 2000-byte one). A header not stated goes to
// no socket in the model, as assumed for the undetermined send.
func (w *World) rawLocalDeliver(from *Socket, b *skb.Buff, n int) string {
	text := []byte(from.Name + ": raw_local_deliver")
	if !from.Sk.Hdrincl {
		if n < icmpFilterLen(from.Sk) {
			b.Free()
			return string(append(text, ": shorter than an ICMP header, every RAW socket filters it (icmp_filter)"...))
		}
		if !from.Sk.IPv6() {
			n += from.Sk.IPHeaderLen()
		}
		return string(w.rawQueue(from.Dev, from.Sk.Family, from.Sk.Protocol, b, n, text))
	}
	b.Free()
	if from.SendHead == nil || from.Sk.IPv6() {
		return string(append(text, ": the IP header is the program's, which the scenario does not state: delivered to no socket (assumed)"...))
	}
	ip := from.Sk.IPHeaderLen()
	size := ip + icmpHdrLen + min(n, icmpv4Room-ip-icmpHdrLen)
	icmp := skb.AllocHead(w.Host, size+llReserved+ip4AllocPad)
	icmp.AppendLinear(size)
	text = append(text, ": protocol 0 has no handler: ICMP protocol unreachable"...)
	return string(w.rawQueue(from.Dev, kernel.AF_INET, kernel.IPPROTO_ICMP, icmp, size, text))
}

// icmpFilterLen is how much of an ICMP header a RAW socket of sk's
// family and protocol must find in a packet to read it: raw_v4_input
// drops an ICMP packet for a socket when icmp_filter finds no struct
// icmphdr (8 bytes) in it, ipv6_raw_deliver an ICMPv6 one when
// icmpv6_filter finds no ICMPV6_HDRLEN (4 bytes); 0 for other
// protocols. Measured on Linux 6.18: a 2-byte ICMP message is sent and
// read by no RAW socket, a 4-byte ICMPv6 one is read
// (probe/testdata/raw-short.zcs).
func icmpFilterLen(sk *sock.Sock) int {
	switch {
	case sk.Protocol == kernel.IPPROTO_ICMP && !sk.IPv6():
		return 8
	case sk.Protocol == kernel.IPPROTO_ICMPV6 && sk.IPv6():
		return 4
	}
	return 0
}

// rawCopy models raw_local_deliver for a UDP datagram of n bytes of
// payload in b that r receives over loopback, before udp_rcv sees it:
// every RAW socket of IPPROTO_UDP and the traffic's family on the device
// gets a clone (the IPv4 one with the IP header, both with the UDP
// header), a GSO datagram whole, before udp_rcv_segment cuts it. Measured
// on Linux 6.18: 100 bytes are read as 128 on an AF_INET RAW socket, 108
// on an AF_INET6 one; a 3000-byte UDP_SEGMENT send as one 3028-byte
// datagram, a fragmented one reassembled. It says so in the returned
// sentence, nil when no RAW socket of the protocol is open.
func (w *World) rawCopy(r *Socket, b *skb.Buff, n int) []byte {
	if r.Dev.Kind != Loopback || r.Sk.Class != kernel.ClassUDP {
		return nil
	}
	family, n := trafficFamily(r.Sk), n+udpHdrLen
	if family == kernel.AF_INET {
		n += r.Sk.IPHeaderLen()
	}
	return w.rawClone(r.Dev, family, kernel.IPPROTO_UDP, b, n, []byte(r.Name+": raw_local_deliver"))
}

// rawClone queues a clone of b on every open RAW socket of family and
// protocol on dev, as rawQueue does, and leaves b to its caller; it
// returns text and what it did, or nil when there is no such socket.
func (w *World) rawClone(dev *Device, family kernel.Family, proto kernel.Protocol, b *skb.Buff, n int, text []byte) []byte {
	if len(w.rawSockets(dev, family, proto)) == 0 {
		return nil
	}
	c, err := b.Clone()
	if err != 0 {
		return nil
	}
	return w.rawQueue(dev, family, proto, c, n, text)
}

// trafficFamily is the IP version of sk's traffic: AF_INET for an
// AF_INET6 socket whose peer is v4-mapped.
func trafficFamily(sk *sock.Sock) kernel.Family {
	if sk.IPv6() {
		return kernel.AF_INET6
	}
	return kernel.AF_INET
}

// rawSockets lists the open RAW sockets of family and protocol on dev,
// implicit peers included: each is a socket that raw_v4_input
// (raw6_local_deliver) hands a datagram of that protocol to.
func (w *World) rawSockets(dev *Device, family kernel.Family, proto kernel.Protocol) []*Socket {
	var to []*Socket
	for _, s := range w.raws {
		if !s.closed && s.Dev == dev &&
			s.Sk.Family == family && s.Sk.Protocol == proto && !s.Sk.Dead() {
			to = append(to, s)
		}
	}
	return to
}

// rawQueue queues a clone of b, a datagram of n bytes as a RAW socket
// reads it, on every open RAW socket of family and protocol on dev
// (raw_v4_input, raw6_local_deliver), a RAW socket's implicit peer too,
// and says so after text; b itself goes to the last, or is freed if
// there is none.
func (w *World) rawQueue(dev *Device, family kernel.Family, proto kernel.Protocol, b *skb.Buff, n int, text []byte) []byte {
	to := w.rawSockets(dev, family, proto)
	if len(to) == 0 {
		b.Free()
		return append(text, ": no RAW socket of its protocol"...)
	}
	for i, s := range to {
		c := b
		if i < len(to)-1 {
			var err kernel.Errno
			if c, err = b.Clone(); err != 0 {
				continue
			}
		}
		l := s.dgrm.queue(w, s, c, n)
		text = l.appendTo(append(text, "; "...))
	}
	return text
}

// tcpRaw models raw_local_deliver for a TCP segment a that reaches its
// socket over loopback: raw_v4_input (raw6_local_deliver) hands a clone
// to every RAW IPPROTO_TCP socket of the traffic's family on the device
// before tcp_v4_rcv sees it, an IPv4 one with the IP header, both with
// the TCP header (tcp.Conn.HeaderLen of the sender: 20 bytes, 32 with
// timestamps) and the payload, a TSO skb whole. A segment with no payload
// (an ACK, a RST) gets an skb of its own (rawSegment). Measured on Linux
// 6.18 (probe/testdata/raw-tcp.zcs): a 100-byte send is read as 152
// bytes, its ACK as 52, on AF_INET6 as 132 and 32. The implicit
// handshake's segments are handshakeRaw's.
func (w *World) tcpRaw(a arrival) {
	from := a.to.Peer
	if from == nil || from.tcp == nil {
		return
	}
	family := trafficFamily(a.to.Sk)
	if len(w.rawSockets(a.to.Dev, family, kernel.IPPROTO_TCP)) == 0 {
		return
	}
	n := from.tcp.HeaderLen()
	if family == kernel.AF_INET {
		n += a.to.Sk.IPHeaderLen()
	}
	text := []byte(a.to.Name + ": raw_local_deliver")
	if a.kind == arriveFrame && a.f.skb != nil && a.f.skb.Len > 0 {
		w.say(string(w.rawClone(a.to.Dev, family, kernel.IPPROTO_TCP, a.f.skb, n+a.f.skb.Len, text)))
		return
	}
	w.rawSegment(a.to.Dev, family, n, text)
}

// rawSegment queues a TCP segment with no payload, n bytes of headers as
// a RAW socket of family reads them, on every RAW IPPROTO_TCP socket of
// family on dev, in an skb of its own, and says so after text.
func (w *World) rawSegment(dev *Device, family kernel.Family, n int, text []byte) {
	b := skb.AllocHead(w.Host, n+llReserved)
	b.AppendLinear(n)
	w.say(string(w.rawQueue(dev, family, kernel.IPPROTO_TCP, b, n, text)))
}
