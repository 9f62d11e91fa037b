package bugs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/bugs"
)

// Every entry behaves: its symptom with the bug on, a clean run with it
// off. This is `zcsim bugs --check`.
func TestCatalogChecks(t *testing.T) {
	for _, e := range bugs.Catalog() {
		t.Run(e.ID, func(t *testing.T) {
			v, err := e.Check(1)
			require.NoError(t, err)
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
		require.False(t, files[e.File], "duplicate file %s", e.File)
		ids[e.ID], files[e.File] = true, true
		require.True(t, known[e.Bug], "%s: unknown switch %s", e.ID, e.Bug)
		require.NotEmpty(t, e.Title, e.ID)
		require.NotEmpty(t, e.Commit, e.ID)
		require.NotEmpty(t, e.Kernels, e.ID)
		src := string(e.Source())
		for _, word := range []string{"Symptom:", "Root cause:", "Fix"} {
			require.Contains(t, src, word, "%s: the lesson explains itself", e.File)
		}
		require.NotContains(t, src, "\nbug ", "%s: the catalog switches the bug, not the file", e.File)
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
	require.Equal(t, "violation of invariant 8 (bounds)", e.Symptom())
	v, err := e.Check(1)
	require.NoError(t, err)
	require.Equal(t, "clean", v.Off.String())
	require.True(t, strings.HasPrefix(v.On.String(), "1 invariant 8 (bounds)"), v.On.String())
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
