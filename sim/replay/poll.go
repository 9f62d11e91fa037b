package replay

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// eventSet maps the event names strace printed to the union of their
// values in tab; ok is false for a name the model does not know.
func eventSet[T ~uint16 | ~uint32](tab kernel.Symbols[T], names []string) (T, bool) {
	var ev T
	for _, n := range names {
		v, ok := symbol(tab, n, "")
		if !ok {
			return 0, false
		}
		ev |= v
	}
	return ev, true
}

// polled is one followed socket a poll asked about: its descriptor and
// model socket, the events asked for (with POLLERR and POLLHUP, which
// do_pollfd always reports: filter), those the kernel returned and
// those the model's poll did (got).
type polled struct {
	fd      int
	s       *sim.Socket
	events  kernel.PollEvents
	filter  kernel.PollEvents
	revents kernel.PollEvents
	got     kernel.PollEvents
}

// pollNow is what the model's socket reports of p's events without waiting.
func (r *replayer) pollNow(p *polled) kernel.PollEvents { return r.w.PollMask(p.s) & p.filter }

// poll replays poll(2) or ppoll(2) of followed sockets, guided by what
// the log observed (do_poll: each socket's poll method, filtered by the
// events asked for plus POLLERR and POLLHUP). Whether a socket is
// readable, writable or has an error queued depends on work the log does
// not show (the peer's data, FIN and ACKs, the completions of zerocopy
// sends), so:
//
//   - revents the model has too, on every socket: agree.
//   - a poll the log shows waiting for what the model has not got yet
//     (a timeout, nothing ready in the model) waits in the model too,
//     while its network runs; the time it waited is taken off the next
//     gaps.
//   - events the model has that the kernel did not report: that work had
//     not happened yet in the kernel; the poll changes nothing.
//   - events the kernel reported that the model lacks: the model's
//     pending work runs ahead (runAhead) until it has them all; when it
//     cannot, no schedule explains the log.
//
// Of a poll of several descriptors, those that are not followed sockets
// (a pipe, an eventfd) are not compared, and what the kernel reported
// of them is left out of the observed result; a poll of none is ignored.
func (r *replayer) poll(o *strace.Poll) {
	ps, ok := r.polledSockets(o)
	if !ok {
		return
	}
	n, ok := o.Result.Ret()
	if !ok {
		r.ignore(o.Syscall, "events not modelled")
		return
	}
	text, several := pollText(o, ps), len(o.Fds) > 1
	obs := o.Result.String()
	if n > 0 || several {
		obs = pollResult(ps, several, func(p *polled) kernel.PollEvents { return p.revents })
	}
	r.between(&o.Header)
	var anyMissing, anyExtra, anyNow bool
	for i := range ps {
		now := r.pollNow(&ps[i])
		anyMissing = anyMissing || ps[i].revents&^now != 0
		anyExtra = anyExtra || now&^ps[i].revents != 0
		anyNow = anyNow || now != 0
	}
	first := &ps[0]
	switch {
	case !anyMissing && !anyExtra:
		// A poll that timed out in the kernel with nothing ready in the
		// model too waits in the next gaps, not here, so that the
		// model's pending work does not run past what the kernel saw.
		r.modelPoll(o, ps, text, obs, 0)
	case !anyMissing:
		extra := func(p *polled) kernel.PollEvents { return r.pollNow(p) &^ p.revents }
		r.assumeOn(&o.Header, first.fd, first.s.Name, text, obs, obs,
			fmt.Sprintf("what makes the model report %s had not happened yet in the kernel", eventsText(ps, several, extra, true)))
	case o.TimeoutNs != 0 && !anyNow:
		// Nothing ready yet: the poll waits, in the model as in the
		// kernel, until something is.
		r.modelPoll(o, ps, text, obs, timeoutOf(o.TimeoutNs))
	default:
		missing := func(p *polled) kernel.PollEvents { return p.revents &^ r.pollNow(p) }
		lacked := eventsText(ps, several, missing, false)
		ahead, done := r.runAhead(func() bool {
			for i := range ps {
				if r.pollNow(&ps[i])&ps[i].revents != ps[i].revents {
					return false
				}
			}
			return true
		})
		if !done {
			r.compare(&o.Header, first.fd, first.s.Name, text, obs, pollResult(ps, several, r.pollNow),
				fmt.Sprintf("no schedule: the model's pending work never makes %s", reportWhat(several, lacked)))
			return
		}
		assumed := fmt.Sprintf("the network ran %v ahead of the model's clock: what makes %s had already happened", ahead, reportWhat(several, lacked))
		extra := func(p *polled) kernel.PollEvents { return r.pollNow(p) &^ p.revents }
		if eventsText(ps, several, extra, true) != "" {
			assumed += fmt.Sprintf(", and what makes the model report %s had not", eventsText(ps, several, extra, true))
		}
		r.assumeOn(&o.Header, first.fd, first.s.Name, text, obs, obs, assumed)
	}
}

