package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
	"github.com/zcsim/zcsim/ubuf"
	"github.com/zcsim/zcsim/udp"
)

// Call says where a system call comes from, for the trace: the source
// (file:line of a scenario statement or strace line) and its text.
type Call struct {
	Source string
	Text   string
	// Background lets a blocking TCP send that runs out of send buffer
	// return while it sleeps in sk_stream_wait_memory (Result.Asleep),
	// so that the calls of the program's other threads and processes run
	// while it sleeps; see Asleep.
	Background bool
}

// Result is what a system call returned.
type Result struct {
	// Ret is the return value, -1 with Errno on failure.
	Ret   int64
	Errno kernel.Errno
	// Name is the string a getsockopt returned (TCP_CONGESTION's name,
	// GetsockoptName), nil for any other call.
	Name *string
	// TCPInfo is what a getsockopt(TCP_INFO) wrote (GetsockoptBuf), nil
	// for any other call.
	TCPInfo tcp.Info
	// Record is the record an error-queue read returned.
	Record *notify.Record
	// Send is what a send call did to ids (zero for other calls).
	Send sock.SendResult
	// Blocked is set when a blocking call could never complete.
	Blocked bool
	// Asleep is set, and nothing else, when a Background send returned
	// asleep: its result comes once it wakes with everything queued.
	Asleep *Asleep
	// ZcInfo is what became of the call's SCM_ZC_NOTIFICATION, if it
	// carried one (SendMsg).
	ZcInfo *ZcReply
	// Ctrunc is MSG_CTRUNC: an error-queue read dequeued Record but its
	// control message did not fit, so the program never saw it.
	Ctrunc bool
	// MsgFlags are the msg_flags an error-queue read returned:
	// MSG_ERRQUEUE, with MSG_CTRUNC when Ctrunc.
	MsgFlags kernel.MsgFlags
	// Cmsg is the header of the control message an error-queue read
	// wrote, if its buffer held at least a struct cmsghdr.
	Cmsg *Cmsg
	// Epoll are the events an epoll_wait returned.
	Epoll []EpollEvent
	// Revents are the events a poll returned for its descriptor.
	Revents kernel.PollEvents
	// Batch is what each message a sendmmsg tried did to ids, in order.
	Batch []sock.SendResult
	// ZcControl is what a getsockopt(TCP_ZEROCOPY_RECEIVE) wrote of its
	// control buffer (ZcControlText), when it had one or was told
	// MSG_CTRUNC.
	ZcControl string
	// RecvControl is what a recvmsg reading data wrote into its control
	// buffer (RecvControlText), when it wrote a message or was told
	// MSG_CTRUNC.
	RecvControl string
	// Undetermined, when set, says what of a call other than a send
	// hangs on something the model does not have (a send says it in
	// Send.Undetermined).
	Undetermined string
}

// Cmsg is a struct cmsghdr as put_cmsg wrote it: cmsg_level, cmsg_type
// and cmsg_len (cut to msg_controllen when the message did not fit).
// Data says whether the whole sock_extended_err is in the buffer, so
// its fields can be read even from a cut message.
type Cmsg struct {
	Level kernel.Level
	Type  int32
	Len   int
	Data  bool
}

func ok(ret int64) Result { return Result{Ret: ret} }

func fail(err kernel.Errno) Result {
	if err == 0 {
		return Result{}
	}
	return Result{Ret: -1, Errno: err}
}

// String renders the result as strace does: "4096", "-1 ENOBUFS".
func (r Result) String() string {
	if r.Errno != 0 {
		return "-1 " + r.Errno.String()
	}
	return strconv.FormatInt(r.Ret, 10)
}

// syscall runs fn as one step and records it with its result. A call on
// a socket the program closed fails with EBADF without running fn: its
// descriptor names nothing any more (fdget in every socket call).
func (w *World) syscall(c Call, op string, s *Socket, fn func() Result) Result {
	return w.syscallThen(c, op, s, fn, nil)
}

// syscallThen is syscall with then, which runs after fn once the call
// let go of the socket (release_sock processed its backlog) and may
// complete fn's result.
func (w *World) syscallThen(c Call, op string, s *Socket, fn func() Result, then func(Result) Result) Result {
	w.beginOn(s)
	var r Result
	switch {
	case s != nil && s.closed:
		r = fail(kernel.EBADF)
	case s != nil && s.mptcp != nil && mptcpDataOp(op):
		r = Result{Ret: -1, Undetermined: mptcpDataPath(s, op)}
	case s != nil && s.tcp != nil:
		s.lockSock()
		r = fn()
		w.releaseSock(s)
	default:
		r = fn()
	}
	if then != nil && !(s != nil && s.closed) {
		r = then(r)
	}
	w.record(c, op, s, r)
	return r
}

// Control runs fn, a statement that is not a system call (a scenario's
// set-up or network control), as a step of its own described by text.
func (w *World) Control(c Call, op, text string, fn func()) {
	w.begin()
	if fn != nil {
		fn()
	}
	w.end(Event{Source: c.Source, Op: op, Text: text})
}

// FailCall records a call that fails with err before it reaches a socket,
// such as a call on a descriptor that names none (EBADF).
func (w *World) FailCall(c Call, op string, err kernel.Errno) Result {
	return w.syscall(c, op, nil, func() Result { return fail(err) })
}

// record ends a call's step with an event describing its result, then
// starts the timers the call may need. The result is kept typed; the
// event's sentence is built only if the trace is rendered (Event.Render).
func (w *World) record(c Call, op string, s *Socket, r Result) {
	// The event is cleared and written field by field where it lies: a
	// composite literal of the 816-byte Event would be built aside and
	// copied in.
	e := &w.event
	*e = Event{}
	e.Source, e.Op, e.pending = c.Source, op, true
	if s != nil {
		e.Socket = s.Name
	}
	rc := &e.call
	rc.text, rc.ret, rc.errno, rc.blocked = c.Text, r.Ret, r.Errno, r.Blocked
	rc.send, rc.id, rc.outcome, rc.undetermined = r.Send.ZC, r.Send.ID, r.Send.Outcome, cmp.Or(r.Send.Undetermined, r.Undetermined)
	rc.zcControl, rc.recvControl, rc.assumes = r.ZcControl, r.RecvControl, w.timerAssumption(s, w.callBegan())
	if r.Record != nil {
		e.call.rec, e.call.hasRec, e.call.ctrunc = *r.Record, true, r.Ctrunc
	}
	e.call.zc, e.call.epoll, e.call.name, e.call.tcpInfo = r.ZcInfo, r.Epoll, r.Name, r.TCPInfo
	if r.Errno != 0 {
		e.call.refusal = w.refusal()
	}
	w.endEvent()
}

