package explore

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/gen"
	"github.com/zcsim/zcsim/sim/interp"
)

// Defaults of Config's zero budget fields.
const (
	DefaultMaxSteps   = 200000
	DefaultStallTime  = time.Minute
	DefaultShrinkTime = 10 * time.Minute
)

// stmtSizes are the statement bounds the runs cycle through.
var stmtSizes = [...]int{20, 40, 80, 150}

// Config says what to search.
type Config struct {
	// Profile is the kernel profile of every run; empty cycles through
	// kernel.Profiles() with the seed.
	Profile string
	// Bugs are switched on in every run (and written into the scenarios).
	Bugs []kernel.Bug
	// Seed is the root seed: run k uses seed Seed+k.
	Seed uint64
	// Shard and Shards select the seeds ≡ Shard (mod Shards); Shards 0 or
	// 1 runs every seed.
	Shard, Shards uint64
	// Runs bounds the runs of this shard; 0 is no bound.
	Runs int
	// Stop, if set, is polled before each run; true ends the search.
	Stop func() bool
	// KeepGoing searches on after a finding, reporting each distinct Key
	// once.
	KeepGoing bool
	// MaxSteps bounds one run (a hang). StallTime and ShrinkTime are
	// wall-time guards of last resort, which a run or a shrink reaches only
	// when something is broken: a run in which no step ends for StallTime
	// is abandoned (a timeout), and a shrink that lasts longer than
	// ShrinkTime stops where it got (Finding.ShrinkCut). Zero means the
	// Default.
	MaxSteps   int
	StallTime  time.Duration
	ShrinkTime time.Duration
	// Progress, if set, is called after each run.
	Progress func(Progress)
}

// Progress is how far a search got.
type Progress struct {
	Runs     int
	Distinct int
	Elapsed  time.Duration
}

// Summary is the result of a search.
type Summary struct {
	// Runs is how many scenarios ran, shrinking runs not counted.
	Runs int
	// Findings is how many distinct failures were reported.
	Findings int
	// Elapsed is the wall time of the search.
	Elapsed time.Duration
}

// Finding is one distinct failure, shrunk.
type Finding struct {
	// Seed made the scenario and seeded its run; Run is its index among
	// the runs of the search (0-based).
	Seed uint64
	Run  int
	// Profile, Bugs and Off are the run's profile, the bugs switched on,
	// and the profile's default bugs switched off.
	Profile string
	Bugs    []kernel.Bug
	Off     []kernel.Bug
	// Kind is "violation", "panic", "hang" or "timeout"; Rule the invariant's name
	// ("refcount"), or the kind for the others; Message
	// the failure as first seen.
	Kind    string
	Rule    string
	Message string
	// Key is what makes two failures the same (package doc).
	Key string
	// Original is the generated scenario, Shrunk its minimal form.
	Original, Shrunk []byte
	// Replays says that zcsim run --seed Seed replays Shrunk to the same
	// failure (false where that needs a default bug switched off, or for
	// a timeout, which is not shrunk).
	Replays bool
	// ShrinkCut says that the shrink was stopped by its wall-time guard
	// (Config.ShrinkTime), so that Shrunk may not be minimal.
	ShrinkCut bool
}

// Name is the finding's file name: "<rule>-<seed>.zcs", the rule as its
// short name ("refcount"), or "panic", "hang" or "timeout".
func (f Finding) Name() string {
	slug := f.Kind
	if f.Kind == "violation" {
		slug = f.Rule
	}
	return fmt.Sprintf("%s-%d.zcs", slug, f.Seed)
}

