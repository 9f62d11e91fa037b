package tcp

import (
	"slices"

	"github.com/zcsim/zcsim/kernel"
)

// CANameMax is TCP_CA_NAME_MAX: a congestion control's name and its
// NUL fit in 16 bytes, the buffer a program reads it into.
const CANameMax = 16

// Congestion returns the connection's congestion control (icsk_ca_ops).
func (c *Conn) Congestion() kernel.Congestion { return c.ca }

// SetCongestion models setsockopt(TCP_CONGESTION) of the name the
// program's buffer holds, n bytes of it (optlen): do_tcp_setsockopt
// refuses optlen < 1 (EINVAL) and reads at most TCP_CA_NAME_MAX - 1
// bytes (a program's buffer holds the name and NULs after it);
// tcp_set_congestion_control then keeps the current
// one (and notes the choice), or finds the name (tcp_ca_find: ENOENT for
// one the kernel has not, a name cut short by optlen too), refuses a
// restricted one without CAP_NET_ADMIN (EPERM: one not in
// net.ipv4.tcp_allowed_congestion_control, sock.Sysctl.TCPAllowedCongestion)
// and switches to it
// (tcp_reinit_congestion_control). Measured on Linux 6.18: "cubic",
// "reno" and "bbr" as root, "reno" and "bbr" but not "cubic" (EPERM)
// without capabilities, "vegas" and "cub" ENOENT.
func (c *Conn) SetCongestion(name string, n int, capNetAdmin bool) kernel.Errno {
	if n < 1 {
		return kernel.EINVAL
	}
	name = name[:min(len(name), n, CANameMax-1)]
	ca := kernel.Congestion(name)
	switch {
	case ca == c.ca:
	case !kernel.KnownCongestion(name):
		return kernel.ENOENT
	case !capNetAdmin && !slices.Contains(c.Sk.Net.TCPAllowedCongestion, ca):
		return kernel.EPERM
	default:
		c.ca = ca
	}
	c.caSet = true
	return 0
}

// CongestionName models getsockopt(TCP_CONGESTION) into a buffer of n
// bytes (optlen, not negative): the name in a zeroed TCP_CA_NAME_MAX
// buffer, min(n, TCP_CA_NAME_MAX) bytes of it copied; returned up to
// the first NUL (measured on Linux 6.18: "bbr" for 16 bytes or 4, "bb"
// for 2, "" for 0).
func (c *Conn) CongestionName(n int) string {
	return string(c.ca)[:min(len(c.ca), n)]
}

// InheritCongestion models tcp_ca_openreq_child for a child of listener
// l: the listener's congestion control if TCP_CONGESTION chose it, else
// the namespace's default now (tcp_assign_congestion_control), which New
// gave.
func (c *Conn) InheritCongestion(l *Conn) {
	if l.caSet {
		c.ca, c.caSet = l.ca, true
	}
}
