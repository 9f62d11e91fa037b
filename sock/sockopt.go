package sock

import "github.com/zcsim/zcsim/kernel"

// Setsockopt models sock_setsockopt for the SOL_SOCKET options zcsim knows:
// SO_ZEROCOPY (per the profile, see SetZerocopy), SO_SNDBUF and SO_RCVBUF
// (doubled, clamped to wmem_max/rmem_max and to the minimums), their FORCE
// forms (not clamped to the maxima), SO_RCVLOWAT and SO_TIMESTAMPING. Any
// other option is ENOPROTOOPT; protocol levels are the protocols' business.
func (s *Sock) Setsockopt(opt kernel.SockOpt, val int) kernel.Errno {
	switch opt {
	case kernel.SO_ZEROCOPY:
		return s.SetZerocopy(val)
	case kernel.SO_SNDBUF, kernel.SO_SNDBUFFORCE:
		if opt == kernel.SO_SNDBUF {
			val = min(val, s.Net.WmemMax)
		}
		s.Sndbuf = max(2*max(val, 0), MinSndbuf)
	case kernel.SO_RCVBUF, kernel.SO_RCVBUFFORCE:
		if opt == kernel.SO_RCVBUF {
			val = min(val, s.Net.RmemMax)
		}
		s.Rcvbuf = max(2*max(val, 0), MinRcvbuf)
	case kernel.SO_RCVLOWAT:
		if val < 0 {
			val = 1<<31 - 1
		}
		s.Rcvlowat = max(val, 1)
	case kernel.SO_TIMESTAMPING:
		flags := kernel.Timestamping(val)
		if flags&kernel.SOF_TIMESTAMPING_OPT_ID != 0 && s.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID == 0 {
			s.Tskey = 0
		}
		s.Tsflags = flags
	default:
		return kernel.ENOPROTOOPT
	}
	s.Note("setsockopt %s = %d", kernel.SockOptNames.Name(opt), val)
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
	s.Note("SO_ZEROCOPY = %d", val)
	return 0
}

// Getsockopt models sock_getsockopt for the options Setsockopt knows (the
// FORCE forms are write-only: ENOPROTOOPT). It
// returns the value the kernel reports: SO_SNDBUF and SO_RCVBUF the doubled
// sizes, SO_ZEROCOPY the flag (ENOPROTOOPT where the option does not
// exist).
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
	case kernel.SO_TIMESTAMPING:
		return int(s.Tsflags), 0
	}
	return 0, kernel.ENOPROTOOPT
}
