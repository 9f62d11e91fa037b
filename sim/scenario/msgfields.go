package scenario

import (
	"math"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
)

// Field is one key=value check of an outcome beyond its base form: what
// recvmsg wrote into the struct msghdr (msg_flags), the header of the
// control message (cmsg_level, cmsg_type) and the struct
// sock_extended_err in it (ee_errno, ee_origin, ee_type, ee_code,
// ee_info, ee_data), the revents a poll returned, and the struct
// tcp_info a getsockopt(TCP_INFO) wrote (tcpi_state, tcpi_snd_cwnd, ...:
// kernel.TCPInfoFields). Flags holds
// msg_flags and revents; Value every other value, a
// number or a kernel name (a ValueWord: ENOBUFS, SO_EE_ORIGIN_ZEROCOPY,
// SOL_IPV6, IPV6_RECVERR).
type Field struct {
	Pos   Pos
	Key   string
	Flags Flags
	Value Value
}

// String renders f as "key=value".
func (f Field) String() string {
	if f.Key == "msg_flags" || f.Key == "revents" {
		return f.Key + "=" + f.Flags.String()
	}
	return f.Key + "=" + f.Value.Text
}

// Number returns the number the field checks for: msg_flags as a
// union, a kernel name's value, or the number as written.
func (f Field) Number() int64 {
	v := f.Value
	switch {
	case f.Key == "msg_flags":
		return int64(f.Flags.MsgFlags())
	case f.Key == "revents":
		return int64(unionOf(f.Flags, kernel.PollEventNames))
	case v.Kind != ValueWord:
		return int64(v.N)
	}
	if e, ok := kernel.ErrnoNames.ByName(v.Text); ok {
		return int64(e)
	}
	if l, ok := kernel.LevelNames.ByName(v.Text); ok {
		return int64(l)
	}
	if t, ok := kernel.ErrqueueCmsgNames.ByName(v.Text); ok {
		return int64(t.Name)
	}
	return fieldNames[v.Text]
}

// fieldNames are the values of the other kernel names a field may
// spell (errqueue.h, in.h, in6.h, if_packet.h).
var fieldNames = map[string]int64{
	"SO_EE_ORIGIN_NONE": kernel.SO_EE_ORIGIN_NONE, "SO_EE_ORIGIN_LOCAL": kernel.SO_EE_ORIGIN_LOCAL,
	"SO_EE_ORIGIN_ICMP": kernel.SO_EE_ORIGIN_ICMP, "SO_EE_ORIGIN_ICMP6": kernel.SO_EE_ORIGIN_ICMP6,
	"SO_EE_ORIGIN_TIMESTAMPING": kernel.SO_EE_ORIGIN_TIMESTAMPING, "SO_EE_ORIGIN_ZEROCOPY": kernel.SO_EE_ORIGIN_ZEROCOPY,
	"SO_EE_ORIGIN_TXTIME":        kernel.SO_EE_ORIGIN_TXTIME,
	"SO_EE_CODE_ZEROCOPY_COPIED": kernel.SO_EE_CODE_ZEROCOPY_COPIED,
}

// Fields are an outcome's field checks in source order; a key appears
// at most once.
type Fields []Field

