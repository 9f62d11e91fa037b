package replay

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// epollSet is what the replay knows of one epoll instance (struct
// eventpoll) the log created: the model's instance (sim.Epoll), which
// watches the followed sockets, and the interest list as the log's
// epoll_ctl calls built it, with the data each descriptor was added
// with, by which epoll_wait's events name it.
type epollSet struct {
	ep    *sim.Epoll
	items []*epollItem
}

// epollItem is one descriptor an instance watches (struct epitem),
// keyed as ep_find keys it, by the open file and the descriptor number
// it was added with: the item outlives that descriptor while a dup of
// it keeps the file open, and goes with the file's last descriptor
// (eventpoll_release in __fput). file is nil for a descriptor the replay
// does not follow (an eventfd, a pipe).
type epollItem struct {
	file   *fdEntry
	fd     int
	events kernel.EpollEvents
	data   uint64
	// shown is false for an item added or modified by an epoll_ctl
	// whose event strace did not show: its events and data are unknown.
	shown bool
	// off is set once the kernel reported an EPOLLONESHOT item, until
	// an EPOLL_CTL_MOD arms it again (ep_send_events).
	off bool
}

// live reports whether the item is still on its instance: its file has
// a descriptor left.
func (it *epollItem) live() bool { return it.file == nil || it.file.open() }

// socket is the model socket the item watches, nil when not followed.
func (it *epollItem) socket() *sim.Socket {
	if it.file == nil || !it.file.open() {
		return nil
	}
	return it.file.s
}

// epollOf returns the followed instance epfd refers to, or nil.
func (r *replayer) epollOf(epfd int) *epollSet {
	if e := r.fds[epfd]; e != nil {
		return e.ep
	}
	return nil
}

// epollCreate replays epoll_create and epoll_create1 that succeeded:
// the descriptor refers to a new model instance (sim.World.EpollCreate,
// do_epoll_create), and the call is compared as socket's is: the
// traced program's other descriptors are unknown, so a success is
// predicted as the number the log shows. A failure (EMFILE, ENOMEM,
// EINVAL for a bad size or flag) hangs on limits the model does not
// have: ignored.
func (r *replayer) epollCreate(o *strace.EpollCreate) {
	n, ok := o.Result.Ret()
	if !ok || n < 0 || n != int64(int32(n)) {
		r.ignore(o.Syscall, "failed")
		return
	}
	r.between(&o.Header)
	text := o.Syscall + "(0)"
	switch {
	case o.CloExec:
		text = o.Syscall + "(EPOLL_CLOEXEC)"
	case o.Syscall == "epoll_create" && r.raw != nil && len(r.raw.Args) > 0:
		if size, ok := r.raw.Args[0].AsInt(); ok {
			text = fmt.Sprintf("epoll_create(%d)", size)
		}
	}
	name := fmt.Sprintf("ep%d", n)
	ep, res := r.w.EpollCreate(r.call(&o.Header, text), name)
	pred := res.String()
	if res.Errno == 0 {
		pred = fmt.Sprint(n)
		r.put(int(n), &fdEntry{fd: int(n), ep: &epollSet{ep: ep}}, o.CloExec)
	}
	obs, _ := observed(&o.Header)
	r.compare(&o.Header, int(n), name, text, obs, pred, why(res))
}

