package strace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Log is a parsed strace capture: the calls in the order they completed and
// the other lines strace printed, in file order.
type Log struct {
	File  string `json:"file"`
	Calls []Call `json:"calls"`
	Notes []Note `json:"notes,omitempty"`
}

// Call is one system call. A call that strace split over an
// "<unfinished ...>" line and a "<... name resumed>" line is merged into
// one Call whose Lines holds both line numbers, unfinished first; Time is
// the start time, End the resumed line's, Duration comes from the resumed
// line.
type Call struct {
	Lines    []int         `json:"lines"`
	Pid      int           `json:"pid,omitempty"` // 0 when the line had no pid prefix
	Time     Time          `json:"time,omitzero"`
	End      Time          `json:"end,omitzero"` // the resumed line's time; zero for a call on one line
	Name     string        `json:"name"`
	Args     []Value       `json:"args"`
	Result   Result        `json:"result"`
	Duration time.Duration `json:"duration,omitempty"` // -T; 0 when absent
	// Orphan is set for a "<... name resumed>" line with no unfinished
	// half in the log (a capture that starts mid-call): Args holds only
	// the arguments printed after "resumed>".
	Orphan bool `json:"orphan,omitempty"`
	// known is, for a call a Scanner listed from a line whose text it
	// read before, what it remembers of that text (knownLine).
	known *knownLine
}

// Clone returns a deep copy of c: what a caller of [Scanner] keeps past
// the next Scan.
func (c *Call) Clone() Call {
	d := *c
	d.known = nil
	d.Lines = slices.Clone(c.Lines)
	d.Args = cloneValues(c.Args)
	d.Result.Value = c.Result.Value.clone()
	return d
}

func cloneValues(vs []Value) []Value {
	if vs == nil {
		return nil
	}
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = v.clone()
	}
	return out
}

// clone is a deep copy of v.
func (v Value) clone() Value {
	v.Names = slices.Clone(v.Names)
	v.Elems = cloneValues(v.Elems)
	if v.Fields != nil {
		fs := make([]Field, len(v.Fields))
		for i, f := range v.Fields {
			fs[i] = Field{Name: f.Name, Value: f.Value.clone()}
		}
		v.Fields = fs
	}
	return v
}

// Line returns the first source line of the call.
func (c *Call) Line() int {
	if len(c.Lines) == 0 {
		return 0
	}
	return c.Lines[0]
}

// TimeKind says which timestamp option produced a [Time]. The zero
// TimeKind, [TimeNone], means the line had no timestamp.
type TimeKind uint8

// Timestamp forms.
const (
	TimeNone     TimeKind = iota // no timestamp
	TimeOfDay                    // -t, -tt: 21:17:54 or 21:17:54.188243
	TimeEpoch                    // -ttt: 1795987092.696665
	TimeRelative                 // -r: 0.000182, since the previous line
)

// MarshalText prints a TimeKind as "none", "clock", "epoch" or "relative".
func (k TimeKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"none", "clock", "epoch", "relative"}[k]), nil
}

// Time is a line's timestamp in integer nanoseconds: since midnight for
// [TimeOfDay], since the Unix epoch for [TimeEpoch], since the previous
// line for [TimeRelative]. The zero Time means no timestamp.
type Time struct {
	Kind  TimeKind `json:"kind"`
	Nanos int64    `json:"ns"`
	// Since is, for TimeRelative, the time since the log's first line:
	// the sum of the Nanos of every line up to this one. strace -r
	// prints each line's time since the line before, whichever pid
	// printed it (halves of unfinished calls and notes included), so
	// only the sum places a line, and a call between its halves.
	Since int64 `json:"since,omitempty"`
}

// At is the time t places its line at, comparable with the times of
// the other lines of its log: Nanos, or Since for [TimeRelative].
func (t Time) At() int64 {
	if t.Kind == TimeRelative {
		return t.Since
	}
	return t.Nanos
}

// ResultKind says how a call ended. The zero ResultKind, [ResultValue],
// is an ordinary return value.
type ResultKind uint8

// Result forms.
const (
	ResultValue       ResultKind = iota // = 4096, = 0x7f..., = 3<TCP:[...]>
	ResultErrno                         // = -1 EAGAIN (Resource temporarily unavailable)
	ResultUnknown                       // = ? (exit_group, a process killed mid-call)
	ResultUnfinished                    // "<unfinished ...>" never resumed in the log
	ResultInterrupted                   // = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
)

