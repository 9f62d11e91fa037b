package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/bugs"
	"github.com/zcsim/zcsim/sim/explore"
)

// checkFlags are zcsim check's options.
type checkFlags struct {
	searchFlags
	profile string
	bugs    []string
	shard   string
	asJSON  bool
}

func newCheckCmd() *cobra.Command {
	var fl checkFlags
	cmd := &cobra.Command{
		Use:   "check [--profile P] [--bug ID]... [--for DURATION | --runs N] [--seed S] [--shard I/N] [--out DIR] [--keep-going] [--json]",
		Short: "run generated scenarios against the invariants and shrink what fails",
		Long: `check runs randomly generated scenarios (package sim/gen) with every invariant
on. The first line names the root seed: the same flags and seed make the same
runs, the same findings and the same files (docs/check.md).

With no --bug, the bugs the profile carries by default are switched off, so a
violation is a defect of the model; --bug ID (a catalog id or switch name, see
zcsim bugs) switches that bug on, and may be repeated. Without --profile each
seed draws one of the profiles.

A failing run (a violation, a panic, or a run over its budget of steps, a
hang) is shrunk to a minimal scenario that fails the same way and written to
DIR/<invariant>-<seed>.zcs with a header saying the profile, the bug switches,
the seed and the failure. A run in which no step ends for a minute of wall
time is written unshrunk as a timeout, which depends on the machine. Without --keep-going the search stops there; with
it, it goes on and writes each distinct failure once.

The budget is --runs N runs or --for DURATION of wall time (default 1m).
--shard I/N runs only the seeds congruent to I mod N, so N processes split
the work. On a terminal a progress line is rewritten in place. --json prints
JSON Lines instead (docs/cli.md): a config record, one record per finding, a
summary.

Exit status 0 when the budget ran out with nothing found, 1 when something was
found, 2 for bad usage or a findings file that cannot be written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := fl.config(cmd)
			if err != nil {
				return fail(cmd, fmt.Errorf("zcsim check: %w", err))
			}
			return runCheck(cmd, fl, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.profile, "profile", "", "kernel profile of every run (default: each seed draws one)")
	f.StringArrayVar(&fl.bugs, "bug", nil, "switch this catalogued bug on (repeatable)")
	fl.register(f, "finding")
	f.StringVar(&fl.shard, "shard", "0/1", "run only the seeds congruent to I mod N")
	f.BoolVar(&fl.asJSON, "json", false, "print JSON Lines")
	return cmd
}

// config checks the flags and turns them into the driver's Config.
func (fl *checkFlags) config(cmd *cobra.Command) (explore.Config, error) {
	if err := fl.check(cmd); err != nil {
		return explore.Config{}, err
	}
	c := explore.Config{Profile: fl.profile, Runs: fl.runs, KeepGoing: fl.keepGoing, Seed: fl.seed}
	var err error
	if c.Bugs, err = lookupBugs(fl.bugs); err != nil {
		return c, err
	}
	i, n, ok := strings.Cut(fl.shard, "/")
	si, err1 := strconv.ParseUint(i, 10, 64)
	sn, err2 := strconv.ParseUint(n, 10, 64)
	if !ok || err1 != nil || err2 != nil || sn == 0 || si >= sn {
		return c, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", fl.shard)
	}
	c.Shard, c.Shards = si, sn
	return c, c.Validate()
}

// lookupBugs returns the switches of the catalogued bugs --bug named,
// each by its catalog id or its switch's name (bugs.Lookup).
func lookupBugs(ids []string) ([]kernel.Bug, error) {
	var out []kernel.Bug
	for _, id := range ids {
		e, ok := bugs.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("--bug %q: unknown bug (zcsim bugs lists them)", id)
		}
		out = append(out, e.Bug)
	}
	return out, nil
}

// checkConfig is the config record of check's JSON Lines.
type checkConfig struct {
	Schema  int      `json:"schema"`
	Command string   `json:"command"`
	Seed    uint64   `json:"seed"`
	Profile string   `json:"profile,omitempty"`
	Bugs    []string `json:"bugs,omitempty"`
	Off     []string `json:"off,omitempty"`
	Shard   string   `json:"shard"`
	Runs    int      `json:"runs,omitempty"`
	For     string   `json:"for,omitempty"`
}

// findingRecord is one finding in JSON.
type findingRecord struct {
	Seed      uint64   `json:"seed"`
	Run       int      `json:"run"`
	Profile   string   `json:"profile"`
	Bugs      []string `json:"bugs,omitempty"`
	Off       []string `json:"off,omitempty"`
	Kind      string   `json:"failure"`
	Rule      string   `json:"rule"`
	Message   string   `json:"message"`
	Key       string   `json:"key"`
	File      string   `json:"file"`
	Lines     int      `json:"lines"`
	Generated int      `json:"generated_lines"`
	Replays   bool     `json:"replays"`
}

// runCheck runs the search and reports it.
func runCheck(cmd *cobra.Command, fl checkFlags, c explore.Config) error {
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	j := &jsonWriter{w: out}
	off := defaultOff(c)
	if fl.asJSON {
		j.record("config", checkConfig{Schema: sim.SchemaVersion, Command: "check", Seed: c.Seed, Profile: c.Profile,
			Bugs: names(c.Bugs), Off: off, Shard: fl.shard, Runs: c.Runs, For: durationFlag(fl.forTime)})
	} else {
		fmt.Fprintln(out, checkHeadline(c, fl.shard, off))
	}
	out.Flush()
	c.Stop = fl.stop()
	line := &progressLine{out: out, tty: !fl.asJSON && isTerminal(cmd.OutOrStdout())}
	c.Progress = func(p explore.Progress) {
		line.show("%d runs, %.0f runs/s, %d distinct failures, %v", p.Runs,
			float64(p.Runs)/p.Elapsed.Seconds(), p.Distinct, p.Elapsed.Round(time.Second))
	}
	sum, err := explore.Run(c, func(f explore.Finding) error {
		path, err := fl.write(f.Name(), f.File())
		if err != nil {
			return err
		}
		line.clear()
		if fl.asJSON {
			j.record("finding", findingRecord{Seed: f.Seed, Run: f.Run, Profile: f.Profile, Bugs: names(f.Bugs), Off: names(f.Off),
				Kind: f.Kind, Rule: f.Rule, Message: f.Message, Key: f.Key, File: path,
				Lines: strings.Count(string(f.Shrunk), "\n"), Generated: strings.Count(string(f.Original), "\n"), Replays: f.Replays})
		} else {
			fmt.Fprintf(out, "FOUND at run %d (seed %d, %s): %s\n  shrunk from %d to %d lines: %s\n", f.Run, f.Seed, f.Profile, f.Message,
				strings.Count(string(f.Original), "\n"), strings.Count(string(f.Shrunk), "\n"), path)
		}
		return out.Flush()
	})
	line.clear()
	if err != nil {
		out.Flush()
		return fail(cmd, fmt.Errorf("zcsim check: %w", err))
	}
	if fl.asJSON {
		j.record("summary", struct {
			Runs     int  `json:"runs"`
			Findings int  `json:"findings"`
			OK       bool `json:"ok"`
		}{sum.Runs, sum.Findings, sum.Findings == 0})
		if j.err != nil {
			return j.err
		}
	} else {
		fl.summary(out, sum.Elapsed, "# %d runs, %d distinct failures", sum.Runs, sum.Findings)
	}
	if sum.Findings > 0 {
		setStatus(cmd, exitFindings)
	}
	return out.Flush()
}

// checkHeadline is the first line: the root seed and what is switched.
func checkHeadline(c explore.Config, shard string, off []string) string {
	profile := c.Profile
	if profile == "" {
		profile = "drawn per seed"
	}
	on := "none"
	if len(c.Bugs) > 0 {
		on = strings.Join(names(c.Bugs), ", ")
	}
	offText := "none carried by the profile"
	if len(off) > 0 {
		offText = strings.Join(off, ", ") + " (the profile's default)"
	}
	line := fmt.Sprintf("# zcsim check: root seed %d; profile %s; bugs on: %s; switched off: %s", c.Seed, profile, on, offText)
	if shard != "0/1" {
		line += "; shard " + shard
	}
	return line
}

// defaultOff lists the bugs the chosen profiles carry by default that the
// search switches off.
func defaultOff(c explore.Config) []string {
	var out []string
	seen := map[kernel.Bug]bool{}
	for _, p := range kernel.Profiles() {
		if c.Profile != "" && p.Name != c.Profile {
			continue
		}
		for _, b := range p.Bugs.Sorted() {
			if !seen[b] && !slices.Contains(c.Bugs, b) {
				seen[b] = true
				out = append(out, string(b))
			}
		}
	}
	return out
}

func names(bs []kernel.Bug) []string {
	var out []string
	for _, b := range bs {
		out = append(out, string(b))
	}
	return out
}

func durationFlag(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
