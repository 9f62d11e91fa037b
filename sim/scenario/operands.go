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
	return Value{p.pos(t.col), ValueNumber, n, t.text, nil}
}

// signedOf decodes a number that may be negative ("-1"): N holds its
// two's complement, so that Value.Int gives it back.
func (p *lineParser) signedOf(t token) Value {
	digits, neg := strings.CutPrefix(t.text, "-")
	n, msg := parseNumber(digits)
	switch {
	case msg != "":
		p.fail(t, msg)
		return Value{}
	case n > math.MaxInt64:
		p.fail(t, "number out of range")
		return Value{}
	case neg:
		n = uint64(-int64(n))
	}
	return Value{p.pos(t.col), ValueNumber, n, t.text, nil}
}

func (p *lineParser) durationOf(t token) Value {
	n, msg := parseDuration(t.text)
	if msg != "" {
		p.fail(t, msg)
		return Value{}
	}
	return Value{p.pos(t.col), ValueDuration, n, t.text, nil}
}

// optOperand consumes an operand if one comes next.
func (p *lineParser) optOperand(what string) Value {
	if !p.peekIs(tWord) {
		return Value{}
	}
	return p.operand(what)
}

// operand consumes a number, or an expression ([Expr]) where the word is
// one: it names a loop variable in scope or holds an operator.
func (p *lineParser) operand(what string) Value {
	t, ok := p.word(what)
	if !ok {
		return Value{}
	}
	if p.isExpr(t.text) {
		return p.exprOf(t)
	}
	return p.numberOf(t)
}

// isExpr reports whether the word s, in a number's place, is an
// expression. Outside every repeat a bare name is a bad number, as it
// always was.
func (p *lineParser) isExpr(s string) bool {
	if !isExprWord(s) {
		return false
	}
	return len(p.vars) > 0 || !isName(s)
}

// exprOf parses the word t as an expression, and checks that the next
// token does not go on with it after a blank.
func (p *lineParser) exprOf(t token) Value {
	e, msg, at := parseExpr(t.text, p.vars)
	if msg != "" {
		p.fail(token{text: t.text[at:], col: t.col + at}, msg)
		return Value{}
	}
	if n, ok := p.peek(); ok && n.kind == tWord && (n.text[0] == '+' || n.text[0] == '*' || n.text[0] == '-') {
		p.fail(n, "an expression is one word without blanks, as in 32*i+31")
	}
	return Value{Pos: p.pos(t.col), Kind: ValueExpr, Text: t.text, Expr: e}
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
		iov = append(iov, p.operand("iovec length"))
	}
	p.punct(tRBrack, "]")
	return iov
}