// epollCtl replays epoll_ctl on a followed instance. On a followed
// socket the model's instance predicts the result (sim.World.EpollCtl:
// EEXIST, ENOENT, EINVAL); on any other descriptor the call is ignored.
// Either way, what the log shows succeeded changes the interest list.
func (r *replayer) epollCtl(o *strace.EpollCtl) {
	set := r.epollOf(o.Epfd)
	if set == nil {
		r.ignore(o.Syscall, "not an epoll instance the replay follows")
		return
	}
	events, okEv := eventSet(kernel.EpollEventNames, o.Events)
	op, okOp := kernel.EpollOpNames.ByName(o.Op)
	target := r.fds[o.Fd]
	other := set.other(target, o.Fd)
	if n, _ := o.Result.Ret(); n == 0 && okEv && okOp {
		set.apply(int(op), target, o.Fd, events, o.Data, o.HasEvent && o.HasData)
	}
	if target == nil || target.s == nil {
		r.ignore(o.Syscall, "not a socket the replay follows")
		return
	}
	if !okEv || !okOp {
		r.ignore(o.Syscall, "events not modelled")
		return
	}
	text := fmt.Sprintf("epoll_ctl(%d, %s, %d, %v)", o.Epfd, o.Op, o.Fd, events)
	if !o.HasEvent && op != kernel.EPOLL_CTL_DEL {
		r.add(&o.Header, o.Fd, target.s.Name, text, o.Result.String(), notReplayed,
			"strace printed the struct epoll_event as an address: its events and data are unknown; not replayed", Undetermined)
		return
	}
	if other >= 0 {
		r.add(&o.Header, o.Fd, target.s.Name, text, o.Result.String(), notReplayed,
			fmt.Sprintf("the instance watches this socket under fd %d, of which fd %d is a dup: the kernel keys its items by file and descriptor number (ep_find), the model's instance by socket; not replayed", other, o.Fd), Undetermined)
		return
	}
	r.between(&o.Header)
	res := r.w.EpollCtl(r.call(&o.Header, text), set.ep, int(op), target.s, events)
	r.compare(&o.Header, o.Fd, target.s.Name, text, o.Result.String(), res.String(), why(res))
}

// other returns the descriptor number under which the instance watches
// file when it does not under fd, or -1.
func (set *epollSet) other(file *fdEntry, fd int) int {
	other := -1
	for _, it := range set.items {
		if it.live() && it.file == file && file != nil {
			if it.fd == fd {
				return -1
			}
			other = it.fd
		}
	}
	return other
}

// apply changes the interest list as a successful epoll_ctl did.
func (set *epollSet) apply(op int, file *fdEntry, fd int, events kernel.EpollEvents, data uint64, shown bool) {
	if file != nil && file.s == nil {
		file = nil
	}
	set.items = slices.DeleteFunc(set.items, func(it *epollItem) bool { return !it.live() })
	i := slices.IndexFunc(set.items, func(it *epollItem) bool { return it.file == file && it.fd == fd })
	switch {
	case op == kernel.EPOLL_CTL_ADD && i < 0:
		set.items = append(set.items, &epollItem{file: file, fd: fd, events: events, data: data, shown: shown})
	case op == kernel.EPOLL_CTL_MOD && i >= 0:
		it := set.items[i]
		it.events, it.data, it.shown, it.off = events, data, shown, false
	case op == kernel.EPOLL_CTL_DEL && i >= 0:
		set.items = slices.Delete(set.items, i, i+1)
	}
}

// epollSeen is one event an epoll_wait returned, tied to the item whose
// data it carries.
type epollSeen struct {
	it     *epollItem
	events kernel.EpollEvents
}

