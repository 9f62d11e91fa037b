package tcp

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// SynDropped models tcp_connect to the implicit far side whose SYN was
// dropped (a listener's full accept queue, tcp_conn_request): the
// socket goes to SYN_SENT (sock->state SS_CONNECTING) and its SYN
// retransmission timer runs (synTimer). retransmit is the SYN sent
// again: it reports whether the far side answered it, and then the
// network has completed the handshake (SynAcked).
func (c *Conn) SynDropped(retransmit func() bool) {
	c.connected = true
	c.Sk.State = sock.SYN_SENT
	c.syn = synState{start: c.Net.Now(), rto: timeoutInit, retransmit: retransmit}
	c.t.rto = c.Net.After(c.Sk, c.syn.rto, "syn", c.synTimer)
}

// SynWaiting reports whether the connection waits in SYN_SENT for an
// answer to its SYN (SynDropped).
func (c *Conn) SynWaiting() bool { return c.syn.retransmit != nil && c.Sk.State == sock.SYN_SENT }

// DisconnectSynSent models inet_shutdown of a socket whose SYN is
// unanswered (TCP_SYN_SENT): whatever the halves, the connect is undone
// (tcp_disconnect): the SYN timer stops, the socket is TCP_CLOSE again
// with no shutdown bits and sock->state SS_UNCONNECTED (Disconnect), and
// the call returns 0. Measured on Linux 6.18: a second shutdown then
// finds it closed, ENOTCONN (probe/testdata/tcp-shutdown-synsent.zcs).
func (c *Conn) DisconnectSynSent() {
	c.syn = synState{}
	c.inProgress = false
	c.finish()
	c.Sk.Shutdown = 0
	c.Disconnect()
}

// SynAcked completes the handshake of a connection SynWaiting, the far
// side's SYN-ACK offering window (tcp_rcv_synsent_state_process,
// tcp_finish_connect): its retransmission timer stops and it is
// ESTABLISHED, as Connect makes one.
func (c *Conn) SynAcked(window int) kernel.Errno {
	c.Net.Cancel(c.t.rto)
	c.syn = synState{}
	c.establish(window)
	return 0
}

// synState is a SYN_SENT connection's SYN retransmission: when the SYN
// was first sent (retrans_stamp), the timeout now (icsk_rto), the
// retransmissions so far (icsk_retransmits) and what sends the SYN.
type synState struct {
	start       engine.Time
	rto         engine.Duration
	retransmits int
	retransmit  func() bool
}

// synTimer models tcp_retransmit_timer in SYN_SENT. tcp_write_timeout
// gives the connection up with ETIMEDOUT (tcp_write_err) once the time
// since the first SYN reaches tcp_model_timeout of
// net.ipv4.tcp_syn_retries: (2^(N+1) - 1) seconds up to 2^7 - 1, then
// TCP_RTO_MAX more per retry. Otherwise the SYN goes again
// (tcp_retransmit_skb); the timeout stays TCP_TIMEOUT_INIT for the first
// net.ipv4.tcp_syn_linear_timeouts retransmissions and then doubles, up
// to TCP_RTO_MAX. Measured on Linux 6.18 (syn_retries 1, 2, 5, 8): SYNs
// at 0, 1, 2, 3, 4, 5, 7, 11, 19, 35 s; ETIMEDOUT at 3 s for one retry,
// 7 s for two.
func (c *Conn) synTimer() string {
	s := &c.syn
	if c.done || !c.SynWaiting() {
		return "SYN timer fires: the connection is gone"
	}
	if c.Net.Now()-s.start >= engine.Time(synTimeout(c.Sk.Net.TCPSynRetries)) {
		c.syn = synState{}
		c.GiveUp()
		return fmt.Sprintf("SYN timer fires: no answer to the SYN for %d retries, connection aborted (ETIMEDOUT)", c.Sk.Net.TCPSynRetries)
	}
	s.retransmits++
	if n := s.retransmits; s.retransmit() {
		return fmt.Sprintf("SYN timer fires: retransmission %d of the SYN is answered, the handshake completes", n)
	}
	if s.retransmits > c.Sk.Net.TCPSynLinearTimeouts {
		s.rto = min(2*s.rto, rtoMax)
	}
	c.t.rto = c.Net.After(c.Sk, s.rto, "syn", c.synTimer)
	return fmt.Sprintf("SYN timer fires: retransmission %d of the SYN is dropped, next in %v", s.retransmits, s.rto)
}

// synTimeout models tcp_model_timeout for SYN_SENT: boundary
// retransmissions from TCP_TIMEOUT_INIT (tcp_timeout_init).
func synTimeout(boundary int) engine.Duration { return modelTimeout(boundary, timeoutInit) }
