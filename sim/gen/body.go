package gen

import (
	"fmt"
	"slices"
	"strings"
)

// action is one kind of body statement.
type action int

const (
	aSend action = iota
	aSendto
	aSendmsg
	aSendmmsg
	aErrqueue
	aRecv
	aSetsockopt
	aGetsockopt
	aWait
	aSettle
	aHold
	aRelease
	aDrop
	aComplete
	aTxerror
	aFault
	aZckey
	aVhost
	aConnect
	aAccept
	aShutdown
	aClose
	aSocket
	aCreds
	aNarrate
	aRepeat
	aRing
	aZcRecv
	aPoll
	aEpoll
	aFcntl
	aListen
	numActions
)

var actionNames = [numActions]string{
	"send", "sendto", "sendmsg", "sendmmsg", "errqueue", "recv", "setsockopt", "getsockopt",
	"wait", "settle", "hold", "release", "drop", "complete", "txerror", "fault", "zckey",
	"vhost", "connect", "accept", "shutdown", "close", "socket", "creds", "narrate", "repeat", "ring",
	"zcrecv", "poll", "epoll", "fcntl", "listen",
}

// actionBase is each action's weight before the swarm draw, and the
// feature it needs (0: always available).
var actionBase = [numActions]struct {
	weight int
	needs  Features
}{
	aSend: {10, 0}, aSendto: {4, 0}, aSendmsg: {4, 0}, aSendmmsg: {2, 0},
	aErrqueue: {8, 0}, aRecv: {5, 0}, aSetsockopt: {2, 0}, aGetsockopt: {1, Sockopts},
	aWait: {3, 0}, aSettle: {3, 0}, aHold: {2, Hold}, aRelease: {2, Hold}, aDrop: {2, Drop},
	aComplete: {3, ManualTX}, aTxerror: {1, ManualTX}, aFault: {2, Faults}, aZckey: {1, Zckey},
	aVhost: {2, Vhost}, aConnect: {1, Connect}, aAccept: {1, Connect}, aShutdown: {1, Close},
	aClose: {1, Close}, aSocket: {1, 0}, aCreds: {2, Memlock}, aNarrate: {1, Narrate}, aRepeat: {2, Loops}, aRing: {4, TxRing},
	aZcRecv: {2, ZcRecv}, aPoll: {1, Poll}, aEpoll: {1, Epoll}, aFcntl: {1, Poll}, aListen: {2, Listen},
}

// drawWeights is swarm testing's second draw: each available action's base
// weight times 0 to 4, and sends never off.
func (g *gen) drawWeights() {
	for a := range numActions {
		b := actionBase[a]
		if !g.feat.Has(b.needs) {
			continue
		}
		g.weights[a] = b.weight * g.r.IntN(5)
		if g.cfg.Host && a == aAccept {
			g.weights[a] = 0 // a host run has no listener of its own to accept from
		}
	}
	if g.weights[aSend] == 0 {
		g.weights[aSend] = actionBase[aSend].weight
	}
}

func (g *gen) drawAction() action {
	total := 0
	for _, w := range g.weights {
		total += w
	}
	n := g.r.IntN(total)
	for a, w := range g.weights {
		if n < w {
			return action(a)
		}
		n -= w
	}
	return aSend
}

// body writes between a quarter of Config.Stmts and all of them (and the
// rest of a new socket's setup).
func (g *gen) body() {
	end := g.lines + g.cfg.Stmts/4 + g.r.IntN(g.cfg.Stmts-g.cfg.Stmts/4+1)
	for g.lines < end {
		g.act(g.drawAction())
	}
}

// drain ends some scenarios as a careful program does: settle, then read
// the error queues.
func (g *gen) drain() {
	if g.chance(2) {
		return
	}
	g.line("settle")
	for _, s := range g.socks {
		for range 1 + g.r.IntN(3) {
			g.line("recvmsg %s MSG_ERRQUEUE", s.name)
		}
	}
}

