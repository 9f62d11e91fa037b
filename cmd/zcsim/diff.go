package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/probe"
	"github.com/zcsim/zcsim/probe/diff"
)

// diffFlags are zcsim diff's options.
type diffFlags struct {
	searchFlags
	shrinkTime time.Duration
}

func newDiffCmd() *cobra.Command {
	var fl diffFlags
	cmd := &cobra.Command{
		Use:   "diff [--for DURATION | --runs N] [--seed S] [--out DIR] [--keep-going] [--shrink-time D]",
		Short: "run generated scenarios on the host kernel and the model and shrink what differs",
		Long: `diff runs randomly generated scenarios that a real host can run (loopback
sockets and their peers in a private network namespace, package sim/gen's host
mode) on the live kernel, through the probe, and on the model under
linux-6.18, and compares their answers statement by statement. It needs root
and a kernel with MSG_ZEROCOPY on loopback, and says so when it has neither.
The first line names the root seed: the same seed makes the same scenarios and
the same model answers (docs/check.md).

A disagreement is believed only when the kernel gives the same answers on
every one of several runs; one that changes across runs is reported as
"unstable on the kernel" and not shrunk: its kernel result depends on timing.
A stable one is shrunk to the smallest scenario that still disagrees the same
way on two runs alike (at most 300 candidates, or --shrink-time, default 3m)
and written to DIR/diff-<seed>.zcs (unstable ones to
DIR/unstable-<seed>.zcs), the kernel's and the model's answers side by side
after each statement, under a header that says what differed. Without
--keep-going the search stops at the first stable disagreement; with it, it
goes on and writes each distinct one once.

The budget is --runs N runs or --for DURATION of wall time (default 1m). On a
terminal a progress line is rewritten in place.

Exit status 0 when the budget ran out with no stable disagreement, 1 when one
was found, 2 for bad usage, a host that cannot run it, or a findings file that
cannot be written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := fl.config(cmd)
			if err != nil {
				return fail(cmd, fmt.Errorf("zcsim diff: %w", err))
			}
			if err := diffHost(); err != nil {
				return fail(cmd, err)
			}
			return runDiff(cmd, fl, c)
		},
	}
	fl.register(cmd.Flags(), "disagreement")
	cmd.Flags().DurationVar(&fl.shrinkTime, "shrink-time", diff.DefaultShrinkTime, "how long one shrink may take")
	return cmd
}

// config checks the flags and turns them into the driver's Config.
func (fl *diffFlags) config(cmd *cobra.Command) (diff.Config, error) {
	if err := fl.check(cmd); err != nil {
		return diff.Config{}, err
	}
	if fl.shrinkTime <= 0 {
		return diff.Config{}, fmt.Errorf("--shrink-time %v: want a positive duration", fl.shrinkTime)
	}
	c := diff.Config{Runs: fl.runs, KeepGoing: fl.keepGoing, Seed: fl.seed, ShrinkTime: fl.shrinkTime,
		ProbeOptions: probe.Options{ChildArgs: []string{"probe", "--child"}}}
	return c, c.Validate()
}

// diffHost says why this host cannot run zcsim diff, or nil.
func diffHost() error {
	if os.Geteuid() != 0 {
		return errors.New("zcsim diff: needs root, for private network namespaces and its unprivileged runs; run it as root")
	}
	if err := probe.Supported(); err != nil {
		return fmt.Errorf("zcsim diff: this kernel cannot be probed: %w", err)
	}
	return nil
}

// runDiff runs the search and reports it.
func runDiff(cmd *cobra.Command, fl diffFlags, c diff.Config) error {
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	fmt.Fprintf(out, "# zcsim diff: root seed %d; the live kernel against the model under %s\n", c.Seed, diff.Profile)
	out.Flush()
	c.Stop = fl.stop()
	line := &progressLine{out: out, tty: isTerminal(cmd.OutOrStdout())}
	c.Progress = func(p diff.Progress) {
		line.show("%d runs, %.1f runs/s, %d stable and %d unstable disagreements, %v", p.Runs,
			float64(p.Runs)/p.Elapsed.Seconds(), p.Stable, p.Unstable, p.Elapsed.Round(time.Second))
	}
	sum, err := diff.Run(c, func(f diff.Finding) error {
		path, err := fl.write(f.Name(), f.File())
		if err != nil {
			return err
		}
		line.clear()
		verdict := "DIFFERS"
		if !f.Stable {
			verdict = "unstable on the kernel"
		}
		fmt.Fprintf(out, "%s at run %d (seed %d): %s\n  %d of %d lines: %s\n", verdict, f.Run, f.Seed, f.Key,
			strings.Count(string(f.Shrunk), "\n"), strings.Count(string(f.Original), "\n"), path)
		return out.Flush()
	})
	line.clear()
	if err != nil {
		out.Flush()
		return fail(cmd, fmt.Errorf("zcsim diff: %w", err))
	}
	fl.summary(out, sum.Elapsed, "# %d runs (%d timed out), %d statements compared, %d stable and %d unstable disagreements",
		sum.Runs, sum.TimedOut, sum.Compared, sum.Stable, sum.Unstable)
	if sum.Stable > 0 {
		setStatus(cmd, exitFindings)
	}
	return out.Flush()
}
