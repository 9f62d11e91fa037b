package strace

// carver hands out the exact-length slices a call's values need (argument
// lists, array elements, struct fields, flag names), carved from large
// blocks instead of grown one append at a time. A call built by [Parse]
// keeps its block for as long as the Log lives; a [Scanner] reuses one
// block line after line (reuse), which is why a Scanner's Item is valid
// only until the next Scan. Values are built on a stack first (push, then
// carve from a mark), because a nested value finishes before the one
// around it.
type carver struct {
	reuse  bool
	vals   block[Value]
	fields block[Field]
	names  block[string]
	// valStack and fieldStack hold the elements of the values still
	// being parsed, innermost last.
	valStack   []Value
	fieldStack []Field
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

// reset makes a reused slab's memory free for the next line.
func (b *block[T]) reset() { clear(b.buf); b.buf = b.buf[:0] }

// lineDone empties the stacks (a line that failed to parse may leave
// elements on them) and frees a Scanner's slabs for the next line; a Parse
// keeps them.
func (m *carver) lineDone() {
	clear(m.valStack)
	m.valStack = m.valStack[:0]
	clear(m.fieldStack)
	m.fieldStack = m.fieldStack[:0]
	if m.reuse {
		m.vals.reset()
		m.fields.reset()
		m.names.reset()
	}
}

// valMark and carveVals bracket the elements of one value on the stack.
func (m *carver) valMark() int { return len(m.valStack) }

func (m *carver) pushVal(v Value) { m.valStack = append(m.valStack, v) }

func (m *carver) carveVals(mark int) []Value {
	out := m.vals.cut(m.valStack[mark:], m.reuse)
	clear(m.valStack[mark:])
	m.valStack = m.valStack[:mark]
	return out
}

func (m *carver) fieldMark() int { return len(m.fieldStack) }

func (m *carver) pushField(f Field) { m.fieldStack = append(m.fieldStack, f) }

func (m *carver) carveFields(mark int) []Field {
	out := m.fields.cut(m.fieldStack[mark:], m.reuse)
	clear(m.fieldStack[mark:])
	m.fieldStack = m.fieldStack[:mark]
	return out
}

// carveNames copies a flag union's names into the slab.
func (m *carver) carveNames(names []string) []string { return m.names.cut(names, m.reuse) }