// epollWait replays epoll_wait, epoll_pwait and epoll_pwait2 of a
// followed instance, guided by what the log observed as poll is: which
// of the watched sockets are ready, and with what, hangs on work the log
// does not show. The events the log shows are tied to the sockets by
// their data (the epoll_event the program added them with); then
//
//   - events of a socket the model's poll method does not report yet
//     (ep_item_poll: its poll mask, within the events asked for plus
//     EPOLLERR and EPOLLHUP): a call that waits, with none of them
//     ready in the model, waits in the model too, at most its timeout,
//     while the network runs; what is still missing, the model's
//     pending work runs ahead for (runAhead); when it cannot, no
//     schedule explains the log.
//   - the model's instance then returns its events (sim.World.EpollWait
//     with no wait: its ready list, EPOLLET and EPOLLONESHOT included);
//     the same events agree.
//   - events the model returns that the kernel did not: that work had
//     not happened yet in the kernel, or maxevents cut the list.
//   - events the kernel returned, ready in the model, that the model's
//     instance did not return: an edge-triggered or EPOLLONESHOT socket
//     whose wait queue the kernel's timing woke where the model's did
//     not.
//
// An event of an EPOLLONESHOT item the kernel reported before and no
// EPOLL_CTL_MOD armed again diverges. An event whose data no followed
// item carries (an item the log did not show added, or several with the
// same data) is undetermined; events of descriptors the replay does not
// follow are not compared, and an instance that watches no followed
// socket is ignored.
func (r *replayer) epollWait(o *strace.EpollWait) {
	set := r.epollOf(o.Epfd)
	if set == nil {
		r.ignore(o.Syscall, "not an epoll instance the replay follows")
		return
	}
	set.items = slices.DeleteFunc(set.items, func(it *epollItem) bool { return !it.live() })
	text := fmt.Sprintf("%s(%d, %d, %s)", o.Syscall, o.Epfd, o.Max, timeoutText(o.TimeoutNs))
	seen, unknown, skipped, ok := set.tie(o)
	// The kernel reported these events whatever the model makes of
	// them: its EPOLLONESHOT items are off from now on.
	defer disarm(seen)
	followed := slices.ContainsFunc(set.items, func(it *epollItem) bool { return it.socket() != nil })
	switch {
	case !ok:
		r.ignore(o.Syscall, "events not modelled")
		return
	case !followed && unknown == "":
		r.ignore(o.Syscall, "no socket the replay follows in the instance")
		return
	}
	h := &o.Header
	obs := h.Result.String()
	if h.Result.Kind == strace.ResultErrno && h.Result.Errno == "EINTR" {
		r.add(h, o.Epfd, set.ep.Name, text, obs, notReplayed, "interrupted by a signal: the log shows no events; not replayed", Undetermined)
		return
	}
	r.between(h)
	var assumed []string
	if h.Result.Kind == strace.ResultValue && o.Shown {
		obs = epollText(seen)
		if i := slices.IndexFunc(seen, func(s epollSeen) bool { return s.it.off }); i >= 0 {
			r.add(h, o.Epfd, set.ep.Name, text, obs, epollText(r.epollNow(set)),
				fmt.Sprintf("no schedule: fd %d was added with EPOLLONESHOT and reported since; no EPOLL_CTL_MOD armed it again (ep_send_events)", seen[i].it.fd), Diverge)
			return
		}
		if missing := r.epollMissing(seen); len(missing) > 0 && o.TimeoutNs != 0 && len(missing) == len(seen) {
			r.epollSleep(func() bool { return len(r.epollMissing(seen)) == 0 }, timeoutOf(o.TimeoutNs))
		}
		if missing := r.epollMissing(seen); len(missing) > 0 {
			ahead, done := r.runAhead(func() bool { return len(r.epollMissing(seen)) == 0 })
			if !done {
				r.epollDiverge(h, o.Epfd, set, text, obs, epollText(r.epollNow(set)),
					fmt.Sprintf("no schedule: the model's pending work never makes %s", missingText(r.epollMissing(seen))), "")
				return
			}
			assumed = append(assumed, fmt.Sprintf("the network ran %v ahead of the model's clock: what makes %s had already happened", ahead, missingText(missing)))
		}
	}
	res := r.w.EpollWait(r.call(h, text), set.ep, int(o.Max), 0)
	pred := res.String()
	if res.Errno == 0 {
		pred = epollText(set.seenOf(res.Epoll))
	}
	how := ""
	if skipped > 0 {
		how = fmt.Sprintf("%d events of descriptors the replay does not follow not compared", skipped)
	}
	switch {
	case unknown != "":
		r.addHow(h, o.Epfd, set.ep.Name, text, obs, pred, unknown, how, Undetermined)
		return
	case obs == pred && len(assumed) == 0:
		r.addHow(h, o.Epfd, set.ep.Name, text, obs, pred, "", how, Agree)
		return
	case obs != pred && (h.Result.Kind != strace.ResultValue || !o.Shown):
		r.epollDiverge(h, o.Epfd, set, text, obs, pred, why(res), how)
		return
	case obs != pred:
		a := epollDiff(seen, set.seenOf(res.Epoll), len(seen)+skipped == int(o.Max))
		if len(a) == 0 {
			r.epollDiverge(h, o.Epfd, set, text, obs, pred, why(res), how)
			return
		}
		assumed = append(assumed, a...)
	}
	r.emit(Call{Line: line(h), Pid: h.Pid, Syscall: h.Syscall, Fd: o.Epfd, Socket: set.ep.Name, Text: text,
		Observed: obs, Predicted: obs, Verdict: Assumed, Compared: how, Assumption: strings.Join(assumed, "; ")})
}

