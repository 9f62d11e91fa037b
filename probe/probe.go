package probe

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
)

// How long the live run lets the network run: a settle polls at most
// settleLimit for nothing in flight, a wait sleeps at most waitLimit, and
// a call that would sleep returns after sndTimeo, every socket's
// SO_SNDTIMEO and SO_RCVTIMEO (a connect, send or accept that would wait
// for ever).
const (
	settleLimit = 500 * time.Millisecond
	waitLimit   = 2 * time.Second
	sndTimeo    = time.Second
)

// ChildEnv is the environment variable that makes a re-executed binary
// run as a probe child: it reads a scenario from stdin, runs it on the
// kernel and writes its observations as JSON to stdout (see Child).
const ChildEnv = "ZCSIM_PROBE_CHILD"

// NobodyUID is the unprivileged uid (and gid) scenarios that drop
// CAP_IPC_LOCK or set RLIMIT_MEMLOCK run as.
const NobodyUID = 65534

// ErrNotLinux is Run's, Supported's and Child's error on a system other
// than Linux: the live kernel the probe compares with is Linux.
var ErrNotLinux = errors.New("probe: the live-kernel probe needs Linux (network namespaces and MSG_ZEROCOPY)")

// Options of a probe run.
type Options struct {
	// Profile is the model's profile; empty means linux-6.18.
	Profile string
	// Exe is the binary to re-execute as the unprivileged child; empty
	// means os.Executable(). It must call Child when ChildEnv is set.
	Exe string
	// ChildArgs are the arguments the child is started with (the
	// environment carries ChildEnv as well); zcsim passes its hidden
	// "probe --child".
	ChildArgs []string
	// ChildUID is the uid and gid the unprivileged child runs as; 0 means
	// NobodyUID. RLIMIT_MEMLOCK charges a per-user counter
	// (user_struct.locked_vm), so probes that run at the same time as
	// one uid see each other's pinned pages: a long search gives its
	// children a uid of its own.
	ChildUID uint32
}

// Obs is what the kernel (or the model) answered to one statement.
type Obs struct {
	Line int    `json:"line"`
	Stmt string `json:"stmt"`
	// Result is rendered as the scenario language writes outcomes: "4096",
	// "-1 ENOBUFS", "zerocopy [0,3] copied", a getsockopt's value.
	Result string `json:"result"`
	// Msg is what an error-queue read wrote into its msghdr, by
	// scenario.Field key (msg_flags, cmsg_level, ee_info, ...), for the
	// outcome's field checks.
	Msg map[string]int64 `json:"msg,omitempty"`
	// Cut, if not empty, says which bound of the live run, not the
	// kernel alone, ended the call: its answer is not compared, nor is
	// anything later on its socket. Timeout says the run ended there
	// (Result "timeout"): nothing later is compared.
	Cut     string `json:"cut,omitempty"`
	Timeout bool   `json:"timeout,omitempty"`
}

// Stmt is one compared statement: what the kernel answered, what the
// model predicted, and the scenario's own expectation if it wrote one.
type Stmt struct {
	Line     int    `json:"line"`
	Text     string `json:"text"`
	Kernel   string `json:"kernel"`
	Model    string `json:"model"`
	Expected string `json:"expected,omitempty"`
	Agree    bool   `json:"agree"`
	// MeetsExpectation is false when the kernel's answer contradicts the
	// scenario's "=>" expectation.
	MeetsExpectation bool `json:"meets_expectation"`
	// Assumes, when set, says the model's answer holds under an
	// assumption: that the TCP timers it names, which the model fired
	// before the statement, fired before it on the kernel too
	// (sim.Event.Assumes). Result.Assumptions lists it as well.
	Assumes string `json:"assumes,omitempty"`
}

// Skip is a statement the model ran and the kernel run did not compare.
type Skip struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	// Why says what the live kernel cannot do, or which earlier skipped
	// statement makes this one incomparable.
	Why string `json:"why"`
	// Stops says nothing after this statement is compared.
	Stops bool `json:"stops,omitempty"`
	// Undetermined says the kernel ran it but the model cannot predict
	// its answer: it depends on timing the scenario does not show (a
	// receive buffer's growth, tcp_rcv_space_adjust). Why says which.
	Undetermined bool `json:"undetermined,omitempty"`
}

