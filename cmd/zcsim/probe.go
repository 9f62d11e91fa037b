package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/probe"
)

func newProbeCmd() *cobra.Command {
	var opts probe.Options
	var asJSON, child bool
	cmd := &cobra.Command{
		Use:   "probe [--profile P] [--json] FILE...",
		Short: "run scenarios on the host kernel and diff them against the model",
		Long: `probe runs each scenario file twice: on the host's kernel, through real sockets
on loopback in a private network namespace (root needed; Linux only), and on
the model (linux-6.18 unless --profile). It prints, statement by statement,
what the kernel answered and what the model predicted. The implicit peer of a
socket is a real socket on 127.0.0.1 (::1): an accepted TCP connection, a
bound UDP socket or a RAW socket of the same protocol. Scenarios that set
RLIMIT_MEMLOCK or drop CAP_IPC_LOCK run as uid 65534 without capabilities. sysctl net.core.optmem_max is set in the
private namespace only. The host's net.core.rmem_max, wmem_max, rmem_default
and wmem_default are global, the namespace's too: the model runs with the
host's values, named on the header line where they differ from the profile's.

The kernel runs what real sockets can do on loopback: socket (via= a
loopback device), setsockopt, getsockopt, connect, listen, accept, send,
sendto, sendmsg,
sendmmsg, recvmsg, recv, poll, shutdown, close, setrlimit/capdrop of task main,
settle, wait, and sysctl net.core.optmem_max or net.ipv4.tcp_fastopen before
the first socket. Every
other statement is skipped, on a "skip" line saying why, and so is what it
makes incomparable: everything later on a socket whose path was held,
dropped or renumbered, or that goes through a device the host does not have
(a nic, a tun, a tapped device). A statement that reaches every socket
(fault, capset, repeat, another sysctl, an accept on a socket not compared)
stops the comparison: a "stop" line,
and nothing after it is compared. A file written for another profile is
compared, but the kernel is not held to its expectations.

--json prints JSON Lines (docs/cli.md): per file a config record, a "stmt"
or "skip" record per statement, and a summary.

Exit status 0 when the kernel and the model agree on everything compared
(and the kernel meets every expectation it is held to), 1 otherwise, 2 for
unreadable input or a system other than Linux.`,
		RunE: func(cmd *cobra.Command, files []string) error {
			if child {
				if code := probe.Child(os.Stdin, cmd.OutOrStdout()); code != 0 {
					setStatus(cmd, code)
				}
				return nil
			}
			if len(files) == 0 {
				return fail(cmd, fmt.Errorf("probe: no scenario files"))
			}
			opts.ChildArgs = []string{"probe", "--child"}
			var out bytes.Buffer
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					return fail(cmd, err)
				}
				res, err := probe.Run(f, src, opts)
				if err != nil {
					return fail(cmd, err)
				}
				if asJSON {
					err = res.WriteJSON(&out)
				} else {
					err = res.WriteText(&out)
				}
				if err != nil {
					return fail(cmd, err)
				}
				if !res.OK() {
					setStatus(cmd, exitFindings)
				}
			}
			_, err := cmd.OutOrStdout().Write(out.Bytes())
			return err
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "the model's kernel profile (default linux-6.18)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().BoolVar(&child, "child", false, "internal: run as the unprivileged probe child")
	cmd.Flags().MarkHidden("child")
	return cmd
}
