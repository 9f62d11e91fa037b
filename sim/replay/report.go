package replay

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/strace"
)

// Report is what a replay found: the configuration, one Call per replayed
// system call with what the log observed and what the model predicted,
// the invariants the model found broken, the calls it ignored, notes on
// what could not be compared fully, and the summary.
type Report struct {
	Config Config
	// Calls is every replayed call, unless Options.Out received them.
	Calls   []Call
	Ignored []strace.IgnoredCount
	Notes   []string
	Summary Summary
	// listed keeps, per verdict other than Agree, the first MaxListed
	// calls, for the report's lists; Summary counts them all.
	listed map[Verdict][]Call
	// violations keeps the first MaxListed violations; Summary counts
	// them all.
	violations []Violation
}

// MaxListed bounds the calls of each verdict a report lists after the
// calls (divergences, assumptions, undetermined calls), and the
// violations it lists; the summary counts all of them.
const MaxListed = 1000

// Violation is an invariant the model found broken during the replay
// (package check, docs/invariants.md), as zcsim run reports one: under a
// profile without historical bugs it is a defect of the model; with a
// bug switched on (Options.Bugs), the bug reproduced. The World reports
// each once, at the step that broke it.
type Violation struct {
	// Line is the log line of the call whose step broke the invariant.
	// A network event (a delivery, an ACK, a completion, a timer) runs
	// between two calls, or inside one that blocks: its Line is the
	// line the replay was reading, whose call it ran before or within.
	// The end-of-log sweep's is the last line the replay read.
	Line int `json:"line"`
	// Pid is the line's pid; none for the end-of-log sweep.
	Pid int `json:"pid,omitempty"`
	// Step is the model's step; Op what it was, a call ("send",
	// "close") or a network event ("deliver", "tx_complete"), or
	// EndOfLog for the sweep at the end; Socket the model socket it
	// concerned.
	Step   uint64 `json:"step"`
	Op     string `json:"op"`
	Socket string `json:"socket,omitempty"`
	// Rule names the invariant (docs/invariants.md), Object the object
	// that broke it ("uarg#3"), Message how; History is the object's
	// history, one entry a line.
	Rule    string   `json:"rule"`
	Object  string   `json:"object"`
	Message string   `json:"message"`
	History []string `json:"history,omitempty"`
}

// EndOfLog is the Op of a violation the sweep at the end of the log found
// (the World's quiescent check: leaks, conserved accounting, every id
// notified).
const EndOfLog = "end of log"

// Config is the first record of a report: what the model assumed.
type Config struct {
	Schema      int    `json:"schema"`
	File        string `json:"file"`
	Profile     string `json:"profile"`
	Seed        uint64 `json:"seed"`
	CapIPCLock  bool   `json:"cap_ipc_lock"`
	CapNetAdmin bool   `json:"cap_net_admin"`
	OptmemMax   int    `json:"optmem_max"`
	// Memlock is the traced task's RLIMIT_MEMLOCK at the start, in bytes.
	Memlock uint64 `json:"memlock"`
	// Path is the device traced sockets use ("loopback"), MTU its MTU.
	Path string `json:"path"`
	MTU  int    `json:"mtu"`
	// Timestamps names the log's timestamps: "none" (the network settles
	// between calls) or the option whose gaps advance virtual time.
	Timestamps string `json:"timestamps"`
	// Inferred lists the settings above that the log's evidence set,
	// each with the line that showed it.
	Inferred []Inferred `json:"inferred,omitempty"`
	// Merged is set when the log is the files of strace -ff, merged in
	// time order (File lists them): a call's line is in the file of its
	// pid.
	Merged bool `json:"merged,omitempty"`
	// Bugs lists the historical bugs switched on, in name order: those
	// the profile carries and those Options.Bugs named.
	Bugs []string `json:"bugs,omitempty"`
}

// Inferred is one setting of the Config that the log showed: Setting
// ("CAP_NET_ADMIN", "CAP_IPC_LOCK", "RLIMIT_MEMLOCK"), the line, and why.
type Inferred struct {
	Setting string `json:"setting"`
	Line    int    `json:"line"`
	Why     string `json:"why"`
}

// Verdict is the outcome of one compared call.
type Verdict string

