package replay

import (
	"fmt"
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/strace"
)

// MPTCP sockets are followed as far as the model knows their answers
// (sim/mptcp.go): socket(IPPROTO_MPTCP), its socket options and close are
// replayed; bind is replayed as a TCP socket's. Their data path is not the
// model's (which subflow carries a send, the MPTCP-level DATA_ACKs that
// free the send buffer, whether the connection falls back to TCP), so
// listen, connect, sends, reads of data, sendfile, shutdown and poll on
// them are undetermined (mptcpWhy). A traced plain TCP client of a
// traced MPTCP listener is the exception: its SYN carries no MP_CAPABLE,
// so the listener's accept returns the plain TCP subflow (Linux 6.18),
// and the connection is replayed as TCP on both ends (mptcpAccept). Any
// other accept of an MPTCP listener is undetermined, and so are the calls
// on its child (mptcpChild: the log does not tell whether that client
// asked for MPTCP), and the reads and polls of the child a TCP listener
// accepted from an MPTCP client (mptcpPeer): what arrives there is the
// kernel's. That child's sends are replayed against a peer that reads
// what it gets, as for an untraced client.

// mptcpWhy says why a call on e is undetermined, or "" when the replay
// runs it: syscall is the call, dataPath whether it is on the socket's
// data path.
func (e *fdEntry) mptcpWhy(syscall string, dataPath bool) string {
	poll := syscall == "poll" || syscall == "ppoll"
	switch {
	case e.mptcpChild:
		return fmt.Sprintf("fd %d is the child an MPTCP listener accepted: an MPTCP socket, or its plain TCP subflow when the client did not ask for MPTCP (mptcp_stream_accept), which the log does not tell; the model does not follow it", e.fd)
	case e.s == nil:
		return ""
	case e.s.IsMPTCP() && syscall == "bind":
		return ""
	case e.s.IsMPTCP() && (dataPath || poll):
		return fmt.Sprintf("fd %d is an MPTCP socket: the model does not run MPTCP's data path (which subflow carries the data, mptcp_subflow_get_send; the MPTCP-level DATA_ACKs; a fallback to TCP, which the peer's handshake decides), so what %s returns is the kernel's", e.fd, syscall)
	case e.mptcpPeer && (poll || dataPath && isRead(syscall)):
		return fmt.Sprintf("fd %d's far end is an MPTCP socket, whose data path the model does not run: what arrives on fd %d is the kernel's", e.fd, e.fd)
	}
	return ""
}

// isRead reports whether syscall reads data.
func isRead(syscall string) bool {
	switch syscall {
	case "recv", "recvfrom", "recvmsg", "recvmmsg", "read", "readv":
		return true
	}
	return false
}

// mptcpListening records a successful listen on an MPTCP socket, so that
// a TCP client of its port is paired with its accept (mptcpTCPClient,
// mptcpAccept).
func (r *replayer) mptcpListening(o *strace.Listen) {
	e := r.fds[o.Fd]
	if e == nil || e.s == nil || !e.s.IsMPTCP() || o.Result.Kind != strace.ResultValue {
		return
	}
	if n, _ := o.Result.Ret(); n == 0 && !slices.Contains(r.mptcpListeners, e) {
		r.mptcpListeners = append(r.mptcpListeners, e)
	}
}

// mptcpServer returns the traced MPTCP listener, still open, bound to
// the port e connected to; nil when there is none.
func (r *replayer) mptcpServer(e *fdEntry) *fdEntry {
	r.mptcpListeners = slices.DeleteFunc(r.mptcpListeners, func(l *fdEntry) bool { return !l.open() })
	for _, l := range r.mptcpListeners {
		if l.local.Port() != 0 && l.local.Port() == e.remote.Port() {
			return l
		}
	}
	return nil
}

