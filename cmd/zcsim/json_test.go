package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/bugs"
)

// requireReport checks the shape every --json report shares: a config
// record with the schema version first, records of the given kinds, a
// summary last; it returns the records between.
func requireReport(t *testing.T, out string, kinds ...string) []map[string]any {
	t.Helper()
	recs := jsonLines(t, out)
	require.GreaterOrEqual(t, len(recs), 2)
	require.Equal(t, "config", recs[0]["kind"])
	require.EqualValues(t, sim.SchemaVersion, recs[0]["schema"])
	require.Equal(t, "summary", recs[len(recs)-1]["kind"])
	body := recs[1 : len(recs)-1]
	for _, r := range body {
		require.Contains(t, kinds, r["kind"], "record %v", r)
	}
	return body
}

func TestBugsJSON(t *testing.T) {
	z := runCLI("bugs", "--json")
	z.requireStatus(t, exitOK, "bugs", "--json")
	recs := requireReport(t, z.stdout, "bug")
	require.Len(t, recs, len(bugs.Catalog()))
	require.Equal(t, "R1", recs[0]["id"])
	require.Equal(t, "sim/bugs/r1-abort-gap.zcs", recs[0]["scenario"])
	last := jsonLines(t, z.stdout)
	require.EqualValues(t, len(bugs.Catalog()), last[len(last)-1]["entries"])

	c := runCLI("bugs", "--verify", "--json")
	c.requireStatus(t, exitOK, "bugs", "--verify", "--json")
	verdicts := requireReport(t, c.stdout, "verify")
	require.Len(t, verdicts, len(bugs.Catalog()))
	skipped := 0
	for _, r := range verdicts {
		if r["skipped"] != nil {
			skipped++
			continue
		}
		require.Equal(t, true, r["ok"], "%v", r)
	}
	require.Zero(t, skipped)
	sum := jsonLines(t, c.stdout)
	require.Equal(t, map[string]any{"kind": "summary", "entries": float64(len(bugs.Catalog())), "behave": float64(len(bugs.Catalog())), "skipped": 0.0, "ok": true}, sum[len(sum)-1])

	// bugs ID --json is the trace, as run --json prints it.
	one := runCLI("bugs", "R1", "--json")
	one.requireStatus(t, exitFindings, "bugs", "R1", "--json")
	trace := jsonLines(t, one.stdout)
	require.Equal(t, "config", trace[0]["kind"])
	require.Equal(t, "sim/bugs/r1-abort-gap.zcs", trace[0]["file"])
	require.Equal(t, []any{"abort-gap"}, trace[0]["bugs"])
}

func TestProfilesJSON(t *testing.T) {
	z := runCLI("profiles", "--json")
	z.requireStatus(t, exitOK, "profiles", "--json")
	recs := requireReport(t, z.stdout, "profile")
	var names []string
	for _, r := range recs {
		names = append(names, r["name"].(string))
		require.NotEmpty(t, r["knobs"])
	}
	require.Equal(t, []string{"rfc-v2", "linux-4.14", "tcp-mmap-rfc", "linux-5.0", "linux-6.18", "zc-cmsg-v7"}, names)

	d := runCLI("profiles", "--json", "--diff", "linux-5.0", "linux-6.18")
	d.requireStatus(t, exitOK, "profiles", "--json", "--diff")
	knobs := requireReport(t, d.stdout, "knob")
	found := false
	for _, k := range knobs {
		if k["name"] == "OptmemMax" {
			found = true
			require.Equal(t, "20480", k["a"])
			require.Equal(t, "131072", k["b"])
		}
	}
	require.True(t, found, d.stdout)
	all := jsonLines(t, d.stdout)
	require.Equal(t, "linux-5.0", all[0]["a"])
	require.EqualValues(t, len(knobs), all[len(all)-1]["differ"])
}

// --json wins over --brief: together they print what --json alone does.
func TestJSONWinsOverBrief(t *testing.T) {
	atRoot(t)
	f := filepath.Join("examples", "tcp-nic.zcs")
	js := runCLI("run", "--json", f)
	js.requireStatus(t, exitOK, "run", "--json", f)
	require.Contains(t, js.stdout, `"touched"`)
	require.Equal(t, js, runCLI("run", "--json", "--brief", f))
	require.Equal(t, js, runCLI("run", "--brief", "--json", f))
	require.Equal(t, runCLI("bugs", "B6", "--json"), runCLI("bugs", "B6", "--json", "--brief"))
	for _, cmd := range []string{"run", "bugs"} {
		help := runCLI("help", cmd)
		require.Contains(t, help.stdout, "ignored with --json", cmd)
	}
}

// zcsim bugs lists every entry, and every scenario path it
// prints runs as printed from the repository root: clean, unless the
// lesson's profile carries the entry's bug (Z1, the unmerged series as
// posted), when it shows it.
func TestBugsPathsRun(t *testing.T) {
	atRoot(t)
	carried := map[string]bool{}
	for _, e := range bugs.Catalog() {
		m := regexp.MustCompile(`(?m)^profile (\S+)`).FindSubmatch(e.Source())
		if m == nil {
			continue
		}
		p, err := kernel.Lookup(string(m[1]))
		require.NoError(t, err, e.ID)
		carried[e.Path()] = p.Bugs.Has(e.Bug)
	}
	require.True(t, carried["sim/bugs/z1-zc-cmsg-loss.zcs"])
	list := runCLI("bugs")
	list.requireStatus(t, exitOK, "bugs")
	require.Regexp(t, `(?m)^B3 +packet-ring-no-copy +violation of invariant notify-after-pages +sim/bugs/b03-packet-ring-no-copy.zcs`, list.stdout)
	paths := 0
	for _, line := range strings.Split(list.stdout, "\n") {
		for _, field := range strings.Fields(line) {
			if !strings.HasSuffix(field, ".zcs") {
				continue
			}
			paths++
			_, err := os.Stat(field)
			require.NoError(t, err, "zcsim bugs prints %s", field)
			want := exitOK
			if carried[field] {
				want = exitFindings
			}
			runCLI("run", field).requireStatus(t, want, "run", field)
		}
	}
	require.Equal(t, len(bugs.Catalog()), paths)

	check := runCLI("bugs", "--verify")
	require.Regexp(t, `(?m)^ok +B3 +packet-ring-no-copy +on: `, check.stdout)
	require.Contains(t, check.stdout, "0 without a scenario skipped")
}
