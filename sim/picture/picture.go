// Package picture draws a run's trace as pictures people would rather
// look at than a timeline: a self-contained HTML page with a lane per
// object (WriteHTML), a Mermaid sequence diagram (WriteMermaid), and a
// Chrome trace-event file that Perfetto and chrome://tracing open
// (WritePerfetto).
//
// # Model
//
// Every picture but the sequence diagram is drawn from the same model,
// built once from the trace's
// records (sim.Trace.Records, which keep every object a step touched):
// the steps in order; a lane per object — sockets, their error queues,
// uargs, skbs, shared infos, in that order and by first appearance within
// a kind — each with the steps it was touched
// at, the refcount each of those left (a uarg's refcnt, an skb's dataref)
// and the step it was freed at; a lane per socket's error queue with the
// notifications queued and read; and the sends that got ids, paired with
// the notification that reported each id. A shared info's lane also
// shows the uarg references it takes and drops (the entries name it as
// holder). Pages are counted, not drawn one by one: a lane for the user's
// pages and one for kernel pages say how many were freed at each step
// (the model notes a page when it is freed, not when it is made).
//
// # Determinism
//
// A picture is a function of the trace: the same run gives the same bytes
// (lanes and steps in trace order, no map iteration, no clock).
package picture

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/explain"
)

// model is what the pictures draw: the steps of a run, its lanes and the
// send-to-notification flows.
type model struct {
	// File, Profile and Seed say what produced the run.
	File, Profile string
	Seed          uint64
	Steps         []step
	Lanes         []*lane
	Flows         []flow
}

// Step is one step: its number, virtual time, the timeline's sentence, and
// the story explain tells of it.
type step struct {
	N    uint64
	Time int64
	Text string
	// Story is the step's explanation (sim/explain.Step).
	Story string
	// Touched are the lanes the step touched, in lane order, once each.
	Touched []int
	// Violations are the invariants the step broke, as the timeline
	// prints them.
	Violations []string
}

// kind is what a lane shows.
type kind uint8

// The kinds of lanes, in the order they are drawn.
const (
	// Socket is a sock#N: its own history (setsockopt, notified, …).
	Socket kind = iota
	// ErrQueue is a socket's error queue: notifications queued and read.
	ErrQueue
	// Uarg is a uarg#N or ubuf#N with its refcnt.
	Uarg
	// Skb is an skb#N with its shared info's dataref.
	Skb
	// Shinfo is a shinfo#N.
	Shinfo
	// Pages counts the live pages of one kind (upage, page).
	Pages
)

// Lane is one row of the picture.
type lane struct {
	Kind kind
	// Name is the object ("uarg#19"), "errqueue s" or "upages"/"pages".
	Name string
	// Marks are the steps that touched it, in order: what happened and the
	// count it left (Value, with HasValue).
	Marks []mark
	// Born and Freed are the steps it appeared and was freed at (Freed 0:
	// alive at the end).
	Born, Freed uint64
}

// Mark is one thing that happened on a lane at a step.
type mark struct {
	Step uint64
	// Text is the history entry as the timeline prints it.
	Text string
	// Op is the entry's JSON op name, "queued" or "read" on an ErrQueue
	// lane, "freed" on a Pages lane.
	Op string
	// Value is the count after the mark: a refcnt, a dataref, a number of
	// queued records, a number of pages freed.
	Value    int64
	HasValue bool
}

// Flow pairs a send that got an id with the notification that reported
// it: an arrow from the socket at the send's step to its error queue at
// the notification's.
type flow struct {
	Socket       string
	ID           uint32
	Send, Notify uint64
	// From and To are the lanes the arrow joins: the socket's and its
	// error queue's (Lane.Name).
	From, To string
}

// build reads a trace into a model, with each step's explanation
// (sim/explain.Step).
func build(tr *sim.Trace) *model {
	b := &builder{run: &model{}, lane: map[string]int{}, sockName: map[kernel.ObjectID]string{}}
	for i := range tr.Records {
		r := &tr.Records[i]
		switch {
		case r.Config != nil:
			b.run.File, b.run.Profile, b.run.Seed = r.Config.File, r.Config.Profile, r.Config.Seed
		case r.Event != nil:
			b.event(r.Event, tr)
		case r.Violation != nil && len(b.run.Steps) > 0:
			v := r.Violation
			st := &b.run.Steps[len(b.run.Steps)-1]
			st.Violations = append(st.Violations, "invariant "+v.Rule+": "+v.Object+": "+v.Message)
		}
	}
	b.flows()
	b.order()
	return b.run
}