// Result is the comparison of one scenario.
type Result struct {
	File    string `json:"file"`
	Profile string `json:"profile"`
	// Unprivileged says the kernel run was uid 65534 without capabilities.
	Unprivileged bool `json:"unprivileged"`
	// Stmts are the compared statements, Skipped the others the model
	// acted on, each in file order.
	Stmts   []Stmt `json:"stmts"`
	Skipped []Skip `json:"skipped,omitempty"`
	// Host are the live host's sysctls the model ran with in place of
	// the profile's defaults (HostSysctl).
	Host []HostSysctl `json:"host,omitempty"`
	// Assumptions are what both runs take that the scenario does not
	// show, which their answers depend on (layoutAssumption), and for
	// each statement compared under a timer's assumption (Stmt.Assumes)
	// "line N (statement): " and what it assumes.
	Assumptions []string `json:"assumptions,omitempty"`
	// StoppedAt is the line after which nothing is compared, or 0.
	StoppedAt int `json:"stopped_at,omitempty"`
	// TimedOut is the line of the statement a bound of the live run
	// ended the run at (Obs.Timeout), or 0: its answer and every later
	// one are undetermined, not compared.
	TimedOut int `json:"timed_out,omitempty"`
	Agree    int `json:"agree"`
	Diverge  int `json:"diverge"`
}

// OK reports whether kernel and model agreed on every compared statement
// and the kernel met every expectation it was held to.
func (r *Result) OK() bool {
	for _, s := range r.Stmts {
		if !s.Agree || !s.MeetsExpectation {
			return false
		}
	}
	return true
}

// Run parses the scenario src (named file), plans what the live kernel
// can run, runs that on the host kernel in a private network namespace,
// runs the whole scenario on the model, and compares the two statement by
// statement. What the kernel run leaves out is in Result.Skipped, each
// with its reason. Syntax errors are a scenario.ErrorList; failing to set
// up the namespace or the child is an ordinary error, and on a system
// other than Linux the error is ErrNotLinux.
func Run(file string, src []byte, opts Options) (*Result, error) {
	stmts, err := scenario.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if opts.Profile == "" {
		opts.Profile = kernel.DefaultProfile
	}
	pl := makePlan(stmts, opts.Profile)
	host, err := hostSysctls()
	if err != nil {
		return nil, err
	}
	host = differing(host, opts.Profile)
	model, err := modelRun(file, src, stmts, opts.Profile, pl.off, host)
	if err != nil {
		return nil, err
	}
	kern, err := live(file, src, stmts, pl, opts)
	if err != nil {
		return nil, err
	}
	res := compare(file, opts.Profile, stmts, pl, kern, model)
	res.Host = host
	return res, nil
}

// HostSysctl is a sysctl of the live host that the model runs with in
// place of its profile's default: one a private network namespace shares
// with the host and cannot change (net.core.rmem_max, wmem_max,
// rmem_default and wmem_default are global, read-only in any namespace
// but the first: measured on Linux 6.18), so the kernel's answers
// follow the host's value, which the probe reads and never writes.
type HostSysctl struct {
	Key   string `json:"key"`
	Value int    `json:"value"`
}

// hostKeys are the global sysctls the probe reads (hostSysctls) and the
// model's field for each.
var hostKeys = []struct {
	key   string
	field func(*sock.Sysctl) *int
}{
	{"net.core.rmem_max", func(n *sock.Sysctl) *int { return &n.RmemMax }},
	{"net.core.wmem_max", func(n *sock.Sysctl) *int { return &n.WmemMax }},
	{"net.core.rmem_default", func(n *sock.Sysctl) *int { return &n.RmemDefault }},
	{"net.core.wmem_default", func(n *sock.Sysctl) *int { return &n.WmemDefault }},
}

// differing keeps the host's values that differ from the profile's
// defaults, in hostKeys order: the assumptions the model runs under.
func differing(host []HostSysctl, profile string) []HostSysctl {
	p, err := kernel.Lookup(profile)
	if err != nil {
		return host
	}
	def := sock.DefaultSysctl(p)
	var out []HostSysctl
	for _, h := range host {
		for _, k := range hostKeys {
			if k.key == h.Key && *k.field(def) != h.Value {
				out = append(out, h)
			}
		}
	}
	return out
}

// setHost sets the host's values on the model's sysctls.
func setHost(host []HostSysctl) func(*sock.Sysctl) {
	return func(n *sock.Sysctl) {
		for _, h := range host {
			for _, k := range hostKeys {
				if k.key == h.Key {
					*k.field(n) = h.Value
				}
			}
		}
	}
}

// Plan parses src (named file) and lists what a live run of it under
// the model's profile (empty means linux-6.18) would leave out, as Run
// reports it in Result.Skipped, without running anything. Syntax errors
// are a scenario.ErrorList.
func Plan(file string, src []byte, profile string) ([]Skip, error) {
	stmts, err := scenario.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if profile == "" {
		profile = kernel.DefaultProfile
	}
	return skips(stmts, makePlan(stmts, profile)), nil
}