func (g *gen) act(a action) {
	switch a {
	case aSend, aSendto:
		s := g.sender()
		if a == aSendto && g.cfg.Host {
			s = g.anySock().name // the live run's peers have no address to send to
		}
		g.line("%s %s %s %s", actionNames[a], s, g.lenText(g.sendSize(s)), g.sendFlags(s))
	case aSendmsg:
		s := g.sender()
		line := fmt.Sprintf("sendmsg %s %s %s%s", s, g.iovec(g.mtuOf(s)), g.sendFlags(s), g.cmsgs())
		if g.zcCmsg && g.chance(2) { // completions through the control message
			line += " zc_info=" + pick(g, "0", "1", "2", "4", "64")
		}
		g.line("%s", line)
	case aSendmmsg:
		s := g.sender()
		msgs := make([]string, 1+g.r.IntN(pick(g, 2, 4, 8)))
		for i := range msgs {
			msgs[i] = g.iovec(g.mtuOf(s))
		}
		g.line("sendmmsg %s %s %s", s, strings.Join(msgs, " "), g.sendFlags(s))
	case aErrqueue:
		flags := "MSG_ERRQUEUE"
		if g.chance(3) {
			flags = pick(g, "MSG_ERRQUEUE|MSG_DONTWAIT", "MSG_DONTWAIT|MSG_ERRQUEUE", "MSG_ERRQUEUE|MSG_PEEK")
		}
		g.line("recvmsg %s %s", g.sockName(false), flags)
	case aRecv:
		g.recv()
	case aSetsockopt:
		s := g.anySock()
		g.setsockopt(g.maybePeer(s), s)
	case aGetsockopt:
		g.getsockopt()
	default:
		g.control(a)
	}
}

// recv reads data, mostly on a peer so the window opens and ACKs flow,
// sometimes the urgent byte (MSG_OOB, tcp_recv_urg, which never blocks).
func (g *gen) recv() {
	s := g.sockName(!g.chance(4))
	flags := ""
	if g.chance(2) {
		flags = " " + pick(g, "0", "MSG_DONTWAIT", "MSG_PEEK", "MSG_WAITALL", "MSG_TRUNC|MSG_DONTWAIT", "MSG_OOB", "MSG_OOB|MSG_PEEK")
	}
	if g.chance(5) {
		g.line("recvmsg %s %s", s, pick(g, "0", "MSG_DONTWAIT"))
		return
	}
	g.line("recv %s %s%s", s, g.size(pick(g, 0, 1, 100, 1500, 4096, 65536, 1<<20)), flags)
}

// control writes the statements that steer time, the network and the
// credentials.
func (g *gen) control(a action) {
	switch a {
	case aWait:
		g.line("wait %s", g.duration())
	case aSettle:
		g.line("settle")
	case aHold, aRelease, aDrop:
		dir := pick(g, "data", "ack")
		s := g.sockName(g.chance(6))
		switch {
		case a != aDrop:
			g.line("%s %s %s", actionNames[a], s, dir)
		case g.chance(2):
			g.line("drop %s %s", s, dir)
		default:
			g.line("drop %s %s %d", s, dir, 1+g.r.IntN(4))
		}
	case aComplete, aTxerror:
		d := g.someDevice()
		if g.chance(2) {
			g.line("%s %s", actionNames[a], d)
		} else {
			g.line("%s %s %d", actionNames[a], d, g.r.IntN(4))
		}
	case aFault:
		sites := []string{"sock_omalloc", "skb_copy_ubufs", "alloc_skb", "tun_get_user"}
		if g.zcCmsg {
			sites = append(sites, "put_cmsg")
		}
		g.line("fault %s %s", pick(g, sites...), g.rule())
	case aZckey:
		g.line("zckey %s %s", g.sockName(false), pick(g, "0xffffffff", "0xfffffffe", "0xfffffff0", "4294967295", "65535", "65536", "0"))
	case aVhost:
		g.vhost()
	default:
		g.lifecycle(a)
	}
}

// vhost writes a vhost_send of at most maxSegments segments, so that one
// statement stays one bounded burst of steps.
func (g *gen) vhost() {
	if g.chance(2) {
		g.line("vhost_send %s %s", g.someDevice(), g.size(min(g.payload(1500), maxSegments*1448)))
		return
	}
	gso := pick(g, 1, 536, 1448, 1460, 9000, 65535)
	g.line("vhost_send %s %s gso_size=%d", g.someDevice(), g.size(min(g.payload(1500), maxSegments*gso)), gso)
}