// File is the reproducer: a header comment (what failed, the profile, the
// bug switches, the seed, how to replay it) and the shrunk scenario.
func (f Finding) File() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# zcsim check: %s\n", oneLine(f.Message))
	fmt.Fprintf(&b, "# profile: %s; bugs on: %s; switched off: %s\n", f.Profile, bugList(f.Bugs), bugList(f.Off))
	fmt.Fprintf(&b, "# seed: %d; shrunk from %d to %d lines\n", f.Seed, lineCount(f.Original), lineCount(f.Shrunk))
	if f.ShrinkCut {
		b.WriteString("# shrinking was stopped by its wall-time guard: smaller files may fail the same way\n")
	}
	switch {
	case f.Kind == "timeout":
		fmt.Fprintf(&b, "# replay: a timeout depends on the machine; zcsim check --seed %d --runs 1 runs it again\n", f.Seed)
	case f.Replays:
		fmt.Fprintf(&b, "# replay: zcsim run --seed %d FILE\n", f.Seed)
	default:
		fmt.Fprintf(&b, "# replay: zcsim run --seed %d FILE does not show it: it needs %s switched off (zcsim check --seed %d --runs 1)\n",
			f.Seed, bugList(f.Off), f.Seed)
	}
	b.Write(f.Shrunk)
	return []byte(b.String())
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func bugList(bs []kernel.Bug) string {
	if len(bs) == 0 {
		return "none"
	}
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = string(b)
	}
	return strings.Join(names, ", ")
}

func lineCount(src []byte) int {
	return strings.Count(strings.TrimSuffix(string(src), "\n"), "\n") + 1
}

// Validate reports the first problem of a Config: an unknown profile or
// bug, a shard out of range, a negative budget.
func (c Config) Validate() error {
	if c.Profile != "" {
		if _, err := kernel.Lookup(c.Profile); err != nil {
			return err
		}
	}
	known := kernel.KnownBugs()
	for _, b := range c.Bugs {
		if !slices.Contains(known, b) {
			return fmt.Errorf("unknown bug %q (zcsim bugs lists them)", b)
		}
	}
	switch {
	case c.Shards > 1 && c.Shard >= c.Shards:
		return fmt.Errorf("shard %d/%d: the shard must be below the count", c.Shard, c.Shards)
	case c.Shards <= 1 && c.Shard != 0:
		return fmt.Errorf("shard %d/%d: the count must be above the shard", c.Shard, c.Shards)
	case c.Runs < 0 || c.MaxSteps < 0 || c.StallTime < 0 || c.ShrinkTime < 0:
		return fmt.Errorf("negative budget")
	}
	return nil
}