// The verdicts of a call.
const (
	// Agree: the model predicts what the log observed.
	Agree Verdict = "agree"
	// Assumed: the model explains what the log observed under a
	// schedule of the work the log does not show (when the peer
	// acknowledged or read, when a completion ran), which
	// [Call.Assumption] states.
	Assumed Verdict = "agree under an assumption"
	// Diverge: no schedule of the model produces what the log observed.
	Diverge Verdict = "diverge"
	// Undetermined: the log does not tell enough to predict or to
	// compare (an argument strace abbreviated, a call a signal
	// interrupted, a length whose answer depends on the process's
	// memory, a call larger than the replay simulates); Why says which.
	Undetermined Verdict = "undetermined"
)

// Call is one replayed system call. Observed and Predicted are rendered
// alike, as strace prints a result ("4096", "-1 EAGAIN"), followed for an
// error-queue read by the record ("0 zerocopy [0,4] COPIED"), for
// getsockopt by the value ("0 [1]"), for prlimit64 by the old limit. fd
// numbers are not modelled: a successful socket or accept is predicted as
// the fd the log shows.
type Call struct {
	Line    int    `json:"line"`
	Pid     int    `json:"pid,omitempty"`
	Syscall string `json:"syscall"`
	// Fd is the call's fd argument, -1 when it has none.
	Fd int `json:"fd"`
	// Socket is the model socket the call went to.
	Socket   string `json:"socket,omitempty"`
	Text     string `json:"text"`
	Observed string `json:"observed"`
	// Predicted is the model's result, or "not replayed" for an
	// undetermined call the model did not run.
	Predicted string  `json:"predicted"`
	Verdict   Verdict `json:"verdict"`
	// Why is, on a divergence, the model's reason for its prediction: the
	// send's msg_zerocopy_alloc/realloc outcome ("mm_account_pinned_pages
	// failed"), or the model's event text; on an undetermined call, why
	// the log does not tell, and what the model did instead.
	Why string `json:"why,omitempty"`
	// Compared, when set, says the comparison was partial and why.
	Compared string `json:"compared,omitempty"`
	// Assumption is, on an Assumed call, the schedule of the hidden
	// work under which the model agrees ("ids 30..31 had not completed
	// yet ...").
	Assumption string `json:"assumption,omitempty"`
}

// Summary is the last record of a report. Calls = Agree + Assumed +
// Diverge + Undetermined. Unreplayed counts the calls on descriptors the log never
// created (a capture that starts mid-run), Ignored the calls the replay
// does not model; neither is in Calls. Violations counts the invariants
// the model found broken (Report.Violations). OK holds when nothing
// diverges, no invariant broke and at least one call agrees, plainly or
// under an assumption: a replay that checked nothing is not a success.
// Verdict says the same in words: "all agree", "agree, N under an
// assumption, M undetermined", "N diverge", "N invariant violations",
// "N diverge, M invariant violations" or "nothing checked".
type Summary struct {
	Calls        int    `json:"calls"`
	Agree        int    `json:"agree"`
	Assumed      int    `json:"assumed"`
	Diverge      int    `json:"diverge"`
	Undetermined int    `json:"undetermined"`
	Unreplayed   int    `json:"unreplayed"`
	Ignored      int    `json:"ignored"`
	Violations   int    `json:"violations,omitempty"`
	Verdict      string `json:"verdict"`
	OK           bool   `json:"ok"`
}

// OK reports whether the replay checked something, nothing diverged and
// no invariant broke.
func (r *Report) OK() bool { return r.Summary.OK }

// Violations returns the invariants the model found broken, in the order
// it found them (the first MaxListed).
func (r *Report) Violations() []Violation { return r.violations }

// Divergences returns the calls where the model disagrees with the log
// (the first MaxListed).
func (r *Report) Divergences() []Call { return r.listed[Diverge] }

// Undetermined returns the calls the log does not tell enough to check
// (the first MaxListed).
func (r *Report) Undetermined() []Call { return r.listed[Undetermined] }

// Assumptions returns the calls that agree under an assumption (the first
// MaxListed).
func (r *Report) Assumptions() []Call { return r.listed[Assumed] }

// Writer renders a report: Begin with its Config, Call for each replayed
// call in order, End with the whole report (its lists, ignored calls,
// notes and summary). A replay with Options.Out drives one as it runs.
type Writer interface {
	Begin(Config) error
	Call(Call) error
	End(*Report) error
}

// WriteText writes the report for a person (NewTextWriter).
func (r *Report) WriteText(w io.Writer) error { return r.write(NewTextWriter(w)) }

// WriteJSON writes the report as JSON Lines (NewJSONWriter).
func (r *Report) WriteJSON(w io.Writer) error { return r.write(NewJSONWriter(w)) }

