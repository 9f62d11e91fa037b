package kernel

import (
	"fmt"
	"sort"
	"strings"
)

// SocketClass groups sockets by the send path that serves them; the profile
// says which classes implement MSG_ZEROCOPY.
type SocketClass uint8

// Socket classes.
const (
	ClassOther  SocketClass = iota // anything else: AF_UNIX, ping sockets, …
	ClassTCP                       // SOCK_STREAM over AF_INET/AF_INET6
	ClassUDP                       // SOCK_DGRAM over AF_INET/AF_INET6
	ClassRAW                       // SOCK_RAW over AF_INET/AF_INET6
	ClassPacket                    // AF_PACKET
	ClassRDS                       // AF_RDS
	ClassVsock                     // AF_VSOCK SOCK_STREAM and SOCK_SEQPACKET
)

var classNames = [...]string{"other", "tcp", "udp", "raw", "packet", "rds", "vsock"}

// String names the class.
func (c SocketClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class %d", c)
}

// Classify returns the class of a socket created with socket(family, typ,
// proto), following the checks of sock_setsockopt(SO_ZEROCOPY).
func Classify(family Family, typ SockType, proto Protocol) SocketClass {
	switch family {
	case AF_INET, AF_INET6:
		switch {
		case typ.Base() == SOCK_STREAM && (proto == IPPROTO_TCP || proto == IPPROTO_IP):
			return ClassTCP
		case typ.Base() == SOCK_DGRAM && (proto == IPPROTO_UDP || proto == IPPROTO_IP):
			return ClassUDP
		case typ.Base() == SOCK_RAW:
			return ClassRAW
		}
	case AF_PACKET:
		return ClassPacket
	case AF_RDS:
		return ClassRDS
	case AF_VSOCK:
		if typ.Base() == SOCK_STREAM || typ.Base() == SOCK_SEQPACKET {
			return ClassVsock
		}
	}
	return ClassOther
}

// QueueEnd names an end of the socket error queue.
type QueueEnd uint8

// Queue ends.
const (
	QueueTail QueueEnd = iota
	QueueHead
)

// String names the end.
func (e QueueEnd) String() string {
	if e == QueueHead {
		return "head"
	}
	return "tail"
}

