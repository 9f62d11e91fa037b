package sock

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
)

// State is sk_state, in the TCP state numbering every socket uses
// (include/net/tcp_states.h).
type State uint8

// Socket states.
const (
	ESTABLISHED State = 1
	SYN_SENT    State = 2
	FIN_WAIT1   State = 4
	FIN_WAIT2   State = 5
	CLOSE       State = 7
	CLOSE_WAIT  State = 8
	LAST_ACK    State = 9
	LISTEN      State = 10
	CLOSING     State = 11
)

var stateNames = map[State]string{
	ESTABLISHED: "TCP_ESTABLISHED", SYN_SENT: "TCP_SYN_SENT", FIN_WAIT1: "TCP_FIN_WAIT1", FIN_WAIT2: "TCP_FIN_WAIT2",
	CLOSE: "TCP_CLOSE", CLOSE_WAIT: "TCP_CLOSE_WAIT", LAST_ACK: "TCP_LAST_ACK", LISTEN: "TCP_LISTEN", CLOSING: "TCP_CLOSING",
}

// String names the state as the kernel does ("TCP_CLOSE").
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("state %d", s)
}

// Sock is a struct sock: the protocol-independent socket state MSG_ZEROCOPY
// touches.
//
// Ownership: a new Sock has one reference (sk_refcnt), owned by its file
// descriptor and dropped by Close. Every msg_zerocopy uarg holds one more
// until its completion (sock_hold in msg_zerocopy_alloc). When the last
// reference is gone and no transmitted skb charges sk_wmem_alloc any more
// (whichever comes last: Put or the skb's sock_wfree), sk_destruct purges
// the error queue and the socket is freed; every charge it still holds is
// then a leak.
type Sock struct {
	kernel.Tracked
	Family   kernel.Family
	Type     kernel.SockType
	Protocol kernel.Protocol
	Class    kernel.SocketClass
	State    State
	// Task is the process that owns the socket and makes its calls.
	Task *ubuf.Task
	// Net holds the network namespace's sysctls.
	Net *Sysctl

	// Err is sk_err, the pending socket error: the next call that checks
	// it reports it once (TakeError). A reset or timeout sets it, and so do
	// an ICMP error (__udp4_lib_err) and reading the error queue
	// (RecvErrqueue).
	Err kernel.Errno
	// IPRecverr, IPv6Recverr and Hdrincl are inet->recverr (IP_RECVERR),
	// np->recverr (IPV6_RECVERR) and inet->hdrincl (IP_HDRINCL).
	IPRecverr, IPv6Recverr, Hdrincl bool
	// V4Mapped says an AF_INET6 socket's peer address is v4-mapped
	// (::ffff:127.0.0.1): its traffic is IPv4 (tcp_v6_connect switches
	// to ipv6_mapped's af_ops, udpv6_sendmsg hands the datagram to
	// udp_sendmsg, __udp4_lib_err reports the ICMP errors), while what
	// the socket layer does stays AF_INET6's (ipv6_recv_error reads the
	// error queue).
	V4Mapped bool
	// Shutdown is sk_shutdown: which directions were shut down.
	Shutdown ShutdownBits
	// MaxAckBacklog is a listener's sk_max_ack_backlog, the backlog
	// listen(2) passed (inet_listen): its accept queue is full once it
	// holds more children than that (sk_acceptq_is_full).
	MaxAckBacklog int

	zckey    uint32
	zerocopy bool
	dead     bool
	refcnt   int
	// uargs and uargBytes count the live msg_zerocopy uargs of the
	// socket and their truesize (LiveUarg).
	uargs, uargBytes int

	// Charges, in bytes of truesize.
	OmemAlloc int // sk_omem_alloc
	// OmemLow is the least OmemAlloc since MarkOmem: what an optmem
	// admission after it could have seen at best.
	OmemLow    int
	WmemAlloc  int // sk_wmem_alloc, without the kernel's bias of 1
	WmemQueued int // sk_wmem_queued (TCP write and retransmit queues)
	// WmemQueuedCharged sums every charge to sk_wmem_queued over the
	// socket's life (frees do not lower it): a call's charges are the
	// difference across it.
	WmemQueuedCharged uint64
	RmemAlloc         int // sk_rmem_alloc
	Sndbuf            int // sk_sndbuf
	Rcvbuf            int // sk_rcvbuf
	Rcvlowat          int // sk_rcvlowat
	// SndbufLocked and RcvbufLocked are SOCK_SNDBUF_LOCK and
	// SOCK_RCVBUF_LOCK: the user set the size, so autotuning leaves it.
	SndbufLocked, RcvbufLocked bool
	// MaxPacingRate is sk_max_pacing_rate in bytes per second,
	// NoPacingLimit (~0UL) unless SO_MAX_PACING_RATE set it; PacingNeeded
	// is sk_pacing_status SK_PACING_NEEDED, which a limit set sets for
	// good: TCP then paces itself (tcp_needs_internal_pacing; the model's
	// qdiscs are never fq, which would pace instead).
	MaxPacingRate uint64
	PacingNeeded  bool

	// Mark is sk_mark (SO_MARK), which routes nothing in the model.
	Mark uint32
	// Reuse and Reuseport are sk_reuse (SO_REUSEADDR, SK_CAN_REUSE) and
	// sk_reuseport (SO_REUSEPORT): what inet_csk_bind_conflict relaxes.
	// The model's binds never conflict (each socket has an address of its
	// own), so they change nothing else.
	Reuse, Reuseport bool
	// URGInline is SOCK_URGINLINE (SO_OOBINLINE): TCP urgent data stays
	// in the stream.
	URGInline bool

	// Tsflags are the SO_TIMESTAMPING flags and Tskey sk_tskey: the next
	// key of a datagram socket, and on TCP the sequence number keys count
	// from (snd_una, or write_seq with SOF_TIMESTAMPING_OPT_ID_TCP, when
	// OPT_ID was switched on).
	Tsflags kernel.Timestamping
	Tskey   uint32
	// Rxts are the socket's receive timestamp flags (sk_flags, see
	// rxts.go).
	Rxts RxtsFlags

	// ErrQueue is sk_error_queue.
	ErrQueue notify.Queue

	// KmallocOmem is the part of OmemAlloc that Kmalloc charged: the
	// control buffer of a sendmsg in progress.
	KmallocOmem int
	// Control is the control buffer of the send call in progress, which
	// the protocol parses where its sendmsg does (CmsgSend, or UDP's
	// udp_cmsg_send and ip_cmsg_send) and fails the call if it refuses
	// it. The caller sets it for one call; nil means msg_controllen is 0.
	Control *Control

	// Wake, if set, is the socket's wait queue (sk_wq): called for each
	// wakeup with its key, the events it is about (0 for all):
	// sk_error_report (POLLERR), sk_data_ready (POLLIN), sk_write_space
	// (POLLOUT) and sk_state_change (0). An epoll watching the socket
	// hangs its ep_poll_callback there.
	Wake func(key kernel.PollEvents)
	// Wakeups counts the wakeups of the socket's wait queue, whatever
	// their key: a task asleep on it in sk_wait_event (woken_wake_function
	// ignores the key) is woken by each.
	Wakeups uint64
	// NoSpace is SOCK_NOSPACE: tcp_poll found the write queue full, so
	// the ACK that frees room wakes the writers (tcp_check_space).
	NoSpace bool

	// OnNotify, if set, is called for each zerocopy notification the
	// socket's uargs hand over, after it was merged or queued.
	OnNotify func(n ubuf.Notification, merged bool)
	// OnPurge, if set, is called after PurgeErrQueue emptied the error
	// queue.
	OnPurge func()
}

