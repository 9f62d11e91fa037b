package sock

import "github.com/zcsim/zcsim/kernel"

// RxtsFlags are the sk_flags bits of software receive timestamps
// (include/net/sock.h, enum sock_flags).
type RxtsFlags uint8

// Receive timestamp flags.
const (
	// RxtsRcvtstamp is SOCK_RCVTSTAMP: SO_TIMESTAMP or SO_TIMESTAMPNS is
	// on; RxtsRcvtstampns SOCK_RCVTSTAMPNS: it is SO_TIMESTAMPNS.
	RxtsRcvtstamp RxtsFlags = 1 << iota
	RxtsRcvtstampns
	// RxtsTstampNew is SOCK_TSTAMP_NEW: the option was a _NEW one (64-bit
	// time in the control message).
	RxtsTstampNew
	// RxtsTimestamp and RxtsTimestampingRxSoftware are SOCK_TIMESTAMP and
	// SOCK_TIMESTAMPING_RX_SOFTWARE, SK_FLAGS_TIMESTAMP: either holds the
	// host's receive timestamps on (kernel.Netstamp).
	RxtsTimestamp
	RxtsTimestampingRxSoftware
)

// setTimestamp models sock_set_timestamp (__sock_set_timestamps) for
// SO_TIMESTAMP and SO_TIMESTAMPNS, _OLD and _NEW: on, it says which
// (RxtsRcvtstampns, RxtsTstampNew) and holds the host's receive
// timestamps on (sock_enable_timestamp(SOCK_TIMESTAMP)); off, it clears
// SOCK_RCVTSTAMP and SOCK_RCVTSTAMPNS but keeps SOCK_TIMESTAMP, so the
// host goes on stamping until the socket is destroyed.
func (s *Sock) setTimestamp(opt kernel.SockOpt, on bool) {
	if !on {
		s.Rxts &^= RxtsRcvtstamp | RxtsRcvtstampns
		return
	}
	s.Rxts &^= RxtsTstampNew | RxtsRcvtstampns
	if opt == kernel.SO_TIMESTAMP_NEW || opt == kernel.SO_TIMESTAMPNS_NEW {
		s.Rxts |= RxtsTstampNew
	}
	if opt == kernel.SO_TIMESTAMPNS_OLD || opt == kernel.SO_TIMESTAMPNS_NEW {
		s.Rxts |= RxtsRcvtstampns
	}
	s.Rxts |= RxtsRcvtstamp
	s.enableTimestamp(RxtsTimestamp)
}

// setRxTimestamping models the end of sock_set_timestamping, once the
// flags are taken: SOCK_TSTAMP_NEW says whether the option was
// SO_TIMESTAMPING_NEW, and SOF_TIMESTAMPING_RX_SOFTWARE holds the host's
// receive timestamps on or lets them go.
func (s *Sock) setRxTimestamping(isNew bool) {
	s.Rxts &^= RxtsTstampNew
	if isNew {
		s.Rxts |= RxtsTstampNew
	}
	if s.Tsflags&kernel.SOF_TIMESTAMPING_RX_SOFTWARE != 0 {
		s.enableTimestamp(RxtsTimestampingRxSoftware)
	} else {
		s.disableTimestamp(RxtsTimestampingRxSoftware)
	}
}

// timestampOpt models sk_getsockopt of SO_TIMESTAMP and SO_TIMESTAMPNS,
// _OLD and _NEW: 1 if that very option is on.
func (s *Sock) timestampOpt(opt kernel.SockOpt) int {
	on, ns, isNew := s.Rxts&RxtsRcvtstamp != 0, s.Rxts&RxtsRcvtstampns != 0, s.Rxts&RxtsTstampNew != 0
	switch opt {
	case kernel.SO_TIMESTAMP_OLD:
		on = on && !isNew && !ns
	case kernel.SO_TIMESTAMPNS_OLD:
		on = ns && !isNew
	case kernel.SO_TIMESTAMP_NEW:
		on = on && isNew
	default: // SO_TIMESTAMPNS_NEW
		on = ns && isNew
	}
	if on {
		return 1
	}
	return 0
}

// enableTimestamp models sock_enable_timestamp: the first of the two
// SK_FLAGS_TIMESTAMP flags a socket sets takes a count of the host's
// receive timestamps (net_enable_timestamp); AF_UNIX sockets take none
// (sock_needs_netstamp).
func (s *Sock) enableTimestamp(f RxtsFlags) {
	if s.Rxts&f != 0 {
		return
	}
	had := s.Rxts&(RxtsTimestamp|RxtsTimestampingRxSoftware) != 0
	s.Rxts |= f
	if !had && s.Family != kernel.AF_UNIX {
		s.Host().Netstamp.Enable(s.Host().Time())
	}
}

// disableTimestamp models sock_disable_timestamp: clearing the last
// SK_FLAGS_TIMESTAMP flag gives the count back (net_disable_timestamp).
func (s *Sock) disableTimestamp(f RxtsFlags) {
	if s.Rxts&f == 0 {
		return
	}
	s.Rxts &^= f
	if s.Rxts&(RxtsTimestamp|RxtsTimestampingRxSoftware) == 0 && s.Family != kernel.AF_UNIX {
		s.Host().Netstamp.Disable(s.Host().Time())
	}
}

