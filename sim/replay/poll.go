package replay

import (
	"fmt"
	"math/bits"
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

// polled is one followed socket a poll or select asked about: its
// descriptor and model socket; for a poll the events asked for, for a
// select the sets it is in; and what the kernel returned (revents) and
// the model's call did (got): a poll's events, or the sets a select left
// it in, each set as its readiness event (selectEvent).
type polled struct {
	fd      int
	s       *sim.Socket
	events  kernel.PollEvents
	sets    kernel.SelectSets
	revents kernel.PollEvents
	got     kernel.PollEvents
}

// pollCall is a poll, ppoll, select or pselect6 as the guide compares it:
// the followed sockets it asked about (ps), how many descriptors it asked
// about in all (nfds), its timeout (-1 for none), and whether it is a
// select, whose readiness is set membership.
type pollCall struct {
	h         *strace.Header
	ps        []polled
	nfds      int
	timeoutNs int64
	sel       bool
}

// several reports whether the report names each socket by its fd: a
// poll of several descriptors, and every select.
func (pc *pollCall) several() bool { return pc.sel || pc.nfds > 1 }

// selectEvent stands for each of a select's sets in polled's revents and
// got: readfds as POLLIN, writefds as POLLOUT, exceptfds as POLLPRI.
var selectEvent = [...]struct {
	set kernel.SelectSets
	ev  kernel.PollEvents
}{{kernel.SelectIn, kernel.POLLIN}, {kernel.SelectOut, kernel.POLLOUT}, {kernel.SelectEx, kernel.POLLPRI}}

// selectEvents is sets as selectEvent stands for them.
func selectEvents(sets kernel.SelectSets) kernel.PollEvents {
	var ev kernel.PollEvents
	for _, se := range selectEvent {
		if sets&se.set != 0 {
			ev |= se.ev
		}
	}
	return ev
}

// selectSets is the sets ev stands for (selectEvent).
func selectSets(ev kernel.PollEvents) kernel.SelectSets {
	var sets kernel.SelectSets
	for _, se := range selectEvent {
		if ev&se.ev != 0 {
			sets |= se.set
		}
	}
	return sets
}

// pollNow is what the model's socket reports of what p asked without
// waiting: a poll's events, filtered by those asked for plus POLLERR and
// POLLHUP, which do_pollfd always reports, or the sets a select would leave it
// in (kernel.SelectReady).
func (r *replayer) pollNow(pc *pollCall, p *polled) kernel.PollEvents {
	if pc.sel {
		return selectEvents(kernel.SelectReady(r.w.PollMask(p.s), p.sets))
	}
	return r.w.PollMask(p.s) & (p.events | kernel.PollAlways)
}

// readiness renders what a socket reported: a poll's events
// ("POLLOUT|POLLERR"), a select's sets ("in|out").
func (pc *pollCall) readiness(ev kernel.PollEvents) string {
	if pc.sel {
		return selectSets(ev).String()
	}
	return ev.String()
}

// asked renders what p asked about, as readiness does what it got.
func (pc *pollCall) asked(p *polled) string {
	if pc.sel {
		return p.sets.String()
	}
	return p.events.String()
}

// why names the work behind ev, what the model's socket of p reports:
// for a select, the events of its poll mask that leave it in those sets.
func (r *replayer) why(pc *pollCall, p *polled, ev kernel.PollEvents) string {
	if pc.sel {
		ev = selectSets(ev).Events() & r.w.PollMask(p.s)
	}
	return pollWhy(ev)
}

// poll replays poll(2) or ppoll(2) of followed sockets (do_poll: each
// socket's poll method, filtered by the events asked for plus POLLERR
// and POLLHUP), guided by what the log observed (guidePoll). Events the
// model does not know make the call ignored.
func (r *replayer) poll(o *strace.Poll) {
	if pc, ok := r.polledSockets(o); ok {
		r.guidePoll(pc)
	}
}

// guidePoll replays a call of the poll family, guided by what the log
// observed. Whether a socket is readable, writable or has an error
// queued depends on work the log does not show (the peer's data, FIN
// and ACKs, the completions of zerocopy sends), so:
//
//   - what the kernel reported the model has too, on every socket: agree.
//   - a call the log shows waiting for what the model has not got yet
//     (a timeout, nothing ready in the model) waits in the model too,
//     while its network runs; the time it waited is taken off the next
//     gaps.
//   - what the model has that the kernel did not report: that work had
//     not happened yet in the kernel; the call changes nothing.
//   - what the kernel reported that the model lacks: the model's pending
//     work runs ahead (runAhead) until it has it all; when it cannot, no
//     schedule explains the log.
//
// Of a call of several descriptors, those that are not followed sockets
// (a pipe, an eventfd) are not compared, and what the kernel reported
// of them is left out of the observed result; a call of none is ignored.
func (r *replayer) guidePoll(pc *pollCall) {
	o, ps := pc.h, pc.ps
	n, ok := o.Result.Ret()
	if !ok {
		r.ignore(o.Syscall, "events not modelled")
		return
	}
	text := pollText(pc)
	obs := o.Result.String()
	if n > 0 || pc.several() {
		obs = pollResult(pc, func(p *polled) kernel.PollEvents { return p.revents })
	}
	r.between(o)
	now := func(p *polled) kernel.PollEvents { return r.pollNow(pc, p) }
	var anyMissing, anyExtra, anyNow bool
	for i := range ps {
		has := now(&ps[i])
		anyMissing = anyMissing || ps[i].revents&^has != 0
		anyExtra = anyExtra || has&^ps[i].revents != 0
		anyNow = anyNow || has != 0
	}
	first := &ps[0]
	extra := func(p *polled) kernel.PollEvents { return now(p) &^ p.revents }
	switch {
	case !anyMissing && !anyExtra:
		// A call that timed out in the kernel with nothing ready in the
		// model too waits in the next gaps, not here, so that the
		// model's pending work does not run past what the kernel saw.
		r.modelPoll(pc, text, obs, 0)
	case !anyMissing:
		r.assumeOn(o, first.fd, first.s.Name, text, obs, obs,
			fmt.Sprintf("what makes the model report %s had not happened yet in the kernel", r.eventsText(pc, extra, true)))
	case pc.timeoutNs != 0 && !anyNow:
		// Nothing ready yet: the call waits, in the model as in the
		// kernel, until something is.
		r.modelPoll(pc, text, obs, timeoutOf(pc.timeoutNs))
	default:
		missing := func(p *polled) kernel.PollEvents { return p.revents &^ now(p) }
		lacked := r.eventsText(pc, missing, false)
		ahead, done := r.runAhead(func() bool { return r.pollHas(pc) })
		if !done {
			r.compare(o, first.fd, first.s.Name, text, obs, pollResult(pc, now),
				fmt.Sprintf("no schedule: the model's pending work never makes %s", reportWhat(pc.several(), lacked)))
			return
		}
		assumed := fmt.Sprintf("the network ran %v ahead of the model's clock: what makes %s had already happened", ahead, reportWhat(pc.several(), lacked))
		if t := r.eventsText(pc, extra, true); t != "" {
			assumed += fmt.Sprintf(", and what makes the model report %s had not", t)
		}
		r.assumeOn(o, first.fd, first.s.Name, text, obs, obs, assumed)
	}
}

// polledSockets is the pollCall of poll o on the followed sockets it
// asked about; false (the call counted ignored) when it asked about none,
// or about events the model does not know.
func (r *replayer) polledSockets(o *strace.Poll) (*pollCall, bool) {
	if len(o.Fds) == 1 && r.sock(&o.Header, o.Fds[0].Fd, false) == nil {
		return nil, false
	}
	pc, ok := pollOf(r.fds, o)
	switch {
	case !ok:
		r.ignore(o.Syscall, "events not modelled")
		return nil, false
	case len(pc.ps) == 0:
		r.ignore(o.Syscall, "no socket the replay follows")
	}
	return pc, len(pc.ps) > 0
}

// pollOf is the pollCall of poll o on the followed sockets of fds, with
// their events; false when it asked one of them about events the model
// does not know.
func pollOf(fds map[int]*fdEntry, o *strace.Poll) (*pollCall, bool) {
	pc := &pollCall{h: &o.Header, nfds: len(o.Fds), timeoutNs: o.TimeoutNs}
	for _, pfd := range o.Fds {
		e := fds[pfd.Fd]
		if e == nil || e.s == nil {
			continue
		}
		events, ok1 := eventSet(kernel.PollEventNames, pfd.Events)
		revents, ok2 := eventSet(kernel.PollEventNames, pfd.Revents)
		if !ok1 || !ok2 {
			return nil, false
		}
		pc.ps = append(pc.ps, polled{fd: pfd.Fd, s: e.s, events: events, revents: revents})
	}
	return pc, true
}

// pollHas reports whether the model's sockets have now all that the
// kernel reported of them.
func (r *replayer) pollHas(pc *pollCall) bool {
	for i := range pc.ps {
		if p := &pc.ps[i]; r.pollNow(pc, p)&p.revents != p.revents {
			return false
		}
	}
	return true
}

// pollText is the call as the report shows it: "poll(4, POLLOUT, 500ms)"
// for one descriptor, "poll([4 POLLOUT, 5 POLLIN], 500ms)" for several
// (the followed ones), with how many others it asked about;
// "select([4 out|except, 5 in], 100ms)" for a select.
func pollText(pc *pollCall) string {
	ps := pc.ps
	if !pc.several() {
		return fmt.Sprintf("%s(%d, %v, %s)", pc.h.Syscall, ps[0].fd, ps[0].events, timeoutText(pc.timeoutNs))
	}
	fds := make([]string, len(ps))
	for i := range ps {
		fds[i] = fmt.Sprintf("%d %s", ps[i].fd, pc.asked(&ps[i]))
	}
	others := ""
	if k := pc.nfds - len(ps); k > 0 {
		others = fmt.Sprintf(" and %d not followed", k)
	}
	return fmt.Sprintf("%s([%s]%s, %s)", pc.h.Syscall, strings.Join(fds, ", "), others, timeoutText(pc.timeoutNs))
}

// pollResult renders a call's outcome as the report compares it, each
// socket's readiness as rev gives it: "0", "1 POLLOUT|POLLERR" for one
// descriptor, "2 [4 POLLOUT, 5 POLLIN]" for several (the ready
// followed ones, counted); a select counts set memberships, as it
// returns them: "3 [4 in|out, 5 in]".
func pollResult(pc *pollCall, rev func(*polled) kernel.PollEvents) string {
	ps := pc.ps
	if !pc.several() {
		if ev := rev(&ps[0]); ev != 0 {
			return "1 " + ev.String()
		}
		return "0"
	}
	var ready []string
	n := 0
	for i := range ps {
		ev := rev(&ps[i])
		if ev == 0 {
			continue
		}
		ready = append(ready, fmt.Sprintf("%d %s", ps[i].fd, pc.readiness(ev)))
		if pc.sel {
			n += bits.OnesCount16(uint16(ev))
		} else {
			n++
		}
	}
	if len(ready) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d [%s]", n, strings.Join(ready, ", "))
}

// eventsText names what pick gives of each socket, with the work behind
// it when why (then it is what the model's socket reports): "POLLERR (a
// completion or error queued)" for one descriptor, "POLLERR on fd 4 (…),
// POLLIN on fd 5 (…)" for several, "out on fd 4 (…)" for a select; ""
// when there is nothing.
func (r *replayer) eventsText(pc *pollCall, pick func(*polled) kernel.PollEvents, why bool) string {
	var parts []string
	for i := range pc.ps {
		p := &pc.ps[i]
		ev := pick(p)
		if ev == 0 {
			continue
		}
		t := pc.readiness(ev)
		if pc.several() {
			t += fmt.Sprintf(" on fd %d", p.fd)
		}
		if why {
			t += " (" + r.why(pc, p, ev) + ")"
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

// modelPoll runs the call on the model (World.PollSet, World.Select),
// waiting at most wait, and compares it; the virtual time it waited is
// taken off the next gaps.
func (r *replayer) modelPoll(pc *pollCall, text, obs string, wait engine.Duration) {
	ps := pc.ps
	start := r.w.Now()
	c := r.call(pc.h, text)
	if pc.sel {
		fds := make([]sim.SelectFd, len(ps))
		for i := range ps {
			fds[i] = sim.SelectFd{S: ps[i].s, Sets: ps[i].sets}
		}
		r.w.Select(c, fds, wait)
		for i := range ps {
			ps[i].got = selectEvents(fds[i].Ready)
		}
	} else {
		fds := make([]sim.PollFd, len(ps))
		for i := range ps {
			fds[i] = sim.PollFd{S: ps[i].s, Events: ps[i].events}
		}
		r.w.PollSet(c, fds, wait)
		for i := range ps {
			ps[i].got = fds[i].Revents
		}
	}
	r.ahead += r.w.Now().Sub(start)
	pred := pollResult(pc, func(p *polled) kernel.PollEvents { return p.got })
	r.compare(pc.h, ps[0].fd, ps[0].s.Name, text, obs, pred, "")
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
