// Package interp is the scenario front end: it runs a scenario file
// (package scenario) on a fresh sim.World, one statement at a time, and
// checks each statement's expectation against what the simulated kernel
// returned.
//
// # Model
//
// Run first parses the whole file and resolves it: every name a statement
// uses (user, task, device, socket, fault site, bug, sysctl key) must be
// defined by an earlier statement, and every size must be one the kernel
// accepts. A file with any such error is reported whole, as a
// scenario.ErrorList naming file:line:col, and nothing runs.
//
// Then each statement becomes one step of the World: a system call
// (World.Send, Recvmsg, …) or a control step (Control: set-up, hold,
// drop, complete, wait, settle). A call's result is compared with the
// statement's `=>` outcome; an unmet one is a Mismatch record at that
// step. A call that could never return (a blocking send with nothing left
// in the network to wake it) is the mismatch "it blocks forever".
//
// A repeat (scenario.Repeat) runs its body once an iteration: the body
// the parser made, each statement instantiated (scenario.Instantiate) at
// the loop variables' values as it runs, never unrolled, so memory does
// not grow with the count. Resolving checks a body's names once; a
// socket, accept, user, task, device or tap statement inside a repeat is
// an input error, as it would define its name again every iteration. The
// sizes a body's expressions come to are checked at every iteration that
// gives them a value of their own (each iteration of a repeat whose
// variable the body names), before anything runs; the error names the
// expression and the iteration, "[i=41]". A step made inside a repeat
// that names a variable has the source "file:line [i=41]", outermost
// variable first, and its call text starts with the same "[i=41]".
//
// After the last statement the network settles and the invariants that
// hold only at quiescence are checked (World.CheckQuiescent); then the
// program exits (World.Exit closes every open socket), the network
// settles again and the quiescent checks run once more, so nothing but
// user memory may be left. The last record is the Summary.
//
// # Determinism
//
// The same file, Options and seed give the same trace, byte for byte.
package interp
