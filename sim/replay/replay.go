package replay

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// SchemaVersion is the version of the JSON Lines report. It changes when a
// field changes meaning or disappears. Version 2 replaced a call's "agree"
// with "verdict" (agree, diverge, undetermined) and added the summary's
// "undetermined", "unreplayed" and "verdict"; its "ok" now also needs one
// call that agrees. Version 3 added the verdict "agree under an
// assumption", the call's "assumption", the summary's "assumed" and the
// config's "inferred"; its "divergence" records are the first MaxListed.
// Version 4 reports the model's broken invariants: "violation" records
// (the first MaxListed), the summary's "violations", and an "ok" and a
// "verdict" that a violation fails as a divergence does; the config's
// "bugs" lists the historical bugs switched on.
const SchemaVersion = 4

// Options say what machine the traced program is assumed to have run on.
type Options struct {
	// Profile is the kernel profile; empty means kernel.DefaultProfile.
	Profile string
	// Bugs are historical kernel bugs switched on in the profile
	// (kernel.Profile.Switch), besides those it carries: a replay under
	// them reproduces a bug from a log, the broken invariant reported
	// as a Violation. Each must be one of kernel.KnownBugs.
	Bugs []kernel.Bug
	// Seed is the root seed of the model's random streams.
	Seed uint64
	// CapIPCLock gives the traced task CAP_IPC_LOCK (exempt from
	// RLIMIT_MEMLOCK). Without it the task has none, as an ordinary
	// program.
	CapIPCLock bool
	// CapNetAdmin gives the traced task CAP_NET_ADMIN, which
	// SO_SNDBUFFORCE and SO_RCVBUFFORCE need (a program run as root has
	// it). Without it those options fail with EPERM.
	CapNetAdmin bool
	// OptmemMax, if positive, sets net.core.optmem_max; otherwise the
	// profile's default.
	OptmemMax int
	// MTU, if not 0, is the loopback device's MTU (ip link set lo mtu
	// N), which the log does not show: it sets the MSS, so how the
	// kernel cut the stream into segments; otherwise 65536, loopback's
	// default. Between sim.MinMTU and sim.DefaultLoopbackMTU.
	MTU int
	// MaxCallBytes bounds the bytes one replayed call may ask the model
	// to move; 0 means DefaultMaxCallBytes (MAX_RW_COUNT, every call the
	// kernel takes). A larger call is not run: it is reported
	// undetermined, never truncated. A smaller bound keeps the replay of a
	// log of huge blocking transfers short: such a call costs the model
	// the segments it moves.
	MaxCallBytes int
	// Memlock, if not 0, is the traced task's RLIMIT_MEMLOCK at the
	// start, in bytes; otherwise the profile's default, or what the log
	// shows (see Fixed).
	Memlock uint64
	// Fixed lists what the caller fixed: the log's evidence (a limit it
	// reads back, a result only a capability allows) does not change
	// those. The rest is inferred from the log, and Config.Inferred says
	// what, from which line.
	Fixed Fixed
	// Out, if set, receives the report as the replay runs: the Config
	// once the log has been read through and found well formed, each
	// call as it is replayed, the rest at the end. Report.Calls then
	// stays empty, so that memory does not grow with the log.
	Out Writer
	// Progress, if set, is told every 65536 lines how far the replay got
	// (line) of the log's lines; the first pass, which checks the log,
	// reports with lines 0.
	Progress func(line, lines int)
}

// Fixed is a set of settings the caller fixed (Options.Fixed).
type Fixed uint8

// The settings the log's evidence may change unless fixed.
const (
	FixCapIPCLock Fixed = 1 << iota
	FixCapNetAdmin
	FixMemlock
)

// fdEntry is what the replay knows of one open file descriptor.
type fdEntry struct {
	fd int
	// s is the model socket; nil for an fd the model does not follow.
	s *sim.Socket
	// ep is, for an epoll instance's descriptor, the instance.
	ep *epollSet
	// family of the socket.
	family kernel.Family
	// local and remote are addresses learnt from bind, getsockname,
	// connect, sendto and accept; the zero value when unknown.
	local, remote netip.AddrPort
	// feed is, for a datagram socket another traced socket sends to, the
	// model socket those datagrams land on (the sender's implicit peer).
	feed *sim.Socket
	// errq is the replay's view of the socket's error queue.
	errq errView
	// held lists the uargs whose ids the program has not read yet.
	held heldUargs
	// unacked lists what the TCP sends the log has not shown
	// acknowledged yet charged to the send buffer.
	unacked unackedSends
	// dgrams counts the datagrams the model sent on the socket.
	dgrams int
	// out is the stream a traced TCP client sends to a traced listener's
	// child; in, on that child, the same stream read.
	out, in *stream
	// refs counts the descriptors, in every process, that refer to this
	// open file (dup, fork); the model socket closes with the last.
	refs int
	// mptcpChild marks the child an MPTCP listener accepted from a
	// client the log does not show to be plain TCP, and mptcpPeer a TCP
	// socket whose far end is an MPTCP socket: the model does not follow
	// what arrives there (mptcp.go).
	mptcpChild, mptcpPeer bool
}

