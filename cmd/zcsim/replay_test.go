package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// zcsim replay --bug ID switches a catalogued bug on, by catalog id or
// switch name, repeatable: the header lists the bugs on, a broken
// invariant is listed with its line and counted, and the exit status is
// 1. The log, recorded on Linux 6.18, replays clean without it. An
// unknown ID is an input error, exit 2, with nothing on stdout.
func TestReplayBug(t *testing.T) {
	atRoot(t)
	log := filepath.Join("sim", "replay", "testdata", "udp_more.log")
	clean := runCLI("replay", "--profile", "linux-5.0", log)
	clean.requireStatus(t, exitOK, "replay", "--profile", "linux-5.0", log)
	require.NotContains(t, clean.stdout, "bugs on")
	require.NotContains(t, clean.stdout, "invariant")

	for _, id := range []string{"B6", "b6", "udp-more-refcnt"} {
		z := runCLI("replay", "--profile", "linux-5.0", "--bug", id, log)
		z.requireStatus(t, exitFindings, "replay", "--bug", id, log)
		require.Contains(t, z.stdout, "timestamps time of day (-t/-tt); bugs on: udp-more-refcnt\n")
		require.Regexp(t, `\ninvariant violations:\n  line 21 \(step \d+, end of log\): invariant refcount: uarg#\d+: leaked at quiescence: `, z.stdout)
		require.True(t, strings.HasSuffix(z.stdout, ": 1 diverge, 1 invariant violation\n"), z.stdout)
	}

	two := runCLI("replay", "--profile", "linux-5.0", "--bug", "B6", "--bug", "R1", log)
	two.requireStatus(t, exitFindings, "replay", "--bug", "B6", "--bug", "R1", log)
	require.Contains(t, two.stdout, "; bugs on: abort-gap, udp-more-refcnt\n")

	js := runCLI("replay", "--json", "--profile", "linux-5.0", "--bug", "B6", log)
	js.requireStatus(t, exitFindings, "replay", "--json", "--bug", "B6", log)
	recs := jsonLines(t, js.stdout)
	require.Equal(t, []any{"udp-more-refcnt"}, recs[0]["bugs"])
	var viol []map[string]any
	for _, r := range recs {
		if r["kind"] == "violation" {
			viol = append(viol, r)
		}
	}
	require.Len(t, viol, 1)
	require.Equal(t, "refcount", viol[0]["rule"])
	require.Equal(t, "end of log", viol[0]["op"])
	require.Equal(t, 21.0, viol[0]["line"])
	last := recs[len(recs)-1]
	require.Equal(t, 1.0, last["violations"])
	require.Equal(t, false, last["ok"])

	bad := runCLI("replay", "--bug", "nope", log)
	bad.requireStatus(t, exitUsage, "replay", "--bug", "nope", log)
	require.Empty(t, bad.stdout)
	require.Contains(t, bad.stderr, `replay: --bug "nope": unknown bug (zcsim bugs lists them)`)
}
