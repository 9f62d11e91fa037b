package engine_test

import (
	"errors"
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

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0s", "250us", "1500us", "1.5ms", "-5ms", "9223372036854775807ns", "5µs", ""} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(1<<63-1))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		d, err := engine.ParseDuration(s)
		if err != nil {
			checkSyntaxError(t, err, s)
		} else if back, err := engine.ParseDuration(d.String()); err != nil || back != d || d < 0 {
			t.Fatalf("ParseDuration(%q) = %v; ParseDuration(%q) = %v, %v", s, int64(d), d.String(), int64(back), err)
		}
		if n < 0 {
			n = -(n + 1)
		}
		if back, err := engine.ParseDuration(engine.Duration(n).String()); err != nil || back != engine.Duration(n) {
			t.Fatalf("Duration(%d).String() = %q reads back as %d, %v", n, engine.Duration(n).String(), back, err)
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
