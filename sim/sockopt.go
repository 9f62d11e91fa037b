package sim

import "github.com/zcsim/zcsim/kernel"

// Optval is a setsockopt or getsockopt buffer as the program passes it:
// optlen (negative allowed), and whether optval is NULL.
type Optval struct {
	Len  int
	Null bool
}

// IntOptval is the usual buffer: an int.
var IntOptval = Optval{Len: 4}

// optLevel is the handler a level reaches on a socket.
type optLevel uint8

const (
	levelSocket optLevel = iota // sk_setsockopt, sk_getsockopt
	levelTCP                    // do_tcp_setsockopt, do_tcp_getsockopt
	levelUDP                    // udp_lib_setsockopt, udp_lib_getsockopt
	levelIP                     // do_ip_setsockopt, do_ip_getsockopt
	levelIPv6                   // do_ipv6_setsockopt, do_ipv6_getsockopt
	levelPacket                 // packet_setsockopt
	levelMPTCP                  // mptcp_setsockopt_sol_tcp, mptcp_getsockopt_sol_tcp (mptcpLevel)
)

// optLevel4 finds the handler of level on s as the protocols' setsockopt
// and getsockopt hand levels on (probed on Linux 6.18): SOL_SOCKET is
// sk_setsockopt everywhere; TCP takes SOL_TCP and UDP SOL_UDP, and hand
// every other level to ip_setsockopt (AF_INET: SOL_IP, else ENOPROTOOPT
// to set and EOPNOTSUPP to get) or ipv6_setsockopt (AF_INET6: SOL_IP
// unless RAW, SOL_IPV6, else ENOPROTOOPT); RAW sockets hand every level
// on the same way; PF_PACKET takes SOL_PACKET (else ENOPROTOOPT); a
// family without protocol options (AF_UNIX) is EOPNOTSUPP. An MPTCP
// socket has its own rules (mptcpLevel).
func optLevel4(s *Socket, opt kernel.SockOpt, set bool) (optLevel, kernel.Errno) {
	level := opt.Level
	switch {
	case s.mptcp != nil:
		return mptcpLevel(opt, set)
	case level == kernel.SOL_SOCKET:
		return levelSocket, 0
	case s.tcp != nil && level == kernel.SOL_TCP:
		return levelTCP, 0
	case s.Sk.Class == kernel.ClassUDP && level == kernel.SOL_UDP:
		return levelUDP, 0
	case s.Sk.Class == kernel.ClassPacket && level == kernel.SOL_PACKET:
		return levelPacket, 0
	case s.Sk.Class == kernel.ClassPacket:
		return 0, kernel.ENOPROTOOPT
	case s.Sk.Family == kernel.AF_INET:
		if level == kernel.SOL_IP {
			return levelIP, 0
		}
		if set {
			return 0, kernel.ENOPROTOOPT
		}
		return 0, kernel.EOPNOTSUPP
	case s.Sk.Family == kernel.AF_INET6:
		if level == kernel.SOL_IP && s.Sk.Class != kernel.ClassRAW {
			return levelIP, 0
		}
		if level == kernel.SOL_IPV6 {
			return levelIPv6, 0
		}
		return 0, kernel.ENOPROTOOPT
	}
	return 0, kernel.EOPNOTSUPP
}

// Setsockopt models setsockopt(2) of an int option with an int-sized
// buffer.
func (w *World) Setsockopt(c Call, s *Socket, opt kernel.SockOpt, val int) Result {
	return w.SetsockoptBuf(c, s, opt, val, IntOptval)
}

