package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// tfoDest names a Fast Open destination in the namespace's TCP metrics
// cache (tcp_fastopen_cache_get/set key cookies by the peer's address):
// every implicit peer behind one device has the same address.
type tfoDest struct {
	family kernel.Family
	dev    string
}

// fastOpenDest is the msg_name of a sendto on the TCP socket s, for
// tcp_sendmsg_fastopen: its implicit peer, the cookie the namespace has
// cached for it, and a connect that caches the cookie a Fast Open
// listener grants when the SYN asked for one (tcp_rcv_fastopen_synack).
// A listener does Fast Open without its own TCP_FASTOPEN only under
// TFO_SERVER_WO_SOCKOPT1, and the implicit peer sets no option, so
// cookies need net.ipv4.tcp_fastopen to have TFO_SERVER_ENABLE and
// TFO_SERVER_WO_SOCKOPT1 (0x402). Once cached a cookie stays: a SYN-ACK
// without one does not clear it. nil if s has no peer.
func (w *World) fastOpenDest(s *Socket) *tcp.Dest {
	if s.Peer == nil || s.Peer.tcp == nil {
		return nil
	}
	key := tfoDest{s.Sk.Family, s.Dev.Name}
	return &tcp.Dest{
		Cookie: w.tfoCookies[key],
		Connect: func(cookieReq bool) kernel.Errno {
			if err := w.handshake(s); err != 0 {
				return err
			}
			server := sock.TFOServerEnable | sock.TFOServerWoSockopt
			if cookieReq && w.Net.TCPFastOpen&server == server {
				if w.tfoCookies == nil {
					w.tfoCookies = map[tfoDest]bool{}
				}
				w.tfoCookies[key] = true
			}
			return 0
		},
	}
}

// handshake completes the three-way handshake of the TCP socket s with
// its peer.
func (w *World) handshake(s *Socket) kernel.Errno {
	if err := s.tcp.Connect(s.Peer.tcp.SynWindow()); err != 0 {
		return err
	}
	s.Peer.tcp.Connect(s.tcp.SynWindow())
	return 0
}
