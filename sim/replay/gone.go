package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
)

// peerGone replays a send on a connected datagram socket that the log
// shows failing with ECONNREFUSED while the model has no error pending.
// The socket's peer is untraced, and the model's stands in for it reading
// everything; the kernel's answer says nobody listened on the port when
// an earlier datagram arrived: __udp4_lib_rcv (__udp6_lib_rcv) answered it
// with an ICMP port unreachable, whose __udp4_lib_err (__udp6_lib_err) set
// sk_err on the connected socket without IP_RECVERR, and this send's
// sock_alloc_send_pskb returned it. It reports false when the send is left
// to the plain prediction: the socket is not a connected UDP socket
// without RECVERR, its peer is a traced socket (whose close the log would
// show), or it has sent no datagram yet, so that no ICMP error could be
// pending (why then says so). Otherwise the send agrees under the
// assumption that the receiver had gone before the socket's last
// datagram; it is not run (it sent nothing and took no id), and the
// model's peer is closed, so that later datagrams meet the closed port as
// the kernel's did.
func (r *replayer) peerGone(o *strace.Send, e *fdEntry, text string) (done bool, why string) {
	sk, peer := e.s.Sk, e.s.Peer
	if sk.Type.Base() != kernel.SOCK_DGRAM || sk.State != sock.ESTABLISHED || sk.Err != 0 ||
		sk.IPRecverr || sk.IPv6Recverr || peer == nil || r.traced(peer) {
		return false, ""
	}
	if e.dgrams == 0 {
		return false, "no schedule: the socket has sent no datagram, so no ICMP port unreachable could have set sk_err"
	}
	r.assume(&o.Header, e, text, o.Result.String(), "-1 ECONNREFUSED", "",
		fmt.Sprintf("the untraced receiver at %v had gone before the socket's last datagram: its ICMP port unreachable set sk_err, which this send returned; the call queued nothing, and the model's peer is closed from here on", e.remote))
	r.w.Close(r.call(&o.Header, "close of the untraced receiver"), peer)
	return true, ""
}

// traced reports whether a traced descriptor reads what lands on s: a
// datagram receiver the replay tied to a sender (fdEntry.feed).
func (r *replayer) traced(s *sim.Socket) bool {
	for _, t := range r.tables {
		for _, o := range t.fds {
			if o.feed == s {
				return true
			}
		}
	}
	return false
}