// mptcpConnecting records where an MPTCP socket connects, and queues it
// for a traced plain TCP listener's accept: that child's far end is then
// the MPTCP socket (mptcpPeer).
func (r *replayer) mptcpConnecting(o *strace.Connect) {
	e := r.fds[o.Fd]
	if e == nil || e.s == nil || !e.s.IsMPTCP() || !o.Addr.Addr.IsValid() {
		return
	}
	e.remote = o.Addr.Addr
	if n, ok := o.Result.Ret(); ok && n == 0 && r.tracedListener(e.remote) != nil {
		r.pending = append(r.pending, e)
	}
}

// mptcpAccept replays an accept on an MPTCP listener and reports whether
// o was one. The child of a traced plain TCP client (mptcpTCPClient) is
// its TCP subflow (sim.World.AcceptFallback): the client's peer, replayed
// as TCP from then on. Any other accept is undetermined, and its child's
// calls too (mptcpChild): the log does not tell whether that client asked
// for MPTCP.
func (r *replayer) mptcpAccept(o *strace.Accept) bool {
	l := r.fds[o.Fd]
	if l == nil || l.s == nil || !l.s.IsMPTCP() {
		return false
	}
	obs, fd := observed(&o.Header)
	client := r.takePending(l, o.Peer.Addr)
	if client == nil || client.s.IsMPTCP() {
		r.sock(&o.Header, o.Fd, true) // the undetermined verdict (mptcpWhy)
		if fd >= 0 {
			r.put(fd, &fdEntry{fd: fd, family: l.family, local: l.local, remote: o.Peer.Addr, mptcpChild: true}, o.CloExec)
		}
		return true
	}
	r.between(&o.Header)
	text := fmt.Sprintf("%s(%d) from fd %d", o.Syscall, o.Fd, client.fd)
	child, res := r.w.AcceptFallback(r.call(&o.Header, text), l.s, client.s)
	pred := res.String()
	if res.Errno == 0 && fd >= 0 {
		pred = fmt.Sprint(fd)
	}
	r.compare(&o.Header, o.Fd, client.s.Peer.Name, text, obs, pred, "")
	if fd >= 0 && res.Errno == 0 {
		r.put(fd, &fdEntry{fd: fd, family: l.family, local: l.local, remote: o.Peer.Addr, s: child, in: client.out}, o.CloExec)
	}
	return true
}

// mptcpTCPClient queues e, a plain TCP socket connected to the port of a
// traced MPTCP listener, for that listener's accept (mptcpAccept), and
// reports whether it did. Its far end is a TCP subflow set up as the
// listener's child, from the msk's buffer sizes (subflow_syn_recv_sock
// clones the listening subflow, which has the msk's).
func (r *replayer) mptcpTCPClient(e *fdEntry) bool {
	l := r.mptcpServer(e)
	if l == nil || e.s.Peer == nil {
		return false
	}
	e.s.Peer.Sk.CloneFrom(l.s.Sk)
	e.out = &stream{}
	r.pending = append(r.pending, e)
	return true
}

// mptcpEnabled sets the model's net.mptcp.enabled to what a
// socket(IPPROTO_MPTCP) of type typ that the log shows reveals of it, and
// says what it assumed; "" when the model already had that value. The log
// does not show the sysctl: mptcp_init_sock's ENOPROTOOPT is the only sign
// of 0, a success the sign of 1.
func (r *replayer) mptcpEnabled(h *strace.Header, typ kernel.SockType, proto kernel.Protocol) string {
	if proto != kernel.IPPROTO_MPTCP || typ.Base() != kernel.SOCK_STREAM || !r.w.Host.Profile.MPTCP {
		return ""
	}
	on := 1
	switch {
	case h.Result.Kind == strace.ResultErrno && h.Result.Errno == "ENOPROTOOPT":
		on = 0
	case h.Result.Kind != strace.ResultValue:
		return ""
	}
	if r.w.Net.MPTCPEnabled == on {
		return ""
	}
	r.w.Net.MPTCPEnabled = on
	return fmt.Sprintf("net.mptcp.enabled is %d in the traced program's network namespace (the log does not show the sysctl; mptcp_init_sock refuses MPTCP sockets, ENOPROTOOPT, only at 0)", on)
}
