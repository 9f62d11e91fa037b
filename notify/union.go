package notify

import (
	"cmp"
	"fmt"
	"slices"
)

// Union is the ids a program has received completions for, as the ranges
// it read (recvmsg(MSG_ERRQUEUE) or an SCM_ZC_NOTIFICATION): what a test
// that accepts any coalescing split checks instead of each record. A range
// that follows or precedes one already held (u32 arithmetic, so runs wrap
// at 2^32) joins it, so in-order completions take one run whatever their
// split; a range overlapping one held stays apart, so an id read twice is
// seen. The zero Union holds nothing.
type Union struct {
	runs []Range
	ids  uint64
}

// Add records that the program received r's ids.
func (u *Union) Add(r Range) {
	u.ids += r.Len()
	for i := u.joinable(r); i >= 0; i = u.joinable(r) {
		if run := u.runs[i]; run.Hi+1 == r.Lo {
			r.Lo = run.Lo
		} else {
			r.Hi = run.Hi
		}
		u.runs = slices.Delete(u.runs, i, i+1)
	}
	u.runs = append(u.runs, r)
}

// joinable returns the index of a run r follows or precedes exactly, the
// two holding at most 2^32 ids together, or -1.
func (u *Union) joinable(r Range) int {
	return slices.IndexFunc(u.runs, func(run Range) bool {
		return (run.Hi+1 == r.Lo || r.Hi+1 == run.Lo) && run.Len()+r.Len() <= 1<<32
	})
}

// Len returns how many ids the program received, each time counted.
func (u *Union) Len() uint64 { return u.ids }

// Exactly reports whether the ids received are exactly want, each once;
// if not, the reason is what was received instead.
func (u *Union) Exactly(want Range) (bool, string) {
	if u.ids == 0 {
		return false, "no id"
	}
	// Offsets from want.Lo put want at [0, want.Len()), wrap or not.
	type span struct{ from, to uint64 }
	spans := make([]span, len(u.runs))
	for i, r := range u.runs {
		from := uint64(r.Lo - want.Lo)
		spans[i] = span{from, from + r.Len()}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	end := uint64(0)
	for _, s := range spans {
		if s.to > want.Len() {
			out := want.Lo + uint32(max(s.from, want.Len()))
			return false, fmt.Sprintf("%s, id %d outside %s", u, out, want)
		}
		if s.from > end {
			return false, fmt.Sprintf("%s, id %d missing", u, want.Lo+uint32(end))
		}
		if s.from < end {
			return false, fmt.Sprintf("%s, id %d twice", u, want.Lo+uint32(s.from))
		}
		end = s.to
	}
	if end < want.Len() {
		return false, fmt.Sprintf("%s, ids from %d missing", u, want.Lo+uint32(end))
	}
	return true, ""
}

// String renders the union's runs, the one that grew last at the end:
// "[0,31]", "[5,9] [0,3]".
func (u *Union) String() string {
	if len(u.runs) == 0 {
		return "no id"
	}
	s := ""
	for i, r := range u.runs {
		if i > 0 {
			s += " "
		}
		s += r.String()
	}
	return s
}
