package kernel

import (
	"fmt"
	"slices"
	"strconv"
)

// Host is one simulated machine's kernel-wide state: the profile it runs,
// the fault sites that may make an allocation fail, the registry of live
// objects and the violations found so far. Every modelled object belongs to
// exactly one Host; two Hosts never see each other's objects, so several
// simulations can run in one test binary.
//
// The zero value is not usable; create one with NewHost.
type Host struct {
	// Profile is the kernel being modelled. It is read-only after NewHost.
	Profile *Profile
	// Faults decides whether a named allocation site fails. Nil means
	// allocations never fail.
	Faults FaultSource
	// Step is the number of the step being processed: the run's one step
	// counter, which the simulator advances before each system call or
	// event; history entries and violations carry it.
	Step uint64
	// KeepTouched makes the Host list the objects created or noted since
	// the last ClearTouched (Touched), for an incremental invariant check.
	KeepTouched bool
	// KeepLog makes the Host list every history entry noted since the
	// last ClearLog, with its object (Log): the simulator's timeline of
	// which objects a step touched and what happened to them.
	KeepLog bool
	// Trace, if set, sees every history entry as it is noted, after it
	// joined the log. The object is live (or being freed) during the
	// call; e is valid only during it.
	Trace func(t *Tracked, e *Entry)
	// Lockdep orders the locks the steps take (Acquire, Release).
	Lockdep Lockdep
	// Netstamp is the host's switch of software receive timestamps, and
	// Now, if set, the virtual time in nanoseconds it is switched and
	// read at (0 without it).
	Netstamp Netstamp
	Now      func() int64

	serial uint64
	// live holds the tracked objects in creation order; freed ones are
	// dropped lazily, when they make up half of it.
	live  []*Tracked
	freed int
	// byID finds a live object by serial, unique across kinds.
	byID       serials
	violations []Violation
	// touched lists, once each, the objects created or noted since the
	// last ClearTouched; gen numbers that period.
	touched []*Tracked
	gen     uint64
	// log is Log's list (KeepLog); traced is where Trace's entry is
	// copied to when there is no log.
	log    []Touch
	traced Entry
	// events is where histories are carved from (Note), so that noting
	// costs no allocation per object. Its chunks are smaller than other
	// slabs': a long-lived object's history keeps its whole chunk alive.
	events Slab[stored]
	// historyLen is, per object kind (an index into names.kinds), the
	// length of the last freed object's history (firstHistory).
	historyLen [maxKinds]uint8
	// names interns the strings of history entries.
	names names
	// values holds the other packages' per-Host values, their slabs
	// among them, each at its Slot's index.
	values []any
}

// FaultSource decides, call by call, whether a named fault site fails.
type FaultSource interface {
	Fail(site string) bool
}

// Fault sites: the allocations the model lets a test or scenario fail.
const (
	// FaultSockOmalloc fails sock_omalloc, so msg_zerocopy_alloc returns NULL.
	FaultSockOmalloc = "sock_omalloc"
	// FaultCopyUbufs fails the page allocation in skb_copy_ubufs (ENOMEM).
	FaultCopyUbufs = "skb_copy_ubufs"
	// FaultAllocSkb fails alloc_skb in a send path.
	FaultAllocSkb = "alloc_skb"
	// FaultTunGetUser fails tun_get_user after it attached a vhost
	// sender's ubuf to the skb (the tun device is down: EIO); the skb is
	// freed, which completes the ubuf.
	FaultTunGetUser = "tun_get_user"
	// FaultPutCmsg fails the copy of an SCM_ZC_NOTIFICATION's completions
	// back to the user (put_cmsg in the v7 series, EFAULT).
	FaultPutCmsg = "put_cmsg"
)

// FaultSites lists every fault site the model consults, in name order.
func FaultSites() []string {
	return []string{FaultAllocSkb, FaultCopyUbufs, FaultPutCmsg, FaultSockOmalloc, FaultTunGetUser}
}

// NewHost returns a host running profile p.
func NewHost(p *Profile) *Host {
	return &Host{Profile: p, events: Slab[stored]{limit: historyChunk}}
}

// Time returns Now(), or 0 without a clock.
func (h *Host) Time() int64 {
	if h.Now == nil {
		return 0
	}
	return h.Now()
}

// Fail reports whether the allocation at site fails this time.
func (h *Host) Fail(site string) bool { return h.Faults != nil && h.Faults.Fail(site) }

// ObjectID names a modelled object: its kind ("uarg", "skb", "page",
// "sock") and a serial number unique within its Host. The zero value names
// no object.
type ObjectID struct {
	Kind   string
	Serial uint64
}

