package replay

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
)

// op replays one decoded call.
func (r *replayer) op(op strace.Op) {
	h := op.Head()
	r.clock(h)
	r.use(r.table(h.Pid))
	r.learnDecor(op)
	if r.woken(h) {
		return
	}
	if sl := r.resumed(h); sl != nil {
		r.resumeSend(op, sl)
		return
	}
	if noResult(h) {
		r.unresolved(op)
		return
	}
	switch o := op.(type) {
	case *strace.Ignored:
		r.ignored1(o)
	case *strace.Socket:
		r.socket(o)
	case *strace.SocketPair:
		r.socketPair(o)
	case *strace.SockOpt:
		r.sockopt(o)
	case *strace.ZcRecv:
		r.zcRecv(o)
	case *strace.Mmap:
		r.mmap(o)
	case *strace.Munmap:
		r.munmap(o)
	case *strace.Bind:
		r.bind(o)
	case *strace.Connect:
		r.connect(o)
	case *strace.Listen:
		r.listen(o)
	case *strace.Accept:
		r.accept(o)
	case *strace.Send:
		r.send(o)
	case *strace.SendMmsg:
		r.sendmmsg(o)
	case *strace.Recv:
		r.recv(o)
	case *strace.Close:
		r.close(o)
	case *strace.Shutdown:
		r.shutdown(o)
	case *strace.Rlimit:
		r.rlimit(o)
	case *strace.Dup:
		r.dup(o)
	case *strace.Fork:
		r.fork(o)
	case *strace.CloseRange:
		r.closeRange(o)
	case *strace.SetFd:
		r.setFd(o)
	case *strace.Exec:
		r.exec(o)
	case *strace.Poll:
		r.poll(o)
	case *strace.Select:
		r.selectSyscall(o)
	case *strace.EpollCreate:
		r.epollCreate(o)
	case *strace.EpollCtl:
		r.epollCtl(o)
	case *strace.EpollWait:
		r.epollWait(o)
	default:
		r.ignore(h.Syscall, "")
	}
}

// noResult reports whether the log shows no result for the call.
func noResult(h *strace.Header) bool {
	switch h.Result.Kind {
	case strace.ResultUnknown, strace.ResultUnfinished, strace.ResultInterrupted:
		return true
	}
	return false
}

// opFd returns the descriptor a decoded call works on, if it has one.
func opFd(op strace.Op) (int, bool) {
	switch o := op.(type) {
	case *strace.SockOpt:
		return o.Fd, true
	case *strace.ZcRecv:
		return o.Fd, true
	case *strace.Mmap:
		return o.Fd, true
	case *strace.Bind:
		return o.Fd, true
	case *strace.Connect:
		return o.Fd, true
	case *strace.Listen:
		return o.Fd, true
	case *strace.Accept:
		return o.Fd, true
	case *strace.Send:
		return o.Fd, true
	case *strace.SendMmsg:
		return o.Fd, true
	case *strace.Recv:
		return o.Fd, true
	case *strace.Close:
		return o.Fd, true
	case *strace.Shutdown:
		return o.Fd, true
	case *strace.Poll:
		if len(o.Fds) == 1 {
			return o.Fds[0].Fd, true
		}
	}
	return -1, false
}

// unresolved reports a call whose result the log does not show: on a
// socket the replay follows it is undetermined and not run on the model,
// with what the kernel may have done; elsewhere it is ignored as usual.
func (r *replayer) unresolved(op strace.Op) {
	h := op.Head()
	fd, hasFd := opFd(op)
	switch o := op.(type) {
	case *strace.Ignored:
		// A modelled call left unfinished keeps only the arguments
		// printed before "<unfinished ...>"; the first is its fd.
		if fd, hasFd = r.unfinishedFd(o); !hasFd {
			r.ignore(h.Syscall, "no result in the log")
			return
		}
	case *strace.SocketPair, *strace.EpollCreate:
		r.ignore(h.Syscall, "no result in the log")
		return
	case *strace.EpollCtl:
		r.unresolvedEpoll(h, o.Epfd)
		return
	case *strace.EpollWait:
		r.unresolvedEpoll(h, o.Epfd)
		return
	case *strace.Close:
		if e := r.fds[fd]; e == nil || e.s == nil {
			r.ignore(h.Syscall, "no result in the log")
			return
		}
	}
	name := ""
	if hasFd {
		if _, isSend := op.(*strace.Send); isSend && anyFile(h.Syscall) && r.fds[fd] == nil {
			r.ignore(h.Syscall, "not a socket the replay follows")
			return
		}
		e := r.sock(h, fd, false)
		if e == nil {
			return
		}
		name = e.s.Name
	} else {
		fd = -1
	}
	r.add(h, fd, name, h.Syscall, h.Result.String(), notReplayed, unresolvedWhy(h, fd), Undetermined)
}

// unresolvedEpoll reports an epoll call without a result: undetermined
// on an instance the replay follows, else ignored.
func (r *replayer) unresolvedEpoll(h *strace.Header, epfd int) {
	set := r.epollOf(epfd)
	if set == nil {
		r.ignore(h.Syscall, "no result in the log")
		return
	}
	r.add(h, epfd, set.ep.Name, h.Syscall, h.Result.String(), notReplayed, unresolvedWhy(h, epfd), Undetermined)
}

// unfinishedFd returns the descriptor of a modelled call the decoder set
// aside as unfinished, when it is a socket the replay follows.
func (r *replayer) unfinishedFd(o *strace.Ignored) (int, bool) {
	c := r.raw
	if o.Reason != "unfinished" || c == nil || len(c.Args) == 0 {
		return -1, false
	}
	n, ok := c.Args[0].AsInt()
	if e := r.fds[int(n)]; !ok || e == nil || e.s == nil || n != int64(int32(n)) {
		return -1, false
	}
	return int(n), true
}

// notReplayed is the prediction of a call the model did not run.
const notReplayed = "not replayed"

// unresolvedWhy says why a call without a result is not compared, and
// what the kernel may have done that the model does not know.
func unresolvedWhy(h *strace.Header, fd int) string {
	var why string
	switch h.Result.Kind {
	case strace.ResultInterrupted:
		why = fmt.Sprintf("interrupted by a signal (%s): strace shows no result; not replayed", h.Result.Errno)
		switch h.Syscall {
		case "send", "sendto", "sendmsg", "sendmmsg", "write", "writev", "sendfile":
			why += "; a restart code means the call queued nothing (tcp_sendmsg_locked and udp_sendmsg return the bytes already taken instead), unless the socket corks UDP data (MSG_MORE, UDP_CORK): __ip_append_data may have queued part of it"
		case "connect":
			why += fmt.Sprintf("; the handshake goes on in the background (__inet_stream_connect leaves the SYN sent), so later calls on fd %d may diverge", fd)
		case "recv", "recvfrom", "recvmsg", "accept", "accept4":
			why += "; a restart code means the call took nothing (it returns what it took before the signal instead)"
		}
	case strace.ResultUnfinished:
		why = "the log ends before the call returns: strace shows no result; not replayed; the call may have taken effect (a send may have queued part of its data)"
	default:
		why = "the process ended during the call: strace shows no result; not replayed; the call may have taken effect (a send may have queued part of its data)"
	}
	return why
}