// inet reports whether the socket has the model's full data path.
func (e *fdEntry) inet() bool {
	return e.family == kernel.AF_INET || e.family == kernel.AF_INET6
}

// replayer maps decoded strace ops onto one World.
type replayer struct {
	w    *sim.World
	task *sim.Task
	dev  *sim.Device
	file string
	// raw is the parsed call being replayed, for the arguments the
	// decoder does not keep (getsockname's address, an unfinished call's
	// fd).
	raw *strace.Call
	// fds is the descriptor table of the current call's process; tables
	// holds every process's, first the one pids of unknown origin share.
	fds    map[int]*fdEntry
	cur    *fdTable
	tables map[int]*fdTable
	first  *fdTable
	names  map[int]int // how many sockets each fd number has named
	// pending lists traced TCP clients connected but not yet accepted.
	pending []*fdEntry
	// mptcpListeners lists the traced MPTCP sockets that listen.
	mptcpListeners []*fdEntry
	// sleeping holds, per pid, the send started at its unfinished line
	// and not yet resumed (startSend).
	sleeping map[int]*sleeping
	// cuts are the split sends that returned less than their buffers
	// (survey.cuts); pastSplit is set when the survey kept only the
	// first maxSplit.
	cuts      map[int]int
	pastSplit bool
	// whole are the split sends that returned their whole buffers
	// (survey.whole).
	whole map[int]bool
	// waits are the other split calls, by first line, not yet begun
	// (survey.waits); waiters those begun and not yet resumed, in the
	// order they began (startWait); waking is set while wake runs one.
	waits   map[int]strace.Op
	waiters []*waiting
	waking  bool
	// clock: the absolute log time of the last call, when the log has
	// timestamps.
	timed    bool
	now      int64 // the current call's time
	haveNow  bool
	last     int64 // the last modelled call's time
	haveLast bool
	// ahead is how far the model's clock ran ahead of the log's to
	// explain an observation (runAhead), or inside a call that blocked
	// (a send sleeping in sk_stream_wait_memory runs the network until
	// it returns; the log's next gap, counted from the call's start,
	// holds that time again); the next gaps are that much shorter.
	ahead engine.Duration
	// v6Lines are the first IPv6 error-queue reads compared on their
	// return value only (at most 8), v6Reads how many there were.
	v6Lines []int
	v6Reads int
	// layoutLines are the first zerocopy sends of several iovecs the
	// model laid back to back (at most 8, backToBack), layoutSends how
	// many there were.
	layoutLines []int
	layoutSends int
	rep         *Report
	ignored     map[string]int
	ignOrder    []string
	maxBytes    int
	// listeners are the traced TCP sockets listen succeeded on, in
	// order; dgrams indexes the traced datagram sockets by the local port
	// the log showed.
	listeners []*fdEntry
	dgrams    map[uint16][]*fdEntry
	// unknownFds counts, per descriptor the log never created, the calls
	// made on it.
	unknownFds map[int]int
	// sendTexts remembers the last send's text, recvTexts the last data
	// read's and the last error-queue read's: a program's loop reads
	// both in turn.
	sendTexts textMemo
	recvTexts [2]textMemo
	// events keeps the text of the model's last call event, for a
	// divergence's reason; the World's trace goes to it, not to memory.
	events lastEvent
	// out, if set, receives each call as it is replayed (Options.Out).
	out Writer
	err error
	// progress, if set, hears how far the replay got (Options.Progress);
	// lines is the log's length.
	progress func(line, lines int)
	lines    int
}

