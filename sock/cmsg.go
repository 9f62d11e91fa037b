package sock

import "github.com/zcsim/zcsim/kernel"

// Cmsg is one control message of a sendmsg: cmsg_level, cmsg_type and Len
// bytes of data (cmsg_len is CMSG_LEN(Len)) holding Data, little-endian,
// its low Len bytes (all of Data's 8 when Len is larger).
type Cmsg struct {
	Type kernel.CmsgType
	Len  int
	Data uint64
}

// Control is the control buffer (msg_control) of the send call in
// progress: its messages in order and, after them, the SCM_ZC_NOTIFICATION
// of the unmerged v7 series when Zc is set (its handler, which the
// simulator runs).
type Control struct {
	Msgs []Cmsg
	Zc   func() kernel.Errno
}

// Sockcm is struct sockcm_cookie as the call's control messages leave it
// (sockcm_init starts it from the socket): the timestamping flags of the
// call's packets, and the mark and priority, which route nothing in the
// model.
type Sockcm struct {
	Tsflags  kernel.Timestamping
	Mark     uint32
	Priority uint32
}

// InitSockcm models sockcm_init: the cookie of a call without control
// messages.
func (s *Sock) InitSockcm() Sockcm { return Sockcm{Tsflags: s.Tsflags} }

// TxRecordMask is SOF_TIMESTAMPING_TX_RECORD_MASK on Linux 6.18: the flags
// that ask for a TX timestamp (hardware, software, SCHED, ACK and
// COMPLETION, bit 18), the only ones a control message may set.
const TxRecordMask kernel.Timestamping = kernel.SOF_TIMESTAMPING_TX_HARDWARE | kernel.SOF_TIMESTAMPING_TX_SOFTWARE |
	kernel.SOF_TIMESTAMPING_TX_SCHED | kernel.SOF_TIMESTAMPING_TX_ACK | 1<<18

// CmsgSend models sock_cmsg_send, as TCP and packet sockets call it: each
// SOL_SOCKET message, in order, through SockCmsg, other levels skipped;
// then the SCM_ZC_NOTIFICATION handler. The first error stops it.
func (s *Sock) CmsgSend(c *Sockcm) kernel.Errno {
	ctl := s.Control
	if ctl == nil {
		return 0
	}
	for _, m := range ctl.Msgs {
		if m.Type.Level != kernel.SOL_SOCKET {
			continue
		}
		if err := s.SockCmsg(m, c); err != 0 {
			return err
		}
	}
	return s.ZcCmsg()
}

// ZcCmsg runs the call's SCM_ZC_NOTIFICATION handler, if it carries one.
func (s *Sock) ZcCmsg() kernel.Errno {
	if s.Control == nil || s.Control.Zc == nil {
		return 0
	}
	return s.Control.Zc()
}

// SockCmsg models __sock_cmsg_send for one SOL_SOCKET message, as Linux
// 6.18 has it (each case probed on it over loopback):
//
//	SO_MARK            EPERM without CAP_NET_ADMIN (checked before the length), EINVAL unless a u32
//	SO_PRIORITY        EINVAL unless a u32; EPERM above 6 without CAP_NET_ADMIN (sk_set_prio_allowed)
//	SO_TIMESTAMPING    EINVAL unless a u32 of TX record flags only; they replace the call's (_OLD and _NEW)
//	SCM_TXTIME         EINVAL: SO_TXTIME (SOCK_TXTIME) is not modelled, so never set
//	SCM_RIGHTS, SCM_CREDENTIALS  ignored: semantically SOL_UNIX
//	any other type     EINVAL
//
// SCM_DEVMEM_DMABUF and SCM_TS_OPT_ID are known to 6.18 and not modelled:
// Modelled says so, and callers do not pass them. The model's tasks have
// no CAP_NET_RAW, which the kernel accepts beside CAP_NET_ADMIN.
func (s *Sock) SockCmsg(m Cmsg, c *Sockcm) kernel.Errno {
	u32 := m.Len == 4
	capable := s.Task == nil || s.Task.CapNetAdmin
	switch m.Type {
	case kernel.SCM_MARK:
		if !capable {
			return kernel.EPERM
		}
		if !u32 {
			return kernel.EINVAL
		}
		c.Mark = uint32(m.Data)
	case kernel.SCM_PRIORITY:
		if !u32 {
			return kernel.EINVAL
		}
		if uint32(m.Data) > 6 && !capable {
			return kernel.EPERM
		}
		c.Priority = uint32(m.Data)
	case kernel.SCM_TIMESTAMPING, kernel.SCM_TIMESTAMPING_NEW:
		flags := kernel.Timestamping(m.Data)
		if !u32 || flags&^TxRecordMask != 0 {
			return kernel.EINVAL
		}
		c.Tsflags = c.Tsflags&^TxRecordMask | flags
	case kernel.SCM_RIGHTS, kernel.SCM_CREDENTIALS:
	default:
		return kernel.EINVAL
	}
	return 0
}

// Modelled reports whether the model knows what a control message of type
// t does on a send: every type of a level other than SOL_IP and SOL_IPV6
// (whose types — IP_TTL, IP_TOS, IP_PKTINFO, IPV6_HOPLIMIT, … — are not
// modelled), except SCM_DEVMEM_DMABUF and SCM_TS_OPT_ID.
func Modelled(t kernel.CmsgType) bool {
	switch {
	case t.Level == kernel.SOL_IP, t.Level == kernel.SOL_IPV6:
		return false
	case t == kernel.SCM_DEVMEM_DMABUF, t == kernel.SCM_TS_OPT_ID:
		return false
	}
	return true
}

// NeedsData reports whether what a control message of type t with n bytes
// of data does depends on its value: a u16 UDP_SEGMENT's (the segment
// size), a u32 SO_TIMESTAMPING's (the flags, or EINVAL) and a u32
// SO_PRIORITY's (EPERM above 6). SO_MARK's routes nothing in the model;
// every other message is refused or ignored whatever its value.
func NeedsData(t kernel.CmsgType, n int) bool {
	switch t {
	case kernel.SCM_UDP_SEGMENT:
		return n == 2
	case kernel.SCM_TIMESTAMPING, kernel.SCM_TIMESTAMPING_NEW, kernel.SCM_PRIORITY:
		return n == 4
	}
	return false
}
