package interp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
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
	// streams are the families of the TCP sockets defined so far, for
	// the listener a socket's to= names.
	streams map[string]kernel.Family
	taps    names
	epolls  names
	started bool
	// depth is how many repeats enclose the statement being resolved.
	depth int
	// usesVar caches Repeat.UsesVar.
	usesVar map[*scenario.Repeat]bool
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
		streams: map[string]kernel.Family{},
		taps:    names{},
		epolls:  names{},
		usesVar: map[*scenario.Repeat]bool{},
	}
}

// define records that the statement at pos defines id as a what; a name
// defined twice is an error, since the second would silently rebind it.
func (r *resolver) define(set names, what string, id scenario.Ident) {
	if r.depth > 0 {
		r.fail(id.Pos, id.Name, "%s %s is defined inside a repeat, so every iteration would define it again: define it before the repeat", what, id.Name)
	}
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
	if r.depth == 0 {
		peer := id
		peer.Name += ".peer"
		r.define(r.sockets, "socket", peer)
	}
}

// defaultDevice is the loopback device a socket uses without via=.
const defaultDevice = "lo"

func (r *resolver) fail(pos scenario.Pos, near, format string, args ...any) {
	if len(r.errs) < scenario.MaxErrors {
		r.errs = append(r.errs, &scenario.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Near: near})
	}
}

