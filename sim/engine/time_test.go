package engine_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/engine"
)

func TestDurationString(t *testing.T) {
	for _, tc := range []struct {
		d    engine.Duration
		want string
	}{
		{0, "0s"},
		{7, "7ns"},
		{999, "999ns"},
		{1000, "1us"},
		{1001, "1.001us"},
		{1500 * engine.Microsecond, "1.5ms"},
		{2 * engine.Millisecond, "2ms"},
		{3 * engine.Second, "3s"},
		{1001 * engine.Millisecond, "1.001s"},
		{40*engine.Millisecond + 5, "40.000005ms"},
		{300000804600, "300.0008046s"},
		{1*engine.Second + 1, "1.000000001s"},
		{-250 * engine.Microsecond, "-250us"},
		{-1500, "-1.5us"},
		{math.MaxInt64, "9223372036.854775807s"},
		{math.MinInt64, "-9223372036.854775808s"},
	} {
		require.Equal(t, tc.want, tc.d.String(), "Duration(%d)", int64(tc.d))
	}
}

func TestTimeArithmetic(t *testing.T) {
	start := engine.Time(0)
	at := start.Add(1500 * engine.Microsecond)
	require.Equal(t, "1.5ms", at.String())
	require.Equal(t, 1500*engine.Microsecond, at.Sub(start))
	require.Equal(t, -1500*engine.Microsecond, start.Sub(at))
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want engine.Duration
	}{
		{"0ns", 0},
		{"0s", 0},
		{"250us", 250 * engine.Microsecond},
		{"1500us", 1500 * engine.Microsecond},
		{"007ms", 7 * engine.Millisecond},
		{"3s", 3 * engine.Second},
		{"9223372036854775807ns", math.MaxInt64},
		{"9223372036s", 9223372036 * engine.Second},
	} {
		got, err := engine.ParseDuration(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestParseDurationErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", `ParseDuration(""): column 1: empty duration; want an integer and a unit, e.g. 250us`},
		{"1.5ms", `ParseDuration("1.5ms"): column 2: fractions are not allowed; use an integer in a smaller unit (1.5ms is 1500us) (at ".5ms")`},
		{"-5us", `ParseDuration("-5us"): column 1: sign not allowed; durations are non-negative integers (at "-5us")`},
		{"+5us", `ParseDuration("+5us"): column 1: sign not allowed; durations are non-negative integers (at "+5us")`},
		{"ms", `ParseDuration("ms"): column 1: expected a decimal integer (at "ms")`},
		{" 5ms", `ParseDuration(" 5ms"): column 1: expected a decimal integer (at " 5ms")`},
		{"250", `ParseDuration("250"): column 4: missing unit; want ns, us, ms or s`},
		{"5µs", `ParseDuration("5µs"): column 2: unknown unit "µs"; want ns, us, ms or s (at "µs")`},
		{"5 ms", `ParseDuration("5 ms"): column 2: unknown unit " ms"; want ns, us, ms or s (at " ms")`},
		{"5m", `ParseDuration("5m"): column 2: unknown unit "m"; want ns, us, ms or s (at "m")`},
		{"9223372036854775808ns", `ParseDuration("9223372036854775808ns"): column 1: overflows virtual time; the maximum is 9223372036854775807ns (at "9223372036854775808ns")`},
		{"9223372037s", `ParseDuration("9223372037s"): column 1: overflows virtual time; the maximum is 9223372036854775807ns (at "9223372037s")`},
		{"99999999999999999999999ns", `ParseDuration("99999999999999999999999ns"): column 1: overflows virtual time; the maximum is 9223372036854775807ns (at "99999999999999999999999ns")`},
	} {
		_, err := engine.ParseDuration(tc.in)
		require.EqualError(t, err, tc.want)
		var se *engine.SyntaxError
		require.True(t, errors.As(err, &se), tc.in)
		require.Equal(t, "ParseDuration", se.Func)
		require.Equal(t, tc.in, se.Input)
	}
}
