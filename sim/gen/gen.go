package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
)

// Config bounds and steers generation. The zero value asks for the
// defaults: any profile, every feature allowed, DefaultStmts statements,
// DefaultBytes bytes.
type Config struct {
	// Profile is written in the profile statement; empty draws one of
	// kernel.Profiles() from the seed.
	Profile string
	// Allow is the set swarm testing draws each scenario's features from;
	// zero allows every feature.
	Allow Features
	// Stmts bounds the statements after the setup (devices, sockets and
	// their options); zero is DefaultStmts. The body has between Stmts/4
	// and Stmts+5 statements (a new socket's setup may overshoot); the
	// setup adds at most 14 + 6×Sockets, the drain at the end 1 + 3 per
	// socket.
	Stmts int
	// Bytes bounds the payload of all send calls and vhost_send together;
	// zero is DefaultBytes.
	Bytes int
	// CallBytes bounds one call's payload when the Big feature is drawn
	// (without it, SmallCallBytes); zero is DefaultCallBytes. At most
	// 16 MiB, what the interpreter accepts.
	CallBytes int
	// Sockets bounds the sockets the setup creates; zero is
	// DefaultSockets. accept statements may add more.
	Sockets int
	// Bugs are written as bug statements after the profile, as given.
	Bugs []string
	// Host restricts the scenarios to what a program can do on a real
	// host's loopback in a private network namespace (see Host in the
	// package doc): Allow is cut to HostFeatures, and the statements
	// only a model can run are never written.
	Host bool
}

// Defaults of Config's zero fields.
const (
	DefaultStmts     = 40
	DefaultBytes     = 4 << 20
	DefaultCallBytes = 3 << 20
	SmallCallBytes   = 256 << 10
	DefaultSockets   = 3
	maxCallBytes     = 16 << 20
)

func (c Config) withDefaults() Config {
	if c.Allow == 0 {
		c.Allow = AllFeatures
	}
	if c.Host {
		c.Allow &= HostFeatures
	}
	if c.Stmts <= 0 {
		c.Stmts = DefaultStmts
	}
	if c.Bytes <= 0 {
		c.Bytes = DefaultBytes
	}
	if c.CallBytes <= 0 {
		c.CallBytes = DefaultCallBytes
	}
	c.CallBytes = min(c.CallBytes, maxCallBytes)
	if c.Sockets <= 0 {
		c.Sockets = DefaultSockets
	}
	return c
}

// Scenario returns the scenario of seed under cfg: a well-formed file that
// parses and passes the interpreter's checks, carries no expectations, and
// starts with comments that name the seed, profile and drawn features. The
// same seed and cfg always give the same bytes.
func Scenario(seed uint64, cfg Config) []byte {
	g := newGen(seed, cfg.withDefaults())
	g.header(seed)
	g.setup()
	g.body()
	g.drain()
	return []byte(g.b.String())
}

// kind is what a socket is, as far as generation cares.
type kind int

const (
	kTCP kind = iota
	kUDP
	kRaw
	kPacket
	kUnix
	kBad // a combination socket(2) refuses
)

type sock struct {
	name     string
	kind     kind
	inet6    bool
	mtu      int
	accepted bool
	// big is a TCP socket of the BIG TCP task on lo: its sends are often
	// over 64 KiB.
	big bool
	// frames is the size of the mapped TX ring of a packet socket, or 0;
	// frameSize its frames' size.
	frames, frameSize int
	// loopback says the socket sends through a loopback device; pages
	// that its device's MSS is whole pages (device.pages).
	loopback, pages bool
	// listener says s listened in its setup; to is the listener a
	// client made with to= connects to, which has no implicit peer.
	listener bool
	to       *sock
}

// inet says s is a TCP or UDP socket of either IP family, whose peer is
// a socket of its kind on the far side of its device.
func (s *sock) inet() bool { return s.kind == kTCP || s.kind == kUDP }

type device struct {
	name   string
	kind   string
	mtu    int
	manual bool
	// pages says a TCP receiver through the device gets whole page frags
	// it can map (TCP_ZEROCOPY_RECEIVE): its MSS is a multiple of the
	// page size, and a NIC splits headers from payload.
	pages bool
}