// polledSockets returns the followed sockets poll o asked about, with
// their events; false (the call counted ignored) when it asked about
// none, or about events the model does not know.
func (r *replayer) polledSockets(o *strace.Poll) ([]polled, bool) {
	var ps []polled
	for _, pfd := range o.Fds {
		var e *fdEntry
		if len(o.Fds) == 1 {
			e = r.sock(&o.Header, pfd.Fd, false)
		} else if e = r.fds[pfd.Fd]; e != nil && e.s == nil {
			e = nil
		}
		if e == nil {
			continue
		}
		events, ok1 := eventSet(kernel.PollEventNames, pfd.Events)
		revents, ok2 := eventSet(kernel.PollEventNames, pfd.Revents)
		if !ok1 || !ok2 {
			r.ignore(o.Syscall, "events not modelled")
			return nil, false
		}
		ps = append(ps, polled{fd: pfd.Fd, s: e.s, events: events, filter: events | kernel.PollAlways, revents: revents})
	}
	if len(ps) == 0 && len(o.Fds) > 1 {
		r.ignore(o.Syscall, "no socket the replay follows")
	}
	return ps, len(ps) > 0
}

// pollText is the call as the report shows it: "poll(4, POLLOUT, 500ms)"
// for one descriptor, "poll([4 POLLOUT, 5 POLLIN], 500ms)" for several
// (the followed ones), with how many others it asked about.
func pollText(o *strace.Poll, ps []polled) string {
	if len(o.Fds) == 1 {
		return fmt.Sprintf("%s(%d, %v, %s)", o.Syscall, ps[0].fd, ps[0].events, timeoutText(o.TimeoutNs))
	}
	fds := make([]string, len(ps))
	for i := range ps {
		fds[i] = fmt.Sprintf("%d %v", ps[i].fd, ps[i].events)
	}
	others := ""
	if k := len(o.Fds) - len(ps); k > 0 {
		others = fmt.Sprintf(" and %d not followed", k)
	}
	return fmt.Sprintf("%s([%s]%s, %s)", o.Syscall, strings.Join(fds, ", "), others, timeoutText(o.TimeoutNs))
}

// pollResult renders a poll's outcome as the report compares it, each
// socket's events as rev gives them: "0", "1 POLLOUT|POLLERR" for one
// descriptor, "2 [4 POLLOUT, 5 POLLIN]" for several (the ready
// followed ones).
func pollResult(ps []polled, several bool, rev func(*polled) kernel.PollEvents) string {
	if !several {
		if ev := rev(&ps[0]); ev != 0 {
			return "1 " + ev.String()
		}
		return "0"
	}
	var ready []string
	for i := range ps {
		if ev := rev(&ps[i]); ev != 0 {
			ready = append(ready, fmt.Sprintf("%d %v", ps[i].fd, ev))
		}
	}
	if len(ready) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d [%s]", len(ready), strings.Join(ready, ", "))
}

// eventsText names the events pick gives of each socket, with the work
// behind them when why: "POLLERR (a completion or error queued)" for
// one descriptor, "POLLERR on fd 4 (…), POLLIN on fd 5 (…)" for several;
// "" when there are none.
func eventsText(ps []polled, several bool, pick func(*polled) kernel.PollEvents, why bool) string {
	var parts []string
	for i := range ps {
		ev := pick(&ps[i])
		if ev == 0 {
			continue
		}
		t := ev.String()
		if several {
			t += fmt.Sprintf(" on fd %d", ps[i].fd)
		}
		if why {
			t += " (" + pollWhy(ev) + ")"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, ", ")
}

// reportWhat says which socket is to report events: "the socket report
// POLLIN" for one, "the sockets report POLLIN on fd 5" for several.
func reportWhat(several bool, events string) string {
	if !several {
		return "the socket report " + events
	}
	return "the sockets report " + events
}

// modelPoll runs the poll on the model, waiting at most wait, and compares
// it; the virtual time it waited is taken off the next gaps.
func (r *replayer) modelPoll(o *strace.Poll, ps []polled, text, obs string, wait engine.Duration) {
	fds := make([]sim.PollFd, len(ps))
	for i := range ps {
		fds[i] = sim.PollFd{S: ps[i].s, Events: ps[i].events}
	}
	start := r.w.Now()
	r.w.PollSet(r.call(&o.Header, text), fds, wait)
	r.ahead += r.w.Now().Sub(start)
	for i := range ps {
		ps[i].got = fds[i].Revents
	}
	pred := pollResult(ps, len(o.Fds) > 1, func(p *polled) kernel.PollEvents { return p.got })
	r.compare(&o.Header, ps[0].fd, ps[0].s.Name, text, obs, pred, "")
}

// pollWhy names the work behind poll events.
func pollWhy(ev kernel.PollEvents) string {
	var w []string
	if ev&kernel.POLLERR != 0 {
		w = append(w, "a completion or error queued")
	}
	if ev&(kernel.POLLIN|kernel.POLLRDNORM) != 0 {
		w = append(w, "data arrived")
	}
	if ev&(kernel.POLLOUT|kernel.POLLWRNORM|kernel.POLLWRBAND) != 0 {
		w = append(w, "ACKs freed send-buffer space")
	}
	if ev&(kernel.POLLHUP|kernel.POLLRDHUP) != 0 {
		w = append(w, "the peer's FIN or reset")
	}
	return strings.Join(w, ", ")
}

// timeoutOf converts a poll timeout to model time; -1 (none) waits as
// long as the network has work.
func timeoutOf(ns int64) engine.Duration {
	if ns < 0 {
		return engine.Duration(1<<62 - 1)
	}
	return engine.Duration(ns)
}

// timeoutText renders a poll timeout for the report.
func timeoutText(ns int64) string {
	if ns < 0 {
		return "-1"
	}
	return engine.Duration(ns).String()
}
