package scenario

import (
	"reflect"
	"strconv"
)

// Bounds on loops, checked by the parser.
const (
	// MaxDepth is how deeply repeats may nest.
	MaxDepth = 8
	// MaxCount is the largest iteration count of one repeat.
	MaxCount = 1<<32 - 1
)

// Repeat is a loop that runs Body Count times:
//
//	repeat i 1000 {
//	  send s 1000 MSG_ZEROCOPY => 1000
//	  recvmsg s MSG_ERRQUEUE => zerocopy [i,i] copied
//	}
//
// or on one line, "repeat 31 { send s 1000 MSG_ZEROCOPY }". Var, when the
// header names one, holds the iteration, 0 to Count-1, in the body's
// expressions ([Expr]); a repeat without one has the zero Var. Count is a
// literal number. Body holds every statement of the block, comments and
// nested repeats included, but never a profile or bug statement; the
// repeat itself takes no "=>" expectation. Comment is the comment of the
// header line, EndComment that of the closing "}".
type Repeat struct {
	Line
	Var        Ident
	Count      Value
	Body       []Stmt
	EndComment string
}

// UsesVar reports whether the body, nested repeats included, names the
// variable of r, the repeat at depth (0 for one at the top of the file).
func (r *Repeat) UsesVar(depth int) bool {
	if r.Var.Name == "" {
		return false
	}
	used := false
	var visit func([]Stmt)
	visit = func(body []Stmt) {
		for _, st := range body {
			if inner, ok := st.(*Repeat); ok {
				visit(inner.Body)
				continue
			}
			exprs(st, func(e *Expr) { used = used || e.uses(depth) })
		}
	}
	visit(r.Body)
	return used
}

// HasExpr reports whether the statement holds an expression that
// [Instantiate] evaluates. A [Repeat] holds none of its own.
func HasExpr(st Stmt) bool {
	has := false
	exprs(st, func(*Expr) { has = true })
	return has
}

// exprs calls fn with each expression of st's operands and outcome.
func exprs(st Stmt, fn func(*Expr)) {
	val := func(vs ...Value) {
		for _, v := range vs {
			if v.Expr != nil {
				fn(v.Expr)
			}
		}
	}
	switch s := st.(type) {
	case *Send:
		val(s.Len)
	case *Sendto:
		val(s.Len)
	case *Recv:
		val(s.Len)
	case *Mmap:
		val(s.Len)
	case *VhostSend:
		val(s.Len)
	case *Drop:
		val(s.Count)
	case *Complete:
		val(s.Count)
	case *Txerror:
		val(s.Count)
	case *Zckey:
		val(s.Value)
	case *Expect:
		val(s.Notified.Lo, s.Notified.Hi)
	case *Sendmsg:
		val(s.Iov...)
	case *Sendmmsg:
		for _, m := range s.Msgs {
			val(m...)
		}
	case *Txframe:
		val(s.Frame, s.Len)
	case *Txstatus:
		val(s.Frame)
	}
	w := st.Expectation()
	for _, x := range []*Value{w.RetX, w.LoX, w.HiX, w.KeyX} {
		if x != nil {
			fn(x.Expr)
		}
	}
}

