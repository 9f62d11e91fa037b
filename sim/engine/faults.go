package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// RuleKind says when an armed fault site fails. The zero RuleKind is Never.
type RuleKind uint8

// Rule kinds; the text in quotes is their [ParseRule] syntax.
const (
	Never  RuleKind = iota // "never": the site never fails (the default)
	Always                 // "always": every call fails
	Nth                    // "nth=N": only the site's Nth call after arming fails
	From                   // "from=N": the site's Nth call after arming and every later one fail
	Next                   // "next=N": the N calls after arming fail
	Prob                   // "p=P": each call fails with probability P, drawn from stream "fault/<site>"
)

// million is the denominator of Rule.PPM: probability 1.
const million = 1_000_000

// Rule says when a fault site fails. It is a small comparable value; the zero Rule is
// "never". Call numbers count the site's calls since the rule was armed, from 1, so a
// rule armed in the middle of a run means "the Nth time from now".
type Rule struct {
	Kind RuleKind
	N    uint64 // Nth, From: a call number, from 1; Next: how many calls; otherwise 0
	PPM  uint32 // Prob: the probability in parts per million, 0 to 1_000_000; otherwise 0
}

// Validate reports whether r is well formed: N set (and at least 1) exactly for Nth,
// From and Next, PPM at most 1_000_000 and only for Prob.
func (r Rule) Validate() error {
	if msg := r.check(); msg != "" {
		return fmt.Errorf("engine: invalid fault rule %v: %s", r, msg)
	}
	return nil
}

// check returns what is wrong with r, or "".
func (r Rule) check() string {
	switch {
	case r.Kind > Prob:
		return "unknown kind"
	case r.Kind != Prob && r.PPM != 0:
		return "PPM is only for p rules"
	case r.Kind == Prob && r.PPM > million:
		return "probability exceeds 1"
	case r.Kind == Nth || r.Kind == From || r.Kind == Next:
		if r.N == 0 {
			return "N counts from 1"
		}
	case r.N != 0:
		return "N is only for nth, from and next rules"
	}
	return ""
}

// String returns r in [ParseRule] syntax, e.g. "nth=3" or "p=0.25"; ParseRule reads
// back every valid Rule.
func (r Rule) String() string {
	switch r.Kind {
	case Never:
		return "never"
	case Always:
		return "always"
	case Nth:
		return "nth=" + strconv.FormatUint(r.N, 10)
	case From:
		return "from=" + strconv.FormatUint(r.N, 10)
	case Next:
		return "next=" + strconv.FormatUint(r.N, 10)
	case Prob:
		s := strconv.FormatUint(uint64(r.PPM/million), 10)
		if frac := r.PPM % million; frac != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
		}
		return "p=" + s
	}
	return fmt.Sprintf("RuleKind(%d)", r.Kind)
}

// ParseRule parses a fault rule: "never", "always", "nth=N", "from=N", "next=N"
// (N a decimal integer from 1) or "p=P" (P a decimal from 0 to 1 with at most 6
// fractional digits, e.g. "0.25", held exactly as parts per million). Errors are
// [*SyntaxError]s naming the column of the offending text.
func ParseRule(s string) (Rule, error) {
	fail := func(col int, msg string) (Rule, error) {
		return Rule{}, &SyntaxError{Func: "ParseRule", Input: s, Col: col, Msg: msg}
	}
	name, val, hasVal := strings.Cut(s, "=")
	valCol := len(name) + 2
	var r Rule
	switch name {
	case "never", "always":
		if hasVal {
			return fail(valCol-1, name+" takes no value")
		}
		if name == "always" {
			r.Kind = Always
		}
		return r, nil
	case "nth":
		r.Kind = Nth
	case "from":
		r.Kind = From
	case "next":
		r.Kind = Next
	case "p":
		r.Kind = Prob
	default:
		return fail(1, "unknown rule "+strconv.Quote(name)+"; want never, always, nth=N, from=N, next=N or p=P")
	}
	var col int
	var msg string
	switch {
	case !hasVal && r.Kind == Prob:
		col, msg = -1, "missing value; want p=P"
	case !hasVal:
		col, msg = -1, "missing value; want "+name+"=N"
	case r.Kind == Prob:
		r.PPM, col, msg = parsePPM(val)
	default:
		r.N, col, msg = parseCount(val)
	}
	if msg != "" {
		return fail(valCol+col, msg)
	}
	return r, nil
}

// parseCount parses N of "nth=N" and friends. On error it returns the 0-based offset
// within s of the offending text and what is wrong.
func parseCount(s string) (n uint64, col int, msg string) {
	n, end, overflow := scanUint(s, 0)
	switch {
	case end == 0:
		return 0, 0, "expected a decimal integer"
	case end < len(s):
		return 0, end, fmt.Sprintf("unexpected %q after the number", s[end:])
	case overflow:
		return 0, 0, "number overflows uint64"
	case n == 0:
		return 0, 0, "counts from 1"
	}
	return n, 0, ""
}

