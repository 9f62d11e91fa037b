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

// The parsing functions below write the value they parse into *v, which
// each successful path sets whole (at), so that a value is built where
// its caller keeps it instead of being copied out through every level of
// the descent. On an error *v holds nothing of use.

// value parses one argument value into *v: an operand, then binary
// operators (the whole becomes an Expr), a -X verbose comment and an
// "=> exit" part.
func (c *cursor) value(v *Value) *Error {
	if c.depth >= maxDepth {
		return c.fail(c.i, "values nested deeper than %d", maxDepth)
	}
	c.depth++
	err := c.valueAt(v)
	c.depth--
	return err
}

func (c *cursor) valueAt(v *Value) *Error {
	start := c.i
	if err := c.operand(v); err != nil {
		return err
	}
	if !c.mayContinue() {
		return nil
	}
	for {
		op := c.lookaheadOp()
		if op == "" {
			break
		}
		c.skipSpaces()
		c.i += len(op)
		c.skipSpaces()
		// The whole is an Expr of its text: the operand's value is
		// not kept, so it may take v's place.
		if err := c.operand(v); err != nil {
			return err
		}
		c.at(v, start, KindExpr)
	}
	if err := c.comments(v); err != nil {
		return err
	}
	for v.Comment != "" && (v.Kind == KindInt || v.Kind == KindFlags) &&
		c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||") {
		if err := c.verboseUnion(v, start); err != nil {
			return err
		}
	}
	if c.lookahead("=>") {
		c.skipSpaces()
		c.i += 2
		c.skipSpaces()
		var out Value
		if err := c.value(&out); err != nil {
			return err
		}
		in := *v
		c.at(v, start, KindInOut)
		mark := c.mem.valMark()
		c.mem.pushVal(&in)
		c.mem.pushVal(&out)
		v.Elems = c.mem.carveVals(mark)
	}
	return nil
}

// mayContinue reports whether what follows an operand, after optional
// spaces, may continue its value: a binary operator, a comment, "|" or
// "=>". Most values end at a ",", a closing bracket or the line's end.
func (c *cursor) mayContinue() bool {
	j := c.i
	for j < len(c.s) && c.s[j] == ' ' {
		j++
	}
	return j < len(c.s) && continues[c.s[j]]
}

// continues holds the bytes that may start what mayContinue looks for.
var continues = func() (t [256]bool) {
	for _, op := range binaryOps {
		t[op[0]] = true
	}
	for _, b := range []byte("/|=") {
		t[b] = true
	}
	return t
}()

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
	var next Value
	if err := c.operand(&next); err != nil {
		return err
	}
	if err := c.comments(&next); err != nil {
		return err
	}
	if next.Kind != KindInt && next.Kind != KindFlags {
		return c.fail(c.i, "malformed flag")
	}
	var merged Value
	c.at(&merged, start, KindFlags)
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

// at makes *v a Value of kind k, and nothing else yet, whose text runs
// from start to c.i.
func (c *cursor) at(v *Value, start int, k Kind) {
	line, col := c.pos(start)
	*v = Value{Kind: k, Text: c.s[start:c.i], Line: line, Col: col}
}

// operand parses one value without operators.
func (c *cursor) operand(v *Value) *Error {
	start := c.i
	switch b := c.peek(); {
	case b == '"':
		return c.stringValue(v, start)
	case b == '@' && strings.HasPrefix(c.s[c.i+1:], "\""):
		c.i++
		return c.stringValue(v, start)
	case b == '[':
		return c.array(v, start)
	case b == '{':
		return c.structValue(v, start)
	case b == '~' || b == '&' || b == '!':
		c.i++
		if err := c.operand(v); err != nil {
			return err
		}
		c.at(v, start, KindExpr)
		return nil
	case b == '-' || isDigit(b):
		return c.number(v, start)
	case strings.HasPrefix(c.s[c.i:], "..."):
		c.i += 3
		c.at(v, start, KindOmitted)
		return nil
	case strings.HasPrefix(c.s[c.i:], "/*"):
		text, err := c.comment()
		c.at(v, start, KindComment)
		v.Comment = text
		return err
	case b == '<':
		if !c.skipBalanced('<', '>') {
			return c.fail(start, "unterminated <...>")
		}
		c.at(v, start, KindExpr)
		return nil
	case isIdentStart(b):
		return c.name(v, start)
	case b == 0:
		return c.fail(start, "missing value")
	}
	return c.fail(start, "unexpected %q", c.s[c.i])
}

func (c *cursor) stringValue(v *Value, start int) *Error {
	str, err := c.quoted()
	if err != nil {
		return err
	}
	trunc := c.eat("...")
	c.at(v, start, KindString)
	v.Str, v.Truncated = str, trunc
	return nil
}

// number parses an integer, an fd with its -y decoration, a flag union
// that starts with a number, or a decimal fraction (kept as Expr).
func (c *cursor) number(v *Value, start int) *Error {
	c.eat("-")
	if !isDigit(c.peek()) {
		return c.fail(start, "expected a number")
	}
	for c.i < len(c.s) && (isHex(c.s[c.i]) || c.s[c.i] == 'x' || c.s[c.i] == 'X') {
		c.i++
	}
	n, ok := parseNumber(c.s[start:c.i])
	if !ok {
		return c.fail(start, "malformed number")
	}
	switch {
	case c.peek() == '.' && c.i+1 < len(c.s) && isDigit(c.s[c.i+1]):
		c.i++
		for c.i < len(c.s) && isDigit(c.s[c.i]) {
			c.i++
		}
		c.at(v, start, KindExpr)
		return nil
	case c.peek() == '<' && !strings.HasPrefix(c.s[c.i:], "<<"):
		decor, err := c.decor()
		if err != nil {
			return err
		}
		c.at(v, start, KindFd)
		v.Int, v.Decor = n, decor
		return nil
	case c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||"):
		return c.union(v, start)
	case c.i < len(c.s) && isIdentByte(c.s[c.i]):
		return c.fail(start, "malformed number")
	}
	c.at(v, start, KindInt)
	v.Int = n
	return nil
}

