package gen

import (
	"fmt"
	"strings"

	ksock "github.com/zcsim/zcsim/sock"
)

// setup writes what the body acts on: sysctls, users and tasks, devices and
// taps, then the sockets with their options and connections.
func (g *gen) setup() {
	if g.on(Sysctl) {
		g.sysctls()
	}
	if g.on(Memlock) {
		g.users()
	}
	g.devices = []device{{name: "lo", kind: "loopback", mtu: 65536}}
	if g.on(BigTCP) {
		g.bigTCP()
	}
	g.makeDevices()
	n := 1 + g.r.IntN(g.cfg.Sockets)
	for range n {
		g.newSocket()
	}
}

func (g *gen) sysctls() {
	g.tcpOptions()
	if g.cfg.Host { // a private namespace has its own optmem_max and TCP switches, and only these
		g.line("sysctl net.core.optmem_max %s", g.size(pick(g, 1, 1024, 2240, 4096, 10240, 20480, 81920)))
		if g.on(TCP) {
			for range g.r.IntN(3) {
				g.tcpSysctl()
			}
		}
		return
	}
	for range 1 + g.r.IntN(3) {
		switch r := g.r.IntN(6); {
		case r == 0:
			g.line("sysctl net.core.optmem_max %s", g.size(pick(g, 0, 1, 256, 1024, 2048, 4096, 10240, 20480, 81920)))
		case r == 1:
			key := pick(g, "wmem_default", "rmem_default", "wmem_max", "rmem_max")
			// sysctl_net_core.c refuses buffers below SOCK_MIN_SNDBUF
			// and SOCK_MIN_RCVBUF.
			least := ksock.MinSndbuf
			if strings.HasPrefix(key, "r") {
				least = ksock.MinRcvbuf
			}
			g.line("sysctl net.core.%s %s", key, g.size(max(least, pick(g, 1, 2048, 4608, 16384, 212992, 1<<20, 1<<31-1))))
		case r == 2 && g.on(TCP):
			g.tcpSysctl()
		default:
			// The kernel takes any value from 1, but a default buffer of a
			// few bytes offers one-byte windows, and a send then takes more
			// steps than a run affords.
			lo := pick(g, 1, 4096, 8192)
			def := max(lo+pick(g, 0, 4096, 16384, 87380), 4096)
			g.line("sysctl net.ipv4.%s %s %s %s", pick(g, "tcp_wmem", "tcp_rmem"), g.size(lo), g.size(def),
				g.size(def+pick(g, 0, 16384, 4<<20)))
		}
	}
}

// tcpOptions sometimes switches off the TCP options a namespace's SYNs
// offer: net.ipv4.tcp_timestamps (every segment then carries 12 bytes
// more of payload, and a page-sized MSS needs an MTU 12 bytes less) and
// tcp_sack, per network namespace, so on a host too.
func (g *gen) tcpOptions() {
	if g.chance(4) {
		g.noTimestamps = true
		g.line("sysctl net.ipv4.tcp_timestamps 0")
	}
	if g.chance(8) {
		g.line("sysctl net.ipv4.tcp_sack 0")
	}
}

// tcpSysctl writes one of the namespace's other TCP switches: the
// default congestion control (tcp_assign_congestion_control), the tail
// loss probe (tcp_early_retrans), and with Listen the accept queue's
// bound (somaxconn) and what a full queue does (tcp_abort_on_overflow).
func (g *gen) tcpSysctl() {
	n := 2
	if g.on(Listen) {
		n = 4
	}
	switch g.r.IntN(n) {
	case 0:
		// A namespace but the first may make only an unrestricted one its
		// default, and which are depends on the host's boot default.
		name := "reno"
		if !g.cfg.Host {
			name = pick(g, "reno", "cubic", "bbr")
		}
		g.line("sysctl net.ipv4.tcp_congestion_control %s", name)
	case 1:
		g.line("sysctl net.ipv4.tcp_early_retrans %d", g.r.IntN(5))
	case 2:
		g.line("sysctl net.core.somaxconn %d", pick(g, 0, 1, 2, 128, 4096))
	default:
		g.line("sysctl net.ipv4.tcp_abort_on_overflow %d", pick(g, 0, 1))
	}
}

