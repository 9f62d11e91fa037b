package strace

import (
	"slices"
	"strconv"
	"strings"
)

// Kind says which shape a [Value] has. The zero Kind is [KindInvalid], the
// kind of the zero Value.
type Kind uint8

// The kinds of argument values strace prints.
const (
	KindInvalid Kind = iota // the zero Value: no value
	KindInt                 // 42, -1, 0x7ffc1062fb30, 0644
	KindFlags               // MSG_ZEROCOPY, SOCK_DGRAM|SOCK_CLOEXEC, S_IFREG|0644, NULL
	KindString              // "abc", "abc"... (truncated), @"abstract"
	KindArray               // [1], [{...}, {...}], [HUP INT], [...]
	KindStruct              // {name=value, ...}; positional elements have an empty name
	KindMacro               // htons(8000), inet_addr("127.0.0.1"), inet_pton(AF_INET6, "::1", &sin6_addr)
	KindExpr                // anything kept as text: 8192*1024, sizeof(struct x), &sin6_addr, ~[RTMIN]
	KindFd                  // 3<TCP:[127.0.0.1:41234->127.0.0.1:8000]> (-y / -yy)
	KindInOut               // 28 => 0: the value on entry and on exit
	KindOmitted             // ... : elements strace left out
	KindComment             // /* 30 vars */ standing where a value was expected
)

var kindNames = [...]string{"invalid", "int", "flags", "string", "array", "struct", "macro", "expr", "fd", "inout", "omitted", "comment"}

