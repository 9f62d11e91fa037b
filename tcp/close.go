package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// Shutdown models tcp_shutdown(SEND_SHUTDOWN), which inet_shutdown calls
// after setting sk_shutdown: in ESTABLISHED or CLOSE_WAIT a FIN is queued
// after the data (once); in any other state nothing happens.
func (c *Conn) Shutdown() {
	if c.Sk.State != sock.ESTABLISHED && c.Sk.State != sock.CLOSE_WAIT || c.shutWr {
		return
	}
	c.shutWr = true
	c.queueFin()
}

// StopListening models tcp_disconnect of a listener, which
// inet_shutdown calls for SHUT_RD and SHUT_RDWR: after
// inet_csk_listen_stop (whose children the caller forgets, Forget),
// sk_shutdown cleared, and the socket TCP_CLOSE again, which connect
// refuses until it listens again (ListenStopped).
func (c *Conn) StopListening() {
	c.Sk.State = sock.CLOSE
	c.Sk.Shutdown = 0
	c.listenStopped = true
}

// Forget models inet_child_forget, which inet_csk_listen_stop runs for
// each child still in the accept queue when its listener is closed or
// shut down with SHUT_RD: tcp_disconnect resets a synchronized
// connection (tcp_need_reset: ESTABLISHED, CLOSE_WAIT, FIN_WAIT1,
// FIN_WAIT2; tcp_send_active_reset) and purges its queues, then the child
// is orphaned and destroyed (inet_csk_destroy_sock), dropping the
// reference accept would have handed to a descriptor. It reports whether
// a reset must be sent to the peer.
func (c *Conn) Forget() (reset bool) {
	c.Sk.Orphan()
	switch c.Sk.State {
	case sock.ESTABLISHED, sock.CLOSE_WAIT, sock.FIN_WAIT1, sock.FIN_WAIT2:
		reset = !c.done
	}
	c.purgeRcv() // tcp_disconnect purges the receive queue, reset before or not
	c.finish()
	c.Sk.Put()
	return reset
}

// queueFin models tcp_close_state and tcp_send_fin: ESTABLISHED becomes
// FIN_WAIT1 and CLOSE_WAIT becomes LAST_ACK; the FIN is tacked on to the
// write queue's unsent tail skb, or else a FIN-only skb goes to its
// tail, sent as the windows allow. Measured on Linux 6.18: a corked
// zerocopy send and then shutdown(SHUT_WR) is one data+FIN segment,
// whose ACK the peer delays (tcp_fin enters pingpong mode).
func (c *Conn) queueFin() {
	switch c.Sk.State {
	case sock.ESTABLISHED:
		c.Sk.State = sock.FIN_WAIT1
	case sock.CLOSE_WAIT:
		c.Sk.State = sock.LAST_ACK
	}
	seg := c.writeTail()
	if seg == nil {
		seg = c.entail(0)
		seg.Push = true
	}
	seg.Fin = true
	c.finQueue = true
	c.pushPending(naglePush)
}

// Close models tcp_close: with unread data the connection is reset and its
// queues are purged at once (tcp_disconnect); otherwise a FIN follows the
// data. Either way the socket is orphaned (SOCK_DEAD) and loses its
// descriptor's reference; the connection keeps its own until everything,
// FIN included, is acknowledged, and its skbs keep their uarg references
// until then, so pages stay pinned but no notification will ever be queued.
// It reports whether a reset must be sent to the peer.
func (c *Conn) Close() (reset bool) {
	c.Sk.Orphan()
	switch {
	case c.done:
		// __tcp_close: the reset or finished socket's unread data, then
		// inet_csk_destroy_sock.
		c.purgeRcv()
		c.killErrQueue()
	case c.SynWaiting(): // tcp_close_state: SYN_SENT becomes TCP_CLOSE, nothing sent
		c.finish()
	case len(c.rcvQueue) > 0 || c.Sk.State == sock.LISTEN || c.Sk.State == sock.CLOSE:
		reset = c.Sk.State != sock.LISTEN && c.Sk.State != sock.CLOSE
		c.finish()
	case !c.shutWr:
		c.shutWr = true
		c.queueFin()
	}
	if !c.done && c.finAcked() {
		c.enterTimeWait()
		c.finish()
	}
	c.Sk.Put()
	return reset
}

// TimeWait reports whether an orphaned connection ended in an orderly
// close, its FIN acknowledged: tcp_time_wait then leaves a time-wait
// socket behind, which still answers the peer's FIN
// (tcp_timewait_state_process). A connection reset or aborted leaves
// none.
func (c *Conn) TimeWait() bool { return c.timeWait }