// MarshalText prints a ResultKind as "value", "errno", "unknown",
// "unfinished" or "interrupted".
func (k ResultKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"value", "errno", "unknown", "unfinished", "interrupted"}[k]), nil
}

// Result is what a call returned. For [ResultValue], Value is the number
// (Int; Fd with its decoration under -y) and Comment the parenthesised text
// strace may add (= 0 (Timeout)); for [ResultErrno], Errno is the name
// (EAGAIN), Value the raw return (-1) and Comment the message; for
// [ResultInterrupted], Errno is the kernel-internal restart code strace
// shows instead of a result (ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND,
// ERESTART_RESTARTBLOCK: the call was interrupted by a signal and never
// returned to the program as such) and Comment the message.
type Result struct {
	Kind    ResultKind `json:"kind"`
	Value   Value      `json:"value,omitzero"`
	Errno   string     `json:"errno,omitempty"`
	Comment string     `json:"comment,omitempty"`
}

// Ret returns the return value of a successful call.
func (r Result) Ret() (int64, bool) {
	if r.Kind != ResultValue {
		return 0, false
	}
	return r.Value.AsInt()
}

// String prints r the way strace does, without the message: "4096",
// "-1 EAGAIN", "?", "? ERESTARTSYS".
func (r Result) String() string {
	switch r.Kind {
	case ResultErrno:
		return r.Value.Text + " " + r.Errno
	case ResultUnknown, ResultUnfinished:
		return "?"
	case ResultInterrupted:
		return "? " + r.Errno
	}
	return r.Value.Text
}

// NoteKind says what a non-call line was. The zero NoteKind is
// [NoteMessage].
type NoteKind uint8

// Kinds of non-call lines.
const (
	NoteMessage NoteKind = iota // strace: Process 123 attached
	NoteSignal                  // --- SIGPIPE {si_signo=SIGPIPE, ...} ---
	NoteExit                    // +++ exited with 0 +++
	NoteKilled                  // +++ killed by SIGKILL +++
)

// MarshalText prints a NoteKind as "message", "signal", "exit" or "killed".
func (k NoteKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"message", "signal", "exit", "killed"}[k]), nil
}

// Note is a line that is not a call: a signal delivery, a process exit, or
// a message from strace itself. Name is the signal (SIGPIPE) for signals
// and kills, Status the exit status for exits, Text the whole text between
// the markers.
type Note struct {
	Line   int      `json:"line"`
	Pid    int      `json:"pid,omitempty"`
	Time   Time     `json:"time,omitzero"`
	Kind   NoteKind `json:"kind"`
	Name   string   `json:"name,omitempty"`
	Status int      `json:"status,omitempty"`
	Text   string   `json:"text"`
}

// Error is one input error, printed netip-style as
// "file:line:col: what (at "text")". Col counts bytes from 1.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
	At   string // the source text from Col, shortened
}

// Error formats e as "file:line:col: msg (at "text")".
func (e *Error) Error() string {
	s := e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
	if e.At != "" || e.Col > 0 {
		s += " (at " + strconv.Quote(e.At) + ")"
	}
	return s
}

// MaxErrors bounds the errors one parse reports; an [ErrorList] that hit
// the bound says how many more there were.
const MaxErrors = 50

// ErrorList is every error of one parse, in source order, at most
// [MaxErrors] of them; Dropped counts the ones left out.
type ErrorList struct {
	Errs    []*Error
	Dropped int
}

// Error prints every error, one per line, and how many were dropped.
func (l *ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l.Errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	if l.Dropped > 0 {
		fmt.Fprintf(&b, "\n(and %d more errors)", l.Dropped)
	}
	return b.String()
}

// Unwrap returns the errors for errors.Is and errors.As.
func (l *ErrorList) Unwrap() []error {
	out := make([]error, len(l.Errs))
	for i, e := range l.Errs {
		out[i] = e
	}
	return out
}

func (l *ErrorList) add(e *Error) {
	if len(l.Errs) >= MaxErrors {
		l.Dropped++
		return
	}
	l.Errs = append(l.Errs, e)
}

func (l *ErrorList) err() error {
	if len(l.Errs) == 0 {
		return nil
	}
	return l
}

// shorten returns at most 24 bytes of s, for the "at" part of an Error.
func shorten(s string) string {
	const n = 24
	if len(s) > n {
		return s[:n]
	}
	return s
}
