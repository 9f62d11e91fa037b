package engine

import (
	"container/heap"
	"fmt"
)

// Event describes a scheduled event. It is a plain value, safe to keep after the event
// fired.
type Event struct {
	At    Time   // when the event fires
	Seq   uint64 // scheduling order within its Queue, from 1; breaks ties between equal At
	Label string // a short name for traces, e.g. "tcp/rto"
}

// Handle names one scheduled event, in the style of ns-3's EventId. It is a small
// comparable value; the zero Handle names no event.
//
// Every operation on a Handle is safe whatever became of its event: cancelling a
// zero Handle, a fired or cancelled event, a Handle from another Queue, or twice, is a
// no-op. Event storage is reused, so a Handle also holds the event's sequence number;
// a stale Handle never matches the later event that reuses its storage.
type Handle struct {
	ev  *event
	seq uint64
}

// event is the storage of a scheduled event. While pending, index is its position in
// the heap; once fired or cancelled it is poisoned (seq 0, fn nil, index -1) and kept
// on the free list for reuse.
type event struct {
	Event
	fn    func()
	index int
	q     *Queue
}

// Queue is a priority queue of events ordered by (At, Seq): the earliest time first,
// and events at the same time in the order they were scheduled. It is a binary heap in
// the style of container/heap's priority-queue example. Queue has no notion of the
// present; [Loop] owns the clock and rejects events in the past.
//
// The zero Queue is empty and ready to use. A Queue must not be copied after first use.
type Queue struct {
	h    eventHeap
	free []*event // poisoned events for reuse; at most the high-water mark of Len
	seq  uint64   // last sequence number issued
}

// Schedule adds an event that runs fn at time at, and returns its Handle.
//
// Preconditions: fn is not nil.
func (q *Queue) Schedule(at Time, label string, fn func()) Handle {
	if fn == nil {
		panic(fmt.Sprintf("engine: Schedule(%v, %q): nil fn", at, label))
	}
	q.seq++
	var ev *event
	if n := len(q.free); n > 0 {
		ev, q.free = q.free[n-1], q.free[:n-1]
	} else {
		ev = &event{q: q}
	}
	ev.Event = Event{At: at, Seq: q.seq, Label: label}
	ev.fn = fn
	heap.Push(&q.h, ev)
	return Handle{ev: ev, seq: ev.Seq}
}

// Pending reports whether h names an event of q that has neither fired nor been
// cancelled. An event is not pending while its fn runs.
func (q *Queue) Pending(h Handle) bool {
	return h.ev != nil && h.ev.q == q && h.ev.Seq == h.seq
}

// Cancel removes h's event if it is pending and reports whether it did. It is always
// safe; see [Handle].
func (q *Queue) Cancel(h Handle) bool {
	if !q.Pending(h) {
		return false
	}
	q.release(heap.Remove(&q.h, h.ev.index).(*event))
	return true
}

// Len returns the number of pending events.
func (q *Queue) Len() int { return len(q.h) }

// Peek returns the next event to fire without removing it; ok is false when q is empty.
func (q *Queue) Peek() (ev Event, ok bool) {
	if len(q.h) == 0 {
		return Event{}, false
	}
	return q.h[0].Event, true
}

// Pop removes the next event and returns it with its fn; ok is false when q is empty.
// The caller runs fn; the event is no longer pending.
func (q *Queue) Pop() (ev Event, fn func(), ok bool) {
	if len(q.h) == 0 {
		return Event{}, nil, false
	}
	e := heap.Pop(&q.h).(*event)
	ev, fn = e.Event, e.fn
	q.release(e)
	return ev, fn, true
}

// release poisons e, so stale Handles no longer match it, and keeps it for reuse.
func (q *Queue) release(e *event) {
	e.Event, e.fn, e.index = Event{}, nil, -1
	q.free = append(q.free, e)
}

// eventHeap implements heap.Interface; Swap maintains each event's index.
type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }

func (h eventHeap) Less(i, j int) bool {
	if h[i].At != h[j].At {
		return h[i].At < h[j].At
	}
	return h[i].Seq < h[j].Seq
}

func (h eventHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *eventHeap) Push(x any) {
	e := x.(*event)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *eventHeap) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}
