package strace

import (
	"fmt"
	"strings"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// binaryOps are the operators strace prints between values, longest
// first: wait4's "WIFEXITED(s) && WEXITSTATUS(s) == 0", prlimit64's
// "8192*1024", shifts.
var binaryOps = []string{"&&", "||", "==", "!=", "<<", ">>", "*"}

// value parses one argument value: an operand, then binary operators (the
// whole becomes an Expr), a -X verbose comment and an "=> exit" part.
func (c *cursor) value() (Value, *Error) {
	if c.depth >= maxDepth {
		return Value{}, c.fail(c.i, "values nested deeper than %d", maxDepth)
	}
	c.depth++
	defer func() { c.depth-- }()
	start := c.i
	v, err := c.operand()
	if err != nil {
		return v, err
	}
	for {
		op := c.lookaheadOp()
		if op == "" {
			break
		}
		c.skipSpaces()
		c.i += len(op)
		c.skipSpaces()
		if _, err := c.operand(); err != nil {
			return v, err
		}
		v = c.expr(start)
	}
	if err := c.comments(&v); err != nil {
		return v, err
	}
	for v.Comment != "" && (v.Kind == KindInt || v.Kind == KindFlags) &&
		c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||") {
		if err := c.verboseUnion(&v, start); err != nil {
			return v, err
		}
	}
	if c.lookahead("=>") {
		c.skipSpaces()
		c.i += 2
		c.skipSpaces()
		out, err := c.value()
		if err != nil {
			return v, err
		}
		in := v
		v = c.at(start, KindInOut)
		mark := c.mem.valMark()
		c.mem.pushVal(in)
		c.mem.pushVal(out)
		v.Elems = c.mem.carveVals(mark)
	}
	return v, nil
}

// lookahead reports whether tok follows after optional spaces, without
// consuming anything.
func (c *cursor) lookahead(tok string) bool {
	j := c.i
	for j < len(c.s) && c.s[j] == ' ' {
		j++
	}
	return strings.HasPrefix(c.s[j:], tok)
}

func (c *cursor) lookaheadOp() string {
	j := c.i
	for j < len(c.s) && c.s[j] == ' ' {
		j++
	}
	if j == len(c.s) || !opStart[c.s[j]] {
		return ""
	}
	for _, op := range binaryOps {
		if strings.HasPrefix(c.s[j:], op) {
			return op
		}
	}
	return ""
}

// opStart holds the bytes binaryOps start with.
var opStart = func() (t [256]bool) {
	for _, op := range binaryOps {
		t[op[0]] = true
	}
	return t
}()

// comments attaches any following /* ... */ comments to v.
func (c *cursor) comments(v *Value) *Error {
	for c.lookahead("/*") {
		c.skipSpaces()
		text, err := c.comment()
		if err != nil {
			return err
		}
		if v.Comment != "" {
			v.Comment += " "
		}
		v.Comment += text
	}
	return nil
}

func (c *cursor) comment() (string, *Error) {
	start := c.i
	end := strings.Index(c.s[c.i+2:], "*/")
	if end < 0 {
		return "", c.fail(start, "unterminated comment")
	}
	c.i += 2 + end + 2
	return strings.TrimSpace(c.s[start+2 : c.i-2]), nil
}

// verboseUnion continues a -X verbose flag union whose parts each carry a
// comment: 0x2 /* SOCK_DGRAM */|0x80000 /* SOCK_CLOEXEC */. The comments
// are joined with "|" so that Symbols reads them as one union.
func (c *cursor) verboseUnion(v *Value, start int) *Error {
	c.i++
	next, err := c.operand()
	if err != nil {
		return err
	}
	if err := c.comments(&next); err != nil {
		return err
	}
	if next.Kind != KindInt && next.Kind != KindFlags {
		return c.fail(c.i, "malformed flag")
	}
	merged := c.at(start, KindFlags)
	for _, part := range []Value{*v, next} {
		if part.Kind == KindInt {
			merged.Rem |= part.Uint()
			merged.HasRem = true
		} else {
			merged.Names = append(merged.Names, part.Names...)
			merged.Rem |= part.Rem
			merged.HasRem = merged.HasRem || part.HasRem
		}
	}
	merged.Comment = v.Comment + "|" + next.Comment
	*v = merged
	return nil
}

// at returns a Value of kind k whose text runs from start to c.i.
func (c *cursor) at(start int, k Kind) Value {
	line, col := c.pos(start)
	return Value{Kind: k, Text: c.s[start:c.i], Line: line, Col: col}
}

