package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// Socket is a named socket of the world with what the network needs of it:
// its device, its implicit peer, and the scenario's control of its path.
type Socket struct {
	Name string
	// FD is the program's descriptor for the socket, 0 for an implicit
	// peer or once closed.
	FD   int
	Sk   *sock.Sock
	Task *Task
	Dev  *Device
	// Peer is the implicit far end (for a peer: the socket it serves).
	Peer *Socket
	// SendHead is what the program writes at the start of every buffer it
	// sends on the socket, as far as the scenario states it (nil: not at
	// all): an IP header's first byte, version 4 and ihl (socket ...
	// ihl=N), which raw_send_hdrinc reads with IP_HDRINCL.
	SendHead []byte
	// closed is set by close(2): every later call on it is EBADF.
	closed bool
	// waiters are the epoll items watching the socket, on its wait queue.
	waiters []*epitem
	// implicit marks the implicit peer NewSocket made (Far).
	implicit bool
	// client marks a listener's peer, its next client, from the first
	// listen on: a socket the far side's program opened itself, so the
	// listener's close or SHUT_RD leaves it (unconnected, or reset if its
	// connection was still queued: listenStop).
	client bool
	// to is the listener a client of this host connects to
	// (PeerOptions.To); its peer is then the child the handshake made.
	to *Socket

	tcp  *tcp.Conn
	dgrm *dgram
	// mptcp is an IPPROTO_MPTCP socket's own options (sim/mptcp.go).
	mptcp *mptcpOpts
	// script is a listener's part of the far side a scenario plays.
	script *script
	// zc is the SCM_ZC_NOTIFICATION of the send call in progress.
	zc *zcCall
	// notified is the ids whose completion the program received.
	notified notify.Union
	// zcrx is what the last getsockopt(TCP_ZEROCOPY_RECEIVE) wrote back.
	zcrx tcp.ZcResult
	// fired are the wheel timers of the socket the model fired whose
	// kernel counterparts may still be to come (wheel.go).
	fired []firedTimer

	// Peer-side behaviour.
	autoRead bool

	// owned is set while a call of the socket's user holds it
	// (lock_sock); sockBacklog holds the segments that arrived meanwhile
	// (sk_add_backlog), for releaseSock.
	owned       bool
	sockBacklog []arrival
	// timers are the events of the socket's protocol timers (After).
	timers []*timer
	// skLock is the socket's lock class (lockClass).
	skLock kernel.LockClass

	// gro is the batch of frames the socket is putting on a NIC's link
	// now (groQueue).
	gro *groBatch

	// Path control, for data this socket sends and ACKs it receives.
	holdData, holdAck bool
	heldData          []frame
	heldAcks          []arrival
	dropData, dropAck int
}

// String names the socket.
func (s *Socket) String() string { return s.Name }

// IsTCP reports whether the socket is a TCP socket.
func (s *Socket) IsTCP() bool { return s.tcp != nil }

// Unmade reports whether s is the implicit peer of a TCP socket that has
// begun no connection (tcp.Conn.Connected) and never listened: on the
// kernel that peer is the child the handshake makes (tcp_v4_syn_recv_sock,
// handed out by inet_accept), so until then no descriptor names it. A
// listener's peer is its client, a socket of its own (client).
func (s *Socket) Unmade() bool {
	o := s.Peer
	return s.implicit && !s.client && s.tcp != nil && o != nil && o.tcp != nil && !o.tcp.Connected()
}

// Conn returns the TCP connection of a TCP socket, or nil.
func (s *Socket) Conn() *tcp.Conn { return s.tcp }

// Notified returns the ids whose completion the program received on s,
// through recvmsg(MSG_ERRQUEUE) or an SCM_ZC_NOTIFICATION: what the
// expect statement's notified=[LO,HI] checks.
func (s *Socket) Notified() *notify.Union { return &s.notified }

// gsoSize is the segment size of a GSO skb s sends: the MSS for a TCP skb
// larger than one, gso_size for a UDP_SEGMENT datagram larger than one
// segment; 0 for an skb that goes out as it is.
func (s *Socket) gsoSize(b *skb.Buff) int {
	size := b.Shinfo().GSOSize
	if s.tcp != nil {
		size = s.tcp.MSS()
	}
	if size > 0 && b.Len > size {
		return size
	}
	return 0
}

// bySock finds the world's socket for a struct sock.
//
// Preconditions: sk is a socket of this world.
func (w *World) bySock(sk *sock.Sock) *Socket {
	if s := w.bySockOrNil(sk); s != nil {
		return s
	}
	panic(fmt.Sprintf("sim: packet from unknown %v", sk))
}

