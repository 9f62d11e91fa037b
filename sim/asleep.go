package sim

import (
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/tcp"
)

// Asleep is a blocking TCP send asleep in sk_stream_wait_memory while the
// program's other threads and processes make their calls: a Send, SendTo
// or SendMsg whose Call was Background returned it (Result.Asleep) once
// the call had queued what fitted and had to wait for send buffer. As the
// kernel's sk_stream_write_space wakes the sleeping task when an ACK
// frees memory, the World lets it go on after every step — a network
// event, or another call whose ACKs loopback delivered within it — in its
// own context (wakeTCP), whatever call or wait runs the network: each
// wake-up that queues something is a step of its own, and the one that
// queues the last byte ends the call with its result, recorded then.
// Interrupt ends it from the program's side.
type Asleep struct {
	w    *World
	c    Call
	s    *Socket
	call *tcp.SendCall
	buf  *mm.Buffer
	done bool
	res  Result
}

// Done reports whether the call has returned.
func (a *Asleep) Done() bool { return a.done }

// Copied returns the bytes the call has queued so far.
func (a *Asleep) Copied() int { return a.call.Copied() }

// Interrupt ends the call now, as a signal or SO_SNDTIMEO ends
// sk_stream_wait_memory (sock_intr_errno): it returns the bytes queued so
// far, or err when there are none (tcp_sendmsg_locked's do_error). A call
// that has returned keeps its result.
func (a *Asleep) Interrupt(err kernel.Errno) Result {
	if !a.done {
		a.w.beginOn(a.s)
		a.call.Interrupt(err)
		a.end()
	}
	return a.res
}

// Wake lets the call go on if something woke it since it slept (an ACK
// that left its queue writeable, an error: tcp.SendCall.Resume); it
// reports whether the call returned.
func (a *Asleep) Wake() bool { return a.wakeWith(a.call.Resume) }

// WakeUp is sk_stream_write_space's wake-up, which a front end asserts
// after it changed what the call waits for (a send buffer it assumes
// larger, tcp_new_space): the call goes on if its wait's condition holds
// (tcp.SendCall.ResumeWoken); it reports whether the call returned.
func (a *Asleep) WakeUp() bool { return a.wakeWith(a.call.ResumeWoken) }

func (a *Asleep) wakeWith(resume func()) bool {
	if !a.done && a.w.wakeTCP(a.c, a.s, a.call, resume) {
		a.end()
	}
	return a.done
}

// end records the call's result in the step begun and forgets it.
func (a *Asleep) end() {
	a.done = true
	a.res = a.w.sentTCP(a.c, a.s, a.call, a.buf, false)
	a.buf.Unmap()
	a.w.asleep = slices.DeleteFunc(a.w.asleep, func(b *Asleep) bool { return b == a })
}

// wake lets every send asleep go on after a step, the last asleep first
// (one that returns leaves the list): a network event's, or a call's of
// another thread that freed send buffer (its read's window update,
// acknowledged on loopback within the call). A send whose socket another
// call holds (lock_sock) waits for it.
func (w *World) wake() {
	w.waking = true
	defer func() { w.waking = false }()
	for i := len(w.asleep) - 1; i >= 0; i-- {
		if a := w.asleep[i]; !a.s.owned {
			a.Wake()
		}
	}
}
