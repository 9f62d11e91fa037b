package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/explain"
	"github.com/zcsim/zcsim/sim/interp"
)

func newExplainCmd() *cobra.Command {
	var opts interp.Options
	var step uint64
	var id uint32
	var socket string
	cmd := &cobra.Command{
		Use:   "explain FILE [--step N | --id K [--socket S]] [--profile P] [--seed N]",
		Short: "tell the story of one notification id or one step, in sentences",
		Long: `explain runs a scenario file and tells, in plain sentences, the story of one
notification id (--id): which send got it and from which uarg, every reference
the uarg's holders took and dropped (which skbs, through which shared info),
whether and why the data was copied, what dropped the last reference, why the
notification merged or not, and which error-queue read returned it; or of one
step (--step): the call or event, each object it touched with the kernel
function the model ran, and why. With neither, it tells the story of every id
the run gave, in order. Every sentence restates what the model recorded as it
decided (the timeline of zcsim run), with the words of docs/glossary.md.

--socket names the socket when sends on several sockets got the same id.

Exit status 0, or 2 when the file cannot be read or parsed, or the run has no
such id or step (the message says which ids and steps it has).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("step") && cmd.Flags().Changed("id") {
				return fail(cmd, fmt.Errorf("explain: --step and --id exclude each other"))
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return fail(cmd, err)
			}
			tr, err := interp.Run(args[0], src, opts)
			if err != nil {
				return fail(cmd, err)
			}
			var out string
			switch {
			case cmd.Flags().Changed("step"):
				out, err = explain.Step(tr, step)
			case cmd.Flags().Changed("id"):
				out, err = explain.ID(tr, socket, id)
			default:
				out, err = every(tr)
			}
			if err != nil {
				return fail(cmd, fmt.Errorf("%s: %w", args[0], err))
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), out)
			return err
		},
	}
	cmd.Flags().Uint64Var(&step, "step", 0, "explain step N")
	cmd.Flags().Uint32Var(&id, "id", 0, "explain notification id K")
	cmd.Flags().StringVar(&socket, "socket", "", "the socket of --id, when several got the id")
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "kernel profile (overrides the scenario's profile line; see zcsim profiles)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "root seed of every random stream")
	return cmd
}

// every tells the story of each id of each socket, sockets in name order,
// or says that the run gave none.
func every(tr *sim.Trace) (string, error) {
	ids := explain.IDs(tr)
	if len(ids) == 0 {
		return "The run gave no notification ids: no send took effect as a zerocopy send.\n", nil
	}
	names := make([]string, 0, len(ids))
	for name := range ids {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		for _, id := range ids[name] {
			story, err := explain.ID(tr, name, id)
			if err != nil {
				return "", err
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(story)
		}
	}
	return b.String(), nil
}