// Lookup returns the field with the given key.
func (fs Fields) Lookup(key string) (Field, bool) {
	for _, f := range fs {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

func (fs Fields) String() string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return strings.Join(s, " ")
}

// The field keys, and the kernel names each accepts besides a number.
var (
	// recordKeys are the sock_extended_err fields: only a return-value
	// or ctrunc outcome may name them (a cut control message may still
	// hold the whole record), the record forms (zerocopy, icmp, ...)
	// already say what they hold.
	recordKeys = []string{"ee_errno", "ee_origin", "ee_type", "ee_code", "ee_info", "ee_data"}
	fieldKeys  = append(append([]string{"msg_flags", "cmsg_level", "cmsg_type", "revents"}, recordKeys...), tcpInfoKeys()...)

	eeOrigins = tableOf[int]("ee_origin", setOf("SO_EE_ORIGIN_NONE", "SO_EE_ORIGIN_LOCAL", "SO_EE_ORIGIN_ICMP",
		"SO_EE_ORIGIN_ICMP6", "SO_EE_ORIGIN_TIMESTAMPING", "SO_EE_ORIGIN_ZEROCOPY", "SO_EE_ORIGIN_TXTIME"))
	eeCodes = tableOf[int]("ee_code", setOf("SO_EE_CODE_ZEROCOPY_COPIED"))
	// cmsgTypes are the control messages an error-queue read writes its
	// record in: ip_recv_error, ipv6_recv_error, packet_recvmsg.
	cmsgTypes = tableOf("cmsg_type", kernel.ErrqueueCmsgNames)
)

// fields parses the field checks after an outcome's base form. record
// says whether the base leaves the sock_extended_err to them (a return
// value).
func (p *lineParser) fields(record bool) Fields {
	var fs Fields
	for p.err == nil && p.peekIs(tWord) && p.optionNext() {
		t := p.advance()
		if !slices.Contains(fieldKeys, t.text) {
			p.fail(t, "unknown field"+hint(t.text, fieldKeys)+", want "+strings.Join(fieldKeys, ", "))
			return nil
		}
		if !record && slices.Contains(recordKeys, t.text) {
			p.fail(t, t.text+" checks the record after a return value or ctrunc, as in 0 ee_origin=SO_EE_ORIGIN_ZEROCOPY; this form says it already")
			return nil
		}
		if _, dup := fs.Lookup(t.text); dup {
			p.fail(t, "duplicate field")
			return nil
		}
		if !p.punct(tEq, "=") {
			return nil
		}
		f := Field{Pos: p.pos(t.col), Key: t.text}
		switch t.text {
		case "msg_flags":
			f.Flags = p.flags(msgFlagNames, true)
		case "revents":
			f.Flags = p.flags(pollEventNames, true)
		case "cmsg_level":
			f.Value = p.nameValue(p.symbol(levelNames))
		case "cmsg_type":
			f.Value = p.nameValue(p.symbol(cmsgTypes))
		case "ee_errno":
			f.Value = p.numberOrName(errnoNames, math.MaxInt32)
		case "ee_origin":
			f.Value = p.numberOrName(eeOrigins, math.MaxUint8)
		case "ee_code":
			f.Value = p.numberOrName(eeCodes, math.MaxUint8)
		case "ee_type":
			f.Value = p.numberOrName(table{}, math.MaxUint8)
		case "ee_info", "ee_data":
			f.Value = p.numberOrName(table{}, math.MaxUint32)
		default: // a tcpi_ field
			f.Value = p.numberOrName(table{}, math.MaxInt64)
		}
		fs = append(fs, f)
	}
	if p.err != nil {
		return nil
	}
	return fs
}

// tcpInfoKeys are the struct tcp_info fields a getsockopt(TCP_INFO)
// outcome may check after its return value (kernel.TCPInfoFields).
func tcpInfoKeys() []string {
	var out []string
	for _, f := range kernel.TCPInfoFields {
		out = append(out, f.Key)
	}
	return out
}

func (p *lineParser) nameValue(id Ident) Value {
	return Value{Pos: id.Pos, Kind: ValueWord, Text: id.Name}
}

// numberOrName parses a number at most max, or a name of names (none
// when names is the zero table).
func (p *lineParser) numberOrName(names table, max uint64) Value {
	t, ok := p.word("value")
	if !ok {
		return Value{}
	}
	if names.has != nil && !isDigit(t.text[0]) {
		if !names.has(t.text) {
			p.fail(t, "unknown "+names.what+hint(t.text, names.names()))
		}
		return Value{Pos: p.pos(t.col), Kind: ValueWord, Text: t.text}
	}
	v := p.numberOf(t)
	if p.err == nil && v.N > max {
		p.fail(t, "value out of range")
	}
	return v
}
