package scenario

import (
	"math"
	"strconv"
	"strings"
)

// parseNumber decodes a size or integer: decimal digits with an optional K,
// M or G suffix (KiB, MiB, GiB), or 0x followed by hex digits.
func parseNumber(s string) (uint64, string) {
	const bad = "bad number, want digits with an optional K, M or G suffix, or 0x and hex digits"
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		if h == "" || !allOf(h, isHexDigit) {
			return 0, bad
		}
		n, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			return 0, "number out of range"
		}
		return n, ""
	}
	digits, mult := s, uint64(1)
	switch s[len(s)-1] {
	case 'K':
		digits, mult = s[:len(s)-1], 1<<10
	case 'M':
		digits, mult = s[:len(s)-1], 1<<20
	case 'G':
		digits, mult = s[:len(s)-1], 1<<30
	}
	if digits == "" || !allOf(digits, isDigit) {
		return 0, bad
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n > math.MaxUint64/mult {
		return 0, "number out of range"
	}
	return n * mult, ""
}

// durationUnits are the units of a duration, in nanoseconds; longer
// suffixes first, so "ms" is not read as "s".
var durationUnits = []struct {
	unit string
	ns   uint64
}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// parseDuration decodes a duration: decimal digits and a unit.
func parseDuration(s string) (uint64, string) {
	const bad = "bad duration, want an integer with unit ns, us, ms or s"
	for _, u := range durationUnits {
		digits, ok := strings.CutSuffix(s, u.unit)
		if !ok {
			continue
		}
		if digits == "" || !allOf(digits, isDigit) {
			return 0, bad
		}
		n, err := strconv.ParseUint(digits, 10, 64)
		if err != nil || n > math.MaxInt64/u.ns {
			return 0, "duration out of range"
		}
		return n * u.ns, ""
	}
	return 0, bad
}

// isFraction reports whether s is a probability: 0, 1, or a decimal
// fraction such as 0.25 or 1.0 between them.
func isFraction(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	if whole != "0" && whole != "1" || dot && (frac == "" || !allOf(frac, isDigit)) {
		return false
	}
	return whole == "0" || strings.Trim(frac, "0") == ""
}

func allOf(s string, pred func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !pred(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isLetter(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isNameByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '-' }
func isDottedByte(c byte) bool {
	return isNameByte(c) || c == '.'
}
func isWordByte(c byte) bool { return isDottedByte(c) || c == '+' || c == ':' || c == '/' }

// isName reports whether s names something the scenario defines: a letter
// or _, then letters, digits, _ or -.
func isName(s string) bool { return s != "" && isLetter(s[0]) && allOf(s, isNameByte) }

// isDotted is isName that also allows dots, as in linux-6.18 and
// net.core.optmem_max.
func isDotted(s string) bool { return s != "" && isLetter(s[0]) && allOf(s, isDottedByte) }

// isWord reports whether s is a plain word value.
func isWord(s string) bool { return s != "" && allOf(s, isWordByte) }

// isCookie reports whether s is a TCP Fast Open cookie as packetdrill
// writes one: hex digits, two a byte, at most TCP_FASTOPEN_COOKIE_MAX
// (16) bytes.
func isCookie(s string) bool {
	return s != "" && len(s)%2 == 0 && len(s) <= 32 && allOf(s, func(c byte) bool {
		return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
	})
}
