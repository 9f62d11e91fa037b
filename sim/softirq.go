package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

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

// arrivalKind says what an arrival brings.
type arrivalKind uint8

const (
	// arriveFrame is a frame from the receiver's peer (deliver).
	arriveFrame arrivalKind = iota
	// arriveAck is a cumulative ACK of ack with window win.
	arriveAck
	// arriveRst is a reset (tcp_reset).
	arriveRst
	// arriveICMP is an ICMP port unreachable of size bytes.
	arriveICMP
)

// arrival is what a path brings the socket to: a frame, an ACK, a reset
// or an ICMP error. It is a plain value, not a closure, so that queueing
// it on a backlog costs no allocation; arrive and process run it.
type arrival struct {
	kind arrivalKind
	to   *Socket
	// f is an arriveFrame's frame.
	f frame
	// ack and win are an arriveAck's acknowledgement and window.
	ack uint32
	win int
	// size is an arriveICMP's length, alloc the head its skb was
	// allocated with.
	size, alloc int
}

// onPath sends a along s's path: inside the current step through the
// backlog on a local path (netifRx), otherwise as an event of its own
// after the link delay, labelled what+" to "+a.to.Name.
func (w *World) onPath(s *Socket, op, what string, a arrival) {
	if s.local() {
		w.netifRx(a)
		return
	}
	w.after(s.Dev.Delay, op, what+" to "+a.to.Name, func(e *Event) { w.arrive(a, e) })
}

// arrive models the receive side's entry for a: tcp_v4_rcv's socket
// lookup for what reaches a TCP socket (rcvSegment), at once for a
// datagram (__udp4_lib_rcv) or an ICMP error (icmp_rcv). It and the
// functions it calls write what they did to *e, zero on entry: the event
// of the step (or of the piece of it) the caller keeps. An Event is 800
// bytes, and this path runs for every segment and ACK.
func (w *World) arrive(a arrival, e *Event) {
	if a.kind == arriveICMP || (a.kind == arriveFrame && a.to.tcp == nil) {
		w.process(a, e)
		return
	}
	if a.to.Dev.Kind == Loopback {
		w.tcpRaw(a)
	}
	w.rcvSegment(a, e)
}

// process hands a to its socket: tcp_v4_do_rcv for TCP, the datagram's
// queue, the ICMP error's socket.
func (w *World) process(a arrival, e *Event) {
	switch a.kind {
	case arriveFrame:
		w.deliver(a.to, a.f, e)
	case arriveAck:
		w.ackArrives(a.to, a.ack, a.win, e)
	case arriveRst:
		w.rstArrives(a.to, e)
	default:
		w.icmpArrives(a.to, a.size, a.alloc, e)
	}
}

// inBottomHalf runs fn, a network event (a timer, a TX completion, a
// delivery over a delayed link), as the softirq it is in the kernel: what
// it hands to the receive backlog runs after it returns (net_rx_action
// follows the timer softirq), never inside it — a retransmission loop is
// not re-entered by the ACKs its own segments draw.
func (w *World) inBottomHalf(fn func(*Event), e *Event) {
	if w.inSoftirq {
		fn(e)
		return
	}
	w.inSoftirq = true
	fn(e)
	w.inSoftirq = false
	if len(w.backlog) > 0 {
		w.runBacklog()
	}
}

// netifRx models __netif_rx: a joins the backlog, which runs now unless
// it is running already (this is work it queued).
func (w *World) netifRx(a arrival) {
	w.backlog = append(w.backlog, a)
	if !w.inSoftirq {
		w.runBacklog()
	}
}

// runBacklog models process_backlog: the backlog runs to empty, first in,
// first out, each arrival's sentence added to the current step. A pass
// that would run more than maxEvents arrivals is a livelock: the rest is
// dropped and the step says so.
func (w *World) runBacklog() {
	w.inSoftirq = true
	for n := 0; n < len(w.backlog); n++ {
		if n == maxEvents {
			w.say("the receive backlog does not drain: livelock, the rest is dropped")
			break
		}
		a := w.backlog[n]
		w.backlog[n] = arrival{}
		w.runNarrated((*World).arrive, a)
	}
	clear(w.backlog)
	w.backlog = w.backlog[:0]
	w.inSoftirq = false
}