// maxSegments bounds the segments one generated vhost_send makes.
const maxSegments = 256

// lifecycle writes the connection and credential statements.
func (g *gen) lifecycle(a action) {
	switch a {
	case aConnect:
		call, peer := pick(g, "connect", "bind", "listen"), g.chance(6)
		if g.cfg.Host {
			call, peer = "connect", false // the live run's connect of S.peer connects S
		}
		g.line("%s %s", call, g.sockName(peer))
	case aAccept:
		g.accept(g.anySock())
	case aShutdown:
		g.line("shutdown %s %s", g.sockName(g.chance(6)), pick(g, "SHUT_RD", "SHUT_WR", "SHUT_RDWR"))
	case aClose:
		g.line("close %s", g.sockName(g.chance(8)))
	case aSocket:
		if len(g.socks) < 2*g.cfg.Sockets {
			g.newSocket()
		} else {
			g.line("settle")
		}
	case aCreds:
		g.creds()
	case aNarrate:
		g.narrate()
	case aRepeat:
		g.loop()
	case aRing:
		g.ring()
	case aListen:
		g.listen()
	default:
		g.readiness(a)
	}
}

// accept writes an accept of parent's next connection, a socket of the
// body from then on.
func (g *gen) accept(parent *sock) {
	g.accepted++
	name := fmt.Sprintf("a%d", g.accepted)
	g.line("accept %s %s", parent.name, name)
	g.socks = append(g.socks, &sock{name: name, kind: parent.kind, inet6: parent.inet6, mtu: parent.mtu, accepted: true,
		loopback: parent.loopback, pages: parent.pages})
}

// listen acts on a listener: a new client connects to it, a second
// listen changes its backlog, or (not on a host, whose live run does not
// accept) accept takes a connection from its queue; without a listener
// the next socket is one.
func (g *gen) listen() {
	ls := g.listeners()
	room := len(g.socks) < 2*g.cfg.Sockets
	next := &sock{name: fmt.Sprintf("s%d", len(g.socks)+1), kind: kTCP}
	switch r := g.r.IntN(8); {
	case len(ls) == 0 && room:
		next.listener = true
		g.socket(next)
	case len(ls) == 0:
		g.line("settle")
	case !g.cfg.Host && (r < 3 || !room):
		g.accept(pick(g, ls...))
	case room && r < 6:
		g.client(next, pick(g, ls...))
	default:
		g.line("listen %s%s", pick(g, ls...).name, g.backlog())
	}
}

// readiness writes the statements about data to receive: zerocopy
// receive, poll, epoll and fcntl.
func (g *gen) readiness(a action) {
	switch a {
	case aZcRecv:
		g.zcRecv()
	case aPoll:
		g.poll()
	case aEpoll:
		g.epoll()
	case aFcntl:
		g.line("fcntl %s %s", g.sockName(g.chance(4)), pick(g, "F_GETFL", "F_SETFL O_NONBLOCK", "F_SETFL O_NONBLOCK", "F_SETFL 0"))
	}
}

// receiver names the side of the TCP socket s that reads what the other
// sends: mostly its peer, which reads s's sends.
func (g *gen) receiver(s *sock) string {
	if g.chance(4) {
		return s.name
	}
	return g.peerOf(s)
}

// mmap writes an mmap of a TCP socket's receive area (tcp_mmap): mostly
// read-only, as zerocopy receive needs, sometimes with a protection or a
// length the kernel refuses.
func (g *gen) mmap(name string) {
	n := pick(g, 4096, 8192, 16384, 65536, 256<<10, 1<<20, 4097, 0)
	prot := pick(g, "PROT_READ", "PROT_READ", "PROT_READ", "PROT_READ", "PROT_READ|PROT_WRITE", "PROT_READ|PROT_EXEC")
	g.zcMaps[name] = g.zcMaps[name] || n > 0 && prot == "PROT_READ"
	g.line("mmap %s %s %s", name, g.size(n), prot)
}