// queueSkbs lists the skbs a socket's protocol keeps, for the leak check.
func (w *World) queueSkbs(sk *sock.Sock) []*skb.Buff {
	s := w.bySockOrNil(sk)
	var out []*skb.Buff
	switch {
	case s == nil:
	case s.tcp != nil:
		for _, seg := range append(s.tcp.WriteQueue(), s.tcp.RtxQueue()...) {
			out = append(out, seg.Skb)
		}
		out = append(out, s.tcp.ReceiveQueue()...)
	case s.dgrm != nil:
		out = append(out, s.dgrm.queued()...)
		if s.dgrm.udp != nil {
			out = append(out, s.dgrm.udp.Corked()...)
		}
	}
	return out
}

// pathSkbs lists the skbs the network keeps below the sockets, for the
// leak check: frames held on a path, transmissions a device with manual TX
// completion has not completed, and copies packet taps have not read.
func (w *World) pathSkbs() []*skb.Buff {
	var out []*skb.Buff
	for _, s := range w.sockets {
		for _, f := range s.heldData {
			if f.skb != nil { // a frame bound off the host carries no skb
				out = append(out, f.skb)
			}
		}
	}
	for _, d := range w.devices {
		out = append(out, d.held...)
	}
	return append(out, w.tapped...)
}

// ownedPages lists the pages a socket's protocol holds outside skbs.
func (w *World) ownedPages(sk *sock.Sock) []*mm.Page {
	var p *mm.Page
	switch s := w.bySockOrNil(sk); {
	case s == nil:
	case s.tcp != nil:
		p = s.tcp.PageFrag()
		if m := s.tcp.RxMap(); m != nil {
			out := m.Pages()
			if p != nil {
				out = append(out, p)
			}
			return out
		}
	case s.dgrm != nil && s.dgrm.udp != nil:
		p = s.dgrm.udp.PageFrag()
	}
	if p == nil {
		return nil
	}
	return []*mm.Page{p}
}

// bySockOrNil finds the world's socket for a struct sock, or nil.
func (w *World) bySockOrNil(sk *sock.Sock) *Socket { return w.bySk[sk] }

