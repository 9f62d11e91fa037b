package scenario

import (
	"bytes"
	"sort"
	"strings"
)

// Parse parses a scenario file. File names the file in positions and errors;
// src is its text. It returns the statements in source order, comments
// included, and nil, or the statements of the lines that parsed and an
// [ErrorList] of every line that did not (one error per line, at most
// [MaxErrors]). Parse never panics, whatever src holds.
func Parse(file string, src []byte) ([]Stmt, error) {
	var stmts []Stmt
	err := ParseEach(file, src, func(st Stmt) bool {
		stmts = append(stmts, st)
		return true
	})
	return stmts, err
}

// ParseEach parses a scenario file as Parse does, handing each statement
// to fn as its line is parsed instead of keeping them, so that a long
// scenario can run in memory that does not grow with its length. It stops
// early when fn returns false. The error is Parse's.
func ParseEach(file string, src []byte, fn func(Stmt) bool) error {
	fp := fileParser{file: file, fn: fn}
	gap, seen := false, false
	n := 0
	for ; len(src) > 0 && !fp.stop; n++ {
		line := src
		if j := bytes.IndexByte(src, '\n'); j >= 0 {
			line, src = src[:j], src[j+1:]
		} else {
			src = nil
		}
		sc := scanLine(string(line))
		if len(sc.toks) == 0 && !sc.hasComment {
			gap = seen
			continue
		}
		if sc.toks != nil && sc.toks[0].kind == tRBrace {
			if err := fp.close(n+1, sc); err != nil && !fp.addErr(err) {
				break
			}
			gap, seen = false, true
			continue
		}
		st, err := fp.parseLine(n+1, sc)
		if err != nil {
			if isHeader(sc) {
				// Its "}" closes a block that is not kept.
				fp.open = append(fp.open, &Repeat{Line: Line{At: Pos{file, n + 1, sc.toks[0].col}}})
			}
			if !fp.addErr(err) {
				break
			}
			continue
		}
		st.line().Gap = gap
		gap, seen = false, true
		if r, ok := st.(*Repeat); ok && r.Body == nil {
			fp.open = append(fp.open, r)
			continue
		}
		fp.emit(st)
	}
	for _, r := range fp.open {
		if r.Count.Kind != ValueNone && !fp.stop && !fp.addErr(&Error{Pos: r.At, Msg: `repeat is not closed: a "}" line is missing`, Near: "repeat"}) {
			break
		}
	}
	if len(fp.errs) > 0 {
		return fp.errs
	}
	return nil
}

// isHeader reports whether a line reads as the header of a repeat block.
func isHeader(sc scanned) bool {
	last := sc.toks[len(sc.toks)-1]
	return sc.toks[0].text == "repeat" && last.kind == tLBrace
}

// fileParser holds what spans lines: the open repeats, the errors, and
// where the profile line was.
type fileParser struct {
	file      string
	fn        func(Stmt) bool
	stop      bool      // fn asked to stop
	open      []*Repeat // the repeats whose "}" is still to come, outermost first
	errs      ErrorList
	profileAt Pos
	other     bool // a statement other than a comment or profile was seen
}

// emit hands a complete statement to the innermost open repeat, or at the
// top of the file to fn.
func (fp *fileParser) emit(st Stmt) {
	if k := len(fp.open); k > 0 {
		fp.open[k-1].Body = append(fp.open[k-1].Body, st)
		return
	}
	if !fp.fn(st) {
		fp.stop = true
	}
}

// close handles a line that starts with "}": it ends the innermost open
// repeat.
func (fp *fileParser) close(n int, sc scanned) *Error {
	t := sc.toks[0]
	at := Pos{fp.file, n, t.col}
	k := len(fp.open)
	if k == 0 {
		return &Error{Pos: at, Msg: `"}" without a repeat to close`, Near: "}"}
	}
	r := fp.open[k-1]
	fp.open = fp.open[:k-1]
	if len(sc.toks) > 1 {
		return &Error{Pos: Pos{fp.file, n, sc.toks[1].col}, Msg: `a closing "}" stands alone on its line`, Near: near(sc.toks[1].text)}
	}
	if r.Count.Kind == ValueNone {
		return nil // its header did not parse
	}
	r.EndComment = sc.comment
	if r.Body == nil {
		r.Body = []Stmt{}
	}
	fp.emit(r)
	return nil
}

// vars returns the variables of the open repeats, outermost first.
func (fp *fileParser) vars() []string {
	vs := make([]string, len(fp.open))
	for i, r := range fp.open {
		vs[i] = r.Var.Name
	}
	return vs
}

