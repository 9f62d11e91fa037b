package explore_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/explore"
	"github.com/zcsim/zcsim/sim/interp"
)

// search runs c and returns what it found.
func search(t *testing.T, c explore.Config) ([]explore.Finding, explore.Summary) {
	t.Helper()
	var fs []explore.Finding
	sum, err := explore.Run(c, func(f explore.Finding) error {
		fs = append(fs, f)
		return nil
	})
	require.NoError(t, err)
	return fs, sum
}

// With a catalogued bug switched on the search finds it, and the shrunk
// file, which names the profile and the bug, replays under zcsim run's
// options to a violation of the same rule.
func TestFindsCatalogBug(t *testing.T) {
	fs, sum := search(t, explore.Config{Profile: "linux-6.18", Bugs: []kernel.Bug{kernel.BugUDPMoreRefcnt}, Seed: 1, Runs: 400})
	require.Len(t, fs, 1)
	f := fs[0]
	require.Equal(t, sum.Runs, f.Run+1, "the search stops at the first finding")
	require.Equal(t, "violation", f.Kind)
	require.Equal(t, kernel.RuleRefcount.String(), f.Rule)
	require.True(t, f.Replays)
	require.Less(t, len(f.Shrunk), len(f.Original))
	require.Contains(t, string(f.Shrunk), "profile linux-6.18\nbug udp-more-refcnt\n")
	require.Equal(t, "refcount-"+itoa(f.Seed)+".zcs", f.Name())
	require.Contains(t, string(f.File()), "# replay: zcsim run --seed "+itoa(f.Seed))

	tr, err := interp.Run(f.Name(), f.File(), interp.Options{Seed: f.Seed})
	require.NoError(t, err)
	found := false
	for _, r := range tr.Records {
		found = found || r.Violation != nil && r.Violation.Rule == f.Rule
	}
	require.True(t, found, "the shrunk file replays to the violation:\n%s", f.File())
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// Without a bug, a clean model runs the whole budget without a finding.
// The budget is the first 2000 runs of the seed the catalog search
// (BenchmarkFindCatalogBug) starts from, so a defect of the model that
// would stand in front of the catalog bugs' findings there fails here:
// one found at run 847 hid three of them.
func TestCleanBudget(t *testing.T) {
	runs := 2000
	if testing.Short() {
		runs = 40
	}
	fs, sum := search(t, explore.Config{Profile: "linux-6.18", Seed: 1, Runs: runs})
	require.Empty(t, fs)
	require.Equal(t, runs, sum.Runs)
	require.Zero(t, sum.Findings)
}

// The same Config finds the same failures with the same shrunk files;
// KeepGoing reports each distinct key once.
func TestDeterministic(t *testing.T) {
	c := explore.Config{Bugs: []kernel.Bug{kernel.BugTstampLeak}, Seed: 100, Runs: 300, KeepGoing: true}
	a, sa := search(t, c)
	b, sb := search(t, c)
	require.NotEmpty(t, a)
	require.Equal(t, 300, sa.Runs)
	require.Equal(t, sa.Runs, sb.Runs)
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("findings differ (-first +second):\n%s", d)
	}
	keys := map[string]bool{}
	for _, f := range a {
		require.False(t, keys[f.Key], "key %q reported twice", f.Key)
		keys[f.Key] = true
	}
}

// A run over its step budget is a hang, shrunk like any failure.
func TestHang(t *testing.T) {
	fs, _ := search(t, explore.Config{Profile: "linux-6.18", Seed: 3, Runs: 5, MaxSteps: 2})
	require.Len(t, fs, 1)
	require.Equal(t, "hang", fs[0].Kind)
	require.Equal(t, "hang: over 2 steps", fs[0].Message)
	require.Equal(t, "hang-3.zcs", fs[0].Name())
	require.LessOrEqual(t, strings.Count(string(fs[0].Shrunk), "\n"), 4, "%s", fs[0].Shrunk)
}

// A run in which no step ends for StallTime is abandoned as a timeout, not
// shrunk, and ends the search; its file says it depends on the machine.
func TestTimeout(t *testing.T) {
	fs, sum := search(t, explore.Config{Profile: "linux-6.18", Seed: 3, Runs: 5, StallTime: time.Nanosecond})
	require.Len(t, fs, 1)
	require.Equal(t, 1, sum.Runs, "the search stops")
	f := fs[0]
	require.Equal(t, "timeout", f.Kind)
	require.Contains(t, f.Message, "timeout: no step ended for 1ns of wall time after step ")
	require.Equal(t, "timeout-3.zcs", f.Name())
	require.Equal(t, f.Original, f.Shrunk, "not shrunk")
	require.False(t, f.Replays)
	require.Contains(t, string(f.File()), "# replay: a timeout depends on the machine; zcsim check --seed 3 --runs 1 runs it again\n")
}

// A shrink stopped by its wall-time guard says so in its file.
func TestShrinkCut(t *testing.T) {
	fs, _ := search(t, explore.Config{Profile: "linux-6.18", Seed: 3, Runs: 5, MaxSteps: 2, ShrinkTime: time.Nanosecond})
	require.Len(t, fs, 1)
	require.True(t, fs[0].ShrinkCut)
	require.Contains(t, string(fs[0].File()), "# shrinking was stopped by its wall-time guard")
}

// Validate refuses what cannot run.
func TestValidate(t *testing.T) {
	for _, c := range []explore.Config{
		{Profile: "linux-9"},
		{Bugs: []kernel.Bug{"nope"}},
		{Shard: 2, Shards: 2},
		{Shard: 1},
		{Runs: -1},
		{StallTime: -time.Second},
	} {
		require.Error(t, c.Validate(), "%+v", c)
		_, err := explore.Run(c, func(explore.Finding) error { return nil })
		require.Error(t, err)
	}
	require.NoError(t, explore.Config{Shard: 1, Shards: 3}.Validate())
}
