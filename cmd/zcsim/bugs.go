package main

import (
	"bytes"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim/bugs"
)

func newBugsCmd() *cobra.Command {
	var check, brief bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "bugs [--check] [--brief] [ID]",
		Short: "list, replay or check the catalog of real kernel bugs",
		Long: `bugs lists the catalog of historical kernel bugs the model can replay: id,
profile switch, what a run with the bug must detect, and the scenario.

bugs ID replays one entry with its bug switched on and prints the narrated
timeline with every object each step touched (--brief: one line per step);
ID is a catalog id such as
B6 or the switch's name such as udp-more-refcnt.

bugs --check runs every entry twice: with the bug on it must show its
symptom (the named invariant violation, or an expectation mismatch), with
it off it must run clean. One line per entry.

Exit status: 0 when the replay ran clean or every entry behaves, 1 when a
replay found its bug or an entry misbehaves, 2 for an unknown ID.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case check && len(args) > 0:
				return fail(cmd, fmt.Errorf("zcsim bugs: --check takes no ID"))
			case check:
				return checkBugs(cmd, seed)
			case len(args) == 1:
				return replayBug(cmd, args[0], seed, !brief)
			}
			return listBugs(cmd)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "check that every entry shows its bug when on and runs clean when off")
	cmd.Flags().BoolVar(&brief, "brief", false, "one line per step, without the objects it touched")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "root seed of every random stream")
	return cmd
}

// listBugs prints the catalog as a table.
func listBugs(cmd *cobra.Command) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSWITCH\tDETECTS\tSCENARIO\tTITLE")
	for _, e := range bugs.Catalog() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Bug, e.Symptom(), "bugs/"+e.File, e.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := cmd.OutOrStdout().Write(b.Bytes())
	return err
}

// replayBug runs one entry with its bug on and prints the header and the
// timeline.
func replayBug(cmd *cobra.Command, id string, seed uint64, touched bool) error {
	e, ok := bugs.Lookup(id)
	if !ok {
		return fail(cmd, fmt.Errorf("zcsim bugs: unknown bug %q (zcsim bugs lists them)", id))
	}
	trace, err := e.Run(true, seed)
	if err != nil {
		return fail(cmd, err)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# %s: %s\n# fixed by %s; affected %s\n# switch %s on; expect a %s\n",
		e.ID, e.Title, e.Commit, e.Kernels, e.Bug, e.Symptom())
	if err := trace.WriteText(&out, touched); err != nil {
		return fail(cmd, err)
	}
	if !trace.OK() {
		setStatus(cmd, exitFindings)
	}
	_, err = cmd.OutOrStdout().Write(out.Bytes())
	return err
}

// checkBugs checks every entry both ways, one line each.
func checkBugs(cmd *cobra.Command, seed uint64) error {
	var out bytes.Buffer
	bad := 0
	for _, e := range bugs.Catalog() {
		v, err := e.Check(seed)
		if err != nil {
			return fail(cmd, err)
		}
		verdict := "ok  "
		if !v.OK {
			verdict = "FAIL"
			bad++
		}
		fmt.Fprintf(&out, "%s %-4s %-24s on: %s; off: %s\n", verdict, e.ID, e.Bug, v.On, v.Off)
	}
	fmt.Fprintf(&out, "# %d of %d entries behave\n", len(bugs.Catalog())-bad, len(bugs.Catalog()))
	if bad > 0 {
		setStatus(cmd, exitFindings)
	}
	_, err := cmd.OutOrStdout().Write(out.Bytes())
	return err
}