func (c *cursor) expr(start int) Value { return c.at(start, KindExpr) }

// operand parses one value without operators.
func (c *cursor) operand() (Value, *Error) {
	start := c.i
	switch b := c.peek(); {
	case b == '"':
		return c.stringValue(start)
	case b == '@' && strings.HasPrefix(c.s[c.i+1:], "\""):
		c.i++
		return c.stringValue(start)
	case b == '[':
		return c.array(start)
	case b == '{':
		return c.structValue(start)
	case b == '~' || b == '&' || b == '!':
		c.i++
		if _, err := c.operand(); err != nil {
			return Value{}, err
		}
		return c.expr(start), nil
	case b == '-' || isDigit(b):
		return c.number(start)
	case strings.HasPrefix(c.s[c.i:], "..."):
		c.i += 3
		return c.at(start, KindOmitted), nil
	case strings.HasPrefix(c.s[c.i:], "/*"):
		text, err := c.comment()
		v := c.at(start, KindComment)
		v.Comment = text
		return v, err
	case b == '<':
		if !c.skipBalanced('<', '>') {
			return Value{}, c.fail(start, "unterminated <...>")
		}
		return c.expr(start), nil
	case isIdentStart(b):
		return c.name(start)
	case b == 0:
		return Value{}, c.fail(start, "missing value")
	}
	return Value{}, c.fail(start, "unexpected %q", c.s[c.i])
}

func (c *cursor) stringValue(start int) (Value, *Error) {
	str, err := c.quoted()
	if err != nil {
		return Value{}, err
	}
	trunc := c.eat("...")
	v := c.at(start, KindString)
	v.Str, v.Truncated = str, trunc
	return v, nil
}

// number parses an integer, an fd with its -y decoration, a flag union
// that starts with a number, or a decimal fraction (kept as Expr).
func (c *cursor) number(start int) (Value, *Error) {
	c.eat("-")
	if !isDigit(c.peek()) {
		return Value{}, c.fail(start, "expected a number")
	}
	for c.i < len(c.s) && (isHex(c.s[c.i]) || c.s[c.i] == 'x' || c.s[c.i] == 'X') {
		c.i++
	}
	n, ok := parseNumber(c.s[start:c.i])
	if !ok {
		return Value{}, c.fail(start, "malformed number")
	}
	switch {
	case c.peek() == '.' && c.i+1 < len(c.s) && isDigit(c.s[c.i+1]):
		c.i++
		for c.i < len(c.s) && isDigit(c.s[c.i]) {
			c.i++
		}
		return c.expr(start), nil
	case c.peek() == '<' && !strings.HasPrefix(c.s[c.i:], "<<"):
		return c.fd(start, n)
	case c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||"):
		return c.union(start)
	case c.i < len(c.s) && isIdentByte(c.s[c.i]):
		return Value{}, c.fail(start, "malformed number")
	}
	v := c.at(start, KindInt)
	v.Int = n
	return v, nil
}

// fd parses the -y/-yy decoration after a descriptor number: the text up
// to the first ">" outside square and angle brackets; strace 6.1 nests a
// device's numbers, as in 1</dev/null<char 1:3>>.
func (c *cursor) fd(start int, n int64) (Value, *Error) {
	open := c.i
	depth := 0
	for c.i++; c.i < len(c.s); c.i++ {
		switch c.s[c.i] {
		case '[', '<':
			depth++
		case ']':
			depth--
		case '>':
			if depth <= 0 {
				c.i++
				v := c.at(start, KindFd)
				v.Int, v.Decor = n, c.s[open+1:c.i-1]
				return v, nil
			}
			depth--
		}
	}
	return Value{}, c.fail(open, "unterminated fd decoration")
}

// union parses NAME|NAME|0x10 from start.
func (c *cursor) union(start int) (Value, *Error) {
	c.i = start
	var stack [8]string
	names := stack[:0]
	var rem uint64
	hasRem := false
	for {
		partStart := c.i
		if id := c.ident(); id != "" {
			names = append(names, id)
		} else {
			for c.i < len(c.s) && (isHex(c.s[c.i]) || c.s[c.i] == 'x' || c.s[c.i] == '-') {
				c.i++
			}
			n, ok := parseNumber(c.s[partStart:c.i])
			if !ok {
				return Value{}, c.fail(partStart, "malformed flag")
			}
			rem |= uint64(n)
			hasRem = true
		}
		if c.peek() != '|' || strings.HasPrefix(c.s[c.i:], "||") {
			break
		}
		c.i++
	}
	v := c.at(start, KindFlags)
	if len(names) > 0 {
		v.Names = c.mem.carveNames(names)
	}
	v.Rem, v.HasRem = rem, hasRem
	return v, nil
}