// refusal is the last entry of the step that says why a call failed
// (kernel.Op.Refusal), or the zero Entry.
func (w *World) refusal() kernel.Entry {
	log := w.Host.Log()
	for i := len(log) - 1; i >= 0; i-- {
		if e := log[i].Entry; e.Op.Refusal() {
			return e
		}
	}
	return kernel.Entry{}
}

// PeerOptions say how a socket's implicit peer behaves.
type PeerOptions struct {
	Ack tcp.AckPolicy
	// Rcvbuf, if non-zero, is the peer's sk_rcvbuf, locked as SO_RCVBUF
	// locks it, and at least SOCK_MIN_RCVBUF.
	Rcvbuf int
	// AutoRead makes the peer's application read everything on arrival.
	AutoRead bool
	// V4Mapped makes an AF_INET6 socket's peer address v4-mapped
	// (sock.Sock.V4Mapped), and the peer an AF_INET socket.
	V4Mapped bool
	// To, if set, is the listener of this host a TCP socket connects to
	// instead of an implicit peer (Socket.to).
	To *Socket
}

// peerFamily is the family of the implicit peer of a socket of family:
// the same, but AF_INET for a v4-mapped AF_INET6 socket, whose peer is an
// IPv4 socket on 127.0.0.1 (so its own calls are AF_INET ones:
// udp_sendmsg checks the length before the destination).
func peerFamily(family kernel.Family, po PeerOptions) kernel.Family {
	if po.V4Mapped && family == kernel.AF_INET6 {
		return kernel.AF_INET
	}
	return family
}

// NewSocket models socket(2) by task on device dev: a socket named name
// and, for TCP, UDP, RAW and PF_PACKET sockets, its implicit peer
// "name.peer" on the far side of dev. Unsupported combinations fail as
// inet_create does (EAFNOSUPPORT, ESOCKTNOSUPPORT, EPROTONOSUPPORT).
func (w *World) NewSocket(c Call, name string, t *Task, family kernel.Family, typ kernel.SockType, proto kernel.Protocol, dev *Device, po PeerOptions) (*Socket, Result) {
	var s *Socket
	r := w.syscall(c, "socket", nil, func() Result {
		if err := w.protocolLookup(t, family, typ, proto); err != 0 {
			return fail(err)
		}
		s = w.newSocket(name, t, family, typ, proto, dev)
		s.Sk.V4Mapped = po.V4Mapped
		fd := w.allocFD(s)
		if po.To != nil && s.tcp != nil {
			s.to = po.To
			return ok(fd)
		}
		if s.Sk.Class == kernel.ClassOther || s.Sk.Class == kernel.ClassRDS || s.scripted() {
			return ok(fd)
		}
		// The peer is the far side's own socket: a listener's accepted
		// child or a receiver opened without SOCK_NONBLOCK, blocking
		// whatever s is (accept takes no O_NONBLOCK from the listener).
		p := w.newSocket(name+".peer", t, peerFamily(family, po), typ&^kernel.SOCK_NONBLOCK, proto, dev)
		p.implicit, p.autoRead = true, po.AutoRead
		if p.tcp != nil {
			p.tcp.SetAckPolicy(po.Ack)
		}
		if po.Rcvbuf > 0 {
			// sock_setsockopt never lets sk_rcvbuf fall below
			// SOCK_MIN_RCVBUF.
			p.Sk.Rcvbuf = max(po.Rcvbuf, sock.MinRcvbuf)
			p.Sk.RcvbufLocked = true
		}
		s.Peer, p.Peer = p, s
		return ok(fd)
	})
	return s, r
}

// protocolLookup models the checks of __sock_create and the family's
// create function (inet_create, inet6_create, unix_create, packet_create,
// netlink_create, vsock_create, xsk_create) for socket(family, typ, proto)
// by task t. Probed on Linux 6.18:
//
//   - AF_INET/AF_INET6: a protocol at or above IPPROTO_MAX is EINVAL; then
//     the inetsw lookup: SOCK_STREAM takes TCP and, with the profile's
//     MPTCP, IPPROTO_MPTCP (ENOPROTOOPT when net.mptcp.enabled is 0,
//     mptcp_init_sock; sim/mptcp.go); SOCK_DGRAM takes UDP, UDP-Lite and the ping
//     protocol of the family (IPPROTO_ICMP, IPPROTO_ICMPV6); SOCK_RAW any
//     protocol but 0; any other protocol EPROTONOSUPPORT, any other type
//     ESOCKTNOSUPPORT. A ping socket is EACCES unless the task's group is in
//     net.ipv4.ping_group_range (ping_init_sock; "1 0", no group, by
//     default).
//   - AF_UNIX: protocol 0 or PF_UNIX; SOCK_RAW is a SOCK_DGRAM socket.
//   - AF_PACKET: SOCK_RAW, SOCK_DGRAM and the old SOCK_PACKET.
//   - AF_NETLINK: SOCK_RAW or SOCK_DGRAM; the model knows NETLINK_ROUTE.
//   - AF_VSOCK: SOCK_STREAM and SOCK_SEQPACKET; SOCK_DGRAM needs a
//     datagram transport the host does not have (ENODEV).
//   - AF_XDP: SOCK_RAW with protocol 0.
//   - AF_RDS: SOCK_SEQPACKET.
//
// Any other family, AF_DECnet and AF_IPX among them (removed from Linux),
// is EAFNOSUPPORT. The model has no CAP_NET_RAW: RAW, packet and XDP
// sockets are made as root makes them.
func (w *World) protocolLookup(t *Task, family kernel.Family, typ kernel.SockType, proto kernel.Protocol) kernel.Errno {
	base := typ.Base()
	switch family {
	case kernel.AF_INET, kernel.AF_INET6:
		return w.inetLookup(t, family, base, proto)
	case kernel.AF_PACKET:
		if base != kernel.SOCK_RAW && base != kernel.SOCK_DGRAM && base != kernel.SOCK_PACKET {
			return kernel.ESOCKTNOSUPPORT
		}
	case kernel.AF_UNIX:
		if proto != 0 && proto != kernel.Protocol(kernel.AF_UNIX) {
			return kernel.EPROTONOSUPPORT
		}
		if base != kernel.SOCK_STREAM && base != kernel.SOCK_DGRAM && base != kernel.SOCK_SEQPACKET && base != kernel.SOCK_RAW {
			return kernel.ESOCKTNOSUPPORT
		}
	case kernel.AF_NETLINK:
		if base != kernel.SOCK_RAW && base != kernel.SOCK_DGRAM {
			return kernel.ESOCKTNOSUPPORT
		}
		if proto != 0 {
			return kernel.EPROTONOSUPPORT
		}
	case kernel.AF_VSOCK:
		switch base {
		case kernel.SOCK_STREAM, kernel.SOCK_SEQPACKET:
		case kernel.SOCK_DGRAM:
			return kernel.ENODEV
		default:
			return kernel.ESOCKTNOSUPPORT
		}
	case kernel.AF_XDP:
		if base != kernel.SOCK_RAW {
			return kernel.ESOCKTNOSUPPORT
		}
		if proto != 0 {
			return kernel.EPROTONOSUPPORT
		}
	case kernel.AF_RDS:
		if base != kernel.SOCK_SEQPACKET {
			return kernel.ESOCKTNOSUPPORT
		}
	default:
		return kernel.EAFNOSUPPORT
	}
	return 0
}