func (r *Report) write(w Writer) error {
	if err := w.Begin(r.Config); err != nil {
		return err
	}
	for _, c := range r.Calls {
		if err := w.Call(c); err != nil {
			return err
		}
	}
	return w.End(r)
}

// NewTextWriter returns a Writer for a person: the configuration, every
// replayed call with its verdict, then the divergences with the model's
// reason, the invariant violations with the line and step of each, the
// calls that agree under an assumption with it, the undetermined calls
// with why, the ignored calls, notes and the summary.
func NewTextWriter(w io.Writer) Writer { return &textWriter{w: w} }

type textWriter struct {
	w io.Writer
	b []byte
	// pids: the log is merged -ff files, so a line names its pid.
	pids bool
}

func (t *textWriter) flush() error {
	_, err := t.w.Write(t.b)
	t.b = t.b[:0]
	return err
}

func (t *textWriter) Begin(c Config) error {
	t.pids = c.Merged
	with := func(on bool) string {
		if on {
			return "with"
		}
		return "without"
	}
	path := c.Path
	if c.MTU != sim.DefaultLoopbackMTU {
		path += fmt.Sprintf(" (MTU %d)", c.MTU)
	}
	t.b = fmt.Appendf(t.b, "replay of %s under %s: %s path, %s CAP_IPC_LOCK, %s CAP_NET_ADMIN, RLIMIT_MEMLOCK %d, optmem_max %d, timestamps %s",
		c.File, c.Profile, path, with(c.CapIPCLock), with(c.CapNetAdmin), c.Memlock, c.OptmemMax, c.Timestamps)
	if len(c.Bugs) > 0 {
		t.b = append(append(t.b, "; bugs on: "...), strings.Join(c.Bugs, ", ")...)
	}
	t.b = append(t.b, '\n')
	for _, in := range c.Inferred {
		t.b = fmt.Appendf(t.b, "  inferred %s from line %d: %s\n", in.Setting, in.Line, in.Why)
	}
	return t.flush()
}

// Call writes one line per call, as fmt's "%s pid %d line %-5d %-44s
// observed %-28s predicted %s" would (the pid only for merged files),
// built by appends: a million calls make a million lines.
func (t *textWriter) Call(k Call) error {
	b := append(t.b, verdictMark(k.Verdict)...)
	if t.pids {
		b = strconv.AppendInt(append(b, " pid "...), int64(k.Pid), 10)
	}
	n := len(b)
	b = strconv.AppendInt(append(b, " line "...), int64(k.Line), 10)
	b = appendPad(b, len(b)-n-len(" line "), 5)
	b = appendPad(append(append(b, ' '), k.Text...), runeCount(k.Text), 44)
	b = appendPad(append(append(b, " observed "...), k.Observed...), runeCount(k.Observed), 28)
	b = append(append(b, " predicted "...), k.Predicted...)
	if k.Compared != "" {
		b = append(append(append(b, "  ["...), k.Compared...), ']')
	}
	t.b = append(b, '\n')
	if len(t.b) < 32<<10 {
		return nil
	}
	return t.flush()
}

// verdictMark is the first column of a call's line.
func verdictMark(v Verdict) string {
	switch v {
	case Agree:
		return "ok  "
	case Assumed:
		return "ok~ "
	case Diverge:
		return "DIFF"
	case Undetermined:
		return "??  "
	}
	return ""
}

// appendPad pads a field of n characters with spaces to width, as fmt's
// "%-*s" does.
func appendPad(b []byte, n, width int) []byte {
	for n < width {
		k := min(width-n, len(spaces))
		b = append(b, spaces[:k]...)
		n += k
	}
	return b
}

// spaces is what appendPad pads with, a run at a time.
const spaces = "                                                "

