package engine

import (
	"fmt"
)

// Loop is the event loop: it owns the clock (Now) and a [Queue], and runs events in
// (At, Seq) order, advancing Now to each event's time. It numbers nothing: the step
// numbers of a trace are the simulation's (kernel.Host.Step), which counts system calls
// as well as events.
//
// The zero Loop is at time 0 with no events, ready to use. A Loop is not safe for
// concurrent use, and must not be copied after first use.
type Loop struct {
	q       Queue
	now     Time
	running bool // an event's fn is running
}

// LimitError reports that a run stopped after Max events while an eligible event was
// still pending: the guard against livelock (events that keep scheduling events).
type LimitError struct {
	Max  int   // the bound given to the run
	Now  Time  // the clock when the run stopped
	Next Event // the first event left unrun
}

// Error names the bound and the next event.
func (e *LimitError) Error() string {
	return fmt.Sprintf("engine: stopped after %d events at %v with event %q (seq %d) at %v still due; livelock?",
		e.Max, e.Now, e.Next.Label, e.Next.Seq, e.Next.At)
}

// Now returns the current virtual time.
func (l *Loop) Now() Time { return l.now }

// Schedule arranges for fn to run at time at. It fails, scheduling nothing, if at is
// before Now; at == Now is allowed and runs after every event already due at Now.
//
// Preconditions: fn is not nil.
func (l *Loop) Schedule(at Time, label string, fn func()) (Handle, error) {
	if at < l.now {
		return Handle{}, fmt.Errorf("engine: event %q scheduled at %v, before now (%v)", label, at, l.now)
	}
	return l.q.Schedule(at, label, fn), nil
}

// After arranges for fn to run d after Now. It fails, scheduling nothing, if d is
// negative or Now+d overflows virtual time.
//
// Preconditions: fn is not nil.
func (l *Loop) After(d Duration, label string, fn func()) (Handle, error) {
	if d >= 0 && l.now.Add(d) < l.now {
		return Handle{}, fmt.Errorf("engine: event %q scheduled %v after %v overflows virtual time", label, d, l.now)
	}
	return l.Schedule(l.now.Add(d), label, fn)
}

// Cancel removes h's event if it is pending and reports whether it did. It is always
// safe; see [Handle].
func (l *Loop) Cancel(h Handle) bool { return l.q.Cancel(h) }

// Pending reports whether h's event is still to run.
func (l *Loop) Pending(h Handle) bool { return l.q.Pending(h) }

// Len returns the number of pending events.
func (l *Loop) Len() int { return l.q.Len() }

// Peek returns the next event to run without running it; ok is false when none is
// pending.
func (l *Loop) Peek() (ev Event, ok bool) { return l.q.Peek() }

// Step runs the next event, if any: it advances Now to the event's time and runs its
// fn. It reports whether an event ran.
//
// Preconditions: not called from inside an event's fn.
func (l *Loop) Step() bool {
	if l.running {
		panic("engine: Loop.Step called from inside an event")
	}
	ev, fn, ok := l.q.Pop()
	if !ok {
		return false
	}
	l.running = true
	defer func() { l.running = false }()
	l.now = ev.At
	fn()
	return true
}

// RunUntil runs, in order, every event due at or before t, including events they
// schedule, then sets Now to t. It returns the number of events run.
//
// It fails without running anything if t is before Now, and fails with a
// [*LimitError], leaving Now at the last event run, if an event is still due after
// maxEvents events.
func (l *Loop) RunUntil(t Time, maxEvents int) (n int, err error) {
	if t < l.now {
		return 0, fmt.Errorf("engine: RunUntil(%v) is before now (%v)", t, l.now)
	}
	n, err = l.run(t, maxEvents)
	if err == nil {
		l.now = t
	}
	return n, err
}

// RunUntilIdle runs events until none is pending and returns how many ran; Now is the
// time of the last one. It fails with a [*LimitError] if events remain after maxEvents.
func (l *Loop) RunUntilIdle(maxEvents int) (n int, err error) {
	return l.run(maxTime, maxEvents)
}

// run steps through the events due at or before t, at most maxEvents of them.
func (l *Loop) run(t Time, maxEvents int) (n int, err error) {
	for {
		next, ok := l.q.Peek()
		if !ok || next.At > t {
			return n, nil
		}
		if n >= maxEvents {
			return n, &LimitError{Max: maxEvents, Now: l.now, Next: next}
		}
		l.Step()
		n++
	}
}
