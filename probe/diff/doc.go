// Package diff is the search driver of zcsim diff: it runs scenarios that
// package sim/gen writes for a real host (gen.Config.Host) on the live
// kernel and on the model, through package probe, and turns each stable
// disagreement into a minimal scenario that shows it.
//
//	sum, err := diff.Run(diff.Config{Seed: 7, Runs: 100},
//		func(f diff.Finding) error { return os.WriteFile(f.Name(), f.File(), 0o644) })
//
// # Runs
//
// Run k (k = 0, 1, 2, …) uses the seed Seed+k:
//
//	gen.Scenario(seed, gen.Config{Profile: "linux-6.18", Host: true, Stmts: stmts(seed)})
//	probe.Run(file, src, Config.Probe)
//
// where stmts(seed) cycles through 20, 40 and 80 statements with
// ⌊seed/3⌋ mod 3. Every statement of such a scenario is one the probe's
// kernel run executes (a loopback socket and its peer in a private
// network namespace, uid ChildUID without capabilities when it drops
// CAP_IPC_LOCK or sets RLIMIT_MEMLOCK), so nothing is left out of the
// comparison. The scenario and the model's answers are a function of
// the seed alone; the kernel's are what the host answered. A run that a
// bound of the live run ended early (probe.Result.TimedOut: a call the
// watchdog woke, statements past the run's time) compares what it
// reached, and Summary.TimedOut counts it.
//
// # Disagreements and the kernel's timing
//
// A run disagrees when a compared statement got a different answer from
// the kernel than from the model. Its Key is the first such statement's
// call and the two answers with every run of digits replaced by "N" and
// the contents of brackets elided: "recv: kernel N, model N" and
// "recvmsg: kernel zerocopy […], model -N EAGAIN" are two keys.
//
// The live kernel is not deterministic: loopback completes a send inside
// the call, but an ACK, a delayed ACK or a socket's memory accounting can
// fall on either side of the next statement. Before a disagreement is
// believed, the scenario runs Confirm more times: if the kernel gave the
// same answers to every compared statement every time, the disagreement
// is stable, a fact about the model; otherwise it is unstable on the
// kernel, reported as such (Finding.Stable false, with each answer the
// kernel gave) and not shrunk — a scenario whose kernel result depends on
// timing says nothing about the model.
//
// # Shrinking
//
// A stable disagreement is shrunk with gen.Shrink, keeping a candidate
// when its run shows a disagreement with the same Key and a second run
// gives the kernel's same answers again. Every candidate costs two live
// runs, so a shrink is bounded by ShrinkTries candidates and ShrinkTime
// of wall time; past either, the smallest scenario so far is the
// result. The result is confirmed like the original (Confirm more runs);
// if it proves unstable, the finding keeps the unshrunk scenario.
//
// Without KeepGoing the search stops at the first stable disagreement;
// with it, it goes on to the end of the budget and reports each distinct
// Key once, stable or not.
//
// # Budget
//
// Runs bounds the number of runs; Stop, polled before each run, ends the
// search early (the CLI's --for). With neither, Run searches until it
// finds a stable disagreement.
package diff