// Profile is a kernel version as zcsim models it: a name and the knobs in
// which versions differ. Every knob documents the kernel version or commit
// that set its value. Profiles are values; Lookup returns a fresh copy, so a
// caller may change knobs (for example switch on a bug) without affecting
// anyone else.
type Profile struct {
	// Name is the profile's name, e.g. "linux-6.18".
	Name string
	// Describe says in one line which kernel this is.
	Describe string
	// Kernel is the mainline release the profile's kernel is or is based
	// on, which decides what it has of what mainline added release by
	// release (a sysctl's sock.SysctlKey.Since).
	Kernel Version

	// OptIn: MSG_ZEROCOPY takes effect only on sockets with SOCK_ZEROCOPY,
	// set by setsockopt(SO_ZEROCOPY). Merged in v4.14 (76851d1212c1); the
	// RFC had no socket option, so with OptIn false the option does not
	// exist (ENOPROTOOPT) and MSG_ZEROCOPY alone enables zerocopy.
	OptIn bool
	// ZerocopyClasses are the socket classes whose send path implements
	// MSG_ZEROCOPY and on which SO_ZEROCOPY is accepted: TCP from v4.14,
	// RDS from v4.17, UDP from v5.0 (b5947e5d1e71), connectible AF_VSOCK
	// sockets from v6.7 (the virtio-vsock MSG_ZEROCOPY series); the RFC
	// also had RAW and PF_PACKET.
	ZerocopyClasses []SocketClass
	// OptRefusal is the errno of SO_ZEROCOPY on any other socket: ENOTSUPP
	// (524) until the sk_is_tcp conversion, EOPNOTSUPP in v6.x.
	OptRefusal Errno
	// OptClosedOnly: SO_ZEROCOPY fails with EBUSY unless the socket is in
	// TCP_CLOSE (v4.14 only; lifted with UDP support in v5.0).
	OptClosedOnly bool

	// UargByteLimit is msg_zerocopy_realloc's cap on bytelen, "a few TSO"
	// (1<<19 since the RFC v2 "limit notification coalescing").
	UargByteLimit uint32
	// UargLenLimit is the cap on calls sharing one uarg (USHRT_MAX-1).
	UargLenLimit uint16

	// UargByteUnit is the unit in which msg_zerocopy_realloc counts a
	// uarg's bytes against UargByteLimit: 1 since the v4.14 merge
	// (bytelen); the RFC v2 kept kbytelen, each call's size rounded up to
	// whole KiB ("the internal calculation is approximate, in Kilobytes
	// and capped to 64MB": DIV_ROUND_UP(size, 1024), at most USHRT_MAX).
	UargByteUnit uint32

	// OptmemMax is the default net.core.optmem_max: 20480 on 64-bit until
	// v6.7, 131072 from v6.8 ("net: increase optmem_max default value").
	OptmemMax int
	// OmallocTruesize is the truesize charged to sk_omem_alloc for the
	// zero-payload skb of sock_omalloc(sk, 0): 832 bytes measured on the
	// live 6.18 kernel (sock_diag); older sizes are estimates from the
	// sk_buff layout of their time.
	OmallocTruesize int
	// OmallocEstimate is SKB_TRUESIZE(0), the estimate sock_omalloc's
	// admission check adds: it fails if omem + estimate > optmem_max.
	OmallocEstimate int
	// MemlockDefault is the default RLIMIT_MEMLOCK of a task in bytes:
	// 64 KiB historically, 8 MiB from v5.16 (9dcc38e2813e).
	MemlockDefault uint64
	// MemlockInfinityExempt: mm_account_pinned_pages skips accounting when
	// RLIMIT_MEMLOCK is RLIM_INFINITY ("elide page accounting if
	// RLIM_INFINITY", after v4.14).
	MemlockInfinityExempt bool

	// CopiedCode: a notification says SO_EE_CODE_ZEROCOPY_COPIED when some
	// reference drop copied the data (uarg->zerocopy, v4.14). The RFC's
	// __msg_zerocopy_callback fills no ee_code: its notifications never
	// say COPIED, whatever was copied.
	CopiedCode bool

	// NotifyDeadSocket: __msg_zerocopy_callback queues the notification
	// of a socket that is already SOCK_DEAD; the dead socket's error queue
	// is purged when it is destroyed. The RFC v2's sock_zerocopy_callback
	// queues unconditionally and only skips sk_error_report; merged
	// kernels (v4.14) free the notification skb instead.
	NotifyDeadSocket bool

	// TCPPurgeErrQueue: destroying a closed TCP connection
	// (inet_csk_destroy_sock) purges its error queue in
	// sk_stream_kill_queues (v6.1, e0c8bccd40fc "net: stream: purge
	// sk_error_queue in sk_stream_kill_queues()"). Before, as for every
	// datagram socket still, only sk_destruct purged it, once nothing
	// held the socket: a record that holds it (a timestamp clone's uarg,
	// bug B14; a notification charged to sk_wmem_alloc, bug R5) kept the
	// socket alive for ever.
	TCPPurgeErrQueue bool

	// NotifyMergeEnd is the error-queue end __msg_zerocopy_callback tries
	// to extend: the tail since 4ab6c99d99bb ("sock: MSG_ZEROCOPY
	// notification coalescing"), the head in the RFC.
	NotifyMergeEnd QueueEnd

	// CopyUbufsHighOrder: skb_copy_ubufs allocates compound pages of the
	// smallest order that fits MAX_SKB_FRAGS (v6.4, 7e692df39336); before,
	// order-0 pages only.
	CopyUbufsHighOrder bool
	// CopyUbufsKeepPrivate: skb_copy_ubufs keeps a frag whose page has no
	// other reference (page_count 1: a kernel page of a corked or mixed
	// skb) and copies only the rest, as the RFC v2's "Avoid unnecessary
	// copying of fragments that have no userspace reference"; merged
	// kernels copy every frag.
	CopyUbufsKeepPrivate bool
	// PureZerocopy: TCP marks skbs holding only zerocopy frags with
	// SKBFL_PURE_ZEROCOPY and does not charge them to sk_forward_alloc
	// (v5.16, 9b65b17db723).
	PureZerocopy bool
	// ZerocopyCombinePages: __zerocopy_sg_from_iter extends the last frag
	// with a pinned page chunk that continues it in the same (compound)
	// page, so iovecs back to back share frags and a huge page is one
	// frag (v5.10, "net: zerocopy: combine pages in
	// zerocopy_sg_from_iter()"); before, every base page chunk is a frag
	// of its own.
	ZerocopyCombinePages bool

	// TCPLinear is the linear area of each new skb tcp_sendmsg allocates:
	// payload copied there is not a frag, so it is never reported COPIED
	// (bug B18). 0 since "tcp: place all zerocopy payload in frags"
	// (v4.18); in v4.14 to v4.17 select_size gave SKB_WITH_OVERHEAD(2048 -
	// MAX_TCP_HEADER) on a GSO route (TCPLinearPre418). The RFC v2 gave 0
	// too: its select_size returned 0 "if (zerocopy)". This knob is bug
	// B18 itself: Switch(BugTCPLinear, on) sets it, and a profile has the
	// bug switched on exactly when it is not 0.
	TCPLinear int
	// TCPZerocopyNeedsSG: tcp_sendmsg takes a uarg only when the route
	// has scatter-gather (the RFC v2: "if (sg && (flags & MSG_ZEROCOPY) &&
	// size && !uarg)"), so without it the send copies, consumes no id and
	// is never notified. Merged kernels take the uarg on every route and
	// mark it copied (v4.14: "if (!zc) uarg->zerocopy = 0").
	TCPZerocopyNeedsSG bool
	// TCPZerocopyWaitRetry: the RFC v2's tcp_sendmsg allocates the uarg
	// after the connection and shutdown checks (at its restart label),
	// and when sock_zerocopy_realloc fails it waits in
	// sk_stream_wait_memory (EAGAIN at once for a non-blocking call; a
	// blocking one sleeps, vm_wait, as memory is not short) and tries once
	// more before ENOBUFS: "fix: in tcp, check return value of second
	// allocation attempt" (R4). Merged kernels allocate first, before any
	// state check, and fail with ENOBUFS at once.
	TCPZerocopyWaitRetry bool
	// TCPZerocopyStateCheck: MSG_ZEROCOPY on a TCP socket that is not
	// ESTABLISHED fails with EINVAL before any uarg is allocated (v4.14 to
	// v5.4). Since f859a4484703 (v5.5) the ordinary sk_stream_wait_connect
	// applies after the allocation, and a closed socket gets EPIPE with the
	// id rolled back.
	TCPZerocopyStateCheck bool
	// TCPZerocopyCloseWait: that check lets CLOSE_WAIT through
	// (13d7f46386e0, after v4.14).
	TCPZerocopyCloseWait bool
	// TCPScalingRatio: the receive window is the free receive buffer
	// scaled by the measured payload-to-truesize ratio of received
	// segments (tp->scaling_ratio, v6.6, dfa2f0483360 "tcp: get rid of
	// sysctl_tcp_adv_win_scale"); before, half of it (tcp_adv_win_scale 1).
	TCPScalingRatio bool
	// TCPRcvbufGrow is how tcp_rcv_space_adjust sizes the receive buffer
	// once a reader copied more in a receive RTT than the last
	// measurement (rcvq_space.space): RcvbufSteps, RcvbufRcvmem or
	// RcvbufWindow (see RcvbufGrow).
	TCPRcvbufGrow RcvbufGrow
	// TCPHeadroom is what MAX_TCP_HEADER adds to the head of every skb
	// tcp_stream_alloc_skb allocates, counted in its truesize
	// (SKB_TRUESIZE(skb_end_offset)): 256 on linux-6.18, whose zerocopy
	// TCP skbs carry 832 bytes of truesize besides their pages (measured:
	// the receiver of one 4000-byte send over loopback holds
	// sk_rmem_alloc 4928). 0 on the older profiles, which count the head
	// as SKB_TRUESIZE(linear) alone.
	TCPHeadroom int
	// SkbSmallHead is SKB_SMALL_HEAD_CACHE_SIZE: an skb head whose
	// SKB_HEAD_ALIGN size fits comes from skb_small_head_cache, that
	// large, instead of its kmalloc bucket (kmalloc_reserve, v6.3,
	// bf9f1baa279f); 0 before. Measured on Linux 6.18: 576, so an ICMP
	// error of up to 225 bytes costs its error queue 832 bytes, one of
	// 226 bytes 1280.
	SkbSmallHead int
	// HdrinclMinIHL: raw_send_hdrinc refuses with EINVAL an IP header
	// whose ihl is below 5 words (iphlen < sizeof(struct iphdr)), as well
	// as one past the packet; before, it sent such a header as it was,
	// unfixed. Present in v6.1's source and measured on 6.18, absent from
	// v4.14's; linux-5.0 is taken to be like v4.14 (its source not read).
	HdrinclMinIHL bool
	// TCPRmemMax is the default net.ipv4.tcp_rmem[2], which also sets the
	// window scale a connection offers (tcp_select_initial_window): 6 MiB
	// (window scale 7), 32 MiB on linux-6.18 (measured; window scale 10).
	TCPRmemMax int
	// Somaxconn is the default net.core.somaxconn (SOMAXCONN), the most
	// __sys_listen passes on as a backlog: 128 until v5.4, 4096 since
	// ("net: increase SOMAXCONN to 4096", 19f92a030ca6; measured on 6.18).
	Somaxconn int
	// SynLinearTimeouts is the default net.ipv4.tcp_syn_linear_timeouts:
	// how many SYN retransmissions keep TCP_TIMEOUT_INIT before the
	// timeout doubles ("tcp: make the first N SYN RTO backoffs linear",
	// ccce324dabfe, v6.5): 0 before, 4 since (measured on 6.18: SYNs at 0,
	// 1, 2, 3, 4, 5, 7, 11 s).
	SynLinearTimeouts int
	// TCPPushedAtMSS: a segment with PSH exactly rcv_mss long marks the
	// delayed ACK pushed (ICSK_ACK_PUSHED in tcp_measure_rcv_mss), so a
	// read that empties the receive queue acknowledges at once
	// (tcp_cleanup_rbuf) — "tcp: fix delayed ACKs for MSS boundary
	// condition" (v6.14). Measured on linux-6.18: after its quick ACKs a
	// 1000-byte send is acknowledged when the peer reads it. Before, only
	// shorter segments did.
	TCPPushedAtMSS bool
	// TCPSynDataFrag: tcp_send_syn_data copies a Fast Open SYN's data
	// into the page frag (sk_page_frag), so it takes at most the room left
	// there, 32768 bytes in a fresh frag (measured on linux-6.18, IPv4 and
	// IPv6). Without it (the 6.1 source, assumed for the older profiles)
	// the data goes into the SYN skb's linear area, "limited to order-0
	// allocations": SKB_MAX_HEAD(MAX_TCP_HEADER), 3456 bytes.
	TCPSynDataFrag bool
	// TCPGrowSkb: tcp_write_xmit first moves payload from the next skb of
	// the write queue into the head one, up to the congestion window's
	// quota of MSS (tcp_grow_skb, "tcp: try to send bigger TSO packets",
	// v6.10). Measured on linux-6.18 over loopback: a copied 100000-byte
	// send goes out as 32741, 32741 and one 34518-byte segment once the
	// first ACK widens the MSS, where a zerocopy one (skb_shift refuses
	// zerocopy skbs) goes as 32741 three times and 1777.
	TCPGrowSkb bool
	// TCPZerocopyRecv is sizeof(struct tcp_zerocopy_receive) as the kernel
	// knows it, 0 without TCP zerocopy receive (no tcp_mmap: mmap of a TCP
	// socket is sock_no_mmap's ENODEV, and getsockopt TCP_ZEROCOPY_RECEIVE
	// ENOPROTOOPT). The struct grew by these, read from the kernel's log:
	//   - TCPZerocopyRecv16, v4.18 (05255b823a61): address, length and
	//     recv_skip_hint, and optlen must be exactly that size;
	//   - TCPZerocopyRecv24, v5.7 (c8856c051454, 33946518d493, February
	//     2020): inq and err, and an optlen from the end of length on is
	//     taken, a longer one cut to the struct;
	//   - TCPZerocopyRecv40, v5.11 (18fb76ed5386, 94ab9eb9b234 and the rest
	//     of "perf optimizations for tcp recv zerocopy", December 2020):
	//     copybuf_address, copybuf_len and flags (unmapped stragglers are
	//     copied, recv_skip_hint counts to the next mappable frag, a queue
	//     shorter than a page is answered without looking at the mapping,
	//     TCP_RECEIVE_ZEROCOPY_FLAG_TLB_CLEAN_HINT defers the zap);
	//   - TCPZerocopyRecvFull, v5.12 (7eeba1706eba, January 2021, and the
	//     reserved field of February 2021): msg_control, msg_controllen,
	//     msg_flags (receive timestamps, tcp_zc_finalize_rx_tstamp) and
	//     reserved, which must be 0.
	// linux-6.18's behaviour is measured (probe/testdata
	// tcp-zerocopy-receive*.zcs).
	TCPZerocopyRecv int
	// TCPCongestion is the boot default of net.ipv4.tcp_congestion_control,
	// which a new namespace inherits (measured: bbr in a fresh namespace
	// of the calibrated 6.18) and a TCP socket starts with
	// (tcp_assign_congestion_control): CongestionCubic, the kernel's
	// default (CONFIG_DEFAULT_TCP_CONG since v2.6.19), or CongestionBBR,
	// which linux-6.18 has, as measured on the machine it is calibrated
	// against (tcp_available_congestion_control "reno bbr cubic",
	// tcp_congestion_control bbr). It rules how the window grows (Reno's
	// and CUBIC's slow start only while tcp_is_cwnd_limited; BBR's
	// bbr_set_cwnd) and how many windows of worst-case skbs
	// tcp_sndbuf_expand gives the send buffer (2, or bbr_sndbuf_expand's 3:
	// measured on 6.18, sk_sndbuf 3 × 10 × 131328 = 3939840 after a
	// loopback connect under bbr, 2 × 10 × 65792 at MTU 49204 under cubic).
	TCPCongestion Congestion
	// UnixDgramPeerLast: unix_dgram_sendmsg looks for the peer of a socket
	// with no msg_name only after its length check (EMSGSIZE) and
	// sock_alloc_send_pskb (EPIPE after SHUT_WR), so ENOTCONN comes last
	// (measured on linux-6.18). The 6.1 source looks for it first.
	UnixDgramPeerLast bool
	// OrphanRxAtLocalDeliver: the receive path copies an skb's zerocopy
	// frags (skb_orphan_frags_rx) in ip_local_deliver_finish and
	// ip6_input_finish, as Linux 6.18 does, not in
	// __netif_receive_skb_core, as the 6.1 source does: an IPv4 datagram
	// is reassembled first (ip_defrag), and only the reassembled head is
	// copied, so the fragments its frag_list keeps hold their uarg
	// references until the datagram is freed (IPv6 reassembles after
	// ip6_input_finish, fragment by fragment copied as before).
	OrphanRxAtLocalDeliver bool
	// TCPMmapConsumes is the seed's receive zerocopy ("tcp: add zero copy
	// receive", net-next, April 2018, before 05255b823a61): mmap(2) of a
	// TCP socket maps the next whole pages of the receive queue and
	// consumes them, taking the socket lock inside mmap_sem (tcp_mmap).
	// It is bug B8 itself: Switch(BugTCPMmapLockOrder, on) sets it.
	TCPMmapConsumes bool

	// DgramZerocopyPagedOnly: a datagram send takes a uarg only when its
	// payload can go into frags (scatter-gather and, for UDP, a
	// CHECKSUM_PARTIAL skb), and that payload is then always zerocopy, on
	// corked appends too: the RFC's sock_can_zerocopy rule. The merged UDP
	// support (b5947e5d1e71, v5.0) always takes the uarg and, when it cannot
	// use frags, copies with the uarg attached so that the notification
	// says COPIED.
	DgramZerocopyPagedOnly bool
	// AbortDropsNewUarg: an aborted datagram append drops the reference of
	// a uarg it had to allocate beside the corked tail's, as the RFC's
	// sock_zerocopy_put_abort always drops the call's reference. Merged
	// kernels hold that reference only for a datagram without a uarg
	// (__ip_append_data: extra_uref = !skb_zcopy(skb)).
	AbortDropsNewUarg bool
	// UDPSegment: the UDP_SEGMENT socket option (UDP GSO) exists; added in
	// v4.18 (bec1f6f69736 "udp: generate gso with UDP_SEGMENT"). Without it
	// setsockopt(UDP_SEGMENT) fails with ENOPROTOOPT.
	UDPSegment bool
	// TCPCmsgErrno: tcp_sendmsg_locked fails a call whose control
	// messages sock_cmsg_send refuses with that errno ("net: devmem:
	// preserve sockc_err", v6.16; measured on 6.18: an SO_MARK message
	// without CAP_NET_ADMIN is EPERM); before, with EINVAL whatever the
	// reason.
	TCPCmsgErrno bool
	// MPTCP: IPPROTO_MPTCP stream sockets exist (v5.6, "mptcp: Add MPTCP
	// socket stubs"), which raised IPPROTO_MAX from 256 to 263; before,
	// socket(AF_INET, SOCK_STREAM, 262) is EINVAL.
	MPTCP bool
	// GSOMaxSize is the largest gso_max_size a device may be given, and so
	// the largest skb TCP builds: GSO_MAX_SIZE, 65536 until v5.19, 512 KiB
	// since "net: allow gso_max_size to exceed 65536" (7c4e983c4f3c, BIG
	// TCP). A device asking for more gets this.
	GSOMaxSize int
	// HZ is CONFIG_HZ, the jiffies a second: the TCP timers that count in
	// jiffies round up to it (usecs_to_jiffies). 250 in every profile:
	// the Kconfig default (HZ_250) since 2.6.13, what Debian's and
	// Ubuntu's generic x86 kernels of 4.14 and 5.0 shipped, and the
	// calibrated 6.18 machine's (CONFIG_HZ=250 in its /boot/config).
	// The timer wheel (calc_wheel_index, v4.8) exists in every profile
	// too, and what it adds to a timer is not modelled: tcp/doc.go, "When
	// a timer fires".
	HZ int
	// TCPLossProbe is how tcp_schedule_loss_probe computes the tail loss
	// probe's timeout (see LossProbe).
	TCPLossProbe LossProbe
	// TCPRtoMaxOpt: a TCP socket has its own maximum RTO, icsk_rto_max,
	// which the TCP_RTO_MAX_MS option sets from 1000 to 120000 ms ("tcp:
	// add the ability to control max RTO", v6.15): it caps the
	// retransmission timeout, the zero-window probes' tcp_probe0_when and
	// the RTO an orphan's probe timer counts as alive (tcp_probe_timer).
	// Before (the 6.1 source), TCP_RTO_MAX caps them all and the option
	// is ENOPROTOOPT.
	TCPRtoMaxOpt bool
	// ListenStopRefusesConnect: connect on a TCP socket whose listening a
	// shutdown ended (tcp_disconnect of a listener, inet_shutdown) is
	// EINVAL until it listens again (measured on Linux 6.18,
	// probe/testdata/listen-shutdown-connect.zcs). The 6.1 source has no
	// such refusal: __inet_stream_connect finds SS_UNCONNECTED and
	// TCP_CLOSE and tcp_v4_connect runs, so the socket connects. A
	// MSG_FASTOPEN send, whose tcp_sendmsg_fastopen goes the same way,
	// is refused alike (probe/testdata/tcp-fastopen-listen-stopped.zcs).
	ListenStopRefusesConnect bool
	// UDPRcvbufCountsSkb: __udp_enqueue_schedule_skb drops a datagram
	// whose truesize would take sk_rmem_alloc past sk_rcvbuf, unless
	// the receive queue is empty (sk_rmem_alloc 0), which takes one
	// datagram of any size ("udp: ... Accept the packet if queue is
	// empty", v6.18; a sk_rcvbuf above INT_MAX/2 takes none that does
	// not fit). Measured on Linux 6.18
	// (probe/testdata/dgram-rcvbuf-first.zcs). Before (the 6.1 source)
	// a datagram is dropped only once sk_rmem_alloc is already past
	// sk_rcvbuf, so one more of any size always goes in.
	UDPRcvbufCountsSkb bool

	// ZcCmsg: sendmsg accepts the SCM_ZC_NOTIFICATION control message,
	// which returns zerocopy completions from the error queue in a
	// zc_info array (the unmerged v7 series, seed 003; __sock_cmsg_send).
	// Merged kernels have no such type: the cmsg is EINVAL.
	ZcCmsg bool

	// Bugs are the historical bugs switched on in this profile.
	Bugs BugSet
}

