package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// tfoDest names a Fast Open destination in the namespace's TCP metrics
// cache (tcp_fastopen_cache_get/set key cookies by the peer's address):
// every implicit peer behind one device has the same address, and so has
// every far side the scenario plays on one scripted device.
type tfoDest struct {
	family kernel.Family
	dev    string
}

// tfoMetrics is a destination's struct tcp_fastopen_metrics: the peer's
// MSS (0: none), the cookie (Set, the bytes a scripted peer gave; an
// implicit peer's have no text), and try_exp: 1 after a cookie request in
// the RFC 7413 option went unanswered (the next request is experimental),
// 2 after an experimental one did (back to RFC 7413, for good).
type tfoMetrics struct {
	mss    int
	cookie FastOpen
	tryExp int
}

// request is the option of a SYN that asks for a cookie
// (tcp_fastopen_cache_get: experimental when try_exp is 1, or when the
// cached, empty, cookie is).
func (m tfoMetrics) request() FastOpen {
	return FastOpen{Set: true, Exp: m.tryExp == 1 || m.cookie.Exp}
}

// fastOpenDest is the msg_name of a sendto on the TCP socket s, for
// tcp_sendmsg_fastopen: its implicit peer, or the far side of its
// scripted device, with what the namespace cached for it; nil if s has
// neither. The implicit peer's listener does Fast Open without its own
// TCP_FASTOPEN only under TFO_SERVER_WO_SOCKOPT1, and sets no option, so
// its cookies need net.ipv4.tcp_fastopen to have TFO_SERVER_ENABLE and
// TFO_SERVER_WO_SOCKOPT1 (0x402). Once cached a cookie stays: a SYN-ACK
// without one does not clear it (tcp_fastopen_cache_set).
func (w *World) fastOpenDest(s *Socket) *tcp.Dest {
	key := tfoDest{s.Sk.Family, s.Dev.Name}
	m := w.tfoCache[key]
	switch {
	case s.scripted():
		return w.scriptedFastOpen(s, m)
	case s.Peer == nil || s.Peer.tcp == nil:
		return nil
	}
	return &tcp.Dest{
		Cookie: m.cookie.Set,
		Connect: func(cookieReq bool) kernel.Errno {
			if err := w.handshake(s); err != 0 {
				return err
			}
			server := sock.TFOServerEnable | sock.TFOServerWoSockopt
			if cookieReq && w.Net.TCPFastOpen&server == server {
				m.cookie = FastOpen{Set: true}
				w.cacheFastOpen(key, m)
			}
			return 0
		},
	}
}

// scriptedFastOpen is the Fast Open destination of a socket s on a
// scripted device, whose cache entry is m: connecting starts the
// handshake, and the SYN goes out on the device carrying the call's SYN
// data and the option tcp_syn_options writes: a cookie request
// (tcp_send_syn_data's fallback), the cached cookie, or none under
// TFO_CLIENT_NO_COOKIE (tcp_fastopen_cookie_check sets its length to -1).
func (w *World) scriptedFastOpen(s *Socket, m tfoMetrics) *tcp.Dest {
	var offer tcp.SynOptions
	var fo FastOpen
	return &tcp.Dest{
		Cookie: m.cookie.Set,
		MSS:    m.mss,
		Connect: func(cookieReq bool) kernel.Errno {
			var err kernel.Errno
			if offer, err = s.tcp.StartConnect(); err != 0 {
				return err
			}
			switch {
			case cookieReq:
				fo = m.request()
			case w.Net.TCPFastOpen&sock.TFOClientNoCookie == 0:
				fo = m.cookie
			}
			return 0
		},
		SynSent: func(data int) {
			s.listener().synFastOpen = fastOpenSyn{option: fo, data: data > 0}
			syn := synPacket(offer)
			syn.Len, syn.FastOpen = data, fo
			w.emit(s, syn)
		},
	}
}

// fastOpenSyn is what a connecting socket's SYN carried of Fast Open:
// its option and whether it had data (tp->syn_fastopen, syn_data).
type fastOpenSyn struct {
	option FastOpen
	data   bool
}

// synPacket is the SYN that offers o.
func synPacket(o tcp.SynOptions) Packet {
	return Packet{Flags: SYN, Win: o.Window, MSS: o.MSS, Wscale: o.Wscale, SackOK: o.SackOK, TS: o.TS}
}

// cacheFastOpen stores m for key.
func (w *World) cacheFastOpen(key tfoDest, m tfoMetrics) {
	if w.tfoCache == nil {
		w.tfoCache = map[tfoDest]tfoMetrics{}
	}
	w.tfoCache[key] = m
}

