package strace

// carver hands out the exact-length slices a call's values need (argument
// lists, array elements, struct fields, flag names), carved from large
// blocks instead of grown one append at a time. A call built by [Parse]
// keeps its block for as long as the Log lives; a [Scanner] reuses its
// blocks of values and fields line after line (reuse), which is why a
// Scanner's Item is valid only until the next Scan. Values and fields are built on a stack first
// (push, then carve from a mark), because a nested value finishes before
// the one around it.
type carver struct {
	reuse  bool
	vals   pile[Value]
	fields pile[Field]
	names  block[string]
	lines  block[int]
}

// block is one growing slab of T that exact-length slices are cut from.
type block[T any] struct{ buf []T }

// minBlock is the size a slab starts at; maxBlock bounds the slabs of a
// Parse, whose slices stay with the Log.
const (
	minBlock = 256
	maxBlock = 4096
)

// cut returns a copy of src in the slab, with no room to append to.
func (b *block[T]) cut(src []T, reuse bool) []T {
	n := len(src)
	if n == 0 {
		return []T{}
	}
	if cap(b.buf)-len(b.buf) < n {
		size := max(minBlock, 2*cap(b.buf), n)
		if !reuse {
			size = max(min(size, maxBlock), n)
		}
		b.buf = make([]T, 0, size)
	}
	start := len(b.buf)
	b.buf = append(b.buf, src...)
	return b.buf[start : start+n : start+n]
}

// reset makes a reused slab's memory free for the next line. What the
// last lines left in it is not cleared: it is overwritten, and keeps at
// most a slab's worth of old strings alive meanwhile.
func (b *block[T]) reset() { b.buf = b.buf[:0] }

// pile is a stack of the elements of the values still being parsed,
// innermost last, and the slab their finished slices are cut from.
type pile[T any] struct {
	stack []T
	slab  block[T]
}

// mark is where the elements of a value about to be parsed start.
func (p *pile[T]) mark() int { return len(p.stack) }

// push copies *v onto the stack (by pointer: a Value is large).
func (p *pile[T]) push(v *T) { p.stack = append(p.stack, *v) }

// carve pops the elements from mark on into their slice.
func (p *pile[T]) carve(mark int, reuse bool) []T {
	out := p.slab.cut(p.stack[mark:], reuse)
	p.stack = p.stack[:mark]
	return out
}

// lineDone empties the stack (a line that failed to parse may leave
// elements on it) and, if reuse, frees the slab for the next line.
func (p *pile[T]) lineDone(reuse bool) {
	p.stack = p.stack[:0]
	if reuse {
		p.slab.reset()
	}
}

// lineDone readies the carver for the next line: a Scanner's slabs of
// values and fields are reused, a Parse's kept. Flag names are never
// reused, so that a decoded Op may keep a value's names without a copy
// of its own (flagList).
func (m *carver) lineDone() {
	m.vals.lineDone(m.reuse)
	m.fields.lineDone(m.reuse)
}

func (m *carver) valMark() int               { return m.vals.mark() }
func (m *carver) pushVal(v *Value)           { m.vals.push(v) }
func (m *carver) carveVals(mark int) []Value { return m.vals.carve(mark, m.reuse) }

func (m *carver) fieldMark() int               { return m.fields.mark() }
func (m *carver) pushField(f *Field)           { m.fields.push(f) }
func (m *carver) carveFields(mark int) []Field { return m.fields.carve(mark, m.reuse) }

// carveNames copies a flag union's names into the slab, which is never
// reused.
func (m *carver) carveNames(names []string) []string { return m.names.cut(names, false) }
