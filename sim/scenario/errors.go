package scenario

import (
	"strconv"
	"strings"
)

// MaxErrors bounds how many errors [Parse] reports for one file; past it the
// list ends with a "too many errors" entry.
const MaxErrors = 20

// Error is one syntax error, rendered netip-style as
//
//	file:line:col: what is wrong (at "offending text")
//
// Near is the offending text; it is empty when something is missing at the
// end of a line, and the "(at …)" part is then left out.
type Error struct {
	Pos  Pos
	Msg  string
	Near string
}

// Error renders e as "file:line:col: msg (at "near")".
func (e *Error) Error() string {
	s := e.Pos.String() + ": " + e.Msg
	if e.Near != "" {
		s += " (at " + strconv.Quote(e.Near) + ")"
	}
	return s
}

// ErrorList is every syntax error of a file in line order, at most
// [MaxErrors] of them plus a final "too many errors". A nil or empty list is
// not an error; Parse returns a non-empty one or nil.
type ErrorList []*Error

// Error renders the errors one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// maxNear bounds the offending text quoted in an error.
const maxNear = 40

func near(s string) string {
	if len(s) > maxNear {
		return s[:maxNear] + "…"
	}
	return s
}