// inetLookup is inet_create's and inet6_create's part of protocolLookup.
func (w *World) inetLookup(t *Task, family kernel.Family, base kernel.SockType, proto kernel.Protocol) kernel.Errno {
	max := kernel.IPProtoMax
	if !w.Host.Profile.MPTCP {
		max = 256
	}
	if proto >= max {
		return kernel.EINVAL
	}
	ping := kernel.IPPROTO_ICMP
	if family == kernel.AF_INET6 {
		ping = kernel.IPPROTO_ICMPV6
	}
	switch base {
	case kernel.SOCK_STREAM:
		if proto != kernel.IPPROTO_IP && proto != kernel.IPPROTO_TCP && (proto != kernel.IPPROTO_MPTCP || !w.Host.Profile.MPTCP) {
			return kernel.EPROTONOSUPPORT
		}
		if proto == kernel.IPPROTO_MPTCP && w.Net.MPTCPEnabled == 0 {
			return kernel.ENOPROTOOPT // mptcp_init_sock: !mptcp_is_enabled
		}
	case kernel.SOCK_DGRAM:
		switch proto {
		case kernel.IPPROTO_IP, kernel.IPPROTO_UDP, kernel.IPPROTO_UDPLITE:
		case ping:
			if lo, hi := w.Net.PingGroupRange[0], w.Net.PingGroupRange[1]; t.User.UID < lo || t.User.UID > hi {
				return kernel.EACCES
			}
		default:
			return kernel.EPROTONOSUPPORT
		}
	case kernel.SOCK_RAW:
		if proto == kernel.IPPROTO_IP {
			return kernel.EPROTONOSUPPORT
		}
	default:
		return kernel.ESOCKTNOSUPPORT
	}
	return 0
}

// newSocket builds a socket and its protocol state. Protocol 0 of an inet
// socket is its type's default (inet_create); a packet socket keeps 0:
// no protocol, not hooked (packet_create).
func (w *World) newSocket(name string, t *Task, family kernel.Family, typ kernel.SockType, proto kernel.Protocol, dev *Device) *Socket {
	if proto == kernel.IPPROTO_IP && (family == kernel.AF_INET || family == kernel.AF_INET6) {
		switch typ.Base() {
		case kernel.SOCK_STREAM:
			proto = kernel.IPPROTO_TCP
		case kernel.SOCK_DGRAM:
			proto = kernel.IPPROTO_UDP
		}
	}
	sk := sock.New(w.Host, w.Net, t.Task, family, typ, proto)
	s := &Socket{Name: name, Sk: sk, Task: t, Dev: dev}
	sk.OnNotify = func(n ubuf.Notification, merged bool) {
		w.narration = append(w.narration, notifiedLine(s.Name, n, merged))
	}
	sk.Wake = func(key kernel.PollEvents) { w.epollWake(s, key) }
	switch sk.Class {
	case kernel.ClassTCP:
		s.tcp = tcp.New(sk, dev.route(), w)
	case kernel.ClassUDP, kernel.ClassRAW:
		s.dgrm = &dgram{udp: udp.New(sk, dev.route(), w)}
	case kernel.ClassPacket:
		s.dgrm = &dgram{pkt: packet.New(sk, dev.route(), w)}
		s.dgrm.pkt.CPU = func() int { return w.cpu }
	}
	if s.IsMPTCP() {
		w.mptcpInit(s)
	}
	w.sockets = append(w.sockets, s)
	if sk.Class == kernel.ClassRAW {
		w.raws = append(w.raws, s)
	}
	w.byName[name], w.bySk[sk] = s, s
	w.say(fmt.Sprintf("%s is %v", name, sk.Ident()))
	w.Monitor.Tracked(sk, t.Task)
	return s
}

// allocFD gives s the lowest free file descriptor above stderr, as
// get_unused_fd_flags does, and returns it.
func (w *World) allocFD(s *Socket) int64 {
	s.FD = w.lowestFD(s)
	return int64(s.FD)
}

// lowestFD gives what the lowest free descriptor.
func (w *World) lowestFD(what any) int {
	fd := w.lowFD
	for fd < len(w.fds) && w.fds[fd] != nil {
		fd++
	}
	if fd >= len(w.fds) {
		w.fds = append(w.fds, make([]any, fd+1-len(w.fds))...)
	}
	w.fds[fd] = what
	w.lowFD = fd + 1
	return fd
}

// releaseFD frees s's descriptor.
func (w *World) releaseFD(s *Socket) {
	w.freeFD(s.FD)
	s.FD = 0
}

// freeFD frees descriptor fd, if it is one (not 0).
func (w *World) freeFD(fd int) {
	if fd > 0 {
		w.lowFD = min(w.lowFD, fd)
		w.fds[fd] = nil
	}
}

// Connect models connect(2) to the implicit peer: for TCP, a completed
// handshake on both ends; for a datagram socket, a default destination.
// A non-blocking TCP socket's connect returns EINPROGRESS (measured on
// Linux 6.18) although, over loopback, the handshake completed before the
// call returned: a send may follow at once, and a second connect returns
// 0 (tcp.Conn.FinishConnect). The implicit peer of a listener connects
// to it: the child is made at the handshake and waits for accept
// (connectClient).
func (w *World) Connect(c Call, s *Socket) Result {
	return w.syscall(c, "connect", s, func() Result {
		switch {
		case s.tcp != nil && s.tcp.ListenStopped() && w.Host.Profile.ListenStopRefusesConnect:
			return fail(kernel.EINVAL) // a listener a shutdown stopped (tcp.Conn.ListenStopped)
		case s.scripted():
			return w.connectScripted(s)
		case s.to != nil:
			return w.connectTo(c, s)
		case s.client && s.Sk.State == sock.CLOSE && !s.tcp.Connected():
			return w.connectClient(s)
		case s.tcp != nil && s.Peer != nil:
			switch {
			case s.tcp.FinishConnect():
				return connectError(s)
			case s.tcp.Disconnected():
				return reconnect(s)
			}
			err := w.handshake(s)
			if err == 0 {
				w.handshakeRaw(s, s.Peer)
			}
			if err != 0 || s.Sk.Type&kernel.SOCK_NONBLOCK == 0 {
				return fail(err)
			}
			s.tcp.InProgress()
			return fail(kernel.EINPROGRESS)
		case s.dgrm != nil && s.dgrm.udp != nil:
			return fail(s.dgrm.udp.Connect())
		}
		return fail(kernel.EOPNOTSUPP)
	})
}

