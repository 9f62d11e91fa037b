package pktdrill

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/sim/scenario"
)

// token is one word or punctuation mark of a script, with where it is.
type token struct {
	pos  scenario.Pos
	text string
}

// lexer cuts a script into events. Comments (// to the end of the line,
// /* … */ anywhere) are blanks.
type lexer struct {
	file  string
	lines []string
	errs  scenario.ErrorList
}

func (l *lexer) fail(pos scenario.Pos, near, format string, args ...any) {
	if len(l.errs) < scenario.MaxErrors {
		l.errs = append(l.errs, &scenario.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Near: near})
	}
}

// stripComments blanks the comments of src, keeping every other byte
// where it is, so positions stay those of the file.
func stripComments(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '`':
			// A shell command is opaque: skip to its closing backtick.
			for i++; i < len(b) && b[i] != '`' && b[i] != '\n'; i++ {
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

// punct are the characters that are tokens on their own.
const punct = "()[]{},=<>:|~"

// tokens cuts one line into tokens: punctuation, "...", and words (names,
// numbers, signed or fractional, "+.1").
func (l *lexer) tokens(line int, text string) []token {
	var out []token
	for i := 0; i < len(text); {
		c := text[i]
		pos := scenario.Pos{File: l.file, Line: line, Col: i + 1}
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(text[i:], "..."):
			out = append(out, token{pos, "..."})
			i += 3
		case strings.IndexByte(punct, c) >= 0:
			out = append(out, token{pos, string(c)})
			i++
		case c == '"':
			j := strings.IndexByte(text[i+1:], '"')
			if j < 0 {
				l.fail(pos, text[i:], "unterminated string")
				return nil
			}
			out = append(out, token{pos, text[i : i+j+2]})
			i += j + 2
		default:
			j := i
			for j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '\r' && strings.IndexByte(punct, text[j]) < 0 && !strings.HasPrefix(text[j:], "...") {
				j++
			}
			if j == i {
				j++
			}
			out = append(out, token{pos, text[i:j]})
			i = j
		}
	}
	return out
}

// event is one line of a script, or a system call over several: its
// time, and the tokens after it. Option lines (--name=value) and shell
// commands have no time.
type event struct {
	pos   scenario.Pos
	time  timeSpec
	timed bool
	toks  []token
	// shell is the command of a `shell` line; option an --option line.
	shell  string
	option string
}

// timeSpec is an event's time: absolute or relative (+) to the previous
// event, in nanoseconds; any is "*", which packetdrill takes as "whenever".
type timeSpec struct {
	rel, any bool
	ns       int64
}

// events cuts src into events. A system call continues on the next lines
// until its brackets close.
func (l *lexer) events(src string) []event {
	l.lines = strings.Split(stripComments(src), "\n")
	var out []event
	for i := 0; i < len(l.lines); i++ {
		lineNo := i + 1
		text := l.lines[i]
		trimmed := strings.TrimLeft(text, " \t")
		col := len(text) - len(trimmed) + 1
		trimmed = strings.TrimRight(trimmed, " \t\r")
		pos := scenario.Pos{File: l.file, Line: lineNo, Col: col}
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "--"):
			for _, opt := range strings.Fields(trimmed) {
				out = append(out, event{pos: pos, option: opt})
			}
			continue
		case trimmed[0] == '`':
			out = append(out, l.shell(pos, trimmed))
			continue
		}
		timeText, rest, _ := strings.Cut(trimmed, " ")
		if j := strings.IndexByte(trimmed, '\t'); j >= 0 && j < len(timeText) {
			timeText, rest = trimmed[:j], trimmed[j+1:]
		}
		ts, ok := parseTime(timeText)
		if !ok {
			l.fail(pos, timeText, "expected the time of an event (0, +0, +.1, 0.250, *)")
			continue
		}
		restCol := col + len(trimmed) - len(rest)
		ev := event{pos: pos, time: ts, timed: true}
		if r := strings.TrimLeft(rest, " \t"); strings.HasPrefix(r, "`") {
			sh := l.shell(scenario.Pos{File: l.file, Line: lineNo, Col: restCol + len(rest) - len(r)}, r)
			sh.time, sh.timed = ts, true
			out = append(out, sh)
			continue
		}
		toks := l.tokens(lineNo, strings.Repeat(" ", restCol-1)+rest)
		for depth(toks) > 0 && i+1 < len(l.lines) {
			i++
			toks = append(toks, l.tokens(i+1, l.lines[i])...)
		}
		if len(toks) == 0 {
			l.fail(pos, timeText, "an event needs a system call or a packet after its time")
			continue
		}
		ev.toks = toks
		out = append(out, ev)
	}
	return out
}