// fastOpenSynAck models what tcp_rcv_fastopen_synack caches of the
// SYN-ACK p that completed the handshake of the scripted socket s, when
// its SYN was a Fast Open one (tcp_fastopen_cache_set): the SYN-ACK's
// MSS, its cookie if the SYN had the option (an unsolicited one is
// ignored) and it is valid, and, when a request without data got no
// cookie, try_exp (1 after an RFC 7413 request, 2 after an experimental
// one; it only grows, and only while no cookie is cached).
func (w *World) fastOpenSynAck(s *Socket, p Packet) {
	syn := s.listener().synFastOpen
	if !syn.option.Set && !syn.data {
		return
	}
	key := tfoDest{s.Sk.Family, s.Dev.Name}
	m := w.tfoCache[key]
	if p.MSS > 0 {
		m.mss = p.MSS
	}
	switch {
	case syn.option.Set && p.FastOpen.validCookie():
		m.cookie = FastOpen{Set: true, Exp: p.FastOpen.Exp, Cookie: p.FastOpen.Cookie}
	case syn.option.Set && !syn.data:
		tryExp := 1
		if syn.option.Exp {
			tryExp = 2
		}
		if tryExp > m.tryExp && !m.cookie.Set && !m.cookie.Exp {
			m.tryExp = tryExp
		}
	}
	w.cacheFastOpen(key, m)
}

// fastOpenAnswer is what tcp_try_fastopen decides for a SYN: a child made
// at the SYN, the cookie the SYN-ACK grants, or why the model cannot say
// (all zero when the SYN goes the usual way).
type fastOpenAnswer struct {
	child bool
	grant FastOpen
	why   string
}

// tryFastOpen models tcp_try_fastopen for the SYN p on the scripted
// listener s: nothing unless net.ipv4.tcp_fastopen has TFO_SERVER_ENABLE,
// the SYN has data or the option, and the Fast Open queue has room
// (tcp_fastopen_queue_check: max_qlen from TCP_FASTOPEN, or under
// TFO_SERVER_WO_SOCKOPT1 the listen backlog, tcp.Conn.Listen). Under TFO_SERVER_COOKIE_NOT_REQD the child is made at
// once, whatever cookie the SYN has, and the SYN-ACK carries none. Without
// it, a cookie request goes the usual way (its data dropped) and the
// SYN-ACK grants a cookie in the request's flavour, whose bytes
// tcp_fastopen_cookie_gen computes (SipHash of the SYN's addresses under
// net.ipv4.tcp_fastopen_key), which the model does not have: they are
// undetermined, and so is whether a SYN's cookie is valid
// (tcp_fastopen_cookie_gen_check), which the model says it cannot tell;
// a SYN with data and no option goes the usual way, its data dropped.
func (w *World) tryFastOpen(s *Socket, p Packet) fastOpenAnswer {
	fo := w.Net.TCPFastOpen
	maxQlen := s.tcp.FastOpenQlen()
	switch {
	case fo&sock.TFOServerEnable == 0 || p.Len == 0 && !p.FastOpen.Set:
		return fastOpenAnswer{}
	case maxQlen == 0 || s.listener().fastOpenQlen >= maxQlen:
		return fastOpenAnswer{}
	case fo&sock.TFOServerCookieNotReqd != 0:
		return fastOpenAnswer{child: true}
	case p.FastOpen.Set && p.FastOpen.Cookie == "":
		return fastOpenAnswer{grant: FastOpen{Set: true, Exp: p.FastOpen.Exp, Undetermined: true}}
	case p.FastOpen.validCookie():
		return fastOpenAnswer{why: "undetermined: whether the SYN's Fast Open cookie is valid depends on its addresses and net.ipv4.tcp_fastopen_key (tcp_fastopen_cookie_gen_check), which the model does not have"}
	}
	return fastOpenAnswer{}
}

// fastOpenData queues the data of the Fast Open SYN p on child
// (tcp_fastopen_add_skb).
func (w *World) fastOpenData(child *Socket, p Packet) {
	if p.Len == 0 {
		return
	}
	f := frame{len: p.Len, endSeq: uint32(p.Len)}
	child.tcp.ReceiveSynData(w.received(child, f))
	w.say(fmt.Sprintf("%s queues the %d bytes of the SYN (tcp_fastopen_add_skb)", child.Name, p.Len))
}

// handshake completes the three-way handshake of the TCP socket s with
// its peer: s takes the SYN-ACK's window, unscaled, and the peer the
// window of the ACK that completes the handshake, which s offers now
// (tcp_select_window, rounded up to its window scale):
// tcp_create_openreq_child makes it the child's snd_wnd and max_window,
// and the MSS is bounded to half of it (tcp_sync_mss). Measured on Linux
// 6.18 over loopback: the client's MSS is 32741, the accepted socket's
// 32768.
func (w *World) handshake(s *Socket) kernel.Errno {
	if err := s.tcp.Connect(s.Peer.tcp.SynWindow()); err != 0 {
		return err
	}
	s.Peer.tcp.Connect(s.tcp.Window())
	return 0
}