// sysctlsOn refuses the sysctl statements whose key profile p's kernel
// does not have yet (sock.SysctlKey.On: no such /proc/sys file, ENOENT
// on its open), keeping the errors in line order. A statement whose
// key the model has on no profile was refused already.
func (r *resolver) sysctlsOn(p *kernel.Profile, sysctls []*scenario.Sysctl) {
	n := len(r.errs)
	for _, s := range sysctls {
		if k, ok := sock.LookupSysctl(s.Key.Name); ok && !k.On(p) {
			r.fail(s.Key.Pos, s.Key.Name, "profile %s (Linux %s) has no sysctl %s: it is new in %s (its /proc/sys file does not exist, ENOENT)",
				p.Name, p.Kernel, s.Key.Name, k.Since)
		}
	}
	if len(r.errs) > n {
		slices.SortStableFunc(r.errs, func(a, b *scenario.Error) int {
			return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
		})
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

// expectKeys are the state an expect statement can check.
var expectKeys = []string{"zckey", "zerocopy", "optmem", "wmem", "wmem_queued", "rmem",
	"errqueue", "locked_vm", "sndbuf", "rcvbuf", "refcnt", "state", "unsent", "unacked", "queued", "notified",
	"pending", "pending0", "pending1", "pending2", "pending3", "mapped", "rehooks", "hooked",
	"mapped_pages", "recv_skip_hint", "inq", "copybuf_len", "msg_controllen", "msg_flags", "cmsgs"}

// Bounds on the sizes a scenario may ask for: what the kernel itself
// accepts or what a simulation can afford.
const (
	// maxIovLen is SSIZE_MAX: copy_iovec_from_user refuses a longer
	// iov_len (EINVAL). A send's or read's one buffer may be any size_t
	// (callLen).
	maxIovLen = math.MaxInt64
	maxIovecs = kernel.UioMaxiov
	minMTU    = 1280      // IPV6_MIN_MTU, so that both families fit
	maxMTU    = 65536     // the loopback MTU
	maxID     = 1<<32 - 1 // sk_zckey is 32 bits
	maxBuf    = 1<<31 - 1 // INT_MAX, for buffer sizes and limits
)

// client checks a socket's to=: a TCP socket of the same family
// defined before, through whose device the socket goes (no via=), and
// records the socket's family if it is TCP.
func (r *resolver) client(s *scenario.Socket) {
	family, typ, proto := s.Args()
	tcp := typ.Base() == kernel.SOCK_STREAM && (family == kernel.AF_INET || family == kernel.AF_INET6) &&
		(proto == kernel.IPPROTO_IP || proto == kernel.IPPROTO_TCP)
	if tcp {
		r.streams[s.Name.Name] = family
	}
	o, ok := s.Options.Lookup("to")
	if !ok {
		return
	}
	lf, listener := r.streams[o.Value.Text]
	_, mapped := s.Options.Lookup("mapped")
	_, via := s.Options.Lookup("via")
	switch {
	case !tcp || mapped:
		r.fail(o.Pos, o.Key, "to= needs a TCP socket of AF_INET or AF_INET6, not mapped: it connects to a listener of this host")
	case !listener:
		r.fail(o.Value.Pos, o.Value.Text, "to= names no TCP socket defined before")
	case lf != family:
		r.fail(o.Value.Pos, o.Value.Text, "to= names a socket of another family")
	case via:
		r.fail(o.Pos, o.Key, "to= and via= together: the socket goes through its listener's device")
	}
}

// option checks that the value of option key, if given, names a defined
// what.
func (r *resolver) option(os scenario.Options, key string, set names, what string) {
	if o, ok := os.Lookup(key); ok {
		if _, defined := set[o.Value.Text]; !defined {
			r.fail(o.Value.Pos, o.Value.Text, "undefined %s", what)
		}
	}
}

// signed reports a value that is no C int.
func (r *resolver) signed(v scenario.Value, what string) {
	if v.Kind != scenario.ValueNone && (v.Int() < math.MinInt32 || v.Int() > math.MaxInt32) {
		r.fail(v.Pos, v.Text, "%s must be between %d and %d", what, math.MinInt32, math.MaxInt32)
	}
}

// optlen checks a setsockopt or getsockopt optlen.
func (r *resolver) optlen(os scenario.Options) {
	if o, ok := os.Lookup("optlen"); ok {
		r.signed(o.Value, "optlen")
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
	case *scenario.Sendmsg:
		r.iovec(s.Iov, s.Pos())
		r.cmsgs(s.Cmsgs)
		r.zcInfo(s.Options)
	case *scenario.Sendmmsg:
		for _, m := range s.Msgs {
			r.iovec(m, s.Pos())
		}
	case *scenario.Recvmsg:
		if c, ok := s.Options.Lookup("control"); ok {
			r.bound(c.Value, "a control buffer's length", 0, maxBuf)
		}
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
		if o, ok := s.Options.Lookup("ihl"); ok {
			r.bound(o.Value, "ihl", 0, 15)
		}
		if o, ok := s.Options.Lookup("mapped"); ok {
			if f, typ, _ := s.Args(); f != kernel.AF_INET6 || typ.Base() != kernel.SOCK_STREAM && typ.Base() != kernel.SOCK_DGRAM {
				r.fail(o.Pos, o.Key, "mapped needs an AF_INET6 TCP or UDP socket: its peer has a v4-mapped address")
			}
		}
	case *scenario.Sysctl:
		k, _ := sock.LookupSysctl(s.Key.Name)
		if k.Named {
			if v := s.Values; len(v) == 1 && !kernel.KnownCongestion(v[0].Text) {
				r.fail(v[0].Pos, v[0].Text, "the kernel has no congestion control %s (ENOENT): the model knows reno, cubic and bbr", v[0].Text)
			}
			break
		}
		most := k.Most
		if most == 0 {
			most = maxBuf
		}
		for _, v := range s.Values {
			r.bound(v, s.Key.Name+"'s value", k.Least, most)
		}
	case *scenario.Setsockopt:
		r.signed(s.Value, "an option value")
		r.optlen(s.Options)
		for _, v := range s.Req {
			r.bound(v, "a tpacket_req field", 0, maxBuf)
		}
	case *scenario.Getsockopt:
		r.optlen(s.Options)
	case *scenario.Txframe:
		r.bound(s.Frame, "a frame index", 0, maxBuf)
		r.bound(s.Len, "a frame length", 0, maxBuf)
	case *scenario.Txstatus:
		r.bound(s.Frame, "a frame index", 0, maxBuf)
	case *scenario.Txskew:
		r.bound(s.Frames, "a frame count", 0, maxID)
		r.bound(s.CPU, "a cpu", 0, packet.NrCPUs-1)
	case *scenario.Migrate:
		r.bound(s.CPU, "a cpu", 0, packet.NrCPUs-1)
	case *scenario.Listen:
		if o, ok := s.Options.Lookup("backlog"); ok {
			r.signed(o.Value, "backlog")
		}
	case *scenario.Bind:
		if o, ok := s.Options.Lookup("proto"); ok {
			r.bound(o.Value, "a protocol", 0, 0xffff)
		}
	}
	r.cpuOption(st)
}

// cpuOption checks the cpu option of a task or a device.
func (r *resolver) cpuOption(st scenario.Stmt) {
	var os scenario.Options
	switch s := st.(type) {
	case *scenario.Task:
		os = s.Options
	case *scenario.Device:
		os = s.Options
	}
	if o, ok := os.Lookup("cpu"); ok {
		r.bound(o.Value, "cpu", 0, packet.NrCPUs-1)
	}
}

// cmsgs checks a sendmsg's control messages: the model knows what they
// do (sock.Modelled), a level and type are 32-bit, a length is at most
// INT_MAX and the value fits in it (all 8 bytes of it from 8 on).
func (r *resolver) cmsgs(ms []scenario.Cmsg) {
	for _, m := range ms {
		t := m.CmsgType()
		for _, id := range []scenario.Ident{m.Level, m.Type} {
			if n, err := strconv.ParseUint(id.Name, 0, 64); err == nil && n > math.MaxInt32 {
				r.fail(id.Pos, id.Name, "a control message's level and type are ints, at most %d", math.MaxInt32)
			}
		}
		if !sock.Modelled(t) {
			r.fail(m.Type.Pos, m.Type.Name, "the model does not know what this control message does (SOL_IP and SOL_IPV6 types, SCM_DEVMEM_DMABUF, SCM_TS_OPT_ID)")
		}
		r.bound(m.Len, "a control message's length", 0, maxBuf)
		if n := m.DataLen(); n < 8 && m.Data()>>(8*n) != 0 {
			r.fail(m.Pos, m.Type.Name, "the value %d does not fit in %d bytes of data", m.Data(), n)
		}
	}
}

// zcInfo checks a sendmsg's SCM_ZC_NOTIFICATION: a 32-bit size, and a
// data length only beside it, at most INT_MAX (msg_controllen).
func (r *resolver) zcInfo(os scenario.Options) {
	size, hasSize := os.Lookup("zc_info")
	r.bound(size.Value, "zc_info", 0, maxID)
	if l, ok := os.Lookup("zc_len"); ok {
		r.bound(l.Value, "zc_len", 0, maxBuf)
		if !hasSize {
			r.fail(l.Pos, l.Key, "zc_len is the length of an SCM_ZC_NOTIFICATION: give zc_info too")
		}
	}
}

// iterate checks the expressions of a repeat's body, nested repeats
// included, at every iteration that can give them a value of their own:
// each iteration of a repeat whose variable the body uses, the first of
// any other. vars and loops are the iterations and repeats around it. It
// stops at the first iteration with an error, since the later ones would
// mostly repeat it, and reports whether it found none.
func (r *resolver) iterate(rep *scenario.Repeat, vars []int64, loops []*scenario.Repeat) bool {
	d := len(vars)
	vars, loops = append(vars, 0), append(loops, rep)
	uses, ok := r.usesVar[rep]
	if !ok {
		uses = rep.UsesVar(d)
		r.usesVar[rep] = uses
	}
	n := rep.Count.N
	if !uses {
		n = min(n, 1)
	}
	for k := uint64(0); k < n; k++ {
		vars[d] = int64(k)
		label := ""
		for _, st := range rep.Body {
			switch {
			case isRepeat(st):
				if !r.iterate(st.(*scenario.Repeat), vars, loops) {
					return false
				}
			case scenario.HasExpr(st):
				if l := iterLabel(loops, vars); l != "" && label == "" {
					label = " in iteration " + l
				}
				if !r.evalSizes(st, vars, label) {
					return false
				}
			}
		}
	}
	return true
}

func isRepeat(st scenario.Stmt) bool {
	_, ok := st.(*scenario.Repeat)
	return ok
}

// iterLabel names an iteration by the named loop variables, "[i=41 j=3]",
// or "" when no repeat around it names one.
func iterLabel(loops []*scenario.Repeat, vars []int64) string {
	if !slices.ContainsFunc(loops, func(l *scenario.Repeat) bool { return l.Var.Name != "" }) {
		return ""
	}
	b := []byte{'['}
	for d, l := range loops {
		if l.Var.Name == "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ' ')
		}
		b = append(b, l.Var.Name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, vars[d], 10)
	}
	return string(append(b, ']'))
}

// evalSizes evaluates a statement's expressions at the iteration vars and
// checks the sizes they come to as sizes checks literals; label, appended
// to each error, names the iteration. It reports whether all is well.
func (r *resolver) evalSizes(st scenario.Stmt, vars []int64, label string) bool {
	before := len(r.errs)
	inst, err := scenario.Instantiate(st, vars)
	if e, ok := err.(*scenario.Error); ok {
		r.fail(e.Pos, e.Near, "%s", e.Msg)
	} else {
		r.sizes(inst)
	}
	for _, e := range r.errs[before:] {
		e.Msg += label
	}
	return len(r.errs) == before
}

// iovec checks an iovec array: at most UIO_MAXIOV entries, each at most
// MAX_RW_COUNT bytes. A larger total is the kernel's to cut:
// __import_iovec clamps it to MAX_RW_COUNT (sim.World.Send does).
func (r *resolver) iovec(iov []scenario.Value, pos scenario.Pos) {
	if len(iov) > maxIovecs {
		r.fail(pos, "", "at most %d iovecs (UIO_MAXIOV)", maxIovecs)
	}
	for _, v := range iov {
		r.bound(v, "an iovec's length", 0, maxIovLen)
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
	case *scenario.Repeat:
		r.started = true
		r.depth++
		for _, b := range s.Body {
			r.stmt(b, bugs)
		}
		r.depth--
		if r.depth == 0 {
			r.iterate(s, nil, nil)
		}
		return
	}
	r.started = true
	r.packetStmt(st)
	switch {
	case !scenario.HasExpr(st):
		r.sizes(st)
	case r.depth == 0:
		r.evalSizes(st, nil, "")
	}
	switch s := st.(type) {
	case *scenario.Sysctl:
		k, ok := sock.LookupSysctl(s.Key.Name)
		switch {
		case !ok:
			r.fail(s.Key.Pos, s.Key.Name, "unknown sysctl (known: %s)", strings.Join(sock.SysctlNames(false), ", "))
		case len(s.Values) != k.Values:
			r.fail(s.Key.Pos, s.Key.Name, "%s takes %d value(s)", s.Key.Name, k.Values)
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
		r.client(s)
		r.defineSocket(s.Name)
	case *scenario.Accept:
		r.sock(s.Sock)
		r.defineSocket(s.New)
	case *scenario.Setrlimit:
		r.need(r.tasks, "task", s.Task)
	case *scenario.Migrate:
		r.need(r.tasks, "task", s.Task)
	case *scenario.Bind:
		r.option(s.Options, "dev", r.devices, "device")
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
	case *scenario.EpollCreate:
		r.define(r.epolls, "epoll", s.Name)
	case *scenario.EpollCtl:
		r.need(r.epolls, "epoll", s.Epoll)
		r.sock(s.Sock)
	case *scenario.EpollWait:
		r.need(r.epolls, "epoll", s.Epoll)
		r.signed(s.Max, "maxevents")
	case *scenario.Close:
		if _, ok := r.epolls[s.Sock.Name]; !ok || s.Sock.Peer {
			r.sock(s.Sock)
		}
	case *scenario.Expect:
		r.sock(s.Sock)
		for _, c := range s.Checks {
			if !slices.Contains(expectKeys, c.Key) {
				r.fail(c.Pos, c.Key, "unknown state key (known: %s)", strings.Join(expectKeys, ", "))
			}
		}
	default:
		if sk, ok := scenario.SockOf(st); ok {
			r.sock(sk)
		}
	}
}
