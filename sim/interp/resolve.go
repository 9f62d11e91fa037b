package interp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/scenario"
)

// resolver checks, before anything runs, that every name a scenario uses
// is defined by then and every value the parser kept as text is valid, so
// a bad file is reported whole (file:line:col) and never half-run.
type resolver struct {
	errs    scenario.ErrorList
	users   names
	tasks   names
	devices names
	sockets names
	taps    names
	started bool
}

// names are the things of one kind a scenario defined so far, each with
// where; an implicit one (the task "main", the device "lo") has no
// position and may be defined once by the scenario, replacing it.
type names map[string]*scenario.Pos

func newResolver() *resolver {
	return &resolver{
		users:   names{},
		tasks:   names{"main": nil},
		devices: names{defaultDevice: nil},
		sockets: names{},
		taps:    names{},
	}
}

// define records that the statement at pos defines id as a what; a name
// defined twice is an error, since the second would silently rebind it.
func (r *resolver) define(set names, what string, id scenario.Ident) {
	if at, ok := set[id.Name]; ok && at != nil {
		r.fail(id.Pos, id.Name, "%s %s is already defined at line %d", what, id.Name, at.Line)
		return
	}
	pos := id.Pos
	set[id.Name] = &pos
}

// defineSocket defines a socket and its implicit peer.
func (r *resolver) defineSocket(id scenario.Ident) {
	r.define(r.sockets, "socket", id)
	peer := id
	peer.Name += ".peer"
	r.define(r.sockets, "socket", peer)
}

// defaultDevice is the loopback device a socket uses without via=.
const defaultDevice = "lo"

func (r *resolver) fail(pos scenario.Pos, near, format string, args ...any) {
	if len(r.errs) < scenario.MaxErrors {
		r.errs = append(r.errs, &scenario.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Near: near})
	}
}

func (r *resolver) need(set names, what string, id scenario.Ident) {
	if _, ok := set[id.Name]; id.Name != "" && !ok {
		r.fail(id.Pos, id.Name, "undefined %s", what)
	}
}

func (r *resolver) sock(s scenario.Sock) {
	if _, ok := r.sockets[s.String()]; !ok {
		r.fail(s.Pos, s.String(), "undefined socket")
	}
}

// sysctls are the keys the sysctl statement accepts and how many values
// each takes.
var sysctls = map[string]int{
	"net.core.optmem_max": 1, "net.core.wmem_max": 1, "net.core.rmem_max": 1,
	"net.core.wmem_default": 1, "net.core.rmem_default": 1,
	"net.ipv4.tcp_wmem": 3, "net.ipv4.tcp_rmem": 3,
}

// expectKeys are the state an expect statement can check.
var expectKeys = []string{"zckey", "zerocopy", "optmem", "wmem", "wmem_queued", "rmem",
	"errqueue", "locked_vm", "sndbuf", "rcvbuf", "refcnt", "state", "unsent", "unacked", "queued"}

// Bounds on the sizes a scenario may ask for: what the kernel itself
// accepts or what a simulation can afford.
const (
	maxCallBytes = kernel.MaxRWCount // one buffer: the most a read or write moves
	maxIovecs    = kernel.UioMaxiov
	minMTU       = 1280      // IPV6_MIN_MTU, so that both families fit
	maxMTU       = 65536     // the loopback MTU
	maxID        = 1<<32 - 1 // sk_zckey is 32 bits
	maxBuf       = 1<<31 - 1 // INT_MAX, for buffer sizes and limits
)

// option checks that the value of option key, if given, names a defined
// what.
func (r *resolver) option(os scenario.Options, key string, set names, what string) {
	if o, ok := os.Lookup(key); ok {
		if _, defined := set[o.Value.Text]; !defined {
			r.fail(o.Value.Pos, o.Value.Text, "undefined %s", what)
		}
	}
}

// bound reports a value outside [lo, hi].
func (r *resolver) bound(v scenario.Value, what string, lo, hi uint64) {
	if v.Kind != scenario.ValueNone && (v.N < lo || v.N > hi) {
		r.fail(v.Pos, v.Text, "%s must be between %d and %d", what, lo, hi)
	}
}

// sizes checks the sizes a statement carries.
func (r *resolver) sizes(st scenario.Stmt) {
	switch s := st.(type) {
	case *scenario.Send:
		r.bound(s.Len, "a send's length", 0, maxCallBytes)
	case *scenario.Sendto:
		r.bound(s.Len, "a send's length", 0, maxCallBytes)
	case *scenario.Sendmsg:
		r.iovec(s.Iov, s.Pos())
	case *scenario.Sendmmsg:
		for _, m := range s.Msgs {
			r.iovec(m, s.Pos())
		}
	case *scenario.Recv:
		r.bound(s.Len, "a read's length", 0, maxCallBytes)
	case *scenario.Zckey:
		r.bound(s.Value, "sk_zckey", 0, maxID)
	case *scenario.Device:
		if o, ok := s.Options.Lookup("mtu"); ok {
			r.bound(o.Value, "mtu", minMTU, maxMTU)
		}
	case *scenario.Socket:
		if o, ok := s.Options.Lookup("peer_rcvbuf"); ok {
			r.bound(o.Value, "peer_rcvbuf", 1, maxBuf)
		}
	case *scenario.Sysctl:
		for _, v := range s.Values {
			r.bound(v, "a sysctl value", 0, maxBuf)
		}
	case *scenario.Setsockopt:
		r.bound(s.Value, "an option value", 0, maxBuf)
	}
}

