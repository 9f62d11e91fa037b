package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
)

// sleeping is a blocking TCP send the replay started at its
// "<unfinished ...>" line (startSend): the model's call, asleep in
// sk_stream_wait_memory (asleep) or already returned (res), waits for its
// "<... resumed>" line.
type sleeping struct {
	// line is the call's first line, which its resumed half shares.
	line int
	o    *strace.Send
	e    *fdEntry
	text string
	size int
	// cut, when not 0, is what the call returned, less than size: the
	// model's call was given that much (survey.cuts).
	cut int
	// charged is sk_wmem_queued's charge when the call began.
	charged uint64
	asleep  *sim.Asleep
	res     sim.Result
}

// startSend starts, at its "<unfinished ...>" line, a blocking send on a
// followed TCP socket, as tcp_sendmsg_locked begins it: it queues what
// the send buffer takes, then sleeps in sk_stream_wait_memory (a
// Background call), and the calls the log shows from other threads and
// processes run while it sleeps — a read of the peer's frees the window
// whose ACK wakes it, and it queues more (sim.Asleep). Its resumed line
// ends it (resumeSend). A send that cannot sleep (MSG_DONTWAIT,
// O_NONBLOCK) starts there too when the log shows it took its whole
// buffer (survey.whole) and the model's send buffer has room for it
// (roomFor): it ran somewhere between its halves, and the calls between
// them (another thread's epoll_wait or read of the peer) may show its
// data arrived; one they show had not is explained as a read or poll
// that ran before it arrived is. A send whose result the replay guides
// by what the log observed (a zerocopy send the model would refuse, a
// non-blocking one that returned less or failed, a send strace
// abbreviated, control messages, sendfile) is left to its resumed
// line.
func (r *replayer) startSend(op strace.Op) {
	o, ok := op.(*strace.Send)
	if !ok || o.Abbrev != "" || o.ZcInfo != nil || len(o.Control) > 0 {
		return
	}
	h := &o.Header
	r.clock(h)
	r.use(r.table(h.Pid))
	e := r.fds[o.Fd]
	flags := msgFlags(o.Flags)
	if e == nil || e.s == nil || !e.inet() || !e.s.IsTCP() {
		return
	}
	im := importBuffers(o.Syscall, o.Iov)
	size := im.total()
	if im.errno != 0 || im.undet || size > r.maxBytes ||
		flags&kernel.MSG_ZEROCOPY != 0 && e.s.Sk.Zerocopy() && refuses(e, uint64(size)) {
		return
	}
	if e.s.Sk.NoWait(flags) && (!r.whole[line(h)] || !roomFor(e, size)) {
		return
	}
	r.between(h)
	text := fmt.Sprintf("%s(%d, %v, %v)", o.Syscall, o.Fd, o.Iov, flags)
	send := r.w.Send
	if o.To.Addr.IsValid() {
		send = r.w.SendTo
	}
	c := r.call(h, text)
	c.Background = true
	sl := &sleeping{line: line(h), o: o, e: e, text: text, size: size, charged: e.s.Sk.WmemQueuedCharged}
	lens := im.lens
	if n, ok := r.cuts[sl.line]; ok {
		// Its wait for send buffer ended once it had queued n bytes (a
		// signal, SO_SNDTIMEO): the model's call takes those.
		lens, sl.cut = []int{n}, n
	}
	sl.res = send(c, e.s, lens, flags)
	sl.asleep = sl.res.Asleep
	r.sleeping[h.Pid] = sl
}

// roomFor reports whether e's send buffer takes size bytes at once
// whatever their layout: its free space holds twice the bytes and two
// pages more (a zerocopy skb's truesize counts whole pages).
func roomFor(e *fdEntry, size int) bool {
	sk := e.s.Sk
	return sk.Sndbuf-sk.WmemQueued >= 2*size+2*kernel.PageSize
}

// resumed returns the send startSend began for the call of h, if it did.
func (r *replayer) resumed(h *strace.Header) *sleeping {
	sl := r.sleeping[h.Pid]
	if sl == nil || sl.line != line(h) {
		return nil
	}
	delete(r.sleeping, h.Pid)
	return sl
}