// Listen models listen(2) on a TCP socket with the program's backlog:
// __sys_listen passes on at most net.core.somaxconn, comparing unsigned,
// so a negative backlog becomes somaxconn too (measured on Linux 6.18:
// -1 and 100000 are 4096, 0 stays 0); then inet_listen
// (tcp.Conn.Listen). The listener's accept queue is full once it holds
// more than the backlog (acceptqFull).
func (w *World) Listen(c Call, s *Socket, backlog int32) Result {
	return w.syscall(c, "listen", s, func() Result {
		if s.tcp == nil {
			return fail(kernel.EOPNOTSUPP)
		}
		n := int(backlog)
		if somaxconn := w.Net.Somaxconn; uint32(backlog) > uint32(somaxconn) {
			n = somaxconn
		}
		if err := s.tcp.Listen(n); err != 0 {
			return fail(err)
		}
		if s.Peer != nil {
			s.Peer.client = true
		}
		return ok(0)
	})
}

// Accept models accept(2) on a listening socket: the oldest connection
// of the accept queue (the implicit peer's, made by `connect L.peer`, or
// else made now) is returned as the child socket named name, its peer
// renamed "name.peer". The child has the listener's SO_ZEROCOPY and
// timestamping flags as they were at the handshake (handshakeArrives).
func (w *World) Accept(c Call, s *Socket, name string) (*Socket, Result) {
	var child *Socket
	r := w.syscall(c, "accept", s, func() Result {
		if s.tcp == nil || s.Sk.State != sock.LISTEN {
			return fail(kernel.EINVAL)
		}
		if s.scripted() {
			var r Result
			child, r = w.acceptScripted(s, name)
			return r
		}
		child = w.acceptImplicit(s, name)
		return ok(w.allocFD(child))
	})
	return child, r
}

// Bind models bind(2): the model has no addresses, so it succeeds.
func (w *World) Bind(c Call, s *Socket) Result {
	return w.syscall(c, "bind", s, func() Result { return ok(0) })
}

// Shutdown models shutdown(2): rd and wr say which halves (SHUT_RD,
// SHUT_WR, both for SHUT_RDWR). AF_INET and AF_INET6 sockets run
// inet_shutdown: a listener stops listening (tcp_disconnect) on SHUT_RD
// and ignores SHUT_WR; a connect whose SYN is unanswered is undone
// (tcp.Conn.DisconnectSynSent); any other socket gets the sk_shutdown bits, then
// tcp_shutdown (a FIN), and the call returns ENOTCONN if the socket is
// TCP_CLOSE (not connected, or reset) — the bits are set all the same,
// so later sends fail with EPIPE and reads return 0. AF_UNIX sockets
// (unix_shutdown) always succeed; other families have no shutdown
// (sock_no_shutdown: EOPNOTSUPP).
func (w *World) Shutdown(c Call, s *Socket, rd, wr bool) Result {
	return w.syscall(c, "shutdown", s, func() Result {
		var how sock.ShutdownBits
		if rd {
			how |= sock.RcvShutdown
		}
		if wr {
			how |= sock.SendShutdown
		}
		switch s.Sk.Family {
		case kernel.AF_UNIX, kernel.AF_INET, kernel.AF_INET6:
		default:
			return fail(kernel.EOPNOTSUPP)
		}
		// inet_shutdown and unix_shutdown end by waking whoever sleeps in
		// poll or epoll on the socket (sk_state_change), whatever the
		// call returns.
		defer w.epollWake(s, 0)
		if s.Sk.Family == kernel.AF_UNIX {
			s.Sk.Shutdown |= how
			return ok(0)
		}
		if s.Sk.State == sock.LISTEN {
			if rd {
				w.listenStop(s)
				s.tcp.StopListening()
			}
			return ok(0)
		}
		if s.tcp != nil && s.tcp.SynWaiting() {
			s.tcp.DisconnectSynSent()
			return ok(0)
		}
		if s.tcp != nil {
			s.tcp.ShutdownConnecting()
		}
		s.Sk.Shutdown |= how
		if s.tcp != nil && wr {
			s.tcp.Shutdown()
		}
		if s.Sk.State == sock.CLOSE {
			return fail(kernel.ENOTCONN)
		}
		return ok(0)
	})
}

// Close models close(2). A TCP socket with unread data resets its peer.
// Closing an implicit peer is its program closing it: a UDP peer's port
// then has no socket, and what is sent to it is answered with an ICMP
// port unreachable; a TCP peer sends its FIN.
func (w *World) Close(c Call, s *Socket) Result {
	return w.syscall(c, "close", s, func() Result {
		if s.Sk.Dead() {
			return fail(kernel.EBADF)
		}
		s.closed = true
		if s.tcp != nil && s.tcp.RxMap() != nil {
			// close(2) drops the descriptor's reference to the file, but
			// the receive mapping's vma holds another (vm_file), so
			// sock_close, and tcp_close with it, runs only when the
			// mapping goes, at exit: the connection stays as it is and
			// no FIN is sent (measured on Linux 6.18: the peer's read
			// finds nothing, its send goes through), and the socket stays
			// in its epoll sets (eventpoll_release runs in __fput).
			w.releaseFD(s)
			w.say(fmt.Sprintf("%s: close(2) frees fd; the receive mapping still holds the file, so the socket stays open until exit", s.Name))
			return ok(0)
		}
		w.closeSocket(s)
		return ok(0)
	})
}

func (w *World) closeSocket(s *Socket) {
	w.releaseFD(s)
	w.epollForget(s)
	switch {
	case s.tcp != nil:
		s.tcp.Munmap() // exit unmaps before the last fput closes the socket
		if s.Sk.State == sock.LISTEN {
			w.listenStop(s)
		}
		if s.tcp.Close() {
			w.resetPeer(s)
		}
	case s.dgrm != nil:
		s.dgrm.purge(w)
		if s.dgrm.pkt != nil {
			s.dgrm.pkt.Close()
		} else if s.dgrm.udp != nil {
			s.dgrm.udp.Close()
		} else {
			s.Sk.Close()
		}
	default:
		s.Sk.Close()
	}
}

// Setrlimit models setrlimit(RLIMIT_MEMLOCK) of the soft limit soft for a
// task, its hard limit as it was (getrlimit, then setrlimit).
func (w *World) Setrlimit(c Call, t *Task, soft uint64) Result {
	return w.SetrlimitPair(c, t, soft, t.MemlockMax)
}

// SetrlimitPair models setrlimit(RLIMIT_MEMLOCK) of both limits for a
// task, as do_prlimit checks them: a soft limit above the hard one is
// EINVAL, raising the hard limit EPERM (no task of the model has
// CAP_SYS_RESOURCE); RLIM_INFINITY is above every number. Probed on Linux
// 6.18 as an unprivileged user whose limits were 8 MiB both.
func (w *World) SetrlimitPair(c Call, t *Task, soft, hard uint64) Result {
	return w.syscall(c, "setrlimit", nil, func() Result {
		switch {
		case soft > hard:
			return fail(kernel.EINVAL)
		case hard > t.MemlockMax:
			return fail(kernel.EPERM)
		}
		t.Memlock, t.MemlockMax = soft, hard
		return ok(0)
	})
}

