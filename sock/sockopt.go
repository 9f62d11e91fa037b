package sock

import (
	"math"

	"github.com/zcsim/zcsim/kernel"
)

// Setsockopt models sock_setsockopt for the SOL_SOCKET options zcsim knows:
// SO_ZEROCOPY (per the profile, see SetZerocopy), SO_SNDBUF and SO_RCVBUF
// (doubled, clamped to wmem_max/rmem_max and to the minimums, see bufSize),
// their FORCE forms (not clamped to the maxima, and EPERM unless the task
// has CAP_NET_ADMIN: sockopt_capable), SO_RCVLOWAT (capped for
// TCP, see tcpSetRcvlowat), SO_TIMESTAMPING and SO_TIMESTAMPING_NEW (see
// setTimestamping, setRxTimestamping), SO_TIMESTAMP and SO_TIMESTAMPNS,
// old and new (setTimestamp), and
// SO_MAX_PACING_RATE (see setMaxPacingRate) and SO_MARK (sk_mark, any
// u32; EPERM without CAP_NET_ADMIN, as sockopt_ns_capable has it: the
// model's tasks have no CAP_NET_RAW, which the kernel takes too),
// SO_REUSEADDR (sk_reuse: any value not 0 is SK_CAN_REUSE, read back as
// 1) and SO_REUSEPORT (sk_reuseport likewise; switching it on is
// EOPNOTSUPP on a socket not AF_INET or AF_INET6, !sk_is_inet; probed on
// Linux 6.18), SO_OOBINLINE (SOCK_URGINLINE, sock_valbool_flag, read back
// as 1). Any other option is ENOPROTOOPT; protocol levels are the
// protocols' business.
func (s *Sock) Setsockopt(opt kernel.SockOpt, val int) kernel.Errno {
	privileged := opt == kernel.SO_SNDBUFFORCE || opt == kernel.SO_RCVBUFFORCE || opt == kernel.SO_MARK
	if privileged && s.Task != nil && !s.Task.CapNetAdmin {
		return kernel.EPERM
	}
	switch opt {
	case kernel.SO_ZEROCOPY:
		return s.SetZerocopy(val)
	case kernel.SO_SNDBUF, kernel.SO_SNDBUFFORCE:
		s.Sndbuf = bufSize(opt == kernel.SO_SNDBUF, val, s.Net.WmemMax, MinSndbuf)
		s.SndbufLocked = true
	case kernel.SO_RCVBUF, kernel.SO_RCVBUFFORCE:
		s.Rcvbuf = bufSize(opt == kernel.SO_RCVBUF, val, s.Net.RmemMax, MinRcvbuf)
		s.RcvbufLocked = true
	case kernel.SO_RCVLOWAT:
		if val < 0 {
			val = math.MaxInt32
		}
		if s.Class == kernel.ClassTCP {
			s.tcpSetRcvlowat(val)
		} else {
			s.Rcvlowat = max(val, 1)
		}
	case kernel.SO_TIMESTAMPING, kernel.SO_TIMESTAMPING_NEW:
		if err := s.setTimestamping(kernel.Timestamping(val)); err != 0 {
			return err
		}
		s.setRxTimestamping(opt == kernel.SO_TIMESTAMPING_NEW)
	case kernel.SO_TIMESTAMP_OLD, kernel.SO_TIMESTAMP_NEW, kernel.SO_TIMESTAMPNS_OLD, kernel.SO_TIMESTAMPNS_NEW:
		s.setTimestamp(opt, val != 0)
	case kernel.SO_MAX_PACING_RATE:
		s.setMaxPacingRate(val)
	case kernel.SO_MARK:
		s.Mark = uint32(val)
	case kernel.SO_REUSEADDR:
		s.Reuse = val != 0
	case kernel.SO_REUSEPORT:
		if val != 0 && s.Family != kernel.AF_INET && s.Family != kernel.AF_INET6 {
			return kernel.EOPNOTSUPP
		}
		s.Reuseport = val != 0
	case kernel.SO_OOBINLINE:
		s.URGInline = val != 0
	default:
		return kernel.ENOPROTOOPT
	}
	s.Note(kernel.Entry{Op: kernel.OpSetsockopt, Args: [4]int64{int64(opt.Level), int64(opt.Name), int64(val)}})
	return 0
}

