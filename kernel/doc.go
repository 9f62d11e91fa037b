// Package kernel holds what every other zcsim package needs to speak of a
// Linux kernel: its profiles, its constants and errnos, and the Host that
// owns one simulated machine's objects.
//
// # Profiles
//
// A Profile is a plain struct of knobs, one per behaviour that differs
// between kernel versions, each documented with the version or commit that
// set it. The built-in profiles are rfc-v2 (the 2017 RFC patch set),
// linux-4.14 (the first merge), linux-5.0 (UDP) and linux-6.18 (today's
// kernel, the default). Code never tests a version number: it reads a knob.
// Historical bugs are named switches (Bug) in Profile.Bugs, so a replay can
// run "linux-6.18 with bug X re-introduced".
//
// # Constants
//
// The uapi values zcsim uses (MSG_*, SO_*, SOF_TIMESTAMPING_*, SO_EE_*,
// SKBFL_*, address families, socket types, protocols) carry their Linux
// names and values, with Symbols tables that map names to values and back
// for parsers and output. Errno is a Linux error number; results are always
// an Errno, 0 meaning success.
//
// # Host, ownership and violations
//
// Every refcounted object (uarg, skb, shared info, page, socket) embeds a
// Tracked, registered with its Host at creation and removed when freed.
// Tracked gives the object an ObjectID ("skb#7"), a bounded history of what
// happened to it, stamped with the Host's current Step, and a way to report
// a Violation of one of the design's invariants (Rule). Misuse — a refcount
// below zero, a use after free, a double free — is reported, never a panic
// and never silently clamped. Host.Live lists what is still allocated, in
// creation order, so a leak check at quiescence names every survivor.
//
// A history entry is a typed Entry: an Op (the operation, which names the
// kernel function it models), the other objects involved, the refcount
// before and after, numeric arguments. Noting one formats nothing; Text
// renders the timeline's sentence and AppendJSON its fields, on output
// only. With KeepLog set, the Host lists every entry noted since the last
// ClearLog with its object (Log): a step's timeline. With KeepTouched set, the Host lists the objects created or noted
// since the last ClearTouched (Touched), for an invariant check that
// examines only what a step touched.
//
// Allocation failures come from named fault sites (FaultSockOmalloc,
// FaultCopyUbufs, FaultAllocSkb) through the Host's FaultSource.
//
// # Invariants
//
// A Host never shares objects with another Host. Serial numbers are unique
// within a Host and increase with creation order; Live and Violations are
// deterministic functions of the operations performed.
package kernel
