package strace

import "slices"

// A Scanner also remembers, by their shape, the last lines it parsed
// whose text was new: the text after the pid and the timestamp with every
// run of decimal digits as one mark. Lines of one shape differ only in
// their numbers: a program's error-queue reads print the range of
// notifications each one got (ee_info=8, ee_data=15; then 16, 23), which
// grows, so their text never repeats (knownLine) and each was parsed in
// full. A line of a shape seen before whose numbers differ from that
// line's only where that line had a whole decimal integer (a KindInt
// value of the run's text alone, such as ee_info's 8) is not parsed: its
// call is that line's with those integers, every value's text and column
// taken from the line, as parsing it would give. A line whose numbers
// differ elsewhere (inside a string, a hex or signed number, a flag set,
// an expression, a comment, a -T duration) is parsed.
//
// A shape is remembered the second time a parsed line has it, if the two
// lines differ only in integers (the first is only noted), so that a log
// whose lines seldom share a shape, or share it with numbers that are
// not integers (addresses in hex), does not pay for a copy of every
// call.
//
// What is remembered is bounded: the last maxShapes shapes, and the
// last maxOnce lines of shapes not remembered.
type shape struct {
	// text is the line's text after the pid and the timestamp, at its
	// offset in its line (as values hold columns); call is its call, its
	// values its own.
	text string
	at   int
	call Call
	// runs holds the start and end of each run of digits in text, in
	// pairs; ints, per run, the value that is that run's integer alone,
	// nil where there is none.
	runs []int
	ints []*Value
}

const (
	maxShapes = 16
	maxOnce   = 64
)

// seenOnce is a line parsed of a shape not remembered: its text and
// the hash of its shape.
type seenOnce struct {
	hash uint64
	text string
}

// shapes is a Scanner's memory of the shapes of the lines it parsed.
type shapes struct {
	byKey map[string]*shape
	keys  [maxShapes]string
	next  int
	// once holds the last lines parsed of shapes not remembered.
	once     [maxOnce]seenOnce
	nextOnce int
	// key and runs are the shape and the runs of digits of the line
	// being read (of); shift holds, per run and one past the last, how
	// much longer the runs before it are than the shape's line's, and
	// differ the runs that differ from its, in order (apply).
	key    []byte
	runs   []int
	shift  []int
	differ []int
}

// of computes the shape of text into s.key and its runs of digits into
// s.runs, and returns the shape remembered for it, if any.
func (s *shapes) of(text string) *shape {
	s.key, s.runs = s.key[:0], s.runs[:0]
	for i := 0; i < len(text); {
		start := i
		for i < len(text) && !isDigit(text[i]) {
			i++
		}
		s.key = append(s.key, text[start:i]...)
		if i == len(text) {
			break
		}
		start = i
		for i < len(text) && isDigit(text[i]) {
			i++
		}
		s.key = append(s.key, '0')
		s.runs = append(s.runs, start, i)
	}
	return s.byKey[string(s.key)]
}

// parsed notes that a line of text (at offset at in its line) of a
// shape not remembered (of, just called) was parsed into call, and
// remembers the shape (learn) if the last line parsed before that had
// it differs from this one only in integers.
func (s *shapes) parsed(text string, at int, call *Call) {
	if len(s.runs) == 0 {
		return // no numbers: its lines are alike (knownLine)
	}
	h := fnv1a(s.key)
	for i := range s.once {
		if o := &s.once[i]; o.hash == h && o.text != text {
			if s.learn(o.text, text, at, call) {
				*o = seenOnce{}
			} else {
				o.text = text
			}
			return
		}
	}
	s.once[s.nextOnce] = seenOnce{h, text}
	s.nextOnce = (s.nextOnce + 1) % maxOnce
}

// fnv1a is the 64-bit FNV-1a hash of b.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// learn remembers, under the shape of (which the caller just computed
// for text), the call a line of text (at offset at in its line) was
// parsed into, and reports whether it did: not when its numbers differ
// from those of before, a line of the same shape, where it has no
// integer of its own (ints), nor when some value's text is not where
// its column says, which the values' new texts are cut from (apply).
func (s *shapes) learn(before, text string, at int, call *Call) bool {
	t := &shape{text: text, at: at, call: *call, runs: s.runs}
	if !t.findInts() {
		return false
	}
	r := 0
	for i := 0; i < len(before); i++ {
		if !isDigit(before[i]) {
			continue
		}
		j := i
		for j < len(before) && isDigit(before[j]) {
			j++
		}
		if r+1 >= len(t.runs) {
			return false
		}
		if before[i:j] != text[t.runs[r]:t.runs[r+1]] && t.ints[r/2] == nil {
			return false
		}
		i, r = j-1, r+2
	}
	t.call, t.runs = call.Clone(), slices.Clone(s.runs)
	t.findInts()
	if s.byKey == nil {
		s.byKey = map[string]*shape{}
	}
	key := string(s.key)
	if old := s.keys[s.next]; old != "" {
		delete(s.byKey, old)
	}
	s.keys[s.next], s.byKey[key] = key, t
	s.next = (s.next + 1) % maxShapes
	return true
}

// findInts fills in t.ints from t.call, and reports whether every value's
// text is where its column says (span).
func (t *shape) findInts() bool {
	t.ints = make([]*Value, len(t.runs)/2)
	ok := true
	t.each(func(v *Value) {
		start, end, in := t.span(v)
		if !in {
			ok = false
			return
		}
		if v.Kind != KindInt || v.Name != "" || v.Comment != "" || v.Elems != nil || v.Fields != nil {
			return
		}
		for r := 0; r < len(t.runs); r += 2 {
			if t.runs[r] == start && t.runs[r+1] == end {
				if n, isNum := parseNumber(v.Text); isNum && n == v.Int {
					t.ints[r/2] = v
				}
			}
		}
	})
	return ok
}

