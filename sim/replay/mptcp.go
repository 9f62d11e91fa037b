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
// listen, connect, accept, sends, reads of data, sendfile, shutdown and
// poll on them are undetermined (mptcpWhy). So are the calls on the child
// an MPTCP listener accepted (mptcpChild: the msk, or on Linux 6.18 the
// plain TCP subflow itself when the client's SYN carried no MP_CAPABLE,
// which the log does not tell), and the reads and polls of a TCP socket
// whose far end is such a socket (mptcpPeer: a TCP client of an MPTCP
// listener, or the child a TCP listener accepted from an MPTCP client):
// what arrives there is the kernel's. The sends of such a TCP socket are
// replayed against a peer that reads what it gets, as for an untraced
// server.

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
		return fmt.Sprintf("fd %d's far end is an MPTCP socket or an MPTCP listener's child, which the model does not follow: what arrives on fd %d is the kernel's", e.fd, e.fd)
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
// a TCP client of its port is known to have an MPTCP listener's child as
// its far end (mptcpClient) and its accepts give children the replay does
// not follow (mptcpAccepted).
func (r *replayer) mptcpListening(o *strace.Listen) {
	e := r.fds[o.Fd]
	if e == nil || e.s == nil || !e.s.IsMPTCP() || o.Result.Kind != strace.ResultValue {
		return
	}
	if n, _ := o.Result.Ret(); n == 0 && !slices.Contains(r.mptcpListeners, e) {
		r.mptcpListeners = append(r.mptcpListeners, e)
	}
}

// mptcpServer reports whether a traced MPTCP listener still open is bound
// to the port e connected to.
func (r *replayer) mptcpServer(e *fdEntry) bool {
	r.mptcpListeners = slices.DeleteFunc(r.mptcpListeners, func(l *fdEntry) bool { return !l.open() })
	return slices.ContainsFunc(r.mptcpListeners, func(l *fdEntry) bool {
		return l.local.Port() != 0 && l.local.Port() == e.remote.Port()
	})
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

// mptcpAccepted gives the descriptor an MPTCP listener's accept returned
// an entry whose calls are undetermined (mptcpChild).
func (r *replayer) mptcpAccepted(o *strace.Accept) {
	l := r.fds[o.Fd]
	if l == nil || l.s == nil || !l.s.IsMPTCP() {
		return
	}
	if _, fd := observed(&o.Header); fd >= 0 {
		r.put(fd, &fdEntry{fd: fd, family: l.family, local: l.local, remote: o.Peer.Addr, mptcpChild: true}, o.CloExec)
	}
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
