package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a place in a scenario file: File is the name given to [Parse], Line
// and Col are 1-based, and Col counts bytes (a tab is one column), as go/scanner
// does. The zero Pos means "no position" (see [Pos.IsValid]).
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p names a place in a file (Line > 0).
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders p as "file:line:col", dropping the parts that are unknown.
func (p Pos) String() string {
	switch {
	case !p.IsValid():
		return p.File
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Ident is one word of a statement with its position: a name the scenario
// defines or refers to (a socket, a device, a task), or a symbol the kernel
// spells (MSG_ZEROCOPY, AF_INET, SO_ZEROCOPY). The zero Ident means "absent".
type Ident struct {
	Pos  Pos
	Name string
}

// String returns the name as written.
func (id Ident) String() string { return id.Name }

// Sock names a socket: a name defined by a socket or accept statement, or
// with Peer set, the implicit far end of that socket's connection, written
// "S.peer".
type Sock struct {
	Pos  Pos
	Name string
	Peer bool
}

// String renders s as "S" or "S.peer".
func (s Sock) String() string {
	if s.Peer {
		return s.Name + ".peer"
	}
	return s.Name
}

// Flags is a "|"-union of kernel symbols, such as MSG_ZEROCOPY|MSG_DONTWAIT
// or SOCK_STREAM|SOCK_NONBLOCK, each with its position. Names are kept in
// source order. The zero Flags (no names) is the empty set, written "0".
type Flags struct {
	Pos   Pos
	Names []Ident
}

// IsZero reports whether f is the empty set.
func (f Flags) IsZero() bool { return len(f.Names) == 0 }

// Has reports whether name is one of the flags.
func (f Flags) Has(name string) bool {
	for _, n := range f.Names {
		if n.Name == name {
			return true
		}
	}
	return false
}

// String renders f as "A|B|C", or "0" for the empty set.
func (f Flags) String() string {
	if f.IsZero() {
		return "0"
	}
	s := f.Names[0].Name
	for _, n := range f.Names[1:] {
		s += "|" + n.Name
	}
	return s
}

// ValueKind says how a [Value] was written and which of its fields hold it.
type ValueKind uint8

// The kinds of [Value]. The zero kind, ValueNone, means "not given".
const (
	ValueNone     ValueKind = iota // absent
	ValueNumber                    // a size or integer; N holds it (64K is 65536)
	ValueDuration                  // a duration; N holds nanoseconds
	ValueWord                      // a word such as on, unlimited, manual or 0.25
	ValueExpr                      // an expression over loop variables; Expr holds it
	ValueString                    // a name in double quotes ("cubic"); Text keeps the quotes, Unquoted drops them
)

// Value is a literal operand: a size or integer (decimal, 0x hex, or with a
// K, M or G suffix meaning KiB, MiB, GiB), a duration (an integer with unit
// ns, us, ms or s), or a word. Text is the spelling from the source, which
// Format keeps, so 0x1000 and 4K stay as the author wrote them; N is the
// decoded number for ValueNumber and ValueDuration. Where a statement takes
// an expression (see [Instantiate]) and the word is one, Kind is ValueExpr,
// Expr its tree and N zero until Instantiate evaluates it. The zero Value
// is absent.
type Value struct {
	Pos  Pos
	Kind ValueKind
	N    uint64
	Text string
	Expr *Expr
}

// IsZero reports whether v is absent.
func (v Value) IsZero() bool { return v.Kind == ValueNone }

// Unquoted returns a ValueString's text without its quotes.
func (v Value) Unquoted() string { return strings.Trim(v.Text, `"`) }

// Int returns a number that may be negative (a setsockopt value, an
// optlen) as a signed integer.
func (v Value) Int() int64 { return int64(v.N) }

// String returns the value as written.
func (v Value) String() string { return v.Text }

// Option is one key or key=value option of a statement, such as sg=off,
// delay=10ms or cap_ipc_lock. Pos is the key's position; Value is zero for a
// bare key.
type Option struct {
	Pos   Pos
	Key   string
	Value Value
}

// String renders o as "key" or "key=value".
func (o Option) String() string {
	if o.Value.IsZero() {
		return o.Key
	}
	return o.Key + "=" + o.Value.Text
}

// Options is a statement's options in source order; a key appears at most
// once.
type Options []Option

// Lookup returns the option with the given key.
func (os Options) Lookup(key string) (Option, bool) {
	for _, o := range os {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// Range is an inclusive range of zerocopy notification ids [Lo, Hi], as the
// kernel reports it in ee_info (Lo) and ee_data (Hi). Hi < Lo is a range that
// wrapped at 2^32. The zero Range is [0,0], the first id of a socket.
type Range struct {
	Lo, Hi uint32
}

// String renders r as "[lo,hi]", each bound in decimal below 65536 and in
// hex from there on, so ids near the 2^32 wrap stay readable.
func (r Range) String() string {
	return "[" + formatID(r.Lo) + "," + formatID(r.Hi) + "]"
}

// idText renders an id written as the expression x, or else the literal v.
func idText(x *Value, v uint32) string {
	if x != nil {
		return x.Text
	}
	return formatID(v)
}

// keyText renders a timestamp key written as the expression x, or else the
// literal v in decimal.
func keyText(x *Value, v uint32) string {
	if x != nil {
		return x.Text
	}
	return strconv.FormatUint(uint64(v), 10)
}

func formatID(v uint32) string {
	if v < 1<<16 {
		return strconv.FormatUint(uint64(v), 10)
	}
	return "0x" + strconv.FormatUint(uint64(v), 16)
}

// OutcomeKind says what an [Outcome] expects.
type OutcomeKind uint8

// The kinds of [Outcome]. The zero kind, OutcomeNone, means no expectation.
const (
	OutcomeNone      OutcomeKind = iota // nothing is checked
	OutcomeReturn                       // the call returns Ret
	OutcomeErrno                        // the call returns -1 with errno Errno
	OutcomeZerocopy                     // an error-queue read returns a zerocopy notification
	OutcomeTimestamp                    // an error-queue read returns a timestamp
	OutcomeICMP                         // an error-queue read returns an ICMP or ICMPv6 error
	OutcomeCtrunc                       // an error-queue read lost its record to MSG_CTRUNC
	OutcomeName                         // a getsockopt returns the name Name (TCP_CONGESTION)
)

// Outcome is the expectation written after "=>" at the end of a statement,
// which the run checks against what the simulated kernel returned:
//
//	=> 65536                    OutcomeReturn, Ret 65536
//	=> -1 ENOBUFS               OutcomeErrno, Errno "ENOBUFS" (also "=> ENOBUFS")
//	=> zerocopy [0,4] copied    OutcomeZerocopy, Range {0,4}, Copied
//	=> timestamp SCM_TSTAMP_SND key=3
//	                            OutcomeTimestamp, Tstamp "SCM_TSTAMP_SND", Key 3, HasKey
//	=> icmp ECONNREFUSED type=3 code=3
//	                            OutcomeICMP, Errno "ECONNREFUSED", Type 3, Code 3
//	=> icmp6 ECONNREFUSED type=1 code=4
//	                            OutcomeICMP, ICMP6, Errno "ECONNREFUSED", Type 1, Code 4
//	=> icmp ECONNREFUSED type=3 code=3 quoted=520
//	                            OutcomeICMP, ..., Quoted 520, HasQuoted
//	=> ctrunc                   OutcomeCtrunc
//	=> "bbr"                    OutcomeName, Name "bbr"
//	=> zerocopy [0,4] any       OutcomeZerocopy, Range {0,4}, AnyCode
//	=> -1 any                   OutcomeErrno, AnyCode
//	=> zerocopy [0,0] msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IP cmsg_type=IP_RECVERR
//	                            OutcomeZerocopy, Msg the three fields
//	=> 0 ee_errno=0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_code=SO_EE_CODE_ZEROCOPY_COPIED ee_info=0 ee_data=2
//	                            OutcomeReturn, Ret 0, Msg the record's fields
//
// A zerocopy outcome describes one sock_extended_err with ee_origin
// SO_EE_ORIGIN_ZEROCOPY: ee_info = Range.Lo, ee_data = Range.Hi, and Copied
// is ee_code == SO_EE_CODE_ZEROCOPY_COPIED. A timestamp outcome describes one
// with ee_origin SO_EE_ORIGIN_TIMESTAMPING, ee_info = the SCM_TSTAMP_* kind
// and, with HasKey, ee_data = Key (the SOF_TIMESTAMPING_OPT_ID counter).
// An ICMP outcome describes one with ee_origin SO_EE_ORIGIN_ICMP
// (SO_EE_ORIGIN_ICMP6 with ICMP6), ee_errno = Errno, ee_type = Type and
// ee_code = Code; with HasQuoted, the read returned Quoted bytes, what
// the error quotes of the offending datagram's payload. A ctrunc outcome is a read that dequeued a record whose
// control message did not fit the control buffer: msg_flags has
// MSG_CTRUNC, and the record is lost to the program.
// AnyCode leaves the code open, for a test that accepts either: a zerocopy
// outcome's ee_code (copied or not), an errno outcome's errno (the call
// returns -1 with any errno; Errno is then empty).
// A return value, a range bound or a key may be an expression (see
// [Instantiate]); RetX, LoX, HiX and KeyX then hold it, and Ret, Range and
// Key are zero until Instantiate evaluates it. They are nil for a literal.
// Outcome is comparable; the zero Outcome expects nothing.
type Outcome struct {
	Pos     Pos // position of the first word after "=>"
	Kind    OutcomeKind
	Ret     int64
	Errno   string
	Range   Range
	Copied  bool
	AnyCode bool
	Tstamp  string
	Key     uint32
	HasKey  bool
	ICMP6   bool
	Type    uint8
	Code    uint8
	// Quoted, with HasQuoted, is an ICMP outcome's quoted length.
	Quoted    uint16
	HasQuoted bool
	// Name is an OutcomeName's string, what getsockopt(TCP_CONGESTION)
	// wrote up to its NUL.
	Name string

	RetX, LoX, HiX, KeyX *Value

	// Msg, if not nil, holds the field checks after the base form:
	// msg_flags, cmsg_level and cmsg_type after any form of an
	// error-queue read, and the sock_extended_err's ee_* after a return
	// value ("0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_info=0 ee_data=3").
	Msg *Fields
	// Epoll, if not nil, holds the events an epoll_wait outcome lists
	// after its count: "1 [s EPOLLERR|EPOLLOUT]".
	Epoll *EpollEvents
}

// IsZero reports whether o expects nothing.
func (o Outcome) IsZero() bool { return o.Kind == OutcomeNone }

// Base returns o without its field checks.
func (o Outcome) Base() Outcome {
	o.Msg, o.Epoll = nil, nil
	return o
}

// String renders o in canonical form, its fields after the base form.
func (o Outcome) String() string {
	s := o.base()
	if o.Epoll != nil {
		s += " " + o.Epoll.String()
	}
	if o.Msg != nil {
		s += " " + o.Msg.String()
	}
	return s
}

// base renders o's base form in canonical form, without the leading
// "=>": "65536", "-1 ENOBUFS", "zerocopy [0,4] copied", "timestamp
// SCM_TSTAMP_SND key=3"; the empty string for the zero Outcome.
func (o Outcome) base() string {
	switch o.Kind {
	case OutcomeReturn:
		if o.RetX != nil {
			return o.RetX.Text
		}
		return strconv.FormatInt(o.Ret, 10)
	case OutcomeErrno:
		if o.AnyCode {
			return "-1 any"
		}
		return "-1 " + o.Errno
	case OutcomeZerocopy:
		r := o.Range.String()
		if o.LoX != nil || o.HiX != nil {
			r = "[" + idText(o.LoX, o.Range.Lo) + "," + idText(o.HiX, o.Range.Hi) + "]"
		}
		switch {
		case o.Copied:
			return "zerocopy " + r + " copied"
		case o.AnyCode:
			return "zerocopy " + r + " any"
		}
		return "zerocopy " + r
	case OutcomeTimestamp:
		if o.HasKey {
			return "timestamp " + o.Tstamp + " key=" + keyText(o.KeyX, o.Key)
		}
		return "timestamp " + o.Tstamp
	case OutcomeICMP:
		kind := "icmp"
		if o.ICMP6 {
			kind = "icmp6"
		}
		s := fmt.Sprintf("%s %s type=%d code=%d", kind, o.Errno, o.Type, o.Code)
		if o.HasQuoted {
			s += fmt.Sprintf(" quoted=%d", o.Quoted)
		}
		return s
	case OutcomeCtrunc:
		return "ctrunc"
	case OutcomeName:
		return `"` + o.Name + `"`
	}
	return ""
}
