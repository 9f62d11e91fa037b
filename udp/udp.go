package udp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// Sizes the datagram send paths use (include/uapi/linux/ip.h, ipv6.h,
// udp.h, include/linux/netdevice.h, include/net/udp.h).
const (
	// UDPHeaderLen is sizeof(struct udphdr), the transhdrlen of a UDP append.
	UDPHeaderLen = 8
	// icmpHeaderLen is sizeof(struct icmphdr) and of struct icmp6hdr.
	icmpHeaderLen = 8
	// IPMaxMTU is IP_MAX_MTU (0xFFFF): the MTU of a UDP_SEGMENT cork and
	// the largest IPv4 datagram when the socket may fragment.
	IPMaxMTU = 0xFFFF
	// IPv6MaxPlen is IPV6_MAXPLEN, the largest IPv6 payload.
	IPv6MaxPlen = 0xFFFF
	// IP6MaxMTU is IP6_MAX_MTU (0xFFFF + sizeof(struct ipv6hdr)): the MTU
	// of an IPv6 UDP_SEGMENT cork (__ip6_append_data).
	IP6MaxMTU = 0xFFFF + 40
	// FragHeaderLen is sizeof(struct frag_hdr), which every IPv6 fragment
	// carries.
	FragHeaderLen = 8
	// MaxSegments is UDP_MAX_SEGMENTS in v6.x (128; 64 before).
	MaxSegments = 128
	// allocExtra is what __ip_append_data adds to alloclen for the link
	// layer (hh_len 16 + 15 alignment).
	allocExtra = 31
	// skbMaxAlloc is SKB_MAX_ALLOC: an order-2 allocation less the shared
	// info. Larger non-paged fragments go into page frags instead.
	skbMaxAlloc = kernel.PageSize<<2 - 320
	// maxWaits bounds how often one call waits for send-buffer space.
	maxWaits = 64
)

// Sock is a UDP or RAW socket over IPv4 or IPv6: struct udp_sock or
// raw_sock with the inet cork they share.
//
// Ownership: Sock owns its corked skbs (the pending datagram of
// sk_write_queue) until they are pushed or flushed. A transmitted skb is
// handed to Net, which owns it; its truesize stays charged to
// Sk.WmemAlloc until it is freed (sock_wfree).
type Sock struct {
	// Sk is the protocol-independent socket.
	Sk *sock.Sock
	// Route is the cached route: device features and path MTU.
	Route sock.Route
	// Net transmits pushed datagrams.
	Net sock.Network
	// Wait, if set, is called when a blocking send must wait for
	// send-buffer space (sock_alloc_send_pskb's sock_wait_for_wmem). It
	// lets the simulator run the network; it returns false to give up. A
	// nil Wait, a false return or MSG_DONTWAIT fails the send with EAGAIN,
	// as an expired SO_SNDTIMEO does.
	Wait func() bool

	connected bool
	corked    bool // UDP_CORK
	gsoSize   int  // UDP_SEGMENT
	pending   bool // up->pending: a corked datagram is being built
	cork      cork // inet->cork and sk_write_queue
	pfrag     mm.PageFrag
	closed    bool
	ipID      uint32 // the IP identification of the last datagram sent
}

// New returns the protocol state of sk, a socket of class kernel.ClassUDP
// or kernel.ClassRAW, sending over route r into n. A RAW socket of
// protocol IPPROTO_RAW starts with IP_HDRINCL set (inet_create: "if
// (IPPROTO_RAW == protocol) inet->hdrincl = 1", and inet6_create alike):
// its payload carries the IP header. Measured on Linux 6.18: an AF_INET6
// one refuses 39 bytes with EINVAL and sends 40 (rawv6_send_hdrinc).
func New(sk *sock.Sock, r sock.Route, n sock.Network) *Sock {
	u := &Sock{Sk: sk, Route: r, Net: n}
	sk.Hdrincl = u.raw() && sk.Protocol == kernel.IPPROTO_RAW
	return u
}

func (u *Sock) host() *kernel.Host { return u.Sk.Host() }

func (u *Sock) raw() bool { return u.Sk.Class == kernel.ClassRAW }

// v6 reports whether the socket's traffic is IPv6: a v4-mapped AF_INET6
// socket sends (udpv6_sendmsg calls udp_sendmsg) and takes ICMP errors
// (__udp4_lib_err, inet->recverr: IP_RECVERR) as AF_INET does.
func (u *Sock) v6() bool { return u.Sk.IPv6() }