// skips lists the statements the plan does not compare, in file order.
func skips(stmts []scenario.Stmt, pl plan) []Skip {
	var out []Skip
	for i, st := range stmts {
		if s := pl.steps[i]; s.why != "" {
			out = append(out, Skip{Line: st.Pos().Line, Text: scenario.FormatCall(st), Why: s.why, Stops: s.stops})
		}
	}
	return out
}

// layoutAssumption states where the iovecs of a message with more than
// one lie in user memory, when the scenario has such a message: a
// zerocopy send's frags depend on it (__zerocopy_sg_from_iter), and the
// probe lays them out as the model does (sim.World.Send).
func layoutAssumption(stmts []scenario.Stmt) string {
	for _, st := range stmts {
		switch s := st.(type) {
		case *scenario.Sendmsg:
			if len(s.Iov) > 1 {
				return layoutText
			}
		case *scenario.Sendmmsg:
			for _, m := range s.Msgs {
				if len(m) > 1 {
					return layoutText
				}
			}
		}
	}
	return ""
}

const layoutText = "each message's iovecs lie back to back in one fresh page-aligned buffer (iov=apart: each at a page of its own), in both runs"

// compare pairs the kernel's and the model's answers by line, and lists
// what was not compared.
func compare(file, profile string, stmts []scenario.Stmt, pl plan, kern []Obs, model answers) *Result {
	res := &Result{File: file, Profile: profile, Unprivileged: pl.child, Skipped: skips(stmts, pl)}
	if a := layoutAssumption(stmts); a != "" {
		res.Assumptions = append(res.Assumptions, a)
	}
	want := map[int]scenario.Outcome{}
	timing := map[int]string{}
	byLine := map[int]scenario.Stmt{}
	blocking := blockingOf{nonblock: map[string]bool{}, watched: map[string][]string{}}
	for _, st := range stmts {
		line := st.Pos().Line
		want[line] = st.Expectation()
		byLine[line] = st
		blocking.note(st)
		if ss, ok := scenario.SockOf(st); ok && rcvbufDependent(st, blocking) {
			if u, ok := model.rcvbuf[ss.Name]; ok && line > u.line {
				timing[line] = fmt.Sprintf("not compared: %s's receive buffer may have grown on the kernel and not in the model after line %d (%s)", ss.Name, u.line, u.why)
			}
		}
		for _, name := range cwndPairs(st, blocking) {
			if u, ok := model.cwnd[name]; ok && line > u.line {
				timing[line] = fmt.Sprintf("not compared: %s's congestion window, and the send buffer tcp_sndbuf_expand sizes from it, may differ on the kernel from the model's after line %d (%s)", name, u.line, u.why)
			}
		}
		if ss, ok := scenario.SockOf(st); ok {
			if u, ok := model.late[ss.Name]; ok && line > u.line {
				timing[line] = "not compared: " + u.why
			}
		}
	}
	for _, s := range res.Skipped {
		if s.Stops {
			res.StoppedAt = s.Line
		}
	}
	cut := map[string]string{} // socket → why a bound ended one of its calls
	// watched: epoll instance → the sockets EPOLL_CTL_ADD put in its
	// interest list so far, whose readiness an epoll_wait reports.
	watched := map[string][]string{}
	for _, o := range kern {
		if o.Timeout {
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: "timeout: " + o.Cut + "; nothing from here on is compared", Stops: true, Undetermined: true})
			res.StoppedAt, res.TimedOut = o.Line, o.Line
			res.Skipped = append(res.Skipped, notRunAfter(stmts, pl, o.Line)...)
			break
		}
		name := ""
		if ss, ok := scenario.SockOf(byLine[o.Line]); ok {
			name = ss.Name
		}
		if o.Cut != "" {
			cut[name] = fmt.Sprintf("%s's call at line %d was ended by the live run's bound", name, o.Line)
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: "not compared: " + o.Cut + "; nothing later on " + name + " is compared", Undetermined: true})
			continue
		}
		if why := cut[name]; why != "" {
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: "not compared: " + why, Undetermined: true})
			continue
		}
		if why := epollCut(byLine[o.Line], watched, cut); why != "" {
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: "not compared: " + why, Undetermined: true})
			continue
		}
		if why, ok := model.undetermined[o.Line]; ok {
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: "the model cannot predict it: " + why, Undetermined: true})
			if isSend(byLine[o.Line]) {
				// Whether and what it sent is what the socket's later
				// answers (its ids, error queue and peer) hang on.
				cut[name] = fmt.Sprintf("the send at line %d was undetermined, and %s's later answers depend on what it did", o.Line, name)
			}
			continue
		}
		if why := timing[o.Line]; why != "" {
			res.Skipped = append(res.Skipped, Skip{Line: o.Line, Text: o.Stmt, Why: why, Undetermined: true})
			continue
		}
		s := Stmt{Line: o.Line, Text: o.Stmt, Kernel: o.Result, Model: model.res[o.Line], MeetsExpectation: true, Assumes: model.assumes[o.Line]}
		s.Agree = s.Kernel == s.Model
		if s.Assumes != "" {
			res.Assumptions = append(res.Assumptions, fmt.Sprintf("line %d (%s): %s", s.Line, s.Text, s.Assumes))
		}
		if w := want[o.Line]; !w.IsZero() && !pl.noExpectations {
			s.Expected = w.String()
			// An error-queue read that returned a record returned 0.
			read := o.Msg != nil && !strings.HasPrefix(s.Kernel, "-1") && w.Kind == scenario.OutcomeReturn && w.Ret == 0
			s.MeetsExpectation = (read || meets(w, s.Kernel)) && fieldsMeet(w, o.Msg)
		}
		if s.Agree {
			res.Agree++
		} else {
			res.Diverge++
		}
		res.Stmts = append(res.Stmts, s)
	}
	slices.SortStableFunc(res.Skipped, func(a, b Skip) int { return a.Line - b.Line })
	return res
}