// addErr records err and reports whether parsing should go on.
func (fp *fileParser) addErr(err *Error) bool {
	if len(fp.errs) == MaxErrors {
		fp.errs = append(fp.errs, &Error{Pos: err.Pos, Msg: "too many errors"})
		return false
	}
	fp.errs = append(fp.errs, err)
	return true
}

func (fp *fileParser) parseLine(n int, sc scanned) (Stmt, *Error) {
	if len(sc.toks) == 0 {
		return &Comment{Line: Line{At: Pos{fp.file, n, sc.codeEnd + 1}}, Text: sc.comment}, nil
	}
	p := &lineParser{file: fp.file, line: n, vars: fp.vars()}
	kw := sc.toks[0]
	at := p.pos(kw.col)
	var st Stmt
	switch {
	case kw.kind == tWord && kw.text == "note":
		st = &Note{Text: strings.Trim(sc.text[kw.col-1+len(kw.text):sc.codeEnd], blanks)}
	case kw.kind == tWord && kw.text == "repeat":
		st = fp.repeat(p, sc)
	default:
		st = p.statement(sc.toks)
	}
	if p.err == nil {
		p.err = fp.checkOrder(st, at)
	}
	if p.err != nil {
		return nil, p.err
	}
	l := st.line()
	l.At = at
	l.Want = p.want
	if sc.hasComment {
		l.Comment = sc.comment
	}
	return st, nil
}

// repeat parses a repeat header, "repeat [VAR] COUNT {", and in the
// one-line form the statement that follows up to the last "}". A block's
// repeat comes back with a nil Body, for the caller to open.
func (fp *fileParser) repeat(p *lineParser, sc scanned) Stmt {
	toks := sc.toks
	brace := len(toks)
	for i, t := range toks {
		if t.kind == tLBrace {
			brace = i
			break
		}
	}
	p.toks, p.i, p.end = toks[:brace], 1, toks[0].col+len(toks[0].text)
	r := &Repeat{}
	if t, ok := p.peek(); ok && t.kind == tWord && !isDigit(t.text[0]) {
		r.Var = p.loopVar()
	}
	r.Count = p.number("repeat count")
	if r.Count.N > MaxCount {
		p.fail(token{text: r.Count.Text, col: r.Count.Pos.Col}, "repeat count out of range, want at most 4294967295")
	}
	p.done()
	switch {
	case p.err != nil:
		return nil
	case brace == len(toks):
		p.missing(`"{"`)
		return nil
	case len(fp.open) == MaxDepth:
		p.fail(toks[0], "repeats nest at most 8 deep")
		return nil
	case brace == len(toks)-1:
		return r
	}
	last := toks[len(toks)-1]
	if last.kind != tRBrace {
		p.fail(last, `a repeat on one line ends with "}" after its statement`)
		return nil
	}
	inner := strings.Repeat(" ", toks[brace].col) + sc.text[toks[brace].col:last.col-1]
	isc := scanLine(inner)
	r.Body = []Stmt{}
	if len(isc.toks) == 0 {
		return r
	}
	fp.open = append(fp.open, r)
	st, err := fp.parseLine(p.line, isc)
	fp.open = fp.open[:len(fp.open)-1]
	if inner, ok := st.(*Repeat); ok && err == nil && inner.Body == nil {
		err = &Error{Pos: inner.At, Msg: "a repeat on one line holds one whole statement, not a block", Near: "repeat"}
	}
	if err != nil {
		p.err = err
		return nil
	}
	r.Body = append(r.Body, st)
	return r
}

// loopVar consumes the variable a repeat header names.
func (p *lineParser) loopVar() Ident {
	t, _ := p.word("loop variable")
	if !isLetter(t.text[0]) || !allOf(t.text, func(c byte) bool { return isLetter(c) || isDigit(c) }) {
		p.fail(t, "bad loop variable, want a letter or _ then letters, digits or _")
		return Ident{}
	}
	if p.inScope(t.text) {
		p.fail(t, "loop variable "+t.text+" is already the variable of an enclosing repeat")
		return Ident{}
	}
	return Ident{p.pos(t.col), t.text}
}

// inScope reports whether name is the variable of an enclosing repeat.
func (p *lineParser) inScope(name string) bool {
	for _, v := range p.vars {
		if v == name {
			return true
		}
	}
	return false
}