// SetCapability gives or takes a capability of a task (capset):
// CAP_IPC_LOCK (exempt from RLIMIT_MEMLOCK) or CAP_NET_ADMIN (may force
// buffer sizes).
func (w *World) SetCapability(c Call, t *Task, capability string, on bool) Result {
	return w.syscall(c, "capset", nil, func() Result {
		switch capability {
		case "CAP_IPC_LOCK":
			t.CapIPCLock = on
		case "CAP_NET_ADMIN":
			t.CapNetAdmin = on
		default:
			return fail(kernel.EINVAL)
		}
		return ok(0)
	})
}

// hugePageOrder is the order of a 2 MiB huge page on x86-64.
const hugePageOrder = 9

// Send models send(2), or sendmsg(2) without msg_name, of iovecs with the
// given lengths (their total cut to MAX_RW_COUNT, as import_iovec cuts
// it), from a fresh page-aligned user buffer in which the iovecs lie back
// to back (an assumption: the program's layout decides how many frags a
// zerocopy send takes), whose pages exist only once the send path
// reaches them, so a call costs what it moves: a datagram socket must be
// connected (EDESTADDRREQ). A blocking send that runs out of send buffer
// waits while the network runs, as the kernel thread sleeps in
// sk_stream_wait_memory or sock_alloc_send_pskb; if the network goes idle
// first the call could never return, and Result.Blocked says so.
func (w *World) Send(c Call, s *Socket, lens []int, flags kernel.MsgFlags) Result {
	return w.send(c, s, lens, flags, false, false)
}

// SendTo models sendto(2), or sendmsg(2) with msg_name, addressed to the
// socket's peer; otherwise as Send.
func (w *World) SendTo(c Call, s *Socket, lens []int, flags kernel.MsgFlags) Result {
	return w.send(c, s, lens, flags, true, false)
}

// iovecSlab holds a Host's iovec arrays of send calls.
var iovecSlab = kernel.SlabSlot[mm.Iovec]()

// send is Send and SendTo; apart starts each iovec on a page of its own
// (Control.IovApart).
func (w *World) send(c Call, s *Socket, lens []int, flags kernel.MsgFlags, to, apart bool) Result {
	if s.closed {
		return w.FailCall(c, "send", kernel.EBADF)
	}
	lens = importIovec(lens)
	order := 0
	if s.Task != nil && s.Task.HugePages {
		order = hugePageOrder
	}
	span := func(n int) int { return n }
	if apart {
		psize := kernel.PageSize << order
		span = func(n int) int { return max((n+psize-1)/psize, 1) * psize }
	}
	size := 0
	for _, n := range lens {
		size += span(n)
	}
	buf := mm.NewHugeBuffer(w.Host, max(size, 1), order)
	buf.Head = s.SendHead
	// The model forgets the buffer once the call returns: pages the stack
	// still pins live on until their last put_page. A send asleep keeps it
	// until it returns.
	asleep := false
	defer func() {
		if !asleep {
			buf.Unmap()
		}
	}()
	iov := iovecSlab.Of(w.Host).Carve(len(lens))
	off := 0
	for _, n := range lens {
		iov = append(iov, mm.Iovec{Buf: buf, Off: off, Len: n})
		off += span(n)
	}
	switch {
	case s.tcp != nil:
		var dest *tcp.Dest
		if to {
			dest = w.fastOpenDest(s)
		}
		res := w.sendTCP(c, s, iov, flags, buf, dest)
		asleep = res.Asleep != nil
		return res
	case s.dgrm != nil && s.dgrm.udp != nil:
		u := s.dgrm.udp
		send := u.Sendmsg
		if to {
			send = u.Sendto
		}
		return w.sendDgram(c, s, buf, &u.Wait, func() sock.SendResult { return send(iov, flags) })
	case s.dgrm != nil && s.dgrm.pkt != nil:
		p := s.dgrm.pkt
		return w.sendDgram(c, s, buf, &p.Wait, func() sock.SendResult { return p.Sendmsg(iov, flags) })
	}
	return w.syscall(c, "send", s, func() Result {
		if s.Sk.Family == kernel.AF_UNIX {
			return w.unixSend(s, iovecTotal(lens), flags)
		}
		return fail(kernel.EOPNOTSUPP)
	})
}

// importIovec models the length rules of import_ubuf and __import_iovec:
// the lengths are taken in order, each cut so that the running total stays
// within MAX_RW_COUNT (the rest of the call is silently not sent). lens is
// returned as it is when nothing is cut.
func importIovec(lens []int) []int {
	total := 0
	for i, n := range lens {
		if n > kernel.MaxRWCount-total {
			cut := slices.Clone(lens)
			for j := i; j < len(cut); j++ {
				cut[j] = min(cut[j], kernel.MaxRWCount-total)
				total += cut[j]
			}
			return cut
		}
		total += n
	}
	return lens
}

// Sendmmsg models sendmmsg(2) as __sys_sendmmsg does it: at most
// UIO_MAXIOV messages are taken (vlen is capped, not refused), then one
// sendmsg per message (each a step of its own, its text marked "(message
// i)") until one fails or one is sent only in part (msg_data_left: a
// stream socket's send buffer filled); a message sent in part counts as
// sent. It returns how many were sent, or the first error if none was
// (a later error is lost); Send and Blocked are those of the last
// message tried, Batch each message's Send. Measured on Linux 6.18 with MSG_DONTWAIT over loopback:
// a 5000000-byte message then two of 100 bytes return 1
// (probe/testdata/sendmmsg.zcs).
func (w *World) Sendmmsg(c Call, s *Socket, msgs [][]int, flags kernel.MsgFlags) Result {
	msgs = msgs[:min(len(msgs), kernel.UioMaxiov)]
	sent := 0
	var last Result
	var batch []sock.SendResult
	head := abbreviate(c.Text, maxCallText)
	for i, m := range msgs {
		last = w.Send(Call{Source: c.Source, Text: fmt.Sprintf("%s (message %d)", head, i)}, s, m, flags)
		batch = append(batch, last.Send)
		if last.Errno != 0 {
			break
		}
		sent++
		if total := iovecTotal(importIovec(m)); last.Ret < int64(total) {
			break
		}
	}
	res := ok(int64(sent))
	if sent == 0 && last.Errno != 0 {
		res = fail(last.Errno)
	}
	res.Send, res.Blocked, res.Batch = last.Send, last.Blocked, batch
	return res
}