// String renders the id as "skb#12".
func (id ObjectID) String() string { return id.Kind + "#" + strconv.FormatUint(id.Serial, 10) }

// SendmsgCall names the sendmsg call made at step: "sendmsg#N" is the
// call of step N, the holder of the references the call owns (the uarg
// reference msg_zerocopy_alloc gives it) until an skb takes them. A call
// is not an object: nothing tracks or frees it.
func SendmsgCall(step uint64) ObjectID { return ObjectID{Kind: "sendmsg", Serial: step} }

// MarshalText renders the id as String does, for JSON.
func (id ObjectID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// Event is one entry of an object's reference history: the step that made
// it and what happened.
type Event struct {
	Step uint64
	Entry
}

// historyCap bounds an object's history: the first entries (its birth) and
// the most recent ones are what a violation report needs.
const historyCap = 48

// historyChunk is the largest chunk of the Host's history slab.
const historyChunk = 256

// historyKeep is how many of the first entries a full history keeps.
const historyKeep = historyCap / 4

// A full history's ring index is a uint8 (Tracked.ring).
var _ [255 - historyCap]struct{}

// Tracked is embedded in every refcounted object. It gives the object an
// identity, a bounded history of what happened to it, and membership in its
// Host's live-object registry until it is freed.
type Tracked struct {
	host    *Host
	self    any
	id      ObjectID
	history []stored
	dropped int
	// mark is 1 + the Host's gen when the object was last added to its
	// touched list.
	mark uint64
	// visit is the last generation Visit saw.
	visit uint64
	// ring is, once the history is full, the index in its tail (after
	// the historyKeep first entries) of the oldest entry: below
	// historyCap, so it packs with freed (every object embeds a
	// Tracked, and the slabs never reuse one).
	ring  uint8
	freed bool
	// kind is the index of id.Kind in the Host's names, set at the first
	// Note (firstHistory).
	kind uint8
}

// Track registers t, embedded in the object self, as a new live object of
// the given kind and returns it.
func (h *Host) Track(t *Tracked, kind string, self any) *Tracked {
	h.serial++
	*t = Tracked{host: h, self: self, id: ObjectID{kind, h.serial}}
	h.live = append(h.live, t)
	h.byID.put(t.id.Serial, t)
	t.touch()
	return t
}

// Reserve sets aside n consecutive serials for objects that will be
// tracked later with TrackReserved, and returns the first. An object that
// exists in principle before it is materialised (a page of a user mapping
// before it is faulted in) keeps the identity it would have had if it were
// built at once.
func (h *Host) Reserve(n int) uint64 {
	first := h.serial + 1
	h.serial += uint64(n)
	return first
}

// TrackReserved is Track under a serial that Reserve set aside.
//
// Preconditions: serial was returned by Reserve (or lies within the n it
// reserved) and is tracked at most once.
func (h *Host) TrackReserved(t *Tracked, kind string, serial uint64, self any) *Tracked {
	*t = Tracked{host: h, self: self, id: ObjectID{kind, serial}}
	h.live = append(h.live, t)
	h.byID.put(serial, t)
	t.touch()
	return t
}

// touch adds t to its Host's touched list, once per period.
func (t *Tracked) touch() {
	if h := t.host; h.KeepTouched && t.mark != h.gen+1 {
		t.mark = h.gen + 1
		h.touched = append(h.touched, t)
	}
}

// Visit marks the object as visited in generation gen of a walk and
// reports whether this is the first visit of that generation: a checker
// that builds a set of objects once per step numbers its steps from 1
// and dedups without a map. One walker per Host uses it.
func (t *Tracked) Visit(gen uint64) (first bool) {
	if t.visit == gen {
		return false
	}
	t.visit = gen
	return true
}

// Touched returns, when KeepTouched is set, the objects created or noted
// since the last ClearTouched, live or freed, each once, in the order first touched: what
// an incremental invariant check examines. The slice is valid until
// ClearTouched.
func (h *Host) Touched() []*Tracked { return h.touched }

// ClearTouched starts a new period for Touched.
func (h *Host) ClearTouched() {
	clear(h.touched)
	h.touched = h.touched[:0]
	h.gen++
}

// Ident returns the object's identity.
func (t *Tracked) Ident() ObjectID { return t.id }

// Self returns the object t is embedded in, for checkers that walk the
// registry.
func (t *Tracked) Self() any { return t.self }

// Host returns the host the object belongs to.
func (t *Tracked) Host() *Host { return t.host }

// Freed reports whether the object has been freed.
func (t *Tracked) Freed() bool { return t.freed }

// historySizes are the capacities a full history below historyCap grows
// to (grownHistory), each slice carved from the Host's slab: most objects
// note few entries (a page or a shared info one, its free; an skb or a
// uarg about eight; a uarg of a large TCP send a dozen). The last is
// historyCap.
var historySizes = [...]int{1, 8, 16, historyCap}

// grownHistory returns the capacity a full history of n < historyCap
// entries moves to: the next of historySizes, or twice n if more, at most
// historyCap.
func grownHistory(n int) int {
	for _, c := range historySizes {
		if c > n {
			return min(max(c, 2*n), historyCap)
		}
	}
	return historyCap
}

// firstHistory carves an object's first history. The slab's memory is
// never reused, so every history outgrown is memory spent: it is as long
// as the last history of an object of its kind that was freed (Free
// records it in Host.historyLen), which objects made in a loop share,
// or historySizes[0] before one was.
func (t *Tracked) firstHistory() []stored {
	h := t.host
	t.kind = h.names.kind(t.id.Kind)
	return h.events.Carve(max(historySizes[0], int(h.historyLen[t.kind])))
}

// Note appends an entry to the object's history. It formats nothing: the
// entry is rendered only when printed.
func (t *Tracked) Note(en Entry) {
	switch n := len(t.history); {
	case t.history == nil:
		t.history = t.firstHistory()
	case n == historyCap:
		// Keep the first quarter (the birth); the rest is a ring whose
		// oldest entry the new one overwrites.
		t.host.names.store(&t.history[historyKeep+t.ring], t.host.Step, &en)
		t.ring = (t.ring + 1) % uint8(historyCap-historyKeep)
		t.dropped++
		t.noted(&en)
		return
	case n == cap(t.history):
		t.history = append(t.host.events.Carve(grownHistory(n)), t.history...)
	}
	t.history = t.history[:len(t.history)+1]
	t.host.names.store(&t.history[len(t.history)-1], t.host.Step, &en)
	t.noted(&en)
}

// noted tells the Host's touched list, log and trace hook about an
// entry. The log's element is written in place: an entry is 120 bytes,
// and one is noted for every reference taken or dropped.
func (t *Tracked) noted(en *Entry) {
	t.touch()
	h := t.host
	if !h.KeepLog {
		if h.Trace != nil {
			h.traced = *en
			h.Trace(t, &h.traced)
		}
		return
	}
	if len(h.log) == cap(h.log) {
		h.log = slices.Grow(h.log, 1)
	}
	h.log = h.log[:len(h.log)+1]
	l := &h.log[len(h.log)-1]
	l.Object, l.Entry = t.id, *en
	if h.Trace != nil {
		h.Trace(t, &l.Entry)
	}
}

// Touch is one entry of the Host's log: the object and what happened to
// it. In JSON it is one object: "object" then the entry's fields
// (Entry.AppendJSON).
type Touch struct {
	Object ObjectID
	Entry  Entry
}

// Text renders what happened as the timeline prints it.
func (t Touch) Text() string { return t.Entry.Text() }

// MarshalJSON writes {"object":"skb#3","op":…}.
func (t Touch) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// AppendJSON appends the entry as MarshalJSON writes it.
func (t *Touch) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"object":"`...)
	dst = append(dst, t.Object.String()...)
	dst = append(dst, '"')
	dst = t.Entry.AppendJSON(dst)
	return append(dst, '}')
}

