package scenario

import (
	"math"
	"math/bits"
	"strconv"
)

// ExprOp says what an [Expr] node computes.
type ExprOp uint8

// The nodes of an [Expr]. The zero op, ExprNum, is a number.
const (
	ExprNum ExprOp = iota // the number N
	ExprVar               // the loop variable Var, bound by the repeat at Depth
	ExprAdd               // X + Y
	ExprSub               // X - Y
	ExprMul               // X * Y
)

// Expr is an integer expression over loop variables and numbers, written
// without blanks as one word: "32*i+31", "(i+1)*4K". "*" binds tighter than
// "+" and "-", which group to the left; parentheses group. A number is
// spelled as anywhere else (64K, 0x10). A variable is named by an enclosing
// [Repeat] and holds its iteration, counted from 0; Depth is that repeat's
// nesting level (0 for a repeat at the top of the file), the index of its
// iteration in the slice [Instantiate] takes.
type Expr struct {
	Op    ExprOp
	N     uint64
	Var   string
	Depth int
	X, Y  *Expr
}

// eval computes e at the iterations vars. With wrap set it computes modulo
// 2^64, so that its low 32 bits are the value modulo 2^32, as ids wrap;
// otherwise it computes in int64 and reports overflow.
func (e *Expr) eval(vars []int64, wrap bool) (int64, bool) {
	switch e.Op {
	case ExprNum:
		if !wrap && e.N > math.MaxInt64 {
			return 0, false
		}
		return int64(e.N), true
	case ExprVar:
		return vars[e.Depth], true
	}
	x, okx := e.X.eval(vars, wrap)
	y, oky := e.Y.eval(vars, wrap)
	if !okx || !oky {
		return 0, false
	}
	switch e.Op {
	case ExprAdd:
		s := x + y
		return s, wrap || (s > x) == (y > 0)
	case ExprSub:
		s := x - y
		return s, wrap || (s < x) == (y > 0)
	}
	if wrap {
		return x * y, true
	}
	if x == 0 || y == 0 {
		return 0, true
	}
	if x == math.MinInt64 || y == math.MinInt64 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(abs(x)), uint64(abs(y)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (x < 0) != (y < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// uses reports whether e names the variable of the repeat at depth.
func (e *Expr) uses(depth int) bool {
	if e == nil {
		return false
	}
	return e.Op == ExprVar && e.Depth == depth || e.X.uses(depth) || e.Y.uses(depth)
}

// isExprWord reports whether a word in a number's place is an expression
// rather than a literal: it holds an operator or a parenthesis past its
// first byte, or starts with a letter or "(".
func isExprWord(s string) bool {
	if s == "" {
		return false
	}
	if isLetter(s[0]) || s[0] == '(' {
		return true
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '+', '-', '*', '(', ')':
			return true
		}
	}
	return false
}

// exprParser parses one expression word. vars are the variables of the
// enclosing repeats, outermost first ("" for a repeat without one).
type exprParser struct {
	s    string
	i    int
	vars []string
	msg  string // the first error
	at   int    // its byte offset in s
}

// parseExpr parses the expression s, returning the tree or an error
// message and the byte offset it refers to.
func parseExpr(s string, vars []string) (*Expr, string, int) {
	p := &exprParser{s: s, vars: vars}
	e := p.sum()
	if p.msg == "" && p.i < len(s) {
		p.fail("expected an operator (+, - or *)")
	}
	if p.msg != "" {
		return nil, p.msg, p.at
	}
	return e, "", 0
}

func (p *exprParser) fail(msg string) {
	if p.msg == "" {
		p.msg, p.at = msg, p.i
	}
}

func (p *exprParser) next() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// sum parses term { ("+" | "-") term }.
func (p *exprParser) sum() *Expr {
	e := p.term()
	for p.msg == "" && (p.next() == '+' || p.next() == '-') {
		op := ExprAdd
		if p.next() == '-' {
			op = ExprSub
		}
		p.i++
		e = &Expr{Op: op, X: e, Y: p.term()}
	}
	return e
}

// term parses factor { "*" factor }.
func (p *exprParser) term() *Expr {
	e := p.factor()
	for p.msg == "" && p.next() == '*' {
		p.i++
		e = &Expr{Op: ExprMul, X: e, Y: p.factor()}
	}
	return e
}

// factor parses number | variable | "(" sum ")".
func (p *exprParser) factor() *Expr {
	if p.msg != "" {
		return nil
	}
	start := p.i
	switch c := p.next(); {
	case c == 0:
		p.fail("expression ends early; an expression is one word without blanks, as in 32*i+31")
		return nil
	case c == '(':
		p.i++
		e := p.sum()
		if p.msg == "" && p.next() != ')' {
			p.fail(`expected ")"`)
		}
		p.i++
		return e
	case isDigit(c):
		for p.i < len(p.s) && isHexDigit(p.s[p.i]) || p.i < len(p.s) && (p.s[p.i] == 'x' || p.s[p.i] == 'K' || p.s[p.i] == 'M' || p.s[p.i] == 'G') {
			p.i++
		}
		n, msg := parseNumber(p.s[start:p.i])
		if msg != "" {
			p.i = start
			p.fail(msg)
		}
		return &Expr{Op: ExprNum, N: n}
	case isLetter(c):
		for p.i < len(p.s) && (isLetter(p.s[p.i]) || isDigit(p.s[p.i])) {
			p.i++
		}
		name := p.s[start:p.i]
		for d := len(p.vars) - 1; d >= 0; d-- {
			if p.vars[d] == name {
				return &Expr{Op: ExprVar, Var: name, Depth: d}
			}
		}
		p.i = start
		p.fail("undefined loop variable " + strconv.Quote(name))
		return nil
	}
	p.fail("expected a number, a loop variable or (")
	return nil
}
