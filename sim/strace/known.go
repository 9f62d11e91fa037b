package strace

// A Scanner remembers the whole-call lines it read lately, by their text
// after the pid and the timestamp: programs make the same calls in loops
// (eight sends, a read, an error-queue read that finds nothing, again),
// and strace prints those alike but for the pid and the time. A line
// whose text came before is parsed once more, the second time, into a
// call of its own memory (Call.Clone); from the third time on it is not
// parsed: its Call is that call with its own line, pid, time and columns.
// The first Decoder to decode such a call without an error keeps the Op,
// and every Decoder hands out copies of it with the call's own Header, so
// a repeated line is decoded once too.
//
// What is remembered is bounded, whatever the log's length: the last
// maxFresh texts seen once and the last maxHot seen more often, each in
// a ring of its own, so that a stream of lines that never repeat (the
// error-queue reads of growing id ranges) does not push out the lines
// that do.
type knownLine struct {
	text string
	// call is the line's call once the text came twice, its values its
	// own (nil before); at is where the text started on the line that
	// last listed it, as values hold columns.
	call *Call
	at   int
	// op is call decoded, under the Header of the call that decoded it
	// first, once a Decoder decoded it without an error.
	op Op
}

// The bounds of what a Scanner remembers.
const (
	maxFresh = 64
	maxHot   = 32
)

// knownRing holds the last lines of one kind; the oldest gives way.
type knownRing struct {
	lines []*knownLine
	next  int
}

// add puts k in the ring and returns the line it pushed out, if any.
func (r *knownRing) add(k *knownLine, size int) *knownLine {
	if len(r.lines) < size {
		r.lines = append(r.lines, k)
		return nil
	}
	old := r.lines[r.next]
	r.lines[r.next] = k
	r.next = (r.next + 1) % size
	return old
}

// knownLines is a Scanner's memory of the lines it read lately.
type knownLines struct {
	byText     map[string]*knownLine
	fresh, hot knownRing
	// prev is the line before's entry when it was listed from a parse:
	// its values are still in the carver, so a repeat of it needs no
	// parse to learn its call.
	prev     *knownLine
	prevCall Call
}

// lookup returns the entry of a line's text, nil if it came before
// neither once nor more.
func (m *knownLines) lookup(text string) *knownLine { return m.byText[text] }

// seen records that a line of text was parsed into call, its text at
// offset at, and returns the entry the call refers to (nil for a first
// sighting, whose values stay the carver's).
func (m *knownLines) seen(text string, call Call, at int) *knownLine {
	k := m.byText[text]
	if k == nil {
		if m.byText == nil {
			m.byText = map[string]*knownLine{}
		}
		k = &knownLine{text: text, at: at}
		m.byText[text] = k
		m.drop(m.fresh.add(k, maxFresh))
		m.prev, m.prevCall = k, call
		return nil
	}
	m.learn(k, call, at)
	m.prev = nil
	return k
}

// learn gives k, a text seen once, its call (values copied out of the
// carver) and moves it among the lines seen more often.
func (m *knownLines) learn(k *knownLine, call Call, at int) {
	c := call.Clone()
	k.call, k.at = &c, at
	m.drop(m.hot.add(k, maxHot))
}

// drop forgets a line a ring pushed out, unless it moved to the other
// ring meanwhile or its text has a newer entry.
func (m *knownLines) drop(k *knownLine) {
	if k == nil || m.byText[k.text] != k {
		return
	}
	if k.call == nil || !m.inHot(k) {
		delete(m.byText, k.text)
	}
}

// inHot reports whether k is in the ring of lines seen more often.
func (m *knownLines) inHot(k *knownLine) bool {
	for _, h := range m.hot.lines {
		if h == k {
			return true
		}
	}
	return false
}

// withHeader returns a copy of op with the Header h, nil for an Op of a
// type it does not list (which is then decoded anew).
func withHeader(op Op, h Header) Op {
	switch o := op.(type) {
	case *Socket:
		return copied(o, h)
	case *SocketPair:
		return copied(o, h)
	case *Bind:
		return copied(o, h)
	case *Connect:
		return copied(o, h)
	case *Listen:
		return copied(o, h)
	case *Accept:
		return copied(o, h)
	case *SockOpt:
		return copied(o, h)
	case *Send:
		return copied(o, h)
	case *SendMmsg:
		return copied(o, h)
	case *Recv:
		return copied(o, h)
	case *Close:
		return copied(o, h)
	case *Shutdown:
		return copied(o, h)
	case *Rlimit:
		return copied(o, h)
	case *Ignored:
		return copied(o, h)
	case *Dup:
		return copied(o, h)
	case *SetFd:
		return copied(o, h)
	case *Exec:
		return copied(o, h)
	case *Fork:
		return copied(o, h)
	case *CloseRange:
		return copied(o, h)
	case *Poll:
		return copied(o, h)
	case *Select:
		return copied(o, h)
	case *ZcRecv:
		return copied(o, h)
	case *Mmap:
		return copied(o, h)
	case *Munmap:
		return copied(o, h)
	case *EpollCreate:
		return copied(o, h)
	case *EpollCtl:
		return copied(o, h)
	case *EpollWait:
		return copied(o, h)
	}
	return nil
}

// copied is a copy of *o with the Header h.
func copied[T any, P interface {
	*T
	Op
}](o P, h Header) Op {
	c := P(new(T))
	*c = *o
	*c.Head() = h
	return c
}
