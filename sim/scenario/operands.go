package scenario

import (
	"math"
	"strconv"
	"strings"
)

// name consumes a name the scenario defines or refers to, such as a socket,
// task or device name.
func (p *lineParser) name(what string) Ident {
	t, ok := p.word(what)
	if !ok {
		return Ident{}
	}
	if !isName(t.text) {
		p.fail(t, "bad "+what+", want a letter or _ then letters, digits, _ or -")
		return Ident{}
	}
	return Ident{p.pos(t.col), t.text}
}

// dotted consumes a name that may hold dots, such as linux-6.18.
func (p *lineParser) dotted(what string) Ident {
	t, ok := p.word(what)
	if !ok {
		return Ident{}
	}
	if !isDotted(t.text) {
		p.fail(t, "bad "+what+", want a letter or _ then letters, digits, _, - or .")
		return Ident{}
	}
	return Ident{p.pos(t.col), t.text}
}

// sock consumes a socket reference, S or S.peer.
func (p *lineParser) sock() Sock {
	t, ok := p.word("socket name")
	if !ok {
		return Sock{}
	}
	name, peer := strings.CutSuffix(t.text, ".peer")
	if !isName(name) {
		p.fail(t, "bad socket name, want a name or name.peer")
		return Sock{}
	}
	return Sock{p.pos(t.col), name, peer}
}

// symbol consumes a name from tab.
func (p *lineParser) symbol(tab table) Ident {
	t, ok := p.word(tab.what)
	if !ok {
		return Ident{}
	}
	if !tab.has(t.text) {
		p.fail(t, "unknown "+tab.what+hint(t.text, tab.names()))
		return Ident{}
	}
	return Ident{p.pos(t.col), t.text}
}

// oneOf consumes a word that must be one of words.
func (p *lineParser) oneOf(what string, words ...string) Ident {
	t, ok := p.word(what)
	if !ok {
		return Ident{}
	}
	for _, w := range words {
		if t.text == w {
			return Ident{p.pos(t.col), t.text}
		}
	}
	p.fail(t, "bad "+what+", want "+strings.Join(words, " or "))
	return Ident{}
}

// flags consumes a "|"-union of names from tab, or with zero set, "0" for
// the empty set.
func (p *lineParser) flags(tab table, zero bool) Flags {
	t, ok := p.peek()
	switch {
	case ok && zero && t.text == "0":
		p.advance()
		return Flags{Pos: p.pos(t.col)}
	case !ok && zero:
		p.missing(tab.what + "s, or 0 for none")
		return Flags{}
	case ok && (t.text == "K" || t.text == "M" || t.text == "G"):
		p.fail(t, "a size suffix goes right after its number, as in 64K")
		return Flags{}
	}
	var f Flags
	for {
		id := p.symbol(tab)
		if p.err != nil {
			return Flags{}
		}
		if f.Has(id.Name) {
			p.fail(token{text: id.Name, col: id.Pos.Col}, "duplicate "+tab.what)
			return Flags{}
		}
		if len(f.Names) == 0 {
			f.Pos = id.Pos
		}
		f.Names = append(f.Names, id)
		if !p.peekIs(tPipe) {
			return f
		}
		p.advance()
	}
}

// number consumes a size or integer.
func (p *lineParser) number(what string) Value {
	t, ok := p.word(what)
	if !ok {
		return Value{}
	}
	return p.numberOf(t)
}

func (p *lineParser) numberOf(t token) Value {
	n, msg := parseNumber(t.text)
	if msg != "" {
		p.fail(t, msg)
		return Value{}
	}
	return Value{p.pos(t.col), ValueNumber, n, t.text}
}

func (p *lineParser) durationOf(t token) Value {
	n, msg := parseDuration(t.text)
	if msg != "" {
		p.fail(t, msg)
		return Value{}
	}
	return Value{p.pos(t.col), ValueDuration, n, t.text}
}

// optNumber consumes a number if one comes next.
func (p *lineParser) optNumber(what string) Value {
	if !p.peekIs(tWord) {
		return Value{}
	}
	return p.number(what)
}

// iovec consumes "[LEN, LEN, ...]", possibly empty.
func (p *lineParser) iovec() []Value {
	if !p.punct(tLBrack, "[") {
		return nil
	}
	iov := []Value{}
	for t, ok := p.peek(); ok && t.kind != tRBrack; t, ok = p.peek() {
		if len(iov) > 0 {
			p.punct(tComma, ",")
		}
		iov = append(iov, p.number("iovec length"))
	}
	p.punct(tRBrack, "]")
	return iov
}

// uint32Of decodes an id or key, which the kernel holds in 32 bits.
func (p *lineParser) uint32Of(what string) uint32 {
	v := p.number(what)
	if v.N > math.MaxUint32 {
		p.fail(token{text: v.Text, col: v.Pos.Col}, what+" out of range, want at most 0xffffffff")
	}
	return uint32(v.N)
}

// outcome parses the tokens after "=>".
func (p *lineParser) outcome() Outcome {
	t, ok := p.word("expectation after =>")
	if !ok {
		return Outcome{}
	}
	o := Outcome{Pos: p.pos(t.col)}
	switch {
	case t.text == "zerocopy":
		o.Kind = OutcomeZerocopy
		p.punct(tLBrack, "[")
		o.Range.Lo = p.uint32Of("id")
		p.punct(tComma, ",")
		o.Range.Hi = p.uint32Of("id")
		p.punct(tRBrack, "]")
		if n, ok := p.peek(); ok && n.text == "copied" {
			p.advance()
			o.Copied = true
		}
	case t.text == "timestamp":
		o.Kind = OutcomeTimestamp
		o.Tstamp = p.symbol(tstampKinds).Name
		if n, ok := p.peek(); ok && n.text == "key" {
			p.advance()
			p.punct(tEq, "=")
			o.Key, o.HasKey = p.uint32Of("key"), true
		}
	case t.text != "" && t.text[0] == 'E' && isName(t.text):
		o.Kind, o.Errno = OutcomeErrno, p.errno(t)
	default:
		o.Kind, o.Ret = OutcomeReturn, p.ret(t)
		if t, ok := p.peek(); ok && t.kind == tWord && o.Ret == -1 {
			o.Kind, o.Ret, o.Errno = OutcomeErrno, 0, p.errno(p.advance())
		} else if ok && errnoNames.has(t.text) {
			p.fail(t, "an errno follows -1, not "+strconv.FormatInt(o.Ret, 10))
		}
	}
	if p.err != nil {
		return Outcome{}
	}
	return o
}

func (p *lineParser) errno(t token) string {
	if !errnoNames.has(t.text) {
		p.fail(t, "unknown errno"+hint(t.text, errnoNames.names()))
	}
	return t.text
}

// ret decodes a return value: a number, possibly negative.
func (p *lineParser) ret(t token) int64 {
	digits, neg := strings.CutPrefix(t.text, "-")
	if digits == "" {
		p.fail(t, "bad expectation, want a return value, an errno, zerocopy [LO,HI] or timestamp KIND")
		return 0
	}
	n, msg := parseNumber(digits)
	switch {
	case msg != "" && !neg && !isDigit(digits[0]):
		p.fail(t, "bad expectation, want a return value, an errno, zerocopy [LO,HI] or timestamp KIND")
	case msg != "":
		p.fail(t, msg)
	case n > math.MaxInt64 && !(neg && n == 1<<63):
		p.fail(t, "number out of range")
	case neg:
		return int64(-n)
	}
	return int64(n)
}
