package engine_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/engine"
)

// pattern calls Fail(site) n times and returns which calls failed, as "x" and ".".
func pattern(f *engine.Faults, site string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '.'
		if f.Fail(site) {
			b[i] = 'x'
		}
	}
	return string(b)
}

// armed returns fault sites with site armed by rule text, after calls unarmed calls.
func armed(t *testing.T, site, rule string, calls int) *engine.Faults {
	t.Helper()
	f := engine.NewFaults(engine.NewStreams(1))
	pattern(f, site, calls)
	r, err := engine.ParseRule(rule)
	require.NoError(t, err)
	require.NoError(t, f.Arm(site, r))
	return f
}

func TestFaultRules(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		calls int // unarmed calls before arming
		want  string
	}{
		{"never", 0, "........"},
		{"always", 0, "xxxxxxxx"},
		{"nth=3", 0, "..x....."},
		{"nth=3", 1, "..x....."}, // call numbers count from arming
		{"nth=3", 3, "..x....."},
		{"from=3", 0, "..xxxxxx"},
		{"from=3", 5, "..xxxxxx"},
		{"next=2", 0, "xx......"},
		{"next=2", 4, "xx......"}, // next counts from arming
		{"p=0", 0, "........"},
		{"p=1", 0, "xxxxxxxx"},
		{"p=0.5", 0, "xxx...x."}, // pinned: stream "fault/alloc" of seed 1
	} {
		f := armed(t, "alloc", tc.rule, tc.calls)
		require.Equal(t, tc.want, pattern(f, "alloc", 8), "%s after %d calls", tc.rule, tc.calls)
		require.Equal(t, "........", pattern(f, "other", 8), "unarmed site")
	}
}

func TestFaultCountsAndLog(t *testing.T) {
	f := armed(t, "skb/alloc", "from=2", 1)
	require.NoError(t, f.Arm("optmem", engine.Rule{Kind: engine.Nth, N: 1}))
	f.Fail("skb/alloc") // call 2, the 1st since arming
	f.Fail("optmem")    // call 1
	f.Fail("skb/alloc") // call 3, the 2nd since arming: fails
	f.Fail("loss")      // never armed

	want := []engine.Site{
		{Name: "loss", Calls: 1},
		{Name: "optmem", Rule: engine.Rule{Kind: engine.Nth, N: 1}, Calls: 1, Failures: 1},
		{Name: "skb/alloc", Rule: engine.Rule{Kind: engine.From, N: 2}, Calls: 3, Failures: 1},
	}
	if diff := cmp.Diff(want, f.Sites()); diff != "" {
		t.Errorf("Sites (-want +got):\n%s", diff)
	}
	require.Equal(t, want[2], f.Site("skb/alloc"))
	require.Equal(t, engine.Site{Name: "unknown"}, f.Site("unknown"))
	require.Equal(t, []string{"optmem", "skb/alloc"}, f.Armed())
	wantLog := []engine.Fired{{Site: "optmem", Call: 1}, {Site: "skb/alloc", Call: 3}}
	if diff := cmp.Diff(wantLog, f.Log()); diff != "" {
		t.Errorf("Log (-want +got):\n%s", diff)
	}

	require.NoError(t, f.Arm("skb/alloc", engine.Rule{}))
	require.Equal(t, []string{"optmem"}, f.Armed(), "disarmed")
	require.False(t, f.Fail("skb/alloc"))
	require.Equal(t, uint64(4), f.Site("skb/alloc").Calls, "counts carry on")
}

func TestFaultProbabilityIsDeterministicAndIsolated(t *testing.T) {
	run := func(armFirst bool) (string, uint64) {
		s := engine.NewStreams(5)
		f := engine.NewFaults(s)
		if armFirst {
			require.NoError(t, f.Arm("other", engine.Rule{Kind: engine.Prob, PPM: 500_000}))
			pattern(f, "other", 10)
		}
		require.NoError(t, f.Arm("loss", engine.Rule{Kind: engine.Prob, PPM: 250_000}))
		return pattern(f, "loss", 40), s.Rand("net").Uint64()
	}
	p1, net1 := run(false)
	p2, net2 := run(true)
	require.Equal(t, p1, p2, "another site's draws do not perturb this one")
	require.Equal(t, net1, net2, "fault draws do not perturb other streams")
	require.Contains(t, p1, "x")
	require.Contains(t, p1, ".")
}

