package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/strace"
)

// ReplayFile reads and replays the strace log in file; a file whose name
// ends in ".gz" is decompressed as it is read. The file is read twice,
// line by line: once to check it and learn what it says of the machine,
// once to replay it, so that memory does not grow with its length.
func ReplayFile(file string, opts Options) (*Report, error) {
	return ReplayFiles([]string{file}, opts)
}

// ReplayFiles replays one log, or the files of strace -ff -o PREFIX
// (PREFIX.PID, one per process), merged in time order (strace.Merged):
// each file's calls are its pid's.
func ReplayFiles(files []string, opts Options) (*Report, error) {
	if len(files) == 1 {
		return replay(files[0], false, func() (strace.Source, io.Closer, error) {
			in, err := openLog(files[0])
			if err != nil {
				return nil, nil, err
			}
			return strace.NewScanner(files[0], in), in, nil
		}, opts)
	}
	pids := make([]int, len(files))
	for i, f := range files {
		dot := strings.LastIndexByte(f, '.')
		pid, err := strconv.Atoi(f[dot+1:])
		if dot < 0 || err != nil || pid <= 0 {
			return nil, fmt.Errorf("%s: several logs are the files of strace -ff, named PREFIX.PID", f)
		}
		pids[i] = pid
	}
	return replay(strings.Join(files, " "), true, func() (strace.Source, io.Closer, error) {
		var scs []*strace.Scanner
		var closers multiCloser
		for _, f := range files {
			in, err := openLog(f)
			if err != nil {
				closers.Close()
				return nil, nil, err
			}
			closers = append(closers, in)
			scs = append(scs, strace.NewScanner(f, in))
		}
		return strace.NewMerged(scs, pids), closers, nil
	}, opts)
}

// multiCloser closes several files.
type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Replay parses the strace log src (named file in errors) and replays its
// calls on a fresh sim.World. Input errors — a line strace.Parse or
// strace.Decode rejects, an unknown profile, a negative optmem_max — come
// back as an error before anything runs or is written; parse errors are a
// *strace.ErrorList naming file:line:col. A log whose last line is cut
// mid-way (the traced program or strace was killed) is replayed up to it,
// and a note says where it stopped.
func Replay(file string, src []byte, opts Options) (*Report, error) {
	return replay(file, false, func() (strace.Source, io.Closer, error) {
		return strace.NewScanner(file, bytes.NewReader(src)), io.NopCloser(nil), nil
	}, opts)
}