// epollDiverge records an epoll_wait no schedule explains, unless a
// watched connection's receive buffer may have grown otherwise in the
// kernel (rcvbufUndetermined): what is ready hangs on it, as a poll's
// does, and the call is undetermined.
func (r *replayer) epollDiverge(h *strace.Header, epfd int, set *epollSet, text, obs, pred, why, how string) {
	for _, it := range set.items {
		if s := it.socket(); s != nil {
			if note, ok := r.events.rcvbufUndetermined(s.Name); ok {
				r.addHow(h, epfd, set.ep.Name, text, obs, pred, "the receive buffer of "+s.Name+"'s connection may have grown otherwise in the kernel, whose tcp_rcv_space_adjust runs on microseconds the log does not show (model: "+note+"); what the instance reports hangs on it", how, Undetermined)
				return
			}
		}
	}
	r.addHow(h, epfd, set.ep.Name, text, obs, pred, why, how, Diverge)
}

// disarm turns off the EPOLLONESHOT items the kernel reported.
func disarm(seen []epollSeen) {
	for _, k := range seen {
		if k.it.events&kernel.EPOLLONESHOT != 0 {
			k.it.off = true
		}
	}
}

// tie ties each event o returned to the live item whose data it
// carries: seen holds those of followed sockets; unknown says why some
// event cannot be tied to one item; skipped counts the events of
// unfollowed descriptors. ok is false for an event name the model does
// not know.
func (set *epollSet) tie(o *strace.EpollWait) (seen []epollSeen, unknown string, skipped int, ok bool) {
	for _, ev := range o.Ready {
		events, known := eventSet(kernel.EpollEventNames, ev.Events)
		if !known {
			return nil, "", 0, false
		}
		var match []*epollItem
		hidden := false
		for _, it := range set.items {
			if ev.HasData && it.shown && it.data == ev.Data {
				match = append(match, it)
			}
			hidden = hidden || !it.shown
		}
		switch {
		case !ev.HasData:
			unknown = "strace did not show an event's data, which says which descriptor it is on"
		case len(match) == 0 && hidden:
			unknown = fmt.Sprintf("no descriptor the log shows added to the instance carries data %d, and an epoll_ctl added or modified one without showing its event", ev.Data)
		case len(match) == 0:
			unknown = fmt.Sprintf("no descriptor the log shows added to the instance carries data %d (it was added before the log starts, or under a decoding the log does not show)", ev.Data)
		case len(match) > 1:
			unknown = fmt.Sprintf("%d descriptors in the instance carry data %d: which one was ready is unknown", len(match), ev.Data)
		case match[0].socket() == nil:
			skipped++
		default:
			seen = append(seen, epollSeen{it: match[0], events: events})
		}
	}
	return seen, unknown, skipped, true
}

// epollMask is what the model's poll method reports of the events it
// asks for (ep_item_poll), EPOLLERR and EPOLLHUP always.
func (r *replayer) epollMask(it *epollItem) kernel.EpollEvents {
	s := it.socket()
	if s == nil || it.off {
		return 0
	}
	return kernel.EpollEvents(r.w.PollMask(s)) & (it.events | kernel.EPOLLERR | kernel.EPOLLHUP) &^ kernel.EpollPrivateBits
}

