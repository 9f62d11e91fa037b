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
