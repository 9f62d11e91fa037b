package engine

import (
	"math"
	"strconv"
	"strings"
)

// Time is a point in virtual time: integer nanoseconds since the start of the run.
// The zero Time is the start of the run. Time never comes from the wall clock.
type Time int64

// Duration is a span of virtual time in integer nanoseconds. The zero Duration is
// "no time at all".
type Duration int64

// Duration units accepted by [ParseDuration] and used by [Duration.String].
const (
	Nanosecond  Duration = 1
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
)

// maxTime is the last representable instant; RunUntilIdle runs up to it.
const maxTime = Time(math.MaxInt64)

// Add returns t+d.
//
// Preconditions: the sum does not overflow int64 ([Loop.After] checks this for you).
func (t Time) Add(d Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) Duration { return Duration(t - u) }

// String formats t as the duration since the start of the run, e.g. "1.5ms".
func (t Time) String() string { return Duration(t).String() }

// units are the units [Duration.String] writes, largest first.
var units = [...]struct {
	size Duration
	name string
}{{Second, "s"}, {Millisecond, "ms"}, {Microsecond, "us"}, {Nanosecond, "ns"}}

// String formats d exactly, in the largest unit it is at least one of, with
// as many decimal places as the value needs and no more: "300.0008046s",
// "1.5ms", "2ms", "7ns", "0s". Nothing is rounded: the digits are all the
// nanoseconds of d. Negative durations get a leading "-". A result without
// a fraction is one [ParseDuration] reads back; the scenario language has
// no fractions, so a result with one is for reading, not for a scenario.
func (d Duration) String() string {
	m := uint64(d)
	sign := ""
	if d < 0 {
		m, sign = -m, "-" // two's complement magnitude, exact even for math.MinInt64
	}
	if m == 0 {
		return "0s"
	}
	u := units[len(units)-1]
	for _, c := range units {
		if m >= uint64(c.size) {
			u = c
			break
		}
	}
	size := uint64(u.size)
	out := sign + strconv.FormatUint(m/size, 10)
	if frac := m % size; frac != 0 {
		digits := len(strconv.FormatUint(size, 10)) - 1 // 9, 6 or 3 places
		f := strconv.FormatUint(frac, 10)
		f = strings.Repeat("0", digits-len(f)) + f
		out += "." + strings.TrimRight(f, "0")
	}
	return out + u.name
}

// ParseDuration parses a non-negative integer followed by a unit: ns, us, ms or s,
// e.g. "250us", "1500us", "3s". Fractions ("1.5ms"), signs, spaces and other units are
// rejected with a [*SyntaxError] naming the column of the offending text.
func ParseDuration(s string) (Duration, error) {
	fail := func(col int, msg string) (Duration, error) {
		return 0, &SyntaxError{Func: "ParseDuration", Input: s, Col: col, Msg: msg}
	}
	if s == "" {
		return fail(1, "empty duration; want an integer and a unit, e.g. 250us")
	}
	if s[0] == '-' || s[0] == '+' {
		return fail(1, "sign not allowed; durations are non-negative integers")
	}
	v, end, overflow := scanUint(s, 0)
	if end == 0 {
		return fail(1, "expected a decimal integer")
	}
	if end < len(s) && s[end] == '.' {
		return fail(end+1, "fractions are not allowed; use an integer in a smaller unit (1.5ms is 1500us)")
	}
	if end == len(s) {
		return fail(end+1, "missing unit; want ns, us, ms or s")
	}
	var unit Duration
	switch s[end:] {
	case "ns":
		unit = Nanosecond
	case "us":
		unit = Microsecond
	case "ms":
		unit = Millisecond
	case "s":
		unit = Second
	default:
		return fail(end+1, "unknown unit "+strconv.Quote(s[end:])+"; want ns, us, ms or s")
	}
	if overflow || v > uint64(math.MaxInt64/unit) {
		return fail(1, "overflows virtual time; the maximum is "+strconv.FormatInt(math.MaxInt64, 10)+"ns")
	}
	return Duration(v) * unit, nil
}