// Setsockopt models udp_lib_setsockopt, do_ip_setsockopt and
// do_ipv6_setsockopt for the options the send path reads, and
// sock_setsockopt for SOL_SOCKET:
//
//   - UDP_CORK: a non-zero value corks; zero uncorks and pushes the pending
//     datagram (udp_push_pending_frames), whose errors are not reported.
//   - UDP_SEGMENT: the GSO size of later datagrams, 0 to 65535 (EINVAL);
//     ENOPROTOOPT where the profile predates it (kernel.Profile.UDPSegment).
//   - IP_HDRINCL, IP_RECVERR, IPV6_RECVERR: sock.Sock.SetInetOpt. The
//     IPv4 and IPv6 RECVERR flags are apart (IP_RECVERR on an AF_INET6
//     socket queues no ICMPv6 error, PortUnreachable); on RAW, an ENOBUFS
//     is no longer turned into success with the family's flag on.
//
// UDP options on a RAW socket are ENOPROTOOPT.
func (u *Sock) Setsockopt(opt kernel.SockOpt, val int) kernel.Errno {
	switch opt {
	case kernel.UDP_CORK, kernel.UDP_SEGMENT:
		if u.raw() {
			return kernel.ENOPROTOOPT
		}
		if opt == kernel.UDP_SEGMENT {
			if !u.host().Profile.UDPSegment {
				return kernel.ENOPROTOOPT
			}
			if val < 0 || val > 0xFFFF {
				return kernel.EINVAL
			}
			u.gsoSize = val
			return 0
		}
		u.corked = val != 0
		if !u.corked && u.pending {
			u.pushPending()
		}
		return 0
	case kernel.IP_HDRINCL, kernel.IP_RECVERR, kernel.IPV6_RECVERR:
		return u.Sk.SetInetOpt(opt, val)
	}
	if opt.Level == kernel.SOL_SOCKET {
		return u.Sk.Setsockopt(opt, val)
	}
	return kernel.ENOPROTOOPT
}

// Getsockopt models udp_lib_getsockopt: UDP_CORK (0 or 1) and
// UDP_SEGMENT (the GSO size; ENOPROTOOPT where the profile predates it).
func (u *Sock) Getsockopt(opt kernel.SockOpt) (int, kernel.Errno) {
	switch {
	case opt == kernel.UDP_CORK && u.corked:
		return 1, 0
	case opt == kernel.UDP_CORK:
		return 0, 0
	case opt == kernel.UDP_SEGMENT && u.host().Profile.UDPSegment:
		return u.gsoSize, 0
	}
	return 0, kernel.ENOPROTOOPT
}

// Connect models ip4_datagram_connect / ip6_datagram_connect to the
// socket's peer: the socket becomes TCP_ESTABLISHED. It always succeeds.
func (u *Sock) Connect() kernel.Errno {
	u.connected = true
	u.Sk.State = sock.ESTABLISHED
	u.Sk.Note(kernel.Entry{Op: kernel.OpConnect})
	return 0
}

// recvErr reports whether the socket's family has RECVERR on: IP_RECVERR
// for AF_INET, IPV6_RECVERR for AF_INET6.
func (u *Sock) recvErr() bool {
	if u.v6() {
		return u.Sk.IPv6Recverr
	}
	return u.Sk.IPRecverr
}