// deliver hands a frame to the receiving socket r: TCP in-order receive
// with the ACK policy, or a datagram queued for reading. What it did goes
// to *e, zero on entry (arrive).
func (w *World) deliver(r *Socket, f frame, e *Event) {
	e.Socket = r.Name
	f.skb = w.received(r, f)
	if !r.Far() {
		w.work.RxFrames++
		if r.autoRead {
			w.work.RxReadBytes += int64(f.len)
		}
	}
	if r.tcp != nil && r.tcp.TimeWait() && f.fin && f.len == 0 {
		// The orphan went from FIN_WAIT2 to a time-wait socket
		// (tcp_time_wait), which acknowledges the peer's FIN
		// (tcp_timewait_state_process: TCP_TW_ACK).
		f.skb.Free()
		w.ackFrom(r, f.endSeq+1, r.tcp.TimeWaitWindow())
		e.Text = fmt.Sprintf("%s: FIN acknowledged by the time-wait socket", r.Name)
		return
	}
	if from := r.Peer; from != nil && from.Sk.Class == kernel.ClassRAW && r.Dev.Kind == Loopback {
		// A RAW socket's datagram over loopback reaches no socket by
		// address: ip_local_deliver reassembles it (ip_defrag) and
		// raw_local_deliver offers it to every RAW socket of its
		// protocol, whichever end sent it and whether or not the other
		// is open.
		b, n, ok := r.dgrm.defrag(w, r, f)
		if !ok {
			e.Text = fmt.Sprintf("%s: an IP fragment of %d bytes waits for reassembly", from.Name, f.skb.Len)
			return
		}
		e.Socket, e.Text = from.Name, w.rawLocalDeliver(from, b, n)
		return
	}
	if r.Sk.Freed() || (r.Sk.Dead() && (r.tcp == nil || f.len > 0)) {
		// Data for a closed socket: tcp_rcv_state_process resets an
		// orphaned connection that still gets data, and with no socket
		// at all tcp_v4_rcv answers with tcp_v4_send_reset; a closed
		// datagram socket was unhashed (sk_common_release), so
		// __udp4_lib_rcv finds none, drops the datagram and answers a
		// UDP one with an ICMP port unreachable.
		n := f.skb.Len
		f.skb.Free()
		e.Text = fmt.Sprintf("%s: closed, frame dropped", r.Name)
		if r.Sk.Class == kernel.ClassUDP && !f.moreFrags && f.fragOff == 0 && r.Peer != nil {
			w.portUnreachable(r, n)
			e.Text += "; it answers with an ICMP port unreachable"
		}
		if r.tcp != nil && f.len > 0 {
			r.tcp.Reset()
			w.resetPeer(r)
			e.Text += "; it answers with RST"
		}
		return
	}
	if r.dgrm != nil {
		e.said = r.dgrm.receive(w, r, f)
		return
	}
	if r.tcp == nil {
		f.skb.Free()
		e.Text = fmt.Sprintf("%s: no receiver, frame dropped", r.Name)
		return
	}
	if f.acks && !r.tcp.Done() {
		r.tcp.AckData(f.ack, f.win) // tcp_rcv_established: tcp_ack before tcp_data_queue
	}
	if r.tcp.AbortOnData(f.seq, f.endSeq, f.fin) {
		f.skb.Free()
		w.resetPeer(r)
		e.Text = fmt.Sprintf("%s: data after shutdown for reading: connection reset; it answers with RST", r.Name)
		return
	}
	n := f.skb.Len
	local := r.Dev.Kind == Loopback
	// net_timestamp_check, as the packet entered the stack (netif_rx,
	// __netif_receive_skb): stamped while the host's receive timestamps
	// are on.
	f.skb.RxTstamp = r.Sk.Host().Netstamp.Stamp(r.Sk.Host().Time())
	// tcp_data_snd_check follows tcp_data_queue on the slow path, and on
	// the fast path where tcp_ack moved snd_una. Header prediction is not
	// modelled: every segment that carries an ACK runs it, so a data
	// segment that acknowledged nothing new, which the kernel's fast path
	// would leave without it, may send what a MSG_MORE call held back.
	sndCheck := f.acks || f.acked || r.tcp.UrgSlowPath(f.urg)
	r.tcp.Urgent(f.seq, f.endSeq, f.urg) // tcp_urg before tcp_data_queue
	accepted := r.tcp.Receive(f.skb, f.seq, f.endSeq, f.fin, f.gso, f.push)
	e.said = line{kind: lineSegment, name: r.Name, lo: f.seq, hi: f.endSeq, fin: f.fin, dup: !accepted}
	if !accepted {
		if sndCheck {
			r.tcp.DataSndCheck()
		}
		r.tcp.Rejected(f.seq, f.endSeq)
		return
	}
	if tail := r.tcp.ReceiveTail(); local && n > 0 && tail != nil {
		w.rxQueued(r, tail) // f.skb, or the tail it was coalesced into
	}
	switch {
	case f.fin:
		r.Sk.WakeUp(0) // tcp_fin: sk_state_change
	case n > 0 && r.tcp.DataReady():
		r.Sk.WakeUp(kernel.POLLIN | kernel.POLLPRI | kernel.POLLRDNORM | kernel.POLLRDBAND) // tcp_data_ready
	}
	if r.autoRead {
		r.tcp.Recv(1 << 30)
	}
	if sndCheck {
		r.tcp.DataSndCheck() // before tcp_ack_snd_check: what it sends carries the ACK
	}
	r.tcp.Received(n, f.fin)
}

// rxQueued tells the monitor that b reached a receive queue of r on this
// host: checked against rule 7, unless r's device has the loopback switch
// (Device.OrphanRxPlain), which lets user pages through.
func (w *World) rxQueued(r *Socket, b *skb.Buff) {
	if r.Dev.OrphanRxPlain {
		w.Monitor.RxLooped(r.Sk, b)
		return
	}
	w.Monitor.RxQueued(r.Sk, b)
}

// SendAck implements tcp.Network: from's ACK reaches its peer after the
// link delay, unless the scenario holds or drops it.
func (w *World) SendAck(from *sock.Sock, ack uint32, win int) {
	w.ackFrom(w.bySock(from), ack, win)
}

// ackFrom sends s's ACK of ack with window win to its far side.
func (w *World) ackFrom(s *Socket, ack uint32, win int) {
	if s.scripted() {
		w.emitAck(s, ack, win)
		return
	}
	w.ackTo(s.Peer, ack, win)
}

// After implements tcp.Network: a protocol timer of sk's, run as a step
// of its own whose text fire returns.
func (w *World) After(sk *sock.Sock, d engine.Duration, op string, fire func() string) engine.Handle {
	s := w.bySock(sk)
	t := s.timer(w, op)
	t.fire = fire
	t.slack, t.inherited = w.armSlack(op, d)
	t.h = w.schedule(d, t.label, t.run)
	return t.h
}

