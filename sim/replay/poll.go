package replay

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
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

// pollResult renders a poll's outcome as the report compares it: "0",
// or "1 POLLOUT|POLLERR".
func pollResult(revents kernel.PollEvents) string {
	if revents == 0 {
		return "0"
	}
	return "1 " + revents.String()
}

// poll replays poll(2) or ppoll(2) of one followed socket, guided by what
// the log observed (do_poll: the socket's poll method, filtered by the
// events asked for plus POLLERR and POLLHUP). Whether a socket is
// readable, writable or has an error queued depends on work the log does
// not show (the peer's data, FIN and ACKs, the completions of zerocopy
// sends), so:
//
//   - revents the model has too: agree.
//   - a poll the log shows waiting for what the model has not got yet
//     (a timeout, nothing ready in the model) waits in the model too,
//     while its network runs; the time it waited is taken off the next
//     gaps.
//   - events the model has that the kernel did not report: that work had
//     not happened yet in the kernel; the poll changes nothing.
//   - events the kernel reported that the model lacks: the model's
//     pending work runs ahead (runAhead) until it has them; when it
//     cannot, no schedule explains the log.
//
// A poll of several descriptors is ignored.
func (r *replayer) poll(o *strace.Poll) {
	if len(o.Fds) != 1 {
		r.ignore(o.Syscall, "several descriptors")
		return
	}
	pfd := o.Fds[0]
	e := r.sock(&o.Header, pfd.Fd, false)
	if e == nil {
		return
	}
	events, ok1 := eventSet(kernel.PollEventNames, pfd.Events)
	revents, ok2 := eventSet(kernel.PollEventNames, pfd.Revents)
	n, ok3 := o.Result.Ret()
	if !ok1 || !ok2 || !ok3 {
		r.ignore(o.Syscall, "events not modelled")
		return
	}
	text := fmt.Sprintf("%s(%d, %v, %s)", o.Syscall, pfd.Fd, events, timeoutText(o.TimeoutNs))
	obs := o.Result.String()
	if n > 0 {
		obs = pollResult(revents)
	}
	r.between(&o.Header)
	filter := events | kernel.PollAlways
	now := r.w.PollMask(e.s) & filter
	switch missing, extra := revents&^now, now&^revents; {
	case missing == 0 && extra == 0:
		// A poll that timed out in the kernel with nothing ready in the
		// model too waits in the next gaps, not here, so that the
		// model's pending work does not run past what the kernel saw.
		r.modelPoll(o, e, text, obs, events, 0)
	case missing == 0:
		r.assumeOn(&o.Header, pfd.Fd, e.s.Name, text, obs, obs,
			fmt.Sprintf("what makes the model report %v (%s) had not happened yet in the kernel", extra, pollWhy(extra)))
	case o.TimeoutNs != 0 && now == 0:
		// Nothing ready yet: the poll waits, in the model as in the
		// kernel, until something is.
		r.modelPoll(o, e, text, obs, events, timeoutOf(o.TimeoutNs))
	default:
		ahead, done := r.runAhead(func() bool { return r.w.PollMask(e.s)&filter&revents == revents })
		if !done {
			r.compare(&o.Header, pfd.Fd, e.s.Name, text, obs, pollResult(r.w.PollMask(e.s)&filter),
				fmt.Sprintf("no schedule: the model's pending work never makes the socket report %v", missing))
			return
		}
		assumed := fmt.Sprintf("the network ran %v ahead of the model's clock: what makes the socket report %v had already happened", ahead, missing)
		if extra := r.w.PollMask(e.s) & filter &^ revents; extra != 0 {
			assumed += fmt.Sprintf(", and what makes the model report %v (%s) had not", extra, pollWhy(extra))
		}
		r.assumeOn(&o.Header, pfd.Fd, e.s.Name, text, obs, obs, assumed)
	}
}

// modelPoll runs the poll on the model, waiting at most wait, and compares
// it; the virtual time it waited is taken off the next gaps.
func (r *replayer) modelPoll(o *strace.Poll, e *fdEntry, text, obs string, events kernel.PollEvents, wait engine.Duration) {
	start := r.w.Now()
	res := r.w.Poll(r.call(&o.Header, text), e.s, events, wait)
	r.ahead += r.w.Now().Sub(start)
	r.compare(&o.Header, o.Fds[0].Fd, e.s.Name, text, obs, pollResult(res.Revents), "")
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