func newReplayer(file string, p *kernel.Profile, sv *survey, opts Options) *replayer {
	w := sim.New(p, opts.Seed)
	if opts.OptmemMax > 0 {
		w.Net.OptmemMax = opts.OptmemMax
	}
	main := w.Task("main")
	memlock := main.Memlock
	if opts.Memlock != 0 {
		memlock = opts.Memlock
	}
	cfg := Config{Schema: SchemaVersion, File: file, Profile: p.Name, Seed: opts.Seed,
		CapIPCLock: opts.CapIPCLock, CapNetAdmin: opts.CapNetAdmin, OptmemMax: w.Net.OptmemMax, Memlock: memlock,
		Path: "loopback", Timestamps: sv.timestamps}
	for _, b := range p.Bugs.Sorted() {
		cfg.Bugs = append(cfg.Bugs, string(b))
	}
	sv.apply(&cfg, opts.Fixed)
	task := w.AddTask("main", main.User, cfg.Memlock, cfg.CapIPCLock)
	task.CapNetAdmin = cfg.CapNetAdmin
	dev := sim.DefaultDevice("lo", sim.Loopback)
	if opts.MTU != 0 {
		dev.MTU = opts.MTU
	}
	cfg.MTU = dev.MTU
	w.AddDevice(dev)
	r := &replayer{w: w, task: task, dev: dev, file: file, tables: map[int]*fdTable{}, names: map[int]int{}, sleeping: map[int]*sleeping{},
		ignored: map[string]int{}, maxBytes: opts.MaxCallBytes, dgrams: map[uint16][]*fdEntry{}, unknownFds: map[int]int{},
		out: opts.Out, progress: opts.Progress, lines: sv.lines}
	r.rep = &Report{Config: cfg, listed: map[Verdict][]Call{}}
	r.cuts, r.whole, r.waits, r.pastSplit = sv.cuts, sv.whole, sv.waits, sv.past > 0
	if n := sv.pastSplit(); n != "" {
		r.note(n)
	}
	r.timed = cfg.Timestamps != "none"
	r.events.found = r.violation
	w.Trace().Sink = &r.events
	return r
}

// violation reports a broken invariant, listing the first MaxListed.
func (r *replayer) violation(v Violation) {
	r.rep.Summary.Violations++
	if len(r.rep.violations) < MaxListed {
		r.rep.violations = append(r.rep.violations, v)
	}
}

// ignore lists a call the replay does not model.
func (r *replayer) ignore(name, reason string) {
	key := name
	if reason != "" {
		key += " (" + reason + ")"
	}
	if r.ignored[key] == 0 {
		r.ignOrder = append(r.ignOrder, key)
	}
	r.ignored[key]++
}

// between lets the network run between two traced calls: it settles,
// unless the log has timestamps; then virtual time advances by the real
// gap, and the network runs only that far.
func (r *replayer) between(h *strace.Header) {
	now, ok := r.now, r.haveNow
	if !r.timed || !ok {
		if err := r.w.Settle(); err != nil {
			r.note(fmt.Sprintf("line %d: the network did not settle: %v", line(h), err))
		}
		return
	}
	gap := int64(0)
	if r.haveLast {
		gap = now - r.last
	}
	if h.Time.Kind == strace.TimeOfDay && gap < -12*3600*1e9 {
		gap += 24 * 3600 * 1e9 // past midnight
	}
	if gap < 0 {
		gap = 0 // calls are listed in completion order
	}
	r.last, r.haveLast = now, true
	d := engine.Duration(gap)
	if r.ahead > 0 {
		used := min(d, r.ahead)
		d, r.ahead = d-used, r.ahead-used
	}
	if err := r.w.Advance(d); err != nil {
		r.note(fmt.Sprintf("line %d: the network did not settle: %v", line(h), err))
	}
}

// clock reads the time of every call in the log, modelled or not: a call
// strace split is at its resumed line, where it returned; a -r time is
// the sum of the times of the lines before (strace.Time.At).
func (r *replayer) clock(h *strace.Header) {
	if r.waking {
		return // a call woken from its first line runs at the model's time
	}
	if h.Time.Kind == strace.TimeNone {
		r.haveNow = false
		return
	}
	r.now, r.haveNow = h.Time.At(), true
	if h.End.Kind == h.Time.Kind {
		r.now = h.End.At()
	}
}

func (r *replayer) note(s string) { r.rep.Notes = append(r.rep.Notes, s) }

// lastLine is the line a call completed on.
func lastLine(h *strace.Header) int {
	if len(h.Lines) == 0 {
		return 0
	}
	return h.Lines[len(h.Lines)-1]
}

func line(h *strace.Header) int {
	if len(h.Lines) == 0 {
		return 0
	}
	return h.Lines[0]
}

