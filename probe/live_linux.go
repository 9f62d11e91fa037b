//go:build linux

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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zcsim/zcsim/internal/netns"

	"github.com/zcsim/zcsim/sim/scenario"
)

// live runs the planned statements on the host kernel: in a private
// network namespace, as root or, when the plan says so, in an
// unprivileged child, at the host's turn (hostTurn).
func live(file string, src []byte, stmts []scenario.Stmt, pl plan, opts Options) ([]Obs, error) {
	release, err := hostTurn()
	if err != nil {
		return nil, err
	}
	defer release()
	return inNetns(pl.sysctls, pl.loMTU, func() ([]Obs, error) {
		awaitNetstampOff()
		if !pl.child {
			return runHost(stmts, pl.steps, runLimits, nil), nil
		}
		obs, killed, err := runChild(opts, file, src, runLimits)
		if killed {
			obs = append(obs, killedAt(stmts, pl.steps, obs, runLimits.kill))
		}
		return obs, err
	})
}

// liveLock is the file whose lock (flock) a live run holds: the live
// runs of every process on the host take turns, because the kernel
// keeps state that a network namespace does not separate, and a run
// beside another would see the other's — netstamp_needed_key, which
// stamps every packet of the host while any socket asks for receive
// timestamps (kernel.Netstamp assumes nothing outside the run holds
// it), and the locked_vm of the unprivileged child's user, which
// RLIMIT_MEMLOCK charges (mm_account_pinned_pages).
var liveLock = filepath.Join(os.TempDir(), "zcsim-live.lock")

// hostTurn waits until no other live run holds liveLock, takes it, and
// returns its release.
func hostTurn() (release func(), err error) {
	f, err := os.OpenFile(liveLock, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("probe: the live runs' lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("probe: the live runs' lock %s: %w", liveLock, err)
	}
	return func() { f.Close() }, nil
}

// killedAt is the Timeout observation of the statement a killed child
// was running: the first the plan runs after the last one it answered.
func killedAt(stmts []scenario.Stmt, steps []step, obs []Obs, after time.Duration) Obs {
	last := 0
	if len(obs) > 0 {
		last = obs[len(obs)-1].Line
	}
	for i, st := range stmts {
		if steps[i].run && st.Pos().Line > last {
			return timeoutObs(st, fmt.Sprintf("the unprivileged child had not finished after %v: it was killed", after))
		}
	}
	return timeoutObs(stmts[len(stmts)-1], fmt.Sprintf("the unprivileged child had not exited after %v: it was killed", after))
}

// inNetns runs fn in a private network namespace (netns.Run) with the
// sysctls written there and lo's MTU set to loMTU (unless 0).
func inNetns(sysctls []sysctl, loMTU int, fn func() ([]Obs, error)) ([]Obs, error) {
	var obs []Obs
	err := netns.Run(func() error {
		for _, s := range sysctls {
			if err := writeSysctl(s); err != nil {
				return err
			}
		}
		if loMTU != 0 {
			if err := netns.SetLoMTU(loMTU); err != nil {
				return fmt.Errorf("probe: in the private namespace: %w", err)
			}
		}
		var err error
		obs, err = fn()
		return err
	})
	return obs, err
}

// writeSysctl writes a namespace sysctl; /proc/sys/net resolves to the
// namespace of the writing thread.
func writeSysctl(s sysctl) error {
	if err := os.WriteFile("/proc/sys/"+s.path, []byte(s.value), 0); err != nil {
		return fmt.Errorf("probe: setting %s in the private namespace: %w", s.path, err)
	}
	return nil
}

// childInput is what the parent sends a child on stdin: the scenario
// and the bounds of its run (limits' call and run).
type childInput struct {
	File      string        `json:"file"`
	Src       []byte        `json:"src"`
	CallLimit time.Duration `json:"call_limit"`
	RunLimit  time.Duration `json:"run_limit"`
}

// runChild re-executes opts.Exe as opts.ChildUID (uid and gid 65534 by
// default) with no capabilities, from the calling (namespaced) thread so
// the child inherits its network namespace, and reads back its
// observations, one JSON line each as the child makes them. A child still
// running after lim.kill is killed: killed is then true, and obs holds
// what it answered before. The binary is copied to a directory that uid
// can read.
func runChild(opts Options, file string, src []byte, lim limits) (obs []Obs, killed bool, err error) {
	exe, uid := opts.Exe, opts.ChildUID
	if uid == 0 {
		uid = NobodyUID
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, false, err
		}
	}
	dir, err := os.MkdirTemp("", "zcsim-probe-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "probe-child")
	if err := copyExe(exe, bin); err != nil {
		return nil, false, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, false, err
	}
	in, _ := json.Marshal(childInput{File: file, Src: src, CallLimit: lim.call, RunLimit: lim.run})
	cmd := exec.Command(bin, opts.ChildArgs...)
	cmd.Env = append(os.Environ(), ChildEnv+"=1")
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}},
		Pdeathsig:  syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("probe: unprivileged child: %w", err)
	}
	var mu sync.Mutex
	kill := time.AfterFunc(lim.kill, func() {
		mu.Lock()
		defer mu.Unlock()
		killed = cmd.Process.Kill() == nil
	})
	err = cmd.Wait()
	kill.Stop()
	mu.Lock()
	defer mu.Unlock()
	if err != nil && !killed {
		return nil, false, fmt.Errorf("probe: unprivileged child: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	for dec := json.NewDecoder(&out); dec.More(); {
		var o Obs
		if derr := dec.Decode(&o); derr != nil {
			if killed {
				break // the kill cut its last line
			}
			return nil, false, fmt.Errorf("probe: reading the child's answers: %w", derr)
		}
		obs = append(obs, o)
	}
	return obs, killed, nil
}

func copyExe(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// Child is the body of a re-executed probe child: it reads the scenario
// from stdin, runs it on the kernel with its own credentials and the
// parent's bounds and writes each observation to stdout as it is made,
// one JSON line each, so that a child killed for running too long still
// tells what it saw. It returns the exit status. Call it first thing in
// main (or TestMain) when os.Getenv(ChildEnv) is set.
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
	enc := json.NewEncoder(stdout)
	var werr error
	runHost(stmts, makePlan(stmts, "").steps, limits{call: in.CallLimit, run: in.RunLimit}, func(o Obs) {
		if werr == nil {
			werr = enc.Encode(o)
		}
	})
	if werr != nil {
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
	obs, err := inNetns(nil, 0, func() ([]Obs, error) { return runHost(stmts, makePlan(stmts, "").steps, runLimits, nil), nil })
	if err != nil {
		return err
	}
	if len(obs) != 5 || obs[1].Result != "0" || obs[4].Result != "zerocopy [0,0] copied" {
		return fmt.Errorf("%w (got %v)", ErrNoZerocopy, obs)
	}
	return nil
}

// hostSysctls reads the host's global sysctls of hostKeys from
// /proc/sys: the same in the private namespace, where they are
// read-only.
func hostSysctls() ([]HostSysctl, error) {
	var out []HostSysctl
	for _, k := range hostKeys {
		path := "/proc/sys/" + strings.ReplaceAll(k.key, ".", "/")
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("probe: reading the host's %s: %w", k.key, err)
		}
		v, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("probe: the host's %s: %w", k.key, err)
		}
		out = append(out, HostSysctl{Key: k.key, Value: v})
	}
	return out, nil
}