// enterTimeWait models tcp_time_wait: the time-wait socket takes over,
// its tw_last_oow_ack_time starting unset and its window, tw_rcv_wnd,
// what is left of the window offered last (tcp_receive_window) once the
// ACK due has gone: tcp_fin sends the ACK of a FIN in FIN_WAIT2 first,
// which the model sends after (takeAck records it then).
func (c *Conn) enterTimeWait() {
	c.timeWait = true
	c.lastOowAck.set = false
	c.twWnd = -1
	if c.ack.pending&ackSched == 0 {
		c.twWnd = c.receiveWindow()
	}
}

// TimeWaitWindow is the window the time-wait socket's ACKs offer
// (tcp_v4_timewait_ack, tcp_v6_timewait_ack: tw_rcv_wnd, which the
// sender's window scale then shifts), fixed when it took over: what the
// user reads afterwards does not open it.
func (c *Conn) TimeWaitWindow() int { return max(c.twWnd, 0) }

// TimeWaitAcks models tcp_timewait_state_process in TCP_TIME_WAIT for a
// segment with neither SYN nor RST, from seq to endSeq, reaching the
// time-wait socket: a bare ACK at rcv_nxt is taken (TCP_TW_SUCCESS);
// anything else, a repeated FIN or data, is out of window and answered
// with an ACK of rcv_nxt (TCP_TW_ACK), a segment of no sequence space at
// most once per tcp_invalid_ratelimit (tcp_timewait_check_oow_rate_limit).
func (c *Conn) TimeWaitAcks(seq, endSeq uint32) bool {
	if seq == endSeq {
		return seq != c.rcvNxt && !c.oowRateLimited()
	}
	return true
}

// Reset models tcp_reset, a reset from the peer: the error the next call
// reports (unless the socket is orphaned) is EPIPE in CLOSE_WAIT, where
// the peer had already closed, ECONNREFUSED while connecting, ECONNRESET
// otherwise; then tcp_done.
func (c *Conn) Reset() {
	switch c.Sk.State {
	case sock.CLOSE_WAIT:
		c.abort(kernel.EPIPE)
	case sock.SYN_SENT:
		c.abort(kernel.ECONNREFUSED)
	default:
		c.abort(kernel.ECONNRESET)
	}
}

// GiveUp models tcp_write_err after tcp_retries2 retransmission timeouts:
// the error ETIMEDOUT, then tcp_done.
func (c *Conn) GiveUp() { c.abort(kernel.ETIMEDOUT) }

func (c *Conn) abort(err kernel.Errno) {
	if c.done {
		return
	}
	if !c.Sk.Dead() {
		c.Sk.Err = err
		c.Sk.ErrorReport() // tcp_reset
	}
	c.Sk.Shutdown = sock.ShutdownMask // tcp_done
	c.finish()
}

// finish models tcp_done and inet_csk_destroy_sock: purge the write and
// retransmit queues (tcp_write_queue_purge frees every skb and so drops
// their uarg references) and, on an orphan, the receive queue and, after
// tcp_done, the error queue (sk_stream_kill_queues, killErrQueue) — a
// socket its user holds keeps what it received, to be read before the
// end of the stream or the error (tcp_recvmsg finds queued data first),
// and its error queue —,
// release the page frag, move to TCP_CLOSE and drop the connection's
// socket reference. The descriptor's reference, if not yet closed, keeps
// the socket.
func (c *Conn) finish() {
	if c.done {
		return
	}
	c.done = true
	for _, q := range [][]*Segment{c.write, c.rtx} {
		for _, seg := range q {
			seg.Skb.Free()
		}
	}
	c.write, c.rtx = nil, nil
	if c.Sk.Dead() {
		c.purgeRcv()
	}
	c.pfrag.Release()
	c.Net.Cancel(c.t.rto) // inet_csk_clear_xmit_timers
	c.Net.Cancel(c.t.delack)
	c.Net.Cancel(c.t.probe)
	c.Net.Cancel(c.tlp.timer)
	c.t.backoff = 0
	c.Sk.State = sock.CLOSE
	c.Sk.Note(kernel.Entry{Op: kernel.OpTCPDone})
	if c.Sk.Dead() {
		c.killErrQueue()
	}
	c.Sk.Put()
}

// killErrQueue is sk_stream_kill_queues' purge of the error queue when
// inet_csk_destroy_sock destroys the connection, in kernels that have it
// (Profile.TCPPurgeErrQueue).
func (c *Conn) killErrQueue() {
	if c.Sk.Host().Profile.TCPPurgeErrQueue {
		c.Sk.PurgeErrQueue()
	}
}

// purgeRcv frees the receive queue, returning its charge, and forgets
// the urgent byte (tcp_disconnect: urg_data 0).
func (c *Conn) purgeRcv() {
	for _, r := range c.rcvQueue {
		r.skb.Free()
	}
	c.rcvQueue = nil
	c.urg = urgent{}
}
