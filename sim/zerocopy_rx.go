package sim

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// ZerocopyReceive models getsockopt(IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE)
// (tcp.Conn.ZerocopyReceive) with the struct's in fields a. The result's
// value is the length mapped; the timeline shows what the call wrote
// back, and expect reads it (recv_skip_hint, inq, copybuf_len,
// msg_controllen, msg_flags, cmsgs). What it wrote of a control buffer
// is Result.ZcControl; whether the data was timestamped is undetermined
// when it arrived as the host switched its receive timestamps. Other
// sockets answer as for any option at that level (GetsockoptBuf).
func (w *World) ZerocopyReceive(c Call, s *Socket, a tcp.ZcArgs) Result {
	if s.tcp == nil {
		return w.GetsockoptBuf(c, s, kernel.TCP_ZEROCOPY_RECEIVE, Optval{Len: a.Optlen, Null: a.Null})
	}
	var r tcp.ZcResult
	var err kernel.Errno
	return w.syscallThen(c, "getsockopt", s, func() Result {
		r, err = s.tcp.ZerocopyReceive(a)
		return Result{}
	}, func(Result) Result {
		// do_tcp_getsockopt writes err and inq after release_sock.
		s.tcp.ZerocopyReceived(&r, err)
		if err != 0 {
			return fail(err)
		}
		s.zcrx = r
		res := ok(int64(r.Length))
		if r.Cmsg {
			if !a.Control.Null || r.Control.Ctrunc {
				res.ZcControl = ZcControlText(r.Control)
			}
			if r.Tstamp == kernel.RxStampUndetermined && len(s.Sk.RxTimestampCmsgs()) > 0 {
				res.Undetermined = "whether the data was timestamped: it arrived as the host's receive timestamps were switched (net_enable_timestamp and net_disable_timestamp defer the switch to a work item)"
			}
		}
		w.say(fmt.Sprintf("{length=%d, recv_skip_hint=%d, inq=%d, err=%d, copybuf_len=%d}, [%d]",
			r.Length, r.RecvSkipHint, r.Inq, r.Err, r.CopybufLen, r.Optlen))
		return res
	})
}

// ZcControlText renders what getsockopt(TCP_ZEROCOPY_RECEIVE) wrote of
// its control buffer: the control messages (type and cmsg_len), how far
// msg_control moved, msg_controllen and msg_flags, as in "cmsgs
// [SO_TIMESTAMPNS/32 SO_TIMESTAMPING/64] msg_control+96 msg_controllen=32
// msg_flags=0".
func ZcControlText(c sock.RecvControl) string {
	return fmt.Sprintf("cmsgs [%s] msg_control+%d msg_controllen=%d msg_flags=%s", cmsgsText(c), c.Used, c.Left, ctruncText(c))
}

// cmsgsText lists the control messages a receive wrote: each one's type
// and cmsg_len, as in "SO_TIMESTAMPNS/32 SO_TIMESTAMPING/64".
func cmsgsText(c sock.RecvControl) string {
	parts := make([]string, len(c.Cmsgs))
	for i, m := range c.Cmsgs {
		parts[i] = fmt.Sprintf("%s/%d", kernel.SockOptNames.Name(m.Type), m.Len)
	}
	return strings.Join(parts, " ")
}

// ctruncText is msg_flags as a receive's control buffer leaves it:
// MSG_CTRUNC or 0.
func ctruncText(c sock.RecvControl) string {
	if c.Ctrunc {
		return kernel.MSG_CTRUNC.String()
	}
	return "0"
}

// ZcResult returns what the socket's last getsockopt(TCP_ZEROCOPY_RECEIVE)
// wrote back.
func (s *Socket) ZcResult() tcp.ZcResult { return s.zcrx }

// RxMapLen returns the length a TCP socket's zerocopy receive mapping
// was asked for (tcp.RxMapping.Length), 0 without one.
func (s *Socket) RxMapLen() int {
	if s.tcp == nil || s.tcp.RxMap() == nil {
		return 0
	}
	return s.tcp.RxMap().Length()
}
