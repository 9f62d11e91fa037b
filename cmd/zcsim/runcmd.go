package main

import (
	"bufio"
	"os"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
)

func newRunCmd() *cobra.Command {
	var opts interp.Options
	var asJSON, brief bool
	cmd := &cobra.Command{
		Use:   "run [--profile P] [--seed N] [--json] [--brief] FILE...",
		Short: "run scenario files and print what the kernel did",
		Long: `run executes each scenario file on a fresh simulated machine and prints its
timeline: every step with its virtual time and what it did, and under it every
object the step touched with what happened to it (references taken and
dropped, refcounts, charges); --brief prints one line per step. --json prints
JSON Lines instead: a config record, one record per event, violations,
mismatches and a summary (docs/cli.md). --json wins over --brief: JSON
records always carry every object a step touched, so the two together print
what --json alone does.

Exit status 0 when every expectation and invariant held, 1 on a mismatch or
violation, 2 when a file cannot be read or parsed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			// Every file is read and resolved before any runs: a bad file
			// means no output at all. Then the records stream out as the
			// run makes them, so memory stays flat however long the run.
			out := bufio.NewWriter(cmd.OutOrStdout())
			defer out.Flush()
			if asJSON {
				opts.Sink = sim.NewJSONSink(out)
			} else {
				opts.Sink = sim.NewTextSink(out, !brief)
			}
			var loaded []*interp.Scenario
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					return fail(cmd, err)
				}
				sc, err := interp.Load(f, src, opts)
				if err != nil {
					return fail(cmd, err)
				}
				loaded = append(loaded, sc)
			}
			for _, sc := range loaded {
				trace := sc.Run()
				if err := trace.Err(); err != nil {
					out.Flush()
					return fail(cmd, err)
				}
				if !trace.OK() {
					setStatus(cmd, exitFindings)
				}
			}
			return out.Flush()
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "kernel profile (overrides the scenario's profile line; see zcsim profiles)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "root seed of every random stream")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().BoolVar(&brief, "brief", false, "one line per step, without the objects it touched (ignored with --json)")
	return cmd
}