// openLog opens a log file, gunzipping a ".gz" one.
func openLog(file string) (io.ReadCloser, error) {
	f, err := os.Open(file)
	if err != nil || !strings.HasSuffix(file, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// progressEvery is how many lines pass between two Progress calls.
const progressEvery = 1 << 16

// opener opens a log for one read through it.
type opener func() (strace.Source, io.Closer, error)

func replay(file string, merged bool, open opener, opts Options) (*Report, error) {
	if opts.OptmemMax < 0 {
		return nil, fmt.Errorf("optmem_max %d is negative", opts.OptmemMax)
	}
	if opts.MTU != 0 && (opts.MTU < sim.MinMTU || opts.MTU > sim.DefaultLoopbackMTU) {
		return nil, fmt.Errorf("loopback MTU %d is not between %d and %d", opts.MTU, sim.MinMTU, sim.DefaultLoopbackMTU)
	}
	if opts.MaxCallBytes < 0 {
		return nil, fmt.Errorf("max call bytes %d is negative", opts.MaxCallBytes)
	}
	if opts.MaxCallBytes == 0 {
		opts.MaxCallBytes = DefaultMaxCallBytes
	}
	if opts.Profile == "" {
		opts.Profile = kernel.DefaultProfile
	}
	p, err := kernel.Lookup(opts.Profile)
	if err != nil {
		return nil, err
	}
	for _, b := range opts.Bugs {
		if !slices.Contains(kernel.KnownBugs(), b) {
			return nil, fmt.Errorf("bug %q: not a bug the model can switch on (zcsim bugs lists them)", b)
		}
		p.Switch(b, true)
	}
	sv, err := surveyLog(file, open, opts.Progress)
	if err != nil {
		return nil, err
	}
	r := newReplayer(file, p, sv, opts)
	r.rep.Config.Merged = merged
	if r.out != nil {
		r.err = r.out.Begin(r.rep.Config)
	}
	sc, in, err := open()
	if err != nil {
		return nil, err
	}
	defer in.Close()
	sc.ReportStarts()
	dec := decoders{}
	next := progressEvery
	for r.err == nil && sc.Scan() {
		it := sc.Item()
		r.events.at(itemAt(it))
		if it.Start != nil {
			r.raw = it.Start
			r.startSend(dec.start(it))
			r.startWait(it.Start)
			r.wake()
			continue
		}
		if it.Note != nil {
			if it.Note.Kind == strace.NoteExit || it.Note.Kind == strace.NoteKilled {
				r.exit(*it.Note)
			}
			continue
		}
		r.raw = it.Call
		r.op(dec.op(it))
		r.wake()
		if r.progress != nil && sc.Line() >= next {
			r.progress(sc.Line(), sv.lines)
			next = sc.Line() + progressEvery
		}
	}
	if err := sc.Err(); err != nil && !sv.cut {
		return nil, err // the log changed between the two reads
	}
	if sv.cut {
		r.note(fmt.Sprintf("the log ends in the middle of line %d (%s): the replay stopped after line %d", sv.lines, sv.cutWhy, sv.lines-1))
	}
	r.finish()
	if r.out != nil && r.err == nil {
		r.err = r.out.End(r.rep)
	}
	return r.rep, r.err
}

// itemAt is the line an item was read at, in its file, and its pid: a
// call's last line (a split call's resumed one), a start's, a note's.
func itemAt(it strace.Item) (line, pid int) {
	switch {
	case it.Start != nil:
		return it.Start.Line(), it.Start.Pid
	case it.Note != nil:
		return it.Note.Line, it.Note.Pid
	}
	if n := len(it.Call.Lines); n > 0 {
		return it.Call.Lines[n-1], it.Call.Pid
	}
	return 0, it.Call.Pid
}

// decoders decode each file's calls with a Decoder of their own, so that
// an error names the file of its line. The last file's is at hand: a
// log's calls come from one file, or from a few in runs.
type decoders struct {
	by   map[string]*strace.Decoder
	file string
	last *strace.Decoder
}

// op decodes a call for the replay, which is done with it when its call
// is (Decoder.Lend): the report's Calls copy what they show of it, and
// the split calls the replay keeps past their line are the survey's
// (waits) and Start's (sleeping), never lent ones.
func (d *decoders) op(it strace.Item) strace.Op { return d.of(it.File).Lend(it.Call) }

// peek decodes a call for a look only (Decoder.Peek).
func (d *decoders) peek(it strace.Item) strace.Op { return d.of(it.File).Peek(it.Call) }

// start decodes the first half of an unfinished call (Decoder.Start).
func (d *decoders) start(it strace.Item) strace.Op { return d.of(it.File).Start(it.Start) }

// of returns the Decoder of file's calls.
func (d *decoders) of(file string) *strace.Decoder {
	if d.last != nil && file == d.file {
		return d.last
	}
	dec := d.by[file]
	if dec == nil {
		if d.by == nil {
			d.by = map[string]*strace.Decoder{}
		}
		dec = strace.NewDecoder(file)
		d.by[file] = dec
	}
	d.file, d.last = file, dec
	return dec
}

// err returns the decoders' errors, in the order of the files' names.
func (d *decoders) err() error {
	names := slices.Sorted(maps.Keys(d.by))
	var errs []error
	for _, n := range names {
		if err := d.by[n].Err(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// survey is what a first read of a log found: that it is well formed,
// how long it is, its timestamps, and what it shows of the machine.
type survey struct {
	lines      int
	timestamps string
	// cut is set when the only malformed line is the last one and it
	// has no line end: strace was stopped while writing it.
	cut    bool
	cutWhy string
	// inferred lists the evidence, in log order.
	inferred []inference
	// anyPort holds the descriptors bound to port 0 whose port no
	// getsockname showed yet; ports counts the ports listed.
	anyPort []int
	ports   int
	// cuts holds, by first line, what the sends strace split returned
	// when that was less than their buffers and more than nothing (the
	// first maxSplit): startSend starts them with what they queued.
	cuts map[int]int
	// waits holds, by first line, the other split calls that the replay
	// runs from their first line on (waits; the first maxSplit).
	waits map[int]strace.Op
	// whole holds, by first line, the split sends that returned their
	// whole buffer (the first maxSplit): startSend starts a
	// non-blocking one at its first line.
	whole map[int]bool
	// past counts the split calls of any kind past maxSplit, and
	// pastLine is the first line of the first of them.
	past, pastLine int
}

// maxSplit bounds each kind of split call a survey keeps (the cut sends,
// the waiting calls), so its memory is flat in the log's length (each
// kept call holds its decoded arguments until the replay reaches it);
// later ones run at their resumed lines, and the report says from which
// line on (pastSplit).
const maxSplit = 4096

// fixPort is the kind of an ephemeral port's inference: nothing a caller
// fixes, only listed.
const fixPort Fixed = 1 << 7

// inference is one fact the log shows of the machine.
type inference struct {
	what Fixed
	// on is the capability's presence, or memlock the limit read back.
	on      bool
	memlock uint64
	line    int
	why     string
}

// surveyLog reads the log through, parsing and decoding every line: an
// input error is returned before anything is replayed, unless it is only
// the cut last line.
func surveyLog(file string, open opener, progress func(line, lines int)) (*survey, error) {
	sc, in, err := open()
	if err != nil {
		return nil, err
	}
	defer in.Close()
	sv := &survey{timestamps: "none"}
	dec := decoders{}
	next := progressEvery
	for sc.Scan() {
		it := sc.Item()
		c := it.Call
		if c == nil {
			continue
		}
		if sv.timestamps == "none" {
			sv.timestamps = timestampKind(c.Time.Kind)
		}
		sv.learn(dec.peek(it), c)
		if progress != nil && sc.Line() >= next {
			progress(sc.Line(), 0)
			next = sc.Line() + progressEvery
		}
	}
	sv.lines = sc.Line()
	err = sc.Err()
	if err == nil {
		err = dec.err()
	}
	var list *strace.ErrorList
	if errors.As(err, &list) && list.Dropped == 0 && len(list.Errs) > 0 && sc.Unterminated() {
		last := true
		for _, e := range list.Errs {
			last = last && e.Line == sv.lines
		}
		if last {
			sv.cut, sv.cutWhy = true, list.Errs[0].Msg
			return sv, nil
		}
	}
	return sv, err
}

// timestampKind names a timestamp option.
func timestampKind(k strace.TimeKind) string {
	switch k {
	case strace.TimeOfDay:
		return "time of day (-t/-tt)"
	case strace.TimeEpoch:
		return "epoch (-ttt)"
	case strace.TimeRelative:
		return "relative (-r)"
	}
	return "none"
}

// learn records what a call shows of the machine, the first evidence of
// each kind only:
//
//   - RLIMIT_MEMLOCK read back (prlimit64 with an old limit, getrlimit)
//     before the log sets it: the task's limit at the start;
//   - SO_SNDBUFFORCE or SO_RCVBUFFORCE: success means CAP_NET_ADMIN
//     (sock_setsockopt checks capable(CAP_NET_ADMIN)), EPERM its absence;
//   - geteuid, getuid (or their 32-bit forms) returning 0: root, whose
//     capabilities include CAP_IPC_LOCK and CAP_NET_ADMIN unless it
//     dropped them, which the report says it assumes;
//   - getsockname of a socket that bound port 0 (or none): the port the
//     kernel chose (inet_csk_get_port), which pairs a traced client with
//     its listener; the first maxPorts are listed.
//
// op may be the Op another call of the same text decoded to
// (Decoder.Peek): the lines are c's, and it is kept only as a split
// call, which is never such an Op.
func (sv *survey) learn(op strace.Op, c *strace.Call) {
	h := &strace.Header{Lines: c.Lines}
	if waits(op) && sv.keep(len(sv.waits), h) {
		if sv.waits == nil {
			sv.waits = map[int]strace.Op{}
		}
		sv.waits[line(h)] = op
	}
	switch o := op.(type) {
	case *strace.Send:
		if n, ok := o.Result.Ret(); ok && n > 0 && uint64(n) < o.Len && len(h.Lines) > 1 && sv.keep(len(sv.cuts), h) {
			if sv.cuts == nil {
				sv.cuts = map[int]int{}
			}
			sv.cuts[line(h)] = int(n)
		}
		if n, ok := o.Result.Ret(); ok && n > 0 && uint64(n) == o.Len && len(h.Lines) > 1 && sv.keep(len(sv.whole), h) {
			if sv.whole == nil {
				sv.whole = map[int]bool{}
			}
			sv.whole[line(h)] = true
		}
	case *strace.Bind:
		if o.Addr.Addr.IsValid() && o.Addr.Addr.Port() == 0 {
			sv.anyPort = append(sv.anyPort, o.Fd)
		}
	case *strace.Rlimit:
		if !isMemlock(o.Resource) || o.Pid != 0 || sv.has(FixMemlock) {
			return
		}
		switch {
		case o.Old != nil && o.Result.Kind == strace.ResultValue:
			v := o.Old.Cur.Value
			if o.Old.Cur.Infinity {
				v = kernel.RLIM_INFINITY
			}
			sv.inferred = append(sv.inferred, inference{what: FixMemlock, memlock: v, line: line(h),
				why: fmt.Sprintf("%s read it back", o.Syscall)})
		case o.New != nil:
			// The log sets the limit before reading it: nothing to
			// learn of the start.
			sv.inferred = append(sv.inferred, inference{what: FixMemlock, line: -1})
		}
	case *strace.SockOpt:
		if o.Get || (o.Name != "SO_SNDBUFFORCE" && o.Name != "SO_RCVBUFFORCE") || sv.has(FixCapNetAdmin) {
			return
		}
		switch {
		case o.Result.Kind == strace.ResultValue:
			sv.inferred = append(sv.inferred, inference{what: FixCapNetAdmin, on: true, line: line(h),
				why: o.Name + " succeeded, which needs CAP_NET_ADMIN"})
		case o.Result.Errno == "EPERM":
			sv.inferred = append(sv.inferred, inference{what: FixCapNetAdmin, line: line(h),
				why: o.Name + " failed with EPERM: no CAP_NET_ADMIN"})
		}
	case *strace.Ignored:
		switch o.Name {
		case "getsockname":
			sv.port(o, c)
			return
		case "geteuid", "getuid", "geteuid32", "getuid32":
		default:
			return
		}
		if n, ok := o.Result.Ret(); ok && n == 0 && !sv.has(FixCapIPCLock) {
			sv.inferred = append(sv.inferred, inference{what: FixCapIPCLock, on: true, line: line(h),
				why: o.Name + "() returned 0: root, assumed to keep CAP_IPC_LOCK"})
			if !sv.has(FixCapNetAdmin) {
				sv.inferred = append(sv.inferred, inference{what: FixCapNetAdmin, on: true, line: line(h),
					why: o.Name + "() returned 0: root, assumed to keep CAP_NET_ADMIN"})
			}
		}
	}
}

// keep reports whether the survey keeps a split call of h, having kept
// kept of its kind: the first maxSplit; one past them is counted.
func (sv *survey) keep(kept int, h *strace.Header) bool {
	if kept < maxSplit {
		return true
	}
	if sv.past == 0 {
		sv.pastLine = line(h)
	}
	sv.past++
	return false
}

// pastSplit is the report's note of the split calls past maxSplit, ""
// when there were none.
func (sv *survey) pastSplit() string {
	if sv.past == 0 {
		return ""
	}
	return fmt.Sprintf("%d split calls from line %d on are past the first %d of their kind the replay keeps (maxSplit): they ran at their resumed lines, not from their unfinished ones (a blocking read, accept, poll, epoll_wait or connect ran once the calls between its halves had; a send that returned part of its buffer was started whole, and is undetermined when that shows)",
		sv.past, sv.pastLine, maxSplit)
}

// maxPorts bounds the ephemeral ports a header lists.
const maxPorts = 8

// port lists the port getsockname showed for a socket bound to port 0.
func (sv *survey) port(o *strace.Ignored, c *strace.Call) {
	if o.Result.Kind != strace.ResultValue || len(c.Args) < 2 || sv.ports >= maxPorts {
		return
	}
	fd, ok := c.Args[0].AsInt()
	a, okA := strace.AddrArg(c.Args[1])
	if !ok || !okA || !a.Addr.IsValid() || a.Addr.Port() == 0 || !slices.Contains(sv.anyPort, int(fd)) {
		return
	}
	sv.anyPort = slices.DeleteFunc(sv.anyPort, func(f int) bool { return f == int(fd) })
	sv.ports++
	sv.inferred = append(sv.inferred, inference{what: fixPort, line: c.Line(),
		why: fmt.Sprintf("getsockname: fd %d, bound to port 0, has %v", fd, a.Addr)})
}

// has reports whether the survey already has evidence of kind what.
func (sv *survey) has(what Fixed) bool {
	for _, in := range sv.inferred {
		if in.what == what {
			return true
		}
	}
	return false
}

func isMemlock(resource string) bool {
	return resource == "RLIMIT_MEMLOCK" || resource == "0x8" || resource == "8"
}

// apply sets in cfg what the log showed and the caller did not fix, and
// lists it in cfg.Inferred.
func (sv *survey) apply(cfg *Config, fixed Fixed) {
	for _, in := range sv.inferred {
		if fixed&in.what != 0 || in.line < 0 {
			continue
		}
		var what string
		switch in.what {
		case FixCapIPCLock:
			cfg.CapIPCLock, what = in.on, "CAP_IPC_LOCK"
		case FixCapNetAdmin:
			cfg.CapNetAdmin, what = in.on, "CAP_NET_ADMIN"
		case FixMemlock:
			cfg.Memlock, what = in.memlock, "RLIMIT_MEMLOCK"
		case fixPort:
			what = "ephemeral port"
		}
		cfg.Inferred = append(cfg.Inferred, Inferred{Setting: what, Line: in.line, Why: in.why})
	}
}

// lastEvent is the World's trace sink during a replay: it keeps only the
// last call event, the model's reason for a divergence, worded only when
// a divergence asks for it (text).
//
// It also notes, per connection (a socket and its peer, "fd4" and
// "fd4.peer"), the first step at which the model's receive buffer and
// the kernel's may part (kernel.OpRcvbufUndetermined): the kernel's
// tcp_rcv_space_adjust runs on wall-clock microseconds the log does not
// show.
//
// Every violation the World reports (sim.World checks the invariants
// after each step) goes to found, with the step that broke it: the World
// records a step's event before its violations.
type lastEvent struct {
	ev     sim.Event
	has    bool
	rcvbuf map[string]string
	// op, socket and source are the last step's, whatever it was.
	op, socket, source string
	// line and pid are the log line the replay is reading and its pid
	// (at), the line of a violation a network event made; callPid is
	// the pid of the call the model runs (replayer.call), which a call
	// strace split and the model woke (wake) need not share.
	line, pid, callPid int
	found              func(Violation)
}

// at says which log line the replay reads, and its pid.
func (l *lastEvent) at(line, pid int) { l.line, l.pid, l.callPid = line, pid, pid }

// Put implements sim.Sink.
func (l *lastEvent) Put(rec *sim.Record) error {
	if v := rec.Violation; v != nil {
		l.violation(v)
		return nil
	}
	e := rec.Event
	if e == nil {
		return nil
	}
	l.op, l.socket, l.source = e.Op, e.Socket, e.Source
	for i := range e.Touched {
		t := &e.Touched[i] // not a copy: a step touches many objects
		if t.Entry.Op != kernel.OpRcvbufUndetermined {
			continue
		}
		pair, _, _ := strings.Cut(e.Socket, ".")
		if _, seen := l.rcvbuf[pair]; !seen {
			if l.rcvbuf == nil {
				l.rcvbuf = map[string]string{}
			}
			at := ""
			if l.has {
				at = " after " + l.ev.Source
			}
			l.rcvbuf[pair] = t.Entry.Text() + at
		}
		break
	}
	if e.Source != "" {
		e.CopyTo(&l.ev)
		l.has = true
	}
	return nil
}

// violation hands v to found, with the step that broke it: a call's
// line and pid are its source's ("file:line", replayer.call) and its
// own, a network event's the line being read and its pid.
func (l *lastEvent) violation(v *sim.Violation) {
	line, pid := l.line, l.pid
	if i := strings.LastIndexByte(l.source, ':'); i >= 0 {
		if n, err := strconv.Atoi(l.source[i+1:]); err == nil {
			line, pid = n, l.callPid
		}
	}
	l.found(Violation{Line: line, Pid: pid, Step: v.Step, Op: l.op, Socket: l.socket,
		Rule: v.Rule, Object: v.Object, Message: v.Message, History: slices.Clone(v.History)})
}

// rcvbufUndetermined returns, when the receive buffer of sock's
// connection may differ from the kernel's, the model's note saying why.
func (l *lastEvent) rcvbufUndetermined(sock string) (string, bool) {
	pair, _, _ := strings.Cut(sock, ".")
	why, ok := l.rcvbuf[pair]
	return why, ok
}

// text is the last call event's sentence, "" before the first.
func (l *lastEvent) text() string {
	if !l.has {
		return ""
	}
	l.ev.Render()
	return l.ev.Text
}
