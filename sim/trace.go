package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim/engine"
)

// SchemaVersion is the version of the JSON Lines trace. It changes when a
// field changes meaning or disappears; adding a field does not change it.
const SchemaVersion = 1

// Trace is the ordered list of records a run produced. It renders as a
// readable timeline (WriteText) or as JSON Lines (WriteJSON); both are
// deterministic functions of the run.
type Trace struct {
	Records []Record
}

func (tr *Trace) add(r Record) { tr.Records = append(tr.Records, r) }

// Record is one line of the trace. Exactly one field is set; its JSON
// "kind" names which.
type Record struct {
	Config    *Config
	Event     *Event
	Violation *Violation
	Mismatch  *Mismatch
	Summary   *Summary
}

// Config is the first record of a run: what produced the trace.
type Config struct {
	Schema  int      `json:"schema"`
	File    string   `json:"file,omitempty"`
	Profile string   `json:"profile"`
	Seed    uint64   `json:"seed"`
	Bugs    []string `json:"bugs,omitempty"`
}

// Event is one step: a system call, a network event or a timer.
type Event struct {
	Step uint64 `json:"step"`
	// Time is the virtual time in nanoseconds.
	Time int64 `json:"time_ns"`
	// Source is file:line of the statement that made the call, if any.
	Source string `json:"source,omitempty"`
	// Op names what happened: a syscall ("send", "recvmsg"), or a network
	// event ("xmit", "deliver", "ack", "tx_complete", "rto", "delack").
	Op string `json:"op"`
	// Socket names the socket it concerns.
	Socket string `json:"socket,omitempty"`
	// Text describes the step as the timeline prints it.
	Text string `json:"text"`
	// Ret and Errno are a call's result.
	Ret   *int64 `json:"ret,omitempty"`
	Errno string `json:"errno,omitempty"`
	// UargID is the notification id a send consumed.
	UargID *uint32 `json:"uarg_id,omitempty"`
	// Why says why a send got a new id, an extended one, or failed.
	Why string `json:"why,omitempty"`
	// Notification is the record an error-queue read returned.
	Notification *Notification `json:"notification,omitempty"`
	// Touched lists what the step did to each object, in order.
	Touched []Touch `json:"touched,omitempty"`
}

// Notification is a struct sock_extended_err as recvmsg(MSG_ERRQUEUE)
// returned it.
type Notification struct {
	Errno  uint16 `json:"ee_errno"`
	Origin uint8  `json:"ee_origin"`
	Type   uint8  `json:"ee_type"`
	Code   uint8  `json:"ee_code"`
	Info   uint32 `json:"ee_info"`
	Data   uint32 `json:"ee_data"`
}

func notificationOf(r notify.Record) *Notification {
	return &Notification{Errno: uint16(r.Errno), Origin: r.Origin, Type: r.Type, Code: r.Code, Info: r.Info, Data: r.Data}
}

// Touch is one entry of an object's history made during a step.
type Touch struct {
	Object kernel.ObjectID `json:"object"`
	Text   string          `json:"text"`
}

// Violation is a broken invariant.
type Violation struct {
	Step    uint64   `json:"step"`
	Rule    string   `json:"rule"`
	Object  string   `json:"object"`
	Message string   `json:"message"`
	History []string `json:"history,omitempty"`
}

func violationRecord(v kernel.Violation) *Violation {
	r := &Violation{Step: v.Step, Rule: v.Rule.String(), Object: v.Object.String(), Message: v.Message}
	for _, e := range v.History {
		r.History = append(r.History, fmt.Sprintf("step %d: %s", e.Step, e.Text))
	}
	return r
}

// Mismatch is an expectation the run did not meet.
type Mismatch struct {
	Step     uint64 `json:"step"`
	Source   string `json:"source"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

// Summary is the last record of a run.
type Summary struct {
	Steps      uint64 `json:"steps"`
	Time       int64  `json:"time_ns"`
	Violations int    `json:"violations"`
	Mismatches int    `json:"mismatches"`
	OK         bool   `json:"ok"`
}

// kind names the record's one field for JSON.
func (r Record) kind() (string, any) {
	switch {
	case r.Config != nil:
		return "config", r.Config
	case r.Event != nil:
		return "event", r.Event
	case r.Violation != nil:
		return "violation", r.Violation
	case r.Mismatch != nil:
		return "mismatch", r.Mismatch
	}
	return "summary", r.Summary
}

// WriteJSON writes the trace as JSON Lines: one object per record, with a
// "kind" field first.
func (tr *Trace) WriteJSON(w io.Writer) error {
	for _, r := range tr.Records {
		kind, v := r.kind()
		if err := WriteJSONLine(w, kind, v); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSONLine writes one JSON Lines record, the shape every zcsim report
// shares: v, a struct, marshalled as an object whose first field is
// "kind".
func WriteJSONLine(w io.Writer, kind string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	line := fmt.Sprintf(`{"kind":%q`, kind)
	if len(body) > 2 {
		line += "," + string(body[1:])
	} else {
		line += "}"
	}
	_, err = fmt.Fprintln(w, line)
	return err
}

// WriteText writes the trace as a timeline for people:
//
//	step 12  t=1500us  send s 4096 MSG_ZEROCOPY = 4096 (id 0: allocated a new uarg)
//	         uarg#7  msg_zerocopy_alloc on sock#3: id 0, …
//
// verbose adds every object a step touched.
func (tr *Trace) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	for _, r := range tr.Records {
		switch {
		case r.Config != nil:
			c := r.Config
			fmt.Fprintf(&b, "# zcsim %s profile=%s seed=%d", c.File, c.Profile, c.Seed)
			if len(c.Bugs) > 0 {
				fmt.Fprintf(&b, " bugs=%s", strings.Join(c.Bugs, ","))
			}
			b.WriteString("\n")
		case r.Event != nil:
			e := r.Event
			fmt.Fprintf(&b, "step %-4d t=%-8v %s\n", e.Step, engine.Time(e.Time), e.Text)
			if verbose {
				for _, tc := range e.Touched {
					fmt.Fprintf(&b, "           %-10s %s\n", tc.Object, tc.Text)
				}
			}
		case r.Violation != nil:
			v := r.Violation
			fmt.Fprintf(&b, "VIOLATION at step %d: %s: %s: %s\n", v.Step, v.Rule, v.Object, v.Message)
			for _, h := range v.History {
				fmt.Fprintf(&b, "           %s\n", h)
			}
		case r.Mismatch != nil:
			m := r.Mismatch
			fmt.Fprintf(&b, "MISMATCH at step %d (%s):\n  expected: %s\n       got: %s\n", m.Step, m.Source, m.Expected, m.Got)
		case r.Summary != nil:
			s := r.Summary
			verdict := "ok"
			if !s.OK {
				verdict = "FAILED"
			}
			fmt.Fprintf(&b, "# %s: %d steps, %v virtual time, %d violations, %d mismatches\n",
				verdict, s.Steps, engine.Time(s.Time), s.Violations, s.Mismatches)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// OK reports whether the run met every expectation without a violation.
func (tr *Trace) OK() bool {
	for _, r := range tr.Records {
		if r.Violation != nil || r.Mismatch != nil || (r.Summary != nil && !r.Summary.OK) {
			return false
		}
	}
	return true
}