// Run searches as c says and hands each finding to found, in the order
// they are found; an error from found ends the search with that error. A
// Config that Validate refuses runs nothing and returns its error.
func Run(c Config, found func(Finding) error) (Summary, error) {
	if err := c.Validate(); err != nil {
		return Summary{}, err
	}
	x := newExplorer(c)
	start := time.Now()
	var sum Summary
	seen := map[string]bool{}
	for seed := x.first(); c.Runs == 0 || sum.Runs < c.Runs; seed += x.stride() {
		if c.Stop != nil && c.Stop() {
			break
		}
		src, opts, profile := x.scenario(seed)
		fails := x.attempt(src, opts)
		sum.Runs++
		if len(fails) > 0 && !seen[fails[0].key] {
			seen[fails[0].key] = true
			f := x.finding(seed, profile, src, opts, fails[0])
			f.Run = sum.Runs - 1
			sum.Findings++
			if err := found(f); err != nil {
				sum.Elapsed = time.Since(start)
				return sum, err
			}
			if !c.KeepGoing || fails[0].abandoned {
				break
			}
		}
		if c.Progress != nil {
			c.Progress(Progress{Runs: sum.Runs, Distinct: sum.Findings, Elapsed: time.Since(start)})
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// explorer is one search's fixed parameters.
type explorer struct {
	c        Config
	profiles []string
}

func newExplorer(c Config) *explorer {
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.StallTime == 0 {
		c.StallTime = DefaultStallTime
	}
	if c.ShrinkTime == 0 {
		c.ShrinkTime = DefaultShrinkTime
	}
	x := &explorer{c: c}
	for _, p := range kernel.Profiles() {
		x.profiles = append(x.profiles, p.Name)
	}
	return x
}

// first is the shard's first seed at or after the root seed.
func (x *explorer) first() uint64 {
	if x.c.Shards <= 1 {
		return x.c.Seed
	}
	return x.c.Seed + (x.c.Shard+x.c.Shards-x.c.Seed%x.c.Shards)%x.c.Shards
}

func (x *explorer) stride() uint64 { return max(x.c.Shards, 1) }

// scenario generates seed's scenario and the Options of its run.
func (x *explorer) scenario(seed uint64) ([]byte, interp.Options, string) {
	profile := x.c.Profile
	if profile == "" {
		profile = x.profiles[seed%uint64(len(x.profiles))]
	}
	names := make([]string, len(x.c.Bugs))
	for i, b := range x.c.Bugs {
		names[i] = string(b)
	}
	cfg := gen.Config{Profile: profile, Stmts: stmtSizes[seed/4%uint64(len(stmtSizes))], Bugs: names}
	return gen.Scenario(seed, cfg), interp.Options{Seed: seed, Bugs: x.c.Bugs, Off: x.off(profile)}, profile
}

// off lists the bugs profile carries by default that c.Bugs does not ask
// for.
func (x *explorer) off(profile string) []kernel.Bug {
	p, err := kernel.Lookup(profile)
	if err != nil {
		return nil // Validate and kernel.Profiles name only known profiles
	}
	var out []kernel.Bug
	for _, b := range p.Bugs.Sorted() {
		if !slices.Contains(x.c.Bugs, b) {
			out = append(out, b)
		}
	}
	return out
}

// finding shrinks a run's first failure. The profile and bug statements
// stay as they are (so the file replays under the same switches) and the
// rest shrinks.
func (x *explorer) finding(seed uint64, profile string, src []byte, opts interp.Options, first failure) Finding {
	f := Finding{Seed: seed, Profile: profile, Bugs: x.c.Bugs, Off: opts.Off, Kind: first.kind, Rule: first.rule,
		Message: first.message, Key: first.key, Original: src, Shrunk: src}
	if first.abandoned {
		return f
	}
	asRun := interp.Options{Seed: seed}
	f.Replays = len(opts.Off) == 0 || x.has(src, asRun, first.key)
	config, body := splitConfig(src)
	deadline := time.Now().Add(x.c.ShrinkTime)
	body = gen.Shrink(body, func(c []byte) bool {
		c = append(config[:len(config):len(config)], c...)
		if f.ShrinkCut = f.ShrinkCut || time.Now().After(deadline); f.ShrinkCut || !x.has(c, opts, first.key) {
			return false
		}
		return !f.Replays || len(opts.Off) == 0 || x.has(c, asRun, first.key)
	})
	f.Shrunk = append(config, body...)
	return f
}

// splitConfig separates the profile and bug statements of a generated
// scenario from the rest.
func splitConfig(src []byte) (config, body []byte) {
	for _, line := range strings.SplitAfter(string(src), "\n") {
		if strings.HasPrefix(line, "profile ") || strings.HasPrefix(line, "bug ") {
			config = append(config, line...)
		} else {
			body = append(body, line...)
		}
	}
	return config, body
}

// has reports whether a run of src shows a failure with key (an
// abandoned run does not count: it cannot be told apart from a slow one).
func (x *explorer) has(src []byte, opts interp.Options, key string) bool {
	for _, f := range x.attempt(src, opts) {
		if f.key == key && !f.abandoned {
			return true
		}
	}
	return false
}

// failure is one way a run failed.
type failure struct {
	kind, rule, message, key string
	abandoned                bool
}

// maxViolations bounds the violations a run's failures keep.
const maxViolations = 64

// attempt runs src and returns its failures: its violations in trace
// order, or a panic or hang (after the violations before it), or a
// timeout when no step ends for StallTime.
func (x *explorer) attempt(src []byte, opts interp.Options) []failure {
	s := &sink{maxSteps: x.c.MaxSteps}
	s.lastStep.Store(time.Now().UnixNano())
	opts.Sink = s
	done := make(chan []failure, 1)
	go func() {
		var ended *failure
		defer func() {
			if v := recover(); v != nil {
				ended = crash(v)
			}
			out := s.fails
			if ended != nil {
				out = append(out, *ended)
			}
			done <- out
		}()
		if _, err := interp.Run("gen.zcs", src, opts); err != nil {
			ended = &failure{kind: "panic", rule: "input", message: "generated scenario rejected: " + err.Error()}
			ended.key = keyOf(ended.rule, ended.message)
		}
	}()
	t := time.NewTimer(x.c.StallTime)
	defer t.Stop()
	for {
		select {
		case out := <-done:
			return out
		case <-t.C:
			idle := time.Since(time.Unix(0, s.lastStep.Load()))
			if idle < x.c.StallTime {
				t.Reset(x.c.StallTime - idle)
				continue
			}
			msg := fmt.Sprintf("timeout: no step ended for %v of wall time after step %d (the wall-time guard, which depends on the machine: a step that never returns, or a machine too loaded to run one)",
				x.c.StallTime, s.steps.Load())
			return []failure{{kind: "timeout", rule: "timeout", message: msg, key: "timeout", abandoned: true}}
		}
	}
}

// hangSignal is what the sink panics with when a run is over budget.
type hangSignal struct{ message string }

// crash turns a recovered panic into a failure.
func crash(v any) *failure {
	if h, ok := v.(hangSignal); ok {
		return &failure{kind: "hang", rule: "hang", message: h.message, key: "hang"}
	}
	frame := panicFrame()
	msg := fmt.Sprintf("panic in %s: %v", frame, v)
	return &failure{kind: "panic", rule: "panic", message: msg, key: keyOf("panic", msg)}
}

// panicFrame names the function that panicked: on the recovering
// goroutine's stack, the first frame below runtime.gopanic that is not
// the runtime's own (runtime.panicmem, runtime.sigpanic…).
func panicFrame() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	below := false
	for {
		fr, more := frames.Next()
		fn := fr.Function
		switch {
		case fn == "runtime.gopanic":
			below = true
		case below && !strings.HasPrefix(fn, "runtime."):
			return fn[strings.LastIndexByte(fn, '/')+1:]
		}
		if !more {
			return "?"
		}
	}
}

// sink keeps a run's violations and enforces its budget, and tells
// attempt's guard when the last step ended.
type sink struct {
	maxSteps int
	steps    atomic.Int64
	lastStep atomic.Int64 // Unix nanoseconds
	fails    []failure
}

// Put implements sim.Sink.
func (s *sink) Put(r *sim.Record) error {
	switch {
	case r.Event != nil:
		s.lastStep.Store(time.Now().UnixNano())
		if s.steps.Add(1) > int64(s.maxSteps) {
			panic(hangSignal{fmt.Sprintf("hang: over %d steps", s.maxSteps)})
		}
	case r.Violation != nil && len(s.fails) < maxViolations:
		v := r.Violation
		msg := fmt.Sprintf("invariant %s: %s: %s", v.Rule, v.Object, v.Message)
		s.fails = append(s.fails, failure{kind: "violation", rule: v.Rule, message: msg, key: keyOf(v.Rule, v.Object+": "+v.Message)})
	}
	return nil
}

var (
	digits   = regexp.MustCompile(`[0-9]+`)
	brackets = regexp.MustCompile(`\[[^\[\]]*\]`)
)

// keyOf is rule and the shape of msg: digits as N, brackets emptied.
func keyOf(rule, msg string) string {
	return rule + ": " + brackets.ReplaceAllString(digits.ReplaceAllString(msg, "N"), "[…]")
}