// uint32Of decodes an id or key, which the kernel holds in 32 bits: a
// literal, or an expression (returned apart, the literal then zero).
func (p *lineParser) uint32Of(what string) (uint32, *Value) {
	v := p.operand(what)
	if v.Kind == ValueExpr {
		return 0, &v
	}
	if v.N > math.MaxUint32 {
		p.fail(token{text: v.Text, col: v.Pos.Col}, what+" out of range, want at most 0xffffffff")
	}
	return uint32(v.N), nil
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
		o.Range.Lo, o.LoX = p.uint32Of("id")
		p.punct(tComma, ",")
		o.Range.Hi, o.HiX = p.uint32Of("id")
		p.punct(tRBrack, "]")
		if n, ok := p.peek(); ok && (n.text == "copied" || n.text == "any") {
			p.advance()
			o.Copied, o.AnyCode = n.text == "copied", n.text == "any"
		}
	case t.text == "timestamp":
		o.Kind = OutcomeTimestamp
		o.Tstamp = p.symbol(tstampKinds).Name
		if n, ok := p.peek(); ok && n.text == "key" {
			p.advance()
			p.punct(tEq, "=")
			o.Key, o.KeyX = p.uint32Of("key")
			o.HasKey = true
		}
	case t.text == "ctrunc":
		o.Kind = OutcomeCtrunc
	case t.text[0] == '"':
		o.Kind, o.Name = OutcomeName, p.quoted(t).Unquoted()
	case t.text == "icmp" || t.text == "icmp6":
		o.Kind, o.ICMP6 = OutcomeICMP, t.text == "icmp6"
		if e, ok := p.word("errno of the ICMP error"); ok {
			o.Errno = p.errno(e)
		}
		o.Type = p.icmpField("type")
		o.Code = p.icmpField("code")
		if n, ok := p.peek(); ok && n.kind == tWord && n.text == "quoted" {
			p.advance()
			p.punct(tEq, "=")
			v := p.operand("quoted length")
			if v.Kind == ValueExpr || v.N > math.MaxUint16 {
				p.fail(token{text: v.Text, col: v.Pos.Col}, "quoted length out of range, want 0 to 65535")
			}
			o.Quoted, o.HasQuoted = uint16(v.N), true
		}
	case p.isExpr(t.text) && (!isName(t.text) || p.inScope(t.text)):
		v := p.exprOf(t)
		o.Kind, o.RetX = OutcomeReturn, &v
	case t.text != "" && t.text[0] == 'E' && isName(t.text):
		o.Kind, o.Errno = OutcomeErrno, p.errno(t)
	default:
		o.Kind, o.Ret = OutcomeReturn, p.ret(t)
		if p.peekIs(tLBrack) && p.err == nil {
			o.Epoll = p.epollEvents()
		} else if t, ok := p.peek(); ok && t.kind == tWord && o.Ret == -1 && t.text == "any" {
			p.advance()
			o.Kind, o.Ret, o.AnyCode = OutcomeErrno, 0, true
		} else if ok && t.kind == tWord && o.Ret == -1 {
			o.Kind, o.Ret, o.Errno = OutcomeErrno, 0, p.errno(p.advance())
		} else if ok && errnoNames.has(t.text) {
			p.fail(t, "an errno follows -1, not "+strconv.FormatInt(o.Ret, 10))
		}
	}
	if p.err == nil && p.peekIs(tWord) && p.optionNext() {
		if fs := p.fields(o.Kind == OutcomeReturn && o.RetX == nil || o.Kind == OutcomeCtrunc); fs != nil {
			o.Msg = &fs
		}
	}
	if p.err != nil {
		return Outcome{}
	}
	return o
}

// icmpField parses "key=N", an ee_type or ee_code of an ICMP outcome.
func (p *lineParser) icmpField(key string) uint8 {
	t, ok := p.word(key + "=")
	if !ok {
		return 0
	}
	if t.text != key {
		p.fail(t, "want "+key+"=N in an icmp expectation")
		return 0
	}
	p.punct(tEq, "=")
	v := p.operand(key)
	if v.Kind == ValueExpr || v.N > math.MaxUint8 {
		p.fail(token{text: v.Text, col: v.Pos.Col}, key+" out of range, want 0 to 255")
	}
	return uint8(v.N)
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
		p.fail(t, "bad expectation, want a return value, an errno, zerocopy [LO,HI], timestamp KIND, icmp ERRNO or ctrunc")
		return 0
	}
	n, msg := parseNumber(digits)
	switch {
	case msg != "" && !neg && !isDigit(digits[0]):
		p.fail(t, "bad expectation, want a return value, an errno, zerocopy [LO,HI], timestamp KIND, icmp ERRNO or ctrunc")
	case msg != "":
		p.fail(t, msg)
	case n > math.MaxInt64 && !(neg && n == 1<<63):
		p.fail(t, "number out of range")
	case neg:
		return int64(-n)
	}
	return int64(n)
}

// quoted reads t as a name in double quotes ("cubic"): no blank, comma,
// bracket or quote inside, which a congestion control's name never has.
func (p *lineParser) quoted(t token) Value {
	n := len(t.text)
	if n < 2 || t.text[0] != '"' || t.text[n-1] != '"' || strings.Contains(t.text[1:n-1], `"`) {
		p.fail(t, `expected a name in double quotes, such as "cubic"`)
	}
	return Value{Pos: p.pos(t.col), Kind: ValueString, Text: t.text}
}