// bufSize models the SO_SNDBUF/SO_RCVBUF arithmetic of sock_setsockopt. The
// plain option compares val with the maximum as a u32 (min_t(u32, ...)), so
// a negative value asks for the maximum; the FORCE form takes a negative
// value as 0. Both cap val at INT_MAX/2 before doubling it, then apply the
// minimum. Measured on Linux 6.18: SO_SNDBUF -1 gives 2*wmem_max,
// SO_SNDBUFFORCE 1<<30 gives 2147483646.
func bufSize(clamp bool, val, maxVal, minVal int) int {
	switch {
	case clamp && (val < 0 || val > maxVal):
		val = maxVal
	case val < 0:
		val = 0
	}
	val = min(val, math.MaxInt32/2)
	return max(2*val, minVal)
}

// tcpSetRcvlowat models the cap of tcp_set_rcvlowat: the value is capped
// at half the receive buffer when the user fixed its size
// (SOCK_RCVBUF_LOCK), else at half of tcp_rmem[2]. The buffer's growth
// to hold the mark is the TCP layer's (tcp.Conn.Setsockopt), which needs
// the connection's scaling ratio. Measured on Linux 6.18: SO_RCVBUF 1000
// then SO_RCVLOWAT 5000 reads back 1152, and SO_RCVLOWAT -1 reads back
// tcp_rmem[2]/2.
func (s *Sock) tcpSetRcvlowat(val int) {
	limit := s.Net.TCPRmem[2] >> 1
	if s.RcvbufLocked {
		limit = s.Rcvbuf >> 1
	}
	s.Rcvlowat = max(min(val, limit), 1)
}

// NoPacingLimit is ~0UL, sk_max_pacing_rate without a limit.
const NoPacingLimit uint64 = math.MaxUint64

// setMaxPacingRate models sock_setsockopt's SO_MAX_PACING_RATE with a
// 32-bit value: ~0U means no limit (~0UL), any other value is a rate in
// bytes per second (unsigned, so a negative int is a large rate) and
// moves sk_pacing_status from SK_PACING_NONE to SK_PACING_NEEDED, which
// no later value undoes. TCP then paces at the limit (package tcp,
// "Pacing").
func (s *Sock) setMaxPacingRate(val int) {
	rate := uint64(uint32(val))
	if uint32(val) == math.MaxUint32 {
		rate = NoPacingLimit
	} else {
		s.PacingNeeded = true
	}
	s.MaxPacingRate = rate
}

// timestampingMask is SOF_TIMESTAMPING_MASK on Linux 6.18: flag bits 0 to
// 18 (SOF_TIMESTAMPING_LAST is bit 18).
const timestampingMask kernel.Timestamping = 1<<19 - 1

// setTimestamping models sock_set_timestamping: a flag outside
// SOF_TIMESTAMPING_MASK, OPT_STATS without OPT_TSONLY, or OPT_ID_TCP
// without OPT_ID (on any socket) is EINVAL, and so is switching on OPT_ID
// on a TCP socket in TCP_CLOSE or TCP_LISTEN.
// Switching on OPT_ID otherwise restarts the key at 0 (a connected TCP
// socket's keys count from snd_una, or write_seq with
// SOF_TIMESTAMPING_OPT_ID_TCP: a base the TCP layer keeps). All
// four refusals were measured on Linux 6.18 (probe/testdata).
func (s *Sock) setTimestamping(flags kernel.Timestamping) kernel.Errno {
	if flags&^timestampingMask != 0 ||
		flags&kernel.SOF_TIMESTAMPING_OPT_STATS != 0 && flags&kernel.SOF_TIMESTAMPING_OPT_TSONLY == 0 ||
		flags&kernel.SOF_TIMESTAMPING_OPT_ID_TCP != 0 && flags&kernel.SOF_TIMESTAMPING_OPT_ID == 0 {
		return kernel.EINVAL
	}
	if flags&kernel.SOF_TIMESTAMPING_OPT_ID != 0 && s.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID == 0 {
		if s.Class == kernel.ClassTCP && (s.State == CLOSE || s.State == LISTEN) {
			return kernel.EINVAL
		}
		s.Tskey = 0
	}
	s.Tsflags = flags
	return 0
}

// SetZerocopy models setsockopt(SO_ZEROCOPY, val) under the profile: the
// option does not exist without the opt-in (ENOPROTOOPT); a socket class
// whose send path has no MSG_ZEROCOPY is refused with the profile's errno
// (ENOTSUPP, later EOPNOTSUPP); v4.14 also wants TCP_CLOSE (EBUSY); a value
// other than 0 or 1 is EINVAL. The checks run in that order.
func (s *Sock) SetZerocopy(val int) kernel.Errno {
	p := s.Host().Profile
	switch {
	case !p.OptIn:
		return kernel.ENOPROTOOPT
	case !p.Accepts(s.Class):
		return p.OptRefusal
	case p.OptClosedOnly && s.State != CLOSE:
		return kernel.EBUSY
	case val < 0 || val > 1:
		return kernel.EINVAL
	}
	s.zerocopy = val == 1
	s.Note(kernel.Entry{Op: kernel.OpSoZerocopy, Args: [4]int64{int64(val)}})
	return 0
}

