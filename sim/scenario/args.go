package scenario

import "github.com/zcsim/zcsim/kernel"

// Args returns the socket(2) arguments the statement spells: the family,
// the type with its creation flags, and the protocol (a name or a number;
// 0 when absent). The parser has checked every name.
func (s *Socket) Args() (kernel.Family, kernel.SockType, kernel.Protocol) {
	family, _ := kernel.FamilyNames.ByName(s.Family.Name)
	var typ kernel.SockType
	for _, f := range s.Type.Names {
		t, _ := kernel.SockTypeNames.ByName(f.Name)
		typ |= t
	}
	proto := kernel.Protocol(s.Protocol.N)
	if p, ok := kernel.ProtocolNames.ByName(s.Protocol.Text); ok {
		proto = p
	}
	return family, typ, proto
}

// Option returns the socket option and the integer setsockopt(2) passes:
// the number, or the union of SOF_TIMESTAMPING_* flags.
func (s *Setsockopt) Option() (kernel.SockOpt, int) {
	opt, _ := kernel.SockOptNames.ByName(s.Opt.Name)
	if s.Flags.IsZero() {
		return opt, int(s.Value.Int())
	}
	var v kernel.Timestamping
	for _, f := range s.Flags.Names {
		t, _ := kernel.TimestampingNames.ByName(f.Name)
		v |= t
	}
	return opt, int(v)
}

// EpollEvents returns the union as epoll events and flags.
func (f Flags) EpollEvents() kernel.EpollEvents { return unionOf(f, kernel.EpollEventNames) }

// MsgFlags returns the union as send and recv flags.
func (f Flags) MsgFlags() kernel.MsgFlags { return unionOf(f, kernel.MsgFlagNames) }

// unionOf is the value of the union f of names.
func unionOf[T ~uint16 | ~uint32](f Flags, names kernel.Symbols[T]) T {
	var v T
	for _, n := range f.Names {
		b, _ := names.ByName(n.Name)
		v |= b
	}
	return v
}

// PollEvents returns the union of poll events the statement asks for.
func (s *Poll) PollEvents() kernel.PollEvents { return unionOf(s.Events, kernel.PollEventNames) }

// Protection returns the mapping's protection: PROT_READ|PROT_WRITE when
// the statement names none.
func (s *Mmap) Protection() kernel.Prot {
	if s.Prot.IsZero() {
		return kernel.PROT_READ | kernel.PROT_WRITE
	}
	var v kernel.Prot
	for _, n := range s.Prot.Names {
		b, _ := kernel.ProtNames.ByName(n.Name)
		v |= b
	}
	return v
}

// Lengths returns the values of an iovec list as byte counts.
func Lengths(vs []Value) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = int(v.N)
	}
	return out
}

// IovApart reports that the statement's iovecs each start a page of their
// own (iov=apart) rather than lie back to back.
func (s *Sendmsg) IovApart() bool {
	o, ok := s.Options.Lookup("iov")
	return ok && o.Value.Text == "apart"
}

// ZcInfo returns the SCM_ZC_NOTIFICATION the statement carries: the size
// of its zc_info, its cmsg data length, and whether it carries one.
func (s *Sendmsg) ZcInfo() (size uint32, dataLen int, ok bool) {
	o, ok := s.Options.Lookup("zc_info")
	if !ok {
		return 0, 0, false
	}
	size = uint32(o.Value.N)
	dataLen = kernel.ZcInfoLen(size)
	if l, set := s.Options.Lookup("zc_len"); set {
		dataLen = int(l.Value.N)
	}
	return size, dataLen, true
}