// ShutdownBits is a set of sk_shutdown bits.
type ShutdownBits uint8

// The sk_shutdown bits (include/net/sock.h). inet_shutdown sets them
// even where it returns ENOTCONN, tcp_done sets both, and only
// tcp_disconnect clears them: a later connect keeps them.
const (
	// RcvShutdown is RCV_SHUTDOWN: reads return 0 once the queue is empty.
	RcvShutdown ShutdownBits = 1
	// SendShutdown is SEND_SHUTDOWN: sends fail with EPIPE
	// (tcp_sendmsg_locked, sock_alloc_send_pskb).
	SendShutdown ShutdownBits = 2
	// ShutdownMask is SHUTDOWN_MASK, both directions.
	ShutdownMask = RcvShutdown | SendShutdown
)

// New models sk_alloc for socket(family, typ, proto) owned by task: one
// reference, state TCP_CLOSE, buffers at the namespace defaults.
func New(h *kernel.Host, net *Sysctl, task *ubuf.Task, family kernel.Family, typ kernel.SockType, proto kernel.Protocol) *Sock {
	s := &Sock{
		Family: family, Type: typ, Protocol: proto,
		Class: kernel.Classify(family, typ, proto),
		State: CLOSE, Task: task, Net: net, refcnt: 1,
		Sndbuf: net.WmemDefault, Rcvbuf: net.RmemDefault, Rcvlowat: 1,
		MaxPacingRate: NoPacingLimit,
	}
	if s.Class == kernel.ClassTCP {
		s.Sndbuf, s.Rcvbuf = net.TCPWmem[1], net.TCPRmem[1]
	}
	// inet_create and inet6_create: the RAW and ping entries of the
	// protocol switch carry INET_PROTOSW_REUSE, so sk_reuse starts
	// SK_CAN_REUSE (SO_REUSEADDR reads 1 on a new RAW or ping socket of
	// either family).
	s.Reuse = s.Class == kernel.ClassRAW || s.ping()
	h.Track(&s.Tracked, "sock", s)
	s.Note(kernel.Entry{Op: kernel.OpSocket, Args: [4]int64{int64(family), int64(typ), int64(proto)}})
	return s
}

