package scenario

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

// Family is an address family a scenario written for IPv4 can be run in,
// as packetdrill runs each script three times: [Inet] as written,
// [Inet6] with IPv6 sockets and addresses, [Mapped] with IPv6 sockets
// whose peers have IPv4-mapped addresses (::ffff:127.0.0.1), so the
// traffic is IPv4.
type Family uint8

// The families; the zero Family is Inet, the scenario as written.
const (
	Inet Family = iota
	Inet6
	Mapped
)

// Families are the names of the families, for --family.
var Families = []string{"inet", "inet6", "mapped"}

// ParseFamily returns the family named inet, inet6 or mapped.
func ParseFamily(name string) (Family, error) {
	for i, n := range Families {
		if n == name {
			return Family(i), nil
		}
	}
	return 0, fmt.Errorf("unknown family %q, want inet, inet6 or mapped", name)
}

func (f Family) String() string { return Families[f] }

// Retarget rewrites the statements of a scenario written for IPv4 so
// that they run in another family. It keeps the state it needs between
// statements (which sockets it moved), so feed it every statement in
// file order, as [ParseEach] hands them over; a repeat is rewritten
// whole. The zero Retarget, or one for Inet, changes nothing.
//
// For Inet6 and Mapped, each AF_INET TCP or UDP socket becomes an
// AF_INET6 one (with the option mapped for Mapped), and so does every
// socket accept makes from one. On those sockets and their peers:
//
//   - the control message an error-queue read's outcome names,
//     cmsg_level=SOL_IP and cmsg_type=IP_RECVERR, becomes SOL_IPV6 and
//     IPV6_RECVERR in both families: inet_recv_error sends every
//     AF_INET6 socket to ipv6_recv_error, v4-mapped too;
//   - for Inet6 only, setsockopt and getsockopt of IP_RECVERR become
//     IPV6_RECVERR at SOL_IPV6, and an ICMP port unreachable outcome
//     (icmp ERRNO type=3 code=3) the ICMPv6 one (icmp6 ERRNO type=1
//     code=4). A v4-mapped socket takes ICMP errors on its IPv4 path
//     (__udp4_lib_err), which IP_RECVERR governs: both stay.
//
// Nothing else changes: control buffer sizes (control=N) and ee_* field
// values are the author's to write for each family.
type Retarget struct {
	To    Family
	moved map[string]bool
}

// Rewrite rewrites st in place.
func (r *Retarget) Rewrite(st Stmt) {
	if r.To == Inet {
		return
	}
	if r.moved == nil {
		r.moved = map[string]bool{}
	}
	switch s := st.(type) {
	case *Repeat:
		for _, b := range s.Body {
			r.Rewrite(b)
		}
		return
	case *Socket:
		if !inetTransport(s) {
			return
		}
		s.Family.Name = "AF_INET6"
		if r.To == Mapped {
			s.Options = append(s.Options, Option{Pos: s.Family.Pos, Key: "mapped"})
		}
		r.moved[s.Name.Name] = true
		return
	case *Accept:
		if r.moved[s.Sock.Name] {
			r.moved[s.New.Name] = true
		}
		return
	}
	sk, ok := SockOf(st)
	if !ok || !r.moved[sk.Name] {
		return
	}
	if r.To == Inet6 {
		switch s := st.(type) {
		case *Setsockopt:
			r.recverr(&s.Level, &s.Opt)
		case *Getsockopt:
			r.recverr(&s.Level, &s.Opt)
		}
	}
	r.outcome(&st.line().Want)
}

// icmpv4MaxQuoted is the most of a UDP payload an ICMP error quotes: 576
// bytes less two IP headers, the ICMP header and the UDP header.
const icmpv4MaxQuoted = 576 - 20 - 8 - 20 - 8

// recverr turns IP_RECVERR at SOL_IP into IPV6_RECVERR at SOL_IPV6.
func (r *Retarget) recverr(level, opt *Ident) {
	if opt.Name == "IP_RECVERR" {
		level.Name, opt.Name = "SOL_IPV6", "IPV6_RECVERR"
	}
}

func (r *Retarget) outcome(o *Outcome) {
	if r.To == Inet6 && o.Kind == OutcomeICMP && !o.ICMP6 && o.Type == 3 && o.Code == 3 {
		o.ICMP6, o.Type, o.Code = true, 1, 4
		// An ICMP error quotes at most 520 bytes of UDP payload, an
		// ICMPv6 one 1184: a whole payload quoted stays as it is, a cut
		// one is of a length the outcome does not tell.
		o.HasQuoted = o.HasQuoted && o.Quoted < icmpv4MaxQuoted
	}
	if o.Msg == nil {
		return
	}
	fs := append(Fields(nil), *o.Msg...)
	for i := range fs {
		switch v := &fs[i].Value; {
		case fs[i].Key == "cmsg_level" && (v.Text == "SOL_IP" || v.Text == "IPPROTO_IP"):
			v.Text = "SOL_IPV6"
		case fs[i].Key == "cmsg_type" && v.Text == "IP_RECVERR":
			v.Text = "IPV6_RECVERR"
		}
	}
	o.Msg = &fs
}

// inetTransport reports whether s makes an AF_INET TCP or UDP socket.
func inetTransport(s *Socket) bool {
	f, typ, proto := s.Args()
	switch {
	case f != kernel.AF_INET:
		return false
	case typ.Base() == kernel.SOCK_STREAM:
		return proto == 0 || proto == kernel.IPPROTO_TCP
	case typ.Base() == kernel.SOCK_DGRAM:
		return proto == 0 || proto == kernel.IPPROTO_UDP
	}
	return false
}
