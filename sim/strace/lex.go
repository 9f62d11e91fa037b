package strace

import (
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of values, so hostile input cannot exhaust
// the stack.
const maxDepth = 64

// cursor walks one (possibly stitched) line of text.
type cursor struct {
	s     string
	i     int
	segs  []segment
	depth int
	// mem is the parser's, which the values are carved from.
	mem *carver
}

// pos maps offset off of c.s back to a source line and column.
func (c *cursor) pos(off int) (line, col int) {
	seg := c.segs[0]
	for _, s := range c.segs[1:] {
		if s.start <= off {
			seg = s
		}
	}
	return seg.line, seg.col + off - seg.start
}

func (c *cursor) fail(off int, format string, args ...any) *Error {
	line, col := c.pos(off)
	msg := format
	if len(args) > 0 {
		msg = sprintf(format, args...)
	}
	at := ""
	if off < len(c.s) {
		at = shorten(c.s[off:])
	}
	return &Error{Line: line, Col: col, Msg: msg, At: at}
}

func (c *cursor) peek() byte {
	if c.i < len(c.s) {
		return c.s[c.i]
	}
	return 0
}

func (c *cursor) eat(tok string) bool {
	if strings.HasPrefix(c.s[c.i:], tok) {
		c.i += len(tok)
		return true
	}
	return false
}

func (c *cursor) skipSpaces() {
	for c.i < len(c.s) && (c.s[c.i] == ' ' || c.s[c.i] == '\t') {
		c.i++
	}
}

// identClass classes each byte for identifiers: identStart for the bytes
// one may start with (letters, _ and the ? of "????"), identByte for the
// bytes it may hold (those and digits).
var identClass = func() (t [256]uint8) {
	for b := range 256 {
		start := b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '?'
		if start {
			t[b] |= identStart
		}
		if start || b >= '0' && b <= '9' {
			t[b] |= identByte
		}
	}
	return t
}()

const (
	identStart = 1 << iota
	identByte
)

func isIdentStart(b byte) bool { return identClass[b]&identStart != 0 }

func isIdentByte(b byte) bool { return identClass[b]&identByte != 0 }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// ident consumes an identifier (letters, digits, _ and the ? of "????")
// and returns it, or returns "" and consumes nothing.
func (c *cursor) ident() string {
	if c.i >= len(c.s) || !isIdentStart(c.s[c.i]) {
		return ""
	}
	start := c.i
	for c.i < len(c.s) && isIdentByte(c.s[c.i]) {
		c.i++
	}
	return c.s[start:c.i]
}

// pidPrefix consumes "[pid  123] " or "123 " and returns the pid, or 0.
func (c *cursor) pidPrefix() int {
	if rest, ok := strings.CutPrefix(c.s[c.i:], "[pid "); ok {
		t := strings.TrimLeft(rest, " ")
		end := strings.IndexByte(t, ']')
		if end > 0 && allDigits(t[:end]) && end < 10 {
			pid, _ := strconv.Atoi(t[:end])
			c.i += len("[pid ") + len(rest) - len(t) + end + 1
			c.skipSpaces()
			return pid
		}
		return 0
	}
	j := c.i
	for j < len(c.s) && isDigit(c.s[j]) {
		j++
	}
	if j > c.i && j-c.i < 10 && j < len(c.s) && c.s[j] == ' ' {
		pid, _ := strconv.Atoi(c.s[c.i:j])
		c.i = j
		c.skipSpaces()
		return pid
	}
	return 0
}

// epochThreshold separates -ttt timestamps (seconds since 1970, above
// 10^8 since 1973) from -r relative ones (seconds since the last line).
const epochThreshold = 100_000_000

// timestamp consumes a -t/-tt ("21:17:54[.188243]"), -ttt
// ("1795987092.696665") or -r ("     0.000182") timestamp if there is one.
// It reports false for text that starts like a timestamp but is not one.
func (c *cursor) timestamp() (Time, bool) {
	c.skipSpaces()
	j := c.i
	for j < len(c.s) && (isDigit(c.s[j]) || c.s[j] == ':' || c.s[j] == '.') {
		j++
	}
	if j == c.i || j >= len(c.s) || c.s[j] != ' ' {
		return Time{}, j == c.i
	}
	text := c.s[c.i:j]
	if strings.Contains(text, ":") {
		t, ok := parseClock(text)
		if ok {
			c.i = j
		}
		return t, ok
	}
	ns, ok := parseSeconds(text)
	if !ok {
		return Time{}, false
	}
	c.i = j
	if ns/1e9 >= epochThreshold {
		return Time{Kind: TimeEpoch, Nanos: ns}, true
	}
	return Time{Kind: TimeRelative, Nanos: ns}, true
}

// parseClock parses "HH:MM:SS[.frac]" into nanoseconds since midnight.
func parseClock(s string) (Time, bool) {
	hms, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 {
		return Time{}, false
	}
	var t int64
	for i, lim := range []int64{24, 60, 61} {
		if len(parts[i]) != 2 || !allDigits(parts[i]) {
			return Time{}, false
		}
		n, _ := strconv.ParseInt(parts[i], 10, 64)
		if n >= lim {
			return Time{}, false
		}
		t = t*60 + n
	}
	ns, ok := int64(0), true
	if hasFrac {
		ns, ok = parseSeconds("0." + frac)
	}
	if !ok {
		return Time{}, false
	}
	return Time{Kind: TimeOfDay, Nanos: t*1e9 + ns}, true
}

// skipBalanced skips from an open byte to its matching close byte,
// honouring nested pairs and quoted strings.
func (c *cursor) skipBalanced(open, close byte) bool {
	depth := 0
	for c.i < len(c.s) {
		switch b := c.s[c.i]; {
		case b == '"':
			if _, err := c.quoted(); err != nil {
				return false
			}
			continue
		case b == open:
			depth++
		case b == close:
			depth--
			if depth == 0 {
				c.i++
				return true
			}
		}
		c.i++
	}
	return false
}

// quoted consumes a C string literal at c.i and returns its decoded bytes.
func (c *cursor) quoted() (string, *Error) {
	start := c.i
	c.i++
	if end := strings.IndexAny(c.s[c.i:], "\\\""); end >= 0 && c.s[c.i+end] == '"' {
		str := c.s[c.i : c.i+end]
		c.i += end + 1
		return str, nil
	}
	var b strings.Builder
	for c.i < len(c.s) {
		ch := c.s[c.i]
		switch ch {
		case '"':
			c.i++
			return b.String(), nil
		case '\\':
			if err := c.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		b.WriteByte(ch)
		c.i++
	}
	return "", c.fail(start, "unterminated string")
}

// escape decodes one backslash escape at c.i into b.
func (c *cursor) escape(b *strings.Builder) *Error {
	at := c.i
	c.i++
	if c.i >= len(c.s) {
		return c.fail(at, "unterminated escape")
	}
	ch := c.s[c.i]
	if simple, ok := simpleEscapes[ch]; ok {
		b.WriteByte(simple)
		c.i++
		return nil
	}
	if ch == 'x' {
		j := c.i + 1
		for j < len(c.s) && j < c.i+3 && isHex(c.s[j]) {
			j++
		}
		if j == c.i+1 {
			return c.fail(at, "bad \\x escape")
		}
		n, _ := strconv.ParseUint(c.s[c.i+1:j], 16, 8)
		b.WriteByte(byte(n))
		c.i = j
		return nil
	}
	if ch >= '0' && ch <= '7' {
		j := c.i
		for j < len(c.s) && j < c.i+3 && c.s[j] >= '0' && c.s[j] <= '7' {
			j++
		}
		n, _ := strconv.ParseUint(c.s[c.i:j], 8, 16)
		b.WriteByte(byte(n))
		c.i = j
		return nil
	}
	return c.fail(at, "unknown escape \\%c", ch)
}

var simpleEscapes = map[byte]byte{
	'n': '\n', 't': '\t', 'r': '\r', 'v': '\v', 'f': '\f', 'a': '\a', 'b': '\b',
	'\\': '\\', '"': '"', '\'': '\'', '?': '?',
}

func isHex(b byte) bool {
	return isDigit(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}