// ping reports a ping socket: SOCK_DGRAM of IPPROTO_ICMP over AF_INET,
// of IPPROTO_ICMPV6 over AF_INET6 (ping_prot, pingv6_prot).
func (s *Sock) ping() bool {
	return s.Type.Base() == kernel.SOCK_DGRAM &&
		(s.Family == kernel.AF_INET && s.Protocol == kernel.IPPROTO_ICMP || s.Family == kernel.AF_INET6 && s.Protocol == kernel.IPPROTO_ICMPV6)
}

// String renders the socket as "sock#2(tcp)".
func (s *Sock) String() string { return fmt.Sprintf("%v(%v)", s.Ident(), s.Class) }

// ZCKey returns sk_zckey, the id the next zerocopy uarg gets.
func (s *Sock) ZCKey() uint32 { return s.zckey }

// SetZCKey stores sk_zckey.
func (s *Sock) SetZCKey(k uint32) { s.zckey = k }

// Stream reports whether the socket is SOCK_STREAM.
func (s *Sock) Stream() bool { return s.Type.Base() == kernel.SOCK_STREAM }

// Dead reports SOCK_DEAD: the socket was closed by its owner.
func (s *Sock) Dead() bool { return s.dead }

// Refcnt returns sk_refcnt.
func (s *Sock) Refcnt() int { return s.refcnt }

// LiveUarg counts a msg_zerocopy uarg of the socket allocated (n 1) or
// freed (n -1), of truesize bytes of optmem (ubuf.Socket).
func (s *Sock) LiveUarg(n, truesize int) {
	s.uargs += n
	s.uargBytes += n * truesize
}

// LiveUargs returns how many msg_zerocopy uargs of the socket are live and
// their truesize: each holds a socket reference (unless bug no-sock-ref)
// and its optmem charge, which the invariant checks compare with sk_refcnt
// and sk_omem_alloc.
func (s *Sock) LiveUargs() (n, truesize int) { return s.uargs, s.uargBytes }

// ZerocopyFlag reports SOCK_ZEROCOPY as set by SO_ZEROCOPY.
func (s *Sock) ZerocopyFlag() bool { return s.zerocopy }

