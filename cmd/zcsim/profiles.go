package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/kernel"
)

func newProfilesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profiles",
		Short: "list the kernel profiles and their knobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var b strings.Builder
			for _, p := range kernel.Profiles() {
				fmt.Fprintf(&b, "%s: %s\n", p.Name, p.Describe)
				for _, kv := range knobs(p) {
					fmt.Fprintf(&b, "  %-22s %s\n", kv[0], kv[1])
				}
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), b.String())
			return err
		},
	}
}

// knobs lists a profile's knobs in declaration order, name and value.
func knobs(p *kernel.Profile) [][2]string {
	v := reflect.ValueOf(*p)
	t := v.Type()
	var out [][2]string
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		if name == "Name" || name == "Describe" {
			continue
		}
		val := fmt.Sprint(v.Field(i).Interface())
		if name == "Bugs" {
			val = fmt.Sprint(p.Bugs.Sorted())
		}
		out = append(out, [2]string{name, val})
	}
	return out
}