// epollCut notes the socket an EPOLL_CTL_ADD puts in an epoll's interest
// list, and says why an epoll_wait is not compared: it reports the
// readiness of a socket whose later answers are not (cut).
func epollCut(st scenario.Stmt, watched map[string][]string, cut map[string]string) string {
	switch s := st.(type) {
	case *scenario.EpollCtl:
		if s.Op.Name == "EPOLL_CTL_ADD" {
			watched[s.Epoll.Name] = append(watched[s.Epoll.Name], s.Sock.Name)
		}
	case *scenario.EpollWait:
		for _, name := range watched[s.Epoll.Name] {
			if why := cut[name]; why != "" {
				return why + " (" + s.Epoll.Name + " watches it)"
			}
		}
	}
	return ""
}

// isSend says whether st is a send call of any form.
func isSend(st scenario.Stmt) bool {
	switch st.(type) {
	case *scenario.Send, *scenario.Sendto, *scenario.Sendmsg, *scenario.Sendmmsg:
		return true
	}
	return false
}

// notRunAfter lists what the plan ran after line, which a timeout there
// left unrun.
func notRunAfter(stmts []scenario.Stmt, pl plan, line int) []Skip {
	var out []Skip
	for i, st := range stmts {
		if l := st.Pos().Line; l > line && pl.steps[i].run {
			if _, call := st.(*scenario.Settle); call {
				continue
			}
			if _, call := st.(*scenario.Wait); call {
				continue
			}
			out = append(out, Skip{Line: l, Text: scenario.FormatCall(st), Why: fmt.Sprintf("not run: the live run ended at line %d (timeout)", line)})
		}
	}
	return out
}

// rcvbufDependent says whether st's answer can depend on how large its
// connection's receive buffer grew: the buffer's size, what a read or a
// zerocopy receive finds, readiness, a non-blocking send (MSG_DONTWAIT,
// or on a socket that does not block: blockingOf; what was acknowledged
// frees the send buffer) and a notification (its
// acknowledgement). A blocking send, a socket option other than
// SO_RCVBUF, a mapping and the connection's setup and teardown do not.
func rcvbufDependent(st scenario.Stmt, b blockingOf) bool {
	switch s := st.(type) {
	case *scenario.Getsockopt:
		return s.Opt.Name == "SO_RCVBUF" || s.Opt.Name == "TCP_ZEROCOPY_RECEIVE"
	case *scenario.Recv, *scenario.Recvmsg, *scenario.Poll:
		return true
	}
	return b.nonBlockingSend(st)
}

