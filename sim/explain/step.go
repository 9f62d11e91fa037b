package explain

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
)

// Step tells what step n of the run did: the call or event and its
// result, then each object it touched with the kernel function the model
// ran and what it did, then why (a copy's reason, a refusal's numbers, a
// notification's merge) and the invariants the step broke. It fails with
// an *Error when the run has no step n.
func Step(tr *sim.Trace, n uint64) (string, error) {
	s := read(tr)
	var ev *sim.Event
	for _, e := range s.events {
		if e.Step == n {
			ev = e
		}
	}
	if ev == nil {
		return "", &Error{fmt.Sprintf("the run has no step %d: its steps are 1..%d", n, len(s.events))}
	}
	var w sentences
	where := ""
	if ev.Source != "" {
		where = ", " + ev.Source
	}
	w.say("Step %d at t=%v%s: %s.", ev.Step, engine.Time(ev.Time), where, ev.Text)
	if ev.Why != "" && ev.Errno != "" {
		w.say("  It failed with %s because %s.", ev.Errno, ev.Why)
	}
	if len(ev.Touched) > 0 {
		w.say("  What the kernel did, in order:")
	}
	for i, t := range ev.Touched {
		w.say("    %v: %s — %s.", t.Object, function(t.Entry), t.Entry.Text())
		s.why(&w, ev, i)
	}
	for _, v := range s.viols {
		if v.Step == n {
			w.say("  It broke invariant %s (docs/invariants.md): %s: %s.", v.Rule, v.Object, v.Message)
		}
	}
	return w.String(), nil
}

// function names the kernel function an entry models, or what it is.
func function(e kernel.Entry) string {
	if f := e.Op.Func(); f != "" {
		return f
	}
	return e.Op.String()
}

// why adds what an entry implies beyond its own text: why a notification
// merged or not, and what made a holder drop its reference.
func (s *story) why(w *sentences, ev *sim.Event, i int) {
	t := ev.Touched[i]
	e := t.Entry
	switch e.Op {
	case kernel.OpNotified:
		w.say("      Why merged=%t: %v.", kernel.Merge(e.Args[3]).Merged(), kernel.Merge(e.Args[3]))
	case kernel.OpUargPut:
		w.say("      %s held it; it let go by %s.", s.holder(e.Holder), dropCause(ev, i, e.Holder))
	}
}