// parsePPM parses P of "p=P" into parts per million, exactly. On error it returns the
// 0-based offset within s of the offending text and what is wrong.
func parsePPM(s string) (ppm uint32, col int, msg string) {
	whole, end, overflow := scanUint(s, 0)
	if end == 0 {
		return 0, 0, "expected a probability such as 0.25"
	}
	var frac uint64
	if end < len(s) {
		if s[end] != '.' {
			return 0, end, fmt.Sprintf("unexpected %q after the number", s[end:])
		}
		start := end + 1
		frac, end, _ = scanUint(s, start)
		switch digits := end - start; {
		case digits == 0:
			return 0, start, "expected a digit after the decimal point"
		case digits > 6:
			return 0, start + 6, "more than 6 fractional digits"
		case end < len(s):
			return 0, end, fmt.Sprintf("unexpected %q after the number", s[end:])
		default:
			for ; digits < 6; digits++ {
				frac *= 10
			}
		}
	}
	if overflow || whole > 1 || whole*million+frac > million {
		return 0, 0, "probability exceeds 1"
	}
	return uint32(whole*million + frac), 0, ""
}

// Fired records one failure of a fault site, for trace output.
type Fired struct {
	Site string
	Call uint64 // the site's call number, from 1
}

// Site is the state of one fault site.
type Site struct {
	Name     string
	Rule     Rule
	Calls    uint64 // calls of Fail for this site so far
	Failures uint64 // calls that failed
}

// site is a Site plus what its rule needs.
type site struct {
	Site
	armedAt uint64     // Calls when the rule was armed; Nth, From and Next count from here
	rng     *rand.Rand // the "fault/<site>" stream, for Prob
}

// fails reports whether the call numbered s.Calls fails under s's rule.
func (s *site) fails() bool {
	switch r := s.Rule; r.Kind {
	case Always:
		return true
	case Nth:
		return s.Calls-s.armedAt == r.N
	case From:
		return s.Calls-s.armedAt >= r.N
	case Next:
		return s.Calls-s.armedAt <= r.N
	case Prob:
		return s.rng.Uint32N(million) < r.PPM
	}
	return false
}

// Faults is a set of named fault sites in the style of FoundationDB's BUGGIFY: the
// model asks Fail(site) at each place where the real kernel could fail (an allocation,
// a lost packet) and the rule armed for that site answers. Sites are arbitrary strings
// and need no declaration; an unarmed site never fails but its calls are counted.
//
// Use [NewFaults]; Faults must not be copied after first use.
type Faults struct {
	streams *Streams
	// sites are the sites armed or called so far, in the order first
	// named: a run names a handful, and the model asks for one at every
	// allocation it could fail, so a scan that compares lengths first
	// finds one sooner than a map's hash.
	sites []*site
	log   []Fired
}

// NewFaults returns a set of fault sites, all unarmed, whose "p=" rules draw from
// streams.
//
// Preconditions: streams is not nil.
func NewFaults(streams *Streams) *Faults {
	return &Faults{streams: streams}
}

// Arm sets the rule of site, replacing any earlier one; Rule{} disarms it. The rule's
// call numbers start from here; the site's totals carry on. It fails, changing nothing, if r is not valid.
func (f *Faults) Arm(name string, r Rule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	s := f.site(name)
	s.Rule, s.armedAt = r, s.Calls
	if r.Kind == Prob && s.rng == nil {
		s.rng = f.streams.Rand("fault/" + name)
	}
	return nil
}

// Fail counts a call of site and reports whether it fails under the site's rule.
// Failures are logged.
func (f *Faults) Fail(name string) bool {
	s := f.site(name)
	s.Calls++
	if !s.fails() {
		return false
	}
	s.Failures++
	f.log = append(f.log, Fired{Site: name, Call: s.Calls})
	return true
}

// Site returns the state of site name; a site never armed nor called has the zero
// Rule and counts.
func (f *Faults) Site(name string) Site {
	if s := f.find(name); s != nil {
		return s.Site
	}
	return Site{Name: name}
}

// Sites returns every site armed or called so far, sorted by name.
func (f *Faults) Sites() []Site {
	sites := make([]Site, 0, len(f.sites))
	for _, s := range f.sites {
		sites = append(sites, s.Site)
	}
	slices.SortFunc(sites, func(a, b Site) int { return strings.Compare(a.Name, b.Name) })
	return sites
}

// Armed returns the names of the sites whose rule is not Never, sorted.
func (f *Faults) Armed() []string {
	var names []string
	for _, s := range f.Sites() {
		if s.Rule.Kind != Never {
			names = append(names, s.Name)
		}
	}
	return names
}

// Log returns a copy of the failures so far, in the order they happened.
func (f *Faults) Log() []Fired { return slices.Clone(f.log) }

// site returns the state of name, creating it on first use.
func (f *Faults) site(name string) *site {
	s := f.find(name)
	if s == nil {
		s = &site{Site: Site{Name: name}}
		f.sites = append(f.sites, s)
	}
	return s
}

// find returns the state of site name, or nil if it was never armed nor called.
func (f *Faults) find(name string) *site {
	for _, s := range f.sites {
		if s.Name == name {
			return s
		}
	}
	return nil
}
