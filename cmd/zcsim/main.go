// Command zcsim runs MSG_ZEROCOPY scenarios on the simulated kernel and
// prints what the kernel did, step by step.
//
// Exit status: 0 when every expectation and invariant held, 1 when a run
// found a mismatch or a violation, 2 for usage or input errors.
package main

import (
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// run executes the command line args, writing data to stdout and
// diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	status := exitOK
	root.SetContext(withStatus(&status))
	if err := root.Execute(); err != nil {
		return exitUsage
	}
	return status
}