// runNarrated runs a piece of receive-side work, run(w, a), and adds what
// it did to the current step, in the order the pieces started: what a
// piece sets off itself (an ACK that lets more data go) follows its
// sentence.
func (w *World) runNarrated(run func(*World, arrival, *Event), a arrival) {
	at := len(w.narration)
	w.narration = append(w.narration, line{})
	e := w.lendEvent()
	run(w, a, e)
	l, ok := e.sentence()
	w.returnEvent()
	if !ok {
		w.narration = append(w.narration[:at], w.narration[at+1:]...)
		return
	}
	w.narration[at] = l
}

// lendEvent returns a zero Event for one level of network work to write
// its event into (runNarrated, runEvent), until returnEvent: an Event a
// function value is given a pointer to would otherwise be allocated,
// 800 bytes for every segment and ACK. Levels nest (a socket's backlog
// runs when an arrival releases it), so each has its own.
func (w *World) lendEvent() *Event {
	if w.lentN == len(w.lent) {
		w.lent = append(w.lent, new(Event))
	}
	e := w.lent[w.lentN]
	w.lentN++
	*e = Event{}
	return e
}

// returnEvent gives back the Event lendEvent lent last.
func (w *World) returnEvent() { w.lentN-- }

// rcvSegment models the socket lookup of tcp_v4_rcv for a segment or ACK
// to a.to: processed at once (tcp_v4_do_rcv), or queued on the socket's
// backlog while its user owns it (tcp_add_backlog), to run at
// releaseSock.
func (w *World) rcvSegment(a arrival, e *Event) {
	if s := a.to; s.owned {
		if !w.backlogCoalesce(s, a) {
			s.sockBacklog = append(s.sockBacklog, a)
		}
		return
	}
	w.process(a, e)
}

// backlogCoalesce models the coalescing of tcp_add_backlog: a segment
// that finds one of its kind at the tail of s's backlog, following it in
// sequence, with the same flags and options (the timestamps of one
// instant), is merged into it by skb_try_coalesce and never queued.
//
//   - A pure ACK folds into a pure ACK: the tail takes the later
//     acknowledgement and its window. tcp_ack then sees one ACK, and only
//     the last window of a burst: the largest window the peer offered
//     (max_window, which bounds the MSS to half of it in tcp_sync_mss)
//     may never be seen. Measured on Linux 6.18 over loopback
//     (probe/testdata/tcp-backlog-coalesce.zcs): the ACKs of a
//     69632-byte send, offering 95232 and then 62464 bytes, reach the
//     sender as one, and its MSS stays 32768. A clone of the tail held
//     elsewhere (a RAW TCP socket's, a packet tap's that reads later)
//     makes skb_try_coalesce refuse (skb_cloned), and each ACK is
//     processed on its own.
//   - A data segment joins a data segment (mergeSegment).
//
// A pure ACK and a data segment are never merged here, though the kernel
// merges them when they follow each other in sequence.
//
// The options compared include the timestamps (memcmp of the TCP
// options), whose TSval and TSecr count milliseconds (tcp_time_stamp_ts).
// Two ACKs are stamped as their receiver processed two arrivals
// (tcp_mstamp_refresh in tcp_rcv_established), tens of microseconds
// apart, and on a connection that uses timestamps a millisecond may have
// begun between them: the kernel then processes them one by one. The
// model merges them; where that parts from processing both, because the
// window it drops is the largest the sender would have seen and would
// have moved its MSS (max_window, tcp_bound_to_half_wnd), it notes that
// the merge is undetermined (OpBacklogUndetermined), and a World with
// AcksApart processes the two one by one instead: a caller that runs both
// knows which answers hang on it. Measured on Linux 6.18: about
// one run in ten of probe/testdata/tcp-backlog-coalesce-ts.zcs sees both
// ACKs, none of tcp-backlog-coalesce.zcs, without timestamps. The data
// segments merged here are taken to carry the same timestamps, as the
// segments of one tcp_write_xmit do (it reads tcp_clock_cache once).
func (w *World) backlogCoalesce(s *Socket, a arrival) bool {
	n := len(s.sockBacklog)
	if n == 0 || s.sockBacklog[n-1].kind != a.kind || s.tcp == nil {
		return false
	}
	tail := &s.sockBacklog[n-1]
	switch a.kind {
	case arriveAck:
		if w.acksCloned(s) {
			return false
		}
		kept, lost := *tail, a
		if int32(a.ack-tail.ack) >= 0 {
			kept, lost = a, *tail
		}
		if s.tcp.Timestamps() && lost.win > kept.win && s.tcp.WindowMovesMSS(lost.win) {
			if w.AcksApart {
				return false
			}
			s.Sk.Note(kernel.Entry{Op: kernel.OpBacklogUndetermined, Args: [4]int64{kernel.BacklogMergedAcks}})
		}
		tail.ack, tail.win = kept.ack, kept.win
		return true
	case arriveFrame:
		return mergeSegment(&tail.f, a.f)
	}
	return false
}

