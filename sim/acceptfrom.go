package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// AcceptFrom models accept(2) on the listener l returning the connection
// that client, a socket of this world, opened to it (inet_csk_accept):
// the child is client's peer, already connected to client, and starts
// with the listener's SO_ZEROCOPY and timestamping flags (sk_clone_lock).
// The strace importer uses it when both ends of a connection were traced,
// so that data the client sends is what a read on the child returns.
//
// Preconditions: client is a connected TCP socket with a peer. A listener
// that is not listening fails with EINVAL, as Accept does.
func (w *World) AcceptFrom(c Call, l, client *Socket) (*Socket, Result) {
	var child *Socket
	r := w.syscall(c, "accept", l, func() Result {
		if l.tcp == nil || l.Sk.State != sock.LISTEN {
			return fail(kernel.EINVAL)
		}
		if client == nil || client.tcp == nil || client.Peer == nil || client.Peer.tcp == nil {
			return fail(kernel.EINVAL)
		}
		child = client.Peer
		child.Sk.InheritFlags(l.Sk)
		return ok(w.allocFD(child))
	})
	return child, r
}

// SetAutoRead says whether the socket's application reads everything on
// arrival, as PeerOptions.AutoRead does at creation. The strace importer
// turns it on for the implicit peer of a traced socket whose far end was
// not traced, since some untraced program reads it.
func (s *Socket) SetAutoRead(on bool) { s.autoRead = on }

// QueuedSegments returns what a read on s could take now without
// waiting, oldest first: the unread bytes of each segment on a TCP
// socket's receive queue as it arrived (tcp.Conn.QueuedSegments, however
// tcp_try_coalesce joined them), or each datagram's length on a datagram
// socket. It changes nothing; the strace importer uses it to tell which
// arrivals explain what a log's read returned.
func (s *Socket) QueuedSegments() []int {
	var out []int
	switch {
	case s.tcp != nil:
		out = s.tcp.QueuedSegments()
	case s.dgrm != nil:
		for _, g := range s.dgrm.rx {
			out = append(out, g.len)
		}
	}
	return out
}
