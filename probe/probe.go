package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// ChildEnv is the environment variable that makes a re-executed binary
// run as a probe child: it reads a scenario from stdin, runs it on the
// kernel and writes its observations as JSON to stdout (see Child).
const ChildEnv = "ZCSIM_PROBE_CHILD"

// NobodyUID is the unprivileged uid (and gid) scenarios that drop
// CAP_IPC_LOCK or set RLIMIT_MEMLOCK run as.
const NobodyUID = 65534

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
}

// Result is the comparison of one scenario.
type Result struct {
	File    string `json:"file"`
	Profile string `json:"profile"`
	// Unprivileged says the kernel run was uid 65534 without capabilities.
	Unprivileged bool   `json:"unprivileged"`
	Stmts        []Stmt `json:"stmts"`
	Agree        int    `json:"agree"`
	Diverge      int    `json:"diverge"`
}

// OK reports whether kernel and model agreed on every statement and the
// kernel met every expectation.
func (r *Result) OK() bool {
	for _, s := range r.Stmts {
		if !s.Agree || !s.MeetsExpectation {
			return false
		}
	}
	return true
}

// Run parses the scenario src (named file), checks that the live kernel
// can run it (Check), runs it on the host kernel in a private network
// namespace and on the model, and compares them statement by statement.
// Input errors — syntax, an unsupported statement — are a
// scenario.ErrorList; failing to set up the namespace or the child is an
// ordinary error.
func Run(file string, src []byte, opts Options) (*Result, error) {
	stmts, err := scenario.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if err := Check(stmts); err != nil {
		return nil, err
	}
	if opts.Profile == "" {
		opts.Profile = kernel.DefaultProfile
	}
	model, err := modelRun(file, src, opts.Profile)
	if err != nil {
		return nil, err
	}
	child := needsChild(stmts)
	kern, err := inNetns(sysctls(stmts), func() ([]Obs, error) {
		if child {
			return runChild(opts.Exe, opts.ChildArgs, file, src)
		}
		return runHost(stmts), nil
	})
	if err != nil {
		return nil, err
	}
	return compare(file, opts.Profile, child, stmts, kern, model), nil
}

// compare pairs the kernel's and the model's answers by line.
func compare(file, profile string, child bool, stmts []scenario.Stmt, kern []Obs, model map[int]string) *Result {
	res := &Result{File: file, Profile: profile, Unprivileged: child}
	want := map[int]scenario.Outcome{}
	for _, st := range stmts {
		want[st.Pos().Line] = st.Expectation()
	}
	for _, o := range kern {
		s := Stmt{Line: o.Line, Text: o.Stmt, Kernel: o.Result, Model: model[o.Line], MeetsExpectation: true}
		s.Agree = s.Kernel == s.Model
		if w := want[o.Line]; !w.IsZero() {
			s.Expected = w.String()
			s.MeetsExpectation = meets(w, s.Kernel)
		}
		if s.Agree {
			res.Agree++
		} else {
			res.Diverge++
		}
		res.Stmts = append(res.Stmts, s)
	}
	return res
}

// meets checks a rendered kernel answer against an expectation.
func meets(w scenario.Outcome, got string) bool {
	switch w.Kind {
	case scenario.OutcomeReturn:
		return got == strconv.FormatInt(w.Ret, 10)
	case scenario.OutcomeErrno:
		return got == "-1 "+w.Errno
	case scenario.OutcomeZerocopy:
		s := fmt.Sprintf("zerocopy [%d,%d]", w.Range.Lo, w.Range.Hi)
		if w.Copied {
			s += " copied"
		}
		return got == s
	case scenario.OutcomeTimestamp:
		return strings.HasPrefix(got, "timestamp "+w.Tstamp) && (!w.HasKey || got == fmt.Sprintf("timestamp %s key=%d", w.Tstamp, w.Key))
	}
	return true
}