// BugSet is a set of bug switches. The zero value is the empty set.
type BugSet map[Bug]bool

// Has reports whether bug b is switched on. The model asks at every step
// of its paths, and a run has no bug switched on unless it studies one: an
// empty set answers without hashing the name.
func (s BugSet) Has(b Bug) bool { return len(s) != 0 && s[b] }

// Sorted returns the switched-on bugs in name order.
func (s BugSet) Sorted() []Bug {
	var out []Bug
	for b, on := range s {
		if on {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Bug names a historical kernel bug that a profile can re-introduce.
type Bug string

// Accepts reports whether SO_ZEROCOPY and MSG_ZEROCOPY apply to sockets of
// class c.
func (p *Profile) Accepts(c SocketClass) bool {
	for _, z := range p.ZerocopyClasses {
		if z == c {
			return true
		}
	}
	return false
}

// Clone returns a deep copy of p.
func (p *Profile) Clone() *Profile {
	q := *p
	q.ZerocopyClasses = append([]SocketClass(nil), p.ZerocopyClasses...)
	q.Bugs = make(BugSet, len(p.Bugs))
	for b, on := range p.Bugs {
		q.Bugs[b] = on
	}
	return &q
}

// Version is a mainline kernel release, v<Major>.<Minor>.
type Version struct{ Major, Minor int }

// String is "4.14".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Before reports whether v is an earlier release than w.
func (v Version) Before(w Version) bool {
	return v.Major < w.Major || v.Major == w.Major && v.Minor < w.Minor
}

// DefaultProfile is the profile used when none is named: today's kernel.
const DefaultProfile = "linux-6.18"

// profiles are the built-in profiles, oldest first; zc-cmsg-v7, a proposal
// on top of linux-6.18, comes last.
var profiles = builtinProfiles()

// builtinProfiles builds the profiles oldest first, each from the one
// before, so that every entry lists what changed between the two kernels.
func builtinProfiles() []Profile {
	rfc := Profile{
		Name:            "rfc-v2",
		Describe:        "the RFC v2 patch set \"socket sendmsg MSG_ZEROCOPY\" on v4.10-rc7 (2017)",
		Kernel:          Version{4, 10},
		OptIn:           false,
		ZerocopyClasses: []SocketClass{ClassTCP, ClassUDP, ClassRAW, ClassPacket},
		OptRefusal:      ENOPROTOOPT,
		UargByteLimit:   1 << 19,
		UargByteUnit:    1024,
		UargLenLimit:    UshrtMax - 1,
		OptmemMax:       20480,
		OmallocTruesize: 768,
		TCPRmemMax:      6 << 20,
		Somaxconn:       128,
		OmallocEstimate: 576,
		MemlockDefault:  64 << 10,
		NotifyMergeEnd:  QueueHead,
		TCPRcvbufGrow:   RcvbufSteps,
		TCPCongestion:   CongestionCubic,

		NotifyDeadSocket:       true,
		CopyUbufsKeepPrivate:   true,
		TCPZerocopyNeedsSG:     true,
		TCPZerocopyWaitRetry:   true,
		DgramZerocopyPagedOnly: true,
		AbortDropsNewUarg:      true,
		GSOMaxSize:             65536,
		HZ:                     250,
		TCPLossProbe:           LossProbeFloor10ms,
		Bugs:                   BugSet{BugLegacyUnaccount: true},
	}
	v414 := derive(rfc, "linux-4.14", "the first merge: TCP only, SO_ZEROCOPY before connect", func(p *Profile) {
		p.Kernel = Version{4, 14}
		p.OptIn = true
		p.ZerocopyClasses = []SocketClass{ClassTCP}
		p.OptRefusal = ENOTSUPP
		p.OptClosedOnly = true
		p.CopiedCode = true
		p.NotifyMergeEnd = QueueTail
		p.UargByteUnit = 1
		p.NotifyDeadSocket = false
		p.CopyUbufsKeepPrivate = false
		p.TCPZerocopyNeedsSG = false
		p.TCPZerocopyWaitRetry = false
		p.Switch(BugTCPLinear, true)
		p.Switch(BugLegacyUnaccount, false)
		p.TCPLossProbe = LossProbeTicks
		p.TCPZerocopyStateCheck = true
		p.DgramZerocopyPagedOnly = false
		p.AbortDropsNewUarg = false
	})
	v50 := derive(v414, "linux-5.0", "UDP MSG_ZEROCOPY (b5947e5d1e71), zerocopy payload in frags only", func(p *Profile) {
		p.Kernel = Version{5, 0}
		p.ZerocopyClasses = []SocketClass{ClassTCP, ClassUDP, ClassRDS}
		p.OptClosedOnly = false
		p.MemlockInfinityExempt = true
		p.TCPZerocopyCloseWait = true
		p.UDPSegment = true
		p.TCPZerocopyRecv = TCPZerocopyRecv16
		p.TCPRcvbufGrow = RcvbufRcvmem
		p.Switch(BugTCPLinear, false)
	})
	v618 := derive(v50, "linux-6.18", "today's kernel, as measured on the development machines", func(p *Profile) {
		p.Kernel = Version{6, 18}
		p.OptRefusal = EOPNOTSUPP
		p.OptmemMax = 131072
		p.OmallocTruesize = 832
		p.MemlockDefault = 8 << 20
		p.CopyUbufsHighOrder = true
		p.PureZerocopy = true
		p.ZerocopyCombinePages = true
		p.TCPZerocopyStateCheck = false
		p.TCPZerocopyCloseWait = false
		p.TCPScalingRatio = true
		p.TCPRcvbufGrow = RcvbufWindow
		p.TCPHeadroom = 256
		p.SkbSmallHead = 576
		p.HdrinclMinIHL = true
		p.TCPRmemMax = 32 << 20
		p.Somaxconn = 4096
		p.SynLinearTimeouts = 4
		p.TCPPushedAtMSS = true
		p.TCPSynDataFrag = true
		p.TCPGrowSkb = true
		p.TCPZerocopyRecv = TCPZerocopyRecvFull
		p.TCPCongestion = CongestionBBR
		p.UnixDgramPeerLast = true
		p.OrphanRxAtLocalDeliver = true
		p.GSOMaxSize = 512 << 10
		p.ZerocopyClasses = append(p.ZerocopyClasses, ClassVsock)
		p.MPTCP = true
		p.TCPCmsgErrno = true
		p.TCPLossProbe = LossProbeMicros
		p.TCPRtoMaxOpt = true
		p.ListenStopRefusesConnect = true
		p.UDPRcvbufCountsSkb = true
		p.TCPPurgeErrQueue = true
	})
	mmapRFC := derive(v414, "tcp-mmap-rfc", "linux-4.14 with the seed series \"tcp: add zero copy receive\" (net-next, April 2018): mmap() consumes received pages", func(p *Profile) {
		p.Switch(BugTCPMmapLockOrder, true)
	})
	zc := derive(v618, "zc-cmsg-v7", "linux-6.18 with the v7 series \"net: A lightweight zero-copy notification\" (2024, not merged)", func(p *Profile) {
		p.ZcCmsg = true
		p.TCPCmsgErrno = false // the series predates it
		p.Switch(BugZcCmsgLoss, true)
	})
	return []Profile{rfc, v414, mmapRFC, v50, v618, zc}
}

// RcvbufGrow is a form of receive-buffer autotuning (Profile.TCPRcvbufGrow):
// what tcp_rcv_space_adjust makes of copied, the bytes a reader copied in
// the last receive RTT, above space, the measurement before.
type RcvbufGrow string

// LossProbe is a form of tcp_schedule_loss_probe's probe timeout (PTO),
// which is then bounded by the time left to the RTO. srtt is the
// smoothed RTT; "one packet" is packets_out == 1, whose ACK the peer may
// delay.
type LossProbe string

// The forms of the probe timeout, oldest first.
const (
	// LossProbeFloor10ms (v3.10 to v4.13): 2·srtt in jiffies, with one
	// packet at least 1.5·srtt + TCP_DELACK_MAX, and at least 10ms.
	LossProbeFloor10ms LossProbe = "floor-10ms"
	// LossProbeTicks (bb4d991a28cc, "tcp: adjust tail loss probe
	// timeout", to v6.5): 2·srtt in jiffies plus TCP_RTO_MIN with one
	// packet, plus TCP_TIMEOUT_MIN (2 jiffies: 8ms at HZ 250) otherwise.
	LossProbeTicks LossProbe = "ticks"
	// LossProbeMicros (v6.6, 1c2709cfff1d, "tcp: fix excessive TLP and
	// RACK timeouts from HZ rounding"): 2·srtt plus tcp_rto_min_us with
	// one packet, plus TCP_TIMEOUT_MIN_US (2ms) otherwise, then rounded
	// up to jiffies: one jiffy at HZ 250 over loopback.
	LossProbeMicros LossProbe = "micros"
)

// The forms of receive-buffer autotuning, oldest first.
const (
	// RcvbufSteps (v4.14): rcvwin = 2·copied + 16·advmss, doubled when
	// copied ≥ 1.5·space or raised by half when ≥ 1.25·space; sk_rcvbuf
	// is rcvwin / advmss segments of rcvmem bytes (SKB_TRUESIZE of a full
	// segment, grown until its window holds advmss) and window_clamp is
	// rcvwin.
	RcvbufSteps RcvbufGrow = "steps"
	// RcvbufRcvmem (v4.16 to v6.15, "tcp: smoother receive autotuning"):
	// rcvwin = 2·copied + 16·advmss grows by twice rcvwin·(copied −
	// space)/space; sk_rcvbuf is counted in rcvmem per advmss as before
	// and window_clamp is its window (tcp_win_from_space).
	RcvbufRcvmem RcvbufGrow = "rcvmem"
	// RcvbufWindow (v6.16 on, "tcp: fix sk_rcvbuf overshoot", "tcp: add
	// receive queue awareness in tcp_rcv_space_adjust()", and v6.18's
	// "tcp: fix too slow tcp_rcvbuf_grow() action"): copied less what is
	// still queued; tcp_rcvbuf_grow makes rcvwin = 2·copied + 4·copied·
	// (copied − space)/space and sk_rcvbuf its tcp_space_from_win at the
	// measured scaling_ratio; window_clamp is that buffer's window.
	RcvbufWindow RcvbufGrow = "window"
)

// Congestion is a TCP congestion control (Profile.TCPCongestion), named as
// net.ipv4.tcp_congestion_control names it.
type Congestion string

// The congestion controls the model knows.
const (
	// CongestionCubic grows the window in slow start by the segments each
	// ACK acknowledges, only while tcp_is_cwnd_limited (bictcp_cong_avoid
	// → tcp_slow_start; Reno's tcp_reno_cong_avoid does the same). Its
	// send buffer is two windows (tcp_sndbuf_expand without a
	// sndbuf_expand operation).
	CongestionCubic Congestion = "cubic"
	// CongestionBBR sets the window itself on every ACK (cong_control:
	// bbr_main → bbr_set_cwnd), whether or not the window was used: in
	// STARTUP it grows by the segments acknowledged while tp->delivered,
	// which counts the SYN, is below TCP_INIT_CWND, or while below the
	// target its bandwidth and min_rtt estimates give. Its send buffer is
	// three windows (bbr_sndbuf_expand).
	CongestionBBR Congestion = "bbr"
	// CongestionReno is Reno (tcp_reno, built in): in the model, which
	// keeps no ssthresh and never leaves slow start, it grows the window
	// as CUBIC does, and its send buffer is two windows.
	CongestionReno Congestion = "reno"
)

// Congestions are the congestion controls the model knows, which every
// profile's kernel has (tcp_available_congestion_control "reno bbr
// cubic" on the calibrated 6.18): tcp_ca_find finds any other name in
// none of them, ENOENT (tcp_ca_find_autoload's request_module finds no
// module on the calibrated machine either).
var Congestions = []Congestion{CongestionReno, CongestionCubic, CongestionBBR}

// KnownCongestion reports whether name is a congestion control the model
// knows (Congestions).
func KnownCongestion(name string) bool {
	for _, c := range Congestions {
		if string(c) == name {
			return true
		}
	}
	return false
}

// Sizes of struct tcp_zerocopy_receive (Profile.TCPZerocopyRecv).
const (
	TCPZerocopyRecv16   = 16 // address, length, recv_skip_hint (v4.18)
	TCPZerocopyRecv24   = 24 // and inq, err (v5.7)
	TCPZerocopyRecv40   = 40 // and copybuf_address, copybuf_len, flags (v5.11)
	TCPZerocopyRecvFull = 64 // through reserved (v5.12 to today)
)

// derive returns a copy of base under a new name, changed by change.
func derive(base Profile, name, describe string, change func(*Profile)) Profile {
	p := base.Clone()
	p.Name, p.Describe = name, describe
	change(p)
	return *p
}

// Profiles returns a copy of every built-in profile, oldest kernel first.
func Profiles() []*Profile {
	out := make([]*Profile, len(profiles))
	for i := range profiles {
		out[i] = profiles[i].Clone()
	}
	return out
}

// Lookup returns a fresh copy of the named profile.
func Lookup(name string) (*Profile, error) {
	var names []string
	for i := range profiles {
		if profiles[i].Name == name {
			return profiles[i].Clone(), nil
		}
		names = append(names, profiles[i].Name)
	}
	return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(names, ", "))
}