// Getsockopt models sock_getsockopt for the options Setsockopt knows (the
// FORCE forms are write-only: ENOPROTOOPT). It
// returns the value the kernel reports: SO_SNDBUF and SO_RCVBUF the doubled
// sizes, SO_ZEROCOPY the flag (ENOPROTOOPT where the option does not
// exist), SO_MAX_PACING_RATE the limit as a 4-byte int shows it (-1 for
// none), SO_MARK the mark, to anyone.
func (s *Sock) Getsockopt(opt kernel.SockOpt) (int, kernel.Errno) {
	switch opt {
	case kernel.SO_ZEROCOPY:
		if !s.Host().Profile.OptIn {
			return 0, kernel.ENOPROTOOPT
		}
		if s.zerocopy {
			return 1, 0
		}
		return 0, 0
	case kernel.SO_SNDBUF:
		return s.Sndbuf, 0
	case kernel.SO_RCVBUF:
		return s.Rcvbuf, 0
	case kernel.SO_RCVLOWAT:
		return s.Rcvlowat, 0
	case kernel.SO_TIMESTAMPING, kernel.SO_TIMESTAMPING_NEW:
		return int(s.Tsflags), 0
	case kernel.SO_TIMESTAMP_OLD, kernel.SO_TIMESTAMP_NEW, kernel.SO_TIMESTAMPNS_OLD, kernel.SO_TIMESTAMPNS_NEW:
		return s.timestampOpt(opt), 0
	case kernel.SO_MAX_PACING_RATE:
		// The 32-bit form: min_t(unsigned long, ~0U, sk_max_pacing_rate),
		// which an int shows as -1 for no limit.
		return int(int32(uint32(min(s.MaxPacingRate, math.MaxUint32)))), 0
	case kernel.SO_MARK:
		return int(int32(s.Mark)), 0
	case kernel.SO_REUSEADDR, kernel.SO_REUSEPORT:
		if opt == kernel.SO_REUSEADDR && s.Reuse || opt == kernel.SO_REUSEPORT && s.Reuseport {
			return 1, 0
		}
		return 0, 0
	case kernel.SO_OOBINLINE:
		if s.URGInline {
			return 1, 0
		}
		return 0, 0
	}
	return 0, kernel.ENOPROTOOPT
}

// CloneFrom models what sk_clone_lock copies of the listener parent into
// the child a SYN creates: its flags (InheritFlags), its buffer sizes,
// sk_rcvbuf and sk_sndbuf with their SO_RCVBUF/SO_SNDBUF locks, and
// sk_rcvlowat (measured on Linux 6.18: SO_RCVLOWAT 7 on a listener reads
// 7 on its child).
func (s *Sock) CloneFrom(parent *Sock) {
	s.InheritFlags(parent)
	s.Rcvbuf, s.RcvbufLocked = parent.Rcvbuf, parent.RcvbufLocked
	s.Sndbuf, s.SndbufLocked = parent.Sndbuf, parent.SndbufLocked
	s.Rcvlowat = parent.Rcvlowat
}

// InheritFlags models the flag copy of sk_clone_lock: an accepted socket
// starts with its listener's SOCK_ZEROCOPY, timestamping (sk_tsflags and
// the receive timestamp sk_flags, SOCK_RCVTSTAMP and the rest: Rxts),
// sk_reuse and sk_reuseport settings and SOCK_URGINLINE (probed on Linux
// 6.18), and a
// v4-mapped listener's child is v4-mapped. A child with SK_FLAGS_TIMESTAMP
// takes a count of the host's receive timestamps of its own
// (net_enable_timestamp), which its destruction gives back.
func (s *Sock) InheritFlags(parent *Sock) {
	s.V4Mapped = parent.V4Mapped
	s.Reuse, s.Reuseport = parent.Reuse, parent.Reuseport
	s.URGInline = parent.URGInline
	s.zerocopy = parent.zerocopy
	s.Tsflags = parent.Tsflags
	for _, f := range []RxtsFlags{RxtsTimestamp, RxtsTimestampingRxSoftware} {
		if parent.Rxts&f != 0 {
			s.enableTimestamp(f)
		}
	}
	s.Rxts = parent.Rxts
}
