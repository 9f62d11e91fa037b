package main

import (
	"bytes"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim/bugs"
)

func newBugsCmd() *cobra.Command {
	var verify, brief, asJSON bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "bugs [--verify] [--brief] [--json] [ID]",
		Short: "list, replay or verify the catalog of real kernel bugs",
		Long: `bugs lists the catalog of historical kernel bugs the model can replay: id,
profile switch, what a run with the bug must detect, and the scenario. The
scenario paths are relative to the repository root: from there, zcsim run
PATH runs one as printed, with the bug off (but Z1, whose profile is the
unmerged series as posted, bug included).

bugs ID replays one entry with its bug switched on and prints the narrated
timeline with every object each step touched (--brief: one line per step);
ID is a catalog id such as B6 or the switch's name such as udp-more-refcnt.

bugs --verify runs every entry twice: with the bug on it must show its
symptom (the named invariant violation, or an expectation mismatch), with
it off it must run clean. One line per entry; an entry without a scenario
is skipped and says why.

--json prints JSON Lines instead (docs/cli.md): for the list and --verify a
config record, one record per entry and a summary; for bugs ID the trace,
as zcsim run --json prints it. With --json, --brief changes nothing.

Exit status: 0 when the replay ran clean or every entry behaves, 1 when a
replay found its bug or an entry misbehaves, 2 for an unknown ID or an entry
without a scenario.`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeBugs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case verify && len(args) > 0:
				return fail(cmd, fmt.Errorf("zcsim bugs: --verify takes no ID"))
			case verify:
				return verifyBugs(cmd, seed, asJSON)
			case len(args) == 1:
				return replayBug(cmd, args[0], seed, !brief, asJSON)
			}
			return listBugs(cmd, asJSON)
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", false, "verify that every entry shows its bug when on and runs clean when off")
	cmd.Flags().BoolVar(&brief, "brief", false, "one line per step, without the objects it touched (ignored with --json)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "root seed of every random stream")
	return cmd
}

// bugRecord is one catalog entry in JSON.
type bugRecord struct {
	ID        string `json:"id"`
	Switch    string `json:"switch"`
	Detects   string `json:"detects"`
	Scenario  string `json:"scenario,omitempty"`
	Elsewhere string `json:"elsewhere,omitempty"`
	Title     string `json:"title"`
	Commit    string `json:"commit"`
	Kernels   string `json:"kernels"`
}

// scenarioColumn is what the list prints for an entry's scenario.
func scenarioColumn(e bugs.Entry) string {
	if e.File == "" {
		return "none (zcsim bugs " + e.ID + " says why)"
	}
	return e.Path()
}

// listBugs prints the catalog as a table, or as JSON Lines.
func listBugs(cmd *cobra.Command, asJSON bool) error {
	var b bytes.Buffer
	cat := bugs.Catalog()
	if asJSON {
		j := &jsonWriter{w: &b}
		j.config(header{Command: "bugs"})
		for _, e := range cat {
			j.record("bug", bugRecord{ID: e.ID, Switch: string(e.Bug), Detects: e.Symptom(), Scenario: e.Path(),
				Elsewhere: e.Elsewhere, Title: e.Title, Commit: e.Commit, Kernels: e.Kernels})
		}
		j.record("summary", struct {
			Entries int `json:"entries"`
		}{len(cat)})
		if j.err != nil {
			return j.err
		}
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSWITCH\tDETECTS\tSCENARIO\tTITLE")
		for _, e := range cat {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Bug, e.Symptom(), scenarioColumn(e), e.Title)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := cmd.OutOrStdout().Write(b.Bytes())
	return err
}

// replayBug runs one entry with its bug on and prints the header and the
// timeline, or the trace as JSON Lines.
func replayBug(cmd *cobra.Command, id string, seed uint64, touched, asJSON bool) error {
	e, ok := bugs.Lookup(id)
	if !ok {
		return fail(cmd, fmt.Errorf("zcsim bugs: unknown bug %q (zcsim bugs lists them)", id))
	}
	trace, err := e.Run(true, seed)
	if err != nil {
		return fail(cmd, err)
	}
	var out bytes.Buffer
	if asJSON {
		err = trace.WriteJSON(&out)
	} else {
		fmt.Fprintf(&out, "# %s: %s\n# fixed by %s; affected %s\n# switch %s on; expect a %s\n",
			e.ID, e.Title, e.Commit, e.Kernels, e.Bug, e.Symptom())
		err = trace.WriteText(&out, touched)
	}
	if err != nil {
		return fail(cmd, err)
	}
	if !trace.OK() {
		setStatus(cmd, exitFindings)
	}
	_, err = cmd.OutOrStdout().Write(out.Bytes())
	return err
}

// verifyRecord is one entry's verdict in JSON.
type verifyRecord struct {
	ID      string      `json:"id"`
	Switch  string      `json:"switch"`
	OK      bool        `json:"ok"`
	Skipped string      `json:"skipped,omitempty"`
	On      *bugs.Tally `json:"on,omitempty"`
	Off     *bugs.Tally `json:"off,omitempty"`
}

// verifyBugs runs every entry both ways, one line or record each.
func verifyBugs(cmd *cobra.Command, seed uint64, asJSON bool) error {
	var out bytes.Buffer
	j := &jsonWriter{w: &out}
	if asJSON {
		j.config(header{Command: "bugs --verify", Seed: seed})
	}
	cat := bugs.Catalog()
	bad, skipped := 0, 0
	for _, e := range cat {
		v, err := e.Check(seed)
		if err != nil {
			return fail(cmd, err)
		}
		verdict := "ok  "
		switch {
		case v.Skipped != "":
			verdict = "skip"
			skipped++
		case !v.OK:
			verdict = "FAIL"
			bad++
		}
		switch {
		case asJSON && v.Skipped != "":
			j.record("verify", verifyRecord{ID: e.ID, Switch: string(e.Bug), Skipped: v.Skipped})
		case asJSON:
			j.record("verify", verifyRecord{ID: e.ID, Switch: string(e.Bug), OK: v.OK, On: &v.On, Off: &v.Off})
		case v.Skipped != "":
			fmt.Fprintf(&out, "%s %-4s %-24s no scenario: %s\n", verdict, e.ID, e.Bug, v.Skipped)
		default:
			fmt.Fprintf(&out, "%s %-4s %-24s on: %s; off: %s\n", verdict, e.ID, e.Bug, v.On, v.Off)
		}
	}
	verified := len(cat) - skipped
	if asJSON {
		j.record("summary", struct {
			Entries int  `json:"entries"`
			Behave  int  `json:"behave"`
			Skipped int  `json:"skipped"`
			OK      bool `json:"ok"`
		}{len(cat), verified - bad, skipped, bad == 0})
		if j.err != nil {
			return j.err
		}
	} else {
		fmt.Fprintf(&out, "# %d of %d entries with a scenario behave; %d without a scenario skipped\n", verified-bad, verified, skipped)
	}
	if bad > 0 {
		setStatus(cmd, exitFindings)
	}
	_, err := cmd.OutOrStdout().Write(out.Bytes())
	return err
}