// Zerocopy reports whether MSG_ZEROCOPY takes effect on this socket: with
// SOCK_ZEROCOPY set where the profile requires the opt-in, or for every
// socket class that implements it where it does not (the RFC). Otherwise
// the flag is silently ignored and the data is copied.
func (s *Sock) Zerocopy() bool {
	p := s.Host().Profile
	if p.OptIn {
		return s.zerocopy
	}
	return p.Accepts(s.Class)
}

// Omalloc models sock_omalloc(sk, 0): fail if sk_omem_alloc plus the
// estimate SKB_TRUESIZE(0) would exceed optmem_max (strictly), or if the
// allocation fails (fault site sock_omalloc); else charge the skb's
// truesize. Under kernel.BugNotifyWmem the RFC v1 charged sk_wmem_alloc
// against sk_sndbuf instead (sock_wmalloc).
func (s *Sock) Omalloc() (int, bool) {
	p := s.Host().Profile
	size := p.OmallocTruesize
	if p.Bugs.Has(kernel.BugNotifyWmem) {
		if s.WmemAlloc >= s.Sndbuf || s.Host().Fail(kernel.FaultSockOmalloc) {
			return 0, false
		}
		s.WmemAlloc += size
		return size, true
	}
	if s.OmallocRefuses(0) {
		s.Note(kernel.Entry{Op: kernel.OpOmallocRefused, Args: [4]int64{int64(s.OmemAlloc), int64(p.OmallocEstimate), int64(s.Net.OptmemMax)}})
		return 0, false
	}
	if s.Host().Fail(kernel.FaultSockOmalloc) {
		s.Note(kernel.Entry{Op: kernel.OpFaultFailed, Str: kernel.FaultSockOmalloc})
		return 0, false
	}
	s.OmemAlloc += size
	return size, true
}

// OmallocRefuses reports whether sock_omalloc(sk, 0) would refuse for
// optmem_max were sk_omem_alloc extra bytes higher than it is: the check
// Omalloc makes, asked without allocating (a replay's question of a
// kernel that still held charges the model has returned).
func (s *Sock) OmallocRefuses(extra int) bool {
	return s.OmemAlloc+extra+s.Host().Profile.OmallocEstimate > s.Net.OptmemMax
}

// Ofree models sock_ofree: return an Omalloc charge.
func (s *Sock) Ofree(truesize int) {
	if !s.CheckLive("sock_ofree") {
		return
	}
	if s.Host().Profile.Bugs.Has(kernel.BugNotifyWmem) {
		s.uncharge(&s.WmemAlloc, "sk_wmem_alloc", truesize)
		return
	}
	s.unchargeOmem(truesize)
}

// unchargeOmem returns n bytes of sk_omem_alloc, keeping OmemLow.
func (s *Sock) unchargeOmem(n int) {
	s.uncharge(&s.OmemAlloc, "sk_omem_alloc", n)
	s.OmemLow = min(s.OmemLow, s.OmemAlloc)
}

// MarkOmem starts OmemLow afresh at the current sk_omem_alloc.
func (s *Sock) MarkOmem() { s.OmemLow = s.OmemAlloc }

func (s *Sock) uncharge(counter *int, name string, n int) {
	if *counter < n {
		s.Violate(kernel.RuleAccounting, "%s %d uncharged by %d (underflow)", name, *counter, n)
		*counter = 0
		return
	}
	*counter -= n
}

// Uncharge returns an skb's charge when it is orphaned or freed
// (sock_wfree, sock_rfree, sock_ofree, sk_wmem_free_skb).
func (s *Sock) Uncharge(d skb.Destructor, truesize int) {
	switch d {
	case skb.SockWfree:
		s.uncharge(&s.WmemAlloc, "sk_wmem_alloc", truesize)
		if s.Class != kernel.ClassTCP && 2*(s.WmemAlloc+1) <= s.Sndbuf {
			// sock_def_write_space: sk_wmem_alloc, with its bias of 1, at
			// most half of sk_sndbuf.
			s.WakeUp(kernel.POLLOUT | kernel.POLLWRNORM | kernel.POLLWRBAND)
		}
		s.maybeFree()
	case skb.SockRfree:
		s.uncharge(&s.RmemAlloc, "sk_rmem_alloc", truesize)
	case skb.SockOfree:
		s.Ofree(truesize)
	case skb.WmemQueued:
		s.uncharge(&s.WmemQueued, "sk_wmem_queued", truesize)
	}
}