// iovecTotal is the length of an iovec array.
func iovecTotal(lens []int) int {
	total := 0
	for _, n := range lens {
		total += n
	}
	return total
}

// maxCallText bounds the call text each message of a sendmmsg repeats.
const maxCallText = 120

// abbreviate cuts text to at most n bytes at a space, marking the cut.
func abbreviate(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	return text[:cut] + " …"
}

func sendResult(r sock.SendResult) Result {
	res := fail(r.Err)
	if r.Err == 0 {
		res = ok(int64(r.N))
	}
	res.Send = r
	return res
}

// sendTCP runs a TCP send (tcp_sendmsg: lock_sock, tcp_sendmsg_locked,
// release_sock), letting the network run while it blocks. A call that
// runs out of send buffer first releases the socket (sk_wait_event in
// sk_stream_wait_memory): if the ACKs on its backlog free memory it goes
// on at once, within its step; otherwise it sleeps while the network
// runs.
func (w *World) sendTCP(c Call, s *Socket, iov []mm.Iovec, flags kernel.MsgFlags, buf *mm.Buffer, dest *tcp.Dest) Result {
	w.beginOn(s)
	w.Monitor.Before(s.Sk)
	s.lockSock()
	call := s.tcp.SendmsgTo(iov, flags, kernel.SendmsgCall(w.Host.Step), dest)
	for !call.Done() && w.releaseSock(s) {
		s.lockSock()
		call.ResumeWoken()
	}
	blocked := false
	if !call.Done() {
		w.end(Event{Source: c.Source, Op: "send", Socket: s.Name, Text: c.Text + " blocks in sk_stream_wait_memory"})
		if c.Background {
			a := &Asleep{w: w, c: c, s: s, call: call, buf: buf}
			w.asleep = append(w.asleep, a)
			return Result{Asleep: a}
		}
		blocked = !w.sleepTCP(c, s, call)
		if blocked {
			w.beginOn(s)
			call.Interrupt(kernel.EAGAIN)
		}
	}
	return w.sentTCP(c, s, call, buf, blocked)
}

// sentTCP ends a TCP send call: its socket released, its result checked
// and recorded in the step begun.
func (w *World) sentTCP(c Call, s *Socket, call *tcp.SendCall, buf *mm.Buffer, blocked bool) Result {
	w.releaseSock(s)
	r := call.Result()
	w.Monitor.Sent(s.Sk, c.Source, r, buf)
	res := sendResult(r)
	res.Blocked = blocked
	w.finishZc(s, &res)
	w.record(c, "send", s, res)
	return res
}

// sleepTCP lets the network run while call sleeps in
// sk_stream_wait_memory, the woken call going on after each event in the
// sender's own context (wakeTCP); the wake-up that finishes the call is
// the step its result ends, begun when sleepTCP returns true. It returns
// false when the network went quiet first (RunNext): the call could
// never wake.
func (w *World) sleepTCP(c Call, s *Socket, call *tcp.SendCall) bool {
	for w.RunNext() {
		if w.wakeTCP(c, s, call, call.Resume) {
			return true
		}
	}
	return false
}

// wakeTCP lets a call asleep in sk_stream_wait_memory go on after a
// network event, in its own context. What it does — the segments it
// queues and sends, the frags it fills — is a step of its own, "goes on",
// unless it does nothing. It reports whether the call is done; the step
// its result ends is then begun.
func (w *World) wakeTCP(c Call, s *Socket, call *tcp.SendCall, resume func()) bool {
	w.beginOn(s)
	s.lockSock()
	resume()
	w.releaseSock(s)
	switch {
	case call.Done():
		return true
	case len(w.Host.Log()) == 0 && len(w.narration) == 0 && w.work == w.workBefore:
		w.Host.Step-- // woke to no space: nothing to record
	default:
		w.end(Event{Source: c.Source, Op: "send", Socket: s.Name, Text: c.Text + " goes on, then blocks again in sk_stream_wait_memory"})
	}
	return false
}

// sendDgram runs a datagram socket's send as one call whose waits for
// send-buffer space (the protocol's Wait hook, wait) let the network run.
func (w *World) sendDgram(c Call, s *Socket, buf *mm.Buffer, wait *func() bool, send func() sock.SendResult) Result {
	return w.syscall(c, "send", s, func() Result {
		w.Monitor.Before(s.Sk)
		d := s.dgrm
		d.waiting, d.stuck = c, false
		*wait = d.waitHook(w, s)
		r := send()
		*wait = nil
		w.Monitor.Sent(s.Sk, c.Source, r, buf)
		res := sendResult(r)
		res.Blocked = d.stuck
		w.finishZc(s, &res)
		return res
	})
}

// waitWmem is a datagram send sleeping in sock_alloc_send_pskb for
// send-buffer space: the call's step so far ends, the network runs (each
// event a step of its own) until transmitted skbs free sk_wmem_alloc below
// half of sk_sndbuf, when sock_wfree's write-space callback wakes the
// sleeper (sock_def_write_space_wfree: sock_writeable, "significant
// progress"), and the call goes on in a new step. It reports false when
// the network went idle first: the call could never wake.
func (w *World) waitWmem(c Call, s *Socket) bool {
	w.end(Event{Source: c.Source, Op: "send", Socket: s.Name, Text: c.Text + " blocks in sock_alloc_send_pskb"})
	for s.Sk.WmemAlloc >= s.Sk.Sndbuf>>1 && w.RunNext() {
	}
	w.beginOn(s)
	return s.Sk.WmemAlloc < s.Sk.Sndbuf>>1
}

// waitPacket is a packet socket's send sleeping, for send-buffer space in
// sock_alloc_send_pskb or in tpacket_snd for its pending frames
// (wait_for_completion on the destructor's complete): the network runs
// until an skb of the socket is freed or a pending frame completes. It
// reports false when the network went idle first.
func (w *World) waitPacket(c Call, s *Socket, p *packet.Sock) bool {
	where := " blocks in sock_alloc_send_pskb" // packet_snd
	if p.Ring() != nil {
		where = " blocks in tpacket_snd"
	}
	w.end(Event{Source: c.Source, Op: "send", Socket: s.Name, Text: c.Text + where})
	wmem, pending := s.Sk.WmemAlloc, p.ReadPending()
	for s.Sk.WmemAlloc >= wmem && p.ReadPending() == pending && w.RunNext() {
	}
	w.beginOn(s)
	return s.Sk.WmemAlloc < wmem || p.ReadPending() != pending
}

// beginOn starts a step of a system call on s: it runs on the CPU of s's
// task.
func (w *World) beginOn(s *Socket) {
	w.begin()
	if s != nil && s.Task != nil {
		w.cpu = s.Task.CPU
	}
}

// Recvmsg models recvmsg(2). With MSG_ERRQUEUE it reads one error-queue
// record (EAGAIN when there is none; it never blocks).
func (w *World) Recvmsg(c Call, s *Socket, n int, flags kernel.MsgFlags) Result {
	return w.RecvmsgControl(c, s, n, flags, ControlRoom)
}

