// Package prop is zcsim for property tests in a user's own go test: rapid
// generators of well-formed scenarios (package sim/gen, swarm testing) and
// a helper that runs one on the model, fails the test with every invariant
// it broke, and hands back what the run did, so that a property about
// refcounts or notification order is a few lines:
//
//	func TestReportedIDsWereSent(t *testing.T) {
//		rapid.Check(t, func(t *rapid.T) {
//			sc := prop.Scenarios(gen.Config{Profile: "linux-6.18", Allow: gen.UDP | gen.Cork}).Draw(t, "scenario")
//			out := prop.Run(t, sc, prop.Options{}) // fails t on any broken invariant
//			sent := map[string][]uint32{}
//			for _, c := range out.Calls() {
//				if c.Sent {
//					sent[c.Socket] = append(sent[c.Socket], c.ID)
//				}
//			}
//			for _, n := range out.Notifications() {
//				if k := countIn(n, sent[n.Socket]); uint64(k) != n.Len() {
//					t.Fatalf("%s: [%d,%d] reports ids no send got", n.Socket, n.Lo, n.Hi)
//				}
//			}
//		})
//	}
//
// # Generators
//
// [Scenarios] draws a sim/gen scenario: its seed, its number of statements
// (1 to the Config's Stmts, gen.DefaultStmts if zero) and a subset of the
// Config's features. rapid shrinks the last two toward fewer statements
// and fewer features, so a failing property ends with a small file drawn
// from few features. Every scenario parses and passes the interpreter's
// checks (gen's contract).
//
// # Runs
//
// [Run] runs a scenario with every invariant of the design guide checked
// after every step, and fails the test (Fatalf, with the scenario and how
// to replay it with zcsim run) when any was broken, listing all of them.
// [Exec] runs it without failing, for a property that expects violations
// or counts them. Options choose the profile and the bugs switched on or
// off (kernel.Bug, as the catalog of package sim/bugs names them); the
// run's random streams are seeded with the scenario's seed, so a run is a
// function of the Scenario and the Options.
//
// # Outcome
//
// An [Outcome] is the run's trace and what properties usually read from
// it: [Outcome.Calls] (every system call with its result and the id a send
// consumed), [Outcome.Notifications] (every zerocopy notification a read
// of the error queue returned, as an id range), [Outcome.Violations] and
// [Outcome.Steps].
package prop