// mergeSegment merges TCP segment f into tail, the segment before it on
// a socket's backlog, if f starts where tail ends and skb_try_coalesce
// takes f's skb into tail's (never into a clone: over loopback, a copying
// sender's segments while their sender holds them): tail then ends where
// f does, with f's FIN and PSH, its acknowledgement and window when not
// older, and as its gso_size the larger of the two segment sizes
// ("not as strict as GRO"). tcp_v4_do_rcv then takes the two as one
// segment: one rcv_mss measure, one ACK decision, one skb for
// tcp_try_coalesce to add to the receive queue, whose frags may be too
// many for the tail there.
func mergeSegment(tail *frame, f frame) bool {
	if tail.fin || tail.endSeq != f.seq || tail.skb == nil || f.skb == nil || tail.len == 0 || f.len == 0 {
		return false
	}
	gso := max(segSize(*tail), segSize(f))
	if _, ok := skb.TryCoalesce(tail.skb, f.skb); !ok {
		return false
	}
	f.skb.Free() // kfree_skb_partial
	tail.len += f.len
	tail.endSeq, tail.fin, tail.gso = f.endSeq, f.fin, gso
	tail.push = tail.push || f.push
	if f.acks && (!tail.acks || int32(f.ack-tail.ack) >= 0) {
		tail.acks, tail.ack, tail.win = true, f.ack, f.win
	}
	return true
}

// segSize is a TCP segment's gso_size, or its length when it is one
// segment.
func segSize(f frame) int {
	if f.gso > 0 {
		return f.gso
	}
	return f.len
}

// acksCloned says whether the ACKs that reach s over its device are
// cloned for someone else before tcp_v4_rcv: a RAW IPPROTO_TCP socket on
// the device (raw_v4_input, tcpRaw), or a packet tap that reads its copy
// later (dev_queue_xmit_nit on the peer's transmit).
func (w *World) acksCloned(s *Socket) bool {
	for _, t := range s.Dev.Taps {
		if t.Delay > 0 {
			return true
		}
	}
	return len(w.rawSockets(s.Dev, trafficFamily(s.Sk), kernel.IPPROTO_TCP)) > 0
}

// lockSock models lock_sock: segments for s wait on its backlog until
// releaseSock; lockdep sees the socket's lock class taken.
func (s *Socket) lockSock() {
	s.owned = true
	s.Sk.Host().Acquire(s.lockClass(), "lock_sock", s.Sk.Ident())
}

// lockClass is s's socket lock class (kernel.SkLock of its family, which
// socket(2) fixed), named once so that a call's lock_sock allocates
// nothing.
func (s *Socket) lockClass() kernel.LockClass {
	if s.skLock == "" {
		s.skLock = kernel.SkLock(s.Sk.Family)
	}
	return s.skLock
}

// releaseSock models release_sock → __release_sock: the socket's backlog
// is processed in order, with what arrives meanwhile, and then the user
// lets go of the socket. It reports whether it processed anything.
func (w *World) releaseSock(s *Socket) bool {
	ran := w.processBacklog(s)
	if s.owned {
		s.Sk.Host().Release(s.lockClass())
	}
	s.owned = false
	return ran
}

// processBacklog models __release_sock: s's backlog is processed in order,
// with what arrives meanwhile. It reports whether it processed anything.
func (w *World) processBacklog(s *Socket) bool {
	ran := len(s.sockBacklog) > 0
	for n := 0; n < len(s.sockBacklog); n++ {
		a := s.sockBacklog[n]
		s.sockBacklog[n] = arrival{}
		w.runNarrated((*World).process, a)
	}
	clear(s.sockBacklog)
	s.sockBacklog = s.sockBacklog[:0]
	return ran
}

// FlushBacklog implements tcp.Network: sk_flush_backlog, the backlog
// processed while the call keeps the socket (tcp_sendmsg_locked every
// 16 skbs).
func (w *World) FlushBacklog(sk *sock.Sock) bool { return w.processBacklog(w.bySock(sk)) }