// Instantiate returns st with every expression evaluated at the
// iterations vars, where vars[d] is the iteration of the enclosing repeat
// at depth d: an expression operand becomes the ValueNumber it comes to,
// spelled in decimal, and an expression in the outcome its literal. A
// statement without expressions comes back as it is; otherwise the result
// is a copy, and st is left unchanged, so a loop body parsed once runs
// every iteration.
//
// Ids wrap as the kernel's 32-bit counters do: a zerocopy range bound, a
// timestamp key, the zckey value and a notified=[LO,HI] bound are taken
// modulo 2^32, so [32*i-1, …]
// at i=0 is 0xffffffff. Every other value is computed in 64-bit signed
// arithmetic; overflow is an error, and so is a negative length or count
// (a return value may be negative). The error names the expression's
// position and text; bounds beyond these are for the simulator to check,
// as for literals.
func Instantiate(st Stmt, vars []int64) (Stmt, error) {
	if !HasExpr(st) {
		return st, nil
	}
	v := reflect.New(reflect.TypeOf(st).Elem())
	v.Elem().Set(reflect.ValueOf(st).Elem())
	c := v.Interface().(Stmt)
	ev := &evaluator{vars: vars}
	switch s := c.(type) {
	case *Send:
		ev.size(&s.Len)
	case *Sendto:
		ev.size(&s.Len)
	case *Recv:
		ev.size(&s.Len)
	case *Mmap:
		ev.size(&s.Len)
	case *VhostSend:
		ev.size(&s.Len)
	case *Drop:
		ev.size(&s.Count)
	case *Complete:
		ev.size(&s.Count)
	case *Txerror:
		ev.size(&s.Count)
	case *Zckey:
		ev.id(&s.Value)
	case *Expect:
		ev.id(&s.Notified.Lo)
		ev.id(&s.Notified.Hi)
	case *Txframe:
		ev.size(&s.Frame)
		ev.size(&s.Len)
	case *Txstatus:
		ev.size(&s.Frame)
	case *Sendmsg:
		s.Iov = ev.sizes(s.Iov)
	case *Sendmmsg:
		msgs := make([][]Value, len(s.Msgs))
		for i, m := range s.Msgs {
			msgs[i] = ev.sizes(m)
		}
		s.Msgs = msgs
	}
	ev.outcome(&c.line().Want)
	if ev.err != nil {
		return nil, ev.err
	}
	return c, nil
}

// evaluator evaluates the expressions of one statement; its first error
// sticks.
type evaluator struct {
	vars []int64
	err  *Error
}

func (ev *evaluator) fail(v *Value, msg string) {
	if ev.err == nil {
		ev.err = &Error{Pos: v.Pos, Msg: msg, Near: near(v.Text)}
	}
}

// signed evaluates v in int64.
func (ev *evaluator) signed(v *Value) int64 {
	n, ok := v.Expr.eval(ev.vars, false)
	if !ok {
		ev.fail(v, "expression overflows 64-bit arithmetic")
	}
	return n
}

// wrapped evaluates v modulo 2^32.
func (ev *evaluator) wrapped(v *Value) uint32 {
	n, _ := v.Expr.eval(ev.vars, true)
	return uint32(n)
}

// size replaces the expression *v, if it is one, by the length or count
// it comes to.
func (ev *evaluator) size(v *Value) {
	if v.Expr == nil {
		return
	}
	n := ev.signed(v)
	if n < 0 {
		ev.fail(v, "a length or count must not be negative, this one is "+strconv.FormatInt(n, 10))
	}
	*v = number(v.Pos, uint64(n))
}

// id replaces the expression *v, if it is one, by the id it comes to.
func (ev *evaluator) id(v *Value) {
	if v.Expr != nil {
		*v = number(v.Pos, uint64(ev.wrapped(v)))
	}
}

func (ev *evaluator) sizes(vs []Value) []Value {
	out := make([]Value, len(vs))
	copy(out, vs)
	for i := range out {
		ev.size(&out[i])
	}
	return out
}

func (ev *evaluator) outcome(o *Outcome) {
	if o.RetX != nil {
		o.Ret, o.RetX = ev.signed(o.RetX), nil
	}
	if o.LoX != nil {
		o.Range.Lo, o.LoX = ev.wrapped(o.LoX), nil
	}
	if o.HiX != nil {
		o.Range.Hi, o.HiX = ev.wrapped(o.HiX), nil
	}
	if o.KeyX != nil {
		o.Key, o.KeyX = ev.wrapped(o.KeyX), nil
	}
}

func number(pos Pos, n uint64) Value {
	return Value{Pos: pos, Kind: ValueNumber, N: n, Text: strconv.FormatUint(n, 10)}
}