// cwndPairs are the socket pairs (by name, S for S and S.peer) whose
// congestion window st's answer can depend on: how much of its data went
// out, was acknowledged and freed the send buffer, and the send buffer's
// size (tcp_sndbuf_expand from the window). That is a non-blocking send
// (what the queue takes), SO_SNDBUF and TCP_INFO (tcpi_snd_cwnd,
// tcpi_unacked and the rest), a read or an error-queue read on either
// end (what arrived, what the ACKs completed), TCP_ZEROCOPY_RECEIVE,
// poll (POLLOUT is sk_stream_is_writeable, POLLIN what arrived) and an
// epoll_wait watching a socket of the pair. A blocking send returns its
// whole length whatever the window (the live run's SO_SNDTIMEO ends one
// that waits, and is then not compared), and a socket option other than
// those, a mapping and the connection's setup and teardown do not
// depend on it; the language has no ioctl, so SIOCOUTQ is not asked.
func cwndPairs(st scenario.Stmt, b blockingOf) []string {
	if w, ok := st.(*scenario.EpollWait); ok {
		return b.watched[w.Epoll.Name]
	}
	ss, ok := scenario.SockOf(st)
	if !ok {
		return nil
	}
	switch s := st.(type) {
	case *scenario.Getsockopt:
		if s.Opt.Name != "SO_SNDBUF" && s.Opt.Name != "TCP_INFO" && s.Opt.Name != "TCP_ZEROCOPY_RECEIVE" {
			return nil
		}
	case *scenario.Recv, *scenario.Recvmsg, *scenario.Poll:
	default:
		if !b.nonBlockingSend(st) {
			return nil
		}
	}
	return []string{ss.Name}
}

// blockingOf is what the statements so far say of how calls block: the
// sockets made with SOCK_NONBLOCK or set O_NONBLOCK (by S or S.peer),
// and the socket pairs each epoll's EPOLL_CTL_ADD watches.
type blockingOf struct {
	nonblock map[string]bool
	watched  map[string][]string
}

// note takes in what st says of blocking.
func (b blockingOf) note(st scenario.Stmt) {
	switch s := st.(type) {
	case *scenario.Socket:
		b.nonblock[s.Name.Name] = s.Type.Has("SOCK_NONBLOCK")
	case *scenario.Fcntl:
		if s.Cmd.Name == "F_SETFL" {
			b.nonblock[s.Sock.String()] = s.Flags.Has("O_NONBLOCK")
		}
	case *scenario.EpollCtl:
		if s.Op.Name == "EPOLL_CTL_ADD" {
			b.watched[s.Epoll.Name] = append(b.watched[s.Epoll.Name], s.Sock.Name)
		}
	}
}

// nonBlockingSend says whether st is a send that cannot wait for space:
// MSG_DONTWAIT, or a socket that does not block.
func (b blockingOf) nonBlockingSend(st scenario.Stmt) bool {
	var flags scenario.Flags
	switch s := st.(type) {
	case *scenario.Send:
		flags = s.Flags
	case *scenario.Sendto:
		flags = s.Flags
	case *scenario.Sendmsg:
		flags = s.Flags
	case *scenario.Sendmmsg:
		flags = s.Flags
	default:
		return false
	}
	ss, _ := scenario.SockOf(st)
	return flags.Has("MSG_DONTWAIT") || b.nonblock[ss.String()]
}

// meets checks a rendered kernel answer against an expectation.
func meets(w scenario.Outcome, got string) bool {
	switch w.Kind {
	case scenario.OutcomeReturn:
		if w.Epoll != nil {
			return got == strconv.FormatInt(w.Ret, 10)+" "+w.Epoll.String()
		}
		got, _, _ = strings.Cut(got, "  cmsgs [") // a zerocopy receive's control buffer
		return got == strconv.FormatInt(w.Ret, 10)
	case scenario.OutcomeErrno:
		if w.AnyCode {
			return strings.HasPrefix(got, "-1 ")
		}
		return got == "-1 "+w.Errno
	case scenario.OutcomeZerocopy:
		s := fmt.Sprintf("zerocopy [%d,%d]", w.Range.Lo, w.Range.Hi)
		if w.AnyCode && got == s+" copied" {
			return true
		}
		if w.Copied {
			s += " copied"
		}
		return got == s
	case scenario.OutcomeTimestamp:
		return strings.HasPrefix(got, "timestamp "+w.Tstamp) && (!w.HasKey || got == fmt.Sprintf("timestamp %s key=%d", w.Tstamp, w.Key))
	case scenario.OutcomeICMP:
		if !w.HasQuoted {
			got, _, _ = strings.Cut(got, " quoted=")
		}
		return got == w.Base().String()
	case scenario.OutcomeCtrunc, scenario.OutcomeName:
		return got == w.Base().String()
	}
	return true
}

// fieldsMeet checks what the kernel's read wrote against the outcome's
// field checks.
func fieldsMeet(w scenario.Outcome, msg map[string]int64) bool {
	if w.Msg == nil {
		return true
	}
	for _, f := range *w.Msg {
		if got, ok := msg[f.Key]; !ok || got != f.Number() {
			return false
		}
	}
	return true
}

