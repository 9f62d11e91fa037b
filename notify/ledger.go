package notify

import "fmt"

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
	// id may be outstanding twice.
	reused bool
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

// Len returns how many sends are not yet notified.
func (l *Ledger) Len() int { return len(l.outstanding) }

// Outstanding returns the sends not yet notified, in send order.
func (l *Ledger) Outstanding() []Send { return append([]Send(nil), l.outstanding...) }
