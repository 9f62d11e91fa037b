package diff

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/probe"
)

// headerLines is how many comment lines File puts before the scenario.
const headerLines = 3

// File is the reproducer: a header of headerLines comments (what
// differed, at which line of this file, the kernel's verdict, the seed,
// how to replay it), then the scenario with the kernel's and the
// model's answers side by side after each compared statement, as a
// comment ("# kernel 4096 | model 249  <- differs", and what the model's
// answer assumes where it assumes a TCP timer fired: probe.Stmt.Assumes),
// and why each
// statement the kernel did not run was left out. zcsim probe FILE runs it
// again on both.
func (f Finding) File() []byte {
	var b strings.Builder
	b.WriteString(f.headline() + "\n")
	verdict := fmt.Sprintf("the kernel answered the same in %d runs", f.Runs)
	if !f.Stable {
		verdict = fmt.Sprintf("the kernel's answers changed across %d runs: not shrunk", f.Runs)
	}
	fmt.Fprintf(&b, "# %s; seed %d (zcsim diff --seed %d --runs 1); %d of %d generated lines\n",
		verdict, f.Seed, f.Seed, lineCount(f.Shrunk), lineCount(f.Original))
	b.WriteString("# replay: zcsim probe FILE (kernel and model); zcsim run FILE (the model alone)\n")
	stmts, skips := map[int]probe.Stmt{}, map[int]probe.Skip{}
	if f.Result != nil {
		for _, s := range f.Result.Stmts {
			stmts[s.Line] = s
		}
		for _, s := range f.Result.Skipped {
			skips[s.Line] = s
		}
	}
	lines := strings.Split(strings.TrimSuffix(string(f.Shrunk), "\n"), "\n")
	width := 0
	for _, l := range lines {
		width = max(width, min(len(l), 48))
	}
	for i, l := range lines {
		note := ""
		if s, ok := stmts[i+1]; ok {
			note = fmt.Sprintf("# kernel %s | model %s", strings.Join(f.answers(s), " / "), s.Model)
			if !s.Agree {
				note += "  <- differs"
			}
			if s.Assumes != "" {
				note += "  (the model assuming " + s.Assumes + ")"
			}
		} else if s, ok := skips[i+1]; ok {
			note = "# not compared: " + s.Why
		}
		if note == "" {
			b.WriteString(l + "\n")
			continue
		}
		fmt.Fprintf(&b, "%-*s  %s\n", width, l, note)
	}
	return []byte(b.String())
}

// headline is the first line: what differed first, at its line in File.
func (f Finding) headline() string {
	var first *probe.Stmt
	n := 0
	if f.Result != nil {
		for i := range f.Result.Stmts {
			if s := &f.Result.Stmts[i]; !s.Agree {
				if first == nil {
					first = s
				}
				n++
			}
		}
	}
	if first == nil {
		return "# zcsim diff: " + f.Key
	}
	what := "zcsim diff"
	if !f.Stable {
		what += ": unstable on the kernel"
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %d more statements differ)", n-1)
	}
	return fmt.Sprintf("# %s: line %d, %s: kernel %s, model %s%s", what, first.Line+headerLines, first.Text,
		strings.Join(f.answers(*first), " or "), first.Model, more)
}

// answers are the kernel's answers to s across the runs.
func (f Finding) answers(s probe.Stmt) []string {
	if a := f.Answers[s.Line]; len(a) > 0 {
		return a
	}
	return []string{s.Kernel}
}

func lineCount(src []byte) int {
	return strings.Count(strings.TrimSuffix(string(src), "\n"), "\n") + 1
}
