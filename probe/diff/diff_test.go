package diff_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/probetest"
	"github.com/zcsim/zcsim/probe"
	"github.com/zcsim/zcsim/probe/diff"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// TestMain lets the test binary serve as its own unprivileged probe child.
func TestMain(m *testing.M) { probetest.Main(m) }

// fake is a probe whose kernel and model agree on every call but the
// ones kernel answers differently; it counts its runs.
type fake struct {
	kernel func(st scenario.Stmt, run int) (string, bool)
	runs   int
}

func (f *fake) probe(file string, src []byte) (*probe.Result, error) {
	stmts, err := scenario.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if _, err := interp.Run(file, src, interp.Options{Seed: 1}); err != nil {
		return nil, err // names undefined, as probe.Run reports them
	}
	f.runs++
	res := &probe.Result{File: file}
	for _, st := range stmts {
		switch st.(type) {
		case *scenario.Comment, *scenario.Note, *scenario.Profile, *scenario.Settle, *scenario.Wait, *scenario.Sysctl:
			continue
		}
		s := probe.Stmt{Line: st.Pos().Line, Text: scenario.FormatCall(st), Kernel: "0", Model: "0", Agree: true, MeetsExpectation: true}
		if k, differs := f.kernel(st, f.runs); differs {
			s.Kernel, s.Agree = k, false
		}
		res.Stmts = append(res.Stmts, s)
	}
	return res, nil
}

// bigSend is a "kernel" that refuses every send of at least 60000 bytes.
func bigSend(st scenario.Stmt, _ int) (string, bool) {
	if s, ok := st.(*scenario.Send); ok && s.Len.N >= 60000 {
		return "-1 EMSGSIZE", true
	}
	return "", false
}

func search(t *testing.T, c diff.Config) ([]diff.Finding, diff.Summary) {
	t.Helper()
	var fs []diff.Finding
	sum, err := diff.Run(c, func(f diff.Finding) error {
		fs = append(fs, f)
		return nil
	})
	require.NoError(t, err)
	return fs, sum
}

// A stable disagreement is confirmed, shrunk to the lines that show it,
// and the search stops there.
func TestStableDisagreement(t *testing.T) {
	f := &fake{kernel: bigSend}
	fs, sum := search(t, diff.Config{Seed: 1, Runs: 200, Probe: f.probe})
	require.Len(t, fs, 1)
	got := fs[0]
	require.True(t, got.Stable)
	require.Equal(t, sum.Runs, got.Run+1, "the search stops at the first stable disagreement")
	require.Equal(t, 1, sum.Stable)
	require.Equal(t, "send: kernel -N EMSGSIZE, model N", got.Key)
	require.Equal(t, 1+diff.DefaultConfirm, got.Runs)
	require.Regexp(t, `^socket \S+ [^\n]*\nsend \S+ \S+ 0\n$`, string(got.Shrunk), "shrunk to the socket and the send")
	require.Equal(t, diff.Scenario(got.Seed), got.Original)
	require.Equal(t, "diff-"+itoa(got.Seed)+".zcs", got.Name())

	file := string(got.File())
	lines := strings.Split(file, "\n")
	require.Regexp(t, `^# zcsim diff: line 5, send \S+ \S+ 0: kernel -1 EMSGSIZE, model 0$`, lines[0])
	require.Regexp(t, `^# the kernel answered the same in 4 runs; seed \d+ \(zcsim diff --seed \d+ --runs 1\); 2 of \d+ generated lines$`, lines[1])
	require.Regexp(t, `^socket .*  # kernel 0 \| model 0$`, lines[3])
	require.Regexp(t, `^send .*  # kernel -1 EMSGSIZE \| model 0  <- differs$`, lines[4])
	_, err := scenario.Parse("f.zcs", got.File())
	require.NoError(t, err, "the file is a scenario")
}

// A disagreement whose kernel answer changes between runs is unstable on
// the kernel: reported with every answer, not shrunk, and the search
// goes on.
func TestUnstableOnTheKernel(t *testing.T) {
	f := &fake{kernel: func(st scenario.Stmt, run int) (string, bool) {
		if _, ok := st.(*scenario.Recvmsg); ok {
			return []string{"-1 EAGAIN", "zerocopy [0,0] copied"}[run%2], true
		}
		return "", false
	}}
	fs, sum := search(t, diff.Config{Seed: 1, Runs: 30, Probe: f.probe})
	require.Equal(t, 30, sum.Runs)
	require.Zero(t, sum.Stable)
	require.NotEmpty(t, fs)
	require.Equal(t, len(fs), sum.Unstable)
	u := fs[0]
	require.False(t, u.Stable)
	require.Equal(t, u.Original, u.Shrunk)
	require.Equal(t, "unstable-"+itoa(u.Seed)+".zcs", u.Name())
	require.Regexp(t, `^# zcsim diff: unstable on the kernel: line \d+, recvmsg \S+ \S+: kernel (-1 EAGAIN or zerocopy \[0,0\] copied|zerocopy \[0,0\] copied or -1 EAGAIN), model 0`, string(u.File()))
	require.Contains(t, string(u.File()), "# the kernel's answers changed across 4 runs: not shrunk")
	keys := map[string]bool{}
	for _, f := range fs {
		require.False(t, keys[f.Key], "key %q reported twice", f.Key)
		keys[f.Key] = true
	}
}