// call is the sim.Call of an op, which the model runs next.
func (r *replayer) call(h *strace.Header, text string) sim.Call {
	r.events.callPid = h.Pid
	var buf [64]byte
	b := strconv.AppendInt(append(append(buf[:0], r.file...), ':'), int64(line(h)), 10)
	return sim.Call{Source: string(b), Text: text}
}

// endSweep runs, once the log is replayed (up to a cut last line too),
// the World's check at quiescence (sim.World.CheckQuiescent: a full
// sweep of every live object, with the rules that hold only when
// nothing is in flight: leaks, conserved wmem and rmem charges, every id
// notified), as the end of a scenario does. No call is in progress in
// the model then: the log's end ends every call it left unfinished (the
// scanner yields each without a result, and a send asleep in the model
// is interrupted there), and a waiting call the model had not begun
// never will. The kernel's network goes on after the log ends, so the
// model's settles first; the sweep runs only if it settles with virtual
// time left, and a note says when it does not.
func (r *replayer) endSweep() {
	if err := r.w.Settle(); err != nil {
		r.note(fmt.Sprintf("after the last line the network did not settle (%v): the end-of-log invariant sweep did not run", err))
		return
	}
	if r.w.OutOfTime() {
		r.note("virtual time ran out: the end-of-log invariant sweep did not run")
		return
	}
	r.events.op, r.events.socket, r.events.source, r.events.pid = EndOfLog, "", "", 0
	r.w.CheckQuiescent()
}

// finish completes the report.
func (r *replayer) finish() {
	if r.err == nil {
		r.endSweep()
	}
	for _, k := range r.ignOrder {
		r.rep.Ignored = append(r.rep.Ignored, strace.IgnoredCount{Name: k, Count: r.ignored[k]})
	}
	if r.v6Reads > 0 {
		r.note(fmt.Sprintf("%d IPv6 error-queue reads (lines %s) were compared on the return value only: strace 6.1 prints no cmsg data for IPV6_RECVERR",
			r.v6Reads, lineList(r.v6Lines, r.v6Reads)))
	}
	if r.layoutSends > 0 {
		r.note(fmt.Sprintf("%d zerocopy sends of several iovecs (lines %s) were replayed with their iovecs back to back in user memory, which strace does not show: their frags and pinned pages, and what the later calls on those sockets found, rest on that layout",
			r.layoutSends, lineList(r.layoutLines, r.layoutSends)))
	}
	s := &r.rep.Summary
	if len(r.unknownFds) > 0 {
		fds := make([]int, 0, len(r.unknownFds))
		for fd, n := range r.unknownFds {
			fds = append(fds, fd)
			s.Unreplayed += n
		}
		slices.Sort(fds)
		r.note(fmt.Sprintf("%d calls on %d descriptors the log never created (fd %s) could not be replayed: the capture started after their socket() or accept(), or they came from a call the replay does not follow (dup, fork, SCM_RIGHTS)",
			s.Unreplayed, len(fds), lineList(fds, len(fds))))
	}
	s.Calls = s.Agree + s.Assumed + s.Diverge + s.Undetermined
	for _, ig := range r.rep.Ignored {
		s.Ignored += ig.Count
	}
	s.OK = s.Diverge == 0 && s.Violations == 0 && s.Agree+s.Assumed > 0
	switch {
	case s.Diverge > 0 && s.Violations > 0:
		s.Verdict = fmt.Sprintf("%d diverge, %s", s.Diverge, violationCount(s.Violations))
	case s.Violations > 0:
		s.Verdict = violationCount(s.Violations)
	case s.Diverge > 0:
		s.Verdict = fmt.Sprintf("%d diverge", s.Diverge)
	case s.Agree+s.Assumed == 0:
		s.Verdict = "nothing checked"
	case s.Assumed > 0 || s.Undetermined > 0:
		s.Verdict = fmt.Sprintf("agree, %d under an assumption, %d undetermined", s.Assumed, s.Undetermined)
	default:
		s.Verdict = "all agree"
	}
}

// lineList renders the first numbers of a list of n, "…" for the rest.
func lineList(ls []int, n int) string {
	out := ""
	for i, l := range ls {
		if i == 8 {
			break
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprint(l)
	}
	if n > min(len(ls), 8) {
		out += ", …"
	}
	return out
}

// v6Read counts an IPv6 error-queue read compared on its return value
// only, keeping the first lines for the note.
func (r *replayer) v6Read(l int) {
	r.v6Reads++
	if len(r.v6Lines) < 8 {
		r.v6Lines = append(r.v6Lines, l)
	}
}
