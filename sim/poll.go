package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// Poll models poll(2) of one descriptor for events, waiting at most
// timeout while the network runs (do_poll): it returns 1 once the
// socket's poll mask (pollMask) meets events or POLLERR or POLLHUP, and 0
// if the timeout passes or the network goes idle first, with revents
// (Result.Revents, told in the timeline too). A closed descriptor is
// POLLNVAL (1, never a failure). A nil s is an fd of -1 (the descriptor
// of a socket whose creation failed), which do_pollfd skips: revents 0,
// and the call returns 0 once the timeout passed (measured on Linux
// 6.18).
func (w *World) Poll(c Call, s *Socket, events kernel.PollEvents, timeout engine.Duration) Result {
	filter := events | kernel.PollAlways
	ready := func() bool { return s != nil && (s.closed || w.pollMask(s)&filter != 0) }
	deadline := w.Now().Add(min(timeout, endOfTime.Sub(w.Now())))
	for !ready() {
		ev, ok := w.Loop.Peek()
		if !ok || ev.At > deadline || !w.RunNext() {
			break
		}
	}
	if !ready() && timeout > 0 {
		w.Advance(deadline.Sub(w.Now())) // within virtual time: cannot fail
	}
	w.beginOn(s)
	var revents kernel.PollEvents
	switch {
	case s == nil:
	case s.closed:
		revents = kernel.POLLNVAL
	default:
		revents = w.pollMask(s) & filter
	}
	r := ok(0)
	if revents != 0 {
		r = ok(1)
		w.say("revents " + revents.String())
	}
	r.Revents = revents
	w.record(c, "poll", s, r)
	return r
}

// pollMask is the socket's poll method: tcp_poll for TCP, on a listener
// POLLIN|POLLRDNORM while a connection waits in its accept queue
// (inet_csk_listen_poll: a listener whose implicit peer has not
// connected reports nothing, measured on Linux 6.18); for a datagram
// socket datagram_poll's POLLIN|POLLRDNORM with a datagram queued,
// POLLOUT|POLLWRNORM|POLLWRBAND while sock_writeable (sk_wmem_alloc
// below half of sk_sndbuf), POLLERR with sk_err set or the error queue
// non-empty, POLLIN|POLLRDNORM|POLLRDHUP once reading is shut down and
// POLLHUP once both directions are; an AF_UNIX stream or seqpacket socket not connected (the
// model's never are) is POLLHUP too (unix_poll: TCP_CLOSE).
func (w *World) pollMask(s *Socket) kernel.PollEvents {
	if s.tcp != nil {
		if s.Sk.State == sock.LISTEN && s.script != nil && len(s.script.queue) > 0 {
			return kernel.POLLIN | kernel.POLLRDNORM
		}
		return s.tcp.Poll()
	}
	var ev kernel.PollEvents
	if s.dgrm != nil && len(s.dgrm.rx) > 0 {
		ev |= kernel.POLLIN | kernel.POLLRDNORM
	}
	if s.Sk.WmemAlloc < s.Sk.Sndbuf>>1 {
		ev |= kernel.POLLOUT | kernel.POLLWRNORM | kernel.POLLWRBAND
	}
	if s.Sk.Err != 0 || s.Sk.ErrQueue.Len() > 0 {
		ev |= kernel.POLLERR
	}
	// datagram_poll, unix_dgram_poll and unix_poll read the socket's
	// own shutdown.
	if s.Sk.Shutdown&sock.RcvShutdown != 0 {
		ev |= kernel.POLLIN | kernel.POLLRDNORM | kernel.POLLRDHUP
	}
	if s.Sk.Shutdown == sock.ShutdownMask {
		ev |= kernel.POLLHUP
	}
	if s.Sk.Family == kernel.AF_UNIX && s.Sk.Type.Base() != kernel.SOCK_DGRAM && s.Sk.State == sock.CLOSE {
		ev |= kernel.POLLHUP // unix_poll: a connection-based socket in TCP_CLOSE
	}
	return ev
}

// PollMask is what a poll of s, open, would report now without waiting:
// its poll method's events (pollMask).
func (w *World) PollMask(s *Socket) kernel.PollEvents { return w.pollMask(s) }
