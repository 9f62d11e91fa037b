package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/tcp"
)

// ZerocopyReceive models getsockopt(IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE)
// (tcp.Conn.ZerocopyReceive) with the struct's in fields a. The result's
// value is the length mapped; the timeline shows what the call wrote
// back, and expect reads it (recv_skip_hint, inq, copybuf_len). Other
// sockets answer as for any option at that level (GetsockoptBuf).
func (w *World) ZerocopyReceive(c Call, s *Socket, a tcp.ZcArgs) Result {
	if s.tcp == nil {
		return w.GetsockoptBuf(c, s, kernel.TCP_ZEROCOPY_RECEIVE, Optval{Len: a.Optlen, Null: a.Null})
	}
	return w.syscall(c, "getsockopt", s, func() Result {
		r, err := s.tcp.ZerocopyReceive(a)
		if err != 0 {
			return fail(err)
		}
		s.zcrx = r
		w.say(fmt.Sprintf("{length=%d, recv_skip_hint=%d, inq=%d, err=%d, copybuf_len=%d}, [%d]",
			r.Length, r.RecvSkipHint, r.Inq, r.Err, r.CopybufLen, r.Optlen))
		return ok(int64(r.Length))
	})
}

// ZcResult returns what the socket's last getsockopt(TCP_ZEROCOPY_RECEIVE)
// wrote back.
func (s *Socket) ZcResult() tcp.ZcResult { return s.zcrx }

// RxMapLen returns the size of a TCP socket's zerocopy receive mapping,
// 0 without one.
func (s *Socket) RxMapLen() int {
	if s.tcp == nil || s.tcp.RxMap() == nil {
		return 0
	}
	return s.tcp.RxMap().Len()
}