// SetsockoptBuf models setsockopt(2) of the int val in the buffer ov.
// __sys_setsockopt refuses a negative optlen (EINVAL); then the level's
// handler (optLevel4) reads the buffer: sk_setsockopt, do_tcp_setsockopt
// and udp_lib_setsockopt want at least an int (EINVAL) and a readable one
// (NULL: EFAULT); do_ip_setsockopt reads an int, or from 1 to 3 bytes its
// first byte, and takes optlen 0 as the value 0; do_ipv6_setsockopt wants
// an int (EINVAL) and takes NULL as 0. Probed on Linux 6.18.
func (w *World) SetsockoptBuf(c Call, s *Socket, opt kernel.SockOpt, val int, ov Optval) Result {
	return w.syscall(c, "setsockopt", s, func() Result {
		if ov.Len < 0 {
			return fail(kernel.EINVAL)
		}
		lvl, err := optLevel4(s, opt, true)
		if err != 0 {
			return fail(err)
		}
		if why := s.MPTCPUndetermined(opt, val, true); why != "" {
			return Result{Undetermined: why}
		}
		switch {
		case lvl == levelIP && ov.Len == 0:
			val = 0
		case lvl == levelIP && ov.Null:
			return fail(kernel.EFAULT)
		case lvl == levelIP && ov.Len < 4:
			val &= 0xff
		case ov.Len < 4:
			return fail(kernel.EINVAL)
		case ov.Null && lvl == levelIPv6:
			val = 0
		case ov.Null:
			return fail(kernel.EFAULT)
		}
		return fail(w.setOpt(s, lvl, opt, val))
	})
}

// setOpt runs the handler lvl of option opt.
func (w *World) setOpt(s *Socket, lvl optLevel, opt kernel.SockOpt, val int) kernel.Errno {
	switch lvl {
	case levelTCP:
		return s.tcp.Setsockopt(opt, val)
	case levelUDP:
		return s.dgrm.udp.Setsockopt(opt, val)
	case levelIP, levelIPv6:
		return s.Sk.SetInetOpt(opt, val)
	case levelPacket:
		return s.dgrm.pkt.Setsockopt(opt, val)
	case levelMPTCP:
		return s.mptcp.set(opt, val)
	}
	if s.tcp != nil && opt == kernel.SO_RCVLOWAT {
		return s.tcp.Setsockopt(opt, val) // tcp_set_rcvlowat
	}
	wasID := s.Sk.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID != 0
	err := s.Sk.Setsockopt(opt, val)
	if s.tcp != nil && err == 0 && opt == kernel.SO_TIMESTAMPING && !wasID {
		// sock_set_timestamping: keys count from snd_una, or from
		// write_seq with SOF_TIMESTAMPING_OPT_ID_TCP.
		s.Sk.Tskey = s.tcp.SndUna()
		if s.Sk.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID_TCP != 0 {
			s.Sk.Tskey = s.tcp.WriteSeq()
		}
	}
	return err
}

// Getsockopt models getsockopt(2) of an int option into an int.
func (w *World) Getsockopt(c Call, s *Socket, opt kernel.SockOpt) Result {
	return w.GetsockoptBuf(c, s, opt, IntOptval)
}

// GetsockoptBuf models getsockopt(2) of an int option into the buffer ov;
// the result is the value the returned bytes hold (little-endian, the
// rest zero). A negative optlen is EINVAL, except at SOL_IPV6, where
// do_ipv6_getsockopt takes it as unsigned and returns the whole int; the
// copy is at most an int (struct so_timestamping, 8 bytes, for
// SO_TIMESTAMPING), and do_ip_getsockopt returns a value below 256 as one
// byte when the buffer is shorter than an int; a NULL optval with a
// non-zero optlen is EFAULT. Probed on Linux 6.18. TCP_INFO returns 0
// and the struct tcp_info fields that fit in optlen (Result.TCPInfo,
// tcp.Conn.Info).
func (w *World) GetsockoptBuf(c Call, s *Socket, opt kernel.SockOpt, ov Optval) Result {
	return w.syscall(c, "getsockopt", s, func() Result {
		lvl, err := optLevel4(s, opt, false)
		if err != 0 {
			return fail(err)
		}
		if why := s.MPTCPUndetermined(opt, 0, false); why != "" {
			return Result{Undetermined: why}
		}
		n := ov.Len
		switch {
		case n < 0 && lvl == levelIPv6:
			n = 4
		case n < 0:
			return fail(kernel.EINVAL)
		}
		if lvl == levelTCP && opt == kernel.TCP_INFO {
			if ov.Null && n > 0 {
				return fail(kernel.EFAULT)
			}
			return Result{TCPInfo: s.tcp.Info(n)} // do_tcp_getsockopt: 0, min(len, sizeof) bytes written
		}
		v, err := w.getOpt(s, lvl, opt)
		if err != 0 {
			return fail(err)
		}
		room := 4
		if opt == kernel.SO_TIMESTAMPING {
			room = 8
		}
		n = min(n, room)
		if lvl == levelIP && n > 0 && n < 4 && v >= 0 && v <= 255 {
			n = 1
		}
		if ov.Null && n > 0 {
			return fail(kernel.EFAULT)
		}
		if n < 4 {
			v &= 1<<(8*n) - 1
		}
		return ok(int64(v))
	})
}