// ignored1 lists a call the decoder does not model; getsockname still
// teaches the replay a socket's address.
func (r *replayer) ignored1(o *strace.Ignored) {
	r.ignore(o.Name, o.Reason)
	if o.Name != "getsockname" || o.Result.Kind != strace.ResultValue {
		return
	}
	c := r.raw
	if c == nil || len(c.Args) < 2 {
		return
	}
	fd, ok := c.Args[0].AsInt()
	e := r.fds[int(fd)]
	if !ok || e == nil {
		return
	}
	if a, ok := strace.AddrArg(c.Args[1]); ok && a.Addr.IsValid() {
		r.setLocal(e, a.Addr)
	}
}

// setLocal records a socket's local address and indexes a datagram socket
// by its port, for feed (an MPTCP socket, a stream one, is not).
func (r *replayer) setLocal(e *fdEntry, a netip.AddrPort) {
	e.local = a
	if e.s != nil && !e.s.IsTCP() && !e.s.IsMPTCP() && a.Port() != 0 {
		r.dgrams[a.Port()] = append(r.dgrams[a.Port()], e)
	}
}

// sock returns the model socket behind fd, or nil after listing the call
// as ignored.
func (r *replayer) sock(h *strace.Header, fd int, dataPath bool) *fdEntry {
	e := r.fds[fd]
	switch {
	case e == nil && !anyFile(h.Syscall):
		// Only sockets take this call: the log never showed the socket
		// or accept that created the descriptor.
		r.unknownFds[fd]++
		return nil
	case e == nil:
		r.ignore(h.Syscall, "not a socket the replay follows")
		return nil
	case e.mptcpWhy(h.Syscall, dataPath) != "":
		name := ""
		if e.s != nil {
			name = e.s.Name
		}
		obs, _ := observed(h)
		r.add(h, fd, name, fmt.Sprintf("%s(%d)", h.Syscall, fd), obs, notReplayed, e.mptcpWhy(h.Syscall, dataPath), Undetermined)
		return nil
	case e.s == nil:
		r.ignore(h.Syscall, "socket the model does not follow")
		return nil
	case dataPath && !e.inet():
		r.ignore(h.Syscall, kernel.FamilyNames.Name(e.family)+" data path not modelled")
		return nil
	}
	return e
}

// anyFile reports whether a syscall takes any descriptor, not only a
// socket's: a call of it on a descriptor the replay does not know is on a
// file or pipe, not on a socket the capture missed.
func anyFile(syscall string) bool {
	switch syscall {
	case "write", "writev", "sendfile", "close", "mmap", "read", "poll", "ppoll":
		return true
	}
	return false
}

// name returns a fresh model name for a socket on fd.
func (r *replayer) name(fd int) string {
	r.names[fd]++
	if n := r.names[fd]; n > 1 {
		return fmt.Sprintf("fd%d#%d", fd, n)
	}
	return fmt.Sprintf("fd%d", fd)
}

func (r *replayer) socket(o *strace.Socket) {
	fam, ok1 := symbol(kernel.FamilyNames, o.Domain, "PF_")
	var typ kernel.SockType
	ok2 := len(o.Type) > 0
	for _, t := range o.Type {
		v, ok := symbol(kernel.SockTypeNames, t, "")
		if n, err := strconv.ParseUint(t, 0, 32); !ok && err == nil {
			v, ok = kernel.SockType(n), true // -X raw: type and flags in one number
		}
		typ |= v
		ok2 = ok2 && ok
	}
	proto, ok3 := symbol(kernel.ProtocolNames, o.Protocol, "")
	if fam == kernel.AF_PACKET {
		proto, ok3 = packetProtocol(o.Protocol)
	}
	if !ok1 || !ok2 || !ok3 {
		r.ignore("socket", "family, type or protocol not modelled")
		r.untrack(o.Header)
		return
	}
	r.between(&o.Header)
	obs, fd := observed(&o.Header)
	text := fmt.Sprintf("socket(%s, %s, %s)", o.Domain, strings.Join(o.Type, "|"), o.Protocol)
	name := r.name(fd)
	assumed := r.mptcpEnabled(&o.Header, typ, proto)
	s, res := r.w.NewSocket(r.call(&o.Header, text), name, r.task, fam, typ, proto, r.dev, sim.PeerOptions{})
	pred := res.String()
	if res.Errno == 0 && fd >= 0 {
		// The traced program's other descriptors (files, pipes) are
		// unknown, so a socket that succeeds gets the number it got.
		pred = fmt.Sprint(fd)
	}
	if assumed != "" && obs == pred {
		r.assumeOn(&o.Header, fd, name, text, obs, pred, assumed)
	} else {
		r.compare(&o.Header, fd, name, text, obs, pred, "")
	}
	if fd >= 0 {
		e := &fdEntry{fd: fd, family: fam}
		if res.Errno == 0 {
			e.s = s
		}
		r.put(fd, e, o.CloExec)
	}
}

// untrack forgets the fd a call returned, so later calls on it are listed
// as ignored.
func (r *replayer) untrack(h strace.Header) {
	if n, ok := h.Result.Ret(); ok && n >= 0 {
		r.put(int(n), &fdEntry{fd: int(n)}, false)
	}
}

// socketPair forgets the two descriptors a socketpair returned. Only
// AF_UNIX has pairs: inet and packet sockets answer EOPNOTSUPP
// (sock_no_socketpair), so no pair is a socket the model has.
func (r *replayer) socketPair(o *strace.SocketPair) {
	r.ignore("socketpair", "AF_UNIX pairs are not modelled")
	if o.Result.Kind == strace.ResultValue {
		for _, fd := range o.Fds {
			r.put(fd, &fdEntry{fd: fd}, false)
		}
	}
}

func (r *replayer) sockopt(o *strace.SockOpt) {
	opt, known := sockOpt(o.Level, o.Name)
	if !known || opt == kernel.TCP_INFO && !o.Get { // TCP_INFO is read-only: a setsockopt of it is not modelled
		r.ignore(o.Syscall, o.Name+" not modelled")
		return
	}
	e := r.sock(&o.Header, o.Fd, false)
	if e == nil {
		return
	}
	r.between(&o.Header)
	if why := e.s.MPTCPUndetermined(opt, 0, !o.Get); why != "" {
		r.add(&o.Header, o.Fd, e.s.Name, fmt.Sprintf("%s(%d, %s)", o.Syscall, o.Fd, o.Name), o.Result.String(), notReplayed, why, Undetermined)
		return
	}
	switch opt {
	case kernel.TCP_CONGESTION:
		r.congestion(o, e)
		return
	case kernel.TCP_INFO:
		r.tcpInfo(o, e)
		return
	}
	name := kernel.SockOptNames.Name(opt)
	if o.Get {
		text := fmt.Sprintf("getsockopt(%d, %s)", o.Fd, name)
		res := r.w.Getsockopt(r.call(&o.Header, text), e.s, opt)
		obs := o.Result.String()
		if o.Result.Kind == strace.ResultValue && o.Value.HasInt {
			obs += fmt.Sprintf(" [%d]", o.Value.Int)
		}
		pred := res.String()
		if res.Errno == 0 {
			pred = fmt.Sprintf("0 [%d]", res.Ret)
		}
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, "")
		return
	}
	val, ok := optValue(o.Value)
	if !ok {
		r.ignore(o.Syscall, "value not readable")
		return
	}
	text := fmt.Sprintf("setsockopt(%d, %s, %d)", o.Fd, name, val)
	res := r.w.Setsockopt(r.call(&o.Header, text), e.s, opt, val)
	if res.Undetermined != "" {
		r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), notReplayed, res.Undetermined, Undetermined)
		return
	}
	r.compare(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), "")
}