// timer is the event of one of a socket's protocol timers, called op:
// made once and armed again each time the protocol arms that timer while
// no earlier one is pending, so that arming a timer allocates nothing.
type timer struct {
	s         *Socket
	op, label string
	// fire is what the protocol runs when it fires; h the event armed.
	fire func() string
	h    engine.Handle
	// slack is how much later the kernel may fire it (armSlack),
	// inherited the part of it an open window gave.
	slack, inherited engine.Duration
	// run and event are bound once: run is the engine's event, event the
	// step it makes.
	run   func()
	event func(*Event)
}

// timer returns an event for s's timer op that is not pending, making one
// if every one made so far is.
func (s *Socket) timer(w *World, op string) *timer {
	for _, t := range s.timers {
		if t.op == op && !w.Loop.Pending(t.h) {
			return t
		}
	}
	t := &timer{s: s, op: op, label: op + " " + s.Name}
	t.event = func(e *Event) {
		e.Socket, e.said = s.Name, line{kind: lineTimer, name: s.Name, text: t.fire()}
	}
	t.run = func() {
		w.timerFired(s, t)
		outer := w.firing
		if t.slack > 0 {
			w.firing = t
		}
		w.runEvent(t.op, t.event)
		w.firing = outer
	}
	s.timers = append(s.timers, t)
	return t
}

// Cancel implements tcp.Network: it stops a pending event.
func (w *World) Cancel(h engine.Handle) bool { return w.Loop.Cancel(h) }

// Pending implements tcp.Network: whether an event is still to run.
func (w *World) Pending(h engine.Handle) bool { return w.Loop.Pending(h) }

// ackTo sends s an ACK of ack with window win after the link delay,
// unless the scenario holds or drops the ACKs s receives.
func (w *World) ackTo(s *Socket, ack uint32, win int) {
	if s.Peer != nil && !s.Peer.Far() {
		w.work.Acks++
	}
	a := arrival{kind: arriveAck, to: s, ack: ack, win: win}
	switch {
	case s.dropAck > 0:
		s.dropAck--
	case s.holdAck:
		s.heldAcks = append(s.heldAcks, a)
	default:
		w.onPath(s, "ack", "ACK", a)
	}
}

// ackArrives models tcp_ack for an ACK of ack with window win reaching s.
func (w *World) ackArrives(s *Socket, ack uint32, win int, e *Event) {
	if s.tcp.Done() {
		if !s.tcp.TimeWait() && s.Peer != nil {
			// No socket takes it (tcp_v4_rcv finds none): the host
			// answers with a reset (tcp_v4_send_reset).
			w.resetPeer(s)
			e.Socket, e.Text = s.Name, fmt.Sprintf("%s: ACK %d after the connection is gone; the host answers with RST", s.Name, ack)
			return
		}
		e.Socket, e.Text = s.Name, fmt.Sprintf("%s: ACK %d after the connection is gone", s.Name, ack)
		return
	}
	s.tcp.Ack(ack, win)
	if !s.Far() {
		w.work.Acks++
	}
	e.Socket, e.said = s.Name, line{kind: lineAck, name: s.Name, lo: ack, num: win}
}

// HoldData makes s's frames wait on the link until ReleaseData.
func (s *Socket) HoldData() { s.holdData = true }

// HoldAcks makes the ACKs s receives wait until ReleaseAcks.
func (s *Socket) HoldAcks() { s.holdAck = true }

// DropData makes the link lose the next n frames s sends.
func (s *Socket) DropData(n int) { s.dropData += n }

// DropAcks makes the link lose the next n ACKs s would receive.
func (s *Socket) DropAcks(n int) { s.dropAck += n }

// ReleaseAcks delivers the ACKs held on s's path.
func (w *World) ReleaseAcks(s *Socket) {
	s.holdAck = false
	held := s.heldAcks
	s.heldAcks = nil
	for _, a := range held {
		w.onPath(s, "ack", "ACK", a)
	}
}

// remoteReset delivers a reset to r after the link delay (tcp_reset).
func (w *World) remoteReset(r *Socket) {
	w.onPath(r, "rst", "RST", arrival{kind: arriveRst, to: r})
}

// rstArrives models tcp_reset for a reset reaching r.
func (w *World) rstArrives(r *Socket, e *Event) {
	if r.tcp != nil {
		r.tcp.Reset()
	}
	e.Socket, e.Text = r.Name, r.Name+" receives RST"
}

// errnoName renders an errno for a trace.
func errnoName(e kernel.Errno) string {
	if e == 0 {
		return ""
	}
	return e.String()
}
