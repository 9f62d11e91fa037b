package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim/replay"
)

func newReplayCmd() *cobra.Command {
	var opts replay.Options
	var file string
	var asJSON bool
	var bugIDs []string
	cmd := &cobra.Command{
		Use:   "replay [--strace] FILE... [--profile P] [--bug ID]... [--json] [--cap-ipc-lock] [--cap-net-admin] [--optmem-max N] [--memlock N] [--mtu N]",
		Short: "replay an strace log on the model and report where the kernel and the model differ",
		Long: `replay reads an strace log of a real program (FILE, or --strace FILE: the
two are the same) and replays its socket calls on
the model, predicting every return value and every error-queue read from the
model alone; the log's results are used only for comparison. Each
divergence is reported with its line, the call, the observed and the
predicted result and the model's reason. Traced sockets use loopback; the
traced task has no CAP_IPC_LOCK unless --cap-ipc-lock, and no CAP_NET_ADMIN
(which SO_SNDBUFFORCE and SO_RCVBUFFORCE need) unless --cap-net-admin: give
both for a program traced as root. What the log shows of the machine (a
limit read back, a result only a capability allows, geteuid() = 0) sets
what these flags leave unset, and the report's header says so, with the
line; a flag given overrides it. FILE may be gzipped (FILE.gz). Several
FILEs are the files of strace -ff -o PREFIX (PREFIX.PID), merged in time
order (they need -tt or -ttt). The report
streams out as the replay runs; a log of a million calls replays in
bounded memory. Between two calls
the network settles, unless the log has timestamps (-t, -tt, -ttt, -r):
then virtual time advances by the real gap.

The model's invariants are checked after every step, and once more at the
end of the log, the network settled (leaks, accounting, every id
notified); each broken one is reported with its rule, object, message and
the line during which it broke. --bug ID (a catalog id such as B6 or a
switch name such as udp-more-refcnt, see zcsim bugs; repeatable) switches
that historical kernel bug on, to reproduce it from a log; the report's
header lists the bugs on. See docs/replay.md.

Exit status 0 when some call agrees (plainly or under an assumption), none
diverges and no invariant broke, 1 on a divergence, an invariant
violation, or when nothing could be checked, 2 for unreadable or malformed
input (file:line:col) or an unknown --bug, before anything is printed.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := args
			switch {
			case len(args) > 0 && file != "":
				return fail(cmd, fmt.Errorf("replay: give the log once, as FILE or as --strace FILE, not both"))
			case file != "":
				files = []string{file}
			case len(args) == 0:
				return fail(cmd, fmt.Errorf("replay: no strace log: zcsim replay FILE"))
			}
			bs, err := lookupBugs(bugIDs)
			if err != nil {
				return fail(cmd, fmt.Errorf("replay: %w", err))
			}
			opts.Bugs = bs
			for flag, f := range map[string]replay.Fixed{"cap-ipc-lock": replay.FixCapIPCLock, "cap-net-admin": replay.FixCapNetAdmin, "memlock": replay.FixMemlock} {
				if cmd.Flags().Changed(flag) {
					opts.Fixed |= f
				}
			}
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			opts.Out = replay.NewTextWriter(out)
			if asJSON {
				opts.Out = replay.NewJSONWriter(out)
			}
			// The report streams to stdout; when it goes to a file, a
			// terminal on stderr shows how far the replay got.
			errw := bufio.NewWriter(cmd.ErrOrStderr())
			line := &progressLine{out: errw, tty: isTerminal(cmd.ErrOrStderr()) && !isTerminal(cmd.OutOrStdout())}
			opts.Progress = func(at, lines int) {
				if lines == 0 {
					line.show("replay: checking line %d", at)
				} else {
					line.show("replay: line %d of %d", at, lines)
				}
			}
			rep, err := replay.ReplayFiles(files, opts)
			line.clear()
			errw.Flush()
			if ferr := out.Flush(); err == nil {
				err = ferr
			}
			if err != nil {
				return fail(cmd, err)
			}
			if !rep.OK() {
				setStatus(cmd, exitFindings)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "strace", "", "the strace log to replay (the same as giving FILE)")
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "kernel profile (default linux-6.18; see zcsim profiles)")
	cmd.Flags().StringArrayVar(&bugIDs, "bug", nil, "switch this catalogued bug on (repeatable; see zcsim bugs)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().BoolVar(&opts.CapIPCLock, "cap-ipc-lock", false, "the traced task has CAP_IPC_LOCK")
	cmd.Flags().BoolVar(&opts.CapNetAdmin, "cap-net-admin", false, "the traced task has CAP_NET_ADMIN")
	cmd.Flags().IntVar(&opts.OptmemMax, "optmem-max", 0, "net.core.optmem_max (default: the profile's)")
	cmd.Flags().IntVar(&opts.MTU, "mtu", 0, "the loopback MTU the program ran with (ip link set lo mtu N; default 65536)")
	cmd.Flags().Uint64Var(&opts.Memlock, "memlock", 0, "the traced task's RLIMIT_MEMLOCK at the start, in bytes (default: what the log reads back, else the profile's)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "root seed of every random stream")
	return cmd
}