func (r *replayer) bind(o *strace.Bind) {
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	if o.Addr.Addr.IsValid() {
		r.setLocal(e, o.Addr.Addr)
	}
	r.between(&o.Header)
	text := fmt.Sprintf("bind(%d, %v)", o.Fd, o.Addr.Addr)
	res := r.w.Bind(r.call(&o.Header, text), e.s)
	if o.Result.Kind == strace.ResultErrno && o.Result.Errno == "EADDRINUSE" && res.Errno == 0 {
		r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), addrInUse, Undetermined)
		return
	}
	r.compare(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), "")
}

// addrInUse is why an observed EADDRINUSE is undetermined: the model has
// no ports, so it does not decide inet_csk_get_port's conflicts
// (inet_bind_conflict: a socket on the same port and an overlapping
// address, unless both set SO_REUSEADDR and it does not listen, or both
// SO_REUSEPORT with one owner), and the socket holding the port may be
// outside the log.
const addrInUse = "the model has no ports, so it does not decide whether another socket holds this address (inet_csk_get_port); that socket may be outside the log: another process's, or one in TIME_WAIT. The model bound the socket"

func (r *replayer) connect(o *strace.Connect) {
	r.mptcpConnecting(o)
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	if o.Addr.Addr.IsValid() {
		e.remote = o.Addr.Addr
	}
	r.between(&o.Header)
	text := fmt.Sprintf("connect(%d, %v)", o.Fd, o.Addr.Addr)
	l := r.tracedListener(e.remote)
	if l != nil && e.s.IsTCP() && e.s.Peer != nil && e.s.Sk.State == sock.CLOSE {
		// The far end is the child the traced listener's SYN creates
		// (tcp_create_openreq_child): a copy of the listener
		// (sk_clone_lock), whose receive buffer sizes the window the
		// SYN-ACK offers, with the listener's congestion control if
		// TCP_CONGESTION chose one (tcp_ca_openreq_child).
		e.s.Peer.Sk.CloneFrom(l.s.Sk)
		e.s.Peer.Conn().InheritCongestion(l.s.Conn())
	}
	res := r.w.Connect(r.call(&o.Header, text), e.s)
	r.compare(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), "")
	// A non-blocking connect's EINPROGRESS leaves the handshake going
	// on (over loopback the model's completed within the call, as
	// sim.World.Connect says): its connection is queued for the accept
	// as a blocking one's is.
	if res.Errno != 0 && res.Errno != kernel.EINPROGRESS || !e.s.IsTCP() {
		return
	}
	if l != nil {
		e.out = &stream{}
		r.pending = append(r.pending, e)
	} else if !r.mptcpTCPClient(e) && e.s.Peer != nil {
		e.s.Peer.SetAutoRead(true) // an untraced server reads what it gets
	}
}

// tracedListener returns the traced listening socket that may own addr:
// the first bound to its port, or else to a port the log never showed;
// nil when none. It drops the listeners that no longer listen or whose fd
// was closed.
func (r *replayer) tracedListener(addr netip.AddrPort) *fdEntry {
	r.listeners = slices.DeleteFunc(r.listeners, func(l *fdEntry) bool {
		return !l.open() || l.s.Sk.State != sock.LISTEN
	})
	var unknown *fdEntry
	for _, l := range r.listeners {
		switch {
		case l.local.Port() == addr.Port():
			return l
		case l.local.Port() == 0 && unknown == nil:
			unknown = l
		}
	}
	return unknown
}

func (r *replayer) listen(o *strace.Listen) {
	r.mptcpListening(o)
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	r.between(&o.Header)
	text := fmt.Sprintf("listen(%d, %d)", o.Fd, o.Backlog)
	res := r.w.Listen(r.call(&o.Header, text), e.s, int32(o.Backlog)) // the syscall takes an int
	r.compare(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), "")
	if res.Errno == 0 && e.s.IsTCP() && !slices.Contains(r.listeners, e) {
		r.listeners = append(r.listeners, e)
	}
}

// accept returns the connection of a traced client when one connected to
// this listener, else a connection from the implicit peer.
func (r *replayer) accept(o *strace.Accept) {
	if r.mptcpAccept(o) {
		return
	}
	l := r.sock(&o.Header, o.Fd, true)
	if l == nil {
		return
	}
	r.between(&o.Header)
	obs, fd := observed(&o.Header)
	text := fmt.Sprintf("%s(%d)", o.Syscall, o.Fd)
	c := r.call(&o.Header, text)
	var child *sim.Socket
	var res sim.Result
	client := r.takePending(l, o.Peer.Addr)
	mptcpClient := client != nil && client.s.IsMPTCP()
	if mptcpClient {
		// The far end is an MPTCP socket in fallback, which the model
		// does not run: the child gets an implicit peer that reads
		// what it gets.
		client = nil
	}
	if client != nil {
		child, res = r.w.AcceptFrom(c, l.s, client.s)
		text += fmt.Sprintf(" from fd %d", client.fd)
	} else {
		child, res = r.w.Accept(c, l.s, r.name(max(fd, 0)))
	}
	pred := res.String()
	if res.Errno == 0 && fd >= 0 {
		pred = fmt.Sprint(fd)
	}
	name := ""
	if child != nil {
		name = child.Name
	}
	if why := unknownPort(l, client); why != "" && obs == pred {
		r.add(&o.Header, o.Fd, name, text, obs, pred, why, Undetermined)
	} else {
		r.compare(&o.Header, o.Fd, name, text, obs, pred, "")
	}
	if fd < 0 {
		return
	}
	e := &fdEntry{fd: fd, family: l.family, local: l.local, remote: o.Peer.Addr, mptcpPeer: mptcpClient}
	if res.Errno == 0 {
		e.s = child
		if mptcpClient && child.Peer != nil {
			child.Peer.SetAutoRead(true)
		}
		if client != nil {
			e.in = client.out
		}
	}
	r.put(fd, e, o.CloExec)
}

// unknownPort says why pairing listener l with client rests on a port the
// log does not show: the listener's (no bind, or a bind to port 0, and no
// getsockname or -yy decoration: inet_csk_get_port chose it) or the one
// the client connected to; "" when both are known, or there is no client.
func unknownPort(l, client *fdEntry) string {
	switch {
	case client == nil:
		return ""
	case l.local.Port() == 0:
		return fmt.Sprintf("the log does not show the port fd %d listens on (the kernel chose it: no bind to a port, no getsockname, no -yy decoration), so whether fd %d's connect to %v reached it is unknown; the model assumed it did",
			l.fd, client.fd, client.remote)
	case client.remote.Port() == 0:
		return fmt.Sprintf("the log does not show the port fd %d connected to, so whether it reached fd %d's port %d is unknown; the model assumed it did",
			client.fd, l.fd, l.local.Port())
	}
	return ""
}

