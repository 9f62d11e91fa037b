package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/strace"
)

// waiting is a blocking call other than a send that strace split in two
// halves and that the replay runs from its "<unfinished ...>" line on:
// the whole call, its arguments and result, from the survey
// (survey.waits), run as soon as what it waits for is there.
type waiting struct {
	op   strace.Op
	line int
	pid  int
	ran  bool
}

// waits reports whether the replay runs the split call op from its
// first line on (startWait): a read of data without MSG_WAITALL, an
// accept, a poll, select or epoll_wait that returned events, a blocking
// TCP connect, each returning a result. A send is started by startSend
// instead; other calls took nothing from the model's state while they
// waited.
func waits(op strace.Op) bool {
	h := op.Head()
	if len(h.Lines) < 2 || h.Result.Kind != strace.ResultValue {
		return false
	}
	switch o := op.(type) {
	case *strace.Recv:
		return !o.ErrQueue && msgFlags(o.Flags)&kernel.MSG_WAITALL == 0
	case *strace.Accept, *strace.Connect:
		return true
	case *strace.Poll, *strace.Select:
		n, _ := o.Head().Result.Ret()
		return n > 0
	case *strace.EpollWait:
		n, _ := o.Result.Ret()
		return o.Shown && n > 0
	}
	return false
}

// startWait begins, at its "<unfinished ...>" line c, a call the survey
// kept (waits) that sleeps in the model: it can block (blocks) and what
// it waits for is not there yet. In the kernel it sleeps (sk_wait_data,
// inet_csk_wait_for_connect, a poll's wait) until the socket's wait
// queue is woken with what it waits for, while the calls the log shows
// from other threads and processes run. The replay runs it as soon as
// the model has that (wake, after every call), so that what it does (a
// read's window update, the accepted socket) is there for the calls
// after it, and what it takes is what had arrived when it woke, not what
// came later; else at its resumed line. A blocking TCP connect runs at
// once: it sends its SYN before it sleeps in inet_wait_for_connect. A
// call that finds what it waits for at its first line does not sleep:
// it ran somewhere between its two halves, which the log does not
// tell, and is left to its resumed line.
func (r *replayer) startWait(c *strace.Call) {
	op := r.waits[c.Lines[0]]
	if op == nil {
		return
	}
	delete(r.waits, c.Lines[0])
	h := op.Head()
	r.clock(&strace.Header{Time: c.Time})
	r.use(r.table(h.Pid))
	w := &waiting{op: op, line: line(h), pid: h.Pid}
	if _, connect := op.(*strace.Connect); !r.blocks(op) || r.ready(w) && !connect {
		return
	}
	r.learnDecor(op)
	r.waiters = append(r.waiters, w)
}

// blocks reports whether op, a call waits keeps, can sleep: on a
// followed socket, without MSG_DONTWAIT or O_NONBLOCK, a poll or select
// of followed sockets with a timeout. One that cannot ran on another
// CPU while strace printed another pid's line.
func (r *replayer) blocks(op strace.Op) bool {
	switch o := op.(type) {
	case *strace.EpollWait:
		return r.epollOf(o.Epfd) != nil && o.TimeoutNs != 0
	case *strace.Poll, *strace.Select:
		pc, ok := polledIn(r.fds, op)
		return ok && len(pc.ps) > 0 && pc.timeoutNs != 0
	}
	fd, _ := opFd(op)
	e := r.fds[fd]
	if e == nil || e.s == nil {
		return false
	}
	var flags kernel.MsgFlags
	switch o := op.(type) {
	case *strace.Recv:
		flags = msgFlags(o.Flags)
	}
	return !e.s.Sk.NoWait(flags)
}