// SetsockoptName models setsockopt(2) of a name, TCP_CONGESTION's, in
// a buffer of ov.Len bytes (the name and NULs after it): a negative
// optlen is EINVAL, a level the socket has not refused as for an int
// option (optLevel4: ENOPROTOOPT on a UDP socket), a NULL buffer EFAULT;
// tcp.Conn.SetCongestion decides, with the calling task's
// CAP_NET_ADMIN.
func (w *World) SetsockoptName(c Call, s *Socket, opt kernel.SockOpt, name string, ov Optval) Result {
	return w.syscall(c, "setsockopt", s, func() Result {
		if ov.Len < 0 {
			return fail(kernel.EINVAL)
		}
		if why := s.MPTCPUndetermined(opt, 0, true); why != "" {
			return Result{Undetermined: why}
		}
		lvl, err := optLevel4(s, opt, true)
		switch {
		case err != 0:
			return fail(err)
		case lvl != levelTCP || opt != kernel.TCP_CONGESTION:
			return fail(kernel.EINVAL)
		case ov.Null && ov.Len > 0:
			return fail(kernel.EFAULT)
		}
		return fail(s.tcp.SetCongestion(name, ov.Len, s.Task.CapNetAdmin))
	})
}

// GetsockoptName models getsockopt(2) of TCP_CONGESTION into a buffer of
// ov.Len bytes: the result is 0 and Result.Name what the buffer holds up
// to its first NUL (tcp.Conn.CongestionName); a negative optlen is
// EINVAL, a NULL buffer with room EFAULT, and a socket without the
// level refuses as for an int option (EOPNOTSUPP on a UDP socket:
// measured on Linux 6.18).
func (w *World) GetsockoptName(c Call, s *Socket, opt kernel.SockOpt, ov Optval) Result {
	return w.syscall(c, "getsockopt", s, func() Result {
		if why := s.MPTCPUndetermined(opt, 0, false); why != "" {
			return Result{Undetermined: why}
		}
		lvl, err := optLevel4(s, opt, false)
		switch {
		case err != 0:
			return fail(err)
		case lvl != levelTCP || opt != kernel.TCP_CONGESTION || ov.Len < 0:
			return fail(kernel.EINVAL)
		case ov.Null && ov.Len > 0:
			return fail(kernel.EFAULT)
		}
		name := s.tcp.CongestionName(ov.Len)
		return Result{Name: &name}
	})
}

// getOpt reads option opt through the handler lvl.
func (w *World) getOpt(s *Socket, lvl optLevel, opt kernel.SockOpt) (int, kernel.Errno) {
	switch lvl {
	case levelTCP:
		return s.tcp.Getsockopt(opt)
	case levelUDP:
		return s.dgrm.udp.Getsockopt(opt)
	case levelIP, levelIPv6:
		return s.Sk.InetOpt(opt)
	case levelPacket:
		return 0, kernel.ENOPROTOOPT
	case levelMPTCP:
		return s.mptcp.get(opt), 0
	}
	return s.Sk.Getsockopt(opt)
}
