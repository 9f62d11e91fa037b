package kernel

import "sync/atomic"

// slabFirst and slabChunk are how many values the first chunk of a Slab
// holds and the most that any holds: each chunk is twice the last, so
// that a Host that makes few objects of a type keeps little, and one
// that makes many allocates seldom.
const (
	slabFirst = 32
	slabChunk = 1024
)

// slabCarve is the longest slice Carve takes from a chunk.
const slabCarve = slabChunk / 16

// Slab hands out values of T carved from chunks of up to slabChunk, so that
// creating a modelled object (an skb, a shared info, a uarg, a page, a
// history) costs an allocation once per chunk rather than once per object.
//
// Memory is never reused: a freed object keeps its storage, freed flag and
// history for as long as anything points to it, so a use after free is
// caught exactly as it would be with an allocation of its own, and a new
// object never inherits an old one's state or identity. A chunk is
// collected once nothing points into it.
//
// The zero value is an empty slab, ready to use. A Slab belongs to one Host
// (SlabSlot); it is not safe for concurrent use.
type Slab[T any] struct {
	chunk []T
	// size is the length of the last chunk, limit the largest (slabChunk
	// when 0).
	size, limit int
}

// grow starts a new chunk.
func (s *Slab[T]) grow() {
	limit := s.limit
	if limit == 0 {
		limit = slabChunk
	}
	s.size = min(max(slabFirst, 2*s.size), limit)
	s.chunk = make([]T, s.size)
}

// New returns a pointer to a zero T.
func (s *Slab[T]) New() *T {
	if len(s.chunk) == 0 {
		s.grow()
	}
	p := &s.chunk[0]
	s.chunk = s.chunk[1:]
	return p
}

// Carve returns an empty slice with room for n values (n ≥ 0). A slice
// of more than slabCarve values gets storage of its own.
func (s *Slab[T]) Carve(n int) []T {
	if n > slabCarve {
		return make([]T, 0, n)
	}
	for len(s.chunk) < n {
		s.grow()
	}
	v := s.chunk[:0:n]
	s.chunk = s.chunk[n:]
	return v
}

// Append is append(v, x), growing v into storage carved from the slab:
// when v is full, it moves to a slice of twice its capacity (at least 2).
func (s *Slab[T]) Append(v []T, x T) []T {
	if len(v) == cap(v) {
		v = append(s.Carve(max(2, 2*cap(v))), v...)
	}
	return append(v, x)
}

// A Slot names one per-Host value of type T: one of a package's slabs,
// or state the package keeps per Host (a list its operations append to
// for the checkers). Declared once, at package level (NewSlot, SlabSlot),
// it finds its value in any Host by index, without a search: the model's
// paths look a slab up for every object they make. The zero Slot names
// nothing and must not be used.
type Slot[T any] struct{ i int }

// slots counts the slots made so far: a slot's index is its number.
var slots atomic.Int32

// NewSlot returns a slot for values of type T, distinct from every other.
func NewSlot[T any]() Slot[T] { return Slot[T]{int(slots.Add(1))} }

// SlabSlot returns a new slot for a slab of T values.
func SlabSlot[T any]() Slot[Slab[T]] { return NewSlot[Slab[T]]() }

// Of returns h's value in the slot, creating a zero one on first use.
func (s Slot[T]) Of(h *Host) *T {
	if s.i < len(h.values) {
		if v := h.values[s.i]; v != nil {
			return v.(*T)
		}
	}
	return s.create(h)
}

// create makes h's value in the slot.
func (s Slot[T]) create(h *Host) *T {
	if s.i == 0 {
		panic("kernel: the zero Slot names no value")
	}
	if s.i >= len(h.values) {
		h.values = append(h.values, make([]any, s.i+1-len(h.values))...)
	}
	v := new(T)
	h.values[s.i] = v
	return v
}