// Log returns, when KeepLog is set, the entries noted since the last
// ClearLog, oldest first. The slice is valid until ClearLog.
func (h *Host) Log() []Touch { return h.log }

// ClearLog empties the log, keeping its storage.
func (h *Host) ClearLog() { h.log = h.log[:0] }

// History returns the object's recorded history, oldest first. When entries
// were dropped to bound its size, one entry says how many.
func (t *Tracked) History() []Event {
	n := &t.host.names
	var h []Event
	load := func(s []stored) {
		for i := range s {
			h = append(h, n.load(&s[i]))
		}
	}
	if t.dropped == 0 {
		load(t.history)
		return h
	}
	h = make([]Event, 0, historyCap+1)
	load(t.history[:historyKeep])
	tail := t.history[historyKeep:]
	h = append(h, Event{Step: tail[t.ring].step, Entry: Entry{Op: OpOmitted, Args: [4]int64{int64(t.dropped)}}})
	load(tail[t.ring:])
	load(tail[:t.ring])
	return h
}

// Free removes the object from the live registry. Freeing it twice is a
// violation of rule RuleRefcount, reported rather than panicking.
func (t *Tracked) Free() {
	if t.freed {
		t.Violate(RuleRefcount, "freed twice")
		return
	}
	t.Note(Entry{Op: OpFreed})
	t.freed = true
	h := t.host
	h.historyLen[t.kind] = uint8(len(t.history))
	h.byID.drop(t.id.Serial)
	if h.freed++; h.freed > len(h.live)/2 {
		h.compact()
	}
}