// takePending takes the traced client a listener accepts (pendingFor),
// nil when there is none.
func (r *replayer) takePending(l *fdEntry, peer netip.AddrPort) *fdEntry {
	pick := r.pendingFor(l, peer)
	if pick < 0 {
		return nil
	}
	c := r.pending[pick]
	r.pending = append(r.pending[:pick], r.pending[pick+1:]...)
	return c
}

// pendingFor picks, by its index in r.pending, the traced client a
// listener accepts: the oldest one connected to its port, or to a port
// the log never tied to a listener. When the log shows the accepted
// peer's address and a pending client's local port is known
// (getsockname, a -yy decoration), the client with that port is taken,
// whatever the order of the connects. It is -1 when none is.
func (r *replayer) pendingFor(l *fdEntry, peer netip.AddrPort) int {
	pick := -1
	for i, c := range r.pending {
		if c.remote.Port() != l.local.Port() && l.local.Port() != 0 && c.remote.Port() != 0 {
			continue
		}
		if peer.Port() != 0 && c.local.Port() == peer.Port() {
			return i
		}
		if pick < 0 && (peer.Port() == 0 || c.local.Port() == 0) {
			pick = i
		}
	}
	return pick
}

// learnDecor reads the local address of a socket from strace's -yy
// decoration of the call's fd argument, "TCP:[127.0.0.1:41234->127.0.0.1:8000]"
// or "UDPv6:[[::1]:5000]", when the replay does not know it yet.
func (r *replayer) learnDecor(op strace.Op) {
	fd, ok := opFd(op)
	if !ok || r.raw == nil || len(r.raw.Args) == 0 {
		return
	}
	e := r.fds[fd]
	if e == nil || e.local.Port() != 0 {
		return
	}
	if a, ok := decorLocal(r.raw.Args[0].Decor); ok {
		r.setLocal(e, a)
	}
}

// decorLocal parses the local address of a -yy socket decoration.
func decorLocal(d string) (netip.AddrPort, bool) {
	_, rest, ok := strings.Cut(d, ":[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return netip.AddrPort{}, false
	}
	rest = strings.TrimSuffix(rest, "]")
	local, _, _ := strings.Cut(rest, "->")
	a, err := netip.ParseAddrPort(local)
	return a, err == nil && a.Port() != 0
}

func (r *replayer) send(o *strace.Send) {
	dataPath := !anyFile(o.Syscall) || r.fds[o.Fd] != nil
	e := r.sock(&o.Header, o.Fd, dataPath)
	if e == nil {
		return
	}
	if !e.inet() {
		r.ignore(o.Syscall, "data path not modelled")
		return
	}
	r.feed(e, o.To.Addr)
	flags := msgFlags(o.Flags)
	text := r.sendTexts.text(o.Syscall, o.Fd, o.Iov, flags, sendText)
	send := r.w.Send
	if o.To.Addr.IsValid() {
		send = r.w.SendTo
	}
	if z := o.ZcInfo; z != nil {
		if !z.SizeKnown {
			r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), notReplayed,
				"strace did not print the size of its SCM_ZC_NOTIFICATION; not replayed", Undetermined)
			return
		}
	}
	msgs, unknown := controlOf(o.Control)
	for _, m := range msgs {
		text += fmt.Sprintf(" cmsg %d %d", m.Type.Level, m.Type.Name)
	}
	if z := o.ZcInfo; z != nil || len(msgs) > 0 {
		ctl := sim.Control{Msgs: msgs, To: o.To.Addr.IsValid()}
		if z != nil {
			ctl.Zc = &sim.ZcInfo{Size: z.Size, DataLen: z.DataLen}
			text += fmt.Sprintf(" zc_info=%d", z.Size)
		}
		send = func(c sim.Call, s *sim.Socket, lens []int, flags kernel.MsgFlags) sim.Result {
			return r.w.SendMsg(c, s, lens, flags, ctl)
		}
	}
	obs := o.Result.String()
	if o.Abbrev != "" || unknown != "" {
		why := o.Abbrev
		if unknown != "" {
			// Replayed without its control messages, as far as it is.
			why, send = unknown, r.w.Send
			if o.To.Addr.IsValid() {
				send = r.w.SendTo
			}
		}
		r.abbreviatedSend(o, e, text, why, func(lens []int) sim.Result {
			return send(r.call(&o.Header, text), e.s, lens, flags)
		})
		return
	}
	im := importBuffers(o.Syscall, o.Iov)
	if !r.runnable(&o.Header, o.Fd, e.s.Name, text, im) {
		return
	}
	r.between(&o.Header)
	if n, ok := o.Result.Ret(); ok && o.Syscall == "sendfile" && n >= 0 && n < int64(im.total()) {
		// do_sendfile moves at most what the input file holds past its
		// offset, which the log does not show.
		res := send(r.call(&o.Header, text), e.s, []int{int(n)}, flags)
		if res.String() != obs {
			r.compare(&o.Header, o.Fd, e.s.Name, text, obs, res.String(), why(res))
			return
		}
		r.assume(&o.Header, e, text, obs, res.String(), "", fmt.Sprintf("the input file held %d bytes past its offset, fewer than the count: the model sent those", n))
		return
	}
	if n, ok := o.Result.Ret(); ok && n > 0 && n < int64(im.total()) && e.s.IsTCP() && !e.s.Sk.NoWait(flags) {
		r.cutSend(o, e, text, int(n), im.total(), func(lens []int) sim.Result {
			return send(r.call(&o.Header, text), e.s, lens, flags)
		})
		return
	}
	size := uint64(im.total())
	var ahead engine.Duration
	aheadWhy, noSchedule := "", ""
	n, sent := o.Result.Ret()
	sent = sent && n >= 0
	if flags&kernel.MSG_ZEROCOPY != 0 && e.s.Sk.Zerocopy() {
		if sent && refuses(e, size) {
			// A schedule in which completions ran earlier than the
			// model's gave their optmem and pages back in time.
			ahead, _ = r.runAhead(func() bool { return !refuses(e, size) })
			aheadWhy = "completions the model schedules later had already run and given back their optmem and locked pages"
		} else if o.Result.Errno == "ENOBUFS" {
			var done bool
			if done, noSchedule = r.heldBack(o, e, text, size); done {
				return
			}
		}
	}
	if o.Result.Errno == "ECONNREFUSED" {
		var done bool
		if done, noSchedule = r.peerGone(o, e, text); done {
			return
		}
	}
	if e.s.IsTCP() && e.s.Sk.NoWait(flags) {
		switch {
		case sent && e.s.Conn().SendWouldWait(int(size), flags&kernel.MSG_ZEROCOPY != 0):
			// A schedule in which the peer's ACKs came sooner than the
			// model's freed the send buffer in time.
			d, _ := r.runAhead(func() bool { return !e.s.Conn().SendWouldWait(int(size), flags&kernel.MSG_ZEROCOPY != 0) })
			if d > 0 {
				ahead += d
				aheadWhy = "ACKs the model schedules later had already arrived and freed send-buffer space"
			}
		case (o.Result.Errno == "EAGAIN" || o.Result.Errno == "EWOULDBLOCK") && !e.s.Conn().SendWouldWait(int(size), flags&kernel.MSG_ZEROCOPY != 0):
			var done bool
			if done, noSchedule = r.unackedEagain(o, e, text); done {
				return
			}
		}
	}
	charged := e.s.Sk.WmemQueuedCharged
	start := r.w.Now()
	c := r.call(&o.Header, text)
	// A blocking TCP send the kernel returned whole sleeps in the model
	// as a Background call, for growSndbuf to try what wakes it.
	c.Background = sent && n == int64(size) && e.s.IsTCP() && !e.s.Sk.NoWait(flags)
	res := send(c, e.s, im.lens, flags)
	a := res.Asleep
	for a != nil && !a.Done() && r.w.RunNext() {
	}
	if r.timed {
		r.ahead += r.w.Now().Sub(start)
	}
	grown := ""
	if a != nil {
		if !a.Done() {
			grown = r.growSndbuf(e, a, line(&o.Header))
		}
		blocked := !a.Done()
		res = a.Interrupt(kernel.EAGAIN)
		res.Blocked = blocked
	}
	e.held.sent(e, res.Send, size)
	e.unacked.sent(e, res.Send, e.s.Sk.WmemQueuedCharged-charged, line(&o.Header))
	if sent {
		e.out.wrote(n)
	}
	if res.Errno == 0 && !e.s.IsTCP() {
		e.dgrams++
	}
	pred := res.String()
	layout := r.backToBack(&o.Header, flags, e, [][]int{im.lens}, []sock.SendResult{res.Send})
	switch {
	case pred == obs && grown != "":
		r.assume(&o.Header, e, text, obs, pred, "", joinAssumed(grown, layout))
	case pred == obs && ahead > 0:
		r.assume(&o.Header, e, text, obs, pred, "", joinAssumed(fmt.Sprintf("the network ran %v ahead of the model's clock: %s", ahead, aheadWhy), layout))
	case pred == obs && layout != "":
		r.assume(&o.Header, e, text, obs, pred, "", layout)
	case pred != obs && noSchedule != "":
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, joinAssumed(noSchedule+"; the model: "+why(res), layout))
	default:
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, joinAssumed(whyDiverged(obs, pred, res), layout))
	}
}