// ControlRoom is a msg_controllen with room for the control message of
// any error-queue record.
const ControlRoom = 512

// RecvmsgControl models recvmsg(2) with msg_controllen controllen. An
// error-queue read (ip_recv_error, ipv6_recv_error, sock_recv_errqueue)
// dequeues the record whatever the buffer; put_cmsg then needs
// CMSG_LEN of the sock_extended_err and its offender address, a struct
// sockaddr_in (48 bytes in all) on AF_INET, a sockaddr_in6 (60) on
// AF_INET6, the sock_extended_err alone (32) elsewhere. With less, the
// read returns with MSG_CTRUNC (Result.Ctrunc); put_cmsg still copies
// what fits, so the program has the sock_extended_err, and a zerocopy
// record's ids, when the buffer holds the cmsghdr and it (32 bytes), and
// loses them below that (probed on Linux 6.18). Socket.Notified counts
// only the ids the program received. A TX timestamp's
// SCM_TIMESTAMPING message, which comes first, is not counted. AF_UNIX
// has no error queue: the read is an ordinary one (unixRecv).
func (w *World) RecvmsgControl(c Call, s *Socket, n int, flags kernel.MsgFlags, controllen int) Result {
	if flags&kernel.MSG_ERRQUEUE == 0 || s.Sk.Family == kernel.AF_UNIX {
		return w.recv(c, s, n, flags, &sock.RecvControl{Left: controllen})
	}
	return w.syscall(c, "recvmsg", s, func() Result {
		rec, err := s.Sk.RecvErrqueue()
		if err != 0 {
			return fail(err)
		}
		w.Monitor.Read(s.Sk, rec)
		if rec.IsZerocopy() && controllen >= cmsghdrLen+eeLen {
			s.notified.Add(rec.Range())
		}
		r := ok(int64(rec.Quoted))
		r.Record = &rec
		r.Ctrunc = controllen < errCmsgLen(s.Sk.Family)
		r.MsgFlags = kernel.MSG_ERRQUEUE
		if r.Ctrunc {
			r.MsgFlags |= kernel.MSG_CTRUNC
		}
		if controllen >= cmsghdrLen {
			level, typ := recverrCmsg(s.Sk.Family)
			r.Cmsg = &Cmsg{Level: level, Type: typ, Len: min(controllen, errCmsgLen(s.Sk.Family)), Data: controllen >= cmsghdrLen+eeLen}
		}
		return r
	})
}

// Sizes of an error-queue read's control message: a struct cmsghdr and
// a struct sock_extended_err.
const (
	cmsghdrLen = 16
	eeLen      = 16
)

// recverrCmsg is the level and type of the control message an
// error-queue read writes its record in: IP_RECVERR at SOL_IP for
// AF_INET (ip_recv_error), IPV6_RECVERR at SOL_IPV6 for AF_INET6
// (ipv6_recv_error; inet_recv_error sends every AF_INET6 socket there,
// a v4-mapped one too, whatever the traffic: probed on Linux 6.18),
// PACKET_TX_TIMESTAMP at SOL_PACKET for packet sockets
// (sock_recv_errqueue from packet_recvmsg).
func recverrCmsg(f kernel.Family) (kernel.Level, int32) {
	switch f {
	case kernel.AF_INET:
		return kernel.IP_RECVERR.Level, kernel.IP_RECVERR.Name
	case kernel.AF_INET6:
		return kernel.IPV6_RECVERR.Level, kernel.IPV6_RECVERR.Name
	}
	return kernel.SOL_PACKET, kernel.PACKET_TX_TIMESTAMP
}

// errCmsgLen is CMSG_LEN of an error-queue read's control message: a
// 16-byte cmsghdr, the 16-byte sock_extended_err, and on IP sockets the
// offender's address (SO_EE_OFFENDER).
func errCmsgLen(f kernel.Family) int {
	switch f {
	case kernel.AF_INET:
		return cmsghdrLen + eeLen + 16
	case kernel.AF_INET6:
		return cmsghdrLen + eeLen + 28
	}
	return cmsghdrLen + eeLen
}

// Recv models recv(2) of up to n bytes. A TCP read sends the window update
// tcp_cleanup_rbuf would. With nothing to read it returns EAGAIN; a
// blocking read first lets the network run until data arrives (for TCP,
// until tcp_data_ready wakes it, see recvStream).
func (w *World) Recv(c Call, s *Socket, n int, flags kernel.MsgFlags) Result {
	return w.recv(c, s, n, flags, nil)
}

// recv is a read of data by recv(2), or by recvmsg(2) with the control
// buffer ctl, into which it writes its control messages (rxControl).
func (w *World) recv(c Call, s *Socket, n int, flags kernel.MsgFlags, ctl *sock.RecvControl) Result {
	if s.tcp != nil && !s.closed && flags&kernel.MSG_OOB != 0 {
		// tcp_recv_urg never blocks.
		return w.syscall(c, "recv", s, func() Result {
			got, err := s.tcp.RecvUrgent(n, flags&kernel.MSG_PEEK != 0)
			if err != 0 {
				return fail(err)
			}
			r := ok(int64(got))
			w.rxControl(s, &r, kernel.RxStampNone, ctl)
			return r
		})
	}
	if err := recvFlagsRefused(s, flags); err != 0 && !s.closed {
		return w.syscall(c, "recv", s, func() Result { return fail(err) })
	}
	blocking := !s.Sk.NoWait(flags)
	if blocking && !s.closed && s.tcp != nil {
		return w.recvStream(c, s, n, flags, ctl)
	}
	if blocking && !s.closed {
		for !w.readable(s) && w.RunNext() {
		}
	}
	return w.syscall(c, "recv", s, func() Result {
		switch {
		case s.tcp != nil:
			r, stamp := w.recvCopy(s, 0, n, flags)
			w.rxControl(s, &r, stamp, ctl)
			return r
		case s.dgrm != nil && udpErr(s):
			// __skb_recv_udp reports sk_err (sock_error) before it
			// looks for a datagram, and clears it.
			return fail(s.Sk.TakeError())
		case s.dgrm != nil:
			stamp := s.dgrm.headStamp()
			got, err := s.dgrm.recv(n, flags)
			if err != 0 {
				return fail(err)
			}
			r := ok(int64(got))
			w.rxControl(s, &r, stamp, ctl)
			return r
		case s.Sk.Family == kernel.AF_UNIX:
			return fail(unixRecv(s.Sk.Type.Base()))
		}
		return fail(kernel.EOPNOTSUPP)
	})
}