// String returns the lower-case name of k, such as "int".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText makes a Kind print as its name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Value is one node of the generic argument tree of a [Call]. Which fields
// are meaningful depends on Kind; the others are zero. The zero Value has
// [KindInvalid] and stands for "absent".
//
//	KindInt     Int (two's complement bits of the number; see Uint), Text
//	KindFlags   Names in order, Rem (the numeric parts OR-ed) and HasRem; Decor of a
//	            name -y decorates (AT_FDCWD</home/u>)
//	KindString  Str (decoded bytes), Truncated when strace printed "..." after it
//	KindArray   Elems
//	KindStruct  Fields in order
//	KindMacro   Name (the function), Elems (its arguments)
//	any kind    Name of an argument strace prints as name=value
//	            (clone(child_stack=NULL, flags=...)), Text with the name
//	KindExpr    Text only
//	KindFd      Int (the descriptor), Decor (text between < and >)
//	KindInOut   Elems[0] (on entry) and Elems[1] (on exit)
//
// Text is always the source text of the value, Comment the text of a
// following -X verbose comment (/* SOL_SOCKET */) without the markers, and
// Line and Col where the value starts (1-based, in bytes).
type Value struct {
	Kind      Kind     `json:"kind"`
	Text      string   `json:"text,omitempty"`
	Int       int64    `json:"int,omitempty"`
	Names     []string `json:"names,omitempty"`
	Rem       uint64   `json:"rem,omitempty"`
	HasRem    bool     `json:"has_rem,omitempty"`
	Str       string   `json:"str,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Name      string   `json:"name,omitempty"`
	Decor     string   `json:"decor,omitempty"`
	Elems     []Value  `json:"elems,omitempty"`
	Fields    []Field  `json:"fields,omitempty"`
	Comment   string   `json:"comment,omitempty"`
	Line      int      `json:"line,omitempty"`
	Col       int      `json:"col,omitempty"`
}

// Field is one member of a struct value. Name is empty for positional
// members such as the WIFEXITED(s) && WEXITSTATUS(s) == 0 of wait4.
type Field struct {
	Name  string `json:"name,omitempty"`
	Value Value  `json:"value"`
}

// IsValid reports whether v is not the zero Value.
func (v Value) IsValid() bool { return v.Kind != KindInvalid }

// IsNull reports whether v is the NULL pointer.
func (v Value) IsNull() bool {
	return v.Kind == KindFlags && len(v.Names) == 1 && v.Names[0] == "NULL" && !v.HasRem
}

// Exit returns the value on exit of an in/out value (msg_namelen=28 => 0)
// and v itself otherwise.
func (v Value) Exit() Value {
	if v.Kind == KindInOut && len(v.Elems) == 2 {
		return v.Elems[1]
	}
	return v
}

// Entry returns the value on entry of an in/out value and v itself
// otherwise.
func (v Value) Entry() Value {
	if v.Kind == KindInOut && len(v.Elems) == 2 {
		return v.Elems[0]
	}
	return v
}

// AsInt returns the number v stands for: an Int or Fd, a Flags value made
// of numbers only, a single-element array ([4]), an in/out value's exit
// side, a product such as 8192*1024, or a macro htons(N)/htonl(N).
func (v Value) AsInt() (int64, bool) {
	switch v.Kind {
	case KindInt, KindFd:
		return v.Int, true
	case KindFlags:
		if len(v.Names) == 0 && v.HasRem {
			return int64(v.Rem), true
		}
	case KindArray:
		if len(v.Elems) == 1 {
			return v.Elems[0].AsInt()
		}
	case KindInOut:
		return v.Exit().AsInt()
	case KindExpr:
		return evalProduct(v.Text)
	case KindMacro:
		if (v.Name == "htons" || v.Name == "htonl") && len(v.Elems) == 1 {
			return v.Elems[0].AsInt()
		}
	}
	return 0, false
}

// Uint returns v.Int as the unsigned number strace printed (0xffffffffffffffff
// is stored as Int -1).
func (v Value) Uint() uint64 { return uint64(v.Int) }

// Symbols returns the symbolic names of a flags value, taking them from a
// -X verbose comment when v itself is numeric (0x4000000 /* MSG_ZEROCOPY */),
// and the numeric remainder as a hexadecimal string ("0x80000") after the
// names. It returns nil for other kinds.
func (v Value) Symbols() []string {
	names, shared := v.symbols()
	if shared {
		return append([]string(nil), names...)
	}
	return names
}

// symbols is Symbols, without a copy when the names are v.Names as they
// are (shared reports it): the caller must then not change them.
func (v *Value) symbols() (names []string, shared bool) {
	if v.namedByComment() {
		if names, ok := commentNames(v.Comment); ok {
			return names, false
		}
	}
	switch v.Kind {
	case KindFlags:
		if !v.remShown() {
			return v.Names, true
		}
		out := make([]string, len(v.Names), len(v.Names)+1)
		copy(out, v.Names)
		return append(out, v.remName()), false
	case KindInt:
		return []string{v.Text}, false
	}
	return nil, false
}

// namedByComment reports whether a -X verbose comment may name v: v is
// numeric and has one.
func (v *Value) namedByComment() bool {
	return (v.Kind == KindInt || v.Kind == KindFlags && len(v.Names) == 0) && v.Comment != ""
}

// remShown reports whether a flags value's symbols end in its numeric
// remainder, which remName spells.
func (v *Value) remShown() bool { return v.HasRem && (v.Rem != 0 || len(v.Names) == 0) }

func (v *Value) remName() string { return "0x" + strconv.FormatUint(v.Rem, 16) }

// Symbol returns the single name of v (SOL_SOCKET), or its text when v is
// not a single name ("0x1" under -X raw).
func (v Value) Symbol() string {
	s, _ := v.symbols()
	if len(s) == 1 {
		return s[0]
	}
	if len(s) > 1 {
		return strings.Join(s, "|")
	}
	return v.Text
}

// commentNames splits a -X verbose comment such as "MSG_MORE|MSG_ZEROCOPY"
// into names; it fails for comments that are not a flag union.
func commentNames(c string) ([]string, bool) {
	if ok, _ := commentHas(c, ""); !ok {
		return nil, false
	}
	return strings.Split(strings.TrimSpace(c), "|"), true
}

// commentHas reports whether a -X verbose comment is a flag union (ok)
// and whether name is one of its names.
func commentHas(c, name string) (ok, has bool) {
	for p := range strings.SplitSeq(strings.TrimSpace(c), "|") {
		if !isIdent(p) {
			return false, false
		}
		has = has || p == name
	}
	return true, has
}

func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// Field returns the member of a struct value with the given name.
func (v Value) Field(name string) (Value, bool) {
	for _, f := range v.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// Has reports whether the flags value v contains the name, either spelled
// out or, when the value is numeric, as the given bit.
func (v Value) Has(name string, bit uint64) bool {
	if v.hasSymbol(name) {
		return true
	}
	switch v.Kind {
	case KindFlags:
		return v.HasRem && v.Rem&bit != 0
	case KindInt:
		return v.Uint()&bit != 0
	}
	return false
}

// hasSymbol reports whether name is one of v's Symbols, without listing
// them.
func (v *Value) hasSymbol(name string) bool {
	if v.namedByComment() {
		if ok, has := commentHas(v.Comment, name); ok {
			return has
		}
	}
	switch v.Kind {
	case KindFlags:
		return slices.Contains(v.Names, name) || v.remShown() && strings.HasPrefix(name, "0x") && name == v.remName()
	case KindInt:
		return v.Text == name
	}
	return false
}

// evalProduct evaluates the products and shifts strace prints for limits
// and sizes: "8192*1024", "1<<20". It fails for anything else.
func evalProduct(s string) (int64, bool) {
	if a, b, ok := strings.Cut(s, "<<"); ok {
		x, ok1 := parseNumber(a)
		y, ok2 := parseNumber(b)
		if !ok1 || !ok2 || y < 0 || y > 62 {
			return 0, false
		}
		return x << uint(y), true
	}
	r := int64(1)
	for p := range strings.SplitSeq(s, "*") {
		x, ok := parseNumber(p)
		if !ok {
			return 0, false
		}
		r *= x
	}
	return r, true
}

// parseNumber parses a C integer literal: decimal, 0x hex or 0 octal,
// optionally negative. Numbers above MaxInt64 keep their bits.
func parseNumber(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	u, ok := parseDecimal(s)
	if !ok {
		var err error
		if u, err = strconv.ParseUint(s, 0, 64); err != nil {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// parseDecimal parses the plain decimal numbers most arguments are, of
// at most 19 digits (below 10^19, so no overflow) and no leading 0 (an
// octal number), without strconv's general path; ok is false for
// anything else, which strconv then reads.
func parseDecimal(s string) (uint64, bool) {
	if len(s) > 19 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	return u, true
}
