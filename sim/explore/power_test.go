package explore_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/bugs"
	"github.com/zcsim/zcsim/sim/explore"
	"github.com/zcsim/zcsim/sim/interp"
)

// powerBudget is how long one search may take: the goal of docs/check.md
// is every detectable catalogued bug found within it on one core.
const powerBudget = 60 * time.Second

var profileLine = regexp.MustCompile(`(?m)^profile (\S+)`)

// statements counts the lines of src that are neither blank nor comments.
func statements(src []byte) int {
	n := 0
	for _, l := range strings.Split(string(src), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// causedBy reports whether f's shrunk file fails as f says with bug on
// and shows no violation of f's rule with it off: the search found the
// bug, not something else.
func causedBy(b *testing.B, f explore.Finding, bug kernel.Bug) bool {
	rules := func(opts interp.Options) map[string]bool {
		tr, err := interp.Run(f.Name(), f.Shrunk, opts)
		if err != nil {
			b.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range tr.Records {
			if r.Violation != nil {
				out[r.Violation.Rule] = true
			}
		}
		return out
	}
	on := rules(interp.Options{Seed: f.Seed, Off: f.Off})
	off := rules(interp.Options{Seed: f.Seed, Off: append([]kernel.Bug{bug}, f.Off...)})
	return on[f.Rule] && !off[f.Rule]
}

// BenchmarkFindCatalogBug measures the power of zcsim check: for each
// catalogued bug an invariant detects, a search from root seed 1 under
// the profile of the bug's lesson, with the bug on, until the first
// finding or powerBudget. It reports the runs and seconds to the failing
// run, the seconds with the shrink, whether what it found is the bug's
// doing (causedBy: 1, else 0; the rule may differ from the catalog's), and
// the statements of the shrunk file and of the lesson. docs/check.md's
// table comes from
//
//	nice go test ./sim/explore -run '^$' -bench FindCatalogBug -benchtime 1x
func BenchmarkFindCatalogBug(b *testing.B) {
	for _, e := range bugs.Catalog() {
		if e.Rule == 0 {
			continue
		}
		profile := "linux-6.18"
		if m := profileLine.FindSubmatch(e.Source()); m != nil {
			profile = string(m[1])
		}
		b.Run(e.ID, func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				var last explore.Progress
				var got *explore.Finding
				var total time.Duration
				c := explore.Config{Profile: profile, Bugs: []kernel.Bug{e.Bug}, Seed: 1,
					Stop:     func() bool { return time.Since(start) > powerBudget },
					Progress: func(p explore.Progress) { last = p }}
				if _, err := explore.Run(c, func(f explore.Finding) error {
					got, total = &f, time.Since(start)
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if got == nil {
					b.ReportMetric(float64(last.Runs), "runs")
					b.ReportMetric(0, "found")
					continue
				}
				found := 0.0
				if causedBy(b, *got, e.Bug) {
					found = 1
				}
				b.ReportMetric(float64(got.Run+1), "runs")
				b.ReportMetric(last.Elapsed.Seconds(), "find-s")
				b.ReportMetric(total.Seconds(), "total-s")
				b.ReportMetric(found, "found")
				b.ReportMetric(float64(statements(got.Shrunk)), "shrunk-stmts")
				b.ReportMetric(float64(statements(e.Source())), "lesson-stmts")
			}
		})
	}
}