// answers are the model's results by line, rendered as the host run
// renders the kernel's, and why for each line whose result the model
// could not predict (sim.Event.Undetermined): those are not compared.
// rcvbuf says, by socket name (S for S and S.peer), after which line the
// kernel's answers on the pair may part from the model's because its
// receive buffer may have grown on the kernel and not in the model;
// cwnd says the same of its congestion window (kernel.OpCwndUndetermined).
type answers struct {
	// res is each line's answer; undetermined and assumes say which
	// answers the model cannot give (sim.Event.Undetermined) and which it
	// gives under a timer's assumption (sim.Event.Assumes).
	res, undetermined, assumes map[int]string
	rcvbuf, cwnd               map[string]pairUndetermined
	// late are the socket pairs whose network the model ran past what
	// the live run waits (lateEvents): none of their later answers is
	// the model's to predict.
	late map[string]pairUndetermined
}

// pairUndetermined is where and why a socket pair's later answers (all,
// or those that depend on its receive buffer) are not the model's to
// predict.
type pairUndetermined struct {
	line int
	why  string
}

// modelRun runs the scenario on the model, with the bugs of its bug
// statements switched off, and renders each call line's result as the
// host run does. A step whose socket's history says its receive buffer's
// growth is undetermined (tcp_rcv_space_adjust's RTT is wall-clock
// microseconds on the kernel) makes the pair undetermined from the
// statement it belongs to, or the last one before a network step. So
// does an event of the network that a settle or wait statement, or a
// call that sleeps, let run past what the live run waits at most
// (liveWaits, sndTimeo): a SYN retransmitted seconds later, the connect
// that times out after a minute, while the kernel's call returned at its
// SO_SNDTIMEO (socketBound).
//
// A merge of two ACKs on a backlog that the kernel may not have made
// (kernel.OpBacklogUndetermined: their timestamps may differ) runs the
// model again with them apart (interp.Options.AcksApart); a line whose
// result the two runs do not agree on is undetermined.
func modelRun(file string, src []byte, stmts []scenario.Stmt, profile string, off []kernel.Bug, host []HostSysctl) (answers, error) {
	opts := interp.Options{Profile: profile, Seed: 1, Off: off, Net: setHost(host)}
	a, merged, err := modelAnswers(file, src, stmts, opts)
	if err != nil || merged == "" {
		return a, err
	}
	opts.AcksApart = true
	apart, _, err := modelAnswers(file, src, stmts, opts)
	if err != nil {
		return answers{}, err
	}
	for line, res := range a.res {
		if other := apart.res[line]; other != res && a.undetermined[line] == "" {
			a.undetermined[line] = fmt.Sprintf("%s (the model answers %s with the ACKs merged, %s with them apart)", merged, res, other)
		}
	}
	return a, nil
}

// modelAnswers is one run of modelRun with opts; merged is the text of
// its first kernel.OpBacklogUndetermined entry, if any.
func modelAnswers(file string, src []byte, stmts []scenario.Stmt, opts interp.Options) (_ answers, merged string, _ error) {
	tr, err := interp.Run(file, src, opts)
	if err != nil {
		return answers{}, "", err
	}
	type acc struct {
		sent  int
		first string
		done  bool
	}
	out, undetermined, assumes := map[int]string{}, map[int]string{}, map[int]string{}
	rcvbuf, cwnd, late := map[string]pairUndetermined{}, map[string]pairUndetermined{}, map[string]pairUndetermined{}
	waits := liveWaits(stmts)
	mm := map[int]*acc{}
	last := 0
	var since int64 // virtual time of the last statement's own event
	for _, r := range tr.Records {
		e := r.Event
		if e == nil {
			continue
		}
		line := last
		if e.Source != "" {
			i := strings.LastIndexByte(e.Source, ':')
			if n, err := strconv.Atoi(e.Source[i+1:]); err == nil {
				line, last, since = n, n, e.Time
			}
		}
		name, _, _ := strings.Cut(e.Socket, ".")
		w, ok := waits[line]
		if !ok {
			w = liveWait{most: sndTimeo}
		}
		if e.Source == "" && name != "" && line > 0 && e.Time-since > int64(w.most) {
			if _, seen := late[name]; !seen {
				late[name] = pairUndetermined{line, lateWhy(w, line, time.Duration(e.Time-since), e)}
			}
		}
		for _, t := range e.Touched {
			if t.Entry.Op == kernel.OpBacklogUndetermined && merged == "" {
				merged = t.Entry.Text()
			}
		}
		firstNote(rcvbuf, name, line, e, kernel.OpRcvbufUndetermined)
		firstNote(cwnd, name, line, e, kernel.OpCwndUndetermined)
		if e.Ret == nil || e.Source == "" || line == 0 {
			continue
		}
		if e.Undetermined != "" {
			undetermined[line] = e.Undetermined
		}
		if e.Assumes != "" {
			assumes[line] = e.Assumes
		}
		res := renderEvent(e)
		if strings.Contains(e.Text, "(message ") { // sendmmsg: one event per message
			a := mm[line]
			if a == nil {
				a = &acc{}
				mm[line] = a
			}
			if !a.done && strings.HasPrefix(res, "-1") {
				a.done = true
				if a.sent == 0 {
					a.first = res
				}
			} else if !a.done {
				a.sent++
			}
			out[line] = fmt.Sprint(a.sent)
			if a.first != "" {
				out[line] = a.first
			}
			continue
		}
		out[line] = res
	}
	return answers{out, undetermined, assumes, rcvbuf, cwnd, late}, merged, nil
}