// KeepGoing reports each distinct key once; without a disagreement the
// budget runs out clean.
func TestKeepGoingAndClean(t *testing.T) {
	f := &fake{kernel: bigSend}
	fs, sum := search(t, diff.Config{Seed: 1, Runs: 60, KeepGoing: true, Probe: f.probe, ShrinkTries: 5})
	require.Equal(t, 60, sum.Runs)
	require.Len(t, fs, 1, "one key")
	clean := &fake{kernel: func(scenario.Stmt, int) (string, bool) { return "", false }}
	fs, sum = search(t, diff.Config{Seed: 1, Runs: 10, Probe: clean.probe})
	require.Empty(t, fs)
	require.Equal(t, 10, clean.runs, "one probe per run, nothing to confirm")
	require.Positive(t, sum.Compared)
}

// The shrink is bounded by ShrinkTries candidates, each two probes.
func TestShrinkBounded(t *testing.T) {
	f := &fake{kernel: bigSend}
	fs, _ := search(t, diff.Config{Seed: 1, Runs: 200, Probe: f.probe, ShrinkTries: 3, Confirm: 1})
	require.Len(t, fs, 1)
	require.LessOrEqual(t, f.runs, fs[0].Run+1+1+2*3+2)
}

func TestValidate(t *testing.T) {
	require.Error(t, diff.Config{Runs: -1}.Validate())
	require.Error(t, diff.Config{Confirm: -1}.Validate())
	_, err := diff.Run(diff.Config{ShrinkTries: -1}, func(diff.Finding) error { return nil })
	require.Error(t, err)
}

// Every generated scenario runs whole on the live kernel: the probe's
// plan leaves out nothing but expect statements (model internals).
func TestScenariosRunWhole(t *testing.T) {
	for seed := range uint64(400) {
		src := diff.Scenario(seed)
		require.Equal(t, src, diff.Scenario(seed))
		skips, err := probe.Plan("diff.zcs", src, diff.Profile)
		require.NoError(t, err, "seed %d", seed)
		for _, s := range skips {
			require.True(t, strings.HasPrefix(s.Text, "expect "), "seed %d line %d %s: %s", seed, s.Line, s.Text, s.Why)
		}
	}
}

// On a host that can be probed, the search runs on the live kernel.
func TestLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the live kernel needs root")
	}
	if err := probe.Supported(); err != nil {
		t.Skipf("skipped: this kernel cannot be probed: %v", err)
	}
	var fs []diff.Finding
	sum, err := diff.Run(diff.Config{Seed: 1, Runs: 3, KeepGoing: true, ShrinkTries: 2, Confirm: 1}, func(f diff.Finding) error {
		fs = append(fs, f)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, sum.Runs)
	require.Positive(t, sum.Compared)
	for _, f := range fs {
		require.NotNil(t, f.Result)
		require.Equal(t, 2, f.Runs)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// A run the live run's bounds ended early is counted in the summary.
func TestSummaryCountsTimedOut(t *testing.T) {
	f := &fake{kernel: func(scenario.Stmt, int) (string, bool) { return "", false }}
	timed := func(file string, src []byte) (*probe.Result, error) {
		res, err := f.probe(file, src)
		if err == nil && f.runs%3 == 0 {
			res.TimedOut = res.Stmts[len(res.Stmts)-1].Line
		}
		return res, err
	}
	_, sum := search(t, diff.Config{Seed: 1, Runs: 9, Probe: timed})
	require.Equal(t, 9, sum.Runs)
	require.Equal(t, 3, sum.TimedOut)
}

// A reproducer says what a statement's model answer assumes (a TCP
// timer the model fired just before it), beside the answers.
func TestFileSaysTheAssumption(t *testing.T) {
	src := []byte("socket s AF_INET SOCK_STREAM\nrecv s.peer 10 MSG_DONTWAIT\n")
	f := diff.Finding{Seed: 7, Key: "recv: kernel -N EAGAIN, model N", Original: src, Shrunk: src, Stable: true, Runs: 4,
		Result: &probe.Result{Stmts: []probe.Stmt{{Line: 1, Text: "socket s AF_INET SOCK_STREAM", Kernel: "3", Model: "3", Agree: true},
			{Line: 2, Text: "recv s.peer 10 MSG_DONTWAIT", Kernel: "-1 EAGAIN", Model: "1", Assumes: "the zero-window probe timer of s fired at 204ms"}}}}
	lines := strings.Split(string(f.File()), "\n")
	require.Regexp(t, `^socket .*  # kernel 3 \| model 3$`, lines[3])
	require.Regexp(t, `^recv .*  # kernel -1 EAGAIN \| model 1  <- differs  \(the model assuming the zero-window probe timer of s fired at 204ms\)$`, lines[4])
}
