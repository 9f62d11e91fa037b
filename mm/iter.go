package mm

// Iovec is one struct iovec: Len bytes of a user Buffer from offset Off.
type Iovec struct {
	Buf *Buffer
	Off int
	Len int
}

// Iter is an iov_iter over user memory: the position of a send in its
// iovecs. The zero value is empty.
type Iter struct {
	iov []Iovec
	i   int // current iovec
	off int // bytes consumed of iov[i]
}

// NewIter returns an iterator over the iovecs, in order.
func NewIter(iov ...Iovec) *Iter { return &Iter{iov: iov} }

// Count returns the bytes left (iov_iter_count).
func (it *Iter) Count() int {
	n := 0
	for j := it.i; j < len(it.iov); j++ {
		n += it.iov[j].Len
	}
	return n - it.off
}

// Chunk is a piece of user memory within one page of one iovec.
type Chunk struct {
	Page *Page
	Off  int // offset within the page
	Len  int
}

// Peek returns the next chunk of at most max bytes without consuming it:
// the rest of the current page of the current iovec. ok is false when the
// iterator is exhausted, or when the iovec has no buffer, runs past it or
// its buffer was unmapped (the kernel's EFAULT on an unmapped address).
// The chunk's page is faulted in (Buffer.Page): the send path peeks
// before it pins or copies.
func (it *Iter) Peek(max int) (c Chunk, ok bool) {
	for it.i < len(it.iov) && it.off >= it.iov[it.i].Len {
		it.i, it.off = it.i+1, 0
	}
	if it.i == len(it.iov) || max <= 0 {
		return Chunk{}, false
	}
	v := it.iov[it.i]
	if v.Buf == nil || v.Buf.unmapped {
		return Chunk{}, false
	}
	pos := v.Off + it.off
	psize := v.Buf.PageSize()
	if pos < 0 {
		return Chunk{}, false
	}
	page := v.Buf.Page(pos / psize)
	if page == nil {
		return Chunk{}, false
	}
	inPage := pos % psize
	n := min(psize-inPage, v.Len-it.off, max)
	return Chunk{Page: page, Off: inPage, Len: n}, true
}

// Byte returns the byte at the iterator's position, and whether the
// program's buffer is known to hold it there (Buffer.Head).
func (it *Iter) Byte() (byte, bool) {
	for j, off := it.i, it.off; j < len(it.iov); j, off = j+1, 0 {
		v := it.iov[j]
		if off >= v.Len {
			continue
		}
		if v.Buf == nil || v.Off+off >= len(v.Buf.Head) {
			return 0, false
		}
		return v.Buf.Head[v.Off+off], true
	}
	return 0, false
}

// Advance consumes n bytes (iov_iter_advance).
func (it *Iter) Advance(n int) {
	for n > 0 && it.i < len(it.iov) {
		step := min(n, it.iov[it.i].Len-it.off)
		it.off += step
		n -= step
		if it.off == it.iov[it.i].Len {
			it.i, it.off = it.i+1, 0
		}
	}
}

// Truncate cuts what is left to at most n bytes (iov_iter_truncate); the
// caller's iovecs are not changed.
func (it *Iter) Truncate(n int) {
	left := n + it.off
	for j := it.i; j < len(it.iov); j++ {
		if it.iov[j].Len >= left {
			iov := append([]Iovec(nil), it.iov[:j+1]...)
			iov[j].Len = left
			it.iov = iov
			return
		}
		left -= it.iov[j].Len
	}
}
