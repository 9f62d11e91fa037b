package strace

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseFile reads and parses the strace log at path; see [Parse].
func ParseFile(path string) (*Log, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse parses strace text. name is used in error positions. It returns
// the log and, when some lines could not be parsed, an [*ErrorList] naming
// each of them; the log then holds everything that did parse. Parse never
// panics.
func Parse(name string, src []byte) (*Log, error) {
	calls := make([]Call, 0, bytes.Count(src, []byte{'\n'})+1)
	p := &parser{log: &Log{File: name, Calls: calls}, file: name, pending: map[int]*pending{}}
	lineNo := 0
	var stitch *stitched
	for len(src) > 0 {
		lineNo++
		var line []byte
		line, src, _ = bytes.Cut(src, []byte{'\n'})
		text := strings.TrimRight(string(line), "\r")
		stitch = p.line(text, lineNo, stitch)
	}
	p.end(stitch)
	return p.log, p.errs.err()
}

// end finishes the log: a call line a strace message cut and nothing
// continued is an error, and every call still unfinished gets a
// [ResultUnfinished] result.
func (p *parser) end(stitch *stitched) {
	if stitch != nil {
		p.errorf(stitch.segs[0].line, 1, stitch.text, "line interrupted by a strace message is never continued")
	}
	p.flushPending(0, true)
}

// segment maps a stretch of a stitched text back to its source line: the
// text from offset start came from line at 1-based column col.
type segment struct {
	start, line, col int
}

// stitched is the first part of a call line that a "strace: Process N
// attached" message, written to the same stream, cut in two.
type stitched struct {
	text string
	segs []segment
	pid  int
	when Time
}

// pending is an "<unfinished ...>" call waiting for its resumed half.
type pending struct {
	head     Call // Lines, Pid, Time, Name
	text     string
	segs     []segment
	argStart int // offset in text just after "name("
	order    int
}

type parser struct {
	log     *Log
	file    string
	errs    ErrorList
	pending map[int]*pending
	seq     int
	mem     carver
	// starts, when set, asks for the first half of each call that
	// StartDecoded names, in started, as its line shows it.
	starts  bool
	started []Call
	// known remembers the whole-call lines a Scanner read lately, and
	// shapes the shapes of those it parsed; see knownLine and shape.
	known  knownLines
	shapes shapes
	// since sums the -r times of the lines so far (Time.Since).
	since int64
	// seg is the segment of the line being parsed, the cursor's: what
	// keeps a cursor's segments past its line (stitched, pending)
	// copies them.
	seg [1]segment
}

func (p *parser) errorf(line, col int, at string, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	p.errs.add(&Error{File: p.file, Line: line, Col: col, Msg: msg, At: shorten(at)})
}

// line handles one source line. stitch is the cut-off start of a call
// from an earlier line, if any; line returns the cut-off start for the
// next line.
func (p *parser) line(text string, lineNo int, stitch *stitched) *stitched {
	if strings.TrimSpace(text) == "" {
		return stitch
	}
	p.seg[0] = segment{0, lineNo, 1}
	c := cursor{s: text, segs: p.seg[:], mem: &p.mem}
	pid := c.pidPrefix()
	when, ok := c.timestamp()
	if !ok {
		p.errorAt(&c, "malformed timestamp")
		return stitch
	}
	if when.Kind == TimeRelative {
		p.since += when.Nanos
		when.Since = p.since
	}
	c.skipSpaces()
	rest := c.s[c.i:]
	if stitch == nil && p.mem.reuse && p.repeat(rest, c.i, lineNo, pid, when) {
		return nil
	}
	p.known.prev = nil
	p.mem.lineDone()
	if strings.HasPrefix(rest, "strace: ") || strings.HasPrefix(rest, "+++ ") ||
		strings.HasPrefix(rest, "--- ") {
		p.note(&c, pid, when, lineNo)
		return stitch
	}
	if stitch != nil {
		return p.continueStitch(stitch, text, lineNo)
	}
	if at := strings.Index(rest, "strace: Process "); at > 0 {
		cut := c.i + at
		msg := cursor{s: text, i: cut, segs: c.segs, mem: &p.mem}
		p.note(&msg, pid, when, lineNo)
		return &stitched{text: text[:cut], segs: slices.Clone(c.segs), pid: pid, when: when}
	}
	at := c.i
	if !p.mem.reuse {
		p.callLine(&c, pid, when)
		return nil
	}
	t := p.shapes.of(rest)
	parsed := false
	if t == nil || !p.apply(t, rest, at, lineNo, pid, when) {
		errs := len(p.errs.Errs) + p.errs.Dropped
		if !p.callLine(&c, pid, when) {
			return nil
		}
		parsed = len(p.errs.Errs)+p.errs.Dropped == errs
	}
	call := &p.log.Calls[len(p.log.Calls)-1]
	call.known = p.known.seen(rest, *call, at)
	if parsed && t == nil && call.known == nil {
		p.shapes.parsed(rest, at, call)
	}
	return nil
}

// repeat lists again the call of a line whose text after the pid and
// the timestamp (rest, at offset at) came before (knownLine), and reports
// whether it did: parsed alike, the line would give the same call, but
// for its line, pid and time and its values' positions, which move by
// the difference between the prefixes' widths. The line before's values
// are still in the carver: its repeat copies them instead of parsing.
// Only a Scanner repeats: a Log's calls keep values of their own.
func (p *parser) repeat(rest string, at, lineNo, pid int, when Time) bool {
	k := p.known.lookup(rest)
	if k == nil {
		return false
	}
	if k.call == nil {
		if p.known.prev != k {
			return false
		}
		p.known.learn(k, p.known.prevCall, k.at)
	}
	for i := range k.call.Args {
		k.call.Args[i].moveTo(lineNo, at-k.at)
	}
	if k.call.Result.Value.IsValid() {
		k.call.Result.Value.moveTo(lineNo, at-k.at)
	}
	k.at = at
	call := *k.call
	call.Lines = p.lineSet([]segment{{0, lineNo, 1}})
	call.Pid, call.Time, call.known = pid, when, k
	p.known.prev = nil
	p.log.Calls = append(p.log.Calls, call)
	return true
}

// moveTo gives v and the values in it the position of the same text on
// another line, shift columns to the right.
func (v *Value) moveTo(line, shift int) {
	v.Line, v.Col = line, v.Col+shift
	for i := range v.Elems {
		v.Elems[i].moveTo(line, shift)
	}
	for i := range v.Fields {
		v.Fields[i].Value.moveTo(line, shift)
	}
}

// continueStitch joins the continuation of a cut call line to its start
// and parses the whole.
func (p *parser) continueStitch(st *stitched, text string, lineNo int) *stitched {
	segs := append(append([]segment(nil), st.segs...), segment{start: len(st.text), line: lineNo, col: 1})
	c := cursor{s: st.text + text, segs: segs, mem: &p.mem}
	c.pidPrefix()
	c.timestamp()
	c.skipSpaces()
	p.callLine(&c, st.pid, st.when)
	return nil
}

func (p *parser) errorAt(c *cursor, format string, args ...any) {
	line, col := c.pos(c.i)
	p.errorf(line, col, c.s[c.i:], format, args...)
}

// note records a "strace: ", "+++ ... +++" or "--- ... ---" line.
func (p *parser) note(c *cursor, pid int, when Time, lineNo int) {
	rest := c.s[c.i:]
	n := Note{Line: lineNo, Pid: pid, Time: when}
	switch {
	case strings.HasPrefix(rest, "strace: "):
		n.Kind, n.Text = NoteMessage, strings.TrimPrefix(rest, "strace: ")
	case strings.HasPrefix(rest, "+++ "):
		if !strings.HasSuffix(rest, " +++") || len(rest) < 8 {
			p.errorAt(c, "exit line without closing +++")
			return
		}
		n.Text = rest[4 : len(rest)-4]
		if !p.exitNote(&n) {
			p.errorAt(c, "unknown exit line")
			return
		}
		p.flushPending(pid, false)
	default:
		if !strings.HasSuffix(rest, " ---") || len(rest) < 8 {
			p.errorAt(c, "signal line without closing ---")
			return
		}
		n.Kind, n.Text = NoteSignal, rest[4:len(rest)-4]
		n.Name, _, _ = strings.Cut(n.Text, " ")
		if n.Name == "stopped" || n.Name == "SIGSTOP" {
			n.Name = strings.TrimPrefix(n.Text, "stopped by ")
		}
	}
	p.log.Notes = append(p.log.Notes, n)
}

// exitNote fills in an exit or kill note from its text.
func (p *parser) exitNote(n *Note) bool {
	if s, ok := strings.CutPrefix(n.Text, "exited with "); ok {
		st, err := strconv.Atoi(s)
		n.Kind, n.Status = NoteExit, st
		return err == nil
	}
	if s, ok := strings.CutPrefix(n.Text, "killed by "); ok {
		n.Kind = NoteKilled
		n.Name, _, _ = strings.Cut(s, " ")
		return strings.HasPrefix(n.Name, "SIG")
	}
	return false
}

const (
	unfinishedMark = "<unfinished ...>"
	resumedMark    = " resumed>"
)

// callLine parses a call, an unfinished call or a resumed call, starting
// at the syscall name or at "<... ". It reports whether the line was a
// whole call, which it lists.
func (p *parser) callLine(c *cursor, pid int, when Time) bool {
	line, _ := c.pos(c.i)
	if rest, ok := strings.CutPrefix(c.s[c.i:], "<... "); ok {
		name, _, found := strings.Cut(rest, resumedMark)
		if !found || !isSyscallName(name) {
			p.errorAt(c, "malformed resumed marker")
			return false
		}
		c.i += len("<... ") + len(name) + len(resumedMark)
		p.resumed(c, pid, when, name, line)
		return false
	}
	start := c.i
	name := c.ident()
	if name == "" || !c.eat("(") {
		c.i = start
		p.errorAt(c, "expected a system call, signal, exit or strace message")
		return false
	}
	if strings.HasSuffix(c.s, unfinishedMark) {
		trimmed := strings.TrimRight(c.s[:len(c.s)-len(unfinishedMark)], " ")
		p.unfinished(c, Call{Pid: pid, Time: when, Name: name}, trimmed)
		return false
	}
	call := Call{Lines: p.lineSet(c.segs), Pid: pid, Time: when, Name: name}
	if !p.finish(c, &call) {
		return false
	}
	p.log.Calls = append(p.log.Calls, call)
	return true
}

// lineSet returns the distinct source lines of segs in order, carved
// from the carver's slab of line numbers, which is never reused: a call's
// Lines go with its decoded Op.
func (p *parser) lineSet(segs []segment) []int {
	var stack [4]int
	out := stack[:0]
	for _, s := range segs {
		if len(out) == 0 || out[len(out)-1] != s.line {
			out = append(out, s.line)
		}
	}
	return p.mem.lines.cut(out, false)
}

// unfinished stores the first half of a call until its resumed half.
func (p *parser) unfinished(c *cursor, head Call, text string) {
	if old, ok := p.pending[head.Pid]; ok {
		p.errorAt(c, "pid %d starts %s while %s (line %d) is unfinished", head.Pid, head.Name, old.head.Name, old.head.Lines[0])
		p.flushOne(old)
	}
	head.Lines = p.lineSet(c.segs)
	p.seq++
	p.pending[head.Pid] = &pending{head: head, text: text, segs: slices.Clone(c.segs), argStart: c.i, order: p.seq}
	if p.starts {
		p.start(c, head, text)
	}
}

// start lists the first half of a call, its arguments parsed as far as
// they go and a ResultUnfinished result. A half that does not parse is
// left out, its errors too: the whole call reports them once resumed.
func (p *parser) start(c *cursor, head Call, text string) {
	errs, dropped := len(p.errs.Errs), p.errs.Dropped
	part := cursor{s: text, segs: c.segs, i: c.i, mem: &p.mem}
	args, ok := p.args(&part, true)
	if !ok {
		p.errs.Errs, p.errs.Dropped = p.errs.Errs[:errs], dropped
		return
	}
	head.Args, head.Result = args, Result{Kind: ResultUnfinished}
	p.started = append(p.started, head)
}

// resumed joins a "<... name resumed>" line with its unfinished half and
// parses the whole call.
func (p *parser) resumed(c *cursor, pid int, when Time, name string, line int) {
	pd, ok := p.pending[pid]
	if !ok || pd.head.Name != name {
		call := Call{Lines: []int{line}, Pid: pid, Time: when, Name: name, Orphan: true}
		if ok {
			p.errorAt(c, "%s resumed while %s (line %d) is unfinished", name, pd.head.Name, pd.head.Lines[0])
			return
		}
		if p.finish(c, &call) {
			p.log.Calls = append(p.log.Calls, call)
		}
		return
	}
	delete(p.pending, pid)
	// A process killed inside the call: "<... name resumed> <unfinished
	// ...>) = ?" closes the arguments printed so far.
	if rest, ok := strings.CutPrefix(c.s[c.i:], " "+unfinishedMark); ok && strings.HasPrefix(rest, ")") {
		c.i += 1 + len(unfinishedMark)
		pd.text = strings.TrimSuffix(pd.text, ",")
	}
	segs := append([]segment(nil), pd.segs...)
	for _, s := range c.segs {
		if s.start < c.i {
			s.col += c.i - s.start
			s.start = c.i
		}
		s.start += len(pd.text) - c.i
		segs = append(segs, s)
	}
	joined := cursor{s: pd.text + c.s[c.i:], segs: segs, i: pd.argStart, mem: &p.mem}
	call := pd.head
	call.Lines = p.lineSet(segs)
	call.End = when
	if p.finish(&joined, &call) {
		p.log.Calls = append(p.log.Calls, call)
	}
}

// flushPending turns unfinished calls that will never resume into calls
// with a [ResultUnfinished] result: those of pid when a process exits, all
// of them at the end of the log.
func (p *parser) flushPending(pid int, all bool) {
	if all {
		var list []*pending
		for _, pd := range p.pending {
			list = append(list, pd)
		}
		sortPending(list)
		for _, pd := range list {
			p.flushOne(pd)
		}
		return
	}
	if pd, ok := p.pending[pid]; ok {
		p.flushOne(pd)
	}
}

func sortPending(list []*pending) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].order < list[j-1].order; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

