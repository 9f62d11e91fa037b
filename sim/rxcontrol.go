package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// rxControl writes into ctl, the control buffer of a recvmsg(2) reading
// data (nil for recv(2), which has none to give back), the messages the
// read that returned r writes, having reached skbs stamped as stamp, and
// renders them into r.RecvControl:
//
//   - TCP (tcp_recvmsg, once the read returned 0 or more):
//     tcp_recv_timestamp's SO_TIMESTAMP(NS) and SO_TIMESTAMPING messages
//     (sock.Sock.RxTimestampCmsgs) when an skb read from had a timestamp,
//     then with TCP_INQ TCP_CM_INQ, an int;
//   - UDP, RAW and packet sockets (sock_recv_cmsgs for the datagram
//     read): sock.Sock.DgramRxTimestampCmsgs.
//
// A stamp the model cannot tell (the host's receive timestamps were being
// switched as the data arrived) makes the read undetermined when it
// decides a message. Timestamps' values are not modelled.
func (w *World) rxControl(s *Socket, r *Result, stamp kernel.RxStamp, ctl *sock.RecvControl) {
	if ctl == nil || r.Errno != 0 {
		return
	}
	var cmsgs []sock.RxCmsg
	undetermined := false
	switch {
	case s.tcp != nil:
		if stamp != kernel.RxStampNone {
			cmsgs = s.Sk.RxTimestampCmsgs()
			undetermined = stamp == kernel.RxStampUndetermined && len(cmsgs) > 0
		}
		if s.tcp.RecvmsgInq() {
			cmsgs = append(cmsgs, sock.RxCmsg{Type: kernel.TCP_INQ, DataLen: 4}) // TCP_CM_INQ
		}
	case s.dgrm != nil:
		cmsgs, undetermined = s.Sk.DgramRxTimestampCmsgs(stamp)
	}
	for _, m := range cmsgs {
		ctl.Put(m)
	}
	if undetermined {
		r.Undetermined = "whether the data was timestamped: it arrived as the host's receive timestamps were switched (net_enable_timestamp and net_disable_timestamp defer the switch to a work item)"
	}
	if len(ctl.Cmsgs) > 0 || ctl.Ctrunc {
		r.RecvControl = RecvControlText(*ctl)
	}
}

// RecvControlText renders what a recvmsg reading data wrote into its
// control buffer as the program sees it: the control messages (type and
// cmsg_len), msg_controllen as ___sys_recvmsg writes it back (the bytes
// used) and whether msg_flags has MSG_CTRUNC, as in "cmsgs
// [SO_TIMESTAMPNS/32 SO_TIMESTAMPING/64] msg_controllen=96 msg_flags=0".
func RecvControlText(c sock.RecvControl) string {
	return fmt.Sprintf("cmsgs [%s] msg_controllen=%d msg_flags=%s", cmsgsText(c), c.Used, ctruncText(c))
}