// PortUnreachable models __udp4_lib_err and __udp6_lib_err for the ICMP
// (ICMPv6) port unreachable that answers a datagram of this socket sent
// to a port nobody listens on, a hard error, ECONNREFUSED. icmp is the
// ICMP skb; the socket takes it over. Without RECVERR (recvErr) only a
// connected socket notices: sk_err is set. With it, ip_icmp_error
// (ipv6_icmp_error) queues the skb on the error queue as a record of
// origin SO_EE_ORIGIN_ICMP, type 3 code 3 (SO_EE_ORIGIN_ICMP6, type 1
// code 4), ee_info 0, charged to sk_rmem_alloc by sock_queue_err_skb (and
// freed if that refuses), and sk_err is set, connected or not. The next
// send that reaches sock_alloc_send_pskb then fails with ECONNREFUSED and
// takes no id; so does one after a read of the error queue that left an
// ICMP record at its head (sock.Sock.RecvErrqueue). Probed on Linux 6.18.
// The record quotes what the error carries of the datagram past its IP
// and UDP headers (ip_icmp_error pulls the skb to uh+1): measured, a read
// returns 100 bytes for a 100-byte datagram, 520 for a 2000-byte one
// (1184 over IPv6), and 0 for an empty one (probe/testdata/icmp-quoted.zcs).
func (u *Sock) PortUnreachable(icmp *skb.Buff) {
	if !u.recvErr() {
		icmp.Free()
		if u.connected {
			u.Sk.Err = kernel.ECONNREFUSED
			u.Sk.ErrorReport()
		}
		return
	}
	r := notify.Record{Origin: kernel.SO_EE_ORIGIN_ICMP, Errno: kernel.ECONNREFUSED, Type: 3, Code: 3,
		Truesize: icmp.Truesize, Skb: icmp, Quoted: icmp.Len - 2*u.Sk.IPHeaderLen() - icmpHeaderLen - UDPHeaderLen}
	if u.v6() {
		r.Origin, r.Type, r.Code = kernel.SO_EE_ORIGIN_ICMP6, 1, 4
	}
	if u.Sk.QueueErr(r) != 0 {
		icmp.Free()
	}
	u.Sk.Err = kernel.ECONNREFUSED
	u.Sk.ErrorReport()
}

// localError models ip_local_error and ipv6_local_error: with RECVERR on
// for the socket's traffic (recvErr: IP_RECVERR on IPv4 and v4-mapped,
// IPV6_RECVERR on IPv6), an error the send path found itself is queued
// as a record of origin SO_EE_ORIGIN_LOCAL, ee_errno err, ee_type and
// ee_code 0, ee_info info and ee_data 0, in an skb of one IP header
// (alloc_skb(sizeof(struct iphdr)) or sizeof(struct ipv6hdr)) charged to
// sk_rmem_alloc by sock_queue_err_skb, and freed if that refuses. Unlike
// an ICMP error it sets no sk_err. Measured on Linux 6.18: a UDP
// datagram too long for IP (EMSGSIZE, no id taken) leaves such a record,
// between the notifications of the zerocopy sends before and after it,
// so that they do not merge.
func (u *Sock) localError(err kernel.Errno, info uint32) {
	if !u.recvErr() {
		return
	}
	b := skb.AllocHead(u.host(), u.Sk.IPHeaderLen())
	r := notify.Record{Origin: kernel.SO_EE_ORIGIN_LOCAL, Errno: err, Info: info, Truesize: b.Truesize, Skb: b}
	if u.Sk.QueueErr(r) != 0 {
		b.Free()
	}
}

// Close models close(2) on the socket: udp_destroy_sock (or raw_close)
// flushes the pending corked datagram (ip_flush_pending_frames, whose
// uargs then notify before the socket is dead), the page frag is
// released, and sock_orphan/sock_put follow (Sk.Close). While transmitted
// skbs are still charged to sk_wmem_alloc the socket stays allocated: the
// kernel's sk_free only drops the wmem bias, and the last sock_wfree frees
// the socket (sock.Sock.Put).
func (u *Sock) Close() {
	if u.closed {
		return
	}
	u.closed = true
	u.flushPending()
	u.pfrag.Release()
	u.Sk.Close()
}

// call is one sendmsg in progress: its iterator over the user's iovecs,
// the holder name of the references it owns, and what it did to ids.
type call struct {
	it      mm.Iter
	holder  kernel.ObjectID
	uarg    *ubuf.Info
	outcome ubuf.Outcome
	id      uint32
	idTaken bool
	copied  bool
	// undetermined is SendResult.Undetermined.
	undetermined string
}

func (u *Sock) newCall(iov []mm.Iovec) *call {
	return &call{it: *mm.NewIter(iov...), holder: kernel.SendmsgCall(u.host().Step)}
}

// took records a successful msg_zerocopy_alloc/realloc.
func (c *call) took(u *Sock, uarg *ubuf.Info, out ubuf.Outcome) {
	c.uarg, c.outcome = uarg, out
	c.id, c.idTaken = u.Sk.ZCKey()-1, true
}

// abort models net_zcopy_put_abort(uarg, have_uref) for this call.
func (c *call) abort(haveRef bool) {
	if c.uarg == nil {
		return
	}
	c.uarg.PutAbort(c.holder, haveRef)
	c.idTaken = false
}

