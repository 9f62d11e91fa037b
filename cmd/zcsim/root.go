package main

import (
	"context"
	"fmt"
	"io"

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
notification arrives, why it says COPIED, and why a send fails with ENOBUFS.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintf(stderr, "zcsim: %v\n", err)
		return err
	})
	root.AddCommand(newRunCmd(), newProfilesCmd(), newReplayCmd(), newProbeCmd(), newBugsCmd())
	return root
}

// fail prints an input error and returns it, for exit status 2.
func fail(cmd *cobra.Command, err error) error {
	fmt.Fprintln(cmd.ErrOrStderr(), err)
	return err
}
