package diff

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/probe"
	"github.com/zcsim/zcsim/sim/gen"
)

// Profile is the model's profile: the live kernel's.
const Profile = kernel.DefaultProfile

// ChildUID is the uid and gid of the search's unprivileged kernel runs
// unless ProbeOptions say otherwise: its own, not probe.NobodyUID, since
// RLIMIT_MEMLOCK charges pinned pages per user and a long search must not
// share that counter with a zcsim probe or calibration run beside it.
const ChildUID = 65533

// Defaults of Config's zero fields.
const (
	DefaultConfirm     = 3
	DefaultShrinkTries = 300
	DefaultShrinkTime  = 3 * time.Minute
)

// stmtSizes are the statement bounds the runs cycle through.
var stmtSizes = [...]int{20, 40, 80}

// Config says what to search.
type Config struct {
	// Seed is the root seed: run k uses seed Seed+k.
	Seed uint64
	// Runs bounds the runs; 0 is no bound.
	Runs int
	// Stop, if set, is polled before each run; true ends the search.
	Stop func() bool
	// KeepGoing searches on after a stable disagreement, reporting each
	// distinct Key once.
	KeepGoing bool
	// Confirm is how many more kernel runs must give the same answers
	// before a disagreement is stable; ShrinkTries and ShrinkTime bound
	// one shrink. Zero means the Default.
	Confirm     int
	ShrinkTries int
	ShrinkTime  time.Duration
	// Probe runs one scenario on the kernel and the model; nil is
	// probe.Run with ProbeOptions and the profile Profile.
	Probe func(file string, src []byte) (*probe.Result, error)
	// ProbeOptions are the options of the default Probe (its Exe,
	// ChildArgs and ChildUID, ChildUID if zero; the profile is always
	// Profile).
	ProbeOptions probe.Options
	// Progress, if set, is called after each run.
	Progress func(Progress)
}

// Progress is how far a search got.
type Progress struct {
	Runs     int
	Stable   int
	Unstable int
	Elapsed  time.Duration
}

// Summary is the result of a search.
type Summary struct {
	// Runs is how many scenarios ran, confirming and shrinking runs not
	// counted; Compared is how many statements they compared.
	Runs     int
	Compared int
	// TimedOut counts the runs a bound of the live run ended early
	// (probe.Result.TimedOut): what they did not reach was not compared.
	TimedOut int
	// Stable and Unstable count the distinct disagreements reported.
	Stable   int
	Unstable int
	// Elapsed is the wall time of the search.
	Elapsed time.Duration
}

// Finding is one distinct disagreement.
type Finding struct {
	// Seed made the scenario; Run is its index among the runs (0-based).
	Seed uint64
	Run  int
	// Key is what makes two disagreements the same (package doc).
	Key string
	// Stable says the kernel gave the same answers on every run; an
	// unstable finding is not shrunk.
	Stable bool
	// Runs is how many kernel runs of Shrunk the verdict rests on.
	Runs int
	// Original is the generated scenario, Shrunk its minimal form (the
	// same when unstable or not shrunk).
	Original, Shrunk []byte
	// Result is the comparison of Shrunk; Answers, per compared line of
	// Shrunk, every distinct answer the kernel gave across Runs, in the
	// order first seen.
	Result  *probe.Result
	Answers map[int][]string
}

// Name is the finding's file name: "diff-<seed>.zcs", or
// "unstable-<seed>.zcs".
func (f Finding) Name() string {
	if f.Stable {
		return fmt.Sprintf("diff-%d.zcs", f.Seed)
	}
	return fmt.Sprintf("unstable-%d.zcs", f.Seed)
}

// Validate reports the first problem of a Config: a negative budget.
func (c Config) Validate() error {
	if c.Runs < 0 || c.Confirm < 0 || c.ShrinkTries < 0 || c.ShrinkTime < 0 {
		return errors.New("negative budget")
	}
	return nil
}

