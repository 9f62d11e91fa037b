package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// listening reports whether s is a listening TCP socket whose far side is
// its implicit peer (not one the scenario plays).
func (s *Socket) listening() bool {
	return s.tcp != nil && s.Sk.State == sock.LISTEN && !s.scripted()
}

// handshakeArrives models client, the listener l's implicit peer or a
// socket made with it as its listener, connecting to it: the
// handshake completes, and tcp_check_req's inet_csk_clone_lock creates
// the child there and then, its sk_flags (SOCK_ZEROCOPY, the
// timestamping flags) and buffer sizes with their SO_RCVBUF and SO_SNDBUF
// locks copied from the listener by sk_clone_lock (sock.Sock.CloneFrom;
// measured on Linux 6.18: SO_RCVBUF 100000 on the listener, 200000 on its
// child, whose window it bounds). The
// child waits in the accept queue under a provisional name until accept
// names it; the peer stays l.peer until then. Measured on Linux 6.18:
// SO_ZEROCOPY set on the listener after the connection arrived but before
// accept does not reach the child.
func (w *World) handshakeArrives(l, client *Socket) {
	ls := l.listener()
	ls.accepted++
	child := w.newSocket(fmt.Sprintf("%s/%d", l.Name, ls.accepted), l.Task, l.Sk.Family, l.Sk.Type&^kernel.SOCK_NONBLOCK, l.Sk.Protocol, l.Dev)
	child.Peer, client.Peer = client, child
	child.Sk.CloneFrom(l.Sk)
	child.tcp.InheritCongestion(l.tcp) // tcp_ca_openreq_child
	connect := client.tcp.Connect
	if client.tcp.SynWaiting() {
		connect = client.tcp.SynAcked
	}
	connect(child.tcp.SynWindow())
	child.tcp.Connect(client.tcp.Window()) // the handshake's ACK (World.handshake)
	w.handshakeRaw(client, child)
	ls.queue = append(ls.queue, child)
	l.Sk.WakeUp(kernel.POLLIN | kernel.POLLPRI | kernel.POLLRDNORM | kernel.POLLRDBAND) // tcp_child_process: sk_data_ready
}

// handshakeRaw models raw_local_deliver for the implicit handshake of
// client with server over loopback: its SYN, SYN-ACK and last ACK each
// reach every RAW IPPROTO_TCP socket of the traffic's family on the
// device before tcp_v4_rcv takes them, with the IP header on AF_INET, the
// SYN and SYN-ACK with their options (tcp.SynHeaderLen: both ends offer
// what the host's sysctls say), the ACK with the connection's header
// (tcp.Conn.HeaderLen). Measured on Linux 6.18 (raw-tcp-handshake.zcs): 60, 60
// and 52 bytes on AF_INET, 40, 40 and 32 on AF_INET6. A SYN a full
// accept queue drops, or one nobody listens for and its RST, is not
// delivered: the model does not put them on the wire.
func (w *World) handshakeRaw(client, server *Socket) {
	family := trafficFamily(client.Sk)
	if client.Dev.Kind != Loopback || len(w.rawSockets(client.Dev, family, kernel.IPPROTO_TCP)) == 0 {
		return
	}
	ip := 0
	if family == kernel.AF_INET {
		ip = client.Sk.IPHeaderLen()
	}
	syn := ip + tcp.SynHeaderLen(client.tcp.SynOffer())
	w.rawSegment(client.Dev, family, syn, []byte(server.Name+": raw_local_deliver of the SYN"))
	w.rawSegment(client.Dev, family, syn, []byte(client.Name+": raw_local_deliver of the SYN-ACK"))
	w.rawSegment(client.Dev, family, ip+client.tcp.HeaderLen(), []byte(server.Name+": raw_local_deliver of the handshake's ACK"))
}

// listenStop models inet_csk_listen_stop, which a listener's close
// (__tcp_close) and its SHUT_RD (tcp_disconnect) run: each child its
// accept queue still holds is forgotten (tcp.Conn.Forget,
// inet_child_forget), its connection reset, so its client's next call
// reports ECONNRESET (measured on Linux 6.18: a queued client's recv,
// then 0 at the end of the stream, a send EPIPE).
func (w *World) listenStop(l *Socket) {
	ls := l.script
	if ls == nil {
		return
	}
	for _, child := range ls.queue {
		child.closed = true
		if child.tcp.Forget() {
			w.resetPeer(child)
		}
	}
	ls.queue = nil
}

// acceptImplicit is accept(2) on a listener whose far side is its
// implicit peer or a client of this host (Socket.to): the oldest queued
// child, or, when none is queued, the
// connection the peer makes now (the model's assumption for a program
// that does not say when it connected). The child is renamed name and
// its peer name.peer; the listener gets a fresh implicit peer, with the
// old one's options, for its next connection.
func (w *World) acceptImplicit(l *Socket, name string) *Socket {
	ls := l.listener()
	if len(ls.queue) == 0 {
		w.handshakeArrives(l, l.Peer)
	}
	child := ls.queue[0]
	ls.queue = ls.queue[1:]
	w.rename(child, name)
	if child.Peer.to == l {
		// A client of the scenario's keeps its name; name.peer names it too.
		w.byName[name+".peer"] = child.Peer
		return child
	}
	w.rename(child.Peer, name+".peer")
	old := child.Peer
	fresh := w.newSocket(l.Name+".peer", l.Task, l.Sk.Family, l.Sk.Type&^kernel.SOCK_NONBLOCK, l.Sk.Protocol, l.Dev)
	fresh.autoRead, fresh.Sk.V4Mapped = old.autoRead, old.Sk.V4Mapped
	fresh.tcp.SetAckPolicy(old.tcp.AckPolicy())
	if old.Sk.RcvbufLocked {
		fresh.Sk.Rcvbuf, fresh.Sk.RcvbufLocked = old.Sk.Rcvbuf, true
	}
	fresh.Peer, l.Peer, fresh.client = l, fresh, true
	return child
}

// rename gives s a new scenario name.
func (w *World) rename(s *Socket, name string) {
	if w.byName[s.Name] == s {
		delete(w.byName, s.Name)
	}
	s.Name = name
	w.byName[name] = s
}
