package engine

import (
	"fmt"
	"math"
)

// SyntaxError reports malformed text given to [ParseDuration] or [ParseRule]. It
// carries its inputs so that a caller parsing a larger file can translate Col into
// its own file:line:column.
type SyntaxError struct {
	Func  string // the parser: "ParseDuration" or "ParseRule"
	Input string // the whole text given to the parser
	Col   int    // 1-based byte column within Input; len(Input)+1 means "at the end"
	Msg   string // what is wrong, and what was expected
}

// Error formats e like net/netip's parse errors:
//
//	ParseDuration("1.5ms"): column 2: fractions are not allowed; … (at ".5ms")
func (e *SyntaxError) Error() string {
	s := fmt.Sprintf("%s(%q): column %d: %s", e.Func, e.Input, e.Col, e.Msg)
	if e.Col >= 1 && e.Col <= len(e.Input) {
		s += fmt.Sprintf(" (at %q)", e.Input[e.Col-1:])
	}
	return s
}

// scanUint reads the decimal digits of s starting at byte i. It returns their value,
// the index just past them (i when there are none) and whether the value overflowed
// uint64 (v is then meaningless, but end is still right).
func scanUint(s string, i int) (v uint64, end int, overflow bool) {
	for end = i; end < len(s) && '0' <= s[end] && s[end] <= '9'; end++ {
		d := uint64(s[end] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		}
		v = v*10 + d
	}
	return v, end, overflow
}