// compact drops freed objects from the creation-ordered list.
func (h *Host) compact() {
	keep := h.live[:0]
	for _, t := range h.live {
		if !t.freed {
			keep = append(keep, t)
		}
	}
	clear(h.live[len(keep):])
	h.live, h.freed = keep, 0
}

// CheckLive reports a use-after-free violation if the object was freed and
// returns whether it is still live. op names the operation attempted.
func (t *Tracked) CheckLive(op string) bool {
	if t.freed {
		t.Violate(RuleRefcount, "%s after free", op)
		return false
	}
	return true
}

// Violate records a violation of rule by this object.
func (t *Tracked) Violate(rule Rule, format string, args ...any) {
	t.host.Report(Violation{
		Step:    t.host.Step,
		Rule:    rule,
		Object:  t.id,
		Message: fmt.Sprintf(format, args...),
		History: t.History(),
	})
}

// Report records a violation.
func (h *Host) Report(v Violation) { h.violations = append(h.violations, v) }

// Violations returns the violations recorded since the last TakeViolations.
func (h *Host) Violations() []Violation { return append([]Violation(nil), h.violations...) }

// TakeViolations returns the recorded violations and forgets them.
func (h *Host) TakeViolations() []Violation {
	v := h.violations
	h.violations = nil
	return v
}

// Live returns the ids of the objects not yet freed, in creation order.
func (h *Host) Live() []ObjectID {
	ids := make([]ObjectID, 0, h.byID.n)
	for _, t := range h.live {
		if !t.freed {
			ids = append(ids, t.id)
		}
	}
	return ids
}

// LiveObjects calls fn for each object not yet freed, in creation order.
// fn must not create or free objects.
func (h *Host) LiveObjects(fn func(*Tracked)) {
	for _, t := range h.live {
		if !t.freed {
			fn(t)
		}
	}
}

// Object returns the tracked record of a live object, or nil.
func (h *Host) Object(id ObjectID) *Tracked {
	if t := h.byID.get(id.Serial); t != nil && t.id == id {
		return t
	}
	return nil
}

// Rule is one of the invariants every step is checked against. Each has a
// name (String) and a statement in docs/invariants.md; messages cite it by
// name ("invariant refcount"). The zero value is no rule.
type Rule uint8

// The invariants every checker reports against.
const (
	// RuleIDs: one id per successful zerocopy call, consecutive mod 2^32.
	RuleIDs Rule = 1 + iota
	// RuleNotifyOnce: each id is notified exactly once, after its last reference.
	RuleNotifyOnce
	// RuleNotifyAfterPages: no notification while an skb can reach the pages.
	RuleNotifyAfterPages
	// RuleRefcount: no refcount below zero or up from zero, no double free, no leak.
	RuleRefcount
	// RuleAccounting: optmem, wmem and locked_vm are conserved and within limits.
	RuleAccounting
	// RuleCopied: COPIED is set iff some reference drop reported a copy.
	RuleCopied
	// RuleRxPages: pages on a receive queue are never the user's pages.
	RuleRxPages
	// RuleBounds: no structure outgrows its kernel bound (MAX_SKB_FRAGS).
	RuleBounds
	// RuleLockOrder: locks are always taken in one order (lockdep).
	RuleLockOrder
)

var ruleNames = [...]string{
	RuleIDs:              "ids",
	RuleNotifyOnce:       "notify-once",
	RuleNotifyAfterPages: "notify-after-pages",
	RuleRefcount:         "refcount",
	RuleAccounting:       "accounting",
	RuleCopied:           "copied",
	RuleRxPages:          "rx-pages",
	RuleBounds:           "bounds",
	RuleLockOrder:        "lock-order",
}

// String names the rule, e.g. "refcount"; a value that is no rule reads
// "rule 99".
func (r Rule) String() string {
	if r == 0 || int(r) >= len(ruleNames) {
		return fmt.Sprintf("rule %d", r)
	}
	return ruleNames[r]
}

// Violation is one broken invariant: when, which rule, which object, what,
// and the object's history up to that point.
type Violation struct {
	Step    uint64
	Rule    Rule
	Object  ObjectID
	Message string
	History []Event
}

// String renders the violation on one line, without its history:
// "step 7: invariant refcount: skb#1: freed twice".
func (v Violation) String() string {
	return fmt.Sprintf("step %d: invariant %v: %v: %s", v.Step, v.Rule, v.Object, v.Message)
}
