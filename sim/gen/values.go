package gen

import (
	"fmt"
	"slices"
	"strings"
)

// size spells n as a scenario writes it: plain decimal, or with a K or M
// suffix when n is a multiple, or in hex.
func (g *gen) size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0 && g.chance(2):
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0 && g.chance(2):
		return fmt.Sprintf("%dK", n>>10)
	case g.chance(20):
		return fmt.Sprintf("0x%x", n)
	}
	return fmt.Sprint(n)
}

// payload draws one call's length within the call and total byte
// budgets, and charges it.
func (g *gen) payload(mtu int) int { return g.take(g.drawSize(mtu), g.callMax) }

// sendSize draws the length of a send or sendto on the socket name: for a
// BIG TCP socket half of them over 64 KiB, up to 512 KiB, the most a BIG
// TCP skb can hold; on a TCP socket whose MSS is whole pages half of them
// whole pages, which keeps its receiver's read position where it can map
// them; otherwise as payload does.
func (g *gen) sendSize(name string) int {
	s := g.sockNamed(strings.TrimSuffix(name, ".peer"))
	switch {
	case s != nil && s.big && name == s.name && g.chance(2):
		return g.take(64<<10+1+g.r.IntN(min(g.callMax, 512<<10)-64<<10), g.callMax)
	case s != nil && s.pages && s.kind == kTCP && g.chance(2):
		return g.take(4096*(1+g.r.IntN(64)), g.callMax)
	}
	return g.payload(g.mtuOf(name))
}

// drawSize draws a length, weighted toward small sizes with the boundaries
// that matter (MSS, PAGE_SIZE, 64K, the MTU and one either side).
func (g *gen) drawSize(mtu int) int {
	var n int
	switch r := g.r.IntN(20); {
	case r == 0:
		n = 0
	case r < 9:
		n = 1 + g.r.IntN(256)
	case r < 13:
		n = 1 + g.r.IntN(16<<10)
	case r < 18:
		n = pick(g, 1, 536, 1448, 1460, 1472, 1480, 4095, 4096, 4097, 8192, 16384, 32768,
			65483, 65507, 65508, 65535, 65536, 65537, 69632, 131072, mtu-29, mtu-28, mtu-1, mtu, mtu+1)
	case r == 18:
		n = 64<<10 + g.r.IntN(SmallCallBytes-64<<10)
	default:
		n = 1 + g.r.IntN(g.callMax)
	}
	return n
}

// take clamps n to limit and to what is left of the byte budget for each
// iteration of the statement, and charges it for every iteration.
func (g *gen) take(n, limit int) int {
	n = max(0, min(n, limit, g.bytesLeft/g.iterations))
	g.bytesLeft -= n * g.iterations
	return n
}

// lenText spells a send's length n; inside a repeat with a variable it
// is sometimes an expression over it, at most n in every iteration.
func (g *gen) lenText(n int) string {
	if g.loopVar && n >= g.iterations && g.chance(3) {
		return fmt.Sprintf("%d+i", n-(g.iterations-1))
	}
	return g.size(n)
}

