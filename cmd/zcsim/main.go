// Command zcsim runs MSG_ZEROCOPY scenarios on the simulated kernel and
// prints what the kernel did, step by step.
//
// Exit status: 0 when every expectation and invariant held, 1 when a run
// found a mismatch or a violation, 2 for usage or input errors.
package main

import (
	"fmt"
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
	diag := &countingWriter{w: stderr}
	root := newRoot(stdout, diag)
	if len(args) == 0 {
		root.SetOut(diag)
		root.Usage()
		return exitUsage
	}
	root.SetArgs(args)
	status := exitOK
	root.SetContext(withStatus(&status))
	if err := root.Execute(); err != nil {
		if diag.n == 0 { // an argument error cobra did not print
			fmt.Fprintf(diag, "zcsim: %v\n", err)
		}
		return exitUsage
	}
	return status
}

// countingWriter counts what it writes, so run knows whether an error was
// already reported.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
