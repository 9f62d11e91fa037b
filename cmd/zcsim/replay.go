package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim/replay"
)

func newReplayCmd() *cobra.Command {
	var opts replay.Options
	var file string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay [--strace] FILE [--profile P] [--json] [--cap-ipc-lock] [--cap-net-admin] [--optmem-max N]",
		Short: "replay an strace log on the model and report where the kernel and the model differ",
		Long: `replay reads an strace log of a real program (FILE, or --strace FILE: the
two are the same) and replays its socket calls on
the model, predicting every return value and every error-queue read from the
model alone; the log's results are used only for comparison. Each
divergence is reported with its line, the call, the observed and the
predicted result and the model's reason. Traced sockets use loopback; the
traced task has no CAP_IPC_LOCK unless --cap-ipc-lock, and no CAP_NET_ADMIN
(which SO_SNDBUFFORCE and SO_RCVBUFFORCE need) unless --cap-net-admin: give
both for a program traced as root. Between two calls
the network settles, unless the log has timestamps (-t, -tt, -ttt, -r):
then virtual time advances by the real gap. See docs/replay.md.

Exit status 0 when every call agrees, 1 on a divergence, 2 for unreadable or
malformed input (file:line:col).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && file != "":
				return fail(cmd, fmt.Errorf("replay: give the log once, as FILE or as --strace FILE, not both"))
			case len(args) == 1:
				file = args[0]
			case file == "":
				return fail(cmd, fmt.Errorf("replay: no strace log: zcsim replay FILE"))
			}
			rep, err := replay.ReplayFile(file, opts)
			if err != nil {
				return fail(cmd, err)
			}
			var out bytes.Buffer
			if asJSON {
				err = rep.WriteJSON(&out)
			} else {
				err = rep.WriteText(&out)
			}
			if err != nil {
				return fail(cmd, err)
			}
			if !rep.OK() {
				setStatus(cmd, exitFindings)
			}
			_, err = cmd.OutOrStdout().Write(out.Bytes())
			return err
		},
	}
	cmd.Flags().StringVar(&file, "strace", "", "the strace log to replay (the same as giving FILE)")
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "kernel profile (default linux-6.18; see zcsim profiles)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().BoolVar(&opts.CapIPCLock, "cap-ipc-lock", false, "the traced task has CAP_IPC_LOCK")
	cmd.Flags().BoolVar(&opts.CapNetAdmin, "cap-net-admin", false, "the traced task has CAP_NET_ADMIN")
	cmd.Flags().IntVar(&opts.OptmemMax, "optmem-max", 0, "net.core.optmem_max (default: the profile's)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "root seed of every random stream")
	return cmd
}
