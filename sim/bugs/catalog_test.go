package bugs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/bugs"
)

// Every entry behaves: its symptom with the bug on, a clean run with it
// off. This is `zcsim bugs --verify`.
func TestCatalogChecks(t *testing.T) {
	for _, e := range bugs.Catalog() {
		t.Run(e.ID, func(t *testing.T) {
			v, err := e.Check(1)
			require.NoError(t, err)
			if e.File == "" {
				require.False(t, v.OK)
				require.Equal(t, e.Elsewhere, v.Skipped)
				t.Skipf("%s has no scenario: %s", e.ID, v.Skipped)
			}
			require.Empty(t, v.Skipped)
			require.True(t, v.OK, "%s (%s): on: %v; off: %v; want %s on, clean off", e.ID, e.Bug, v.On, v.Off, e.Symptom())
		})
	}
}

func TestCatalogShape(t *testing.T) {
	cat := bugs.Catalog()
	require.GreaterOrEqual(t, len(cat), 15)
	known := map[kernel.Bug]bool{}
	for _, b := range kernel.KnownBugs() {
		known[b] = true
	}
	ids, files := map[string]bool{}, map[string]bool{}
	for _, e := range cat {
		require.False(t, ids[e.ID], "duplicate id %s", e.ID)
		ids[e.ID] = true
		require.True(t, known[e.Bug], "%s: unknown switch %s", e.ID, e.Bug)
		require.NotEmpty(t, e.Title, e.ID)
		require.NotEmpty(t, e.Commit, e.ID)
		require.NotEmpty(t, e.Kernels, e.ID)
		if e.File == "" {
			requireReplayedElsewhere(t, e)
			continue
		}
		require.Empty(t, e.Elsewhere, "%s has a scenario", e.ID)
		require.False(t, files[e.File], "duplicate file %s", e.File)
		files[e.File] = true
		// The path is relative to the repository root and names the file.
		onDisk, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(e.Path())))
		require.NoError(t, err, "%s: %s", e.ID, e.Path())
		require.Equal(t, string(onDisk), string(e.Source()), e.Path())
		src := string(e.Source())
		for _, word := range []string{"Symptom:", "Root cause:", "Fix"} {
			require.Contains(t, src, word, "%s: the lesson explains itself", e.File)
		}
		require.NotContains(t, src, "\nbug ", "%s: the catalog switches the bug, not the file", e.File)
	}
}

// requireReplayedElsewhere checks that an entry without a scenario names
// a test, as package.TestName, that exists in that package.
func requireReplayedElsewhere(t *testing.T, e bugs.Entry) {
	t.Helper()
	m := regexp.MustCompile(`\b([a-z]+)\.(Test[A-Za-z0-9_]+)\b`).FindStringSubmatch(e.Elsewhere)
	require.NotNil(t, m, "%s: Elsewhere %q names no package.TestName", e.ID, e.Elsewhere)
	tests, err := filepath.Glob(filepath.Join("..", "..", m[1], "*_test.go"))
	require.NoError(t, err)
	for _, f := range tests {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.Contains(string(src), "\nfunc "+m[2]+"(t *testing.T) {") {
			return
		}
	}
	t.Fatalf("%s: no test %s in package %s", e.ID, m[2], m[1])
}

// An entry without a scenario says so when run, and is skipped by Check.
// Every catalogued bug has a scenario now, so the entry is made here.
func TestEntryWithoutScenario(t *testing.T) {
	e := bugs.Entry{ID: "X1", Bug: kernel.BugRingNoCopy, Rule: kernel.RuleNotifyAfterPages,
		Elsewhere: "only a test reaches it: packet.TestTxRingClone replays it"}
	require.Empty(t, e.Path())
	require.Nil(t, e.Source())
	_, err := e.Run(true, 1)
	require.ErrorContains(t, err, "X1 has no scenario: only a test reaches it")
	v, err := e.Check(1)
	require.NoError(t, err)
	require.False(t, v.OK)
	require.NotEmpty(t, v.Skipped)
}

// Every switch the kernel package knows is in the catalog.
func TestCatalogCoversEverySwitch(t *testing.T) {
	listed := map[kernel.Bug]bool{}
	for _, e := range bugs.Catalog() {
		listed[e.Bug] = true
	}
	for _, b := range kernel.KnownBugs() {
		require.True(t, listed[b], "switch %s has no catalog entry", b)
	}
}

func TestLookup(t *testing.T) {
	e, ok := bugs.Lookup("b6")
	require.True(t, ok)
	require.Equal(t, kernel.BugUDPMoreRefcnt, e.Bug)
	e, ok = bugs.Lookup("tstamp-leak")
	require.True(t, ok)
	require.Equal(t, "B14", e.ID)
	_, ok = bugs.Lookup("B99")
	require.False(t, ok)
}

func TestSymptomAndTally(t *testing.T) {
	e, _ := bugs.Lookup("R3")
	require.Equal(t, "expectation mismatch", e.Symptom())
	e, _ = bugs.Lookup("B15")
	require.Equal(t, "violation of invariant bounds", e.Symptom())
	v, err := e.Check(1)
	require.NoError(t, err)
	require.Equal(t, "clean", v.Off.String())
	require.True(t, strings.HasPrefix(v.On.String(), "1 bounds"), v.On.String())
}

// A bug whose profile has it on by default (B18 on linux-4.14) is
// switched off for the clean run.
func TestKnobBugOff(t *testing.T) {
	e, _ := bugs.Lookup("B18")
	src := strings.Replace(string(e.Source()), "device eth0 nic", "profile linux-4.14\ndevice eth0 nic", 1)
	require.Contains(t, src, "profile linux-4.14")
	for _, off := range []bool{false, true} {
		opts := simOptions(off)
		tr, err := runSource(src, opts)
		require.NoError(t, err)
		require.Equal(t, off, tr.OK(), "linux-4.14 with B18 off=%t", off)
	}
}
