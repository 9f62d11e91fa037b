package interp

import (
	"fmt"
	"math"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// Options of a scenario run.
type Options struct {
	// Profile, if set, overrides the scenario's profile statement.
	Profile string
	// Seed is the root seed of every PRNG stream.
	Seed uint64
	// Bugs are switched on in addition to the scenario's bug statements.
	Bugs []kernel.Bug
	// Off are switched off after that, even where the profile or a bug
	// statement has them on (linux-4.14 carries B18, kernel.BugTCPLinear).
	Off []kernel.Bug
	// Sink, if set, receives the records as the run makes them, and the
	// returned Trace keeps none (sim.Trace.Sink): a long run streams.
	Sink sim.Sink
	// Family runs the scenario's IPv4 TCP and UDP sockets in another
	// address family (scenario.Retarget).
	Family scenario.Family
	// FullCheck sweeps every live object after every step instead of
	// checking what the step touched (check.Monitor.Full).
	FullCheck bool
	// Net, if set, changes the host's sysctls before the first
	// statement, for a host configured otherwise than the profile's
	// defaults (zcsim probe gives the model the live host's global
	// net.core buffer limits); the scenario's sysctl statements come
	// after it.
	Net func(*sock.Sysctl)
	// AcksApart processes apart the timestamped ACKs whose merge on a
	// backlog is undetermined (sim.World.AcksApart).
	AcksApart bool
}

// Run parses and runs one scenario. Input errors — syntax, an
// undefined name, an invalid value — come back as a scenario.ErrorList
// naming file:line:col, before anything runs. Otherwise the trace holds
// the config record, one event per step, every violation and unmet
// expectation, and a summary.
//
// After the last statement the network settles and the invariants are
// checked at quiescence; then the program "exits": every open socket is
// closed, the network settles again, and nothing but user memory may be
// left.
func Run(file string, src []byte, opts Options) (*sim.Trace, error) {
	sc, err := Load(file, src, opts)
	if err != nil {
		return nil, err
	}
	return sc.Run(), nil
}

// Scenario is a parsed and resolved scenario, ready to run: Load has found
// every input error it has. It keeps the source, not the statements: Run
// parses it again a statement at a time, so that memory does not grow
// with the length of the scenario.
type Scenario struct {
	file    string
	src     []byte
	profile *kernel.Profile
	opts    Options
}

// Load parses and resolves a scenario without running it, so a front end
// can reject a bad file before any output is written. Its errors are
// Run's input errors.
func Load(file string, src []byte, opts Options) (*Scenario, error) {
	r := newResolver()
	known := map[kernel.Bug]bool{}
	for _, b := range kernel.KnownBugs() {
		known[b] = true
	}
	var config []scenario.Stmt // the profile and bug statements setup reads
	var sysctls []*scenario.Sysctl
	rt := scenario.Retarget{To: opts.Family}
	err := scenario.ParseEach(file, src, func(st scenario.Stmt) bool {
		rt.Rewrite(st)
		switch s := st.(type) {
		case *scenario.Profile, *scenario.Bug:
			config = append(config, st)
		case *scenario.Sysctl:
			sysctls = append(sysctls, s)
		}
		r.stmt(st, known)
		return true
	})
	if err != nil {
		return nil, err
	}
	p, err := setup(config, opts)
	if err != nil {
		return nil, err
	}
	r.sysctlsOn(p, sysctls)
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return &Scenario{file: file, src: src, profile: p, opts: opts}, nil
}

// Run runs the scenario on a fresh World and returns its trace; each call
// is a run of its own. The profile is read, never changed.
func (sc *Scenario) Run() *sim.Trace {
	p, opts := sc.profile, sc.opts
	w := sim.New(p, opts.Seed)
	w.Trace().Sink, w.Monitor.Full, w.AcksApart = opts.Sink, opts.FullCheck, opts.AcksApart
	if opts.Net != nil {
		opts.Net(w.Net)
	}
	in := &interp{w: w}
	w.Emit(sim.Record{Config: &sim.Config{Schema: sim.SchemaVersion, File: sc.file, Profile: p.Name, Seed: opts.Seed, Bugs: bugStrings(p.Bugs.Sorted())}})
	w.AddDevice(sim.DefaultDevice(defaultDevice, sim.Loopback))
	// Load parsed src without an error.
	rt := scenario.Retarget{To: opts.Family}
	_ = scenario.ParseEach(sc.file, sc.src, func(st scenario.Stmt) bool {
		rt.Rewrite(st)
		return in.run(st)
	})
	in.finish()
	return w.Trace()
}

// setup picks the profile (the option, the profile statement, or the
// default) and switches on the requested bugs.
func setup(stmts []scenario.Stmt, opts Options) (*kernel.Profile, error) {
	name, pos := kernel.DefaultProfile, scenario.Pos{}
	for _, st := range stmts {
		if s, ok := st.(*scenario.Profile); ok {
			name, pos = s.Name.Name, s.Name.Pos
		}
	}
	if opts.Profile != "" {
		name = opts.Profile
	}
	p, err := kernel.Lookup(name)
	switch {
	case err != nil && opts.Profile != "":
		return nil, fmt.Errorf("--profile: %v", err)
	case err != nil:
		return nil, scenario.ErrorList{{Pos: pos, Msg: err.Error(), Near: name}}
	}
	for _, b := range opts.Bugs {
		p.Switch(b, true)
	}
	for _, st := range stmts {
		if s, ok := st.(*scenario.Bug); ok {
			p.Switch(kernel.Bug(s.Name.Name), true)
		}
	}
	for _, b := range opts.Off {
		p.Switch(b, false)
	}
	return p, nil
}

// interp runs statements on a world and checks their expectations.
type interp struct {
	w          *sim.World
	mismatches int
	named      []namedUser
	// timeRanOut is set once the run stopped at the end of virtual time.
	timeRanOut bool
	// loops are the repeats being run, outermost first, vars their
	// iterations, and label names the iteration, "[i=41]", or is empty
	// where no repeat around names a variable.
	loops []*scenario.Repeat
	vars  []int64
	label string
	// calls holds the calls of repeated statements that read the same
	// every iteration (call).
	calls map[scenario.Stmt]sim.Call
	// epolls are the epoll instances by name.
	epolls map[string]*sim.Epoll
}

// run runs a statement of the file or of a repeat's body, and reports
// whether the run goes on: it stops when virtual time runs out.
func (in *interp) run(st scenario.Stmt) bool {
	if r, ok := st.(*scenario.Repeat); ok {
		return in.repeat(r)
	}
	// Load evaluated every iteration that gives these expressions a value
	// of their own, without an error.
	inst, _ := scenario.Instantiate(st, in.vars)
	in.exec(inst, in.call(st, inst))
	if in.w.OutOfTime() {
		in.outOfTime(in.source(st))
		return false
	}
	return true
}

// repeat runs a repeat's body once an iteration: the body is the one the
// parser made, never a copy per iteration, so memory does not grow with
// the count.
func (in *interp) repeat(r *scenario.Repeat) bool {
	d := len(in.vars)
	in.loops, in.vars = append(in.loops, r), append(in.vars, 0)
	defer func() {
		in.loops, in.vars = in.loops[:d], in.vars[:d]
		in.setLabel()
	}()
	for k := uint64(0); k < r.Count.N; k++ {
		in.vars[d] = int64(k)
		in.setLabel()
		for _, st := range r.Body {
			if !in.run(st) {
				return false
			}
		}
	}
	return true
}

func (in *interp) setLabel() {
	in.label = iterLabel(in.loops, in.vars)
}

// call is the sim.Call of inst, the instance of st this iteration runs.
// A statement of a repeat's body that has nothing to evaluate, run where
// no iteration is in the label, reads the same every time: its call is
// built once.
func (in *interp) call(st, inst scenario.Stmt) sim.Call {
	if in.label != "" {
		return sim.Call{Source: in.source(inst), Text: in.label + " " + scenario.FormatCall(inst)}
	}
	same := len(in.loops) > 0 && inst == st
	if c, ok := in.calls[st]; same && ok {
		return c
	}
	c := sim.Call{Source: in.source(inst), Text: scenario.FormatCall(inst)}
	if same {
		if in.calls == nil {
			in.calls = make(map[scenario.Stmt]sim.Call)
		}
		in.calls[st] = c
	}
	return c
}

// source names where a step comes from: file:line, and inside a repeat
// that names a variable the iteration, "long.zcs:3 [i=41]".
func (in *interp) source(st scenario.Stmt) string {
	if in.label != "" {
		return posString(st.Pos()) + " " + in.label
	}
	return posString(st.Pos())
}

func posString(p scenario.Pos) string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// exec runs one statement as call c.
func (in *interp) exec(st scenario.Stmt, c sim.Call) {
	w := in.w
	w.BeginCall()
	var r sim.Result
	checked := true
	if cl, ok := st.(*scenario.Close); ok && in.epolls[cl.Sock.String()] != nil {
		in.verify(st, w.CloseEpoll(c, in.epolls[cl.Sock.String()]))
		return
	}
	if ss, ok := scenario.SockOf(st); ok && (in.sock(ss) == nil || in.sock(ss).Unmade()) {
		// The socket call that should have made it failed, or it is the
		// peer of a TCP socket not yet connected: as for an fd of -1,
		// every call on it fails with EBADF.
		in.noSocket(c, st, ss)
		return
	}
	switch s := st.(type) {
	case *scenario.Comment, *scenario.Profile, *scenario.Bug:
		return
	case *scenario.Note:
		w.Control(c, "note", "note: "+s.Text, nil)
		return
	case *scenario.Sysctl:
		w.Control(c, "sysctl", c.Text, func() { in.sysctl(s) })
		return
	case *scenario.User:
		w.Control(c, "user", c.Text, func() {
			uid := int(optNum(s.Options, "uid", 0))
			in.named = append(in.named, namedUser{s.Name.Name, uid})
			w.AddUser(uid)
		})
		return
	case *scenario.Task:
		w.Control(c, "task", c.Text, func() { in.task(s) })
		return
	case *scenario.Device:
		w.Control(c, "device", c.Text, func() { w.AddDevice(device(s, w.Profile())) })
		return
	case *scenario.Tap:
		w.Control(c, "tap", c.Text, func() {
			d := w.Device(optText(s.Options, "on"))
			d.Taps = append(d.Taps, sim.Tap{Name: s.Name.Name, Delay: engine.Duration(optNum(s.Options, "delay", 0))})
		})
		return
	case *scenario.Socket:
		r = in.socket(c, s)
	case *scenario.Setsockopt:
		if s.Req != nil {
			r = w.TxRing(c, in.sock(s.Sock), tpacketReq(s.Req))
			break
		}
		opt, val := s.Option()
		if opt == kernel.TCP_CONGESTION {
			r = w.SetsockoptName(c, in.sock(s.Sock), opt, s.Value.Unquoted(), bufOptval(s.Options, len(s.Value.Unquoted())))
			break
		}
		r = w.SetsockoptBuf(c, in.sock(s.Sock), opt, val, optval(s.Options))
	case *scenario.Getsockopt:
		opt, _ := kernel.SockOptNames.ByName(s.Opt.Name)
		if opt == kernel.TCP_ZEROCOPY_RECEIVE {
			r = w.ZerocopyReceive(c, in.sock(s.Sock), in.zcArgs(s))
			break
		}
		if opt == kernel.TCP_CONGESTION {
			r = w.GetsockoptName(c, in.sock(s.Sock), opt, bufOptval(s.Options, tcp.CANameMax))
			break
		}
		if opt == kernel.TCP_INFO {
			r = w.GetsockoptBuf(c, in.sock(s.Sock), opt, bufOptval(s.Options, kernel.TCPInfoSize))
			break
		}
		r = w.GetsockoptBuf(c, in.sock(s.Sock), opt, optval(s.Options))
	case *scenario.Connect:
		r = w.Connect(c, in.sock(s.Sock))
	case *scenario.Listen:
		r = w.Listen(c, in.sock(s.Sock), int32(s.Backlog()))
	case *scenario.Accept:
		_, r = w.Accept(c, in.sock(s.Sock), s.New.Name)
	case *scenario.Bind:
		var dev *sim.Device
		if name := optText(s.Options, "dev"); name != "" {
			dev = w.Device(name)
		}
		r = w.BindPacket(c, in.sock(s.Sock), kernel.Protocol(optNum(s.Options, "proto", 0)), dev)
	case *scenario.Mmap:
		r = w.Mmap(c, in.sock(s.Sock), int(optOr(s.Len, kernel.PageSize)), s.Protection())
	case *scenario.Munmap:
		r = w.Munmap(c, in.sock(s.Sock))
	case *scenario.Txstatus:
		r = w.TxStatus(c, in.sock(s.Sock), int(s.Frame.N))
	case *scenario.Migrate:
		r = w.Migrate(c, w.Task(s.Task.Name), int(s.CPU.N))
	case *scenario.Shutdown:
		r = w.Shutdown(c, in.sock(s.Sock), s.How.Name != "SHUT_WR", s.How.Name != "SHUT_RD")
	case *scenario.Close:
		r = w.Close(c, in.sock(s.Sock))
	case *scenario.Send:
		r = w.Send(c, in.sock(s.Sock), []int{callLen(s.Len)}, s.Flags.MsgFlags())
	case *scenario.Sendto:
		r = w.SendTo(c, in.sock(s.Sock), []int{callLen(s.Len)}, s.Flags.MsgFlags())
	case *scenario.Sendmsg:
		r = w.SendMsg(c, in.sock(s.Sock), scenario.Lengths(s.Iov), s.Flags.MsgFlags(), control(s))
	case *scenario.Sendmmsg:
		msgs := make([][]int, len(s.Msgs))
		for i, m := range s.Msgs {
			msgs[i] = scenario.Lengths(m)
		}
		r = w.Sendmmsg(c, in.sock(s.Sock), msgs, s.Flags.MsgFlags())
	case *scenario.Recvmsg:
		r = w.RecvmsgControl(c, in.sock(s.Sock), 1<<16, s.Flags.MsgFlags(), int(optNum(s.Options, "control", sim.ControlRoom)))
	case *scenario.Recv:
		r = w.Recv(c, in.sock(s.Sock), callLen(s.Len), s.Flags.MsgFlags())
	case *scenario.Poll:
		r = w.Poll(c, in.sock(s.Sock), s.PollEvents(), engine.Duration(s.Timeout.N))
	case *scenario.VhostSend:
		r = w.VhostSend(c, w.Device(s.Device.Name), int(s.Len.N), int(optNum(s.Options, "gso_size", 0)))
	case *scenario.Setrlimit:
		t := w.Task(s.Task.Name)
		hard := t.MemlockMax
		if !s.Max.IsZero() {
			hard = rlimitOf(s.Max)
		}
		r = w.SetrlimitPair(c, t, rlimitOf(s.Limit), hard)
	case *scenario.EpollCreate:
		var ep *sim.Epoll
		ep, r = w.EpollCreate(c, s.Name.Name)
		if in.epolls == nil {
			in.epolls = map[string]*sim.Epoll{}
		}
		in.epolls[s.Name.Name] = ep
	case *scenario.EpollCtl:
		op, _ := kernel.EpollOpNames.ByName(s.Op.Name)
		r = w.EpollCtl(c, in.epolls[s.Epoll.Name], op, in.sock(s.Sock), s.Events.EpollEvents())
	case *scenario.EpollWait:
		timeout := engine.Duration(s.Timeout.N)
		if s.Forever() {
			timeout = -1
		}
		r = w.EpollWait(c, in.epolls[s.Epoll.Name], int(s.Max.Int()), timeout)
	case *scenario.Fcntl:
		r = w.Fcntl(c, in.sock(s.Sock), s.Cmd.Name == "F_SETFL", s.Flags.Has("O_NONBLOCK"))
	case *scenario.Capdrop:
		r = w.SetCapability(c, w.Task(s.Task.Name), s.Cap.Name, false)
	case *scenario.Capset:
		r = w.SetCapability(c, w.Task(s.Task.Name), s.Cap.Name, true)
	default:
		checked = false
		in.network(c, st)
	}
	if checked {
		in.verify(st, r)
	}
}

// verify compares a call's result with the statement's expectation. A
// call that blocks for ever never returns, so that is the one mismatch;
// a result that depends on what the scenario does not state is no
// prediction, so an expectation of it cannot hold either.
func (in *interp) verify(st scenario.Stmt, r sim.Result) {
	want := st.Expectation()
	switch {
	case r.Blocked:
		in.mismatch(st, "the call to return", "it blocks forever: nothing left in the network will wake it")
	case !want.IsZero() && r.Send.Undetermined != "":
		in.mismatch(st, want.String(), "undetermined: "+r.Send.Undetermined)
	case !want.IsZero():
		if !matches(want, r) {
			in.mismatch(st, want.String(), resultText(want, r))
		}
	}
}

// noSocket runs a statement on a socket whose socket(2) failed: a system
// call on its fd of -1 gets EBADF, but poll, which skips a negative fd,
// returns 0; anything else cannot be done.
func (in *interp) noSocket(c sim.Call, st scenario.Stmt, ss scenario.Sock) {
	switch s := st.(type) {
	case *scenario.Hold, *scenario.Release, *scenario.Drop, *scenario.Zckey, *scenario.Expect, *scenario.Txframe, *scenario.Txskew:
		in.w.Control(c, "control", c.Text, nil)
		why := "its socket(2) call failed"
		if ss.Peer {
			why = "no connection has made it yet"
		}
		in.mismatch(st, "socket "+ss.String()+" to exist", why)
		return
	case *scenario.Poll:
		in.verify(st, in.w.Poll(c, nil, s.PollEvents(), engine.Duration(s.Timeout.N)))
		return
	}
	in.verify(st, in.w.FailCall(c, "badf", kernel.EBADF))
}

// network runs the statements that drive time and the network, and the
// state checks.
func (in *interp) network(c sim.Call, st scenario.Stmt) {
	w := in.w
	switch s := st.(type) {
	case *scenario.Wait:
		w.Control(c, "wait", c.Text, nil)
		in.runErr(st, w.Advance(engine.Duration(s.Dur.N)))
	case *scenario.Settle:
		w.Control(c, "settle", c.Text, nil)
		in.runErr(st, w.Settle())
	case *scenario.Hold:
		w.Control(c, "hold", c.Text, func() { in.hold(s.Sock, s.Dir.Name, true) })
	case *scenario.Release:
		w.Control(c, "release", c.Text, func() { in.hold(s.Sock, s.Dir.Name, false) })
	case *scenario.Drop:
		w.Control(c, "drop", c.Text, func() {
			n := 1 // a count left out drops one frame; 0 drops none
			if s.Count.Kind != scenario.ValueNone {
				n = int(s.Count.N)
			}
			sk := in.sock(s.Sock)
			if s.Dir.Name == "data" {
				sk.DropData(n)
			} else {
				sk.DropAcks(n)
			}
		})
	case *scenario.Complete:
		w.Control(c, "complete", c.Text, func() { w.Complete(w.Device(s.Device.Name), int(s.Count.N)) })
	case *scenario.Txerror:
		w.Control(c, "txerror", c.Text, func() { w.TxError(w.Device(s.Device.Name), int(s.Count.N)) })
	case *scenario.Fault:
		rule, _ := engine.ParseRule(s.Rule.Name)
		w.Control(c, "fault", c.Text, func() { w.Faults.Arm(s.Site.Name, rule) })
	case *scenario.Zckey:
		sk := in.sock(s.Sock).Sk
		if n := w.Monitor.Outstanding(sk); n > 0 {
			// Renumbering under ids in flight would hand the same id out
			// twice, which no kernel does.
			w.Control(c, "zckey", c.Text+" (not done)", nil)
			in.mismatch(st, "a socket with no id in flight", fmt.Sprintf("%d ids of %s are not notified yet", n, s.Sock))
			return
		}
		w.Control(c, "zckey", c.Text, func() {
			sk.SetZCKey(uint32(s.Value.N))
			w.Monitor.Renumber(sk)
		})
	case *scenario.Expect:
		w.Control(c, "expect", c.Text, nil)
		in.expect(s)
	case *scenario.Inject:
		in.inject(c, s)
	case *scenario.Packet:
		in.packet(c, s)
	case *scenario.Txframe:
		if !w.TxFrame(c, in.sock(s.Sock), int(s.Frame.N), int(s.Len.N)) {
			in.mismatch(st, "frame "+s.Frame.Text+" of a mapped ring to be the program's", "it is not (no mapped ring, no such frame, or the kernel owns it)")
		}
	case *scenario.Txskew:
		if !w.TxSkew(c, in.sock(s.Sock), uint32(s.Frames.N), int(s.CPU.N)) {
			in.mismatch(st, "a packet socket", s.Sock.String()+" is not one")
		}
	}
}

func (in *interp) runErr(st scenario.Stmt, err error) {
	if err != nil {
		in.mismatch(st, "the network to settle", err.Error())
	}
}

// hold starts or stops holding s's data, or the ACKs s receives.
func (in *interp) hold(ss scenario.Sock, dir string, on bool) {
	s := in.sock(ss)
	switch {
	case dir == "data" && on:
		s.HoldData()
	case dir == "data":
		in.w.ReleaseData(s)
	case on:
		s.HoldAcks()
	default:
		in.w.ReleaseAcks(s)
	}
}

// mismatch records an unmet expectation.
func (in *interp) mismatch(st scenario.Stmt, want, got string) {
	in.mismatchAt(in.source(st), want, got)
}

// mismatchAt records an unmet expectation of the run at source.
func (in *interp) mismatchAt(source, want, got string) {
	in.mismatches++
	in.w.Emit(sim.Record{Mismatch: &sim.Mismatch{Step: in.w.Step(), Source: source, Expected: want, Got: got}})
}

// finish settles the network, checks the invariants at quiescence, then
// closes every open socket as the program's exit does, settles again and
// checks that nothing but user memory is left; then the summary.
func (in *interp) finish() {
	w := in.w
	if !w.OutOfTime() {
		if err := w.Settle(); err != nil {
			in.mismatchAt("end of scenario", "the network to settle", err.Error())
		}
		w.CheckQuiescent()
	}
	if !w.OutOfTime() {
		w.Exit()
		if err := w.Settle(); err == nil && !w.OutOfTime() {
			w.CheckQuiescent()
		}
	}
	if w.OutOfTime() && !in.timeRanOut {
		in.outOfTime("end of scenario")
	}
	in.summary()
}

// outOfTime records that virtual time ran out at source: the model could
// not queue an event, so nothing after it is run or checked at
// quiescence.
func (in *interp) outOfTime(source string) {
	in.timeRanOut = true
	in.mismatchAt(source, "the run to go on", "virtual time ran out: an event would fall after its last instant (t="+
		engine.Time(math.MaxInt64).String()+"); the rest of the run is not modelled")
}

// summary is the last record of the run.
func (in *interp) summary() {
	w := in.w
	violations := w.ViolationsReported()
	w.Emit(sim.Record{Summary: &sim.Summary{Steps: w.Step(), Time: int64(w.Now()), Violations: violations,
		Mismatches: in.mismatches, OK: violations == 0 && in.mismatches == 0}})
}

func (in *interp) sock(s scenario.Sock) *sim.Socket { return in.w.Socket(s.String()) }

func bugStrings(bugs []kernel.Bug) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, string(b))
	}
	return out
}

func bugNames() []string { return bugStrings(kernel.KnownBugs()) }

// callLen is the length of a send's or read's one buffer as the call takes
// it: import_ubuf (import_single_range before 6.3) cuts any size_t to
// MAX_RW_COUNT before the protocol sees it.
func callLen(v scenario.Value) int { return int(min(v.N, kernel.MaxRWCount)) }

// control returns the control buffer of a sendmsg statement.
func control(s *scenario.Sendmsg) sim.Control {
	var ctl sim.Control
	for _, m := range s.Cmsgs {
		ctl.Msgs = append(ctl.Msgs, sock.Cmsg{Type: m.CmsgType(), Len: m.DataLen(), Data: m.Data()})
	}
	if size, n, ok := s.ZcInfo(); ok {
		ctl.Zc = &sim.ZcInfo{Size: size, DataLen: n}
	}
	ctl.IovApart = s.IovApart()
	return ctl
}