// joinAssumed appends the assumption b, when there is one, to a.
func joinAssumed(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	return a + "; " + b
}

// backToBack returns the assumption a zerocopy send of several iovecs
// rests on, "" when it rests on none: strace does not show the iovecs'
// addresses, and the model lays them back to back in user memory, so
// that with ZerocopyCombinePages (__zerocopy_sg_from_iter from v5.10) an
// iovec that continues the last frag's page extends that frag. How many
// frags, pinned pages and how much truesize the send takes (what
// MAX_SKB_FRAGS, sk_wmem_queued and RLIMIT_MEMLOCK bound) follows from
// that layout; iovecs elsewhere take more. The lines it applied to are
// listed in a note (finish), as the state after them rests on it too.
func (r *replayer) backToBack(h *strace.Header, flags kernel.MsgFlags, e *fdEntry, msgs [][]int, sent []sock.SendResult) string {
	if flags&kernel.MSG_ZEROCOPY == 0 || !e.s.Sk.Zerocopy() {
		return ""
	}
	n := 0
	for i, lens := range msgs {
		if i >= len(sent) || !sent[i].ZC || sent[i].Copied || sent[i].N <= 0 {
			continue
		}
		if k := nonEmpty(lens); k > 1 {
			n = max(n, k)
		}
	}
	if n == 0 {
		return ""
	}
	r.layoutSends++
	if len(r.layoutLines) < 8 {
		r.layoutLines = append(r.layoutLines, line(h))
	}
	return fmt.Sprintf("the %d iovecs lay back to back in user memory, as the model lays them (strace does not show their addresses): the zerocopy frags and pinned pages the model gave the send follow from that", n)
}

// nonEmpty counts the iovecs that hold bytes.
func nonEmpty(lens []int) int {
	k := 0
	for _, l := range lens {
		if l > 0 {
			k++
		}
	}
	return k
}

// cutSend replays a blocking TCP send that returned n of its size bytes.
// tcp_sendmsg_locked returns what it queued when the wait for send
// buffer (sk_stream_wait_memory) ends by a signal or SO_SNDTIMEO, or an
// error comes after some data (do_error): the log does not show when, so
// the model sends those n bytes, as one buffer, and the call agrees
// under that assumption when the model takes them all.
func (r *replayer) cutSend(o *strace.Send, e *fdEntry, text string, n, size int, send func([]int) sim.Result) {
	charged, start := e.s.Sk.WmemQueuedCharged, r.w.Now()
	res := send([]int{n})
	if r.timed {
		r.ahead += r.w.Now().Sub(start)
	}
	e.held.sent(e, res.Send, uint64(n))
	e.unacked.sent(e, res.Send, e.s.Sk.WmemQueuedCharged-charged, line(&o.Header))
	e.out.wrote(int64(res.Ret))
	obs, pred := o.Result.String(), res.String()
	if obs != pred {
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, why(res))
		return
	}
	r.assume(&o.Header, e, text, obs, pred, "", fmt.Sprintf("the call returned after queuing %d of its %d bytes: its wait for send buffer ended (a signal, SO_SNDTIMEO) or an error came, which the log does not time; the model sent those %d bytes", n, size, n))
}

// runnable decides whether the model can run a call whose buffers the
// syscall entry imported: an errno of the entry itself is the prediction
// (compared here); an answer that depends on what strace does not show,
// or a call larger than the replay simulates, is undetermined and not run.
func (r *replayer) runnable(h *strace.Header, fd int, name, text string, im imported) bool {
	switch {
	case im.errno != 0:
		r.compare(h, fd, name, text, h.Result.String(), "-1 "+im.errno.String(), im.why)
		return false
	case im.undet:
		r.add(h, fd, name, text, h.Result.String(), notReplayed, im.why+"; not replayed", Undetermined)
		return false
	case im.total() > r.maxBytes:
		r.add(h, fd, name, text, h.Result.String(), notReplayed, r.tooBig(im.total()), Undetermined)
		return false
	}
	return true
}

// tooBig says why a call over the replay's bound was not run.
func (r *replayer) tooBig(n int) string {
	return fmt.Sprintf("the call moves %d bytes, more than the replay simulates (%d): not replayed, so the model's state lacks it and later calls on this socket may diverge", n, r.maxBytes)
}