// result builds the SendResult of a call that accepted n bytes or failed
// with err. A call whose append succeeded keeps its id even if a later
// step fails (udp_send_skb frees the skb, and its uarg notifies).
func (c *call) result(n int, err kernel.Errno) sock.SendResult {
	r := sock.SendResult{N: n, Err: err, Outcome: c.outcome, Undetermined: c.undetermined}
	if err != 0 {
		r.N = -1
	}
	if c.idTaken {
		r.ZC, r.ID, r.Uarg, r.Copied = true, c.id, c.uarg, c.copied
	}
	return r
}

// allocSendSkb models sock_alloc_send_skb(sk, size, noblock): the pending
// socket error first (sock_error, returned once), then EPIPE once
// SEND_SHUTDOWN is set (by shutdown, even one that returned ENOTCONN on an
// unconnected socket), then the send-buffer
// check sk_wmem_alloc < sk_sndbuf (EAGAIN when it cannot wait), then the
// allocation (fault site alloc_skb: ENOBUFS).
func (u *Sock) allocSendSkb(linear int, flags kernel.MsgFlags) (*skb.Buff, kernel.Errno) {
	for waits := 0; ; waits++ {
		if e := u.Sk.TakeError(); e != 0 {
			return nil, e
		}
		if u.Sk.Shutdown&sock.SendShutdown != 0 {
			return nil, kernel.EPIPE
		}
		if u.Sk.WmemAlloc < u.Sk.Sndbuf {
			break
		}
		if flags&kernel.MSG_DONTWAIT != 0 || u.Wait == nil || waits == maxWaits || !u.Wait() {
			u.Sk.Note(kernel.Entry{Op: kernel.OpSendNoSpace, Args: [4]int64{int64(u.Sk.WmemAlloc), int64(u.Sk.Sndbuf)}})
			return nil, kernel.EAGAIN
		}
	}
	if u.host().Fail(kernel.FaultAllocSkb) {
		u.Sk.Note(kernel.Entry{Op: kernel.OpFaultFailed, Str: kernel.FaultAllocSkb})
		return nil, kernel.ENOBUFS
	}
	return u.newSkb(linear), 0
}

// allocSkb models the alloc_skb of later fragments in __ip_append_data:
// refused with ENOBUFS past twice the send buffer, or when the allocation
// fails.
func (u *Sock) allocSkb(linear int) (*skb.Buff, kernel.Errno) {
	if u.Sk.WmemAlloc > 2*u.Sk.Sndbuf {
		u.Sk.Note(kernel.Entry{Op: kernel.OpAppendNoSpace, Args: [4]int64{int64(u.Sk.WmemAlloc), int64(u.Sk.Sndbuf)}})
		return nil, kernel.ENOBUFS
	}
	if u.host().Fail(kernel.FaultAllocSkb) {
		u.Sk.Note(kernel.Entry{Op: kernel.OpFaultFailed, Str: kernel.FaultAllocSkb})
		return nil, kernel.ENOBUFS
	}
	return u.newSkb(linear), 0
}

// newSkb models the alloc_skb of sock_alloc_send_skb and
// __ip_append_data for linear bytes of datagram: the head also has room
// for the link layer and alignment (alloc_extra: hh_len 16 and 15, or an
// IPv6 fragment header), and kmalloc_reserve sizes it as skb.AllocHead
// says, so its truesize is that object's. Measured on Linux 6.18 over
// loopback (SO_MEMINFO of the receiver): a 10-byte datagram costs 832
// bytes, a 1000-byte one 2304, an 8000-byte one 16640
// (probe/testdata/dgram-rcvbuf-first.zcs).
func (u *Sock) newSkb(linear int) *skb.Buff {
	extra := allocExtra
	if u.Sk.IPv6() {
		extra = allocExtra - 15 + FragHeaderLen
	}
	b := skb.Alloc(u.host(), linear)
	b.Truesize = skb.HeadSize(u.host(), linear+extra) + skb.Overhead
	b.Head = b.Truesize
	return b
}

// dontwait adds MSG_DONTWAIT for a non-blocking socket, as __sys_sendmsg
// does for O_NONBLOCK files.
func (u *Sock) dontwait(flags kernel.MsgFlags) kernel.MsgFlags {
	if u.Sk.Type&kernel.SOCK_NONBLOCK != 0 {
		flags |= kernel.MSG_DONTWAIT
	}
	return flags
}