// resumeSend ends, at its resumed line, a send startSend began, with the
// result the kernel gave:
//
//   - the model's call returned (at once, or woken while the other calls
//     ran): its result is the prediction;
//   - still asleep, and the log shows it returning its whole buffer: the
//     network runs until the model's call returns too (the kernel's ACKs
//     came sooner: the time it runs is taken off the next gaps, as
//     runAhead's is);
//   - the log shows it returning m of its n bytes: its wait ended (a
//     signal, SO_SNDTIMEO) once m were queued, and the model's call,
//     started with those m bytes (survey.cuts), sent them, as cutSend
//     assumes;
//   - no result (a signal's ERESTART*, the process's end): the call is
//     interrupted where the model has it, and undetermined.
func (r *replayer) resumeSend(op strace.Op, sl *sleeping) {
	h, o, e := op.Head(), sl.o, sl.e
	obs := h.Result.String()
	if noResult(h) {
		res := sl.end(kernel.EINTR)
		r.sentAsleep(h, sl, res, int64(res.Ret))
		r.add(h, o.Fd, e.s.Name, sl.text, obs, notReplayed,
			fmt.Sprintf("%s; the model's call, asleep, was interrupted there, having queued %d bytes", unresolvedWhy(h, o.Fd), sl.copied()), Undetermined)
		return
	}
	r.between(h)
	n, _ := h.Result.Ret()
	var ahead engine.Duration
	grown := ""
	if sl.asleep != nil && !sl.asleep.Done() {
		ahead, _ = r.runAhead(sl.asleep.Done)
	}
	if sl.asleep != nil && !sl.asleep.Done() && n > 0 {
		grown = r.growSndbuf(sl.e, sl.asleep, sl.line)
	}
	res := sl.end(kernel.EINTR)
	r.sentAsleep(h, sl, res, n)
	pred := res.String()
	layout := ""
	if sl.cut == 0 {
		layout = r.backToBack(h, msgFlags(o.Flags), e, [][]int{importBuffers(o.Syscall, o.Iov).lens}, []sock.SendResult{res.Send})
	}
	switch {
	case pred != obs && r.pastSplit && sl.cut == 0 && n > 0 && int(n) < sl.size:
		r.add(h, o.Fd, e.s.Name, sl.text, obs, pred, fmt.Sprintf("the call returned after queuing %d of its %d bytes, and is past the first %d split sends that returned part of their buffers the replay keeps (maxSplit): the model's call, started at line %d, was given all %d", n, sl.size, maxSplit, sl.line, sl.size), Undetermined)
	case pred != obs:
		r.compare(h, o.Fd, e.s.Name, sl.text, obs, pred, joinAssumed(why(res), layout))
	case grown != "":
		r.assume(h, e, sl.text, obs, pred, "", joinAssumed(grown, layout))
	case sl.cut != 0:
		r.assume(h, e, sl.text, obs, pred, "", fmt.Sprintf("the call returned after queuing %d of its %d bytes: its wait for send buffer ended (a signal, SO_SNDTIMEO) or an error came, which the log does not time; the model's call, started at line %d, sent those %d bytes", n, sl.size, sl.line, n))
	case ahead > 0:
		r.assume(h, e, sl.text, obs, pred, "", joinAssumed(fmt.Sprintf("the network ran %v ahead of the model's clock: the work that let the call, asleep since line %d, queue its last bytes (the peer's ACKs and window updates, paced transmissions) had run sooner in the kernel", ahead, sl.line), layout))
	case layout != "":
		r.assume(h, e, sl.text, obs, pred, "", layout)
	default:
		r.compare(h, o.Fd, e.s.Name, sl.text, obs, pred, why(res))
	}
}

// copied is what the model's call has queued.
func (sl *sleeping) copied() int {
	if sl.asleep == nil {
		return int(sl.res.Ret)
	}
	return sl.asleep.Copied()
}

// end returns the model call's result, interrupting it with err if it
// is still asleep.
func (sl *sleeping) end(err kernel.Errno) sim.Result {
	if sl.asleep == nil {
		return sl.res
	}
	return sl.asleep.Interrupt(err)
}

// sentAsleep books what a send that slept did, as send does for one
// that ran at once: its uarg, its send-buffer charge, and n bytes
// written to a traced peer's stream.
func (r *replayer) sentAsleep(h *strace.Header, sl *sleeping, res sim.Result, n int64) {
	e := sl.e
	e.held.sent(e, res.Send, uint64(sl.size))
	e.unacked.sent(e, res.Send, e.s.Sk.WmemQueuedCharged-sl.charged, sl.line)
	if n > 0 {
		e.out.wrote(n)
	}
}

// maxCwnd bounds the congestion windows growSndbuf tries.
const maxCwnd = 1 << 16

// growSndbuf explains a send the kernel returned while the model's call
// still waits for send buffer with nothing left to wake it (its peer's
// window is closed until a read the log shows later): the kernel's
// sk_sndbuf was larger. tcp_sndbuf_expand sizes it from the congestion
// window (tcp.Conn.ExpandSndbufFor), which the congestion control opens
// from ACK timing, and under bbr from a delivery rate and an RTT
// measured in wall-clock time, that the log does not show. The model's
// window is assumed one segment larger at a time until the call returns
// or sk_sndbuf reaches tcp_wmem[2] (or SO_SNDBUF locked it); it returns
// the assumption, or "" when no window lets the call return.
func (r *replayer) growSndbuf(e *fdEntry, asleep *sim.Asleep, since int) string {
	conn, sk := e.s.Conn(), e.s.Sk
	from, before := conn.Cwnd(), sk.Sndbuf
	for cw := from + 1; cw <= maxCwnd && !sk.SndbufLocked && sk.Sndbuf < sk.Net.TCPWmem[2]; cw++ {
		if !conn.ExpandSndbufFor(cw) {
			continue
		}
		if _, done := r.runAhead(asleep.Done); done || asleep.WakeUp() {
			return fmt.Sprintf("the kernel's send buffer was larger than the model's %d bytes: tcp_sndbuf_expand sizes it from the congestion window (the model's: %d segments), which the congestion control opens from ACK timing the log does not show; with a window of %d segments, sk_sndbuf %d, the call, asleep since line %d, queued its last bytes",
				before, from, cw, sk.Sndbuf, since)
		}
	}
	return ""
}