// shell is a `command` line.
func (l *lexer) shell(pos scenario.Pos, text string) event {
	end := strings.LastIndexByte(text, '`')
	if end <= 0 {
		l.fail(pos, text, "unterminated shell command")
		return event{pos: pos, shell: text[1:]}
	}
	return event{pos: pos, shell: text[1:end]}
}

// depth is how many brackets the tokens leave open.
func depth(toks []token) int {
	d := 0
	for _, t := range toks {
		switch t.text {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
		}
	}
	return d
}

// parseTime reads 0, 1.5, +0, +.1, * and the ranges a~b (their start).
func parseTime(s string) (timeSpec, bool) {
	if s == "*" {
		return timeSpec{any: true}, true
	}
	s, _, _ = strings.Cut(s, "~")
	var ts timeSpec
	if strings.HasPrefix(s, "+") {
		ts.rel, s = true, s[1:]
	}
	if s == "" || strings.ContainsAny(s, "+-eE") {
		return ts, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f > 1e9 {
		return ts, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	ns, err := strconv.ParseInt(whole+"000000000", 10, 64)
	if whole == "" {
		ns, err = 0, nil
	}
	if err != nil {
		return ts, false
	}
	frac = (frac + "000000000")[:9]
	n, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return ts, false
	}
	ts.ns = ns + n
	return ts, true
}

// expr is a system call's argument as packetdrill writes it: "...", a
// number, a "|"-union of names, a list [...], a struct {name=value, ...},
// or NULL.
type expr struct {
	pos    scenario.Pos
	kind   exprKind
	num    int64
	words  []string
	items  []expr
	fields []field
}

type exprKind uint8

const (
	eEllipsis exprKind = iota
	eNum
	eWords
	eList
	eStruct
	eString
)

// field is "name=value" or "name(arg)=value" in a struct.
type field struct {
	pos  scenario.Pos
	name string
	arg  *expr
	val  expr
}

// call is "name(args) = result [ERRNO (text)]".
type call struct {
	pos    scenario.Pos
	name   string
	args   []expr
	ret    int64
	anyRet bool
	errno  string
}

// parser reads one event's tokens.
type parser struct {
	l    *lexer
	toks []token
	i    int
	ok   bool
}

func (p *parser) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

// next consumes the next token; at the end it is an empty one after the
// last.
func (p *parser) next() token {
	t, ok := p.peek()
	if !ok {
		return token{pos: p.endPos()}
	}
	p.i++
	return t
}

// endPos is where a missing token would be: after the last one.
func (p *parser) endPos() scenario.Pos {
	t := p.toks[len(p.toks)-1]
	t.pos.Col += len(t.text)
	return t.pos
}

func (p *parser) fail(t token, format string, args ...any) {
	if p.ok {
		p.l.fail(t.pos, t.text, format, args...)
	}
	p.ok = false
}

func (p *parser) expect(text string) bool {
	t, ok := p.peek()
	if !ok {
		p.fail(token{pos: p.endPos()}, "missing %q", text)
		return false
	}
	if t.text != text {
		p.fail(t, "expected %q", text)
		return false
	}
	p.i++
	return true
}

// call parses a system call event.
func (p *parser) call() call {
	name := p.next()
	c := call{pos: name.pos, name: name.text}
	if !isIdent(name.text) {
		p.fail(name, "expected a system call or a packet (< or >)")
		return c
	}
	if !p.expect("(") {
		return c
	}
	if t, ok := p.peek(); ok && t.text != ")" {
		for p.ok {
			c.args = append(c.args, p.expr())
			if t, ok := p.peek(); !ok || t.text != "," {
				break
			}
			p.i++
		}
	}
	if !p.expect(")") || !p.expect("=") {
		return c
	}
	t := p.next()
	switch n, err := strconv.ParseInt(t.text, 0, 64); {
	case t.text == "...":
		c.anyRet = true
	case err != nil:
		p.fail(t, "expected the call's result")
		return c
	default:
		c.ret = n
	}
	if t, ok := p.peek(); ok && c.ret == -1 {
		p.i++
		if !strings.HasPrefix(t.text, "E") || !isIdent(t.text) {
			p.fail(t, "expected an errno after -1")
			return c
		}
		c.errno = t.text
		if t, ok := p.peek(); ok && t.text == "(" {
			// The errno's text, "(Resource temporarily unavailable)".
			for p.i < len(p.toks) && p.toks[p.i].text != ")" {
				p.i++
			}
			p.expect(")")
		}
	}
	if t, ok := p.peek(); ok && p.ok {
		p.fail(t, "unexpected text after the call's result")
	}
	return c
}

// expr parses one argument.
func (p *parser) expr() expr {
	t, ok := p.peek()
	if !ok {
		p.fail(token{pos: p.endPos()}, "missing argument")
		return expr{}
	}
	e := expr{pos: t.pos}
	switch {
	case t.text == "...":
		p.i++
		e.kind = eEllipsis
	case t.text == "[":
		p.i++
		e.kind = eList
		for p.ok {
			if t, ok := p.peek(); ok && t.text == "]" {
				break
			}
			e.items = append(e.items, p.expr())
			if t, ok := p.peek(); !ok || t.text != "," {
				break
			}
			p.i++
		}
		p.expect("]")
	case t.text == "{":
		p.i++
		e.kind = eStruct
		for p.ok {
			if t, ok := p.peek(); ok && t.text == "}" {
				break
			}
			if p.fieldNext() {
				e.fields = append(e.fields, p.field())
			} else {
				e.items = append(e.items, p.expr()) // {..., 4000}: an iovec
			}
			if t, ok := p.peek(); !ok || t.text != "," {
				break
			}
			p.i++
		}
		p.expect("}")
	case strings.HasPrefix(t.text, "\""):
		p.i++
		e.kind = eString
		e.words = []string{t.text}
	default:
		if n, err := strconv.ParseInt(t.text, 0, 64); err == nil {
			p.i++
			e.kind, e.num = eNum, n
			return e
		}
		e.kind = eWords
		for p.ok {
			w := p.next()
			if !isIdent(w.text) {
				p.fail(w, "expected an argument")
				return e
			}
			e.words = append(e.words, w.text)
			if t, ok := p.peek(); !ok || t.text != "|" {
				break
			}
			p.i++
		}
	}
	return e
}

// fieldNext reports whether a struct's next element is a named field.
func (p *parser) fieldNext() bool {
	if p.i+1 >= len(p.toks) || !isIdent(p.toks[p.i].text) {
		return false
	}
	n := p.toks[p.i+1].text
	return n == "=" || n == "("
}

// field parses name=value or name(arg)=value.
func (p *parser) field() field {
	t := p.next()
	f := field{pos: t.pos, name: t.text}
	if !isIdent(t.text) {
		p.fail(t, "expected a field name")
		return f
	}
	if n, ok := p.peek(); ok && n.text == "(" {
		p.i++
		a := p.expr()
		f.arg = &a
		p.expect(")")
	}
	if p.expect("=") {
		f.val = p.expr()
	}
	return f
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