// users writes users and tasks with random memlock limits and
// capabilities; on a host, where the one task is main, it limits main.
func (g *gen) users() {
	if g.cfg.Host {
		g.line("capdrop main CAP_IPC_LOCK")
		if g.chance(2) {
			g.line("setrlimit main RLIMIT_MEMLOCK %s", g.size(pick(g, 0, 4096, 12288, 65536, 1<<20, 8<<20)))
		}
		return
	}
	users := []string{"u1"}
	g.line("user u1 uid=%d", pick(g, 1000, 1001))
	if g.chance(2) {
		users = append(users, "u2")
		g.line("user u2 uid=%d", pick(g, 0, 1002, 65534))
	}
	for i := range 1 + g.r.IntN(3) {
		var opts []string
		opts = append(opts, "user="+pick(g, users...))
		switch g.r.IntN(4) {
		case 0:
			opts = append(opts, "memlock=unlimited")
		case 1, 2:
			opts = append(opts, "memlock="+g.size(pick(g, 0, 4096, 8192, 65536, 1<<20, 8<<20)))
		}
		if g.chance(3) {
			opts = append(opts, "cap_ipc_lock")
		}
		if g.chance(3) {
			opts = append(opts, "cap_net_admin")
		}
		if g.chance(4) {
			opts = append(opts, "hugepages")
		}
		name := fmt.Sprintf("p%d", i+1)
		g.tasks = append(g.tasks, name)
		g.line("task %s %s", name, strings.Join(g.shuffle(opts), " "))
	}
}

// bigTCP sets up what BIG TCP with huge pages needs all at once (the
// conjunction of catalog entry B15): lo with gso_max_size above 64 KiB,
// TCP send buffers of megabytes, and a task "big" with huge pages and
// unlimited memlock that TCP sockets on lo mostly run as.
func (g *gen) bigTCP() {
	g.line("sysctl net.ipv4.tcp_wmem 4K %s 4M", pick(g, "16K", "1M", "4M"))
	g.line("user ub uid=%d", pick(g, 1000, 1003))
	g.line("task big user=ub memlock=%s hugepages", pick(g, "unlimited", "unlimited", "16M"))
	g.tasks = append(g.tasks, "big")
	g.line("device lo loopback gso_max_size=%s", g.size(pick(g, 65537, 128<<10, 192<<10, 256<<10, 512<<10)))
}

