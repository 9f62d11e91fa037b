package sim

// Work on the receive side of a local path runs inside the step that
// caused it, in the kernel's order:
//
//   - loopback_xmit hands each frame to __netif_rx, which queues it on
//     this CPU's backlog (enqueue_to_backlog); the backlog runs
//     (process_backlog, in net_rx_action) when the outermost bottom-half
//     section ends — the local_bh_enable at the end of __dev_queue_xmit
//     in process context, or the running softirq itself. Work the backlog
//     queues (the receiver's ACK, the sender's next segment) joins its
//     tail and runs in the same pass, first in, first out. netifRx is
//     this queue.
//   - tcp_v4_rcv (tcp_v6_rcv) finds a socket its user owns (lock_sock:
//     a send, a read, a setsockopt in progress) and queues the segment on
//     the socket's backlog (sk_add_backlog) instead of processing it;
//     release_sock runs that backlog (__release_sock → tcp_v4_do_rcv)
//     before the call returns, after everything the call itself did —
//     tcp_sendmsg's net_zcopy_put included. rcvSegment and releaseSock
//     are these two.
//
// So over loopback a TCP send's segments are received, acknowledged and
// the ACKs processed before send returns, and a notification can be
// readable at once; a UDP datagram is received (and its frags copied)
// before sendmsg returns.

// local reports whether s's path delivers inside the current step: a
// loopback device without an artificial link delay.
func (s *Socket) local() bool { return s.Dev.Kind == Loopback && s.Dev.Delay == 0 }

// onPath runs fn for a frame or ACK that travels s's path towards the
// socket named to: inside the current step through the backlog on a
// local path (netifRx), otherwise as an event of its own after the link
// delay, labelled what+" to "+to.
func (w *World) onPath(s *Socket, op, what, to string, fn func() Event) {
	if s.local() {
		w.netifRx(fn)
		return
	}
	w.after(s.Dev.Delay, op, what+" to "+to, fn)
}

// inBottomHalf runs fn, a network event (a timer, a TX completion, a
// delivery over a delayed link), as the softirq it is in the kernel: what
// it hands to the receive backlog runs after it returns (net_rx_action
// follows the timer softirq), never inside it — a retransmission loop is
// not re-entered by the ACKs its own segments draw.
func (w *World) inBottomHalf(fn func() Event) Event {
	if w.inSoftirq {
		return fn()
	}
	w.inSoftirq = true
	e := fn()
	w.inSoftirq = false
	if len(w.backlog) > 0 {
		w.netifRx(nil)
	}
	return e
}

// netifRx models __netif_rx and process_backlog: fn (if not nil) joins
// the backlog, and unless the backlog is already running (this is work it
// queued) it runs now, to empty, each piece's sentence added to the
// current step. A pass that would run more than maxEvents pieces is a
// livelock: the rest is dropped and the step says so.
func (w *World) netifRx(fn func() Event) {
	if fn != nil {
		w.backlog = append(w.backlog, fn)
	}
	if w.inSoftirq {
		return
	}
	w.inSoftirq = true
	for n := 0; len(w.backlog) > 0; n++ {
		if n == maxEvents {
			w.say("the receive backlog does not drain: livelock, the rest is dropped")
			w.backlog = nil
			break
		}
		next := w.backlog[0]
		w.backlog[0] = nil
		w.backlog = w.backlog[1:]
		w.runNarrated(next)
	}
	w.inSoftirq = false
}

// runNarrated runs a piece of receive-side work and adds what it did to
// the current step, in the order the pieces started: what a piece sets
// off itself (an ACK that lets more data go) follows its sentence.
func (w *World) runNarrated(fn func() Event) {
	at := len(w.narration)
	w.narration = append(w.narration, line{})
	text := fn().Text
	if text == "" {
		w.narration = append(w.narration[:at], w.narration[at+1:]...)
		return
	}
	w.narration[at] = line{text: text}
}

// rcvSegment models the socket lookup of tcp_v4_rcv for a segment or ACK
// to s: processed at once (tcp_v4_do_rcv), or queued on s's backlog while
// its user owns it (sk_add_backlog), to run at releaseSock.
func (w *World) rcvSegment(s *Socket, fn func() Event) Event {
	if s.owned {
		s.sockBacklog = append(s.sockBacklog, fn)
		return Event{}
	}
	return fn()
}

// lockSock models lock_sock: segments for s wait on its backlog until
// releaseSock.
func (s *Socket) lockSock() { s.owned = true }

// releaseSock models release_sock → __release_sock: the socket's backlog
// is processed in order, with what arrives meanwhile, and then the user
// lets go of the socket. It reports whether it processed anything.
func (w *World) releaseSock(s *Socket) bool {
	ran := false
	for len(s.sockBacklog) > 0 {
		queued := s.sockBacklog
		s.sockBacklog = nil
		for _, fn := range queued {
			w.runNarrated(fn)
			ran = true
		}
	}
	s.owned = false
	return ran
}
