package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/bugs"
)

// completeProfiles completes a kernel profile name, with its description.
func completeProfiles(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, p := range kernel.Profiles() {
		if strings.HasPrefix(p.Name, prefix) {
			out = append(out, p.Name+"\t"+p.Describe)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeProfileArgs completes the two profiles of profiles --diff.
func completeProfileArgs(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if diff, _ := cmd.Flags().GetBool("diff"); !diff || len(args) >= 2 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeProfiles(cmd, args, prefix)
}

// completeBugs completes the one ID of zcsim bugs: a catalog id (matched
// without regard to case, as Lookup does) or a switch name, with the
// entry's title.
func completeBugs(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, e := range bugs.Catalog() {
		if strings.HasPrefix(strings.ToLower(e.ID), strings.ToLower(prefix)) {
			out = append(out, e.ID+"\t"+e.Title)
		}
		if prefix != "" && strings.HasPrefix(string(e.Bug), prefix) {
			out = append(out, string(e.Bug)+"\t"+e.ID+": "+e.Title)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
