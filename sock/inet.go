package sock

import "github.com/zcsim/zcsim/kernel"

// SetInetOpt models do_ip_setsockopt (SOL_IP) and do_ipv6_setsockopt
// (SOL_IPV6) for the options the model reads:
//
//   - IP_RECVERR, IPV6_RECVERR: report errors on the error queue (the
//     IPv4 and the IPv6 flag are apart: inet->recverr, np->recverr).
//     Switching one off purges the error queue (skb_errqueue_purge) of
//     every record but zerocopy notifications and timestamps: a queued
//     ICMP error is dropped, sk_err stays (probed on Linux 6.18).
//   - IP_HDRINCL: the payload of a RAW socket carries the IP header
//     (raw_send_hdrinc); ENOPROTOOPT on any other socket.
//
// Which sockets reach which level is the caller's business (ip_setsockopt,
// ipv6_setsockopt).
func (s *Sock) SetInetOpt(opt kernel.SockOpt, val int) kernel.Errno {
	on := val != 0
	switch opt {
	case kernel.IP_RECVERR:
		s.IPRecverr = on
	case kernel.IPV6_RECVERR:
		s.IPv6Recverr = on
	case kernel.IP_HDRINCL:
		if s.Class != kernel.ClassRAW {
			return kernel.ENOPROTOOPT
		}
		s.Hdrincl = on
	default:
		return kernel.ENOPROTOOPT
	}
	if !on && (opt == kernel.IP_RECVERR || opt == kernel.IPV6_RECVERR) {
		for _, r := range s.ErrQueue.PurgeErrors() {
			s.freeRecord(r)
		}
	}
	s.Note(kernel.Entry{Op: kernel.OpSetsockopt, Args: [4]int64{int64(opt.Level), int64(opt.Name), int64(val)}})
	return 0
}

// InetOpt models do_ip_getsockopt and do_ipv6_getsockopt: the flags
// SetInetOpt sets, 0 or 1 (IP_HDRINCL reads on any socket).
func (s *Sock) InetOpt(opt kernel.SockOpt) (int, kernel.Errno) {
	var on bool
	switch opt {
	case kernel.IP_RECVERR:
		on = s.IPRecverr
	case kernel.IPV6_RECVERR:
		on = s.IPv6Recverr
	case kernel.IP_HDRINCL:
		on = s.Hdrincl
	default:
		return 0, kernel.ENOPROTOOPT
	}
	if on {
		return 1, 0
	}
	return 0, 0
}
