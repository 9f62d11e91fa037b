package strace

import "strings"

// Poll is poll(fds, nfds, timeout) or ppoll(fds, nfds, tmo_p, sigmask,
// sigsetsize): each descriptor asked about with its events and, from the
// result's trailing "([{fd=3, revents=POLLIN}])", the events it got back
// (none for a descriptor strace does not list: it was not ready).
// TimeoutNs is the timeout in nanoseconds, -1 for none (a negative poll
// timeout, a NULL ppoll timespec).
type Poll struct {
	Header
	Fds       []PollFd `json:"fds"`
	TimeoutNs int64    `json:"timeout_ns"`
}

// PollFd is one struct pollfd.
type PollFd struct {
	Fd      int      `json:"fd"`
	Events  []string `json:"events,omitempty"`
	Revents []string `json:"revents,omitempty"`
}

func decodePoll(h Header, a []Value) (Op, *badArg) {
	want, args := 3, "fds, nfds, timeout"
	if h.Syscall == "ppoll" {
		want, args = 5, "fds, nfds, tmo_p, sigmask, sigsetsize"
	}
	if len(a) != want {
		at := Value{}
		if len(a) > 0 {
			at = a[len(a)-1]
		}
		return nil, &badArg{at, "expected " + args}
	}
	arr := a[0].Entry()
	if arr.Kind != KindArray {
		return &Ignored{Header: h, Name: h.Syscall, Reason: "descriptors not shown"}, nil
	}
	op := &Poll{Header: h, TimeoutNs: -1}
	for _, e := range arr.Elems {
		fv, ok := e.Field("fd")
		if !ok {
			return nil, &badArg{e, "pollfd without fd"}
		}
		fd, bad := fdArg(fv)
		if bad != nil {
			return nil, bad
		}
		ev, _ := e.Field("events")
		op.Fds = append(op.Fds, PollFd{Fd: fd, Events: flagList(ev)})
	}
	switch t := a[2]; {
	case h.Syscall == "poll":
		ms, bad := intArg(t, "timeout")
		if bad != nil {
			return nil, bad
		}
		if ms >= 0 {
			op.TimeoutNs = ms * 1e6
		}
	case !t.IsNull():
		ns, bad := timespecArg(t, "timeout")
		if bad != nil {
			return nil, bad
		}
		op.TimeoutNs = ns
	}
	if h.Result.Kind == ResultValue && strings.HasPrefix(h.Result.Comment, "[") {
		if bad := op.revents(a[0]); bad != nil {
			return nil, bad
		}
	}
	return op, nil
}

// revents reads the ready descriptors strace lists after the result,
// "[{fd=3, revents=POLLOUT|POLLERR}]" (ppoll adds ", left {...}"), into
// the pollfds; at is the argument an error is reported at.
func (op *Poll) revents(at Value) *badArg {
	c := &cursor{s: op.Result.Comment, segs: []segment{{}}, mem: &carver{}}
	var list Value
	if err := c.value(&list); err != nil || list.Kind != KindArray {
		return &badArg{at, "the ready descriptors after the result are not an array of struct pollfd"}
	}
	for _, e := range list.Elems {
		fv, ok1 := e.Field("fd")
		rv, ok2 := e.Field("revents")
		fd, ok3 := fv.AsInt()
		if !ok1 || !ok2 || !ok3 {
			return &badArg{at, "a ready descriptor without fd or revents"}
		}
		for i := range op.Fds {
			if int64(op.Fds[i].Fd) == fd && op.Fds[i].Revents == nil {
				op.Fds[i].Revents = flagList(rv)
				break
			}
		}
	}
	return nil
}
