package check

import "iter"

// sendSet is a socket's sends not yet notified, by id. The ids a socket
// hands out are consecutive, so the set keeps them in a window of slots
// from base on, without hashing; an id far from the window (the counter
// set back, or moved by a bug) goes to a map.
type sendSet struct {
	base  uint32
	slots []*sendRec // slots[i] is the send of id base+i, nil if none
	head  int        // slots before it are nil
	far   map[uint32]*sendRec
	n     int
}

// sendWindow is how far past the window's end an id may lie and still
// join it.
const sendWindow = 1 << 12

func (s *sendSet) len() int { return s.n }

// get returns the send of id.
func (s *sendSet) get(id uint32) (*sendRec, bool) {
	if d := id - s.base; d < uint32(len(s.slots)) && s.slots[d] != nil {
		return s.slots[d], true
	}
	r, ok := s.far[id]
	return r, ok
}

// put makes r the send of id, replacing any.
func (s *sendSet) put(id uint32, r *sendRec) {
	s.take(id)
	s.n++
	if len(s.slots) == 0 {
		s.base = id
	}
	switch d := id - s.base; {
	case d < uint32(len(s.slots)):
		s.slots[d] = r
	case d-uint32(len(s.slots)) < sendWindow:
		for uint32(len(s.slots)) < d {
			s.slots = append(s.slots, nil)
		}
		s.slots = append(s.slots, r)
	default:
		if s.far == nil {
			s.far = make(map[uint32]*sendRec)
		}
		s.far[id] = r
	}
}

// take removes the send of id and returns it.
func (s *sendSet) take(id uint32) (*sendRec, bool) {
	if d := id - s.base; d < uint32(len(s.slots)) && s.slots[d] != nil {
		r := s.slots[d]
		s.slots[d] = nil
		s.n--
		// The window ends at its newest send; it starts at its oldest
		// once the slots before that are half of it, moved to the front
		// of the same storage.
		for len(s.slots) > 0 && s.slots[len(s.slots)-1] == nil {
			s.slots = s.slots[:len(s.slots)-1]
		}
		for s.head < len(s.slots) && s.slots[s.head] == nil {
			s.head++
		}
		if s.head = min(s.head, len(s.slots)); 2*s.head >= len(s.slots) {
			n := copy(s.slots, s.slots[s.head:])
			clear(s.slots[n:len(s.slots)])
			s.slots, s.base, s.head = s.slots[:n], s.base+uint32(s.head), 0
		}
		return r, true
	}
	if r, ok := s.far[id]; ok {
		delete(s.far, id)
		s.n--
		return r, true
	}
	return nil, false
}

// all yields every send, in no particular order.
func (s *sendSet) all() iter.Seq[*sendRec] {
	return func(yield func(*sendRec) bool) {
		for _, r := range s.slots[s.head:] {
			if r != nil && !yield(r) {
				return
			}
		}
		for _, r := range s.far {
			if !yield(r) {
				return
			}
		}
	}
}