func (p *parser) flushOne(pd *pending) {
	delete(p.pending, pd.head.Pid)
	c := cursor{s: pd.text, segs: pd.segs, i: pd.argStart, mem: &p.mem}
	call := pd.head
	args, ok := p.args(&c, true)
	if !ok {
		return
	}
	call.Args = args
	call.Result = Result{Kind: ResultUnfinished}
	p.log.Calls = append(p.log.Calls, call)
}

// finish parses the arguments after "(" and the result of a call.
func (p *parser) finish(c *cursor, call *Call) bool {
	args, ok := p.args(c, false)
	if !ok {
		return false
	}
	call.Args = args
	return p.result(c, call)
}

// args parses a comma-separated argument list up to and including ")".
// With partial, the list may instead end at the end of the text (the
// arguments printed before "<unfinished ...>").
func (p *parser) args(c *cursor, partial bool) ([]Value, bool) {
	mark := c.mem.valMark()
	c.skipSpaces()
	if c.eat(")") {
		return c.mem.carveVals(mark), true
	}
	var v Value // each argument in turn (out of the loop: on the stack)
	for {
		c.skipSpaces()
		if partial && c.i >= len(c.s) {
			return c.mem.carveVals(mark), true
		}
		name, err := c.field(&v)
		if err != nil {
			p.errs.add(p.withFile(err))
			return nil, false
		}
		if name != "" {
			// clone(child_stack=NULL, flags=CLONE_VM|..., ...)
			v.Name, v.Text = name, name+"="+v.Text
		}
		c.mem.pushVal(&v)
		c.skipSpaces()
		switch {
		case c.eat(","):
		case c.eat(")"):
			return c.mem.carveVals(mark), true
		case partial && c.i >= len(c.s):
			return c.mem.carveVals(mark), true
		default:
			p.errorAt(c, "expected \",\" or \")\" after argument")
			return nil, false
		}
	}
}