// zcRecv maps a TCP receiver's area, reads into it with
// getsockopt(TCP_ZEROCOPY_RECEIVE), or unmaps it.
func (g *gen) zcRecv() {
	var tcps []*sock
	for _, s := range g.socks {
		if s.kind == kTCP {
			tcps = append(tcps, s)
		}
	}
	if len(tcps) == 0 {
		g.line("settle")
		return
	}
	name := g.receiver(pick(g, tcps...))
	switch {
	case g.zcMaps[name] && g.chance(8):
		delete(g.zcMaps, name)
		g.line("munmap %s", name)
	case !g.zcMaps[name] || g.chance(6) || g.mmapConsumes && !g.chance(3):
		g.awaitData(name) // the seed's tcp_mmap maps what is queued
		g.mmap(name)
	default:
		if g.on(Timestamps) && g.chance(6) {
			// the receiver asks for the receive timestamps the call
			// reports in msg_control (tcp_zc_finalize_rx_tstamp)
			g.line("setsockopt %s SOL_SOCKET %s", name, pick(g, "SO_TIMESTAMP 1", "SO_TIMESTAMPNS 1", "SO_TIMESTAMPNS_NEW 1",
				"SO_TIMESTAMPING SOF_TIMESTAMPING_RX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE"))
		}
		g.awaitData(name)
		g.line("getsockopt %s IPPROTO_TCP TCP_ZEROCOPY_RECEIVE%s", name, g.zcArgs())
	}
}

// awaitData sometimes polls the receiver name for POLLIN first, as a
// program does before it maps what arrived.
func (g *gen) awaitData(name string) {
	if g.chance(2) {
		g.line("poll %s POLLIN %s", name, pick(g, "1ms", "10ms", "100ms"))
	}
}

// zcArgs writes the in fields of a struct tcp_zerocopy_receive: a length
// to map, a copy buffer for the tail, an offset into the mapping, and
// sometimes a short optlen or a NULL pointer.
func (g *gen) zcArgs() string {
	var opts []string
	if g.chance(3) {
		opts = append(opts, "length="+g.size(pick(g, 0, 4096, 16384, 65536, 1<<20)))
	}
	if g.chance(2) {
		opts = append(opts, "copybuf="+g.size(pick(g, 0, 100, 4096, 8192, 65536)))
	}
	if g.chance(6) {
		opts = append(opts, "offset="+g.size(pick(g, 0, 100, 4096, 1<<20, 2<<20)))
	}
	if g.on(Timestamps) && g.chance(2) { // room for the receive timestamps, or too little
		opts = append(opts, "control="+fmt.Sprint(pick(g, 0, 16, 32, 48, 64, 96, 128)))
	}
	if g.chance(8) { // the fields the kernel checks, and flags, which it does not
		opts = append(opts, pick(g, "msg_flags=2", "msg_flags=1", "reserved=1", "flags=1", "flags=4"))
	}
	switch g.r.IntN(10) {
	case 0:
		opts = append(opts, "optlen="+fmt.Sprint(pick(g, 8, 12, 16, 40, 56, 64, 100)))
	case 1:
		opts = append(opts, "null")
	}
	return joinOpts(opts)
}

// cmsgs writes a sendmsg's control messages: with Timestamps sometimes
// SO_TIMESTAMPING for this call alone (__sock_cmsg_send), with Sockopts
// rarely one of another level or a short one.
func (g *gen) cmsgs() string {
	var cs []string
	if g.on(Timestamps) && g.chance(3) {
		cs = append(cs, "cmsg SOL_SOCKET SO_TIMESTAMPING "+g.tstampFlags())
	}
	if g.on(Sockopts) && g.chance(8) {
		cs = append(cs, pick(g, "cmsg SOL_UDP UDP_SEGMENT 1000", "cmsg 1234 5 0", "cmsg SOL_SOCKET SO_PRIORITY 3",
			"cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE len=2"))
	}
	if len(cs) == 0 {
		return ""
	}
	return " " + strings.Join(cs, " ")
}

// pollEvents are what poll asks for; epollEvents what epoll_ctl does,
// before its flags.
var (
	pollEvents  = []string{"POLLIN", "POLLOUT", "POLLERR", "POLLPRI", "POLLRDHUP", "POLLHUP", "POLLRDNORM", "POLLWRNORM", "POLLRDBAND", "POLLNVAL"}
	epollEvents = []string{"EPOLLIN", "EPOLLOUT", "EPOLLERR", "EPOLLPRI", "EPOLLRDHUP", "EPOLLHUP", "EPOLLRDNORM", "EPOLLWRNORM"}
)