// recvCopy is one pass of tcp_recvmsg_locked over the receive queue:
// copy up to n bytes, then tcp_cleanup_rbuf. With MSG_PEEK it copies
// the bytes after the first peeked ones a blocking read already copied,
// and consumes nothing. It returns too whether an skb it read from was
// stamped (tcp.Conn.ReadStamp).
func (w *World) recvCopy(s *Socket, peeked, n int, flags kernel.MsgFlags) (Result, kernel.RxStamp) {
	got, err := 0, kernel.Errno(0)
	var stamp kernel.RxStamp
	if flags&kernel.MSG_PEEK != 0 {
		stamp = s.tcp.ReadStamp(peeked, n)
		got, err = s.tcp.Peek(peeked, n)
	} else {
		stamp = s.tcp.ReadStamp(0, n)
		got, err = s.tcp.Recv(n)
	}
	if err != 0 {
		return fail(err), kernel.RxStampNone
	}
	if got > 0 {
		w.Host.MightFault("tcp_recvmsg_locked", s.Sk.Ident()) // skb_copy_datagram_msg to the user
	}
	if s.Peer != nil {
		s.tcp.CleanupRbuf(got)
	}
	return ok(int64(got)), stamp
}

// recvStream models a blocking tcp_recvmsg: with nothing queued the
// reader sleeps in sk_wait_data, unless tcp_recvmsg_locked returns at
// once (tcp.Conn.ReadSleeps: the FIN, an error, RCV_SHUTDOWN, a closed
// socket), until tcp_data_ready wakes it (SO_RCVLOWAT
// bytes queued, buffer pressure, a starving window, the FIN or an error);
// it copies what is queued and, short of the target of sock_rcvlowat
// (min(SO_RCVLOWAT, n)), sleeps again. If the network goes idle first the
// read returns what it copied, or EAGAIN, as if SO_RCVTIMEO had ended it.
func (w *World) recvStream(c Call, s *Socket, n int, flags kernel.MsgFlags, ctl *sock.RecvControl) Result {
	for s.tcp.Queued() == 0 && s.tcp.ReadSleeps() && w.RunNext() {
	}
	target := s.tcp.RecvTarget(n, flags)
	got, last := 0, false
	var stamps kernel.RxStamp
	for {
		w.beginOn(s)
		s.lockSock()
		queued := s.tcp.Queued() > 0
		r, stamp := w.recvCopy(s, got, n-got, flags)
		stamps = stamps.Merge(stamp)
		w.releaseSock(s)
		// A pass that found only an urgent byte to skip sleeps on
		// (tcp_recvmsg_locked goes to sk_wait_data with nothing copied).
		skipped := queued && r.Errno == kernel.EAGAIN && s.tcp.ReadSleeps() && !last
		if skipped {
			r = ok(0)
		}
		done := !skipped && (last || r.Errno != 0 || r.Ret == 0 || got+int(r.Ret) >= target || !s.tcp.ReadSleeps())
		if r.Errno == 0 {
			r.Ret += int64(got)
		} else if got > 0 {
			r = ok(int64(got))
		}
		if done {
			w.rxControl(s, &r, stamps, ctl)
			w.record(c, "recv", s, r)
			return r
		}
		got = int(r.Ret)
		w.end(Event{Source: c.Source, Op: "recv", Socket: s.Name,
			Text: fmt.Sprintf("%s has %d of %d bytes: sleeps in sk_wait_data", c.Text, got, target)})
		ready := s.tcp.DataReady
		if skipped {
			// The byte it skipped stays queued for a peek: sk_wait_data
			// waits for data that was not there.
			q := s.tcp.Queued()
			ready = func() bool { return s.tcp.Queued() > q || !s.tcp.ReadSleeps() }
		}
		for !ready() && w.RunNext() {
		}
		last = !ready()
	}
}

// recvFlagsRefused is the errno a protocol's recvmsg refuses flags with
// before it looks at its queue, so that a blocking read returns at once,
// or 0: MSG_OOB on a RAW socket (raw_recvmsg, rawv6_recvmsg) or an
// AF_UNIX datagram one (__unix_dgram_recvmsg) is EOPNOTSUPP, and a
// packet socket's packet_recvmsg takes only MSG_PEEK, MSG_DONTWAIT,
// MSG_TRUNC and MSG_ERRQUEUE (EINVAL; and MSG_CMSG_COMPAT, which only a
// 32-bit program passes). UDP's
// udp_recvmsg reads whatever MSG_OOB says; AF_UNIX stream and seqpacket
// sockets, which the model never connects, fail at their state first
// (unixRecv); TCP's is tcp_recv_urg.
func recvFlagsRefused(s *Socket, flags kernel.MsgFlags) kernel.Errno {
	switch {
	case s.Sk.Class == kernel.ClassPacket && flags&^(kernel.MSG_PEEK|kernel.MSG_DONTWAIT|kernel.MSG_TRUNC|kernel.MSG_ERRQUEUE) != 0:
		return kernel.EINVAL
	case flags&kernel.MSG_OOB == 0:
		return 0
	case s.Sk.Class == kernel.ClassRAW, s.Sk.Family == kernel.AF_UNIX && s.Sk.Type.Base() == kernel.SOCK_DGRAM:
		return kernel.EOPNOTSUPP
	}
	return 0
}

// unixRecv is the read of an unconnected AF_UNIX socket of type typ,
// which the model cannot connect: EINVAL for a stream
// (unix_stream_read_generic), ENOTCONN for a seqpacket socket
// (unix_seqpacket_recvmsg), EAGAIN for a datagram one with nothing
// queued. MSG_ERRQUEUE changes nothing: AF_UNIX has no error queue.
func unixRecv(typ kernel.SockType) kernel.Errno {
	switch typ {
	case kernel.SOCK_STREAM:
		return kernel.EINVAL
	case kernel.SOCK_SEQPACKET:
		return kernel.ENOTCONN
	}
	return kernel.EAGAIN
}

// readable reports whether a read on s would not block. An AF_UNIX
// datagram socket never is: nothing the model runs queues to it, and
// unix_dgram_recvmsg sleeps (__skb_wait_for_more_packets) while the
// network goes on, as a UDP socket's read does with nothing to come,
// unless shut down for reading; stream and seqpacket ones fail at once
// (unixRecv).
func (w *World) readable(s *Socket) bool {
	switch {
	case s.tcp != nil:
		return s.tcp.Queued() > 0 || s.tcp.Done() || s.Sk.State == sock.CLOSE_WAIT
	case s.dgrm != nil:
		return len(s.dgrm.rx) > 0 || udpErr(s)
	case s.Sk.Family == kernel.AF_UNIX:
		return s.Sk.Type.Base() != kernel.SOCK_DGRAM || s.Sk.Shutdown&sock.RcvShutdown != 0
	}
	return true
}

// udpErr reports whether s is a UDP socket with sk_err pending, which
// its next read returns (__skb_recv_udp).
func udpErr(s *Socket) bool { return s.Sk.Class == kernel.ClassUDP && s.Sk.Err != 0 }