func (p *parser) withFile(e *Error) *Error {
	e.File = p.file
	return e
}

// result parses " = value [(comment)] [<duration>]" after the ")".
func (p *parser) result(c *cursor, call *Call) bool {
	c.skipSpaces()
	if !c.eat("=") {
		p.errorAt(c, "expected \"=\" and a result after \")\"")
		return false
	}
	c.skipSpaces()
	r := &call.Result
	switch {
	case c.eat("?"):
		r.Kind = ResultUnknown
		c.skipSpaces()
		if name := c.ident(); name != "" {
			if !strings.HasPrefix(name, "ERESTART") {
				c.i -= len(name)
				p.errorAt(c, "expected a restart code (ERESTARTSYS) after \"= ?\"")
				return false
			}
			r.Kind, r.Errno = ResultInterrupted, name
		}
	default:
		if err := c.value(&r.Value); err != nil {
			r.Value = Value{}
			p.errs.add(p.withFile(err))
			return false
		}
		v := &r.Value
		if v.Kind != KindInt && v.Kind != KindFd {
			p.errorf(v.Line, v.Col, v.Text, "result is not a number")
			return false
		}
		c.skipSpaces()
		if v.Int < 0 {
			if name := c.ident(); name != "" {
				r.Kind, r.Errno = ResultErrno, name
			}
		}
	}
	c.skipSpaces()
	if c.peek() == '(' {
		start := c.i
		if !c.skipBalanced('(', ')') {
			c.i = start
			p.errorAt(c, "unbalanced parenthesis in result comment")
			return false
		}
		r.Comment = c.s[start+1 : c.i-1]
	}
	return p.duration(c, call)
}

// duration parses an optional -T "<0.000012>" (or "<unavailable>") and
// checks that nothing follows.
func (p *parser) duration(c *cursor, call *Call) bool {
	c.skipSpaces()
	if c.peek() == '<' {
		end := strings.IndexByte(c.s[c.i:], '>')
		if end < 0 {
			p.errorAt(c, "unterminated duration")
			return false
		}
		text := c.s[c.i+1 : c.i+end]
		if text != "unavailable" {
			d, ok := parseSeconds(text)
			if !ok {
				p.errorAt(c, "malformed duration")
				return false
			}
			call.Duration = time.Duration(d)
		}
		c.i += end + 1
		c.skipSpaces()
	}
	if c.i < len(c.s) {
		p.errorAt(c, "unexpected text after result")
		return false
	}
	return true
}

// parseSeconds parses "S.FFFFFF" (up to 9 fraction digits) into
// nanoseconds.
func parseSeconds(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	if sec == "" || len(frac) > 9 || !allDigits(sec) || !allDigits(frac) || len(sec) > 12 {
		return 0, false
	}
	n, _ := strconv.ParseInt(sec, 10, 64)
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	return n*1e9 + f, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isSyscallName(s string) bool { return isIdent(s) }
