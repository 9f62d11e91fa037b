package sim

import (
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// Epoll is an epoll instance (struct eventpoll, fs/eventpoll.c): the
// sockets it watches (the interest list) and those a wakeup made ready
// and no epoll_wait has reported since (the ready list, rdllist, in the
// order they became ready).
//
// Readiness follows the kernel's two steps. A wakeup of a watched
// socket's wait queue (sock.Sock.Wake: sk_error_report for every
// notification or record queued on the error queue, sk_data_ready,
// sk_write_space, sk_state_change) runs ep_poll_callback, which puts
// the socket on the ready list unless it is there already, its events
// do not include the wakeup's key, or EPOLLONESHOT disabled it. Then
// epoll_wait (ep_send_events) takes the ready list, polls each socket
// (pollMask) and reports the events asked for that the poll mask holds,
// EPOLLERR and EPOLLHUP always; a socket whose poll holds none of them
// is not reported. A level-triggered socket goes back on the ready list
// after it was reported, so the next epoll_wait polls it again; an
// edge-triggered one (EPOLLET) waits for the next wakeup; an
// EPOLLONESHOT one is disabled until EPOLL_CTL_MOD. So under EPOLLET
// any number of zerocopy completions between two waits make one
// EPOLLERR, and each batch after it one more, whether the error queue
// was read or not (measured on Linux 6.18).
type Epoll struct {
	Name string
	FD   int
	// items is the interest list in the order of EPOLL_CTL_ADD.
	items []*epitem
	// rdl is the ready list.
	rdl    []*epitem
	closed bool
}

// epitem is one socket an epoll watches (struct epitem).
type epitem struct {
	ep     *Epoll
	s      *Socket
	events kernel.EpollEvents
	ready  bool
}

// EpollEvent is one event epoll_wait reported: the socket (the data of
// the epoll_event the program registered) and its events.
type EpollEvent struct {
	Socket string
	Events kernel.EpollEvents
}

// EpollCreate models epoll_create1(0): a new instance named name, on the
// lowest free descriptor.
func (w *World) EpollCreate(c Call, name string) (*Epoll, Result) {
	ep := &Epoll{Name: name}
	r := w.syscall(c, "epoll_create", nil, func() Result {
		ep.FD = w.lowestFD(ep)
		return ok(int64(ep.FD))
	})
	return ep, r
}

// CloseEpoll models close(2) of the instance: it watches nothing more.
func (w *World) CloseEpoll(c Call, ep *Epoll) Result {
	return w.syscall(c, "close", nil, func() Result {
		if ep.closed {
			return fail(kernel.EBADF)
		}
		ep.closed = true
		w.freeFD(ep.FD)
		for _, epi := range ep.items {
			epi.s.waiters = slices.DeleteFunc(epi.s.waiters, func(x *epitem) bool { return x == epi })
		}
		ep.items, ep.rdl = nil, nil
		return ok(0)
	})
}

// EpollCtl models epoll_ctl(2) (do_epoll_ctl) of op on socket s with
// events. As Linux 6.18 answers (probed): a closed instance or socket is
// EBADF; EPOLLEXCLUSIVE with EPOLL_CTL_MOD, or with a bit it does not go
// with (EPOLLONESHOT among them), is EINVAL; adding a socket watched
// already is EEXIST; modifying or deleting one not watched ENOENT;
// modifying one added with EPOLLEXCLUSIVE EINVAL. EPOLLERR and EPOLLHUP
// are always added to events, and EPOLLWAKEUP dropped, as for a task
// without CAP_BLOCK_SUSPEND (ep_take_care_of_epollwakeup). ADD and MOD
// poll the socket at once and put it on the ready list if it has an
// event asked for (ep_insert, ep_modify).
func (w *World) EpollCtl(c Call, ep *Epoll, op int, s *Socket, events kernel.EpollEvents) Result {
	return w.syscall(c, "epoll_ctl", s, func() Result {
		if ep.closed || s.Sk.Dead() {
			return fail(kernel.EBADF)
		}
		if events&kernel.EPOLLEXCLUSIVE != 0 && (op == kernel.EPOLL_CTL_MOD || op == kernel.EPOLL_CTL_ADD && events&^kernel.EpollExclusiveOK != 0) {
			return fail(kernel.EINVAL)
		}
		events = events&^kernel.EPOLLWAKEUP | kernel.EPOLLERR | kernel.EPOLLHUP
		i := slices.IndexFunc(ep.items, func(epi *epitem) bool { return epi.s == s })
		switch {
		case op == kernel.EPOLL_CTL_ADD && i >= 0:
			return fail(kernel.EEXIST)
		case op == kernel.EPOLL_CTL_ADD:
			epi := &epitem{ep: ep, s: s, events: events}
			ep.items = append(ep.items, epi)
			s.waiters = append(s.waiters, epi)
			w.epollPollNow(epi)
		case op != kernel.EPOLL_CTL_DEL && op != kernel.EPOLL_CTL_MOD:
			return fail(kernel.EINVAL)
		case i < 0:
			return fail(kernel.ENOENT)
		case op == kernel.EPOLL_CTL_DEL:
			w.epollRemove(ep.items[i])
		case ep.items[i].events&kernel.EPOLLEXCLUSIVE != 0:
			return fail(kernel.EINVAL)
		default:
			ep.items[i].events = events
			w.epollPollNow(ep.items[i])
		}
		return ok(0)
	})
}

// epollPollNow puts epi on the ready list if its socket has an event it
// asks for (the poll ep_insert and ep_modify make).
func (w *World) epollPollNow(epi *epitem) {
	if w.epollRevents(epi) != 0 && !epi.ready {
		epi.ready = true
		epi.ep.rdl = append(epi.ep.rdl, epi)
	}
}

// epollRevents is what epi's socket reports of the events it asks for.
func (w *World) epollRevents(epi *epitem) kernel.EpollEvents {
	return kernel.EpollEvents(w.pollMask(epi.s)) & epi.events &^ kernel.EpollPrivateBits
}

// epollRemove takes epi off its instance's lists and its socket's wait
// queue (ep_remove).
func (w *World) epollRemove(epi *epitem) {
	ep := epi.ep
	ep.items = slices.DeleteFunc(ep.items, func(x *epitem) bool { return x == epi })
	ep.rdl = slices.DeleteFunc(ep.rdl, func(x *epitem) bool { return x == epi })
	epi.s.waiters = slices.DeleteFunc(epi.s.waiters, func(x *epitem) bool { return x == epi })
}

// epollForget drops a closed socket from every instance watching it
// (eventpoll_release).
func (w *World) epollForget(s *Socket) {
	for len(s.waiters) > 0 {
		w.epollRemove(s.waiters[0])
	}
}

// epollWake is the socket's wait queue: ep_poll_callback for each
// instance watching it, with the wakeup's key (0 wakes every one).
func (w *World) epollWake(s *Socket, key kernel.PollEvents) {
	for _, epi := range s.waiters {
		switch {
		case epi.events&^kernel.EpollPrivateBits == 0: // EPOLLONESHOT, disabled
		case key != 0 && kernel.EpollEvents(key)&epi.events == 0:
		case !epi.ready:
			epi.ready = true
			epi.ep.rdl = append(epi.ep.rdl, epi)
		}
	}
}

// EpollWait models epoll_wait(2) of at most maxevents events, waiting at
// most timeout while the network runs (ep_poll), for ever with a
// negative timeout: it returns the number of events, each in
// Result.Epoll; 0 when the timeout passed first. The call takes whole
// milliseconds (its int timeout), so timeout is cut to them: a 120µs
// one does not wait (ep_poll with a zero timeout), as the live prober's
// epoll_wait passes it. A wait for ever that nothing left in the network
// can end blocks forever (Result.Blocked). maxevents below 1 is EINVAL,
// a closed instance EBADF.
func (w *World) EpollWait(c Call, ep *Epoll, maxevents int, timeout engine.Duration) Result {
	forever := timeout < 0
	timeout -= timeout % engine.Millisecond
	deadline := w.Now()
	if !forever {
		deadline = w.Now().Add(min(timeout, endOfTime.Sub(w.Now())))
	}
	valid := maxevents > 0 && !ep.closed
	for valid && len(ep.rdl) == 0 {
		ev, ok := w.Loop.Peek()
		if !ok || !forever && ev.At > deadline || !w.RunNext() {
			break
		}
	}
	if valid && len(ep.rdl) == 0 && !forever && timeout > 0 {
		w.Advance(deadline.Sub(w.Now())) // within virtual time: cannot fail
	}
	return w.syscall(c, "epoll_wait", nil, func() Result {
		switch {
		case ep.closed:
			return fail(kernel.EBADF)
		case maxevents < 1:
			return fail(kernel.EINVAL)
		}
		evs := w.epollSend(ep, maxevents)
		r := ok(int64(len(evs)))
		if len(evs) == 0 && forever {
			r.Blocked = true
		}
		r.Epoll = evs
		return r
	})
}

// EpollText renders events as the scenario language writes them: "[s
// EPOLLERR|EPOLLOUT, t EPOLLIN]".
func EpollText(evs []EpollEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = e.Socket + " " + e.Events.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// epollSend models ep_send_events: the ready list is taken whole and
// each socket on it polled; those with events are reported, up to
// maxevents. A level-triggered one is put back at the tail, an
// EPOLLONESHOT one disabled; what was not reached stays at the head.
func (w *World) epollSend(ep *Epoll, maxevents int) []EpollEvent {
	tx := ep.rdl
	ep.rdl = nil
	var out []EpollEvent
	var again []*epitem
	i := 0
	for ; i < len(tx) && len(out) < maxevents; i++ {
		epi := tx[i]
		epi.ready = false
		revents := w.epollRevents(epi)
		if revents == 0 {
			continue
		}
		out = append(out, EpollEvent{Socket: epi.s.Name, Events: revents})
		switch {
		case epi.events&kernel.EPOLLONESHOT != 0:
			epi.events &= kernel.EpollPrivateBits
		case epi.events&kernel.EPOLLET == 0:
			epi.ready = true
			again = append(again, epi)
		}
	}
	ep.rdl = append(append(tx[i:len(tx):len(tx)], ep.rdl...), again...)
	return out
}

// Fcntl models fcntl(2) F_GETFL and F_SETFL on a socket (setfl,
// sock_fcntl): F_GETFL returns the status flags, O_RDWR and O_NONBLOCK
// when set; F_SETFL sets or clears O_NONBLOCK (the access mode cannot
// change), which every later call sees as a SOCK_NONBLOCK socket's.
func (w *World) Fcntl(c Call, s *Socket, set, nonblock bool) Result {
	return w.syscall(c, "fcntl", s, func() Result {
		if !set {
			return ok(int64(oRDWR | s.Sk.Type&kernel.SOCK_NONBLOCK))
		}
		s.Sk.Type &^= kernel.SOCK_NONBLOCK
		if nonblock {
			s.Sk.Type |= kernel.SOCK_NONBLOCK
		}
		return ok(0)
	})
}

// oRDWR is O_RDWR, the access mode of every socket's file.
const oRDWR = 2
