package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/tcp"
	"github.com/zcsim/zcsim/ubuf"
)

// SchemaVersion is the version of the JSON Lines trace. It changes when a
// field changes meaning or disappears; adding a field does not change it.
//
// Version 2 made each "touched" entry of an event typed: instead of a
// "text" sentence, an entry carries "op" (the operation, e.g. "get",
// "skb_clone"), "func" (the kernel function it models), the objects it
// involved by role ("holder", "of", "into", …), "refcnt_before" and
// "refcnt" as numbers when it changed a refcount, and its arguments as
// numbers, booleans or Linux names. Readers of version 1 that matched the
// text match "op" and the named fields; the sentence is what
// "zcsim run" prints without --json. docs/json-schema.md lists every op.
//
// Version 3 names the invariant of a "violation" record by its name alone
// ("rule": "refcount", not "invariant 4 (refcount)"; docs/invariants.md),
// and adds the fields that say why: "copied_by" (the code path that
// copied, kernel.CopyWhy) on "put", "complete", "skb_copy_ubufs" and the
// new "copied" entry, "merge" on "notified", the new refusal entries
// ("memlock_refused", "stream_no_space", "send_no_space",
// "append_no_space", "send_pipe", "too_long", "fault"), and an event's "why" carries the refusal with its numbers.
const SchemaVersion = 3

// Sink receives the records of a run as they happen, so that a long run
// need not keep its trace: a renderer writes each one out and forgets it.
// The record and what it points to are valid only during the call; a sink
// that keeps them copies them. An event reaches a Sink unrendered: a
// Sink that reads its Text or the fields of a call's result calls
// Event.Render first, as the sinks of this package do. Trace.Records are
// rendered.
type Sink interface {
	Put(r *Record) error
}

// Trace is the ordered list of records a run produced. It renders as a
// readable timeline (WriteText) or as JSON Lines (WriteJSON); both are
// deterministic functions of the run. With a Sink, the records go to it
// as they are made and Records stays empty; OK and Err still answer.
type Trace struct {
	Records []Record
	// Sink, if set, receives every record instead of Records.
	Sink Sink

	bad bool
	err error
	// put is the record handed to the Sink, reused so that streaming
	// allocates nothing per record.
	put Record
}

// add keeps r, or hands it to the sink.
func (tr *Trace) add(r Record) {
	if r.Violation != nil || r.Mismatch != nil || (r.Summary != nil && !r.Summary.OK) {
		tr.bad = true
	}
	if tr.Sink != nil {
		if tr.err == nil {
			tr.put = r
			tr.err = tr.Sink.Put(&tr.put)
			tr.put = Record{}
		}
		return
	}
	if r.Event != nil {
		// The World reuses its event and touched list from step to step.
		e := *r.Event
		e.Touched = slices.Clone(e.Touched)
		e.Render()
		r.Event = &e
	}
	tr.Records = append(tr.Records, r)
}

// CopyTo copies e into dst, to be rendered later, reusing dst's storage:
// the World reuses its event's narration from step to step, which dst
// then no longer shares. The copy has no Touched list.
func (e *Event) CopyTo(dst *Event) {
	narration := append(dst.narration[:0], e.narration...)
	*dst = *e
	dst.narration, dst.Touched = narration, nil
}

