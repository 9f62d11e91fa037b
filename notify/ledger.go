package notify

import (
	"fmt"
	"sort"
)

// Send is one successful zerocopy send call as the program recorded it.
type Send struct {
	ID    uint32
	Label string // where the call was made, e.g. "demo.zc:12"
	Bytes int
}

// Ledger is the bookkeeping a MSG_ZEROCOPY program keeps, as
// Documentation/networking/msg_zerocopy.rst suggests: every successful
// zerocopy send gets the next id of a 32-bit counter, and each notification
// range releases the buffers of the sends it covers. Feeding it the ids the
// kernel assigned and the ranges it reported checks invariants 1 and 2 from
// the user's side: ids are gapless and each is notified exactly once.
//
// The zero value expects the first id to be 0.
type Ledger struct {
	next        uint32
	outstanding []Send // in send order
	// reused says that Expect was called with sends outstanding, so an
	// id may be outstanding twice; gapped that a send got an id other
	// than the next. Until either, the outstanding ids increase (mod
	// 2^32) in send order, and Complete finds a range by bisection.
	reused, gapped bool
}

// Expect sets the id the next send should get, for a socket whose counter
// does not start at 0.
func (l *Ledger) Expect(next uint32) {
	l.next = next
	l.reused = l.reused || len(l.outstanding) > 0
}

// Next returns the id the next successful zerocopy send should get.
func (l *Ledger) Next() uint32 { return l.next }

// Sent records a successful zerocopy send that the kernel gave id. It
// returns an error if id is not the next one (a gap or a reuse); the send is
// recorded anyway and the counter follows the kernel.
func (l *Ledger) Sent(id uint32, label string, bytes int) error {
	var err error
	if id != l.next {
		err = fmt.Errorf("%s got id %d, want %d", label, id, l.next)
		l.gapped = true
	}
	l.outstanding = append(l.outstanding, Send{ID: id, Label: label, Bytes: bytes})
	l.next = id + 1
	return err
}

// Complete releases the sends a notification range covers and returns them
// in send order. It returns an error when the range covers ids that are not
// outstanding: never sent, or already notified. Where a counter set back
// (Expect) gave an id to a second send while the first is still
// outstanding, the range releases the oldest one: a notification covers
// each id once.
func (l *Ledger) Complete(r Range) ([]Send, error) {
	if i, j, ok := l.span(r); ok {
		return l.cut(r, i, j)
	}
	done := make([]Send, 0, min(r.Len(), uint64(len(l.outstanding))))
	keep := l.outstanding[:0] // filtered in place
	var taken map[uint32]bool // only where an id may be outstanding twice
	if l.reused {
		taken = map[uint32]bool{}
	}
	for _, s := range l.outstanding {
		if r.Contains(s.ID) && (taken == nil || !taken[s.ID]) {
			if taken != nil {
				taken[s.ID] = true
			}
			done = append(done, s)
		} else {
			keep = append(keep, s)
		}
	}
	clear(l.outstanding[len(keep):])
	l.outstanding = keep
	if uint64(len(done)) != r.Len() {
		return done, fmt.Errorf("notification %v covers %d ids but only %d are outstanding", r, r.Len(), len(done))
	}
	return done, nil
}

// span returns the sends r covers as outstanding[i:j], when the ids are
// in order and r lies between the first and the last outstanding one: in
// time logarithmic in the sends outstanding, not linear.
func (l *Ledger) span(r Range) (i, j int, ok bool) {
	out := l.outstanding
	if l.reused || l.gapped || len(out) == 0 {
		return 0, 0, false
	}
	base := out[0].ID
	lo, hi, last := r.Lo-base, r.Hi-base, out[len(out)-1].ID-base
	if lo > hi || hi > last || last == ^uint32(0) {
		return 0, 0, false
	}
	i = sort.Search(len(out), func(k int) bool { return out[k].ID-base >= lo })
	j = i + sort.Search(len(out)-i, func(k int) bool { return out[i+k].ID-base > hi })
	return i, j, true
}

// cut releases outstanding[i:j], the sends r covers; releasing the oldest
// moves nothing.
func (l *Ledger) cut(r Range, i, j int) ([]Send, error) {
	out := l.outstanding
	done := append([]Send(nil), out[i:j]...)
	if i == 0 {
		clear(out[:j])
		l.outstanding = out[j:]
	} else {
		n := copy(out[i:], out[j:])
		clear(out[i+n:])
		l.outstanding = out[:i+n]
	}
	if uint64(len(done)) != r.Len() {
		return done, fmt.Errorf("notification %v covers %d ids but only %d are outstanding", r, r.Len(), len(done))
	}
	return done, nil
}

// Len returns how many sends are not yet notified.
func (l *Ledger) Len() int { return len(l.outstanding) }

// Outstanding returns the sends not yet notified, in send order.
func (l *Ledger) Outstanding() []Send { return append([]Send(nil), l.outstanding...) }