// checkOrder enforces that profile comes once, before everything else,
// and that profile and bug stay out of repeats.
func (fp *fileParser) checkOrder(st Stmt, at Pos) *Error {
	switch st.(type) {
	case *Profile, *Bug:
		if len(fp.open) > 0 {
			kw := "bug"
			if _, ok := st.(*Profile); ok {
				kw = "profile"
			}
			return &Error{Pos: at, Msg: kw + " must be at the top of the file, outside every repeat", Near: kw}
		}
	}
	if _, ok := st.(*Profile); !ok {
		fp.other = true
		return nil
	}
	if fp.profileAt.IsValid() {
		return &Error{Pos: at, Msg: "duplicate profile, the first is at " + fp.profileAt.String(), Near: "profile"}
	}
	if fp.other {
		return &Error{Pos: at, Msg: "profile must come before every other statement", Near: "profile"}
	}
	fp.profileAt = at
	return nil
}

// lineParser parses the tokens of one line. Its first error sticks: later
// calls do nothing and return zero values, so a statement's parse function
// reads straight through and the line reports where it first went wrong.
type lineParser struct {
	file string
	line int
	vars []string // the variables of the enclosing repeats, outermost first
	toks []token
	i    int
	end  int // column just past the last token consumed
	err  *Error
	want Outcome
}

func (p *lineParser) pos(col int) Pos { return Pos{p.file, p.line, col} }

// fail records an error at t unless one is already recorded.
func (p *lineParser) fail(t token, msg string) {
	if p.err == nil {
		p.err = &Error{Pos: p.pos(t.col), Msg: msg, Near: near(t.text)}
	}
}

// missing records that what is missing after the last token consumed.
func (p *lineParser) missing(what string) {
	if p.err == nil {
		p.err = &Error{Pos: p.pos(p.end), Msg: "missing " + what}
	}
}

func (p *lineParser) peek() (token, bool) {
	if p.err != nil || p.i >= len(p.toks) {
		return token{}, false
	}
	return p.toks[p.i], true
}

// peekIs reports whether the next token is of kind k.
func (p *lineParser) peekIs(k tokKind) bool {
	t, ok := p.peek()
	return ok && t.kind == k
}

func (p *lineParser) advance() token {
	t := p.toks[p.i]
	p.i++
	p.end = t.col + len(t.text)
	return t
}

// word consumes a word, the thing named what.
func (p *lineParser) word(what string) (token, bool) {
	t, ok := p.peek()
	switch {
	case p.err != nil:
		return token{}, false
	case !ok:
		p.missing(what)
		return token{}, false
	case t.kind != tWord:
		p.fail(t, "expected "+what)
		return token{}, false
	}
	return p.advance(), true
}

// punct consumes a punctuation token of kind k, spelled text.
func (p *lineParser) punct(k tokKind, text string) bool {
	t, ok := p.peek()
	switch {
	case p.err != nil:
		return false
	case !ok:
		p.missing(`"` + text + `"`)
		return false
	case t.kind != k:
		p.fail(t, `expected "`+text+`"`)
		return false
	}
	p.advance()
	return true
}

// done records an error if tokens are left.
func (p *lineParser) done() {
	if t, ok := p.peek(); ok {
		p.fail(t, "unexpected "+describe(t))
	}
}

func describe(t token) string {
	if t.kind == tWord {
		return "word"
	}
	return `"` + t.text + `"`
}

// statement parses a whole statement line's tokens, including the outcome.
func (p *lineParser) statement(toks []token) Stmt {
	kw := toks[0]
	if kw.kind != tWord {
		p.fail(kw, "expected a statement keyword")
		return nil
	}
	parse, ok := statements[kw.text]
	if !ok {
		p.fail(kw, "unknown statement"+hint(kw.text, keywords()))
		return nil
	}
	arrow := len(toks)
	for i, t := range toks {
		if t.kind == tArrow {
			arrow = i
			break
		}
	}
	p.toks, p.i, p.end = toks[:arrow], 1, kw.col+len(kw.text)
	st := parse(p)
	p.done()
	if arrow < len(toks) && p.err == nil {
		p.toks, p.i, p.end = toks[arrow+1:], 0, toks[arrow].col+2
		p.want = p.outcome()
		p.done()
	}
	return st
}

func keywords() []string {
	ks := make([]string, 0, len(statements)+2)
	for k := range statements {
		ks = append(ks, k)
	}
	ks = append(ks, "note", "repeat")
	sort.Strings(ks)
	return ks
}

// hint returns ", did you mean X?" for the name in names closest to s, or "".
func hint(s string, names []string) string {
	const maxLen = 64
	if len(s) > maxLen {
		return ""
	}
	best, bestD := "", 3
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return ", did you mean " + n + "?"
		}
		if d := editDistance(s, n); d < bestD && d < len(n)/2 {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return ", did you mean " + best + "?"
}

// editDistance is the optimal-string-alignment distance between a and b, in
// bytes: Levenshtein's edits plus swapping two adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