// Charging is an skb owner other than the socket whose destructor ends
// in the socket's own: tpacket_destruct_skb gives a TX ring frame back
// and then calls sock_wfree, with skb->sk the packet socket all along.
type Charging interface {
	skb.Owner
	// Charged is skb->sk: the socket whose counter the skb is charged to.
	Charged() *Sock
}

// OwnerSock returns skb->sk for an skb owned by o: the socket itself, the
// socket a Charging owner charges, or nil.
func OwnerSock(o skb.Owner) *Sock {
	switch o := o.(type) {
	case *Sock:
		return o
	case Charging:
		return o.Charged()
	}
	return nil
}

// Hold models sock_hold.
func (s *Sock) Hold() {
	if !s.CheckLive("sock_hold") {
		return
	}
	s.refcnt++
}

// Put models sock_put: after the last reference, once no transmitted skb
// charges sk_wmem_alloc any more, sk_destruct purges the error queue and
// frees the socket.
func (s *Sock) Put() {
	if !s.CheckLive("sock_put") {
		return
	}
	if s.refcnt <= 0 {
		s.Violate(kernel.RuleRefcount, "sock_put with sk_refcnt %d", s.refcnt)
		return
	}
	s.refcnt--
	s.maybeFree()
}

// maybeFree models sk_free: the struct sock outlives its last reference
// while transmitted skbs still charge sk_wmem_alloc (the kernel's bias of
// one in sk_wmem_alloc is dropped by sk_free, and sock_wfree frees the
// socket when the count reaches zero).
func (s *Sock) maybeFree() {
	if s.refcnt == 0 && s.WmemAlloc == 0 && !s.Freed() {
		s.destruct()
	}
}

// destruct models sk_destruct: purge the error queue, then every charge
// must be back to zero.
func (s *Sock) destruct() {
	s.disableTimestamp(RxtsTimestamp | RxtsTimestampingRxSoftware)
	s.PurgeErrQueue()
	for _, c := range []struct {
		name string
		n    int
	}{{"sk_omem_alloc", s.OmemAlloc}, {"sk_wmem_queued", s.WmemQueued}, {"sk_rmem_alloc", s.RmemAlloc}} {
		if c.n != 0 {
			s.Violate(kernel.RuleAccounting, "destroyed with %s %d", c.name, c.n)
		}
	}
	s.Free()
}

// Orphan models sock_orphan: the socket loses its owner and becomes
// SOCK_DEAD, so completions from now on queue no notification.
func (s *Sock) Orphan() {
	s.dead = true
	s.Note(kernel.Entry{Op: kernel.OpOrphan})
}

// PurgeErrQueue frees every record of the error queue, returning its
// charge: sk_destruct's purge (inet_sock_destruct), and for TCP since
// v6.1 sk_stream_kill_queues' when inet_csk_destroy_sock destroys the
// closed connection, before the socket's last reference goes
// (Profile.TCPPurgeErrQueue). Under kernel.BugNotifyWmem that is what
// returns a TCP socket's unread notifications to sk_wmem_alloc, which
// else keep it from ever being destroyed.
func (s *Sock) PurgeErrQueue() {
	for _, r := range s.ErrQueue.Purge() {
		s.freeRecord(r)
	}
	if s.OnPurge != nil {
		s.OnPurge()
	}
}

// Close models the socket-layer part of close(2) for protocols without
// teardown of their own: Orphan, TCP_CLOSE, and the descriptor's reference
// dropped.
func (s *Sock) Close() {
	s.Orphan()
	s.State = CLOSE
	s.Put()
}