// abbreviatedSend handles a send whose buffers strace abbreviated, or
// whose control messages the model cannot run: the prediction is
// undetermined, and why says why. A send the log shows succeeding with n
// bytes is run on the model as one n-byte buffer, so that its state (data
// queued, zerocopy ids) stays close to the kernel's; a failed one queued
// nothing and is not run.
func (r *replayer) abbreviatedSend(o *strace.Send, e *fdEntry, text, why string, send func([]int) sim.Result) {
	obs := o.Result.String()
	n, ok := o.Result.Ret()
	switch {
	case !ok || n < 0:
		r.add(&o.Header, o.Fd, e.s.Name, text, obs, notReplayed, why+"; not replayed (a failed send queues nothing)", Undetermined)
	case n > int64(r.maxBytes):
		r.add(&o.Header, o.Fd, e.s.Name, text, obs, notReplayed, why+"; "+r.tooBig(int(n)), Undetermined)
	default:
		r.between(&o.Header)
		charged := e.s.Sk.WmemQueuedCharged
		res := send([]int{int(n)})
		e.held.sent(e, res.Send, uint64(n))
		e.unacked.sent(e, res.Send, e.s.Sk.WmemQueuedCharged-charged, line(&o.Header))
		e.out.wrote(n)
		r.add(&o.Header, o.Fd, e.s.Name, text, obs, res.String(),
			fmt.Sprintf("%s; the model replayed it as one %d-byte buffer (the observed result) to keep its state close to the kernel's", why, n), Undetermined)
	}
}

// feed ties a datagram receiver the program traced to the sender that
// sends to its address: the sender's datagrams reach its implicit peer,
// and reads on the receiver read there.
func (r *replayer) feed(from *fdEntry, to netip.AddrPort) {
	if from.s.IsTCP() || from.s.Peer == nil {
		return
	}
	if !to.IsValid() {
		to = from.remote
	}
	if !to.IsValid() || to.Port() == 0 {
		return
	}
	var pick *fdEntry
	for _, rx := range r.dgrams[to.Port()] {
		if !rx.open() || rx == from || rx.feed != nil || rx.local.Port() != to.Port() {
			continue
		}
		if pick == nil || rx.fd < pick.fd {
			pick = rx
		}
	}
	if pick != nil {
		pick.feed = from.s.Peer
	}
}

func (r *replayer) sendmmsg(o *strace.SendMmsg) {
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	r.feed(e, netip.AddrPort{})
	flags := msgFlags(o.Flags)
	text := fmt.Sprintf("sendmmsg(%d, %d messages, %v)", o.Fd, len(o.Msgs), flags)
	if o.Abbrev != "" {
		r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), notReplayed,
			o.Abbrev+"; not replayed, so the model's state lacks what the call sent", Undetermined)
		return
	}
	msgs := make([][]int, len(o.Msgs))
	total := 0
	for i, m := range o.Msgs {
		im := importBuffers("sendmmsg", m.Iov)
		if im.errno != 0 || im.undet {
			r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), notReplayed,
				fmt.Sprintf("message %d: %s; not replayed, so the model's state lacks what the call sent", i, im.why), Undetermined)
			return
		}
		msgs[i] = im.lens
		total += im.total()
	}
	if total > r.maxBytes {
		r.add(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), notReplayed, r.tooBig(total), Undetermined)
		return
	}
	r.between(&o.Header)
	charged := e.s.Sk.WmemQueuedCharged
	res := r.w.Sendmmsg(r.call(&o.Header, text), e.s, msgs, flags)
	last := sock.SendResult{}
	for i, m := range res.Batch {
		e.held.sent(e, m, uint64(sum(msgs[i])))
		if m.ZC {
			last = m
		}
	}
	e.unacked.sent(e, last, e.s.Sk.WmemQueuedCharged-charged, line(&o.Header))
	if int64(len(o.Msgs)) < o.Vlen && o.Result.Kind == strace.ResultValue {
		r.note(fmt.Sprintf("line %d: strace printed %d of %d messages; only those were replayed", line(&o.Header), len(o.Msgs), o.Vlen))
	}
	obs, pred := o.Result.String(), res.String()
	if layout := r.backToBack(&o.Header, flags, e, msgs, res.Batch); layout != "" && obs == pred {
		r.assume(&o.Header, e, text, obs, pred, "", layout)
		return
	} else if layout != "" {
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, joinAssumed(why(res), layout))
		return
	}
	r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, why(res))
}

func (r *replayer) recv(o *strace.Recv) {
	e := r.sock(&o.Header, o.Fd, !o.ErrQueue)
	if e == nil {
		return
	}
	flags := msgFlags(o.Flags)
	text := r.recvTexts[kernel.Bool(o.ErrQueue)].text(o.Syscall, o.Fd, []uint64{o.Len}, flags, recvText)
	if !o.ErrQueue {
		r.recvData(o, e, text, flags)
		return
	}
	// An error-queue read copies one notification whatever the buffers
	// (sock_recv_errqueue): their lengths do not matter.
	r.errRead(o, e, text, flags)
}

// recvData replays a read of data. Its lengths go through the syscall
// entry's checks; when strace abbreviated them, a read the log shows
// returning n bytes is run as a read of n (undetermined), a failed one
// took nothing and is not run.
func (r *replayer) recvData(o *strace.Recv, e *fdEntry, text string, flags kernel.MsgFlags) {
	target := e.s
	if e.feed != nil {
		target = e.feed
	}
	obs := o.Result.String()
	if o.Abbrev != "" {
		n, ok := o.Result.Ret()
		if !ok || n < 0 {
			r.add(&o.Header, o.Fd, target.Name, text, obs, notReplayed, o.Abbrev+"; not replayed (a failed read takes nothing)", Undetermined)
			return
		}
		r.between(&o.Header)
		if flags&kernel.MSG_PEEK == 0 {
			e.in.took(n)
		}
		res := r.w.Recv(r.call(&o.Header, text), target, int(min(uint64(n), maxRWCount)), flags)
		r.add(&o.Header, o.Fd, target.Name, text, obs, res.String(),
			fmt.Sprintf("%s; the model read %d bytes (the observed result) to keep its state close to the kernel's", o.Abbrev, n), Undetermined)
		return
	}
	lens := []uint64{o.Len}
	if o.Syscall == "recvmsg" {
		lens = o.Iov
	}
	im := importBuffers(o.Syscall, lens)
	if im.errno != 0 || im.undet {
		r.runnable(&o.Header, o.Fd, target.Name, text, im)
		return
	}
	r.between(&o.Header)
	if why := r.unknownDgramPort(o, e, target); why != "" {
		r.add(&o.Header, o.Fd, target.Name, text, obs, notReplayed, why, Undetermined)
		return
	}
	if n, ok := o.Result.Ret(); ok && flags&kernel.MSG_PEEK == 0 {
		defer e.in.took(n)
	}
	if r.guideRead(o, e, target, text, flags, im.total()) {
		return
	}
	res := r.w.Recv(r.call(&o.Header, text), target, im.total(), flags)
	pred := res.String()
	r.compare(&o.Header, o.Fd, target.Name, text, obs, pred, whyDiverged(obs, pred, res))
}