// epollMissing lists the events the kernel returned that the model's
// sockets do not report now.
func (r *replayer) epollMissing(seen []epollSeen) []epollSeen {
	var out []epollSeen
	for _, s := range seen {
		if m := s.events &^ r.epollMask(s.it); m != 0 {
			out = append(out, epollSeen{it: s.it, events: m})
		}
	}
	return out
}

// epollNow is what the model's sockets of set report now.
func (r *replayer) epollNow(set *epollSet) []epollSeen {
	var out []epollSeen
	for _, it := range set.items {
		if m := r.epollMask(it); m != 0 {
			out = append(out, epollSeen{it: it, events: m})
		}
	}
	return out
}

// epollSleep is a call waiting in the model, at most d, while the
// network runs, until done holds (ep_poll); the time it waited is taken
// off the next gaps, as modelPoll's is.
func (r *replayer) epollSleep(done func() bool, d engine.Duration) {
	start := r.w.Now()
	forever := d >= timeoutOf(-1)
	deadline := start.Add(d)
	for !done() {
		ev, ok := r.w.Loop.Peek()
		if !ok || !forever && ev.At > deadline || !r.w.RunNext() {
			break
		}
	}
	r.ahead += r.w.Now().Sub(start)
}

// seenOf ties the model's events to the set's items by socket.
func (set *epollSet) seenOf(evs []sim.EpollEvent) []epollSeen {
	out := make([]epollSeen, 0, len(evs))
	for _, ev := range evs {
		for _, it := range set.items {
			if s := it.socket(); s != nil && s.Name == ev.Socket {
				out = append(out, epollSeen{it: it, events: ev.Events})
				break
			}
		}
	}
	return out
}

// epollDiff explains how the model's events differ from the kernel's,
// every event the kernel returned being ready in the model: the
// assumptions under which the kernel's list is one the model allows.
func epollDiff(kern, model []epollSeen, full bool) []string {
	var assumed []string
	find := func(l []epollSeen, it *epollItem) kernel.EpollEvents {
		for _, s := range l {
			if s.it == it {
				return s.events
			}
		}
		return 0
	}
	for _, k := range kern {
		switch {
		case find(model, k.it) == 0:
			assumed = append(assumed, fmt.Sprintf("a wakeup of fd %d's wait queue put it on the ready list in the kernel, where the model's timing did not (edge-triggered, one-shot, or reported since)", k.it.fd))
		case find(model, k.it) != k.events:
			assumed = append(assumed, fmt.Sprintf("fd %d's %v (%s) had not happened yet in the kernel when it polled it", k.it.fd, find(model, k.it)&^k.events, pollWhy(kernel.PollEvents(find(model, k.it)&^k.events))))
		}
	}
	for _, m := range model {
		if find(kern, m.it) != 0 {
			continue
		}
		if full {
			assumed = append(assumed, fmt.Sprintf("maxevents cut the list before fd %d's %v", m.it.fd, m.events))
		} else {
			assumed = append(assumed, fmt.Sprintf("what makes the model report fd %d's %v (%s) had not happened yet in the kernel", m.it.fd, m.events, pollWhy(kernel.PollEvents(m.events))))
		}
	}
	return assumed
}

// epollText renders epoll_wait's events as the report compares them,
// sorted by data: "1 [EPOLLIN data=5]".
func epollText(seen []epollSeen) string {
	s := slices.Clone(seen)
	slices.SortFunc(s, func(a, b epollSeen) int { return cmp.Compare(a.it.data, b.it.data) })
	parts := make([]string, len(s))
	for i, e := range s {
		parts[i] = fmt.Sprintf("%v data=%d", e.events, e.it.data)
	}
	return fmt.Sprintf("%d [%s]", len(s), strings.Join(parts, ", "))
}

// missingText says which sockets lack which events.
func missingText(m []epollSeen) string {
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = fmt.Sprintf("fd %d report %v", e.it.fd, e.events)
	}
	return strings.Join(parts, " and ")
}
