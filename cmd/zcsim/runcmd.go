package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/picture"
	"github.com/zcsim/zcsim/sim/scenario"
)

func newRunCmd() *cobra.Command {
	var opts interp.Options
	var asJSON, brief bool
	var pics pictures
	var family string
	var bugIDs []string
	cmd := &cobra.Command{
		Use:   "run [--profile P] [--bug ID]... [--seed N] [--json] [--brief] FILE...",
		Short: "run scenario files and print what the kernel did",
		Long: `run executes each scenario file on a fresh simulated machine and prints its
timeline: every step with its virtual time and what it did, and under it every
object the step touched with what happened to it (references taken and
dropped, refcounts, charges); --brief prints one line per step. --json prints
JSON Lines instead: a config record, one record per event, violations,
mismatches and a summary (docs/cli.md). --json wins over --brief: JSON
records always carry every object a step touched, so the two together print
what --json alone does. --bug ID (a catalog id such as B6 or a switch name,
repeatable; zcsim bugs lists them) switches a catalogued kernel bug on in
addition to the file's bug statements, as zcsim check prints for a finding.

--html, --mermaid and --perfetto (for one FILE) also draw the run into a file:
a self-contained HTML page with a lane per object and the step list beside it
(hover or click a step to see what it touched and why), a Mermaid sequence
diagram, or a Chrome trace-event file for ui.perfetto.dev (docs/cli.md).

Exit status 0 when every expectation and invariant held, 1 on a mismatch or
violation, 2 when a file cannot be read or parsed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			// Every file is read and resolved before any runs: a bad file
			// means no output at all. Then the records stream out as the
			// run makes them, so memory stays flat however long the run.
			out := bufio.NewWriter(cmd.OutOrStdout())
			defer out.Flush()
			f, err := scenario.ParseFamily(family)
			if err != nil {
				return fail(cmd, fmt.Errorf("run: --family: %w", err))
			}
			opts.Family = f
			if opts.Bugs, err = lookupBugs(bugIDs); err != nil {
				return fail(cmd, fmt.Errorf("run: %w", err))
			}
			if pics.any() {
				if len(files) != 1 {
					return fail(cmd, fmt.Errorf("run: --html, --mermaid and --perfetto draw one FILE, not %d", len(files)))
				}
				return pics.run(cmd, out, files[0], opts, asJSON, brief)
			}
			if asJSON {
				opts.Sink = sim.NewJSONSink(out)
			} else {
				opts.Sink = sim.NewTextSink(out, !brief)
			}
			var loaded []*interp.Scenario
			for _, f := range files {
				sc, err := loadScenario(f, opts)
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
	cmd.Flags().StringArrayVar(&bugIDs, "bug", nil, "switch this catalogued bug on (repeatable; see zcsim bugs)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().StringVar(&family, "family", "inet", "run IPv4 TCP and UDP sockets as written (inet), as IPv6 (inet6) or as IPv6 with v4-mapped peers (mapped)")
	cmd.Flags().BoolVar(&brief, "brief", false, "one line per step, without the objects it touched (ignored with --json)")
	cmd.Flags().StringVar(&pics.html, "html", "", "also draw the run as a self-contained HTML page into `OUT.html`")
	cmd.Flags().StringVar(&pics.mermaid, "mermaid", "", "also draw the run as a Mermaid sequence diagram into `OUT.mmd`")
	cmd.Flags().StringVar(&pics.perfetto, "perfetto", "", "also write the run as a Chrome trace-event file (Perfetto) into `OUT.json`")
	return cmd
}

// pictures are the files run draws besides its timeline.
type pictures struct{ html, mermaid, perfetto string }

func (p pictures) any() bool { return p.html != "" || p.mermaid != "" || p.perfetto != "" }

// run runs one scenario keeping its whole trace, prints the timeline as
// run does, and draws each picture asked for.
func (p pictures) run(cmd *cobra.Command, out *bufio.Writer, file string, opts interp.Options, asJSON, brief bool) error {
	sc, err := loadScenario(file, opts)
	if err != nil {
		return fail(cmd, err)
	}
	trace := sc.Run()
	if asJSON {
		err = trace.WriteJSON(out)
	} else {
		err = trace.WriteText(out, !brief)
	}
	if err != nil {
		return fail(cmd, err)
	}
	for _, pic := range []struct {
		path  string
		write func(io.Writer, *sim.Trace) error
	}{{p.html, picture.WriteHTML}, {p.mermaid, picture.WriteMermaid}, {p.perfetto, picture.WritePerfetto}} {
		if pic.path == "" {
			continue
		}
		if err := writeFile(pic.path, trace, pic.write); err != nil {
			return fail(cmd, err)
		}
	}
	if !trace.OK() {
		setStatus(cmd, exitFindings)
	}
	return out.Flush()
}

// writeFile draws the trace into the file at path.
func writeFile(path string, tr *sim.Trace, write func(io.Writer, *sim.Trace) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w, tr)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
