package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/kernel"
)

func newProfilesCmd() *cobra.Command {
	var diff, asJSON bool
	cmd := &cobra.Command{
		Use:   "profiles [--json] [--diff A B]",
		Short: "list the kernel profiles and their knobs, or what differs between two",
		Long: `profiles lists every kernel profile with the value of each knob.

profiles --diff A B prints the knobs whose values differ between profiles A
and B: the knob, its value in A, its value in B, and what the knob is and
which kernel change set it.

--json prints JSON Lines (docs/cli.md): a config record, one "profile"
record per profile (with --diff, one "knob" record per differing knob) and
a summary. Exit status 2 for an unknown profile.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diff && len(args) != 2 {
				return fmt.Errorf("--diff takes two profiles, got %d", len(args))
			}
			if !diff {
				return cobra.NoArgs(cmd, args)
			}
			return nil
		},
		ValidArgsFunction: completeProfileArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if diff {
				return diffProfiles(cmd, args[0], args[1], asJSON)
			}
			return listProfiles(cmd, asJSON)
		},
	}
	cmd.Flags().BoolVar(&diff, "diff", false, "show the knobs that differ between the two profiles given")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	return cmd
}

// knobValue is one knob of a profile in JSON.
type knobValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func listProfiles(cmd *cobra.Command, asJSON bool) error {
	var b strings.Builder
	j := &jsonWriter{w: &b}
	if asJSON {
		j.config(header{Command: "profiles"})
	}
	profiles := kernel.Profiles()
	for _, p := range profiles {
		var knobs []knobValue
		if !asJSON {
			fmt.Fprintf(&b, "%s: %s\n", p.Name, p.Describe)
		}
		for _, k := range kernel.Knobs() {
			v, _ := p.KnobValue(k.Name)
			knobs = append(knobs, knobValue{k.Name, v})
			if !asJSON {
				fmt.Fprintf(&b, "  %-23s %s\n", k.Name, v)
			}
		}
		if asJSON {
			j.record("profile", struct {
				Name     string      `json:"name"`
				Describe string      `json:"describe"`
				Knobs    []knobValue `json:"knobs"`
			}{p.Name, p.Describe, knobs})
		}
	}
	if asJSON {
		j.record("summary", struct {
			Profiles int `json:"profiles"`
		}{len(profiles)})
		if j.err != nil {
			return j.err
		}
	}
	_, err := fmt.Fprint(cmd.OutOrStdout(), b.String())
	return err
}

func diffProfiles(cmd *cobra.Command, a, b string, asJSON bool) error {
	pa, err := kernel.Lookup(a)
	if err != nil {
		return fail(cmd, err)
	}
	pb, err := kernel.Lookup(b)
	if err != nil {
		return fail(cmd, err)
	}
	var out strings.Builder
	diffs := kernel.Diff(pa, pb)
	if asJSON {
		j := &jsonWriter{w: &out}
		j.config(header{Command: "profiles --diff", A: a, B: b})
		for _, d := range diffs {
			j.record("knob", struct {
				Name string `json:"name"`
				A    string `json:"a"`
				B    string `json:"b"`
				Doc  string `json:"doc"`
			}{d.Name, d.A, d.B, d.Doc})
		}
		j.record("summary", struct {
			Differ int `json:"differ"`
		}{len(diffs)})
		if j.err != nil {
			return j.err
		}
	} else {
		fmt.Fprintf(&out, "%-23s %-22s %-22s %s\n", "KNOB", a, b, "WHAT")
		for _, d := range diffs {
			fmt.Fprintf(&out, "%-23s %-22s %-22s %s\n", d.Name, d.A, d.B, d.Doc)
		}
	}
	_, err = fmt.Fprint(cmd.OutOrStdout(), out.String())
	return err
}