// firstNote records in m, for the pair of socket name, the line of the
// first event whose history has an entry of op, and the entry's text.
func firstNote(m map[string]pairUndetermined, name string, line int, e *sim.Event, op kernel.Op) {
	if _, seen := m[name]; seen || name == "" {
		return
	}
	for _, t := range e.Touched {
		if t.Entry.Op == op {
			m[name] = pairUndetermined{line, t.Entry.Text()}
			return
		}
	}
}

// liveWait is how long the live run lets the network run at most in a
// settle or wait statement (what), or in a call that may sleep (what
// empty: sndTimeo). The model's events of a call that sleeps come before
// the call's own, after the statement before it, whose bound they are
// judged by: sndTimeo unless it is a settle or wait, which can only err
// toward comparing less.
type liveWait struct {
	what string
	most time.Duration
}

// lateWhy says why the pair of e's socket is undetermined from line on:
// the model's network ran past the live run's bound w there.
func lateWhy(w liveWait, line int, ran time.Duration, e *sim.Event) string {
	if w.what == "" {
		return fmt.Sprintf("the model ran the network %v on after line %d (%s on %s), past the live run's %v SO_SNDTIMEO of a call that may sleep",
			ran, line, e.Op, e.Socket, w.most)
	}
	return fmt.Sprintf("the model's %s at line %d ran the network %v on (%s on %s), the live run's %v at most", w.what, line, ran, e.Op, e.Socket, w.most)
}

// liveWaits are the settle and wait statements by line and the live
// run's bound of each: settleLimit, a wait's duration up to waitLimit.
func liveWaits(stmts []scenario.Stmt) map[int]liveWait {
	out := map[int]liveWait{}
	for _, st := range stmts {
		switch s := st.(type) {
		case *scenario.Settle:
			out[s.Pos().Line] = liveWait{"settle", settleLimit}
		case *scenario.Wait:
			out[s.Pos().Line] = liveWait{"wait", min(time.Duration(s.Dur.N), waitLimit)}
		}
	}
	return out
}

func renderEvent(e *sim.Event) string {
	if e.Errno != "" {
		return "-1 " + e.Errno
	}
	if e.MsgFlags == "MSG_CTRUNC" {
		return "ctrunc"
	}
	if n := e.Notification; n != nil {
		// The read's return value is what an ICMP error quotes.
		return outcome(notify.Record{Errno: kernel.Errno(n.Errno), Origin: n.Origin, Type: n.Type, Code: n.Code, Info: n.Info, Data: n.Data, Quoted: int(*e.Ret)})
	}
	if e.Epoll != "" {
		return fmt.Sprint(*e.Ret) + " " + e.Epoll
	}
	if e.Name != nil {
		return strconv.Quote(*e.Name)
	}
	if e.ZcControl != "" {
		return fmt.Sprint(*e.Ret) + "  " + e.ZcControl
	}
	if e.RecvControl != "" {
		return fmt.Sprint(*e.Ret) + "  " + e.RecvControl
	}
	return fmt.Sprint(*e.Ret)
}

// outcome renders an error-queue record as a scenario outcome.
func outcome(r notify.Record) string {
	switch r.Origin {
	case kernel.SO_EE_ORIGIN_ZEROCOPY:
		s := fmt.Sprintf("zerocopy [%d,%d]", r.Info, r.Data)
		if r.Copied() {
			s += " copied"
		}
		return s
	case kernel.SO_EE_ORIGIN_TIMESTAMPING:
		return fmt.Sprintf("timestamp %s key=%d", notify.TstampName(r.Info), r.Data)
	case kernel.SO_EE_ORIGIN_ICMP, kernel.SO_EE_ORIGIN_ICMP6:
		return r.ICMPText()
	}
	return fmt.Sprintf("origin %d errno %d code %d [%d,%d]", r.Origin, r.Errno, r.Code, r.Info, r.Data)
}

// line is one statement of a result in file order: compared or skipped.
type line struct {
	stmt *Stmt
	skip *Skip
}

