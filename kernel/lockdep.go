package kernel

import (
	"fmt"
	"slices"
	"strings"
)

// LockClass names a class of locks as lockdep does: every lock of a class
// counts as one for ordering ("&mm->mmap_lock", "sk_lock-AF_INET").
type LockClass string

// The lock classes zcsim models.
const (
	// MmapLock is the process's mm->mmap_lock (mmap_sem before v5.8),
	// taken to change or fault its address space.
	MmapLock LockClass = "&mm->mmap_lock"
)

// SkLock is the socket lock class of a family (lock_sock's sk_lock, keyed
// by family as sock_lock_init does).
func SkLock(f Family) LockClass { return LockClass("sk_lock-" + FamilyNames.Name(f)) }

// Lockdep is the lock validator of a Host (kernel/locking/lockdep.c, the
// part that finds inversions): it records, for every lock taken while
// another is held, the dependency held → taken, with where it was first
// seen, and reports a possible circular locking dependency when a lock is
// taken while a lock it already leads to is held (check_noncircular), once
// per pair of classes. The model runs one task at a time, so the locks held are one
// stack; a fault on user memory (might_fault) counts as taking and
// releasing MmapLock. The zero value records nothing yet.
type Lockdep struct {
	held []heldLock
	// deps maps each class to the classes taken while it was held, with
	// the first place each dependency was seen.
	deps     map[LockClass]map[LockClass]string
	reported map[[2]LockClass]bool
	// version counts the dependencies recorded; checked lists the pairs
	// held → taken whose dependency is recorded and whose check ran while
	// the graph was at a version: until it grows, taking them again
	// cannot find anything new.
	version uint64
	checked []checkedPair
}

type checkedPair struct {
	held, taken LockClass
	version     uint64
}

// isChecked reports whether taking taken while holding held was checked
// since the dependency graph last grew.
func (d *Lockdep) isChecked(held, taken LockClass) bool {
	for _, c := range d.checked {
		if c.held == held && c.taken == taken {
			return c.version == d.version
		}
	}
	return false
}

// markChecked records that the pair was checked at the graph's version.
func (d *Lockdep) markChecked(held, taken LockClass) {
	for i := range d.checked {
		if c := &d.checked[i]; c.held == held && c.taken == taken {
			c.version = d.version
			return
		}
	}
	d.checked = append(d.checked, checkedPair{held, taken, d.version})
}

type heldLock struct {
	class LockClass
	at    string
}

// Acquire models lock_acquire of class at function at (for obj, the
// object a report names); it reports a possible deadlock if a lock
// already held depends on class.
func (h *Host) Acquire(class LockClass, at string, obj ObjectID) {
	d := &h.Lockdep
	if d.deps == nil {
		d.deps, d.reported = map[LockClass]map[LockClass]string{}, map[[2]LockClass]bool{}
	}
	for _, hl := range d.held {
		if hl.class == class {
			continue // nested locks of one class: lockdep's subclasses, not modelled
		}
		if d.isChecked(hl.class, class) {
			continue // as lockdep's check_prev_add finds the dependency already there
		}
		pair := [2]LockClass{min(hl.class, class), max(hl.class, class)}
		if chain := d.path(class, hl.class); chain != nil && !d.reported[pair] {
			d.reported[pair] = true
			h.Report(Violation{Step: h.Step, Rule: RuleLockOrder, Object: obj, Message: fmt.Sprintf(
				"possible circular locking dependency: %s (%s) taken while holding %s (%s), but %s",
				class, at, hl.class, hl.at, strings.Join(chain, ", then "))})
		}
		if d.deps[hl.class] == nil {
			d.deps[hl.class] = map[LockClass]string{}
		}
		if _, seen := d.deps[hl.class][class]; !seen {
			d.deps[hl.class][class] = fmt.Sprintf("step %d took %s in %s holding %s from %s", h.Step, class, at, hl.class, hl.at)
			d.version++
		}
		d.markChecked(hl.class, class)
	}
	d.held = append(d.held, heldLock{class, at})
}

// Release models lock_release of the innermost held lock of class.
func (h *Host) Release(class LockClass) {
	d := &h.Lockdep
	for i := len(d.held) - 1; i >= 0; i-- {
		if d.held[i].class == class {
			d.held = append(d.held[:i], d.held[i+1:]...)
			return
		}
	}
}

// MightFault models might_fault under CONFIG_PROVE_LOCKING: touching user
// memory may fault and take MmapLock for reading.
func (h *Host) MightFault(at string, obj ObjectID) {
	h.Acquire(MmapLock, at, obj)
	h.Release(MmapLock)
}

// path returns the dependencies leading from one class to another, as
// where each was first seen, or nil if none does. The graph is small (a
// handful of classes), so a depth-first search of it is cheap.
func (d *Lockdep) path(from, to LockClass) []string {
	seen := map[LockClass]bool{}
	var walk func(c LockClass) []string
	walk = func(c LockClass) []string {
		if seen[c] {
			return nil
		}
		seen[c] = true
		for _, next := range sortedClasses(d.deps[c]) {
			if next == to {
				return []string{d.deps[c][next]}
			}
			if rest := walk(next); rest != nil {
				return append([]string{d.deps[c][next]}, rest...)
			}
		}
		return nil
	}
	return walk(from)
}

// sortedClasses lists a dependency map's classes in a fixed order, so
// that reports do not depend on map iteration.
func sortedClasses(m map[LockClass]string) []LockClass {
	out := make([]LockClass, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