// union writes one to three of names joined by "|", the first of them
// most often.
func (g *gen) union(names []string) string {
	set := []string{names[0]}
	if !g.chance(3) {
		set[0] = pick(g, names...)
	}
	for range g.r.IntN(3) {
		if n := pick(g, names...); !slices.Contains(set, n) {
			set = append(set, n)
		}
	}
	return strings.Join(set, "|")
}

// poll writes a poll(2) of a socket or its peer, with or without a
// timeout, or sets the SO_RCVLOWAT mark of one, at which tcp_poll says
// POLLIN and a blocking read returns.
func (g *gen) poll() {
	s := g.anySock()
	name := s.name
	if g.chance(2) {
		name = g.peerOf(s)
	}
	if g.chance(4) {
		g.line("setsockopt %s SOL_SOCKET SO_RCVLOWAT %s", name, g.size(pick(g, 0, 1, 100, 1000, 4096, 65536, 100000, 1<<20)))
		return
	}
	timeout := ""
	if g.chance(2) {
		timeout = " " + g.duration()
	}
	g.line("poll %s %s%s", name, g.union(pollEvents), timeout)
}

// epoll creates an epoll instance and adds a socket to it, or adds,
// changes or removes a socket, waits, or closes the instance.
func (g *gen) epoll() {
	if len(g.epolls) == 0 || len(g.epolls) < 2 && g.chance(12) {
		ep := fmt.Sprintf("ep%d", len(g.epolls)+1)
		g.epolls = append(g.epolls, ep)
		g.line("epoll_create %s", ep)
		g.epollCtl(ep, "EPOLL_CTL_ADD")
		return
	}
	ep := pick(g, g.epolls...)
	switch r := g.r.IntN(20); {
	case r < 10:
		g.epollWait(ep)
	case r < 15:
		g.epollCtl(ep, "EPOLL_CTL_ADD")
	case r < 18:
		g.epollCtl(ep, "EPOLL_CTL_MOD")
	case r < 19:
		g.epollCtl(ep, "EPOLL_CTL_DEL")
	default:
		g.line("close %s", ep)
	}
}

// epollCtl writes an epoll_ctl of op on a socket or its peer, with the
// events and flags it asks for (none for EPOLL_CTL_DEL).
func (g *gen) epollCtl(ep, op string) {
	name := g.sockName(g.chance(3))
	if op == "EPOLL_CTL_DEL" {
		g.line("epoll_ctl %s %s %s", ep, op, name)
		return
	}
	events := g.union(epollEvents)
	for _, f := range []struct {
		name string
		odds int
	}{{"EPOLLET", 3}, {"EPOLLONESHOT", 6}, {"EPOLLEXCLUSIVE", 10}, {"EPOLLWAKEUP", 20}} {
		if g.chance(f.odds) {
			events += "|" + f.name
		}
	}
	g.line("epoll_ctl %s %s %s %s", ep, op, name, events)
}

// epollWait writes an epoll_wait for at most a few events (rarely a
// count it refuses), at once, with a timeout, or, in the model, for
// ever.
func (g *gen) epollWait(ep string) {
	maxevents := pick(g, 1, 2, 8, 8, 64)
	if g.chance(20) {
		maxevents = pick(g, 0, -1)
	}
	timeout := ""
	switch {
	case !g.cfg.Host && g.chance(12): // the live run bounds a wait for ever by SO_SNDTIMEO
		timeout = " -1"
	case g.chance(2):
		timeout = " " + g.duration()
	}
	g.line("epoll_wait %s %d%s", ep, maxevents, timeout)
}

