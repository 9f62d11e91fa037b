package engine_test

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/zcsim/zcsim/sim/engine"
)

// checkSyntaxError checks that a parse error is a *SyntaxError pointing into the input.
func checkSyntaxError(t *testing.T, err error, in string) {
	t.Helper()
	var se *engine.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is %T, want *SyntaxError", err, err)
	}
	if se.Input != in || se.Col < 1 || se.Col > len(in)+1 || se.Msg == "" {
		t.Fatalf("SyntaxError %+v for input %q", se, in)
	}
}

// exactNS reads a Duration.String result back as nanoseconds, fraction
// included, or fails the test.
func exactNS(t *testing.T, s string) int64 {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	var digits string
	var unit int64
	for _, u := range []struct {
		name string
		size int64
	}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if strings.HasSuffix(body, u.name) {
			digits, unit = strings.TrimSuffix(body, u.name), u.size
			break
		}
	}
	whole, frac, _ := strings.Cut(digits, ".")
	places := len(strconv.FormatInt(unit, 10)) - 1
	if whole == "" || len(frac) > places || strings.HasSuffix(frac, "0") || (whole != "0" && whole[0] == '0') {
		t.Fatalf("%q is not an exact, minimal duration", s)
	}
	frac += strings.Repeat("0", places-len(frac))
	v, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok || (v.Sign() == 0) != (s == "0s") || (s != "0s" && unit > 1 && v.Cmp(big.NewInt(unit)) < 0) {
		t.Fatalf("%q is not an exact duration in its largest unit", s)
	}
	if neg {
		v.Neg(v)
	}
	if !v.IsInt64() {
		t.Fatalf("%q overflows int64", s)
	}
	return v.Int64()
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0s", "250us", "1500us", "1.5ms", "-5ms", "9223372036854775807ns", "5µs", ""} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(1<<63-1))
	f.Add("", int64(-1<<63))
	f.Add("", int64(300000804600))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		d, err := engine.ParseDuration(s)
		if err != nil {
			checkSyntaxError(t, err, s)
		} else if d < 0 || exactNS(t, d.String()) != int64(d) {
			t.Fatalf("ParseDuration(%q) = %d, which String writes as %q", s, int64(d), d.String())
		}
		// String is exact for every duration, and ParseDuration reads back
		// every result without a fraction.
		str := engine.Duration(n).String()
		if got := exactNS(t, str); got != n {
			t.Fatalf("Duration(%d).String() = %q, which is %d", n, str, got)
		}
		if n >= 0 && !strings.Contains(str, ".") {
			if back, err := engine.ParseDuration(str); err != nil || back != engine.Duration(n) {
				t.Fatalf("Duration(%d).String() = %q reads back as %d, %v", n, str, back, err)
			}
		}
	})
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"never", "always", "nth=3", "from=1", "next=2", "p=0.25", "p=1.0000001", "nth=x", "p=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := engine.ParseRule(s)
		if err != nil {
			checkSyntaxError(t, err, s)
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ParseRule(%q) = %+v, invalid: %v", s, r, err)
		}
		if back, err := engine.ParseRule(r.String()); err != nil || back != r {
			t.Fatalf("ParseRule(%q) = %+v; ParseRule(%q) = %+v, %v", s, r, r.String(), back, err)
		}
	})
}