// order sorts the lanes by Kind, keeping the order of first appearance
// within a kind, and renumbers the steps' references to them.
func (b *builder) order() {
	idx := make([]int, len(b.run.Lanes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(b.run.Lanes[x].Kind, b.run.Lanes[y].Kind) })
	renum := make([]int, len(idx))
	lanes := make([]*lane, len(idx))
	for to, from := range idx {
		renum[from] = to
		lanes[to] = b.run.Lanes[from]
	}
	b.run.Lanes = lanes
	for i := range b.run.Steps {
		st := &b.run.Steps[i]
		for j, l := range st.Touched {
			st.Touched[j] = renum[l]
		}
		slices.Sort(st.Touched)
	}
}

type builder struct {
	run  *model
	lane map[string]int
	// sockName is the scenario's name of each socket object, learned from
	// the sends and reads on it.
	sockName map[kernel.ObjectID]string
	// sends are the ids each socket's sends got, with their steps.
	sends []flow
	// queued counts each error queue's zerocopy records.
	queued map[string]int64
}

// laneOf returns the index of the lane named name, making it.
func (b *builder) laneOf(k kind, name string, step uint64) int {
	if i, ok := b.lane[name]; ok {
		return i
	}
	b.run.Lanes = append(b.run.Lanes, &lane{Kind: k, Name: name, Born: step})
	b.lane[name] = len(b.run.Lanes) - 1
	return len(b.run.Lanes) - 1
}

func kindOf(id kernel.ObjectID) (kind, bool) {
	switch id.Kind {
	case "sock":
		return Socket, true
	case "uarg", "ubuf":
		return Uarg, true
	case "skb":
		return Skb, true
	case "shinfo":
		return Shinfo, true
	case "upage", "page":
		return Pages, true
	}
	return 0, false
}

func (b *builder) event(e *sim.Event, tr *sim.Trace) {
	st := step{N: e.Step, Time: e.Time, Text: e.Text}
	if s, err := explain.Step(tr, e.Step); err == nil {
		st.Story = s
	}
	if b.queued == nil {
		b.queued = map[string]int64{}
	}
	touched := map[int]bool{}
	touch := func(i int) {
		if !touched[i] {
			touched[i] = true
			st.Touched = append(st.Touched, i)
		}
	}
	if e.UargID != nil && e.Socket != "" {
		// Recorded before the step's touches: over loopback a send's
		// notification can be queued within the send's own step.
		b.sends = append(b.sends, flow{Socket: e.Socket, ID: *e.UargID, Send: e.Step})
	}
	for _, t := range e.Touched {
		kind, ok := kindOf(t.Object)
		if !ok {
			continue
		}
		if kind == Pages {
			touch(b.page(t, e.Step))
			continue
		}
		i := b.laneOf(kind, t.Object.String(), e.Step)
		l := b.run.Lanes[i]
		m := mark{Step: e.Step, Text: t.Entry.Text(), Op: t.Entry.Op.String()}
		if _, after, ok := t.Entry.Refcount(); ok {
			m.Value, m.HasValue = after, true
		}
		l.Marks = append(l.Marks, m)
		if t.Entry.Op == kernel.OpFreed {
			l.Freed = e.Step
		}
		touch(i)
		if _, known := b.sockName[t.Object]; !known && t.Entry.Op == kernel.OpNotified && e.Socket != "" {
			// A step of another socket (a peer's delayed-ACK timer)
			// may queue the notification: the uarg's socket is known.
			b.sockName[t.Object] = e.Socket
		}
		if t.Entry.Op == kernel.OpZerocopyAlloc && e.Socket != "" {
			b.sockName[t.Entry.Peer] = e.Socket
		}
		if t.Entry.Op == kernel.OpNotified {
			touch(b.notified(t, e.Step))
		}
		if h := holderShinfo(t.Entry); h != "" {
			j := b.laneOf(Shinfo, h, e.Step)
			b.run.Lanes[j].Marks = append(b.run.Lanes[j].Marks, mark{Step: e.Step, Op: t.Entry.Op.String(),
				Text: t.Object.String() + ": " + t.Entry.Text()})
			touch(j)
		}
	}
	if n := e.Notification; n != nil && n.Origin == kernel.SO_EE_ORIGIN_ZEROCOPY && e.Socket != "" {
		touch(b.read(e))
	}
	b.run.Steps = append(b.run.Steps, st)
}