// unknownDgramPort says why a datagram read that the log shows returning
// data, where the model has none queued, rests on a port the log does
// not show: the socket's own, so no traced sender's datagrams could be
// tied to it (feed); "" otherwise.
func (r *replayer) unknownDgramPort(o *strace.Recv, e *fdEntry, target *sim.Socket) string {
	n, ok := o.Result.Ret()
	if target.IsTCP() || e.feed != nil || e.local.Port() != 0 || !ok || n < 0 || len(target.QueuedSegments()) > 0 {
		return ""
	}
	return fmt.Sprintf("the log does not show fd %d's port (the kernel chose it: no bind to a port, no getsockname, no -yy decoration), so whether a traced sender's datagrams reached it is unknown; not replayed", e.fd)
}

// recordOf turns a logged sock_extended_err into the model's record type.
func recordOf(x strace.ExtErr) notify.Record {
	return notify.Record{Origin: x.Origin, Errno: kernel.Errno(x.Errno), Type: x.Type, Code: x.Code, Info: x.Info, Data: x.Data}
}

func sameRecord(x strace.ExtErr, m notify.Record) bool {
	return x.Origin == m.Origin && kernel.Errno(x.Errno) == m.Errno && x.Type == m.Type &&
		x.Code == m.Code && x.Info == m.Info && x.Data == m.Data
}

func (r *replayer) close(o *strace.Close) {
	r.closeFd(&o.Header, o.Fd, fmt.Sprintf("close(%d)", o.Fd))
}

func (r *replayer) shutdown(o *strace.Shutdown) {
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	r.between(&o.Header)
	rd, wr := o.How != "SHUT_WR" && o.How != "1", o.How != "SHUT_RD" && o.How != "0"
	text := fmt.Sprintf("shutdown(%d, %s)", o.Fd, o.How)
	res := r.w.Shutdown(r.call(&o.Header, text), e.s, rd, wr)
	r.compare(&o.Header, o.Fd, e.s.Name, text, o.Result.String(), res.String(), "")
}

// rlimit replays prlimit64/setrlimit of RLIMIT_MEMLOCK: a new soft limit
// is set on the task; an old one read back is compared with the task's.
func (r *replayer) rlimit(o *strace.Rlimit) {
	if o.Resource != "RLIMIT_MEMLOCK" && o.Resource != "0x8" && o.Resource != "8" {
		r.ignore(o.Syscall, o.Resource+" not modelled")
		return
	}
	r.between(&o.Header)
	obs, pred := o.Result.String(), ""
	old := r.task.Memlock
	if o.Old != nil {
		obs += " old " + limitString(o.Old.Cur)
		pred = " old " + limitString(strace.Limit{Value: old, Infinity: old == kernel.RLIM_INFINITY})
	}
	var res sim.Result
	text := fmt.Sprintf("%s(RLIMIT_MEMLOCK)", o.Syscall)
	if o.New != nil {
		text = fmt.Sprintf("%s(RLIMIT_MEMLOCK, %s)", o.Syscall, limitString(o.New.Cur))
		res = r.w.SetrlimitPair(r.call(&o.Header, text), r.task, limitValue(o.New.Cur), limitValue(o.New.Max))
	}
	r.compare(&o.Header, -1, "", text, obs, res.String()+pred, "")
}

// limitValue is a decoded limit as the kernel holds it.
func limitValue(l strace.Limit) uint64 {
	if l.Infinity {
		return kernel.RLIM_INFINITY
	}
	return l.Value
}

func limitString(l strace.Limit) string {
	if l.Infinity {
		return "unlimited"
	}
	return fmt.Sprint(l.Value)
}

// observed renders a call's logged result and returns the fd it created
// (-1 if none).
func observed(h *strace.Header) (string, int) {
	if n, ok := h.Result.Ret(); ok && n >= 0 {
		return fmt.Sprint(n), int(n)
	}
	return h.Result.String(), -1
}

// compare records a call whose observed and predicted renderings must be
// equal.
func (r *replayer) compare(h *strace.Header, fd int, sock, text, obs, pred, why string) {
	v := Diverge
	if obs == pred {
		v = Agree
	}
	if v == Diverge {
		if note, ok := r.events.rcvbufUndetermined(sock); ok && hangsOnRcvbuf(h.Syscall, text) {
			r.add(h, fd, sock, text, obs, pred, "the connection's receive buffer may have grown otherwise in the kernel, whose tcp_rcv_space_adjust runs on microseconds the log does not show (model: "+note+"); what the call returns hangs on it", Undetermined)
			return
		}
	}
	r.addHow(h, fd, sock, text, obs, pred, why, "", v)
}

// hangsOnRcvbuf reports whether what a call returns can hang on the
// receive buffer of its connection: the data calls, whose amounts the
// window limits, polls, and SO_RCVBUF or a zerocopy receive read back.
func hangsOnRcvbuf(syscall, text string) bool {
	switch syscall {
	case "recv", "recvfrom", "recvmsg", "read", "poll", "ppoll", "select", "pselect6",
		"send", "sendto", "sendmsg", "sendmmsg", "write", "writev", "sendfile":
		return true
	case "getsockopt":
		return strings.Contains(text, "SO_RCVBUF") || strings.Contains(text, "TCP_ZEROCOPY_RECEIVE")
	}
	return false
}

// add records a call with its verdict; why is the model's reason on a
// divergence (its last event when empty) and the reason on an
// undetermined call.
func (r *replayer) add(h *strace.Header, fd int, sock, text, obs, pred, why string, v Verdict) {
	r.addHow(h, fd, sock, text, obs, pred, why, "", v)
}

func (r *replayer) addHow(h *strace.Header, fd int, sock, text, obs, pred, why, how string, v Verdict) {
	c := Call{Line: line(h), Pid: h.Pid, Syscall: h.Syscall, Fd: fd, Socket: sock, Text: text,
		Observed: obs, Predicted: pred, Verdict: v, Compared: how}
	switch v {
	case Diverge:
		c.Why = why
		if text := r.events.text(); c.Why == "" && text != "" {
			c.Why = "model: " + text
		}
	case Undetermined:
		c.Why = why
	}
	r.emit(c)
}

// emit counts a replayed call, lists it unless it agrees (the first
// MaxListed of each verdict), and keeps it in the report or hands it to
// Options.Out.
func (r *replayer) emit(c Call) {
	s := &r.rep.Summary
	switch c.Verdict {
	case Agree:
		s.Agree++
	case Assumed:
		s.Assumed++
	case Diverge:
		s.Diverge++
	default:
		s.Undetermined++
	}
	if l := r.rep.listed[c.Verdict]; c.Verdict != Agree && len(l) < MaxListed {
		r.rep.listed[c.Verdict] = append(l, c)
	}
	switch {
	case r.out == nil:
		r.rep.Calls = append(r.rep.Calls, c)
	case r.err == nil:
		r.err = r.out.Call(c)
	}
}

// textMemo remembers the text of the last data call of one kind: a
// program's loop of like calls shows the same text again.
type textMemo struct {
	syscall string
	fd      int
	lens    []uint64
	flags   kernel.MsgFlags
	memo    string
}

// text returns the text render makes of a call of syscall on fd with the
// buffer lengths lens and flags, without making it again for a call like
// the last one.
func (m *textMemo) text(syscall string, fd int, lens []uint64, flags kernel.MsgFlags, render func(string, int, []uint64, kernel.MsgFlags) string) string {
	if m.memo != "" && syscall == m.syscall && fd == m.fd && flags == m.flags && slices.Equal(lens, m.lens) {
		return m.memo
	}
	m.syscall, m.fd, m.flags, m.lens = syscall, fd, flags, append(m.lens[:0], lens...)
	m.memo = render(syscall, fd, lens, flags)
	return m.memo
}

