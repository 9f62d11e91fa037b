package notify

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
)

// ENOMSG is the ee_errno of TX timestamp records.
const ENOMSG kernel.Errno = 42

// Record is one skb on a socket's error queue, as recvmsg(MSG_ERRQUEUE)
// returns it: the struct sock_extended_err fields, plus what the record
// costs its socket until it is read.
//
// A zerocopy notification has Origin SO_EE_ORIGIN_ZEROCOPY, Errno 0, Code 0
// or SO_EE_CODE_ZEROCOPY_COPIED, and the inclusive id range [Info, Data].
// A TX timestamp has Origin SO_EE_ORIGIN_TIMESTAMPING, Errno ENOMSG, Info
// the SCM_TSTAMP_* type and Data the key (SOF_TIMESTAMPING_OPT_ID).
type Record struct {
	Origin uint8
	Errno  kernel.Errno
	Type   uint8
	Code   uint8
	Info   uint32
	Data   uint32
	// Truesize is the record skb's charge: optmem for a zerocopy
	// notification (sock_omalloc), rmem for a timestamp (sock_queue_err_skb).
	Truesize int
	// Skb is the timestamp's clone of the sent skb, if it carries one
	// (without SOF_TIMESTAMPING_OPT_TSONLY); freeing it may complete a uarg.
	Skb *skb.Buff
	// Quoted is the payload an ICMP error quotes of the datagram that
	// drew it, what recvmsg(MSG_ERRQUEUE) returns: ip_icmp_error
	// (ipv6_icmp_error) pulls the error's skb to the offending datagram's
	// UDP payload before queueing it, and ip_recv_error copies skb->len.
	Quoted int
}

// Range returns the id range of a zerocopy notification.
func (r Record) Range() Range { return Range{Lo: r.Info, Hi: r.Data} }

// Copied reports the COPIED code of a zerocopy notification.
func (r Record) Copied() bool { return r.Code&kernel.SO_EE_CODE_ZEROCOPY_COPIED != 0 }

// IsICMP reports whether the record is an ICMP or ICMPv6 error
// (is_icmp_err_skb).
func (r Record) IsICMP() bool {
	return r.Origin == kernel.SO_EE_ORIGIN_ICMP || r.Origin == kernel.SO_EE_ORIGIN_ICMP6
}

// IsZerocopy reports whether the record is a zerocopy notification.
func (r Record) IsZerocopy() bool { return r.Origin == kernel.SO_EE_ORIGIN_ZEROCOPY }

// String renders the record as a timeline shows it: "zerocopy [0,3]
// COPIED" or "timestamp SCM_TSTAMP_SND key=5".
func (r Record) String() string {
	switch r.Origin {
	case kernel.SO_EE_ORIGIN_ZEROCOPY:
		s := "zerocopy " + r.Range().String()
		if r.Copied() {
			s += " COPIED"
		}
		return s
	case kernel.SO_EE_ORIGIN_TIMESTAMPING:
		return fmt.Sprintf("timestamp %s key=%d", TstampName(r.Info), r.Data)
	case kernel.SO_EE_ORIGIN_ICMP, kernel.SO_EE_ORIGIN_ICMP6:
		return r.ICMPText()
	}
	return fmt.Sprintf("origin %d errno %v code %d info %d data %d", r.Origin, r.Errno, r.Code, r.Info, r.Data)
}

// ICMPText renders an ICMP error record as the scenario language writes
// it: "icmp ECONNREFUSED type=3 code=3 quoted=100", "icmp6 ECONNREFUSED
// type=1 code=4 quoted=1184" (ee_errno, ee_type, ee_code, the quoted
// payload's length).
func (r Record) ICMPText() string {
	kind := "icmp"
	if r.Origin == kernel.SO_EE_ORIGIN_ICMP6 {
		kind = "icmp6"
	}
	return fmt.Sprintf("%s %v type=%d code=%d quoted=%d", kind, r.Errno, r.Type, r.Code, r.Quoted)
}

// TstampName names an SCM_TSTAMP_* type.
func TstampName(t uint32) string {
	switch t {
	case kernel.SCM_TSTAMP_SND:
		return "SCM_TSTAMP_SND"
	case kernel.SCM_TSTAMP_SCHED:
		return "SCM_TSTAMP_SCHED"
	case kernel.SCM_TSTAMP_ACK:
		return "SCM_TSTAMP_ACK"
	}
	return fmt.Sprintf("SCM_TSTAMP_%d", t)
}

// Range is an inclusive range of notification ids [Lo, Hi], modulo 2^32:
// Hi may be below Lo when the range wraps. The zero value is the single id
// 0.
type Range struct {
	Lo, Hi uint32
}

// Len returns how many ids the range holds, 1 to 2^32.
func (r Range) Len() uint64 { return uint64(r.Hi-r.Lo) + 1 }

// Contains reports whether id lies in the range, wrap included.
func (r Range) Contains(id uint32) bool { return id-r.Lo <= r.Hi-r.Lo }

// String renders the range as "[lo,hi]".
func (r Range) String() string { return fmt.Sprintf("[%d,%d]", r.Lo, r.Hi) }
