package sim

import (
	"strings"

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
	fds := [1]PollFd{{S: s, Events: events}}
	r := w.PollSet(c, fds[:], timeout)
	r.Revents = fds[0].Revents
	return r
}

// PollFd is one struct pollfd of PollSet: the socket (nil for an fd of
// -1), the events asked for and, once the call returned, the events it
// got back.
type PollFd struct {
	S       *Socket
	Events  kernel.PollEvents
	Revents kernel.PollEvents
}

// PollSet models poll(2) of several descriptors, as Poll does one
// (do_poll: every pollfd's do_pollfd, in order): it waits until one of
// them is ready, the timeout passes or the network goes idle, writes
// each pollfd's Revents and returns how many have events. The timeline
// names each ready socket with its events.
func (w *World) PollSet(c Call, fds []PollFd, timeout engine.Duration) Result {
	ready := func() bool {
		for i := range fds {
			if s := fds[i].S; s != nil && (s.closed || w.pollMask(s)&(fds[i].Events|kernel.PollAlways) != 0) {
				return true
			}
		}
		return false
	}
	w.pollWait(ready, timeout)
	var on *Socket
	if len(fds) == 1 {
		on = fds[0].S
	}
	w.beginOn(on)
	n := 0
	var said []string
	for i := range fds {
		fd := &fds[i]
		switch s := fd.S; {
		case s == nil:
			fd.Revents = 0
		case s.closed:
			fd.Revents = kernel.POLLNVAL
		default:
			fd.Revents = w.pollMask(s) & (fd.Events | kernel.PollAlways)
		}
		if fd.Revents == 0 {
			continue
		}
		n++
		if on != nil {
			said = append(said, fd.Revents.String())
		} else {
			said = append(said, fd.S.Name+" "+fd.Revents.String())
		}
	}
	if n > 0 {
		w.say("revents " + strings.Join(said, ", "))
	}
	r := ok(int64(n))
	w.record(c, "poll", on, r)
	return r
}

// pollWait is the sleep of a poll or select (poll_schedule_timeout):
// the network runs until ready holds, the timeout passes or the network
// goes idle; a call still not ready returns once its timeout passed.
func (w *World) pollWait(ready func() bool, timeout engine.Duration) {
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
