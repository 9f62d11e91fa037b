package gen

import (
	"strconv"
	"strings"
)

// MaxShrinkTries bounds how many candidates one Shrink call tests.
const MaxShrinkTries = 20000

// Shrink returns the smallest scenario it finds for which keep still
// reports true, starting from src, for which keep must report true. keep
// is the oracle: typically "runs without input errors and shows the same
// violation rule, or the same panic". Shrink tries, until none succeeds or
// MaxShrinkTries candidates were tested:
//
//   - deleting runs of lines, halving the run length down to one line
//     (delta debugging's ddmin over lines);
//   - deleting one token of a line after its keyword (an option, a flag
//     of a union, an iovec entry, a count);
//   - replacing a number by 0, then by half of itself (sizes halve
//     toward the smallest that still shows the failure).
//
// A candidate that does not parse simply fails keep. The result keeps
// src's line order; Shrink is deterministic.
func Shrink(src []byte, keep func([]byte) bool) []byte {
	s := &shrinker{keep: keep, lines: splitLines(src)}
	for progress := true; progress && s.tries < MaxShrinkTries; {
		progress = s.deleteLines()
		progress = s.simplifyTokens() || progress
	}
	return joinLines(s.lines)
}

type shrinker struct {
	keep  func([]byte) bool
	lines []string
	tries int
}

// try tests candidate lines and adopts them if keep holds.
func (s *shrinker) try(lines []string) bool {
	if s.tries >= MaxShrinkTries {
		return false
	}
	s.tries++
	if !s.keep(joinLines(lines)) {
		return false
	}
	s.lines = lines
	return true
}

func splitLines(src []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}

func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// deleteLines is ddmin's complement step: remove chunks of n lines, n
// halving from half the file to one line.
func (s *shrinker) deleteLines() bool {
	progress := false
	for n := max(len(s.lines)/2, 1); n >= 1; n /= 2 {
		for i := 0; i < len(s.lines); {
			cand := append(append([]string(nil), s.lines[:i]...), s.lines[min(i+n, len(s.lines)):]...)
			if s.try(cand) {
				progress = true
				continue
			}
			i += n
		}
	}
	return progress
}

// simplifyTokens deletes or shrinks tokens of each line.
func (s *shrinker) simplifyTokens() bool {
	progress := false
	for i := 0; i < len(s.lines); i++ {
		for j := 1; j < len(strings.Fields(s.lines[i])); j++ {
			for _, alt := range alternatives(strings.Fields(s.lines[i])[j]) {
				if s.try(s.withToken(i, j, alt)) {
					progress = true
					break
				}
			}
		}
	}
	return progress
}

// withToken returns the lines with token j of line i replaced by alt (or
// deleted, when alt is empty).
func (s *shrinker) withToken(i, j int, alt string) []string {
	f := strings.Fields(s.lines[i])
	f[j] = alt
	cand := append([]string(nil), s.lines...)
	line := strings.Join(strings.Fields(strings.Join(f, " ")), " ")
	cand[i] = strings.ReplaceAll(strings.ReplaceAll(line, "[ ", "["), ", ]", "]")
	return cand
}

// alternatives are the simpler forms of one token, simplest first: for a
// number (possibly inside "[…," punctuation, or an option's value after
// "=") 0 and its half; for a union each union without one member; for
// anything, deletion.
func alternatives(tok string) []string {
	var alts []string
	pre, core, post := splitPunct(tok)
	if key, val, ok := strings.Cut(core, "="); ok {
		pre, core = pre+key+"=", val
	}
	if n, ok := number(core); ok && n > 0 {
		alts = append(alts, pre+"0"+post)
		if n > 1 {
			alts = append(alts, pre+strconv.FormatUint(n/2, 10)+post)
		}
	}
	if isSymbols(core) {
		alts = append(alts, pre+"0"+post)
	}
	if parts := strings.Split(core, "|"); len(parts) > 1 {
		for k := range parts {
			rest := append(append([]string(nil), parts[:k]...), parts[k+1:]...)
			alts = append(alts, pre+strings.Join(rest, "|")+post)
		}
	}
	pre, _, post = splitPunct(tok)
	return append(alts, pre+strings.TrimPrefix(post, ","))
}

// isSymbols reports whether s is a union of kernel names such as
// MSG_ZEROCOPY|MSG_MORE, for which 0 is the simplest value.
func isSymbols(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '|')
	}) < 0 && s[0] >= 'A' && s[0] <= 'Z'
}

// splitPunct separates an iovec entry's brackets and comma from its number.
func splitPunct(tok string) (pre, core, post string) {
	core = strings.TrimLeft(tok, "[")
	pre = tok[:len(tok)-len(core)]
	trimmed := strings.TrimRight(core, "],")
	post = core[len(trimmed):]
	return pre, trimmed, post
}

// number reads a scenario number: decimal with an optional K, M or G
// suffix, or 0x hex. Values after an "=" are not numbers here.
func number(s string) (uint64, bool) {
	if strings.HasPrefix(s, "0x") {
		n, err := strconv.ParseUint(s[2:], 16, 64)
		return n, err == nil
	}
	shift := 0
	switch {
	case strings.HasSuffix(s, "K"):
		shift = 10
	case strings.HasSuffix(s, "M"):
		shift = 20
	case strings.HasSuffix(s, "G"):
		shift = 30
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n << shift, err == nil
}