// QueueNotification queues or merges a zerocopy notification on the error
// queue at the profile's end (__msg_zerocopy_callback); a merged
// notification's skb is consumed at once and its optmem returned. Without
// Profile.CopiedCode (the RFC) it never says COPIED.
func (s *Sock) QueueNotification(n ubuf.Notification) {
	if !s.CheckLive("queueing a notification") {
		return
	}
	if !s.Host().Profile.CopiedCode {
		n.Copied = false // the RFC's callback sets no ee_code
	}
	why := s.ErrQueue.Zerocopy(n, s.Host().Profile.NotifyMergeEnd)
	merged := why.Merged()
	if merged {
		s.Ofree(n.Truesize)
	}
	s.Note(kernel.Entry{Op: kernel.OpNotified, Args: [4]int64{int64(n.Lo), int64(n.Hi()), kernel.Bool(n.Copied), int64(why)}})
	if s.OnNotify != nil {
		s.OnNotify(n, merged)
	}
	s.ErrorReport() // merged or queued: __msg_zerocopy_callback reports either way
}

// WakeUp wakes the socket's wait queue with key (Wake).
func (s *Sock) WakeUp(key kernel.PollEvents) {
	s.Wakeups++
	if s.Wake != nil {
		s.Wake(key)
	}
}

// ErrorReport models sk_error_report (sock_def_error_report): a wakeup
// with key POLLERR, for every record queued on the error queue (also one
// merged into the tail), every sk_err set by an ICMP error or a reset,
// and a read that leaves an ICMP error at the queue's head.
func (s *Sock) ErrorReport() { s.WakeUp(kernel.POLLERR) }

// WriteSpaceTCP models tcp_check_space after an ACK: with SOCK_NOSPACE
// set and the write queue writeable again, sk_stream_write_space clears
// it and wakes the writers (POLLOUT|POLLWRNORM|POLLWRBAND).
func (s *Sock) WriteSpaceTCP(writeable bool) {
	if s.NoSpace && writeable {
		s.StreamWriteSpace()
	}
}

// StreamWriteSpace models sk_stream_write_space on a writeable socket:
// SOCK_NOSPACE cleared and the writers woken.
func (s *Sock) StreamWriteSpace() {
	s.NoSpace = false
	s.WakeUp(kernel.POLLOUT | kernel.POLLWRNORM | kernel.POLLWRBAND)
}

// QueueErr models sock_queue_err_skb for a non-zerocopy record (a TX
// timestamp): charge its truesize to sk_rmem_alloc, or fail with ENOMEM
// (and queue nothing) when that would reach sk_rcvbuf.
func (s *Sock) QueueErr(r notify.Record) kernel.Errno {
	if s.RmemAlloc+r.Truesize >= s.Rcvbuf {
		return kernel.ENOMEM
	}
	s.RmemAlloc += r.Truesize
	s.ErrQueue.Append(r)
	if !s.dead {
		s.ErrorReport()
	}
	return 0
}

// TakeError models sock_error: it returns sk_err and clears it.
func (s *Sock) TakeError() kernel.Errno {
	err := s.Err
	s.Err = 0
	return err
}

// RecvErrqueue models recvmsg(MSG_ERRQUEUE) (sock_recv_errqueue): dequeue
// one record and free it, returning its charge; EAGAIN when the queue is
// empty. It never blocks. As sock_dequeue_err_skb does, the read sets
// sk_err to the errno of the next record if that is an ICMP error, and
// clears it if the record read was one and the next is not: a send after
// the read sees the ICMP error still queued (probed on Linux 6.18).
func (s *Sock) RecvErrqueue() (notify.Record, kernel.Errno) {
	r, ok := s.ErrQueue.Dequeue()
	if !ok {
		return notify.Record{}, kernel.EAGAIN
	}
	if next, ok := s.ErrQueue.Peek(); ok && next.IsICMP() {
		s.Err = next.Errno
		s.ErrorReport()
	} else if r.IsICMP() {
		s.Err = 0
	}
	s.freeRecord(r)
	return r, 0
}

// freeRecord frees an error-queue skb: a zerocopy notification returns its
// optmem, a timestamp its rmem and the clone it carries.
func (s *Sock) freeRecord(r notify.Record) {
	if r.IsZerocopy() {
		s.Ofree(r.Truesize)
		return
	}
	s.uncharge(&s.RmemAlloc, "sk_rmem_alloc", r.Truesize)
	if r.Skb != nil {
		r.Skb.Free()
	}
}