// holderShinfo names the shared info an entry names as the holder of a
// uarg reference or as an skb's new private shared info, or "".
func holderShinfo(e kernel.Entry) string {
	switch e.Op {
	case kernel.OpUargGet, kernel.OpUargPut, kernel.OpExpandHead:
		if e.Holder.Kind == "shinfo" {
			return e.Holder.String()
		}
	case kernel.OpUargHandoff:
		if e.Peer.Kind == "shinfo" {
			return e.Peer.String()
		}
	}
	return ""
}

// page counts a freed page on its kind's lane ("upages", "pages").
func (b *builder) page(t sim.Touch, step uint64) int {
	name := t.Object.Kind + "s"
	i := b.laneOf(Pages, name, step)
	l := b.run.Lanes[i]
	if t.Entry.Op != kernel.OpFreed {
		return i
	}
	if n := len(l.Marks); n > 0 && l.Marks[n-1].Step == step {
		l.Marks[n-1].Value++
		l.Marks[n-1].Text = fmt.Sprintf("%d %s freed", l.Marks[n-1].Value, name)
		return i
	}
	l.Marks = append(l.Marks, mark{Step: step, Op: "freed", Value: 1, HasValue: true, Text: "1 " + name + " freed"})
	return i
}

// errqName names the error-queue lane of the socket object sock.
func (b *builder) errqName(sock kernel.ObjectID) string {
	if name, ok := b.sockName[sock]; ok {
		return "errqueue " + name
	}
	return "errqueue " + sock.String()
}

// notified marks a notification reaching sock's error queue.
func (b *builder) notified(t sim.Touch, step uint64) int {
	name := b.errqName(t.Object)
	i := b.laneOf(ErrQueue, name, step)
	m := kernel.Merge(t.Entry.Args[3])
	if !m.Merged() {
		b.queued[name]++
	}
	b.run.Lanes[i].Marks = append(b.run.Lanes[i].Marks, mark{Step: step, Op: "queued", Text: t.Entry.Text(),
		Value: b.queued[name], HasValue: true})
	for k := range b.sends {
		f := &b.sends[k]
		if f.Notify == 0 && "errqueue "+f.Socket == name && within(f.ID, t.Entry.Args[0], t.Entry.Args[1]) {
			f.Notify = step
		}
	}
	return i
}

// read marks an error-queue read that returned a zerocopy record.
func (b *builder) read(e *sim.Event) int {
	name := "errqueue " + e.Socket
	i := b.laneOf(ErrQueue, name, e.Step)
	b.queued[name]--
	n := e.Notification
	text := fmt.Sprintf("read [%d,%d]", n.Info, n.Data)
	if n.Code&kernel.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
		text += " COPIED"
	}
	b.run.Lanes[i].Marks = append(b.run.Lanes[i].Marks, mark{Step: e.Step, Op: "read", Text: text,
		Value: b.queued[name], HasValue: true})
	return i
}

// within reports whether id lies in [lo, hi], modulo 2^32.
func within(id uint32, lo, hi int64) bool { return id-uint32(lo) <= uint32(hi)-uint32(lo) }

// flows keeps the sends whose notification the run queued, joining the
// socket's lane to its error queue's.
func (b *builder) flows() {
	lanes := map[string]string{}
	for obj, name := range b.sockName {
		lanes[name] = obj.String()
	}
	for _, f := range b.sends {
		if f.Notify != 0 {
			f.From, f.To = lanes[f.Socket], "errqueue "+f.Socket
			if f.From == "" {
				f.From = f.To
			}
			b.run.Flows = append(b.run.Flows, f)
		}
	}
}
