package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// searchFlags are the budget and output flags of the searching commands,
// zcsim check and zcsim diff.
type searchFlags struct {
	forTime   time.Duration
	runs      int
	seed      uint64
	out       string
	keepGoing bool
}

// register adds the flags; what names what --keep-going goes on after.
func (fl *searchFlags) register(f *pflag.FlagSet, what string) {
	f.DurationVar(&fl.forTime, "for", 0, "search for this long (default 1m unless --runs)")
	f.IntVar(&fl.runs, "runs", 0, "search this many runs")
	f.Uint64Var(&fl.seed, "seed", 0, "root seed (default: from the clock, printed first)")
	f.StringVar(&fl.out, "out", "zcsim-findings", "directory the shrunk reproducers are written to")
	f.BoolVar(&fl.keepGoing, "keep-going", false, "go on after a "+what+"; write each distinct one once")
}

// check refuses exclusive or absurd budgets, draws the root seed from the
// clock when --seed is not given, and makes the default budget 1m.
func (fl *searchFlags) check(cmd *cobra.Command) error {
	changed := cmd.Flags().Changed
	if !changed("seed") {
		fl.seed = uint64(time.Now().UnixNano()) % 1_000_000_000
	}
	switch {
	case changed("for") && changed("runs"):
		return fmt.Errorf("--for and --runs are exclusive")
	case fl.runs < 0 || changed("runs") && fl.runs == 0:
		return fmt.Errorf("--runs %d: want a positive count", fl.runs)
	case fl.forTime < 0 || changed("for") && fl.forTime == 0:
		return fmt.Errorf("--for %v: want a positive duration", fl.forTime)
	case fl.out == "":
		return fmt.Errorf("--out: want a directory")
	}
	if !changed("runs") && fl.forTime == 0 {
		fl.forTime = time.Minute
	}
	return nil
}

// stop is the search's Stop for --for, or nil.
func (fl *searchFlags) stop() func() bool {
	if fl.forTime == 0 {
		return nil
	}
	end := time.Now().Add(fl.forTime)
	return func() bool { return time.Now().After(end) }
}

// write puts a finding's file into the --out directory and returns its
// path.
func (fl *searchFlags) write(name string, body []byte) (string, error) {
	path := filepath.Join(fl.out, name)
	if err := os.MkdirAll(fl.out, 0o755); err != nil {
		return path, err
	}
	return path, os.WriteFile(path, body, 0o644)
}

// progressLine is a search's progress line: on a terminal it is
// rewritten in place at most every 250ms and cleared before a finding is
// printed; elsewhere it prints nothing.
type progressLine struct {
	out   *bufio.Writer
	tty   bool
	shown time.Time
}

// show rewrites the line with what format says.
func (p *progressLine) show(format string, args ...any) {
	if p.tty && time.Since(p.shown) >= 250*time.Millisecond {
		p.shown = time.Now()
		fmt.Fprintf(p.out, "\r\033[K"+format, args...)
		p.out.Flush()
	}
}

// clear erases the line.
func (p *progressLine) clear() {
	if p.tty {
		fmt.Fprint(p.out, "\r\033[K")
	}
}

// summary prints a search's last line: what format says and, under
// --for, how long the search took.
func (fl *searchFlags) summary(out io.Writer, elapsed time.Duration, format string, args ...any) {
	fmt.Fprintf(out, format, args...)
	if fl.forTime > 0 {
		fmt.Fprintf(out, " in %v", elapsed.Round(time.Millisecond))
	}
	fmt.Fprintln(out)
}