// Run searches as c says and hands each finding to found, in the order
// they are found; an error from found ends the search with that error,
// and so does a scenario the probe cannot run (its error). A Config that
// Validate refuses runs nothing and returns its error.
func Run(c Config, found func(Finding) error) (Summary, error) {
	if err := c.Validate(); err != nil {
		return Summary{}, err
	}
	x := newSearcher(c)
	start := time.Now()
	var sum Summary
	seen := map[string]bool{}
	for seed := c.Seed; c.Runs == 0 || sum.Runs < c.Runs; seed++ {
		if c.Stop != nil && c.Stop() {
			break
		}
		src := Scenario(seed)
		res, err := x.probe(src)
		if err != nil {
			return sum, fmt.Errorf("seed %d: %w", seed, err)
		}
		sum.Runs++
		sum.Compared += len(res.Stmts)
		if res.TimedOut > 0 {
			sum.TimedOut++
		}
		if key, ok := Key(res); ok && !seen[key] {
			seen[key] = true
			f, err := x.finding(seed, src, res, key)
			if err != nil {
				return sum, fmt.Errorf("seed %d: %w", seed, err)
			}
			f.Run = sum.Runs - 1
			if f.Stable {
				sum.Stable++
			} else {
				sum.Unstable++
			}
			if err := found(f); err != nil {
				sum.Elapsed = time.Since(start)
				return sum, err
			}
			if f.Stable && !c.KeepGoing {
				break
			}
		}
		if c.Progress != nil {
			c.Progress(Progress{Runs: sum.Runs, Stable: sum.Stable, Unstable: sum.Unstable, Elapsed: time.Since(start)})
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// Scenario is the scenario of run seed: a host scenario of sim/gen for
// Profile.
func Scenario(seed uint64) []byte {
	return gen.Scenario(seed, gen.Config{Profile: Profile, Host: true, Stmts: stmtSizes[seed/3%uint64(len(stmtSizes))]})
}

var (
	digits   = regexp.MustCompile(`[0-9]+`)
	brackets = regexp.MustCompile(`\[[^\[\]]*\]`)
)

// shape is s with digits as N and brackets emptied.
func shape(s string) string {
	return brackets.ReplaceAllString(digits.ReplaceAllString(s, "N"), "[…]")
}

// Key is the key of a result's first disagreeing statement (package
// doc), and false when kernel and model agreed on everything compared.
func Key(r *probe.Result) (string, bool) {
	for _, s := range r.Stmts {
		if !s.Agree {
			return keyOf(s), true
		}
	}
	return "", false
}

func keyOf(s probe.Stmt) string {
	call, _, _ := strings.Cut(s.Text, " ")
	return fmt.Sprintf("%s: kernel %s, model %s", call, shape(s.Kernel), shape(s.Model))
}

// hasKey reports whether some disagreeing statement of r has key.
func hasKey(r *probe.Result, key string) bool {
	return slices.ContainsFunc(r.Stmts, func(s probe.Stmt) bool { return !s.Agree && keyOf(s) == key })
}

// searcher is one search's fixed parameters.
type searcher struct {
	c Config
}

func newSearcher(c Config) *searcher {
	if c.Confirm == 0 {
		c.Confirm = DefaultConfirm
	}
	if c.ShrinkTries == 0 {
		c.ShrinkTries = DefaultShrinkTries
	}
	if c.ShrinkTime == 0 {
		c.ShrinkTime = DefaultShrinkTime
	}
	if c.Probe == nil {
		opts := c.ProbeOptions
		opts.Profile = Profile
		if opts.ChildUID == 0 {
			opts.ChildUID = ChildUID
		}
		c.Probe = func(file string, src []byte) (*probe.Result, error) { return probe.Run(file, src, opts) }
	}
	return &searcher{c: c}
}

// file is the name the scenarios run under.
const file = "diff.zcs"

func (x *searcher) probe(src []byte) (*probe.Result, error) { return x.c.Probe(file, src) }

// finding confirms a disagreement and, if it is stable, shrinks it.
func (x *searcher) finding(seed uint64, src []byte, first *probe.Result, key string) (Finding, error) {
	f := Finding{Seed: seed, Key: key, Original: src, Shrunk: src}
	answers, stable, err := x.confirm(src, first, key)
	if err != nil {
		return f, err
	}
	f.Result, f.Answers, f.Stable, f.Runs = first, answers, stable, 1+x.c.Confirm
	if !stable {
		return f, nil
	}
	small := x.shrink(src, first, key)
	if small == nil {
		return f, nil
	}
	res, err := x.probe(small)
	if err != nil || !hasKey(res, key) {
		return f, err
	}
	answers, stable, err = x.confirm(small, res, key)
	if err != nil || !stable {
		return f, err
	}
	f.Shrunk, f.Result, f.Answers = small, res, answers
	return f, nil
}

// confirm runs src Confirm more times and collects the kernel's answers
// per line; the disagreement is stable when every run answered as first
// did (and so disagrees with key).
func (x *searcher) confirm(src []byte, first *probe.Result, key string) (map[int][]string, bool, error) {
	answers := map[int][]string{}
	note := func(r *probe.Result) {
		for _, s := range r.Stmts {
			if !slices.Contains(answers[s.Line], s.Kernel) {
				answers[s.Line] = append(answers[s.Line], s.Kernel)
			}
		}
	}
	note(first)
	stable := true
	for range x.c.Confirm {
		r, err := x.probe(src)
		if err != nil {
			return nil, false, err
		}
		note(r)
		stable = stable && sameKernel(first, r) && hasKey(r, key)
	}
	return answers, stable, nil
}

// sameKernel reports whether two runs of one scenario got the same
// answers from the kernel.
func sameKernel(a, b *probe.Result) bool {
	return slices.EqualFunc(a.Stmts, b.Stmts, func(s, t probe.Stmt) bool { return s.Line == t.Line && s.Kernel == t.Kernel })
}

// shrink returns the smallest scenario that still disagrees with key on
// two runs alike, or nil when nothing could be removed.
func (x *searcher) shrink(src []byte, first *probe.Result, key string) []byte {
	deadline := time.Now().Add(x.c.ShrinkTime)
	tries := 0
	small := gen.Shrink(src, func(c []byte) bool {
		if tries >= x.c.ShrinkTries || time.Now().After(deadline) {
			return false
		}
		tries++
		r1, err := x.probe(c)
		if err != nil || !hasKey(r1, key) {
			return false
		}
		r2, err := x.probe(c)
		return err == nil && sameKernel(r1, r2)
	})
	if slices.Equal(small, src) {
		return nil
	}
	return small
}