// sendText is how the report shows a send: name(fd, [iov lengths],
// flags), as fmt's %v prints them.
func sendText(syscall string, fd int, iov []uint64, flags kernel.MsgFlags) string {
	b := make([]byte, 0, 64)
	b = append(append(b, syscall...), '(')
	b = append(strconv.AppendInt(b, int64(fd), 10), ", ["...)
	for i, n := range iov {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, n, 10)
	}
	return string(append(append(append(b, "], "...), flags.String()...), ')'))
}

// recvText is how the report shows a read: name(fd, length, flags), its
// length the one of lens.
func recvText(syscall string, fd int, lens []uint64, flags kernel.MsgFlags) string {
	b := make([]byte, 0, 48)
	b = append(append(b, syscall...), '(')
	b = append(strconv.AppendInt(b, int64(fd), 10), ", "...)
	b = append(strconv.AppendUint(b, lens[0], 10), ", "...)
	return string(append(append(b, flags.String()...), ')'))
}

// whyDiverged is why(res) for a call whose prediction pred differs from
// what the log observed, the only call a report gives the reason of;
// "" for one that agrees.
func whyDiverged(obs, pred string, res sim.Result) string {
	if obs == pred {
		return ""
	}
	return why(res)
}

// why is the model's reason for a send's result: what
// msg_zerocopy_alloc/realloc did and the id it gave.
func why(res sim.Result) string {
	s := ""
	if res.Send.Outcome != 0 {
		s = res.Send.Outcome.String()
	}
	if res.Send.ZC {
		s = strings.TrimSpace(fmt.Sprintf("%s, id %d", s, res.Send.ID))
	}
	if res.Blocked {
		s = strings.TrimSpace(s + " the call blocks forever in the model")
	}
	return strings.TrimPrefix(s, ", ")
}

// symbol maps a name as strace printed it (symbolic, or a number under
// -X raw) to a kernel value; alias is a prefix to try as "AF_" (PF_INET).
func symbol[T ~uint8 | ~uint16 | ~uint32 | ~int32](tab kernel.Symbols[T], s, alias string) (T, bool) {
	if v, ok := tab.ByName(s); ok {
		return v, true
	}
	if alias != "" && strings.HasPrefix(s, alias) {
		if v, ok := tab.ByName("AF_" + strings.TrimPrefix(s, alias)); ok {
			return v, true
		}
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, false
	}
	v := T(n)
	return v, tab.Name(v) != ""
}

// etherTypes are the ethertypes an AF_PACKET socket's protocol is
// commonly given by name (<linux/if_ether.h>).
var etherTypes = map[string]uint16{"ETH_P_ALL": 0x0003, "ETH_P_IP": 0x0800, "ETH_P_ARP": 0x0806, "ETH_P_IPV6": 0x86dd}

// packetProtocol maps an AF_PACKET protocol as strace prints it,
// htons(ETH_P_ALL) or htons(0 /* ETH_P_??? */), to the model's: the
// ethertype in network byte order, as packet_create keeps it (0x0300 for
// ETH_P_ALL, as a scenario writes it).
func packetProtocol(s string) (kernel.Protocol, bool) {
	inner, ok := strings.CutPrefix(s, "htons(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return 0, false
	}
	inner, _, _ = strings.Cut(strings.TrimSuffix(inner, ")"), " /*")
	v, named := etherTypes[inner]
	if !named {
		n, err := strconv.ParseUint(inner, 0, 16)
		if err != nil {
			return 0, false
		}
		v = uint16(n)
	}
	return kernel.Protocol(v>>8 | v<<8), true
}

// sockOpt maps a level and option name (or numbers) to a modelled option.
func sockOpt(level, name string) (kernel.SockOpt, bool) {
	if name == "SO_TIMESTAMPING_OLD" { // strace's name for 37 on 64-bit
		name = "SO_TIMESTAMPING"
	}
	if o, ok := kernel.SockOptNames.ByName(name); ok {
		return o, true
	}
	lv, err1 := strconv.ParseInt(level, 0, 32)
	nv, err2 := strconv.ParseInt(name, 0, 32)
	if err1 != nil || err2 != nil {
		return kernel.SockOpt{}, false
	}
	o := kernel.SockOpt{Level: kernel.Level(lv), Name: int32(nv)}
	return o, kernel.SockOptNames.Name(o) != ""
}

// optValue is a setsockopt value: an integer, or a union of
// SOF_TIMESTAMPING flags.
func optValue(v strace.OptValue) (int, bool) {
	if v.HasInt {
		return int(v.Int), true
	}
	if len(v.Flags) == 0 {
		return 0, false
	}
	var t kernel.Timestamping
	for _, f := range v.Flags {
		b, ok := kernel.TimestampingNames.ByName(f)
		if !ok {
			n, err := strconv.ParseInt(f, 0, 64)
			if err != nil {
				return 0, false
			}
			b = kernel.Timestamping(n)
		}
		t |= b
	}
	return int(t), true
}

// msgFlags maps flag names (or numbers) to MsgFlags; names the kernel
// package does not know are dropped.
func msgFlags(names []string) kernel.MsgFlags {
	var f kernel.MsgFlags
	for _, n := range names {
		if b, ok := kernel.MsgFlagNames.ByName(n); ok {
			f |= b
		} else if v, err := strconv.ParseUint(n, 0, 32); err == nil {
			f |= kernel.MsgFlags(v)
		}
	}
	return f
}

// controlOf turns a sendmsg's control messages as strace printed them
// into the model's, or says why the model cannot run them: a level or
// type strace named and the model does not know, a cmsg_len shorter than
// its header, a message the model does not know (sock.Modelled), or one
// whose value decides what the call does (sock.NeedsData) when strace did
// not print its data.
func controlOf(cs []strace.SendCmsg) ([]sock.Cmsg, string) {
	var msgs []sock.Cmsg
	for _, c := range cs {
		t := kernel.CmsgType{Level: kernel.Level(c.Level), Name: c.Type}
		switch {
		case c.Name != "":
			return nil, fmt.Sprintf("strace names a control message level or type %s, which the model does not know", c.Name)
		case c.DataLen < 0:
			return nil, "a control message's cmsg_len is shorter than its header (CMSG_OK), which the model does not run"
		case !sock.Modelled(t):
			return nil, fmt.Sprintf("the model does not know what the control message of level %d, type %d does", c.Level, c.Type)
		case c.Data == nil && sock.NeedsData(t, c.DataLen):
			return nil, fmt.Sprintf("strace did not print the data of the control message of level %d, type %d, which decides what the call does", c.Level, c.Type)
		}
		var v uint64
		for i := 0; i < len(c.Data) && i < 8; i++ {
			v |= uint64(c.Data[i]) << (8 * i)
		}
		msgs = append(msgs, sock.Cmsg{Type: t, Len: c.DataLen, Data: v})
	}
	return msgs, ""
}