// ring writes a frame into a TX ring, reads a frame's status, or sends
// what the ring holds (tpacket_snd), on a socket with a mapped ring; and
// sets one up when none has.
func (g *gen) ring() {
	var rings []*sock
	for _, s := range g.socks {
		if s.frames > 0 {
			rings = append(rings, s)
		}
	}
	if len(rings) == 0 {
		for _, s := range g.socks {
			if g.ringable(s) {
				g.txRing(s)
				return
			}
		}
		g.line("settle")
		return
	}
	s := pick(g, rings...)
	switch i := g.r.IntN(s.frames); g.r.IntN(6) {
	case 0, 1:
		n := pick(g, 0, 13, 14, 64, 100, 1000, s.frameSize-32, s.frameSize)
		g.line("txframe %s %d %d", s.name, i, max(n, 0))
	case 2:
		g.line("txstatus %s %d", s.name, i)
	case 3:
		g.line("send %s 0 %s", s.name, pick(g, "MSG_DONTWAIT", "MSG_DONTWAIT", "0"))
	case 4: // the sender moves: packet_inc_pending and the destructor's dec part CPUs
		g.line("migrate main %d", g.r.IntN(4))
	default: // a per-CPU pending counter near its wrap
		g.line("txskew %s %s %d", s.name, pick(g, "0x40000000", "0x7fffffff", "0x80000000"), g.r.IntN(4))
	}
}

// loopActions are what a repeat's body holds: calls and time steps, never
// a definition (a socket, an accept), which a repeat may not hold.
var loopActions = []action{aSend, aSend, aSendto, aSendmsg, aSendmmsg, aErrqueue, aErrqueue, aRecv, aSettle, aWait}

// loop writes a repeat of one to three calls or time steps, sometimes
// with the variable i in a send's length; the byte budget is charged for
// every iteration. Repeats do not nest here.
func (g *gen) loop() {
	count := pick(g, 2, 3, 4, 8, 16, 31, 64)
	g.loopVar = g.chance(2)
	header := fmt.Sprint(count)
	if g.loopVar {
		header = "i " + header
	}
	g.line("repeat %s {", header)
	g.iterations, g.indent = count, "  "
	for range 1 + g.r.IntN(3) {
		g.act(pick(g, loopActions...))
	}
	g.iterations, g.indent, g.loopVar = 1, "", false
	g.line("}")
}

func (g *gen) creds() {
	t := pick(g, g.tasks...)
	switch r := g.r.IntN(3); {
	case g.cfg.Host && r == 0: // within the host's hard limit, which the model does not know
		g.line("setrlimit main RLIMIT_MEMLOCK %s", pick(g, "0", "4K", "64K", "1M", "4096", "8M"))
	case g.cfg.Host: // a host run cannot grant a capability
		g.line("capdrop main %s", pick(g, "CAP_IPC_LOCK", "CAP_NET_ADMIN"))
	case r == 0:
		g.line("setrlimit %s RLIMIT_MEMLOCK %s", t, pick(g, "unlimited", "0", "4K", "64K", "1M", "4096"))
	case r == 1:
		g.line("capset %s %s", t, pick(g, "CAP_IPC_LOCK", "CAP_NET_ADMIN"))
	default:
		g.line("capdrop %s %s", t, pick(g, "CAP_IPC_LOCK", "CAP_NET_ADMIN"))
	}
}

// narrate writes a note, a comment, or an expect whose values are guesses:
// its mismatches are not the oracle's business.
func (g *gen) narrate() {
	switch g.r.IntN(3) {
	case 0:
		g.line("note step with => and | in the text # a trailing comment")
	case 1:
		g.line("# a comment between statements")
	default:
		key := pick(g, "zckey", "zerocopy", "optmem", "wmem", "wmem_queued", "rmem", "errqueue",
			"locked_vm", "sndbuf", "rcvbuf", "refcnt", "unsent", "unacked", "queued")
		extra := ""
		if g.chance(3) {
			extra = " state=" + pick(g, "TCP_ESTABLISHED", "TCP_CLOSE", "TCP_LISTEN")
		}
		g.line("expect %s %s=%d%s", g.sockName(g.chance(4)), key, g.r.IntN(3), extra)
	}
}

// rule writes a fault rule.
func (g *gen) rule() string {
	switch g.r.IntN(6) {
	case 0:
		return pick(g, "always", "never")
	case 1:
		return fmt.Sprintf("nth=%d", 1+g.r.IntN(5))
	case 2:
		return fmt.Sprintf("from=%d", 1+g.r.IntN(5))
	case 3:
		return fmt.Sprintf("next=%d", 1+g.r.IntN(3))
	default:
		return "p=" + pick(g, "0", "0.1", "0.25", "0.5", "1")
	}
}
