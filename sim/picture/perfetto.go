package picture

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/zcsim/zcsim/sim"
)

// stepUS is how long a step lasts in a Perfetto trace, in microseconds:
// steps, not virtual time, are the axis (many steps share an instant),
// and each event's args carry the virtual time.
const stepUS = 1000

// event is one Chrome trace event (the Trace Event Format's JSON object).
type event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  int64          `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid,omitempty"`
	ID   int            `json:"id,omitempty"`
	S    string         `json:"s,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// WritePerfetto writes the run as a Chrome trace-event JSON file that
// Perfetto (ui.perfetto.dev) and chrome://tracing open: a track per lane
// (a thread named after the object, in lane order), a slice for each
// object's life, an instant for each thing that happened to it (its
// history entry and step in args), a counter per object that has a
// refcount (refcnt, dataref, queued records, pages freed), and a flow
// arrow from each send that got an id to the notification that reported
// it. Step N starts at N milliseconds; args give the virtual time.
func WritePerfetto(w io.Writer, tr *sim.Trace) error {
	r := build(tr)
	evs := []event{{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": "zcsim " + r.File}}}
	tid := map[string]int{}
	last := uint64(0)
	if n := len(r.Steps); n > 0 {
		last = r.Steps[n-1].N
	}
	time := map[uint64]int64{}
	for _, st := range r.Steps {
		time[st.N] = st.Time
	}
	for i, l := range r.Lanes {
		t := i + 1
		tid[l.Name] = t
		evs = append(evs,
			event{Name: "thread_name", Ph: "M", Pid: 1, Tid: t, Args: map[string]any{"name": l.Name}},
			event{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: t, Args: map[string]any{"sort_index": t}})
		end := l.Freed
		if end == 0 {
			end = last
		}
		evs = append(evs, event{Name: l.Name, Cat: kindName[l.Kind], Ph: "X", Ts: int64(l.Born) * stepUS,
			Dur: int64(end-l.Born+1) * stepUS, Pid: 1, Tid: t})
		for _, m := range l.Marks {
			evs = append(evs, event{Name: m.Op, Cat: kindName[l.Kind], Ph: "i", S: "t", Ts: int64(m.Step)*stepUS + stepUS/2,
				Pid: 1, Tid: t, Args: map[string]any{"step": m.Step, "text": m.Text, "time_ns": time[m.Step]}})
			if m.HasValue {
				evs = append(evs, event{Name: counterName[l.Kind] + " " + l.Name, Ph: "C", Ts: int64(m.Step) * stepUS,
					Pid: 1, Args: map[string]any{counterName[l.Kind]: m.Value}})
			}
		}
	}
	for i, f := range r.Flows {
		name := fmt.Sprintf("id %d", f.ID)
		from, to := tid[f.From], tid[f.To]
		evs = append(evs,
			event{Name: "send " + name, Cat: "flow", Ph: "X", Ts: int64(f.Send) * stepUS, Dur: stepUS / 4, Pid: 1, Tid: from,
				Args: map[string]any{"step": f.Send, "socket": f.Socket}},
			event{Name: name, Cat: "flow", Ph: "s", ID: i + 1, Ts: int64(f.Send) * stepUS, Pid: 1, Tid: from},
			event{Name: "notification " + name, Cat: "flow", Ph: "X", Ts: int64(f.Notify) * stepUS, Dur: stepUS / 4, Pid: 1, Tid: to,
				Args: map[string]any{"step": f.Notify, "socket": f.Socket}},
			event{Name: name, Cat: "flow", Ph: "f", Bp: "e", ID: i + 1, Ts: int64(f.Notify) * stepUS, Pid: 1, Tid: to})
	}
	doc := struct {
		TraceEvents     []event        `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		Metadata        map[string]any `json:"metadata"`
	}{evs, "ms", map[string]any{"file": r.File, "profile": r.Profile, "seed": r.Seed, "step_us": stepUS}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}

var kindName = [...]string{Socket: "socket", ErrQueue: "errqueue", Uarg: "uarg", Skb: "skb", Shinfo: "shinfo", Pages: "pages"}

var counterName = [...]string{Socket: "value", ErrQueue: "records", Uarg: "refcnt", Skb: "dataref", Shinfo: "value", Pages: "freed"}
