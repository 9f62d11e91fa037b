package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// connectTo models connect(2) of the TCP socket s to its listener s.to
// over loopback (__inet_stream_connect, tcp_v4_connect). With room in
// the accept queue the handshake completes inside the call
// (handshakeArrives). A full queue drops the SYN (tcp_conn_request):
// s waits in SYN_SENT for its SYN retransmission timer
// (tcp.Conn.SynDropped), each retransmission finding room or not, and
// after net.ipv4.tcp_syn_retries worth of them the connect fails with
// ETIMEDOUT. A blocking connect sleeps meanwhile (inet_wait_for_connect)
// while the network runs; a non-blocking one returns EINPROGRESS, and a
// later connect returns EALREADY while the SYN waits, 0 once the
// handshake completed, or the error that ended it (sock_error).
// Measured on Linux 6.18 with backlog 0: the second client's SYN waits,
// its retransmission one second later completes once accept made room.
func (w *World) connectTo(c Call, s *Socket) Result {
	t := s.tcp
	nonblock := s.Sk.Type&kernel.SOCK_NONBLOCK != 0
	l := s.to
	switch {
	case t.Disconnecting():
		return fail(kernel.EINVAL)
	case t.SynWaiting() && nonblock:
		return fail(kernel.EALREADY)
	case t.SynWaiting():
		return w.waitConnect(c, s)
	case t.FinishConnect():
		return connectError(s)
	case t.Disconnected():
		return reconnect(s)
	case s.Sk.State != sock.CLOSE || t.Connected():
		return fail(kernel.EISCONN)
	case l.scripted():
		return Result{Ret: -1, Undetermined: fmt.Sprintf("%s connects to %s, whose far side the scenario plays: the model has no client of this host there", s.Name, l.Name)}
	case l.Sk.State != sock.LISTEN:
		// Nobody listens: the SYN is answered with a RST (tcp_v4_send_reset),
		// which tcp_rcv_synsent_state_process takes (tcp_reset: ECONNREFUSED)
		// inside the call over loopback; a non-blocking connect still says
		// EINPROGRESS, the next one the error (measured on Linux 6.18).
		t.SynDropped(func() bool { return false })
		t.Reset()
		if !nonblock {
			return connectError(s)
		}
	case !l.acceptqFull():
		w.handshakeArrives(l, s)
	default:
		w.say(fmt.Sprintf("%s drops the SYN of %s: its accept queue is full, %d children for a backlog of %d (tcp_conn_request, sk_acceptq_is_full)", l.Name, s.Name, len(l.listener().queue), l.Sk.MaxAckBacklog))
		t.SynDropped(func() bool { return w.synArrives(s) })
		if !nonblock {
			return w.waitConnect(c, s)
		}
	}
	if nonblock {
		t.InProgress()
		return fail(kernel.EINPROGRESS)
	}
	return ok(0)
}

// connectClient is connect(2) of the listener l's peer, its next client
// (Socket.client), a blocking socket not yet connected. While l listens
// the handshake completes and the child waits in l's accept queue
// (handshakeArrives). Once l was closed or shut down (SHUT_RD) nobody
// listens on its port: the SYN is answered with a RST
// (tcp_v4_send_reset), tcp_rcv_synsent_state_process takes it (tcp_reset:
// ECONNREFUSED), and __inet_stream_connect returns the error and
// disconnects the socket (sock->state SS_UNCONNECTED), which may connect
// again, as if it never had. Measured on Linux 6.18: after the close,
// ECONNREFUSED; after SHUT_RD and a second listen, 0.
func (w *World) connectClient(s *Socket) Result {
	l := s.Peer
	if !l.listening() {
		w.say(fmt.Sprintf("nobody listens on the port of %s: %s's SYN is answered with RST (tcp_v4_send_reset, tcp_reset)", l.Name, s.Name))
		return fail(kernel.ECONNREFUSED)
	}
	w.handshakeArrives(l, s)
	return ok(0)
}

// synArrives is the retransmitted SYN of the client s reaching its
// listener: answered if the listener's accept queue has room now (the
// handshake completes) and dropped again if not. It reports whether it
// was answered.
func (w *World) synArrives(s *Socket) bool {
	if l := s.to; l.Sk.State != sock.LISTEN || l.acceptqFull() {
		return false
	}
	w.handshakeArrives(s.to, s)
	return true
}

// waitConnect is a blocking connect sleeping in inet_wait_for_connect:
// the call's step ends, the network runs (the SYN timer's events each a
// step of their own) until the handshake completed or the connect was
// given up, and the call returns in a new step.
func (w *World) waitConnect(c Call, s *Socket) Result {
	w.end(Event{Source: c.Source, Op: "connect", Socket: s.Name, Text: c.Text + " blocks in inet_wait_for_connect"})
	for s.tcp.SynWaiting() && w.RunNext() {
	}
	w.beginOn(s)
	if s.tcp.SynWaiting() {
		return Result{Blocked: true}
	}
	return connectError(s)
}

// connectError is what __inet_stream_connect returns once the
// handshake is over: 0 on a connection, or for a socket TCP_CLOSE again
// the error that closed it (sock_error; ECONNABORTED without one, as for
// a connection the peer reset and whose error a send already took),
// which disconnects the socket (tcp.Conn.Disconnect). Measured on Linux
// 6.18: a non-blocking connect's EINPROGRESS, a reset, a send's EPIPE,
// then a second connect is ECONNABORTED.
func connectError(s *Socket) Result {
	if s.Sk.State != sock.CLOSE {
		return ok(0)
	}
	return fail(s.tcp.ConnectError())
}

// reconnect is connect(2) of a socket a connect disconnected
// (tcp.Conn.Disconnected): the kernel starts a new connection, which the
// model does not, so the result is undetermined.
func reconnect(s *Socket) Result {
	return Result{Ret: -1, Undetermined: fmt.Sprintf("%s connects again after its connect failed: the kernel starts a new one (sock->state SS_UNCONNECTED again), which the model does not", s.Name)}
}
