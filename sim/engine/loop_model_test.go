package engine_test

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/sim/engine"
)

// modelEvent is an event as the model sees it.
type modelEvent struct {
	h     engine.Handle
	ev    engine.Event
	child engine.Duration // if ≥ 0, the event schedules a child this long after it fires
}

// firing is what an event's fn observed while it ran.
type firing struct {
	seq         uint64
	now         engine.Time
	pendingSelf bool
}

// loopMachine drives a Loop and a sorted-slice model of its queue side by side.
type loopMachine struct {
	loop    *engine.Loop
	other   *engine.Loop // never scheduled on: other Loops' handles must be inert here
	pending []modelEvent // sorted by (At, Seq)
	handles []engine.Handle
	fired   []firing
	now     engine.Time
	seq     uint64
}

func newLoopMachine() *loopMachine {
	m := &loopMachine{loop: new(engine.Loop), other: new(engine.Loop), handles: []engine.Handle{{}}}
	return m
}

// schedule schedules on the loop and, when that succeeds, in the model.
func (m *loopMachine) schedule(t *rapid.T, at engine.Time, label string, child engine.Duration) {
	var me modelEvent
	h, err := m.loop.Schedule(at, label, func() {
		m.fired = append(m.fired, firing{seq: me.ev.Seq, now: m.loop.Now(), pendingSelf: m.loop.Pending(me.h)})
		if me.child >= 0 {
			m.schedule(t, m.loop.Now().Add(me.child), label+"/child", -1)
		}
	})
	if at < m.loop.Now() {
		if err == nil || h != (engine.Handle{}) {
			t.Fatalf("Schedule(%v) before now %v: got (%v, %v), want an error", at, m.loop.Now(), h, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Schedule(%v): %v", at, err)
	}
	m.seq++
	me = modelEvent{h: h, ev: engine.Event{At: at, Seq: m.seq, Label: label}, child: child}
	m.pending = append(m.pending, me)
	slices.SortFunc(m.pending, func(a, b modelEvent) int {
		return cmp.Or(cmp.Compare(a.ev.At, b.ev.At), cmp.Compare(a.ev.Seq, b.ev.Seq))
	})
	m.handles = append(m.handles, h)
}

// settle checks the events fired by the last operation against the model, in order,
// and removes them from it. It returns how many fired.
func (m *loopMachine) settle(t *rapid.T) int {
	n := len(m.fired)
	for _, f := range m.fired {
		if len(m.pending) == 0 {
			t.Fatalf("event seq %d fired, but the model has none pending", f.seq)
		}
		want := m.pending[0]
		m.pending = m.pending[1:]
		if f.seq != want.ev.Seq || f.now != want.ev.At || f.pendingSelf {
			t.Fatalf("fired %+v, want seq %d at %v and not pending", f, want.ev.Seq, want.ev.At)
		}
		m.now = want.ev.At
	}
	m.fired = m.fired[:0]
	return n
}

// dueBy reports whether the model has an event due at or before at.
func (m *loopMachine) dueBy(at engine.Time) bool {
	return len(m.pending) > 0 && m.pending[0].ev.At <= at
}

func (m *loopMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"schedule": func(t *rapid.T) {
			at := m.loop.Now().Add(engine.Duration(rapid.Int64Range(-3, 20).Draw(t, "dt")))
			label := rapid.SampledFrom([]string{"rto", "ack", "xmit"}).Draw(t, "label")
			child := engine.Duration(rapid.Int64Range(-1, 3).Draw(t, "child"))
			m.schedule(t, at, label, child)
		},
		"cancel": func(t *rapid.T) {
			h := rapid.SampledFrom(m.handles).Draw(t, "h")
			if m.other.Cancel(h) {
				t.Fatalf("another Loop cancelled %v", h)
			}
			i := slices.IndexFunc(m.pending, func(me modelEvent) bool { return me.h == h })
			if got := m.loop.Cancel(h); got != (i >= 0) {
				t.Fatalf("Cancel = %v, want %v", got, i >= 0)
			}
			if i >= 0 {
				m.pending = slices.Delete(m.pending, i, i+1)
			}
		},
		"step": func(t *rapid.T) {
			want := len(m.pending) > 0
			if got := m.loop.Step(); got != want {
				t.Fatalf("Step = %v, want %v", got, want)
			}
			if n := m.settle(t); n != boolInt(want) {
				t.Fatalf("Step ran %d events", n)
			}
		},
		"runUntil": func(t *rapid.T) {
			until := m.loop.Now().Add(engine.Duration(rapid.Int64Range(-2, 30).Draw(t, "dt")))
			max := rapid.IntRange(0, 8).Draw(t, "max")
			n, err := m.loop.RunUntil(until, max)
			m.check(t, n, err, until, false, max)
		},
		"runUntilIdle": func(t *rapid.T) {
			max := rapid.IntRange(0, 8).Draw(t, "max")
			n, err := m.loop.RunUntilIdle(max)
			m.check(t, n, err, engine.Time(math.MaxInt64), true, max)
		},
		"": func(t *rapid.T) {
			if got, want := m.loop.Len(), len(m.pending); got != want {
				t.Fatalf("Len = %d, want %d", got, want)
			}
			if m.loop.Now() != m.now {
				t.Fatalf("Now = %v; want %v", m.loop.Now(), m.now)
			}
			next, ok := m.loop.Peek()
			if ok != (len(m.pending) > 0) || ok && next != m.pending[0].ev {
				t.Fatalf("Peek = %+v, %v; model %+v", next, ok, m.pending)
			}
			for _, h := range m.handles {
				want := slices.ContainsFunc(m.pending, func(me modelEvent) bool { return me.h == h })
				if m.loop.Pending(h) != want || m.other.Pending(h) {
					t.Fatalf("Pending(%v) = %v, other %v; want %v", h, m.loop.Pending(h), m.other.Pending(h), want)
				}
			}
		},
	}
}

// check checks the result of RunUntil(until, max), or of RunUntilIdle(max) if idle.
func (m *loopMachine) check(t *rapid.T, n int, err error, until engine.Time, idle bool, max int) {
	if until < m.now {
		if err == nil || n != 0 || len(m.fired) != 0 {
			t.Fatalf("RunUntil(%v) before now %v: ran %d, err %v", until, m.now, n, err)
		}
		return
	}
	if got := m.settle(t); got != n {
		t.Fatalf("ran %d events, reported %d", got, n)
	}
	var le *engine.LimitError
	switch {
	case errors.As(err, &le):
		if n != max || !m.dueBy(until) || le.Next != m.pending[0].ev || le.Max != max || le.Now != m.now {
			t.Fatalf("LimitError %+v after %d events; model %+v", le, n, m.pending)
		}
	case err != nil:
		t.Fatalf("unexpected error: %v", err)
	case m.dueBy(until):
		t.Fatalf("returned with %+v still due by %v", m.pending[0].ev, until)
	case !idle:
		m.now = until
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestLoopModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t.Repeat(newLoopMachine().actions())
	})
}