// name parses an identifier: a macro call, a flag union or a lone name.
func (c *cursor) name(start int) (Value, *Error) {
	id := c.ident()
	if c.peek() == '(' {
		return c.macro(start, id)
	}
	if c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||") {
		return c.union(start)
	}
	v := c.at(start, KindFlags)
	v.Names = c.mem.carveNames([]string{id})
	if c.peek() == '<' && !strings.HasPrefix(c.s[c.i:], "<<") {
		// -y decorates AT_FDCWD with the working directory, as it does a
		// descriptor: openat(AT_FDCWD</home/u>, ...).
		d, err := c.fd(c.i, 0)
		if err != nil {
			return Value{}, err
		}
		v = c.at(start, KindFlags)
		v.Names, v.Decor = c.mem.carveNames([]string{id}), d.Decor
	}
	return v, nil
}

// macro parses name(args). Arguments that are not values (sizeof(struct
// x)) make the whole macro an Expr.
func (c *cursor) macro(start int, name string) (Value, *Error) {
	open := c.i
	c.i++
	mark := c.mem.valMark()
	ok := name != "sizeof"
	for ok {
		c.skipSpaces()
		if c.eat(")") {
			break
		}
		a, err := c.value()
		if err != nil {
			ok = false
			break
		}
		c.mem.pushVal(a)
		c.skipSpaces()
		if !c.eat(",") && c.peek() != ')' {
			ok = false
		}
	}
	args := c.mem.carveVals(mark)
	if len(args) == 0 {
		args = nil
	}
	if !ok {
		c.i = open
		if !c.skipBalanced('(', ')') {
			return Value{}, c.fail(open, "unbalanced parenthesis")
		}
		return c.expr(start), nil
	}
	v := c.at(start, KindMacro)
	v.Name, v.Elems = name, args
	return v, nil
}

// array parses [a, b], [HUP INT] (sigsets use spaces) and [].
func (c *cursor) array(start int) (Value, *Error) {
	c.i++
	mark := c.mem.valMark()
	for {
		c.skipSpaces()
		if c.eat("]") {
			break
		}
		e, err := c.value()
		if err != nil {
			c.mem.carveVals(mark)
			return Value{}, err
		}
		c.mem.pushVal(e)
		spaced := c.peek() == ' '
		c.skipSpaces()
		switch {
		case c.eat(","):
		case c.peek() == ']':
		case spaced:
		default:
			c.mem.carveVals(mark)
			return Value{}, c.fail(c.i, "expected \",\" or \"]\" in array")
		}
	}
	v := c.at(start, KindArray)
	v.Elems = c.mem.carveVals(mark)
	return v, nil
}

// structValue parses {name=value, ...}; members without "name=" are
// positional.
func (c *cursor) structValue(start int) (Value, *Error) {
	c.i++
	mark := c.mem.fieldMark()
	for {
		c.skipSpaces()
		if c.eat("}") {
			break
		}
		f, err := c.field()
		if err != nil {
			c.mem.carveFields(mark)
			return Value{}, err
		}
		c.mem.pushField(f)
		c.skipSpaces()
		if !c.eat(",") && c.peek() != '}' {
			c.mem.carveFields(mark)
			return Value{}, c.fail(c.i, "expected \",\" or \"}\" in struct")
		}
	}
	v := c.at(start, KindStruct)
	v.Fields = c.mem.carveFields(mark)
	return v, nil
}

func (c *cursor) field() (Field, *Error) {
	save := c.i
	name := c.ident()
	for name != "" && c.peek() == '.' && c.i+1 < len(c.s) && isIdentStart(c.s[c.i+1]) {
		c.i++
		name += "." + c.ident()
	}
	if name != "" && c.peek() == '=' && !strings.HasPrefix(c.s[c.i:], "==") &&
		!strings.HasPrefix(c.s[c.i:], "=>") {
		c.i++
		v, err := c.value()
		return Field{Name: name, Value: v}, err
	}
	c.i = save
	v, err := c.value()
	return Field{Value: v}, err
}