// iovec writes one bracketed iovec array of 1 to a few, or with Iovecs
// up to 64, entries.
func (g *gen) iovec(mtu int) string {
	n := 1 + g.r.IntN(3)
	if g.on(Iovecs) {
		n = pick(g, 0, 1, 2, 5, 17, 18, 64)
	}
	parts := make([]string, n)
	left := g.callMax
	for i := range parts {
		limit := left
		if g.chance(2) {
			limit = min(left, 4096)
		}
		k := g.take(g.drawSize(mtu), limit)
		left -= k
		parts[i] = g.size(k)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// sendFlags mixes copy and zerocopy sends with MSG_MORE, MSG_DONTWAIT and a
// few rarer flags, and on a TCP sender MSG_OOB more often.
func (g *gen) sendFlags(sender string) string {
	var fs []string
	if !g.chance(4) {
		fs = append(fs, "MSG_ZEROCOPY")
	}
	if g.on(Cork) && g.chance(3) {
		fs = append(fs, "MSG_MORE")
	}
	if g.on(Nonblock) && g.chance(3) {
		fs = append(fs, "MSG_DONTWAIT")
	}
	if g.chance(15) {
		fs = append(fs, pick(g, "MSG_NOSIGNAL", "MSG_EOR", "MSG_CONFIRM", "MSG_OOB", "MSG_DONTROUTE", "MSG_FASTOPEN"))
	}
	if s := g.sockNamed(strings.TrimSuffix(sender, ".peer")); s != nil && s.kind == kTCP && !slices.Contains(fs, "MSG_OOB") && g.chance(10) {
		fs = append(fs, "MSG_OOB") // urgent data, for the reads with MSG_OOB
	}
	if len(fs) == 0 {
		return "0"
	}
	return strings.Join(g.shuffle(fs), "|")
}

// duration draws a wait or delay, mostly short; on a host at most 250ms,
// so that a run stays quick.
func (g *gen) duration() string {
	switch r := g.r.IntN(5); {
	case g.cfg.Host && r == 4:
		return pick(g, "40ms", "200ms", "250ms")
	case r == 0:
		return fmt.Sprintf("%dns", 1+g.r.IntN(1000))
	case r <= 2:
		return fmt.Sprintf("%dus", 1+g.r.IntN(500))
	case r == 3:
		return fmt.Sprintf("%dms", 1+g.r.IntN(250))
	}
	return pick(g, "1s", "200ms", "40ms", "3s")
}

// sender names the socket of a send: mostly a socket of the setup,
// sometimes its peer.
func (g *gen) sender() string {
	s := g.anySock()
	if g.on(Peer) && g.chance(8) {
		return g.peerOf(s)
	}
	return s.name
}

func (g *gen) anySock() *sock { return pick(g, g.socks...) }

// sockName names a socket, or its peer when peer is set.
func (g *gen) sockName(peer bool) string {
	s := g.anySock()
	if peer {
		return g.peerOf(s)
	}
	return s.name
}

func (g *gen) maybePeer(s *sock) string {
	if g.on(Peer) && g.chance(6) {
		return g.peerOf(s)
	}
	return s.name
}

// peerOf names s's peer; a client of a listener, which has none, and on
// a host, where only TCP and UDP sockets have one, a socket of another
// kind name themselves.
func (g *gen) peerOf(s *sock) string {
	if s.to != nil || g.cfg.Host && s.kind != kTCP && s.kind != kUDP {
		return s.name
	}
	return s.name + ".peer"
}

// sockNamed is the socket name is, or nil for a peer.
func (g *gen) sockNamed(name string) *sock {
	for _, s := range g.socks {
		if s.name == name {
			return s
		}
	}
	return nil
}

// mtuOf is the MTU of the device socket name (or its peer) sends through.
func (g *gen) mtuOf(name string) int {
	if s := g.sockNamed(strings.TrimSuffix(name, ".peer")); s != nil {
		return s.mtu
	}
	return 1500
}

// someDevice names a device, preferring one with manual TX completion.
func (g *gen) someDevice() string {
	var manual []string
	for _, d := range g.devices {
		if d.manual {
			manual = append(manual, d.name)
		}
	}
	if len(manual) > 0 && !g.chance(4) {
		return pick(g, manual...)
	}
	return pick(g, g.devices...).name
}

// setsockopt writes an option that suits s's kind, or with Sockopts
// sometimes any option.
func (g *gen) setsockopt(name string, s *sock) {
	opts := []string{"SOL_SOCKET SO_ZEROCOPY " + pick(g, "1", "0")}
	switch s.kind {
	case kTCP:
		if g.on(Cork) {
			opts = append(opts, pick(g, "IPPROTO_TCP", "SOL_TCP")+" TCP_CORK "+pick(g, "1", "0"))
		}
		if g.on(Sockopts) {
			opts = append(opts, "IPPROTO_TCP TCP_NODELAY "+pick(g, "1", "0"))
			if g.chance(2) {
				opts = append(opts, "IPPROTO_TCP "+pick(g, "TCP_CONGESTION "+g.congestion(), "TCP_INQ "+pick(g, "0", "1", "2")))
			}
		}
	case kUDP:
		if g.on(Cork) {
			opts = append(opts, pick(g, "IPPROTO_UDP", "SOL_UDP")+" UDP_CORK "+pick(g, "1", "0"))
		}
		opts = append(opts, "SOL_UDP UDP_SEGMENT "+fmt.Sprint(pick(g, 0, 1, 536, 1400, 1472, s.mtu-28, s.mtu-27, 8192, 65535)))
	case kRaw:
		opts = append(opts, pick(g, "SOL_IP", "IPPROTO_IP")+" IP_HDRINCL "+pick(g, "1", "0"))
	case kPacket:
		if g.on(Sockopts) {
			opts = append(opts, "SOL_PACKET PACKET_TX_RING "+pick(g, "0", "1"))
		}
	}
	if g.on(Timestamps) {
		opt := "SO_TIMESTAMPING " + g.tstampFlags()
		if s.kind == kTCP && g.on(ZcRecv) && g.chance(4) {
			// software receive timestamps (sock_enable_timestamp), which
			// only a zerocopy receive reports; elsewhere SO_TIMESTAMPING
			// keeps its share
			opt = pick(g, "SO_TIMESTAMP", "SO_TIMESTAMPNS", "SO_TIMESTAMP_NEW", "SO_TIMESTAMPNS_NEW") + " " + pick(g, "1", "1", "0")
		}
		opts = append(opts, "SOL_SOCKET "+opt)
	}
	if g.on(Buffers) {
		names := []string{"SO_SNDBUF", "SO_RCVBUF", "SO_SNDBUFFORCE", "SO_RCVBUFFORCE"}
		if g.cfg.Host && !g.on(Memlock) {
			names = names[:2] // root on the host may force buffer sizes, the model's main may not
		}
		opts = append(opts, "SOL_SOCKET "+pick(g, names...)+" "+
			g.size(pick(g, 0, 1, 2048, 4096, 16384, 65536, 1<<20, 1<<31-1)))
		opts = append(opts, "SOL_SOCKET SO_RCVLOWAT "+fmt.Sprint(pick(g, 0, 1, 1000, 65536)))
	}
	if g.on(Sockopts) {
		opts = append(opts, pick(g, "SOL_IP IP_RECVERR", "SOL_IPV6 IPV6_RECVERR", "IPPROTO_IPV6 IPV6_RECVERR")+" "+pick(g, "1", "0"))
		if g.chance(4) {
			opts = append(opts, pick(g, "SOL_UDP UDP_SEGMENT 1400", "SOL_TCP TCP_CORK 1", "SOL_IP IP_HDRINCL 1", "IPPROTO_TCP TCP_ZEROCOPY_RECEIVE 0"))
		}
	}
	if g.on(Listen) && g.chance(3) { // sk_reuse and sk_reuseport, which relax a listener's bind, on any socket
		opts = append(opts, "SOL_SOCKET "+pick(g, "SO_REUSEADDR", "SO_REUSEPORT")+" "+pick(g, "1", "0", "5"))
	}
	g.line("setsockopt %s %s", name, pick(g, opts...))
}

// congestion writes TCP_CONGESTION's value, a quoted name: one the kernel
// has, or one it has not (ENOENT), sometimes with an optlen that cuts it
// or is 0 (EINVAL). A task without CAP_NET_ADMIN may not choose cubic
// (tcp_set_allowed_congestion_control), which root on a host may: a host
// file asks for it only when it runs unprivileged (Memlock).
func (g *gen) congestion() string {
	names := []string{`"reno"`, `"bbr"`, `"nosuchcc"`}
	if !g.cfg.Host || g.on(Memlock) {
		names = append(names, `"cubic"`)
	}
	name := pick(g, names...)
	if g.chance(6) {
		name += " optlen=" + pick(g, "0", "3", "16")
	}
	return name
}

// tstampFlags writes SO_TIMESTAMPING's value: a union of flags, or a number.
func (g *gen) tstampFlags() string {
	if g.chance(6) {
		return pick(g, "0", "1", "130", "0x382")
	}
	all := []string{"SOF_TIMESTAMPING_TX_SOFTWARE", "SOF_TIMESTAMPING_TX_HARDWARE", "SOF_TIMESTAMPING_SOFTWARE",
		"SOF_TIMESTAMPING_OPT_ID", "SOF_TIMESTAMPING_TX_SCHED", "SOF_TIMESTAMPING_TX_ACK", "SOF_TIMESTAMPING_OPT_TSONLY",
		"SOF_TIMESTAMPING_OPT_CMSG", "SOF_TIMESTAMPING_OPT_STATS", "SOF_TIMESTAMPING_OPT_ID_TCP",
		"SOF_TIMESTAMPING_RX_SOFTWARE", "SOF_TIMESTAMPING_RX_HARDWARE", "SOF_TIMESTAMPING_RAW_HARDWARE"}
	g.shuffle(all)
	return strings.Join(all[:1+g.r.IntN(4)], "|")
}

// getsockopt reads back an option.
func (g *gen) getsockopt() {
	opt := pick(g, "SOL_SOCKET SO_ZEROCOPY", "SOL_SOCKET SO_SNDBUF", "SOL_SOCKET SO_RCVBUF", "SOL_SOCKET SO_RCVLOWAT",
		"SOL_SOCKET SO_TIMESTAMPING", "IPPROTO_TCP TCP_CORK", "SOL_UDP UDP_SEGMENT", "SOL_UDP UDP_CORK", "SOL_IP IP_HDRINCL",
		"IPPROTO_TCP TCP_ZEROCOPY_RECEIVE", "SOL_IP IP_RECVERR", "SOL_IPV6 IPV6_RECVERR", "SOL_PACKET PACKET_TX_RING",
		"IPPROTO_TCP TCP_CONGESTION", "IPPROTO_TCP TCP_INQ", "SOL_SOCKET SO_REUSEADDR", "SOL_SOCKET SO_REUSEPORT", "SOL_SOCKET SO_TIMESTAMPNS",
		"SOL_SOCKET SO_OOBINLINE")
	// On a host the live run's peers have buffer sizes of its own.
	g.line("getsockopt %s %s", g.sockName(g.chance(6) && !g.cfg.Host), opt)
}