// lines merges the compared and the skipped statements in file order.
func (r *Result) lines() []line {
	var out []line
	i, j := 0, 0
	for i < len(r.Stmts) || j < len(r.Skipped) {
		if j == len(r.Skipped) || (i < len(r.Stmts) && r.Stmts[i].Line < r.Skipped[j].Line) {
			out = append(out, line{stmt: &r.Stmts[i]})
			i++
		} else {
			out = append(out, line{skip: &r.Skipped[j]})
			j++
		}
	}
	return out
}

// WriteText writes the comparison for a person: one line per statement,
// in file order, with the kernel's and the model's answers or why it was
// not compared, then a verdict.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	who := "root"
	if r.Unprivileged {
		who = "uid 65534 without capabilities"
	}
	fmt.Fprintf(&b, "probe %s: kernel (%s, private netns, loopback) vs model %s", r.File, who, r.Profile)
	for i, h := range r.Host {
		sep := ", "
		if i == 0 {
			sep = " with the host's "
		}
		fmt.Fprintf(&b, "%s%s=%d", sep, h.Key, h.Value)
	}
	b.WriteString("\n")
	for _, a := range r.Assumptions {
		fmt.Fprintf(&b, "assuming %s\n", a)
	}
	for _, l := range r.lines() {
		if s := l.skip; s != nil {
			mark := "skip"
			switch {
			case s.Stops && s.Undetermined:
				mark = "time"
			case s.Stops:
				mark = "stop"
			case s.Undetermined:
				mark = "??  "
			}
			fmt.Fprintf(&b, "%s %s:%d  %-48s %s\n", mark, r.File, s.Line, s.Text, s.Why)
			continue
		}
		s := l.stmt
		mark := "ok  "
		switch {
		case !s.Agree:
			mark = "DIFF"
		case s.Assumes != "":
			mark = "ok~ " // under an assumption
		}
		fmt.Fprintf(&b, "%s %s:%d  %-48s kernel %-26s model %s", mark, r.File, s.Line, s.Text, s.Kernel, s.Model)
		if !s.MeetsExpectation {
			fmt.Fprintf(&b, "  (expected %s)", s.Expected)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d statements compared, %d agree", len(r.Stmts), r.Agree)
	if n := r.agreeAssuming(); n > 0 {
		fmt.Fprintf(&b, " (%d under an assumption)", n)
	}
	fmt.Fprintf(&b, ", %d diverge; %d not compared", r.Diverge, len(r.Skipped))
	switch {
	case r.TimedOut > 0:
		fmt.Fprintf(&b, " (the live run timed out at line %d)", r.TimedOut)
	case r.StoppedAt > 0:
		fmt.Fprintf(&b, " (comparison stopped at line %d)", r.StoppedAt)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// agreeAssuming counts the statements that agree under a timer's
// assumption (Stmt.Assumes).
func (r *Result) agreeAssuming() int {
	n := 0
	for _, s := range r.Stmts {
		if s.Agree && s.Assumes != "" {
			n++
		}
	}
	return n
}

// WriteJSON writes the comparison as JSON Lines in the shape of every
// zcsim report (sim.WriteJSONLine): a "config" record (schema, file,
// profile, unprivileged, host, assumptions), then in file order a "stmt" record per compared
// statement and a "skip" record per statement not compared, then a
// "summary" (compared, agree, diverge, skipped, stopped_at, ok).
func (r *Result) WriteJSON(w io.Writer) error {
	var err error
	write := func(kind string, v any) {
		if err == nil {
			err = sim.WriteJSONLine(w, kind, v)
		}
	}
	write("config", struct {
		Schema       int          `json:"schema"`
		File         string       `json:"file"`
		Profile      string       `json:"profile"`
		Unprivileged bool         `json:"unprivileged"`
		Host         []HostSysctl `json:"host,omitempty"`
		Assumptions  []string     `json:"assumptions,omitempty"`
	}{sim.SchemaVersion, r.File, r.Profile, r.Unprivileged, r.Host, r.Assumptions})
	for _, l := range r.lines() {
		if l.skip != nil {
			write("skip", l.skip)
		} else {
			write("stmt", l.stmt)
		}
	}
	write("summary", struct {
		Compared  int  `json:"compared"`
		Agree     int  `json:"agree"`
		Diverge   int  `json:"diverge"`
		Skipped   int  `json:"skipped"`
		StoppedAt int  `json:"stopped_at,omitempty"`
		OK        bool `json:"ok"`
	}{len(r.Stmts), r.Agree, r.Diverge, len(r.Skipped), r.StoppedAt, r.OK()})
	return err
}