// modelRun runs the scenario on the model and renders each call line's
// result as the host run does.
func modelRun(file string, src []byte, profile string) (map[int]string, error) {
	tr, err := interp.Run(file, src, interp.Options{Profile: profile, Seed: 1})
	if err != nil {
		return nil, err
	}
	type acc struct {
		sent  int
		first string
		done  bool
	}
	out := map[int]string{}
	mm := map[int]*acc{}
	for _, r := range tr.Records {
		e := r.Event
		if e == nil || e.Ret == nil || e.Source == "" {
			continue
		}
		i := strings.LastIndexByte(e.Source, ':')
		line, err := strconv.Atoi(e.Source[i+1:])
		if err != nil {
			continue
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
	return out, nil
}

func renderEvent(e *sim.Event) string {
	if e.Errno != "" {
		return "-1 " + e.Errno
	}
	if n := e.Notification; n != nil {
		return outcome(notify.Record{Errno: kernel.Errno(n.Errno), Origin: n.Origin, Type: n.Type, Code: n.Code, Info: n.Info, Data: n.Data})
	}
	return fmt.Sprint(*e.Ret)
}

// supported lists the statements the live kernel can run on loopback.
func supported(st scenario.Stmt) string {
	switch s := st.(type) {
	case *scenario.Comment, *scenario.Note, *scenario.Profile, *scenario.Settle, *scenario.Wait,
		*scenario.Setsockopt, *scenario.Getsockopt, *scenario.Connect, *scenario.Close, *scenario.Shutdown,
		*scenario.Send, *scenario.Sendto, *scenario.Sendmsg, *scenario.Sendmmsg, *scenario.Recvmsg, *scenario.Recv:
		return ""
	case *scenario.Socket:
		if len(s.Options) > 0 {
			return "socket options (via, task, peer_*) need the model's devices and peers"
		}
		return ""
	case *scenario.Sysctl:
		if s.Key.Name != "net.core.optmem_max" {
			return "only net.core.optmem_max can be set (in a private network namespace)"
		}
		return ""
	case *scenario.Setrlimit:
		if s.Task.Name != "main" {
			return "only the task main exists on the live kernel"
		}
		return ""
	case *scenario.Capdrop:
		if s.Task.Name != "main" || s.Cap.Name != "CAP_IPC_LOCK" {
			return "only capdrop main CAP_IPC_LOCK is supported"
		}
		return ""
	}
	return "the live kernel cannot do this on loopback"
}

// Check reports every statement the live kernel cannot run, each at its
// file:line:col: anything but socket (without options), setsockopt,
// getsockopt, connect, send, sendto, sendmsg, sendmmsg, recvmsg, recv,
// shutdown, close, setrlimit and capdrop of the task main, settle, wait,
// and sysctl net.core.optmem_max before the first socket.
func Check(stmts []scenario.Stmt) error {
	var errs scenario.ErrorList
	seenSocket := false
	for _, st := range stmts {
		msg := supported(st)
		switch st.(type) {
		case *scenario.Socket:
			seenSocket = true
		case *scenario.Sysctl:
			if seenSocket && msg == "" {
				msg = "sysctl must come before the first socket (it is set when the namespace is made)"
			}
		}
		if msg != "" {
			errs = append(errs, &scenario.Error{Pos: st.Pos(), Msg: "probe: " + msg, Near: strings.Fields(scenario.FormatCall(st) + " ?")[0]})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// needsChild reports whether the scenario must run as uid 65534 without
// capabilities: it drops CAP_IPC_LOCK or sets RLIMIT_MEMLOCK.
func needsChild(stmts []scenario.Stmt) bool {
	for _, st := range stmts {
		switch st.(type) {
		case *scenario.Capdrop, *scenario.Setrlimit:
			return true
		}
	}
	return false
}

// sysctls returns the optmem_max a scenario sets, or 0.
func sysctls(stmts []scenario.Stmt) int {
	v := 0
	for _, st := range stmts {
		if s, ok := st.(*scenario.Sysctl); ok && len(s.Values) > 0 {
			v = int(s.Values[0].N)
		}
	}
	return v
}

// inNetns runs fn on a locked OS thread moved to a new network namespace
// with lo up and, if optmem > 0, net.core.optmem_max set there. The
// thread is never unlocked, so it dies with the goroutine and the host's
// namespace is never touched.
func inNetns(optmem int, fn func() ([]Obs, error)) ([]Obs, error) {
	type ret struct {
		obs []Obs
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- ret{err: fmt.Errorf("probe: unshare(CLONE_NEWNET): %w (run as root)", err)}
			return
		}
		if err := loUp(); err != nil {
			ch <- ret{err: err}
			return
		}
		if optmem > 0 {
			if err := writeOptmem(optmem); err != nil {
				ch <- ret{err: err}
				return
			}
		}
		obs, err := fn()
		ch <- ret{obs, err}
	}()
	r := <-ch
	return r.obs, r.err
}

// writeOptmem writes net.core.optmem_max; /proc/sys/net resolves to the
// namespace of the writing thread.
func writeOptmem(v int) error {
	if err := os.WriteFile("/proc/sys/net/core/optmem_max", []byte(strconv.Itoa(v)), 0); err != nil {
		return fmt.Errorf("probe: setting optmem_max in the private namespace: %w", err)
	}
	return nil
}

// loUp brings the loopback device of the current namespace up.
func loUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("probe: SIOCGIFFLAGS lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("probe: bringing lo up: %w", err)
	}
	return nil
}

// childInput is what the parent sends a child on stdin.
type childInput struct {
	File string `json:"file"`
	Src  []byte `json:"src"`
}

// runChild re-executes exe as uid/gid 65534 with no capabilities, from
// the calling (namespaced) thread so the child inherits its network
// namespace, and reads back its observations. The binary is copied to a
// directory uid 65534 can read.
func runChild(exe string, args []string, file string, src []byte) ([]Obs, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "zcsim-probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "probe-child")
	if err := copyExe(exe, bin); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	in, _ := json.Marshal(childInput{File: file, Src: src})
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), ChildEnv+"=1")
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: NobodyUID, Gid: NobodyUID, Groups: []uint32{}},
		Pdeathsig:  syscall.SIGKILL,
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("probe: unprivileged child: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var obs []Obs
	if err := json.Unmarshal(out.Bytes(), &obs); err != nil {
		return nil, fmt.Errorf("probe: reading the child's answers: %w", err)
	}
	return obs, nil
}

func copyExe(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// Child is the body of a re-executed probe child: it reads the scenario
// from stdin, runs it on the kernel with its own credentials and writes
// the observations as JSON to stdout. It returns the exit status. Call it
// first thing in main (or TestMain) when os.Getenv(ChildEnv) is set.
func Child(stdin io.Reader, stdout io.Writer) int {
	var in childInput
	if err := json.NewDecoder(stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "probe child:", err)
		return 2
	}
	stmts, err := scenario.Parse(in.File, in.Src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe child:", err)
		return 2
	}
	if err := json.NewEncoder(stdout).Encode(runHost(stmts)); err != nil {
		return 2
	}
	return 0
}

// ErrNoZerocopy says the kernel cannot be probed.
var ErrNoZerocopy = errors.New("probe: the kernel does not deliver MSG_ZEROCOPY notifications on loopback")

// Supported checks that the live kernel can be probed: we can make a
// network namespace, SO_ZEROCOPY on a TCP socket succeeds, and a 1-byte
// loopback MSG_ZEROCOPY send produces a notification.
func Supported() error {
	src := []byte("socket s AF_INET SOCK_STREAM\nsetsockopt s SOL_SOCKET SO_ZEROCOPY 1\nconnect s\nsend s 1 MSG_ZEROCOPY\nsettle\nrecvmsg s MSG_ERRQUEUE\n")
	stmts, _ := scenario.Parse("support-check", src)
	obs, err := inNetns(0, func() ([]Obs, error) { return runHost(stmts), nil })
	if err != nil {
		return err
	}
	if len(obs) != 5 || obs[1].Result != "0" || obs[4].Result != "zerocopy [0,0] copied" {
		return fmt.Errorf("%w (got %v)", ErrNoZerocopy, obs)
	}
	return nil
}

// WriteText writes the comparison for a person: one line per statement
// with the kernel's and the model's answers, then a verdict.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	who := "root"
	if r.Unprivileged {
		who = "uid 65534 without capabilities"
	}
	fmt.Fprintf(&b, "probe %s: kernel (%s, private netns, loopback) vs model %s\n", r.File, who, r.Profile)
	for _, s := range r.Stmts {
		mark := "ok  "
		if !s.Agree {
			mark = "DIFF"
		}
		fmt.Fprintf(&b, "%s %s:%d  %-48s kernel %-26s model %s", mark, r.File, s.Line, s.Text, s.Kernel, s.Model)
		if !s.MeetsExpectation {
			fmt.Fprintf(&b, "  (expected %s)", s.Expected)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d statements, %d agree, %d diverge\n", len(r.Stmts), r.Agree, r.Diverge)
	_, err := io.WriteString(w, b.String())
	return err
}
