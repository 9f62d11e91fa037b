package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

type statusKey struct{}

func withStatus(status *int) context.Context {
	return context.WithValue(context.Background(), statusKey{}, status)
}

// setStatus records the worst exit status a command found.
func setStatus(cmd *cobra.Command, s int) {
	p := cmd.Context().Value(statusKey{}).(*int)
	*p = max(*p, s)
}

// newRoot builds the command tree.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "zcsim",
		Short: "a simulator of Linux MSG_ZEROCOPY semantics",
		Long: `zcsim replays MSG_ZEROCOPY send paths on a model of the Linux kernel and shows
which id each send gets, which skb holds which reference, when and why each
notification arrives, why it says COPIED, and why a send fails with ENOBUFS.

Data goes to standard output, diagnostics to standard error. Every command
with --json prints JSON Lines (docs/cli.md): a config record with the schema
version first, one record per item, a summary last. With --json, --brief
changes nothing: JSON records are always complete.

Exit status: 0 when every expectation and invariant held, 1 when a run found
a mismatch or a violation, 2 for usage or input errors (file:line:col), 3 for
an internal error: a bug in zcsim, reported with what to attach to a report.`,
		Version:       versionLine(debug.ReadBuildInfo()),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("zcsim {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintf(stderr, "zcsim: %v\n", err)
		return err
	})
	root.AddCommand(newRunCmd(), newExplainCmd(), newProfilesCmd(), newReplayCmd(), newProbeCmd(), newBugsCmd(), newCheckCmd(), newDiffCmd(), newSweepCmd())
	root.AddCommand(newImportCmd(), newExportCmd())
	for _, cmd := range root.Commands() {
		if cmd.Flags().Lookup("profile") != nil {
			// Cannot fail: the flag exists and has no completion yet.
			_ = cmd.RegisterFlagCompletionFunc("profile", completeProfiles)
		}
	}
	return root
}

// fail prints an input error and returns it, for exit status 2.
func fail(cmd *cobra.Command, err error) error {
	fmt.Fprintln(cmd.ErrOrStderr(), err)
	return err
}
