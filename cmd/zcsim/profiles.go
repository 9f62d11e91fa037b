package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/kernel"
)

func newProfilesCmd() *cobra.Command {
	var diff bool
	cmd := &cobra.Command{
		Use:   "profiles [--diff A B]",
		Short: "list the kernel profiles and their knobs, or what differs between two",
		Long: `profiles lists every kernel profile with the value of each knob.

profiles --diff A B prints the knobs whose values differ between profiles A
and B: the knob, its value in A, its value in B, and what the knob is and
which kernel change set it. Exit status 2 for an unknown profile.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diff && len(args) != 2 {
				return fmt.Errorf("--diff takes two profiles, got %d", len(args))
			}
			if !diff {
				return cobra.NoArgs(cmd, args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if diff {
				return diffProfiles(cmd, args[0], args[1])
			}
			return listProfiles(cmd)
		},
	}
	cmd.Flags().BoolVar(&diff, "diff", false, "show the knobs that differ between the two profiles given")
	return cmd
}

func listProfiles(cmd *cobra.Command) error {
	var b strings.Builder
	for _, p := range kernel.Profiles() {
		fmt.Fprintf(&b, "%s: %s\n", p.Name, p.Describe)
		for _, k := range kernel.Knobs() {
			v, _ := p.KnobValue(k.Name)
			fmt.Fprintf(&b, "  %-23s %s\n", k.Name, v)
		}
	}
	_, err := fmt.Fprint(cmd.OutOrStdout(), b.String())
	return err
}

func diffProfiles(cmd *cobra.Command, a, b string) error {
	pa, err := kernel.Lookup(a)
	if err != nil {
		return fail(cmd, err)
	}
	pb, err := kernel.Lookup(b)
	if err != nil {
		return fail(cmd, err)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%-23s %-22s %-22s %s\n", "KNOB", a, b, "WHAT")
	for _, d := range kernel.Diff(pa, pb) {
		fmt.Fprintf(&out, "%-23s %-22s %-22s %s\n", d.Name, d.A, d.B, d.Doc)
	}
	_, err = fmt.Fprint(cmd.OutOrStdout(), out.String())
	return err
}
