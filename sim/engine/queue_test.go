package engine_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/engine"
)

// drain pops every event of q and returns their labels in order.
func drain(q *engine.Queue) []string {
	var labels []string
	for {
		ev, fn, ok := q.Pop()
		if !ok {
			return labels
		}
		fn()
		labels = append(labels, ev.Label)
	}
}

func nop() {}

func TestQueueOrdersByTimeThenSeq(t *testing.T) {
	var q engine.Queue
	q.Schedule(20, "c", nop)
	q.Schedule(10, "a", nop)
	q.Schedule(30, "e", nop)
	q.Schedule(10, "b", nop)
	q.Schedule(20, "d", nop)
	next, ok := q.Peek()
	require.True(t, ok)
	require.Equal(t, engine.Event{At: 10, Seq: 2, Label: "a"}, next)
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, drain(&q)); diff != "" {
		t.Errorf("firing order (-want +got):\n%s", diff)
	}
	_, ok = q.Peek()
	require.False(t, ok)
}

func TestCancelIsAlwaysSafe(t *testing.T) {
	var q, other engine.Queue
	require.False(t, q.Cancel(engine.Handle{}), "zero Handle")
	require.False(t, q.Pending(engine.Handle{}))

	a := q.Schedule(5, "a", nop)
	require.True(t, q.Pending(a))
	require.False(t, other.Pending(a), "handle of another queue")
	require.False(t, other.Cancel(a), "handle of another queue")
	require.True(t, q.Cancel(a))
	require.False(t, q.Cancel(a), "second cancel")
	require.False(t, q.Pending(a))
	require.Zero(t, q.Len())

	// b reuses a's storage; a's handle must not reach it.
	b := q.Schedule(5, "b", nop)
	require.False(t, q.Cancel(a), "stale handle after reuse")
	require.True(t, q.Pending(b))

	_, _, ok := q.Pop()
	require.True(t, ok)
	require.False(t, q.Pending(b), "fired")
	require.False(t, q.Cancel(b), "fired")
	c := q.Schedule(6, "c", nop)
	require.False(t, q.Cancel(b), "fired, storage reused")
	require.True(t, q.Pending(c))
}

func TestCancelKeepsHeapOrder(t *testing.T) {
	var q engine.Queue
	var hs []engine.Handle
	for i, label := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		hs = append(hs, q.Schedule(engine.Time(7-i), label, nop))
	}
	require.True(t, q.Cancel(hs[3]))
	require.True(t, q.Cancel(hs[0]))
	require.Equal(t, 5, q.Len())
	if diff := cmp.Diff([]string{"g", "f", "e", "c", "b"}, drain(&q)); diff != "" {
		t.Errorf("firing order (-want +got):\n%s", diff)
	}
}

func TestScheduleNilFnPanics(t *testing.T) {
	var q engine.Queue
	require.PanicsWithValue(t, `engine: Schedule(5us, "rto"): nil fn`, func() { q.Schedule(5000, "rto", nil) })
}

func TestLoopRunsInOrder(t *testing.T) {
	var l engine.Loop
	var got []engine.Event
	ran := func(label string) func() {
		return func() { got = append(got, engine.Event{At: l.Now(), Label: label}) }
	}
	_, err := l.Schedule(10, "late", ran("late"))
	require.NoError(t, err)
	_, err = l.After(3, "early", func() {
		ran("early")()
		_, err := l.After(0, "same-time", ran("same-time"))
		require.NoError(t, err)
	})
	require.NoError(t, err)

	n, err := l.RunUntil(5, 10)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, engine.Time(5), l.Now(), "RunUntil sets Now to its bound")

	require.True(t, l.Step())
	require.False(t, l.Step(), "empty queue")
	require.Equal(t, engine.Time(10), l.Now())
	want := []engine.Event{{At: 3, Label: "early"}, {At: 3, Label: "same-time"}, {At: 10, Label: "late"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events run (-want +got):\n%s", diff)
	}
}

func TestLoopRejectsThePast(t *testing.T) {
	var l engine.Loop
	_, err := l.RunUntil(engine.Time(engine.Millisecond), 1)
	require.NoError(t, err)

	h, err := l.Schedule(999*engine.Time(engine.Microsecond), "rto", nop)
	require.EqualError(t, err, `engine: event "rto" scheduled at 999us, before now (1ms)`)
	require.Equal(t, engine.Handle{}, h)
	_, err = l.After(-1, "rto", nop)
	require.EqualError(t, err, `engine: event "rto" scheduled at 999.999us, before now (1ms)`)
	_, err = l.After(1<<63-1, "rto", nop)
	require.EqualError(t, err, `engine: event "rto" scheduled 9223372036.854775807s after 1ms overflows virtual time`)
	_, err = l.RunUntil(0, 1)
	require.EqualError(t, err, `engine: RunUntil(0s) is before now (1ms)`)
	require.Zero(t, l.Len())
	require.Equal(t, engine.Time(engine.Millisecond), l.Now())
}

func TestLoopLivelockGuard(t *testing.T) {
	var l engine.Loop
	var tick func()
	tick = func() {
		_, err := l.After(engine.Microsecond, "tick", tick)
		require.NoError(t, err)
	}
	_, err := l.After(0, "tick", tick)
	require.NoError(t, err)

	n, err := l.RunUntilIdle(5)
	require.Equal(t, 5, n)
	var le *engine.LimitError
	require.True(t, errors.As(err, &le))
	require.Equal(t, engine.LimitError{Max: 5, Now: 4000, Next: engine.Event{At: 5000, Seq: 6, Label: "tick"}}, *le)
	require.EqualError(t, err, `engine: stopped after 5 events at 4us with event "tick" (seq 6) at 5us still due; livelock?`)

	n, err = l.RunUntil(engine.Time(engine.Second), 0)
	require.Zero(t, n)
	require.ErrorAs(t, err, &le)
	require.Equal(t, engine.Time(4000), l.Now(), "a stopped run leaves Now at the last event")

	n, err = l.RunUntil(7000, 100)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	next, ok := l.Peek()
	require.True(t, ok)
	require.Equal(t, engine.Time(8000), next.At)
}

func TestStepFromInsideAnEventPanics(t *testing.T) {
	var l engine.Loop
	_, err := l.After(0, "reenter", func() { l.Step() })
	require.NoError(t, err)
	require.PanicsWithValue(t, "engine: Loop.Step called from inside an event", func() { l.Step() })
	require.False(t, l.Step(), "the loop is usable after the panic")
}

func TestLoopCancel(t *testing.T) {
	var l engine.Loop
	h, err := l.After(5, "rto", func() { t.Fatal("cancelled event ran") })
	require.NoError(t, err)
	require.True(t, l.Pending(h))
	require.True(t, l.Cancel(h))
	require.False(t, l.Cancel(h))
	n, err := l.RunUntilIdle(10)
	require.NoError(t, err)
	require.Zero(t, n)
}
