package sim

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// TCP header flags of a Packet (TCPHDR_* of include/net/tcp.h).
const (
	FIN PacketFlags = 1 << iota
	SYN
	RST
	PSH
	ACK
)

// PacketFlags are the flags of a TCP header.
type PacketFlags uint8

var packetFlagNames = [...]string{"FIN", "SYN", "RST", "PSH", "ACK"}

// PacketFlagNames lists the flag names in the order String writes them.
func PacketFlagNames() []string { return packetFlagNames[:] }

// String renders the flags as a "|"-union in the order SYN, FIN, RST,
// PSH, ACK ("0" for none).
func (f PacketFlags) String() string {
	var names []string
	for _, b := range []PacketFlags{SYN, FIN, RST, PSH, ACK} {
		if f&b != 0 {
			names = append(names, packetFlagNames[bitIndex(b)])
		}
	}
	if len(names) == 0 {
		return "0"
	}
	return strings.Join(names, "|")
}

func bitIndex(b PacketFlags) int {
	i := 0
	for b > 1 {
		b >>= 1
		i++
	}
	return i
}

// ParsePacketFlag returns the flag a name spells.
func ParsePacketFlag(name string) (PacketFlags, bool) {
	for i, n := range packetFlagNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Packet is a TCP segment as it crosses a scripted device, in either
// direction, the way a packet tap on the device sees it: flags, the
// sequence number relative to the sender's initial sequence number (its
// SYN is 0, its first byte of data 1, as packetdrill counts), the payload
// length, the acknowledgment (relative to the receiver's ISN, meaningful
// with ACK), the window field as sent (scaled after the handshake), and
// the options. MSS 0 and Wscale tcp.NoWscale mean absent. With TSO a
// GSO skb leaves the device whole: GSO is then its segment size
// (gso_size) and Len the whole payload, the super-packet a tap sees.
type Packet struct {
	Flags    PacketFlags
	Seq      uint32
	Len      int
	Ack      uint32
	Win      int
	MSS      int
	Wscale   int
	SackOK   bool
	TS       bool
	FastOpen FastOpen
	GSO      int
}

// FastOpen is a segment's TCP Fast Open option: TCPOPT_FASTOPEN (34,
// RFC 7413) or, with Exp, the experimental TCPOPT_EXP (254) with magic
// 0xF989. The zero value is no option; Set with no Cookie is a cookie
// request; Cookie is the cookie's bytes in lowercase hex. Undetermined
// marks a cookie of TCP_FASTOPEN_COOKIE_SIZE (8) bytes the model cannot
// compute, the one a listener grants (tcp_fastopen_cookie_gen).
type FastOpen struct {
	Set          bool
	Exp          bool
	Cookie       string
	Undetermined bool
}

// String renders the option as the scenario language's fo or foexp.
func (o FastOpen) String() string {
	s := "fo"
	if o.Exp {
		s = "foexp"
	}
	switch {
	case o.Undetermined:
		s += "=(8 bytes, undetermined)"
	case o.Cookie != "":
		s += "=" + o.Cookie
	}
	return s
}

// validCookie reports whether the option carries a cookie
// tcp_parse_fastopen_option takes: TCP_FASTOPEN_COOKIE_MIN (4) to
// TCP_FASTOPEN_COOKIE_MAX (16) bytes, an even number; another length is
// no cookie (len -1).
func (o FastOpen) validCookie() bool {
	n := len(o.Cookie) / 2
	return o.Set && n >= 4 && n <= 16 && n%2 == 0
}

// String renders p in the words of the scenario language's packet
// statement.
func (p Packet) String() string {
	s := fmt.Sprintf("%v seq=%d len=%d", p.Flags, p.Seq, p.Len)
	if p.Flags&ACK != 0 {
		s += fmt.Sprintf(" ack=%d", p.Ack)
	}
	s += fmt.Sprintf(" win=%d", p.Win)
	if p.MSS > 0 {
		s += fmt.Sprintf(" mss=%d", p.MSS)
	}
	if p.SackOK {
		s += " sackok"
	}
	if p.TS {
		s += " ts"
	}
	if p.Wscale != tcp.NoWscale {
		s += fmt.Sprintf(" wscale=%d", p.Wscale)
	}
	if p.FastOpen.Set {
		s += " " + p.FastOpen.String()
	}
	if p.GSO > 0 {
		s += fmt.Sprintf(" gso=%d", p.GSO)
	}
	return s
}

// synOptions are the handshake options p carries.
func (p Packet) synOptions() tcp.SynOptions {
	return tcp.SynOptions{Window: p.Win, MSS: p.MSS, Wscale: p.Wscale, SackOK: p.SackOK, TS: p.TS}
}

// script is what a TCP socket on a scripted device keeps of the far side
// the scenario plays: a listener's half-open connection (the request sock
// and the child it becomes, one socket in the model) with the peer's SYN,
// and the children that completed their handshake, oldest first, for
// accept (the accept queue) and for the segments the scenario sends them
// (the established lookup, __inet_lookup_established, finds them before
// the listener).
type script struct {
	request  *Socket
	peerSyn  tcp.SynOptions
	children []*Socket
	queue    []*Socket
	accepted int
	// fastOpenQlen counts the listener's Fast Open children whose
	// handshake has not completed (fastopenq.qlen).
	fastOpenQlen int
	// fastOpen is, on such a child, its listener.
	fastOpen *Socket
	// synFastOpen is what a connecting socket's SYN carried of Fast
	// Open.
	synFastOpen fastOpenSyn
}

// scripted reports whether the scenario plays s's far side.
func (s *Socket) scripted() bool { return s.tcp != nil && s.Dev.Scripted }

// wireSeq converts between the model's sequence space, where 0 is the
// first byte of data, and the wire's relative one, where the SYN is 0.
func wireSeq(model uint32) uint32 { return model + 1 }

// Sent returns the packets a scripted device transmitted that no packet
// statement has taken yet, oldest first.
func (d *Device) Sent() []Packet { return append([]Packet(nil), d.sent...) }

// TakeSent removes and returns the oldest packet the device transmitted,
// or false if there is none.
func (d *Device) TakeSent() (Packet, bool) {
	if len(d.sent) == 0 {
		return Packet{}, false
	}
	p := d.sent[0]
	d.sent = d.sent[1:]
	return p, true
}

// emit records a packet s sends out of its scripted device.
func (w *World) emit(s *Socket, p Packet) {
	s.Dev.sent = append(s.Dev.sent, p)
	w.say(fmt.Sprintf("%s sends %v", s.Name, p))
}

// header fills in what every segment s sends after the handshake has:
// ACK, the acknowledgment of what s received, the window it offers now
// (tcp_transmit_skb calls tcp_select_window for every segment: measured
// on Linux 6.18, a fresh connection's 64240-byte window goes out as 63
// under wscale 10, rounded up) and its timestamps.
func (s *Socket) header(p Packet) Packet {
	c := s.tcp
	p.Flags |= ACK
	p.Ack = wireSeq(c.RcvNxt())
	p.Win = c.WindowField(c.Window())
	p.Wscale = tcp.NoWscale
	p.TS = c.Timestamps()
	return p
}

// emitFrame records a frame s transmits out of its scripted device.
func (w *World) emitFrame(s *Socket, f frame) {
	p := Packet{Seq: wireSeq(f.seq), Len: f.len, GSO: f.gso}
	if f.push && f.len > 0 {
		p.Flags |= PSH // a bare FIN is FIN|ACK (tcp_send_fin)
	}
	if f.fin {
		p.Flags |= FIN
	}
	w.emit(s, s.header(p))
}

// emitAck records the ACK s sends of ack with window win, which
// tcp_send_ack chose.
func (w *World) emitAck(s *Socket, ack uint32, win int) {
	c := s.tcp
	w.emit(s, Packet{Flags: ACK, Seq: wireSeq(c.SndNxt()), Ack: wireSeq(ack), Win: c.WindowField(win), Wscale: tcp.NoWscale, TS: c.Timestamps()})
}

// emitReset records the RST s answers with (tcp_send_active_reset,
// tcp_v4_send_reset): RST|ACK at snd_nxt, window 0.
func (w *World) emitReset(s *Socket) {
	c := s.tcp
	w.emit(s, Packet{Flags: RST | ACK, Seq: wireSeq(c.SndNxt()), Ack: wireSeq(c.RcvNxt()), Wscale: tcp.NoWscale})
}

// emitNoSocketReset records the RST the host answers p with when no
// socket takes it (tcp_v4_send_reset, tcp_v6_send_reset): at p's
// acknowledgment number if p carries one, else RST|ACK at 0
// acknowledging all of p.
func (w *World) emitNoSocketReset(s *Socket, p Packet) {
	if p.Flags&ACK != 0 {
		w.emit(s, Packet{Flags: RST, Seq: p.Ack, Wscale: tcp.NoWscale})
		return
	}
	end := p.Seq + uint32(p.Len)
	if p.Flags&FIN != 0 {
		end++
	}
	w.emit(s, Packet{Flags: RST | ACK, Ack: end, Wscale: tcp.NoWscale})
}

// resetPeer sends s's RST to its far side: the implicit peer, or the
// scenario's.
func (w *World) resetPeer(s *Socket) {
	switch {
	case s.scripted():
		w.emitReset(s)
	case s.Peer != nil:
		w.remoteReset(s.Peer)
	}
}

// connectScripted models connect(2) of a TCP socket whose far side the
// scenario plays: tcp_connect sends the SYN and the socket waits in
// SYN_SENT for the SYN-ACK an inject statement brings. Non-blocking, it
// returns EINPROGRESS (__inet_stream_connect); a blocking connect would
// sleep until then, which a scenario cannot express, so it never returns.
func (w *World) connectScripted(s *Socket) Result {
	offer, err := s.tcp.StartConnect()
	if err != 0 {
		return fail(err)
	}
	w.emit(s, synPacket(offer))
	if s.Sk.Type&kernel.SOCK_NONBLOCK != 0 {
		return fail(kernel.EINPROGRESS)
	}
	return Result{Blocked: true}
}

// Inject is the scenario's far side of s's connection sending p to s,
// arriving now, as one step (tcp_v4_rcv's lookup, then
// tcp_rcv_state_process). On a listener a SYN opens a half-open
// connection (tcp_conn_request), which answers with its SYN-ACK; any
// other segment goes to that connection, completing the handshake with
// an ACK (tcp_check_req: the child joins the accept queue, inheriting the
// listener's flags as sk_clone_lock copies them), or to the last child
// that completed one. On a SYN_SENT socket a SYN-ACK completes the
// handshake (tcp_rcv_synsent_state_process), answered by an ACK. On a
// connection, a RST resets it (tcp_reset); an ACK is tcp_ack with the
// window scaled; data and FIN are received as from any peer, and the
// connection's ACKs go back on the device. It reports false, changing
// nothing, for a segment the model has no answer to (the reason is in
// the step's text).
func (w *World) Inject(c Call, s *Socket, p Packet) bool {
	accepted := true
	w.begin()
	text := fmt.Sprintf("%s receives %v", s.Name, p)
	if why := w.inject(s, p); why != "" {
		text += ": " + why
		accepted = false
	}
	w.end(Event{Source: c.Source, Op: "inject", Socket: s.Name, Text: text})
	return accepted
}

// inject delivers p to s; it returns why not, or "".
func (w *World) inject(s *Socket, p Packet) string {
	switch {
	case !s.scripted():
		return "not a TCP socket on a scripted device"
	case s.Sk.State == sock.LISTEN:
		return w.injectListener(s, p)
	case s.Sk.State == sock.SYN_SENT:
		if p.Flags&(SYN|ACK) != SYN|ACK {
			return "a SYN_SENT socket takes only a SYN-ACK here"
		}
		ok, retransmitted := s.tcp.SynAckReceived(p.synOptions(), p.Ack-1)
		if !ok {
			return fmt.Sprintf("the SYN-ACK does not acknowledge the SYN (ack %d, want 1) or all the data it carried (ack %d); the kernel would reset, or, for part of the data, trim it (the model does not)", p.Ack, wireSeq(s.tcp.SndNxt()))
		}
		w.fastOpenSynAck(s, p)
		if !retransmitted {
			w.emitAck(s, s.tcp.RcvNxt(), s.tcp.Window())
		}
		return ""
	case s.tcp.Done() && s.tcp.TimeWait() && p.Flags&(SYN|RST) == 0:
		w.injectTimeWait(s, p)
		return ""
	case s.tcp.Done() && p.Flags&(SYN|RST) == 0:
		w.emitNoSocketReset(s, p)
		return ""
	case s.tcp.Done() || s.Sk.State == sock.CLOSE:
		return "the connection is closed"
	}
	return w.injectEstablished(s, p)
}

// injectTimeWait is inject on a connection a time-wait socket took over:
// it answers with an ACK where tcp_timewait_state_process does
// (Conn.TimeWaitAcks).
func (w *World) injectTimeWait(s *Socket, p Packet) {
	seq := p.Seq - 1
	end := seq + uint32(p.Len)
	if p.Flags&FIN != 0 {
		end++
	}
	if s.tcp.TimeWaitAcks(seq, end) {
		w.emitAck(s, s.tcp.RcvNxt(), s.tcp.TimeWaitWindow())
		return
	}
	w.say(fmt.Sprintf("%s: the time-wait socket takes the ACK", s.Name))
}

// injectListener is inject on a listener. A SYN that finds the accept
// queue full is dropped (tcp_conn_request: sk_acceptq_is_full,
// LINUX_MIB_LISTENOVERFLOWS), answered by nothing; measured on Linux
// 6.18 with packetdrill, the far side's retransmission of it is answered
// once accept or a larger backlog made room.
func (w *World) injectListener(s *Socket, p Packet) string {
	ls := s.listener()
	if p.Flags&SYN != 0 {
		if p.Flags&ACK != 0 {
			return "a listener takes a SYN, not a SYN-ACK"
		}
		if s.acceptqFull() {
			w.say(fmt.Sprintf("%s drops the SYN: its accept queue is full, %d children for a backlog of %d (tcp_conn_request, sk_acceptq_is_full)", s.Name, len(ls.queue), s.Sk.MaxAckBacklog))
			return ""
		}
		if ls.request != nil {
			return "a half-open connection is pending already (the model keeps one)"
		}
		fo := w.tryFastOpen(s, p)
		if fo.why != "" {
			return fo.why
		}
		ls.accepted++
		req := w.newSocket(fmt.Sprintf("%s/%d", s.Name, ls.accepted), s.Task, s.Sk.Family, s.Sk.Type&^kernel.SOCK_NONBLOCK, s.Sk.Protocol, s.Dev)
		req.Sk.V4Mapped = s.Sk.V4Mapped // the SYN's family: its MSS
		o := req.tcp.SynAckOffer(p.synOptions())
		synAck := Packet{Flags: SYN | ACK, Ack: 1, Win: o.Window, MSS: o.MSS, Wscale: o.Wscale, SackOK: o.SackOK, TS: o.TS, FastOpen: fo.grant}
		if fo.child {
			req.Sk.InheritFlags(s.Sk)
			req.tcp.InheritCongestion(s.tcp)
			req.tcp.AcceptedAtSyn(p.synOptions())
			req.script = &script{fastOpen: s}
			ls.fastOpenQlen++
			ls.children = append(ls.children, req)
			ls.queue = append(ls.queue, req)
			synAck.Ack = wireSeq(uint32(p.Len))
			w.emit(req, synAck)
			w.fastOpenData(req, p)
			return ""
		}
		ls.request, ls.peerSyn = req, p.synOptions()
		w.emit(req, synAck)
		return ""
	}
	if req := ls.request; req != nil {
		if p.Flags&ACK == 0 || p.Ack != 1 {
			return "the half-open connection takes the ACK of its SYN-ACK (ack=1)"
		}
		if s.acceptqFull() {
			w.listenOverflow(s, p)
			return ""
		}
		ls.request = nil
		req.Sk.InheritFlags(s.Sk)
		req.tcp.InheritCongestion(s.tcp)
		req.tcp.Accepted(ls.peerSyn, p.Win)
		ls.children = append(ls.children, req)
		ls.queue = append(ls.queue, req)
		if p.Len > 0 || p.Flags&FIN != 0 {
			return w.injectEstablished(req, p)
		}
		return ""
	}
	if n := len(ls.children); n > 0 {
		return w.inject(ls.children[n-1], p)
	}
	return "no connection to deliver it to"
}

// acceptqFull models sk_acceptq_is_full on the listener s: its accept
// queue (sk_ack_backlog, the children waiting for accept, Fast Open ones
// included) holds more than the backlog of its listen, so a backlog of N
// lets N+1 handshakes complete (measured on Linux 6.18).
func (s *Socket) acceptqFull() bool { return len(s.listener().queue) > s.Sk.MaxAckBacklog }

// listenOverflow models tcp_check_req's listen_overflow: the ACK p that
// would complete the half-open connection of the listener s found the
// accept queue full (syn_recv_sock, tcp_v4_syn_recv_sock's
// exit_overflow). Under net.ipv4.tcp_abort_on_overflow 0 the ACK is
// dropped and the request stays, marked acked, for a later ACK to
// complete once there is room; otherwise the request answers with a RST
// (tcp_v4_send_reset: RST alone, at the ACK's acknowledgment number) and
// is dropped (inet_csk_reqsk_queue_drop). Measured on Linux 6.18 with
// packetdrill, the queue filled by a local client and a second listen
// shrinking the backlog: with 1, "R 1:1(0)"; with 0, nothing, and the
// SYN-ACK again a second later (reqsk_timer_handler, which the model
// does not run).
func (w *World) listenOverflow(s *Socket, p Packet) {
	ls := s.listener()
	req := ls.request
	if w.Net.TCPAbortOnOverflow == 0 {
		w.say(fmt.Sprintf("%s drops the ACK: its accept queue is full, %d children for a backlog of %d (tcp_check_req, listen_overflow); %s waits for another", s.Name, len(ls.queue), s.Sk.MaxAckBacklog, req.Name))
		return
	}
	ls.request = nil
	w.emit(req, Packet{Flags: RST, Seq: p.Ack, Wscale: tcp.NoWscale})
	w.say(fmt.Sprintf("%s resets %s: its accept queue is full and net.ipv4.tcp_abort_on_overflow is set (tcp_check_req, embryonic_reset)", s.Name, req.Name))
	w.closeSocket(req)
}

// listener returns s's script state, made on first use.
func (s *Socket) listener() *script {
	if s.script == nil {
		s.script = &script{}
	}
	return s.script
}

// injectEstablished is inject on a synchronized connection: RST, then the
// ACK (tcp_ack), then the data (tcp_data_queue). The ACK that completes a
// Fast Open child's handshake leaves its listener's Fast Open queue
// (reqsk_fastopen_remove).
func (w *World) injectEstablished(s *Socket, p Packet) string {
	c := s.tcp
	if p.Flags&SYN != 0 {
		return "a SYN on a synchronized connection (the model has no answer to it)"
	}
	if ls := s.script; ls != nil && ls.fastOpen != nil && p.Flags&ACK != 0 {
		ls.fastOpen.script.fastOpenQlen--
		ls.fastOpen = nil
	}
	if p.Flags&RST != 0 {
		c.Reset()
		return ""
	}
	acks, data := p.Flags&ACK != 0, p.Len > 0 || p.Flags&FIN != 0
	switch {
	case acks && data:
		c.AckData(p.Ack-1, c.PeerWindow(p.Win)) // deliver's DataSndCheck sends what it lets go
	case acks:
		c.Ack(p.Ack-1, c.PeerWindow(p.Win))
	}
	if data {
		var e Event // deliver's event is not used here
		w.deliver(s, frame{len: p.Len, seq: p.Seq - 1, endSeq: p.Seq - 1 + uint32(p.Len), fin: p.Flags&FIN != 0, push: p.Flags&PSH != 0, acked: acks}, &e)
	}
	return ""
}

// acceptScripted is accept(2) on a scripted listener: the oldest child of
// the accept queue, renamed name; with none, EAGAIN on a non-blocking
// listener, and a blocking one never returns (nothing the scenario has
// not written will connect).
func (w *World) acceptScripted(s *Socket, name string) (*Socket, Result) {
	ls := s.listener()
	if len(ls.queue) == 0 {
		if s.Sk.Type&kernel.SOCK_NONBLOCK != 0 {
			return nil, fail(kernel.EAGAIN)
		}
		return nil, Result{Blocked: true}
	}
	child := ls.queue[0]
	ls.queue = ls.queue[1:]
	delete(w.byName, child.Name)
	w.say(fmt.Sprintf("%s is accepted as %s", child.Name, name))
	child.Name = name
	w.byName[name] = child
	return child, ok(w.allocFD(child))
}