func TestArmRejectsInvalidRules(t *testing.T) {
	f := engine.NewFaults(engine.NewStreams(1))
	for _, tc := range []struct {
		r    engine.Rule
		want string
	}{
		{engine.Rule{Kind: engine.Nth}, "engine: invalid fault rule nth=0: N counts from 1"},
		{engine.Rule{Kind: engine.Next}, "engine: invalid fault rule next=0: N counts from 1"},
		{engine.Rule{Kind: engine.Always, N: 3}, "engine: invalid fault rule always: N is only for nth, from and next rules"},
		{engine.Rule{Kind: engine.From, N: 1, PPM: 3}, "engine: invalid fault rule from=1: PPM is only for p rules"},
		{engine.Rule{Kind: engine.Prob, PPM: 1_000_001}, "engine: invalid fault rule p=1.000001: probability exceeds 1"},
		{engine.Rule{Kind: 99}, "engine: invalid fault rule RuleKind(99): unknown kind"},
	} {
		require.EqualError(t, f.Arm("site", tc.r), tc.want)
	}
	require.Empty(t, f.Sites(), "a failed Arm changes nothing")
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   engine.Rule
		string string // canonical form, if not in
	}{
		{"never", engine.Rule{}, ""},
		{"always", engine.Rule{Kind: engine.Always}, ""},
		{"nth=3", engine.Rule{Kind: engine.Nth, N: 3}, ""},
		{"from=18446744073709551615", engine.Rule{Kind: engine.From, N: 1<<64 - 1}, ""},
		{"next=02", engine.Rule{Kind: engine.Next, N: 2}, "next=2"},
		{"p=0", engine.Rule{Kind: engine.Prob}, ""},
		{"p=1", engine.Rule{Kind: engine.Prob, PPM: 1_000_000}, ""},
		{"p=1.000000", engine.Rule{Kind: engine.Prob, PPM: 1_000_000}, "p=1"},
		{"p=0.25", engine.Rule{Kind: engine.Prob, PPM: 250_000}, ""},
		{"p=0.000001", engine.Rule{Kind: engine.Prob, PPM: 1}, ""},
		{"p=0.123456", engine.Rule{Kind: engine.Prob, PPM: 123_456}, ""},
		{"p=0.10", engine.Rule{Kind: engine.Prob, PPM: 100_000}, "p=0.1"},
	} {
		got, err := engine.ParseRule(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		canonical := tc.string
		if canonical == "" {
			canonical = tc.in
		}
		require.Equal(t, canonical, got.String())
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		col  int
		want string
	}{
		{"", 1, `ParseRule(""): column 1: unknown rule ""; want never, always, nth=N, from=N, next=N or p=P`},
		{"sometimes", 1, `ParseRule("sometimes"): column 1: unknown rule "sometimes"; want never, always, nth=N, from=N, next=N or p=P (at "sometimes")`},
		{"Always", 1, `ParseRule("Always"): column 1: unknown rule "Always"; want never, always, nth=N, from=N, next=N or p=P (at "Always")`},
		{"always=1", 7, `ParseRule("always=1"): column 7: always takes no value (at "=1")`},
		{"nth", 4, `ParseRule("nth"): column 4: missing value; want nth=N`},
		{"p", 2, `ParseRule("p"): column 2: missing value; want p=P`},
		{"nth=", 5, `ParseRule("nth="): column 5: expected a decimal integer`},
		{"nth=0", 5, `ParseRule("nth=0"): column 5: counts from 1 (at "0")`},
		{"next=-1", 6, `ParseRule("next=-1"): column 6: expected a decimal integer (at "-1")`},
		{"from=3x", 7, `ParseRule("from=3x"): column 7: unexpected "x" after the number (at "x")`},
		{"nth=18446744073709551616", 5, `ParseRule("nth=18446744073709551616"): column 5: number overflows uint64 (at "18446744073709551616")`},
		{"p=", 3, `ParseRule("p="): column 3: expected a probability such as 0.25`},
		{"p=.5", 3, `ParseRule("p=.5"): column 3: expected a probability such as 0.25 (at ".5")`},
		{"p=1.", 5, `ParseRule("p=1."): column 5: expected a digit after the decimal point`},
		{"p=1.5", 3, `ParseRule("p=1.5"): column 3: probability exceeds 1 (at "1.5")`},
		{"p=2", 3, `ParseRule("p=2"): column 3: probability exceeds 1 (at "2")`},
		{"p=1.000001", 3, `ParseRule("p=1.000001"): column 3: probability exceeds 1 (at "1.000001")`},
		{"p=99999999999999999999", 3, `ParseRule("p=99999999999999999999"): column 3: probability exceeds 1 (at "99999999999999999999")`},
		{"p=0.1234567", 11, `ParseRule("p=0.1234567"): column 11: more than 6 fractional digits (at "7")`},
		{"p=0.25%", 7, `ParseRule("p=0.25%"): column 7: unexpected "%" after the number (at "%")`},
		{"p=1e-3", 4, `ParseRule("p=1e-3"): column 4: unexpected "e-3" after the number (at "e-3")`},
		{"p=0.5=1", 6, `ParseRule("p=0.5=1"): column 6: unexpected "=1" after the number (at "=1")`},
	} {
		_, err := engine.ParseRule(tc.in)
		require.EqualError(t, err, tc.want)
		var se *engine.SyntaxError
		require.True(t, errors.As(err, &se))
		require.Equal(t, tc.col, se.Col, tc.in)
	}
}
