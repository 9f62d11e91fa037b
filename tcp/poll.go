package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// epollinReady models tcp_epollin_ready: some data is unread and either
// at least target bytes are (SO_RCVLOWAT), the receive buffer is under
// pressure (tcp_rmem_pressure: sk_rmem_alloc above 7/8 of sk_rcvbuf), or
// what is left of the window offered is at most rcv_mss, so waiting for
// more would starve the sender.
func (c *Conn) epollinReady(target int) bool {
	avail := c.Queued()
	if avail <= 0 {
		return false
	}
	rcvbuf := c.Sk.Rcvbuf
	return avail >= target || c.Sk.RmemAlloc > rcvbuf-rcvbuf>>3 ||
		c.receiveWindow() <= c.rcvMSSNow()
}

// DataReady models tcp_data_ready, the wakeup of a reader blocked in
// tcp_recvmsg (sk_data_ready): it comes only once tcp_epollin_ready holds
// at SO_RCVLOWAT, or the peer's FIN arrived (SOCK_DONE), or the
// connection is gone. Below the low-water mark a sleeping reader stays
// asleep however many segments arrive.
func (c *Conn) DataReady() bool {
	return c.epollinReady(c.Sk.Rcvlowat) || c.rcvFin || c.done || c.Sk.Err != 0
}

// RecvTarget models sock_rcvlowat for a read of n bytes: a blocking read
// returns once min(SO_RCVLOWAT, n) bytes are copied (all n with
// MSG_WAITALL).
func (c *Conn) RecvTarget(n int, flags kernel.MsgFlags) int {
	if flags&kernel.MSG_WAITALL != 0 {
		return max(n, 1)
	}
	return max(min(c.Sk.Rcvlowat, n), 1)
}

// Poll models tcp_poll: the events a poll(2) on the socket would report.
//
//   - A listener: nothing here; inet_csk_listen_poll's POLLIN|POLLRDNORM
//     for a connection waiting in the accept queue is its owner's to add,
//     who keeps that queue.
//   - POLLHUP when both directions are shut down or the socket is
//     closed (not in FIN_WAIT2); POLLIN|POLLRDNORM|POLLRDHUP once reading is shut down, by
//     shutdown(SHUT_RD) or the peer's FIN (tcp_fin sets RCV_SHUTDOWN).
//   - Except while connecting: POLLIN|POLLRDNORM when
//     tcp_stream_is_readable at SO_RCVLOWAT (epollinReady), one byte more
//     for a reader at an urgent byte it would skip, POLLPRI while an
//     urgent byte waits for recv(MSG_OOB) (urgPoll), and
//     POLLOUT|POLLWRNORM when writing is shut down or the write queue is
//     writeable (__sk_stream_is_writeable: free send buffer at least half
//     of what is queued, sk_stream_memory_free); else SOCK_NOSPACE is
//     set, so the ACK that makes room wakes the socket.
//   - POLLERR while sk_err is set or the error queue holds a record.
func (c *Conn) Poll() kernel.PollEvents {
	var ev kernel.PollEvents
	state := c.Sk.State
	if state == sock.LISTEN {
		return 0
	}
	shutdown := c.Sk.Shutdown
	if c.rcvFin {
		shutdown |= sock.RcvShutdown
	}
	if shutdown == sock.ShutdownMask || state == sock.CLOSE {
		ev |= kernel.POLLHUP
	}
	if shutdown&sock.RcvShutdown != 0 {
		ev |= kernel.POLLIN | kernel.POLLRDNORM | kernel.POLLRDHUP
	}
	if state != sock.SYN_SENT {
		urg, extra := c.urgPoll()
		ev |= urg
		if c.epollinReady(c.Sk.Rcvlowat + extra) {
			ev |= kernel.POLLIN | kernel.POLLRDNORM
		}
		if shutdown&sock.SendShutdown != 0 || c.writeable() {
			ev |= kernel.POLLOUT | kernel.POLLWRNORM
		} else {
			c.Sk.NoSpace = true // tcp_poll: the ACK that makes room wakes
		}
	}
	if c.Sk.Err != 0 || c.Sk.ErrQueue.Len() > 0 {
		ev |= kernel.POLLERR
	}
	return ev
}

// writeable models __sk_stream_is_writeable(sk, 1): sk_stream_wspace at
// least sk_stream_min_wspace, sk_wmem_queued below sk_sndbuf, and twice
// the unsent bytes below tcp_notsent_lowat (streamMemoryFree).
func (c *Conn) writeable() bool {
	q := c.Sk.WmemQueued
	return c.Sk.Sndbuf-q >= q>>1 && q < c.Sk.Sndbuf && c.streamMemoryFree(1)
}