func (g *gen) shuffle(s []string) []string {
	g.r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

func (g *gen) makeDevices() {
	if g.cfg.Host {
		if g.on(ZcRecv) && g.chance(2) {
			// The live run gives the namespace's lo the MTU of a loopback
			// declared with mtu= alone before any socket; every socket then
			// goes through it, as the host's do through lo.
			d := device{name: "lz", kind: "loopback", mtu: g.pageMTU(), pages: true}
			g.devices = []device{d}
			g.line("device %s loopback mtu=%d", d.name, d.mtu)
		}
		return
	}
	if g.on(ZcRecv) && g.chance(2) {
		d := device{name: "lz", kind: "loopback", mtu: g.pageMTU(), pages: true}
		g.devices = append(g.devices, d)
		g.line("device %s loopback mtu=%d", d.name, d.mtu)
	}
	if g.on(NIC) {
		for i := range 1 + g.r.IntN(2) {
			g.device(fmt.Sprintf("eth%d", i), "nic")
		}
	}
	if g.on(Tun) {
		g.device("tun0", "tun")
	}
	if g.chance(6) {
		g.device("lo2", "loopback")
	}
	if g.on(Tap) {
		for i := range 1 + g.r.IntN(2) {
			delay := ""
			if g.chance(2) {
				delay = " delay=" + g.duration() // tcpdump reads its copy later
			}
			g.line("tap dump%d on=%s%s", i, pick(g, g.devices...).name, delay)
		}
	}
}

// device writes one device with a random subset of its options.
func (g *gen) device(name, kind string) {
	d := device{name: name, kind: kind, mtu: 1500}
	if kind == "loopback" {
		d.mtu = 65536
	}
	var opts []string
	onoff := func(key string) {
		if g.chance(2) {
			opts = append(opts, key+"="+pick(g, "on", "off"))
		}
	}
	if kind == "nic" || g.chance(3) {
		onoff("sg")
		onoff("csum")
	}
	if g.on(UDP|TCP) && (g.on(NIC) || g.chance(3)) {
		onoff("gso")
		onoff("tso")
		if g.chance(4) {
			opts = append(opts, "gso_max_size="+g.size(pick(g, 1, 1500, 16384, 65536, 65537, 192<<10, 512<<10)))
		}
	}
	switch {
	case kind == "nic" && g.on(ZcRecv) && !g.chance(3):
		// header split and a page-sized MSS: the receiver can map the payload
		split := pick(g, "on", "on", "on", "off")
		d.mtu, d.pages = g.pageMTU(), split == "on"
		opts = append(opts, fmt.Sprintf("mtu=%d", d.mtu), "header_split="+split)
	case g.chance(2):
		d.mtu = pick(g, 1280, 1281, 1500, 1501, 4096, 9000, 65535, 65536)
		opts = append(opts, fmt.Sprintf("mtu=%d", d.mtu))
	}
	if g.on(Link) {
		if g.chance(2) {
			opts = append(opts, "delay="+g.duration())
		}
		if g.chance(2) {
			opts = append(opts, "loss="+pick(g, "0", "0.01", "0.1", "0.5", "1"))
		}
	}
	if kind != "nic" && g.chance(4) {
		// the loopback switch of the RFC v2 benchmarks
		opts = append(opts, "orphan_rx="+pick(g, "copy", "plain"))
	}
	if g.on(ManualTX) && kind != "loopback" {
		if g.chance(3) {
			opts = append(opts, "txcomplete="+g.duration())
		} else {
			d.manual = true
			opts = append(opts, "txcomplete=manual")
		}
	}
	g.devices = append(g.devices, d)
	g.line("device %s %s%s", name, kind, joinOpts(g.shuffle(opts)))
}

func joinOpts(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return " " + strings.Join(opts, " ")
}

// newSocket writes a socket statement and what a program does next: opt in
// to zerocopy, set options, connect; with Listen a TCP socket may listen
// instead, or be a client of a listener.
func (g *gen) newSocket() {
	s := &sock{name: fmt.Sprintf("s%d", len(g.socks)+1)}
	kinds := []kind{}
	for k, f := range []Features{TCP, UDP, Raw, Packet, Unix} {
		if g.on(f) {
			kinds = append(kinds, kind(k))
		}
	}
	s.kind = pick(g, kinds...)
	if s.kind == kTCP && g.on(Listen) {
		switch ls := g.listeners(); {
		case len(ls) == 0 || g.chance(6):
			s.listener = true
		case g.chance(2):
			g.client(s, pick(g, ls...))
			return
		}
	}
	g.socket(s)
}

// listeners are the TCP sockets that listened in their setup.
func (g *gen) listeners() []*sock {
	var ls []*sock
	for _, s := range g.socks {
		if s.listener {
			ls = append(ls, s)
		}
	}
	return ls
}

// socket writes s's socket statement with its options and its setup.
func (g *gen) socket(s *sock) {
	if g.on(Sockopts) && !s.listener && g.chance(12) {
		s.kind = kBad
	}
	s.inet6 = g.on(Inet6) && g.chance(2)
	d := pick(g, g.devices...)
	if s.kind == kTCP && d.name == "lo" && g.on(ZcRecv) && !g.on(BigTCP) && g.chance(2) {
		// A TCP socket that would go through lo goes through a device
		// whose MSS is whole pages instead; sockets through a NIC, tun or
		// lo2 stay, and so do BIG TCP's, whose lo is the point.
		d = g.pageDevice(d)
	}
	s.mtu, s.loopback, s.pages = d.mtu, d.kind == "loopback", d.pages
	g.socks = append(g.socks, s)
	var opts []string
	if d.name != "lo" || g.chance(2) {
		opts = append(opts, "via="+d.name)
	}
	if s.kind == kRaw && !g.chance(4) {
		// The IP header an IP_HDRINCL send carries: without it the
		// send's result is undetermined.
		opts = append(opts, "ihl="+pick(g, "5", "5", "5", "0", "4", "6", "15"))
	}
	if s.inet6 && s.inet() && g.on(Mapped) && !s.listener && g.chance(2) {
		opts = append(opts, "mapped") // IPv4 traffic, the error queue of an AF_INET6 socket
	}
	if g.cfg.Host {
		if g.chance(4) {
			opts = append(opts, "peer_read=manual")
		}
		g.line("socket %s %s%s", s.name, g.socketType(s), joinOpts(g.shuffle(opts)))
		g.socketSetup(s)
		return
	}
	if g.on(BigTCP) && s.kind == kTCP && d.name == "lo" && !g.chance(4) {
		s.big = true
		opts = append(opts, "task=big", "peer_rcvbuf=4M", "peer_read=auto")
	} else if len(g.tasks) > 1 && !g.chance(4) {
		opts = append(opts, "task="+pick(g, g.tasks...))
	}
	if g.on(Peer) {
		if g.chance(2) {
			opts = append(opts, "peer_ack="+pick(g, "immediate", "delayed", "quickack"))
		}
		if !s.big && g.chance(2) {
			opts = append(opts, "peer_read="+pick(g, "manual", "auto"))
		}
	}
	if g.on(Buffers) && !s.big && g.chance(2) {
		opts = append(opts, "peer_rcvbuf="+g.size(pick(g, 1, 1024, 4096, 65536, 1<<20)))
	}
	g.line("socket %s %s%s", s.name, g.socketType(s), joinOpts(g.shuffle(opts)))
	g.socketSetup(s)
}

// client writes s as a client of the listener l (to=): of l's family,
// through l's device, connecting in its setup as a program does; on a
// host always non-blocking, since the live run's SO_SNDTIMEO would cut
// a blocking connect's wait for a full queue.
func (g *gen) client(s, l *sock) {
	s.to, s.inet6 = l, l.inet6
	s.mtu, s.loopback, s.pages = l.mtu, l.loopback, l.pages
	g.socks = append(g.socks, s)
	family, nb := "AF_INET", ""
	if s.inet6 {
		family = "AF_INET6"
	}
	if g.cfg.Host || g.on(Nonblock) && g.chance(2) {
		nb = "|SOCK_NONBLOCK"
	}
	var opts []string
	if len(g.tasks) > 1 && !g.cfg.Host && g.chance(2) {
		opts = append(opts, "task="+pick(g, g.tasks...))
	}
	opts = append(opts, "to="+l.name)
	g.line("socket %s %s SOCK_STREAM%s%s", s.name, family, nb, joinOpts(g.shuffle(opts)))
	g.socketSetup(s)
}

// socketType writes FAMILY TYPE [PROTOCOL] for s.
func (g *gen) socketType(s *sock) string {
	family := "AF_INET"
	if s.inet6 {
		family = "AF_INET6"
	}
	nb := ""
	if g.on(Nonblock) && g.chance(3) {
		nb = "|SOCK_NONBLOCK"
	}
	switch s.kind {
	case kTCP:
		return family + " SOCK_STREAM" + nb + pick(g, "", " IPPROTO_TCP", " 0", " 6")
	case kUDP:
		return family + " SOCK_DGRAM" + nb + pick(g, "", " IPPROTO_UDP", " 17")
	case kRaw:
		return family + " SOCK_RAW" + nb + pick(g, " IPPROTO_RAW", " IPPROTO_UDP", " IPPROTO_ICMP", " 255")
	case kPacket:
		return "AF_PACKET " + pick(g, "SOCK_RAW", "SOCK_DGRAM") + nb + pick(g, "", " 0x0300", " 768", " 0")
	case kUnix:
		return pick(g, "AF_UNIX", "AF_LOCAL") + " " + pick(g, "SOCK_STREAM", "SOCK_DGRAM") + nb
	}
	bad := []string{"AF_INET SOCK_STREAM IPPROTO_UDP", "AF_INET SOCK_DGRAM IPPROTO_TCP",
		"AF_UNSPEC SOCK_STREAM", "AF_INET SOCK_SEQPACKET", "AF_INET6 SOCK_RAW 99", "AF_RDS SOCK_SEQPACKET"}
	switch {
	case g.cfg.Host && g.on(Memlock):
		bad = bad[:4] // the unprivileged run may not open RAW; nor what follows
	case g.cfg.Host:
		bad = bad[:5] // whether a host has AF_RDS depends on its modules
	}
	return pick(g, bad...)
}

// socketSetup writes the calls a program makes on a new socket, in a
// random order: SO_ZEROCOPY before or after connect, a few options.
func (g *gen) socketSetup(s *sock) {
	var calls []func()
	if !g.chance(8) {
		calls = append(calls, func() { g.line("setsockopt %s SOL_SOCKET SO_ZEROCOPY %d", s.name, pick(g, 1, 1, 1, 0)) })
	}
	for range g.r.IntN(3) {
		calls = append(calls, func() { g.setsockopt(s.name, s) })
	}
	switch {
	case s.listener:
		if !g.cfg.Host && g.chance(3) {
			calls = append(calls, func() { g.line("bind %s", s.name) })
		}
		calls = append(calls, func() { g.line("listen %s%s", s.name, g.backlog()) })
	case g.on(Connect) && s.kind == kTCP && s.to == nil && !g.cfg.Host && g.chance(4):
		calls = append(calls, func() { g.line("bind %s", s.name) }, func() { g.line("listen %s", s.name) })
	}
	if !s.listener && (s.kind == kTCP || s.kind == kUnix || !g.chance(3)) {
		calls = append(calls, func() { g.line("connect %s", s.name) })
	}
	if g.chance(3) {
		g.r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	}
	for _, c := range calls {
		c()
	}
	if s.kind == kTCP && g.on(ZcRecv) && g.chance(2) {
		g.mmap(g.receiver(s)) // once connected: on a host the peer exists from then on
	}
	if s.kind == kTCP && g.chance(8) {
		// SOCK_URGINLINE on the reading side: urgent bytes stay in the
		// stream and recv(MSG_OOB) is EINVAL (tcp_recv_urg).
		g.line("setsockopt %s SOL_SOCKET SO_OOBINLINE %s", g.receiver(s), pick(g, "1", "1", "0"))
	}
	if g.ringable(s) && !g.chance(4) {
		g.txRing(s)
	}
}

// backlog writes listen's backlog= option, or nothing (a backlog of 1):
// mostly a queue that a few clients fill, sometimes a negative one, which
// __sys_listen clamps to somaxconn.
func (g *gen) backlog() string {
	if g.chance(4) {
		return ""
	}
	return fmt.Sprintf(" backlog=%d", pick(g, 0, 0, 1, 1, 2, 5, 128, -1))
}

// ringable says s may get a TX ring: a packet socket of a file with
// TxRing, not through a loopback device, whose loopback_xmit orphans the
// skb and so gives the frame back while it is still being delivered (the
// model reports that as the violation it is; packet/doc.go).
func (g *gen) ringable(s *sock) bool {
	return s.kind == kPacket && g.on(TxRing) && !s.loopback && s.frames == 0
}

// txRing sets up and maps a valid TPACKET_V2 TX ring on the packet
// socket s: one or two blocks of a page, frames of 2 or 4 KiB.
func (g *gen) txRing(s *sock) {
	blocks, size := 1+g.r.IntN(2), pick(g, 2048, 4096)
	s.frames, s.frameSize = blocks*(4096/size), size
	g.line("setsockopt %s SOL_PACKET PACKET_TX_RING [4096, %d, %d, %d]", s.name, blocks, size, s.frames)
	g.line("mmap %s", s.name)
}

// pageMTU draws an MTU whose TCP MSS, with timestamps, is whole pages:
// 4096 or 49152 bytes over IPv4 (4148, 49204) or, with Inet6, over IPv6
// (4168, 49224); 12 bytes less when net.ipv4.tcp_timestamps is off
// (tcp_established_options).
func (g *gen) pageMTU() int {
	var mtu int
	if g.on(Inet6) && g.chance(2) {
		mtu = pick(g, 4168, 49224)
	} else {
		mtu = pick(g, 4148, 49204)
	}
	if g.noTimestamps {
		mtu -= 12
	}
	return mtu
}

// pageDevice returns a device whose receivers get mappable page frags, d
// when there is none.
func (g *gen) pageDevice(d device) device {
	var pages []device
	for _, pd := range g.devices {
		if pd.pages {
			pages = append(pages, pd)
		}
	}
	if len(pages) == 0 {
		return d
	}
	return pick(g, pages...)
}
