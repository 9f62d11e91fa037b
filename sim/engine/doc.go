// Package engine is the deterministic discrete-event core that sim.World embeds: virtual
// time, an event queue with safe handles, an event loop, named pseudo-random streams and
// named fault sites.
//
// # Model
//
// Virtual time is a [Time]: integer nanoseconds since the start of the run. Spans are
// [Duration]s, written in scenarios as an integer and a unit ("250us", "1500us", "3s";
// see [ParseDuration]). There is no float time and no wall clock.
//
// A [Queue] holds events, each a label and a func to run at a time. A [Loop] owns the
// clock and a Queue and runs one event per step, in (At, Seq) order: earliest time
// first, and events due at the same time in the order they were scheduled. Running an
// event first advances Now to its time, then runs its func.
//
// [Streams] derive one math/rand/v2 PCG stream per name from a root seed. [Faults]
// answers Fail(site) for named fault sites according to armed [Rule]s ("always",
// "nth=3", "p=0.25", …; see [ParseRule]), drawing probabilities from the stream
// "fault/<site>".
//
// # Ownership
//
// The simulation owns one Loop, one Streams and one Faults; nothing here is shared
// between simulations, and there is no package-level mutable state, so two simulations
// in one process never see each other. A [Handle] names one event of the Queue that
// issued it; it holds no claim on the event, and holding it after the event fired is
// harmless. Event storage is reused once an event fires or is cancelled.
//
// # Invariants
//
// With h the heap of pending events and Less ordering by (At, Seq):
//
//	!Less(h[i], h[(i-1)/2])  for 0 < i < Len   (the container/heap invariant)
//	h[i].index == i                               (maintained by Swap)
//	Pending(handle) ⇔ its event is in h           (stale handles never match: Seq is unique)
//	every pending event has At ≥ Loop.Now         (Loop.Schedule rejects the past)
//	Loop.Now never decreases
//
// Every loop is bounded: [Loop.RunUntil] and [Loop.RunUntilIdle] take a maximum number
// of events and return a [*LimitError] when events remain, which guards against an
// event that keeps rescheduling itself.
//
// # Determinism
//
// The same calls with the same seed give the same results, bit for bit:
//
//   - Ordering depends only on (At, Seq), never on memory addresses or maps.
//   - All randomness comes from Streams; a stream's numbers depend only on the root seed
//     and its name, so adding a stream or drawing from another one changes nothing.
//   - Fault rules are counters, except "p=" rules, which draw one number per call from
//     their site's own stream.
//   - Listings (Streams.Names, Faults.Sites, Faults.Armed) are sorted.
//   - No goroutines, no wall clock, no map iteration order reaches a result.
//
// # Errors and preconditions
//
// Input that can come from a user (durations, fault rules, times in the past, event
// bounds) is checked and reported as an error carrying its inputs; parse errors are
// [*SyntaxError]s with a column. Programming errors listed under "Preconditions" in a
// doc comment (a nil func, re-entering the loop from an event) panic.
package engine