// Err returns the first error the Sink returned, if any; records after it
// were not written.
func (tr *Trace) Err() error { return tr.err }

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
	// Source is file:line of the statement that made the call, if any;
	// inside a repeat with a loop variable it names the iteration too
	// ("long.zcs:8 [i=41]", nested "[i=41 j=3]").
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
	// MsgFlags are the msg_flags a read returned, when not 0:
	// "MSG_CTRUNC" for an error-queue read whose record did not fit the
	// control buffer (no Notification: the program never saw it).
	MsgFlags string `json:"msg_flags,omitempty"`
	// Epoll are the events an epoll_wait returned, as the scenario
	// language writes them: "[s EPOLLERR|EPOLLOUT, t EPOLLIN]".
	Epoll string `json:"epoll,omitempty"`
	// Name is the string a getsockopt returned (TCP_CONGESTION's
	// name), absent for any other call.
	Name *string `json:"name,omitempty"`
	// TCPInfo are the struct tcp_info fields a getsockopt(TCP_INFO)
	// wrote that the model offers (kernel.TCPInfoFields).
	TCPInfo map[string]uint64 `json:"tcp_info,omitempty"`
	// ZcInfo is what a sendmsg's SCM_ZC_NOTIFICATION returned.
	ZcInfo *ZcInfoJSON `json:"zc_info,omitempty"`
	// ZcControl is what a getsockopt(TCP_ZEROCOPY_RECEIVE) wrote of its
	// control buffer (ZcControlText).
	ZcControl string `json:"zc_control,omitempty"`
	// RecvControl is what a recvmsg reading data wrote into its control
	// buffer (RecvControlText).
	RecvControl string `json:"recv_control,omitempty"`
	// Undetermined, when set, says that the call's result depends on
	// something the scenario does not state, and what the model assumed
	// to go on: the result is not a prediction.
	Undetermined string `json:"undetermined,omitempty"`
	// Assumes, when set, says that the call's result holds under an
	// assumption the scenario does not settle: that the TCP timers it
	// names, which the model fired before the call, fired before it on
	// the kernel too, whose timer wheel may run them later (sim/wheel.go).
	Assumes string `json:"assumes,omitempty"`
	// Touched lists what the step did to each object, in order.
	Touched []Touch `json:"touched,omitempty"`

	// far says the step ran on the machine at the far end of a NIC or
	// tun path (FarHost).
	far bool
	// work is the packet work of this host during the step (Work).
	work Work
	// call is the system call's result until Render turns it into Text,
	// Ret, Errno, UargID, Why and Notification; pending says it has not.
	call    callResult
	pending bool
	// narration is what the step said besides the event, until Render
	// appends it to Text; the World's, valid while the record is.
	narration []line
	// said is a network event's own sentence while Text is empty, until
	// Render words it into Text.
	said line
}

// sentence returns the event's own sentence, Text or said, and whether it
// has one.
func (e *Event) sentence() (line, bool) {
	if e.Text != "" {
		return line{text: e.Text}, true
	}
	return e.said, e.said.kind != lineText || e.said.text != ""
}

// FarHost reports whether the step ran on another machine: its socket is
// the implicit peer across a NIC or tun (Socket.Far), so what it did is
// not this host's work. It is not part of the JSON trace.
func (e *Event) FarHost() bool { return e.far }

// Work is the packet work this host did during the step (World.Work). It
// is not part of the JSON trace.
func (e *Event) Work() Work { return e.work }

// callResult is what a system call's event says of its result, kept as
// typed fields while the step runs and rendered only on output.
type callResult struct {
	text    string // the call as the front end wrote it
	ret     int64
	errno   kernel.Errno
	blocked bool
	send    bool // the call consumed an id (id)
	id      uint32
	outcome ubuf.Outcome
	rec     notify.Record
	hasRec  bool
	ctrunc  bool // the record did not fit the control buffer
	zc      *ZcReply
	epoll   []EpollEvent
	name    *string  // Result.Name
	tcpInfo tcp.Info // Result.TCPInfo
	// refusal is the entry that says why a failed call failed, with its
	// numbers (kernel.Op.Refusal), or the zero Entry.
	refusal kernel.Entry
	// undetermined is sock.SendResult.Undetermined or Result.Undetermined.
	undetermined string
	// assumes is the timers the result assumes fired (timerAssumption).
	assumes string
	// zcControl is Result.ZcControl, recvControl Result.RecvControl.
	zcControl, recvControl string
}

// Render words the event: for a system call it fills in the fields that
// describe the call's result from what the call recorded and puts the
// call's sentence first in Text; it then appends the step's narration to
// Text, each sentence after "; ". It does nothing to an event rendered
// already.
func (e *Event) Render() {
	e.renderCall()
	if l, ok := e.sentence(); ok && e.Text == "" {
		e.Text, e.said = string(l.appendTo(nil)), line{}
	}
	if len(e.narration) > 0 {
		b := []byte(e.Text)
		for i := range e.narration {
			b = e.narration[i].appendTo(append(b, "; "...))
		}
		e.Text, e.narration = string(b), nil
	}
}

