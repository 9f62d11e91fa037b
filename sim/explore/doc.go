// Package explore is the search driver of zcsim check: it runs scenarios
// that package sim/gen generates, with every invariant on, and turns each
// failure into a minimal reproducer.
//
//	sum, err := explore.Run(explore.Config{Profile: "linux-6.18", Seed: 7, Runs: 1000},
//		func(f explore.Finding) error { return os.WriteFile(f.Name(), f.File(), 0o644) })
//
// # Runs
//
// Run k (k = 0, 1, 2, …) uses the seed Seed+k; with Shards N > 1 only the
// seeds congruent to Shard mod N run, so N drivers given the same root
// seed and the shards 0 … N−1 split one sequence of seeds between them
// without overlap. A run is
//
//	gen.Scenario(seed, gen.Config{Profile: p, Stmts: stmts(seed), Bugs: Bugs})
//	interp.Run(file, src, interp.Options{Seed: seed, Bugs: Bugs, Off: Off(p)})
//
// where p is Config.Profile, or kernel.Profiles()[seed mod len(kernel.Profiles())] when it is
// empty, stmts(seed) cycles through 20, 40, 80 and 150 statements with
// ⌊seed/4⌋ mod 4 (short and long files alike), and Off(p) is the bugs
// profile p carries by default that Bugs does not name: with no bug
// asked for, a failure is a defect of the model, not a catalogued bug.
// The outcome of a run is a function of its seed and the Config alone.
//
// # Failures
//
// A run fails when it reports a violation (the first one, in trace
// order), panics (recovered; the panic value and the innermost frame
// outside the runtime), or exceeds its budget of MaxSteps steps, counted
// as each step is recorded (a hang: deterministic, shrunk like a
// violation). The only wall-time limit on a run is a guard of last
// resort: a run in which no step ends for StallTime (a step that never
// returns, which no step count can see) is abandoned, its goroutine left
// to itself, and reported as a timeout that is not shrunk, whose message
// says that it depends on the machine; the search stops after it. A
// step takes microseconds, so no load makes a sound run reach it.
// Expectation mismatches are not failures: generated expect statements
// guess.
//
// Each failure has a Key: its kind and rule and its message with every
// run of digits replaced by "N" and the contents of brackets elided, so
// that "skb#112 … frags 2" and "skb#6 … frags 0" are one failure. The
// first failure with a new Key is shrunk with gen.Shrink, keeping a
// candidate when one of its failures has the same Key (run with the same
// Options; where profile p carries bugs by default, also run as zcsim run
// replays the file, without Off, so that the file replays to the same
// failure; if the unshrunk scenario does not, Replays is false and only
// the first condition is kept). Without KeepGoing the search stops at the
// first finding; with it, at the end of the budget, and each distinct Key
// is reported once.
//
// # Budget
//
// Runs bounds the number of runs (of this shard); Stop, polled before
// each run, ends the search early (the CLI's --for). With neither, Run
// searches until it finds something. One run is bounded by MaxSteps
// (DefaultMaxSteps), one shrink by gen.MaxShrinkTries candidates. Behind
// them, StallTime (DefaultStallTime) guards a run and ShrinkTime
// (DefaultShrinkTime) a shrink: past it, every further candidate is
// refused, the smallest scenario so far is the result, and the Finding
// says so (ShrinkCut, and a line of its file's header).
//
// # Determinism
//
// For a given Config and Runs, the runs, their findings, the shrunk
// scenarios and the Summary's counts are the same on every machine and
// every execution, whatever the machine's load; only the wall time, Stop
// and the two guards (a timeout, a ShrinkCut), each reported as such,
// depend on the clock.
package explore