// runeCount is utf8.RuneCountInString, its length for ASCII text.
func runeCount(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

func (t *textWriter) End(r *Report) error {
	s := r.Summary
	list := func(title string, calls []Call, total int, line func(Call)) {
		if total == 0 {
			return
		}
		if len(calls) < total {
			title += fmt.Sprintf(" (the first %d of %d)", len(calls), total)
		}
		t.b = fmt.Appendf(t.b, "\n%s:\n", title)
		for _, k := range calls {
			line(k)
		}
	}
	list("divergences", r.Divergences(), s.Diverge, func(k Call) {
		t.b = fmt.Appendf(t.b, "  line %d: %s: observed %s, predicted %s", k.Line, k.Text, k.Observed, k.Predicted)
		if k.Why != "" {
			t.b = fmt.Appendf(t.b, " (%s)", k.Why)
		}
		t.b = append(t.b, '\n')
	})
	if s.Violations > 0 {
		title := "invariant violations"
		if len(r.violations) < s.Violations {
			title += fmt.Sprintf(" (the first %d of %d)", len(r.violations), s.Violations)
		}
		t.b = fmt.Appendf(t.b, "\n%s:\n", title)
		for _, v := range r.violations {
			t.b = v.appendText(t.b, t.pids)
		}
	}
	list("agree under an assumption", r.Assumptions(), s.Assumed, func(k Call) {
		t.b = fmt.Appendf(t.b, "  line %d: %s: observed %s: %s\n", k.Line, k.Text, k.Observed, k.Assumption)
	})
	list("undetermined", r.Undetermined(), s.Undetermined, func(k Call) {
		t.b = fmt.Appendf(t.b, "  line %d: %s: observed %s: %s\n", k.Line, k.Text, k.Observed, k.Why)
	})
	if len(r.Ignored) > 0 {
		t.b = fmt.Appendf(t.b, "\nignored calls:\n")
		for _, ig := range r.Ignored {
			t.b = fmt.Appendf(t.b, "  %4d  %s\n", ig.Count, ig.Name)
		}
	}
	if len(r.Notes) > 0 {
		t.b = fmt.Appendf(t.b, "\nnotes:\n")
		for _, n := range r.Notes {
			t.b = fmt.Appendf(t.b, "  %s\n", n)
		}
	}
	t.b = fmt.Appendf(t.b, "\n%d calls replayed: %d agree, %d agree under an assumption, %d undetermined, %d diverge; %d on descriptors the log never created; %d ignored: %s\n",
		s.Calls, s.Agree, s.Assumed, s.Undetermined, s.Diverge, s.Unreplayed, s.Ignored, s.Verdict)
	return t.flush()
}

// appendText appends the violation as the text report lists it, as zcsim
// run prints one: "  line 12 (step 31, tx_complete on fd4): invariant
// refcount: uarg#2: ...", then the object's history indented.
func (v Violation) appendText(b []byte, pids bool) []byte {
	b = fmt.Appendf(b, "  line %d (", v.Line)
	if pids && v.Pid != 0 {
		b = fmt.Appendf(b, "pid %d, ", v.Pid)
	}
	b = fmt.Appendf(b, "step %d, %s", v.Step, v.Op)
	if v.Socket != "" {
		b = fmt.Appendf(b, " on %s", v.Socket)
	}
	b = fmt.Appendf(b, "): invariant %s: %s: %s\n", v.Rule, v.Object, v.Message)
	for _, h := range v.History {
		b = fmt.Appendf(b, "      %s\n", h)
	}
	return b
}

// violationCount is "1 invariant violation", "N invariant violations".
func violationCount(n int) string {
	if n == 1 {
		return "1 invariant violation"
	}
	return fmt.Sprintf("%d invariant violations", n)
}

// NewJSONWriter returns a Writer of JSON Lines, each record with a
// "kind": "config" first (its "schema" is [SchemaVersion]), then one
// "call" per replayed call with its "verdict", then one "divergence" per
// listed disagreement (Report.Divergences), one "violation" per listed
// broken invariant (Report.Violations), one "ignored" per ignored call
// name with its count, one "note" each, and "summary" last — the shape of
// zcsim run's --json.
func NewJSONWriter(w io.Writer) Writer { return &jsonWriter{w: w} }

type jsonWriter struct{ w io.Writer }

func (j *jsonWriter) put(kind string, v any) error { return sim.WriteJSONLine(j.w, kind, v) }

func (j *jsonWriter) Begin(c Config) error { return j.put("config", c) }

func (j *jsonWriter) Call(c Call) error { return j.put("call", c) }

func (j *jsonWriter) End(r *Report) error {
	for _, c := range r.Divergences() {
		if err := j.put("divergence", c); err != nil {
			return err
		}
	}
	for _, v := range r.violations {
		if err := j.put("violation", v); err != nil {
			return err
		}
	}
	for _, ig := range r.Ignored {
		if err := j.put("ignored", ig); err != nil {
			return err
		}
	}
	for _, n := range r.Notes {
		if err := j.put("note", struct {
			Text string `json:"text"`
		}{n}); err != nil {
			return err
		}
	}
	return j.put("summary", r.Summary)
}