type gen struct {
	r       *rand.Rand
	cfg     Config
	feat    Features
	profile string
	// zcCmsg says the profile takes SCM_ZC_NOTIFICATION (Profile.ZcCmsg);
	// mmapConsumes that mmap of a TCP socket maps and consumes what is
	// queued (Profile.TCPMmapConsumes, the seed's tcp_mmap), with
	// Config.Bugs switched on.
	zcCmsg, mmapConsumes bool
	weights              [numActions]int
	b                    strings.Builder
	lines                int
	devices              []device
	tasks                []string
	socks                []*sock
	bytesLeft            int
	callMax              int
	// iterations is how often the statement being written runs: the
	// count of the repeat around it, or 1; indent is its indentation,
	// loopVar says the repeat names the variable i.
	iterations int
	indent     string
	loopVar    bool
	accepted   int
	// epolls are the epoll instances created so far; zcMaps the TCP
	// sockets (or peers) an mmap was written for, which TCP_ZEROCOPY_RECEIVE
	// reads map into.
	epolls []string
	zcMaps map[string]bool
	// noTimestamps says the setup switched net.ipv4.tcp_timestamps off:
	// TCP segments then spend no 12 bytes on the option.
	noTimestamps bool
}

func newGen(seed uint64, cfg Config) *gen {
	g := &gen{
		r:          rand.New(rand.NewPCG(seed, 0x7a637369_6d67656e)),
		cfg:        cfg,
		tasks:      []string{"main"},
		zcMaps:     map[string]bool{},
		bytesLeft:  cfg.Bytes,
		iterations: 1,
	}
	g.feat = g.drawFeatures()
	g.callMax = SmallCallBytes
	if g.feat.Has(Big) {
		g.callMax = cfg.CallBytes
	}
	g.callMax = min(g.callMax, cfg.CallBytes)
	g.profile = cfg.Profile
	if g.profile == "" {
		ps := kernel.Profiles()
		g.profile = ps[g.r.IntN(len(ps))].Name
	}
	if p, err := kernel.Lookup(g.profile); err == nil {
		for _, b := range cfg.Bugs {
			if slices.Contains(kernel.KnownBugs(), kernel.Bug(b)) {
				p.Switch(kernel.Bug(b), true)
			}
		}
		g.zcCmsg, g.mmapConsumes = p.ZcCmsg, p.TCPMmapConsumes
	}
	g.drawWeights()
	return g
}

// drawFeatures is swarm testing's first draw: each allowed feature with
// probability 1/2, and at least one kind of socket.
func (g *gen) drawFeatures() Features {
	var f Features
	for i := range numFeatures {
		bit := Features(1) << i
		if g.cfg.Allow&bit != 0 && g.r.IntN(2) == 0 {
			f |= bit
		}
	}
	if g.cfg.Host && f.Has(Memlock) {
		f &^= Raw | Packet // the unprivileged host run may not open them
	}
	if f.Has(BigTCP) {
		f &^= BigTCP
		if g.cfg.Allow.Has(TCP) {
			f |= BigTCP | TCP // it is about TCP sends
		}
	}
	if f.Has(TxRing) {
		f &^= TxRing
		if g.cfg.Allow.Has(Packet) && !(g.cfg.Host && f.Has(Memlock)) {
			f |= TxRing | Packet // rings are on packet sockets
		}
	}
	if f&sockKinds == 0 {
		kinds := g.cfg.Allow & sockKinds
		if g.cfg.Host && f.Has(Memlock) {
			kinds &^= Raw | Packet
		}
		if kinds == 0 {
			kinds = TCP
		}
		f |= g.nthBit(kinds)
	}
	// Refinements of a feature are kept only with it: zerocopy receive
	// is on TCP sockets, and so are listeners; a v4-mapped socket is an
	// AF_INET6 one.
	if !f.Has(TCP) {
		f &^= ZcRecv | Listen
	}
	if !f.Has(Inet6) {
		f &^= Mapped
	}
	return f
}

// nthBit picks one feature of set at random.
func (g *gen) nthBit(set Features) Features {
	n := g.r.IntN(set.count())
	for i := range numFeatures {
		bit := Features(1) << i
		if set&bit != 0 {
			if n == 0 {
				return bit
			}
			n--
		}
	}
	return 0
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(g.indent)
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
	g.lines++
}

func (g *gen) header(seed uint64) {
	g.line("# generated by zcsim/sim/gen: seed=%d stmts=%d bytes=%d", seed, g.cfg.Stmts, g.cfg.Bytes)
	g.line("# features: %s", g.feat)
	var ws []string
	for a := range numActions {
		if g.weights[a] > 0 {
			ws = append(ws, fmt.Sprintf("%s=%d", actionNames[a], g.weights[a]))
		}
	}
	g.line("# weights: %s", strings.Join(ws, " "))
	g.line("profile %s", g.profile)
	for _, b := range g.cfg.Bugs {
		g.line("bug %s", b)
	}
}

// chance reports true with probability 1/n.
func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

// pick returns one of the choices at random.
func pick[T any](g *gen, choices ...T) T { return choices[g.r.IntN(len(choices))] }

// on reports whether feature f was drawn.
func (g *gen) on(f Features) bool { return g.feat.Has(f) }