// each calls f on every value of t's call, outermost first: the
// arguments, then the result's.
func (t *shape) each(f func(*Value)) {
	var walk func(v *Value)
	walk = func(v *Value) {
		f(v)
		for i := range v.Elems {
			walk(&v.Elems[i])
		}
		for i := range v.Fields {
			walk(&v.Fields[i].Value)
		}
	}
	for i := range t.call.Args {
		walk(&t.call.Args[i])
	}
	if t.call.Result.Value.IsValid() {
		walk(&t.call.Result.Value)
	}
}

// offsets returns where v's text starts and ends in t.text if it is
// there (span): at v's column, or for an argument strace named
// (name=value) at the name before it.
func (t *shape) offsets(v *Value) (start, end int) {
	start = v.Col - 1 - t.at
	if v.Name != "" && len(v.Text) > len(v.Name) && v.Text[len(v.Name)] == '=' && v.Text[:len(v.Name)] == v.Name {
		start -= len(v.Name) + 1
	}
	return start, start + len(v.Text)
}

// span returns v's offsets, and whether its text is there.
func (t *shape) span(v *Value) (start, end int, ok bool) {
	start, end = t.offsets(v)
	return start, end, start >= 0 && end <= len(t.text) && t.text[start:end] == v.Text
}

// apply lists the call of a line of text (at offset at in its line
// lineNo) from t, the shape remembered for it (of, just called), and
// reports whether it did: not when t's line differs from it but in
// whole integers, nor when it does not differ at all (knownLine).
func (p *parser) apply(t *shape, text string, at, lineNo, pid int, when Time) bool {
	s := &p.shapes
	s.shift, s.differ = append(s.shift[:0], 0), s.differ[:0]
	for r := 0; r < len(s.runs); r += 2 {
		old, now := t.text[t.runs[r]:t.runs[r+1]], text[s.runs[r]:s.runs[r+1]]
		s.shift = append(s.shift, s.shift[r/2]+len(now)-len(old))
		if old != now {
			if _, ok := parseNumber(now); !ok || t.ints[r/2] == nil {
				return false
			}
			s.differ = append(s.differ, r)
		}
	}
	if len(s.differ) == 0 {
		return false
	}
	call := t.call
	var ok bool
	if call.Args, ok = p.carveList(t, t.call.Args, text, at, lineNo); !ok {
		return false
	}
	if v := &t.call.Result.Value; v.IsValid() && !p.moveValue(t, v, &call.Result.Value, text, at, lineNo) {
		return false
	}
	call.Lines = p.lineSet([]segment{{0, lineNo, 1}})
	call.Pid, call.Time = pid, when
	p.log.Calls = append(p.log.Calls, call)
	return true
}

// moved is where offset off of t.text is in the line being read: after
// the runs that end at or before it, longer or shorter by their shift.
func (s *shapes) moved(t *shape, off int) int {
	lo, hi := 0, len(t.runs)/2 // the runs that end at or before off: [0, lo)
	for lo < hi {
		if m := (lo + hi) / 2; t.runs[2*m+1] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return off + s.shift[lo]
}

// carveList copies the values vs of t's call into the carver, as the
// line of text shows them (moveValue).
func (p *parser) carveList(t *shape, vs []Value, text string, at, lineNo int) ([]Value, bool) {
	if vs == nil {
		return nil, true
	}
	out := p.mem.vals.slab.cut(vs, p.mem.reuse)
	for i := range out {
		if !p.moveValue(t, &vs[i], &out[i], text, at, lineNo) {
			return nil, false
		}
	}
	return out, true
}

// moveValue makes v, a copy of the value src of t's call, the value as
// the line of text shows it, its elements and fields copied into the
// carver: its text cut from the line, its column moved, its integer
// parsed from the line if it is a changed run's (shape.ints). It fails
// on a value that a changed run cuts into, or that holds one but is
// neither the run's integer nor a struct, array, macro or in/out pair
// around it.
func (p *parser) moveValue(t *shape, src, v *Value, text string, at, lineNo int) bool {
	s := &p.shapes
	start, end := t.offsets(src)
	for _, r := range s.differ {
		if t.runs[r] >= end || t.runs[r+1] <= start {
			continue
		}
		if t.runs[r] < start || t.runs[r+1] > end {
			return false
		}
		switch {
		case t.ints[r/2] == src:
			v.Int, _ = parseNumber(text[s.runs[r]:s.runs[r+1]])
		case v.Kind != KindStruct && v.Kind != KindArray && v.Kind != KindMacro && v.Kind != KindInOut:
			return false
		}
	}
	v.Text = text[s.moved(t, start):s.moved(t, end)]
	v.Line, v.Col = lineNo, at+s.moved(t, src.Col-1-t.at)+1
	var ok bool
	if v.Elems, ok = p.carveList(t, src.Elems, text, at, lineNo); !ok {
		return false
	}
	if src.Fields != nil {
		v.Fields = p.mem.fields.slab.cut(src.Fields, p.mem.reuse)
		for j := range v.Fields {
			if !p.moveValue(t, &src.Fields[j].Value, &v.Fields[j].Value, text, at, lineNo) {
				return false
			}
		}
	}
	return true
}