// wake runs each waiting call whose wait is over in the model, in the
// order they began; a call that ran may end another's wait. The network
// first runs what is due now (the loopback delivery of what the last
// call sent, which the kernel's softirq ran before that call returned),
// or settles when the log has no timestamps, as it would before the
// next call.
func (r *replayer) wake() {
	if len(r.waiters) == 0 {
		return
	}
	if r.timed {
		_ = r.w.Advance(0) // nothing of virtual time passes
	} else if err := r.w.Settle(); err != nil {
		r.note(fmt.Sprintf("the network did not settle: %v", err))
	}
	for i := 0; i < len(r.waiters); i++ {
		w := r.waiters[i]
		if w.ran || !r.ready(w) {
			continue
		}
		w.ran = true
		r.waking, r.raw = true, nil
		r.op(w.op)
		r.waking = false
		i = -1
	}
}

// woken reports whether the split call of h has run from its first line
// on (wake); its resumed line then has nothing left to do.
func (r *replayer) woken(h *strace.Header) bool {
	if r.waking {
		return false
	}
	for i, w := range r.waiters {
		if w.pid == h.Pid && w.line == line(h) {
			r.waiters = append(r.waiters[:i], r.waiters[i+1:]...)
			return w.ran
		}
	}
	return false
}

// ready reports whether what the log shows the call returned is there
// in the model, so that the kernel's call, woken, could have returned
// it: the bytes a TCP read returned (sk_wait_data's wakeup came with the
// first of them, but the reader took what was queued when it ran, which
// can be more, and the log says how much), or the FIN or reset of one
// that returned 0 with nothing queued; a datagram for a datagram read
// (__skb_wait_for_more_packets wakes with the first); a traced client's
// connection queued for an accept; the events a poll returned or the
// sets a select left its followed sockets in (pollReady), and those of
// an epoll_wait on the sockets its events' data names. A blocking TCP
// connect is ready at once: it sends its SYN, and the model's loopback
// handshake completes.
func (r *replayer) ready(w *waiting) bool {
	fds := r.table(w.pid).fds
	switch o := w.op.(type) {
	case *strace.Recv:
		e := fds[o.Fd]
		n, _ := o.Result.Ret()
		if e == nil || e.s == nil || !e.inet() {
			return false
		}
		if !e.s.IsTCP() {
			target := e.s
			if e.feed != nil {
				target = e.feed
			}
			return len(target.QueuedSegments()) > 0
		}
		queued := sum(e.s.QueuedSegments())
		if n == 0 {
			return queued == 0 && r.w.PollMask(e.s)&(kernel.POLLRDHUP|kernel.POLLHUP) != 0
		}
		return int64(queued) >= n
	case *strace.Accept:
		l := fds[o.Fd]
		return l != nil && l.s != nil && r.pendingFor(l, o.Peer.Addr) >= 0
	case *strace.Poll, *strace.Select:
		pc, ok := polledIn(fds, o)
		return ok && r.pollReady(pc)
	case *strace.Connect:
		e := fds[o.Fd]
		return e != nil && e.s != nil && e.s.IsTCP()
	case *strace.EpollWait:
		e := fds[o.Epfd]
		if e == nil || e.ep == nil {
			return false
		}
		seen, unknown, _, ok := e.ep.tie(o)
		return ok && unknown == "" && len(seen) > 0 && len(r.epollMissing(seen)) == 0
	}
	return false
}

// pollReady reports whether what pc returned for its followed sockets is
// all there in the model (pollHas), at least one socket having some.
func (r *replayer) pollReady(pc *pollCall) bool {
	some := false
	for i := range pc.ps {
		some = some || pc.ps[i].revents != 0
	}
	return some && r.pollHas(pc)
}

// polledIn is the pollCall of a poll or select op on the followed sockets
// of fds; false for another op, or for a poll of events the model does
// not know, which is then left to its resumed line.
func polledIn(fds map[int]*fdEntry, op strace.Op) (*pollCall, bool) {
	switch o := op.(type) {
	case *strace.Poll:
		return pollOf(fds, o)
	case *strace.Select:
		return selectOf(fds, o), true
	}
	return nil, false
}