// iovec checks an iovec array: at most UIO_MAXIOV entries, each at most
// MAX_RW_COUNT bytes. A larger total is the kernel's to cut:
// __import_iovec clamps it to MAX_RW_COUNT (sim.World.Send does).
func (r *resolver) iovec(iov []scenario.Value, pos scenario.Pos) {
	if len(iov) > maxIovecs {
		r.fail(pos, "", "at most %d iovecs (UIO_MAXIOV)", maxIovecs)
	}
	for _, v := range iov {
		r.bound(v, "an iovec's length", 0, maxCallBytes)
	}
}

// stmt checks one statement and records the names it defines.
func (r *resolver) stmt(st scenario.Stmt, bugs map[kernel.Bug]bool) {
	switch s := st.(type) {
	case *scenario.Bug:
		if r.started {
			r.fail(s.Pos(), "bug", "bug switches must come before the first statement that builds the world")
		}
		if !bugs[kernel.Bug(s.Name.Name)] {
			r.fail(s.Name.Pos, s.Name.Name, "unknown bug (known: %s)", strings.Join(bugNames(), ", "))
		}
		return
	case *scenario.Profile, *scenario.Comment:
		return
	}
	r.started = true
	r.sizes(st)
	switch s := st.(type) {
	case *scenario.Sysctl:
		want, ok := sysctls[s.Key.Name]
		switch {
		case !ok:
			r.fail(s.Key.Pos, s.Key.Name, "unknown sysctl (known: %s)", strings.Join(sortedKeys(sysctls), ", "))
		case len(s.Values) != want:
			r.fail(s.Key.Pos, s.Key.Name, "%s takes %d value(s)", s.Key.Name, want)
		}
	case *scenario.User:
		r.define(r.users, "user", s.Name)
	case *scenario.Task:
		r.option(s.Options, "user", r.users, "user")
		r.define(r.tasks, "task", s.Name)
	case *scenario.Device:
		r.define(r.devices, "device", s.Name)
	case *scenario.Tap:
		r.option(s.Options, "on", r.devices, "device")
		r.define(r.taps, "tap", s.Name)
	case *scenario.Socket:
		r.option(s.Options, "via", r.devices, "device")
		r.option(s.Options, "task", r.tasks, "task")
		r.defineSocket(s.Name)
	case *scenario.Accept:
		r.sock(s.Sock)
		r.defineSocket(s.New)
	case *scenario.Setrlimit:
		r.need(r.tasks, "task", s.Task)
	case *scenario.Capdrop:
		r.need(r.tasks, "task", s.Task)
	case *scenario.Capset:
		r.need(r.tasks, "task", s.Task)
	case *scenario.Complete:
		r.need(r.devices, "device", s.Device)
	case *scenario.Txerror:
		r.need(r.devices, "device", s.Device)
	case *scenario.VhostSend:
		r.need(r.devices, "device", s.Device)
	case *scenario.Fault:
		if sites := kernel.FaultSites(); !slices.Contains(sites, s.Site.Name) {
			r.fail(s.Site.Pos, s.Site.Name, "unknown fault site (known: %s)", strings.Join(sites, ", "))
		}
		if _, err := engine.ParseRule(s.Rule.Name); err != nil {
			r.fail(s.Rule.Pos, "", "bad fault rule: %v", err)
		}
	case *scenario.Expect:
		r.sock(s.Sock)
		for _, c := range s.Checks {
			if !slices.Contains(expectKeys, c.Key) {
				r.fail(c.Pos, c.Key, "unknown state key (known: %s)", strings.Join(expectKeys, ", "))
			}
		}
	default:
		if sk, ok := sockOf(st); ok {
			r.sock(sk)
		}
	}
}

// sockOf returns the socket a statement acts on.
func sockOf(st scenario.Stmt) (scenario.Sock, bool) {
	switch s := st.(type) {
	case *scenario.Setsockopt:
		return s.Sock, true
	case *scenario.Getsockopt:
		return s.Sock, true
	case *scenario.Connect:
		return s.Sock, true
	case *scenario.Listen:
		return s.Sock, true
	case *scenario.Bind:
		return s.Sock, true
	case *scenario.Shutdown:
		return s.Sock, true
	case *scenario.Accept:
		return s.Sock, true
	case *scenario.Close:
		return s.Sock, true
	case *scenario.Send:
		return s.Sock, true
	case *scenario.Sendto:
		return s.Sock, true
	case *scenario.Sendmsg:
		return s.Sock, true
	case *scenario.Sendmmsg:
		return s.Sock, true
	case *scenario.Recvmsg:
		return s.Sock, true
	case *scenario.Recv:
		return s.Sock, true
	case *scenario.Hold:
		return s.Sock, true
	case *scenario.Release:
		return s.Sock, true
	case *scenario.Drop:
		return s.Sock, true
	case *scenario.Zckey:
		return s.Sock, true
	case *scenario.Expect:
		return s.Sock, true
	}
	return scenario.Sock{}, false
}
