// Command zcsim runs MSG_ZEROCOPY scenarios on the simulated kernel and
// prints what the kernel did, step by step.
//
// Exit status: 0 when every expectation and invariant held, 1 when a run
// found a mismatch or a violation, 2 for usage or input errors, 3 for an
// internal error (a bug in zcsim, never in the input).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

func main() {
	tuneGC()
	// The command never writes a heap profile, so it does not sample
	// one (a stack trace through the interpreter every 512 KiB
	// allocated).
	runtime.MemProfileRate = 0
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is the garbage collector's target the command runs with when
// GOGC does not say otherwise. The model carves its objects from slabs
// that never reuse memory and keeps a small live heap, so at Go's default
// of 100 it collects every few hundred sends; at 200 it collects half as
// often, for 20–35% less CPU per send and a heap at most three times the
// live one: a million sends stay under 70 MB (docs/performance.md).
const gcPercent = 200

// tuneGC sets the collector's target to gcPercent unless GOGC is set.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

// Exit statuses.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	exitInternal = 3
)

// run executes the command line args, writing data to stdout and
// diagnostics to stderr, and returns the exit status. A panic anywhere
// below is an internal error: it is reported as one (see reportPanic),
// never as bad input.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			reportPanic(stderr, args, v, debug.Stack())
			status = exitInternal
		}
	}()
	diag := &countingWriter{w: stderr}
	root := newRoot(stdout, diag)
	if len(args) == 0 {
		root.SetOut(diag)
		root.Usage()
		return exitUsage
	}
	root.SetArgs(args)
	status = exitOK
	root.SetContext(withStatus(&status))
	if err := root.Execute(); err != nil {
		if diag.n == 0 { // an argument error cobra did not print
			fmt.Fprintf(diag, "zcsim: %v\n", err)
		}
		return exitUsage
	}
	return status
}

// reportPanic tells the user that zcsim, not the input, is at fault, and
// what a report needs: the command line (which names the files and the
// seed), the files themselves, the version, the panic and its stack.
func reportPanic(w io.Writer, args []string, v any, stack []byte) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			quoted[i] = strconv.Quote(a)
		}
	}
	fmt.Fprintf(w, `zcsim: internal error: this is a bug in zcsim, not in your input.
Please report it with:
  the command line: zcsim %s
  the seed: the --seed value above (1 when none is given)
  the scenario or log files it names, attached
  this version: %s
panic: %v

%s`, strings.Join(quoted, " "), versionLine(debug.ReadBuildInfo()), v, stack)
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