// RxTimestampCmsgs models which control messages tcp_recv_timestamp writes
// for data with a software receive timestamp: SO_TIMESTAMP's or
// SO_TIMESTAMPNS's (old or new, after SOCK_TSTAMP_NEW) when on, then
// SO_TIMESTAMPING's struct scm_timestamping (old or new) when the flags
// ask to report software timestamps (SOF_TIMESTAMPING_SOFTWARE; RX_SOFTWARE
// alone generates but reports nothing). Each is its type and the length
// of its data on x86-64. Data without a timestamp gets none.
func (s *Sock) RxTimestampCmsgs() []RxCmsg {
	var out []RxCmsg
	if m, ok := s.rcvTstampCmsg(); ok {
		out = append(out, m)
	}
	if s.Tsflags&kernel.SOF_TIMESTAMPING_SOFTWARE != 0 {
		out = append(out, s.timestampingCmsg())
	}
	return out
}

// DgramRxTimestampCmsgs models sock_recv_timestamp and
// __sock_recv_timestamp, which a datagram read (udp_recvmsg, raw_recvmsg,
// packet_recvmsg through sock_recv_cmsgs) runs for the datagram it takes,
// whose skb carries stamp: with SOCK_RCVTSTAMP an skb without a
// timestamp is given the current time ("race occurred between timestamp
// enabling and packet receiving"), so SO_TIMESTAMP's or SO_TIMESTAMPNS's
// message is always written; SO_TIMESTAMPING's when
// SOF_TIMESTAMPING_SOFTWARE is set and the skb has a timestamp by then
// (and, for one without, only if SOCK_RCVTSTAMP or
// SOF_TIMESTAMPING_RX_SOFTWARE let __sock_recv_timestamp run at all,
// which without SOCK_RCVTSTAMP changes nothing). An undetermined stamp
// makes the answer undetermined where the two cases differ.
func (s *Sock) DgramRxTimestampCmsgs(stamp kernel.RxStamp) (out []RxCmsg, undetermined bool) {
	if stamp == kernel.RxStampUndetermined {
		none, set := s.dgramRxCmsgs(false), s.dgramRxCmsgs(true)
		return set, len(none) != len(set)
	}
	return s.dgramRxCmsgs(stamp == kernel.RxStampSet), false
}

// dgramRxCmsgs is DgramRxTimestampCmsgs for an skb stamped or not.
func (s *Sock) dgramRxCmsgs(stamped bool) []RxCmsg {
	var out []RxCmsg
	if m, ok := s.rcvTstampCmsg(); ok {
		out, stamped = append(out, m), true // the false timestamp
	}
	if stamped && s.Tsflags&kernel.SOF_TIMESTAMPING_SOFTWARE != 0 {
		out = append(out, s.timestampingCmsg())
	}
	return out
}

// rcvTstampCmsg is SO_TIMESTAMP's or SO_TIMESTAMPNS's message (old or
// new, after SOCK_TSTAMP_NEW: a struct timeval or timespec, 16 bytes on
// x86-64 either way), if SOCK_RCVTSTAMP is set.
func (s *Sock) rcvTstampCmsg() (RxCmsg, bool) {
	if s.Rxts&RxtsRcvtstamp == 0 {
		return RxCmsg{}, false
	}
	isNew := s.Rxts&RxtsTstampNew != 0
	t := kernel.SO_TIMESTAMP_OLD
	switch {
	case s.Rxts&RxtsRcvtstampns != 0 && isNew:
		t = kernel.SO_TIMESTAMPNS_NEW
	case s.Rxts&RxtsRcvtstampns != 0:
		t = kernel.SO_TIMESTAMPNS_OLD
	case isNew:
		t = kernel.SO_TIMESTAMP_NEW
	}
	return RxCmsg{Type: t, DataLen: 16}, true
}

// timestampingCmsg is SO_TIMESTAMPING's struct scm_timestamping (old or
// new): three struct timespec.
func (s *Sock) timestampingCmsg() RxCmsg {
	t := kernel.SO_TIMESTAMPING
	if s.Rxts&RxtsTstampNew != 0 {
		t = kernel.SO_TIMESTAMPING_NEW
	}
	return RxCmsg{Type: t, DataLen: 48}
}

// RxCmsg is a control message a receive writes: its level and type, the
// length of its data, and once written (RecvControl.Put) the cmsg_len
// written, cut to the room the buffer had.
type RxCmsg struct {
	Type    kernel.CmsgType
	DataLen int
	Len     int
}

// RecvControl is the control buffer of a receive (msg_control,
// msg_controllen) as put_cmsg fills it in: Null says msg_control is
// NULL; Left is msg_controllen, what is left of it; Used the bytes
// msg_control moved on; Ctrunc says a message did not fit (MSG_CTRUNC);
// Cmsgs what was written, in order.
type RecvControl struct {
	Null   bool
	Left   int
	Used   int
	Ctrunc bool
	Cmsgs  []RxCmsg
}

// Put models put_cmsg of m into c: without a buffer or room for a struct
// cmsghdr nothing is written and MSG_CTRUNC is set; a message longer than
// the room left is cut to it (MSG_CTRUNC, cmsg_len the room); the buffer
// then moves on by CMSG_SPACE of the data, at most what is left.
func (c *RecvControl) Put(m RxCmsg) {
	if c.Null || c.Left < kernel.CmsgHdrLen {
		c.Ctrunc = true
		return
	}
	m.Len = kernel.CmsgHdrLen + m.DataLen
	if m.Len > c.Left {
		c.Ctrunc = true
		m.Len = c.Left
	}
	c.Cmsgs = append(c.Cmsgs, m)
	step := min(kernel.CmsgSpace(m.DataLen), c.Left)
	c.Used += step
	c.Left -= step
}
