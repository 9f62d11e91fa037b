package sim

import (
	"fmt"
	"math"

	"github.com/zcsim/zcsim/check"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// maxEvents bounds how many network events one step may run: a livelock
// guard, far above what any scenario needs.
const maxEvents = 1_000_000

// World is one simulated machine and its network: the kernel Host, the
// virtual clock and event queue, the PRNG streams and fault sites derived
// from one seed, the users, tasks, devices and sockets a scenario names,
// the invariant checkers, and the trace of everything that happened.
//
// Every step — a system call or a network event — gets the next step
// number; the invariants are checked after each one. Nothing in a World
// depends on map order, goroutines or the wall clock: the same inputs,
// profile and seed give the same trace.
type World struct {
	Host    *kernel.Host
	Net     *sock.Sysctl
	Loop    engine.Loop
	Streams *engine.Streams
	Faults  *engine.Faults
	Monitor *check.Monitor
	// AcksApart processes apart two timestamped pure ACKs whose merge on a
	// backlog is undetermined (backlogCoalesce): the other way the kernel
	// may go, for a caller that predicts both.
	AcksApart bool

	users   []*ubuf.User
	tasks   []*Task
	devices []*Device
	sockets []*Socket
	// raws are the RAW sockets among sockets, which raw_local_deliver
	// offers every datagram of their protocol to (rawSockets).
	raws []*Socket
	// byName and bySk find a socket by its scenario name and by its
	// struct sock.
	byName map[string]*Socket
	bySk   map[*sock.Sock]*Socket
	// fds maps the program's file descriptors to what they name, a
	// *Socket or an *Epoll; nil is free.
	fds []any
	// lowFD is at most the lowest free descriptor.
	lowFD int
	// reported holds the violations already in the trace, so that one
	// that lasts is reported once.
	reported map[string]bool

	trace Trace
	// event is the step being recorded; the trace copies it if it keeps it.
	event Event
	// narration collects what a step did that the timeline should say,
	// such as a notification being queued; reused from step to step.
	narration []line
	// failed is set once a violation was found, so a run can stop early.
	failed bool
	// violations counts the violation records in the trace.
	violations int
	// outOfTime is set when an event fell after the end of virtual time.
	outOfTime bool
	// cpu is the CPU the current step runs on: a system call's task's,
	// a device's for its TX completions, else 0.
	cpu int
	// tapped are the copies packet taps hold until they read them.
	tapped []*skb.Buff
	// backlog is this CPU's receive backlog (softnet_data's
	// input_pkt_queue) and inSoftirq says it is being processed
	// (netifRx).
	backlog   []arrival
	inSoftirq bool
	// lent are the Events lendEvent hands out, one per level of network
	// work running at once (lentN).
	lent  []*Event
	lentN int
	// tfoCache is what the namespace's TCP metrics keep for Fast Open,
	// by destination (nil until the first).
	tfoCache map[tfoDest]tfoMetrics
	// work counts the packets this host handled (Work); workBefore is
	// what it was when the step began.
	work, workBefore Work
	// asleep are the Background sends asleep, woken after each step
	// (wake), waking while they are.
	asleep []*Asleep
	waking bool
	// firing is the wheel timer whose step is running, nil outside one
	// (armSlack).
	firing *timer
	// callStart is when the statement being run began, if its front end
	// said so (BeginCall); callStarted says it did.
	callStart   engine.Time
	callStarted bool
}

// Task is a process: a named ubuf.Task.
type Task struct {
	*ubuf.Task
	// HugePages backs the task's send buffers with 2 MiB compound pages
	// (MAP_HUGETLB), so a TCP skb's frags can hold more than 68 KiB.
	HugePages bool
	// CPU is the CPU the task runs on, below packet.NrCPUs; its system
	// calls run there (Migrate moves it).
	CPU int
}

// New returns an empty world running profile p with the given seed. It has
// one user (uid 1000) and one task, "main", without CAP_IPC_LOCK and with
// the profile's default RLIMIT_MEMLOCK, as an ordinary program runs.
func New(p *kernel.Profile, seed uint64) *World {
	streams := engine.NewStreams(seed)
	w := &World{
		Host:     kernel.NewHost(p),
		Net:      sock.DefaultSysctl(p),
		Streams:  streams,
		Faults:   engine.NewFaults(streams),
		Monitor:  check.NewMonitor(),
		reported: map[string]bool{},
		byName:   map[string]*Socket{},
		bySk:     map[*sock.Sock]*Socket{},
		lowFD:    3,
	}
	w.Host.Faults = w.Faults
	w.Host.Now = func() int64 { return int64(w.Now()) }
	w.Host.KeepLog = true
	w.Host.Trace = func(t *kernel.Tracked, e *kernel.Entry) {
		if e.Op == kernel.OpUargCopied {
			w.narration = append(w.narration, copiedLine(t, kernel.CopyWhy(e.Args[0])))
		}
	}
	w.Monitor.QueueSkbs = w.queueSkbs
	w.Monitor.OwnedPages = w.ownedPages
	w.Monitor.PathSkbs = w.pathSkbs
	w.Monitor.OtherOptmem = func(sk *sock.Sock) int { return sk.KmallocOmem }
	u := w.AddUser(1000)
	w.AddTask("main", u, p.MemlockDefault, false)
	return w
}

// Profile returns the profile the world runs.
func (w *World) Profile() *kernel.Profile { return w.Host.Profile }

// Now returns the virtual time.
func (w *World) Now() engine.Time { return w.Loop.Now() }

// Trace returns the records so far.
func (w *World) Trace() *Trace { return &w.trace }

// Emit appends a record a front end made (its config, a mismatch, its
// summary) to the trace.
func (w *World) Emit(r Record) { w.trace.add(r) }

// Step returns the number of the last step: the address of the event that
// ran last.
func (w *World) Step() uint64 { return w.Host.Step }

// ViolationsReported returns how many violation records the trace holds.
func (w *World) ViolationsReported() int { return w.violations }

// AddUser returns the user with uid, creating it.
func (w *World) AddUser(uid int) *ubuf.User {
	for _, u := range w.users {
		if u.UID == uid {
			return u
		}
	}
	u := &ubuf.User{UID: uid}
	w.users = append(w.users, u)
	return u
}

// AddTask creates (or redefines) a task.
func (w *World) AddTask(name string, u *ubuf.User, memlock uint64, capIPCLock bool) *Task {
	t := &Task{Task: &ubuf.Task{Name: name, User: u, Memlock: memlock, MemlockMax: memlock, CapIPCLock: capIPCLock}}
	for i, have := range w.tasks {
		if have.Name == name {
			w.tasks[i] = t
			return t
		}
	}
	w.tasks = append(w.tasks, t)
	w.Monitor.Tracked(nil, t.Task)
	return t
}

// Task returns the named task, or nil.
func (w *World) Task(name string) *Task {
	return named(w.tasks, name, func(t *Task) string { return t.Name })
}

// Device returns the named device, or nil.
func (w *World) Device(name string) *Device {
	return named(w.devices, name, func(d *Device) string { return d.Name })
}

// Socket returns the named socket ("s", or "s.peer"), or nil.
func (w *World) Socket(name string) *Socket { return w.byName[name] }

// named returns the element of list called name, or nil.
func named[T any](list []*T, name string, nameOf func(*T) string) *T {
	for _, x := range list {
		if nameOf(x) == name {
			return x
		}
	}
	return nil
}

// Sockets returns every socket in creation order.
func (w *World) Sockets() []*Socket { return append([]*Socket(nil), w.sockets...) }

// Failed reports whether a violation has been found.
func (w *World) Failed() bool { return w.failed }

// begin starts a step: the next step number. The Host's is the run's one
// step counter, so histories and violations carry it.
func (w *World) begin() uint64 {
	w.Host.Step++
	w.cpu = 0
	w.workBefore = w.work
	w.Host.ClearLog()
	w.narration = w.narration[:0]
	return w.Host.Step
}

// end finishes a step whose event is e (endEvent).
func (w *World) end(e Event) {
	w.event = e
	w.endEvent()
}

// endEvent finishes a step whose event is in w.event, written there by
// the caller so that its 800 bytes are not copied on the way (endEventAt).
func (w *World) endEvent() { w.endEventAt(&w.event) }

// endEventAt finishes a step whose event is *e: record it with what it
// touched, then run the invariant checkers and record every violation
// they report.
func (w *World) endEventAt(e *Event) {
	e.Step, e.Time = w.Host.Step, int64(w.Now())
	if s := w.byName[e.Socket]; s != nil {
		e.far = s.Far()
	}
	e.work = w.work.since(w.workBefore)
	e.Touched, e.narration = w.Host.Log(), w.narration
	w.trace.add(Record{Event: e})
	w.Host.ClearLog()
	w.narration = w.narration[:0]
	w.checkInvariants(false)
	if len(w.asleep) > 0 && !w.waking {
		w.wake()
	}
}

// checkInvariants runs the checkers and records their findings.
func (w *World) checkInvariants(quiescent bool) {
	for _, v := range w.Monitor.Check(w.Host, quiescent) {
		w.failed = true
		key := fmt.Sprintf("%v|%v|%s", v.Rule, v.Object, v.Message)
		if w.reported[key] {
			continue
		}
		w.reported[key] = true
		w.violations++
		w.trace.add(Record{Violation: violationRecord(v)})
	}
}

// CheckQuiescent runs the checkers that only hold when nothing is in
// flight (leaks, conserved accounting); call it after Settle.
func (w *World) CheckQuiescent() { w.checkInvariants(true) }

// Exit models the program's exit as one step: every socket still open is
// closed, as do_exit's file table teardown closes them.
func (w *World) Exit() {
	var open []*Socket
	for _, s := range w.sockets {
		if !s.Sk.Dead() && !s.Sk.Freed() {
			open = append(open, s)
		}
	}
	w.begin()
	for _, s := range open {
		if s.Sk.Dead() {
			continue // a child its listener's close forgot (listenStop)
		}
		if s.tcp != nil {
			s.lockSock() // tcp_close runs under lock_sock
		}
		w.closeSocket(s)
		w.releaseSock(s)
	}
	w.end(Event{Op: "exit", Text: fmt.Sprintf("exit: the program's %d open sockets are closed", len(open))})
}

// endOfTime is the last instant of virtual time.
const endOfTime = engine.Time(math.MaxInt64)

// after queues a network event d from now: when it runs it is a step of
// its own, recorded and checked like a call. An event that would fall
// after the last instant of virtual time cannot be modelled: it is not
// queued, and the world is out of time (OutOfTime) from then on.
func (w *World) after(d engine.Duration, op, label string, fn func(*Event)) engine.Handle {
	return w.schedule(d, label, func() { w.runEvent(op, fn) })
}

// schedule queues run d from now under label, unless that falls after
// the last instant of virtual time (see after).
func (w *World) schedule(d engine.Duration, label string, run func()) engine.Handle {
	if d > endOfTime.Sub(w.Now()) {
		w.outOfTime = true
		return engine.Handle{}
	}
	h, err := w.Loop.Schedule(w.Now().Add(d), label, run)
	if err != nil {
		panic(fmt.Sprintf("sim: scheduling %s in the past: %v", label, err))
	}
	return h
}

// runEvent runs a network event, fn, as a step of its own called op
// unless fn names it. fn writes the step's event to its argument, zero on
// entry.
func (w *World) runEvent(op string, fn func(*Event)) {
	w.begin()
	e := w.lendEvent()
	w.inBottomHalf(fn, e)
	if e.Op == "" {
		e.Op = op
	}
	w.endEventAt(e)
	w.returnEvent()
}

// OutOfTime reports whether the model had to leave out an event that
// would have fallen after the last instant of virtual time (about 292
// years): from then on its state is not the kernel's, and a front end
// should stop.
func (w *World) OutOfTime() bool { return w.outOfTime }

// Settle runs the network until nothing is left to happen: every packet
// delivered, acknowledged and completed, every timer fired, until the
// network is quiet. It returns an error if that takes more than a
// million events (a livelock).
func (w *World) Settle() error {
	for n := 0; !w.quiet(); n++ {
		if n >= maxEvents {
			next, _ := w.Loop.Peek()
			return &engine.LimitError{Max: maxEvents, Now: w.Now(), Next: next}
		}
		w.Loop.Step()
	}
	w.closeWindows()
	return nil
}

// RunNext runs the next event unless the network is quiet, and reports
// whether it ran one. Every call that sleeps until the network wakes it
// (a blocking send, read, connect, poll) and the replay's run ahead of
// the log run the network through RunNext, so that a wait ends when the
// network can change nothing more: the probes of persisting connections
// are the only events that recur for ever, and quiet leaves them out.
func (w *World) RunNext() bool { return !w.quiet() && w.Loop.Step() }

// quiet reports whether nothing is left to happen but the probe timers
// of connections persisting against a zero window (tcp.Conn.Persisting),
// whose probes would go on for ever, as Linux's do, each answered with
// the same window.
func (w *World) quiet() bool {
	n := w.Loop.Len()
	if n == 0 || n > len(w.sockets) {
		return n == 0 // each persisting connection has one timer pending
	}
	for _, s := range w.sockets {
		if s.tcp != nil && s.tcp.Persisting() {
			n--
		}
	}
	return n <= 0
}

// Advance lets d of virtual time pass, running the events due. It fails,
// running nothing, if that would pass the last instant of virtual time.
func (w *World) Advance(d engine.Duration) error {
	if d > endOfTime.Sub(w.Now()) {
		return fmt.Errorf("waiting %v from %v would pass the end of virtual time", d, w.Now())
	}
	_, err := w.Loop.RunUntil(w.Now().Add(d), maxEvents)
	return err
}