// decor consumes the -y/-yy decoration at c.i, after a descriptor number,
// and returns the text between its brackets: up to the first ">" outside
// square and angle brackets; strace 6.1 nests a device's numbers, as in
// 1</dev/null<char 1:3>>.
func (c *cursor) decor() (string, *Error) {
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
				return c.s[open+1 : c.i-1], nil
			}
			depth--
		}
	}
	return "", c.fail(open, "unterminated fd decoration")
}

// union parses NAME|NAME|0x10 from start.
func (c *cursor) union(v *Value, start int) *Error {
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
				return c.fail(partStart, "malformed flag")
			}
			rem |= uint64(n)
			hasRem = true
		}
		if c.peek() != '|' || strings.HasPrefix(c.s[c.i:], "||") {
			break
		}
		c.i++
	}
	c.at(v, start, KindFlags)
	if len(names) > 0 {
		v.Names = c.mem.carveNames(names)
	}
	v.Rem, v.HasRem = rem, hasRem
	return nil
}

// name parses an identifier: a macro call, a flag union or a lone name.
func (c *cursor) name(v *Value, start int) *Error {
	id := c.ident()
	if c.peek() == '(' {
		return c.macro(v, start, id)
	}
	if c.peek() == '|' && !strings.HasPrefix(c.s[c.i:], "||") {
		return c.union(v, start)
	}
	decor := ""
	if c.peek() == '<' && !strings.HasPrefix(c.s[c.i:], "<<") {
		// -y decorates AT_FDCWD with the working directory, as it does a
		// descriptor: openat(AT_FDCWD</home/u>, ...).
		d, err := c.decor()
		if err != nil {
			return err
		}
		decor = d
	}
	c.at(v, start, KindFlags)
	v.Names, v.Decor = c.mem.carveNames([]string{id}), decor
	return nil
}

// macro parses name(args). Arguments that are not values (sizeof(struct
// x)) make the whole macro an Expr.
func (c *cursor) macro(v *Value, start int, name string) *Error {
	open := c.i
	c.i++
	mark := c.mem.valMark()
	ok := name != "sizeof"
	var a Value // each argument in turn (declared out of the loop so that it stays on the stack)
	for ok {
		c.skipSpaces()
		if c.eat(")") {
			break
		}
		if err := c.value(&a); err != nil {
			ok = false
			break
		}
		c.mem.pushVal(&a)
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
			return c.fail(open, "unbalanced parenthesis")
		}
		c.at(v, start, KindExpr)
		return nil
	}
	c.at(v, start, KindMacro)
	v.Name, v.Elems = name, args
	return nil
}

// array parses [a, b], [HUP INT] (sigsets use spaces) and [].
func (c *cursor) array(v *Value, start int) *Error {
	c.i++
	mark := c.mem.valMark()
	var e Value // each element in turn (out of the loop: on the stack)
	for {
		c.skipSpaces()
		if c.eat("]") {
			break
		}
		if err := c.value(&e); err != nil {
			c.mem.carveVals(mark)
			return err
		}
		c.mem.pushVal(&e)
		spaced := c.peek() == ' '
		c.skipSpaces()
		switch {
		case c.eat(","):
		case c.peek() == ']':
		case spaced:
		default:
			c.mem.carveVals(mark)
			return c.fail(c.i, "expected \",\" or \"]\" in array")
		}
	}
	c.at(v, start, KindArray)
	v.Elems = c.mem.carveVals(mark)
	return nil
}

// structValue parses {name=value, ...}; members without "name=" are
// positional.
func (c *cursor) structValue(v *Value, start int) *Error {
	c.i++
	mark := c.mem.fieldMark()
	var f Field // each member in turn (out of the loop: on the stack)
	for {
		c.skipSpaces()
		if c.eat("}") {
			break
		}
		name, err := c.field(&f.Value)
		if err != nil {
			c.mem.carveFields(mark)
			return err
		}
		f.Name = name
		c.mem.pushField(&f)
		c.skipSpaces()
		if !c.eat(",") && c.peek() != '}' {
			c.mem.carveFields(mark)
			return c.fail(c.i, "expected \",\" or \"}\" in struct")
		}
	}
	c.at(v, start, KindStruct)
	v.Fields = c.mem.carveFields(mark)
	return nil
}

// field parses a member, name=value or a positional value, into *v and
// returns its name ("" for a positional one).
func (c *cursor) field(v *Value) (string, *Error) {
	save := c.i
	name := c.ident()
	for name != "" && c.peek() == '.' && c.i+1 < len(c.s) && isIdentStart(c.s[c.i+1]) {
		c.i++
		name += "." + c.ident()
	}
	if name != "" && c.peek() == '=' && !strings.HasPrefix(c.s[c.i:], "==") &&
		!strings.HasPrefix(c.s[c.i:], "=>") {
		c.i++
		return name, c.value(v)
	}
	c.i = save
	return "", c.value(v)
}