// renderCall is Render's part for a system call's event not yet rendered.
func (e *Event) renderCall() {
	if !e.pending {
		return
	}
	e.pending = false
	c := &e.call
	var b []byte
	if c.blocked {
		b = append(append(b, c.text...), " never returns: nothing left in the network will wake it"...)
	} else {
		b = append(append(b, c.text...), " = "...)
		if c.errno != 0 {
			b = append(append(b, "-1 "...), c.errno.String()...)
		} else {
			b = strconv.AppendInt(b, c.ret, 10)
		}
	}
	e.Ret, e.Errno = &c.ret, errnoName(c.errno)
	switch {
	case c.hasRec && c.ctrunc:
		e.MsgFlags = "MSG_CTRUNC"
		b = append(append(append(b, " MSG_CTRUNC  "...), c.rec.String()...), " lost"...)
	case c.hasRec:
		e.Notification = notificationOf(c.rec)
		b = append(append(b, "  "...), c.rec.String()...)
	}
	if c.name != nil {
		e.Name = c.name
		b = strconv.AppendQuote(append(b, "  "...), *c.name)
	}
	if c.tcpInfo != nil {
		e.TCPInfo = c.tcpInfo
		b = append(b, ' ')
		for _, f := range kernel.TCPInfoFields {
			if v, ok := c.tcpInfo[f.Key]; ok {
				b = strconv.AppendUint(append(append(append(b, ' '), f.Key...), '='), v, 10)
			}
		}
	}
	if c.epoll != nil {
		e.Epoll = EpollText(c.epoll)
		b = append(append(b, "  "...), e.Epoll...)
	}
	if c.zcControl != "" {
		e.ZcControl = c.zcControl
		b = append(append(b, "  "...), c.zcControl...)
	}
	if c.recvControl != "" {
		e.RecvControl = c.recvControl
		b = append(append(b, "  "...), c.recvControl...)
	}
	if c.zc != nil {
		e.ZcInfo = zcInfoOf(c.zc)
		b = appendZcReply(append(b, "  "...), c.zc)
	}
	if c.outcome != 0 {
		e.Why = c.outcome.String()
	}
	if c.refusal.Op != kernel.OpText {
		e.Why = c.refusal.Text()
	}
	if c.send {
		e.UargID = &c.id
		b = append(b, "  (id "...)
		b = strconv.AppendUint(b, uint64(c.id), 10)
		b = append(append(append(b, ": "...), c.outcome.String()...), ')')
	} else if c.outcome.Failed() || c.refusal.Op != kernel.OpText {
		b = append(append(append(b, "  ("...), e.Why...), ')')
	}
	if c.undetermined != "" {
		e.Undetermined = c.undetermined
		b = append(append(b, "  undetermined: "...), c.undetermined...)
	}
	if c.assumes != "" {
		e.Assumes = c.assumes
		b = append(append(b, "  assuming "...), c.assumes...)
	}
	e.Text = string(append(b, e.Text...))
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

// ZcInfoJSON is an SCM_ZC_NOTIFICATION reply: whether the handler ran
// ("parsed"), the zc_info_elem entries the program received, and those
// the handler took off the error queue that never reached it.
type ZcInfoJSON struct {
	Parsed bool         `json:"parsed"`
	Elems  []ZcElemJSON `json:"elems"`
	Lost   []ZcElemJSON `json:"lost,omitempty"`
}

// ZcElemJSON is one struct zc_info_elem.
type ZcElemJSON struct {
	Lo       uint32 `json:"lo"`
	Hi       uint32 `json:"hi"`
	Zerocopy bool   `json:"zerocopy"`
}

func zcInfoOf(z *ZcReply) *ZcInfoJSON {
	elems := func(es []notify.ZcInfoElem) []ZcElemJSON {
		out := make([]ZcElemJSON, len(es))
		for i, e := range es {
			out[i] = ZcElemJSON{Lo: e.Lo, Hi: e.Hi, Zerocopy: e.Zerocopy}
		}
		return out
	}
	j := &ZcInfoJSON{Parsed: z.Parsed, Elems: elems(z.Elems)}
	if len(z.Lost) > 0 {
		j.Lost = elems(z.Lost)
	}
	return j
}

// appendZcReply renders a reply as the timeline shows it: "zc_info [0,1]
// [2,2]copied", "zc_info empty", "zc_info not parsed", and the completions
// lost: "zc_info empty, lost [0,3]".
func appendZcReply(b []byte, z *ZcReply) []byte {
	b = append(b, "zc_info"...)
	switch {
	case !z.Parsed:
		return append(b, " not parsed"...)
	case len(z.Elems) == 0:
		b = append(b, " empty"...)
	}
	for _, e := range z.Elems {
		b = append(append(b, ' '), e.String()...)
	}
	if len(z.Lost) > 0 {
		b = append(b, ", lost"...)
		for _, e := range z.Lost {
			b = append(append(b, ' '), e.String()...)
		}
	}
	return b
}

func notificationOf(r notify.Record) *Notification {
	return &Notification{Errno: uint16(r.Errno), Origin: r.Origin, Type: r.Type, Code: r.Code, Info: r.Info, Data: r.Data}
}

// Touch is one entry of an object's history made during a step: the
// object and what happened to it (the Host's log, kernel.Host.Log). In JSON
// it is one object: "object" then the entry's fields
// (kernel.Entry.AppendJSON).
type Touch = kernel.Touch

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
		r.History = append(r.History, fmt.Sprintf("step %d: %s", e.Step, e.Text()))
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
func (tr *Trace) WriteJSON(w io.Writer) error { return tr.writeTo(NewJSONSink(w)) }

// WriteText writes the trace as a timeline for people:
//
//	step 12  t=1500us  send s 4096 MSG_ZEROCOPY = 4096 (id 0: allocated a new uarg)
//	         uarg#7  msg_zerocopy_alloc on sock#3: id 0, …
//
// verbose adds every object a step touched.
func (tr *Trace) WriteText(w io.Writer, verbose bool) error {
	return tr.writeTo(NewTextSink(w, verbose))
}

func (tr *Trace) writeTo(s Sink) error {
	for i := range tr.Records {
		if err := s.Put(&tr.Records[i]); err != nil {
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

// NewJSONSink returns a Sink that writes each record to w as one JSON
// Lines object, as WriteJSON does.
func NewJSONSink(w io.Writer) Sink { return &jsonSink{w: w} }

type jsonSink struct {
	w   io.Writer
	buf []byte
}

// Put writes r as one line.
func (s *jsonSink) Put(r *Record) error {
	kind, v := r.kind()
	if r.Event == nil {
		return WriteJSONLine(s.w, kind, v)
	}
	e := *r.Event
	e.Render()
	touched := e.Touched
	e.Touched = nil
	body, err := json.Marshal(&e)
	if err != nil {
		return err
	}
	b := append(s.buf[:0], `{"kind":"event",`...)
	b = append(b, body[1:len(body)-1]...)
	if len(touched) > 0 {
		b = append(b, `,"touched":[`...)
		for i, tc := range touched {
			if i > 0 {
				b = append(b, ',')
			}
			b = tc.AppendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	s.buf = b
	_, err = s.w.Write(b)
	return err
}

// NewTextSink returns a Sink that writes each record to w as the timeline
// WriteText prints; verbose adds every object a step touched.
func NewTextSink(w io.Writer, verbose bool) Sink { return &textSink{w: w, verbose: verbose} }

type textSink struct {
	w       io.Writer
	verbose bool
	b       bytes.Buffer
}

// Put writes r's lines.
func (s *textSink) Put(r *Record) error {
	b := &s.b
	b.Reset()
	switch {
	case r.Config != nil:
		c := r.Config
		fmt.Fprintf(b, "# zcsim %s profile=%s seed=%d", c.File, c.Profile, c.Seed)
		if len(c.Bugs) > 0 {
			fmt.Fprintf(b, " bugs=%s", strings.Join(c.Bugs, ","))
		}
		b.WriteString("\n")
	case r.Event != nil:
		e := r.Event
		e.Render()
		fmt.Fprintf(b, "step %-4d t=%-8v %s\n", e.Step, engine.Time(e.Time), e.Text)
		if s.verbose {
			for _, tc := range e.Touched {
				fmt.Fprintf(b, "           %-10s %s\n", tc.Object, tc.Text())
			}
		}
	case r.Violation != nil:
		v := r.Violation
		fmt.Fprintf(b, "VIOLATION at step %d: invariant %s: %s: %s\n", v.Step, v.Rule, v.Object, v.Message)
		for _, h := range v.History {
			fmt.Fprintf(b, "           %s\n", h)
		}
	case r.Mismatch != nil:
		m := r.Mismatch
		fmt.Fprintf(b, "MISMATCH at step %d (%s):\n  expected: %s\n       got: %s\n", m.Step, m.Source, m.Expected, m.Got)
	case r.Summary != nil:
		sm := r.Summary
		verdict := "ok"
		if !sm.OK {
			verdict = "FAILED"
		}
		fmt.Fprintf(b, "# %s: %d steps, %v virtual time, %d violations, %d mismatches\n",
			verdict, sm.Steps, engine.Time(sm.Time), sm.Violations, sm.Mismatches)
	}
	_, err := s.w.Write(b.Bytes())
	return err
}

// OK reports whether the run met every expectation without a violation.
func (tr *Trace) OK() bool {
	if tr.bad {
		return false
	}
	for _, r := range tr.Records {
		if r.Violation != nil || r.Mismatch != nil || (r.Summary != nil && !r.Summary.OK) {
			return false
		}
	}
	return true
}
