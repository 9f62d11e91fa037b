package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
)

// step is what the live run does with one statement.
type step struct {
	// run says the kernel runs the statement; a call's result is then
	// compared with the model's.
	run bool
	// why, for a statement the model acts on but the kernel run does not,
	// says why it is not compared; empty for statements with nothing to
	// compare (comments, notes, a loopback device).
	why string
	// stops marks the statement from which nothing is compared any more.
	stops bool
}

// plan is the live run of one scenario, statement by statement (steps
// parallels the statements), and what follows from it for the model run
// and the comparison.
type plan struct {
	steps []step
	// sysctls are what the namespace gets written before the run, in
	// file order: net.core.optmem_max, net.ipv4.ping_group_range.
	sysctls []sysctl
	// loMTU, if not 0, is the MTU the namespace's lo gets before the run:
	// that of a loopback device the scenario declares with mtu= alone,
	// before any socket.
	loMTU int
	// child says the kernel run is uid 65534 without capabilities.
	child bool
	// off are the bug statements' bugs, which the model runs without: the
	// live kernel has them fixed.
	off []kernel.Bug
	// noExpectations says the file's expectations are written for another
	// kernel than the live one, so the kernel is not held to them.
	noExpectations bool
}

// sysctl is one namespace sysctl: its /proc/sys path and the value.
type sysctl struct{ path, value string }

// nsSysctl says whether the live run can set sysctl key to values in its
// private namespace, and where: every key a namespace has its own of
// (sock.SysctlKey.Netns; tcp_congestion_control too, though a namespace
// but the first may make only an unrestricted one its default: another
// fails the probe, EPERM), net.ipv4.ping_group_range only when the range
// holds no group or every group either run has (root's 0, the child's
// 65534, the model's main task 1000), so that the model's task and the
// kernel's agree on ping sockets.
func nsSysctl(key string, values []scenario.Value) (string, bool) {
	k, ok := sock.LookupSysctl(key)
	if !ok || !k.Netns || len(values) != k.Values {
		return "", false
	}
	if key == "net.ipv4.ping_group_range" {
		if lo, hi := values[0].N, values[1].N; lo <= hi && (lo != 0 || hi < 65534) {
			return "", false
		}
	}
	return strings.ReplaceAll(key, ".", "/"), true
}

// planner decides, statement by statement, what the live kernel can run
// and which later comparisons a skipped statement spoils. A socket whose
// path the kernel run cannot reproduce is tainted: nothing on it (or its
// peer) is compared from then on. A statement whose effect reaches every
// socket stops the comparison altogether.
type planner struct {
	p        plan
	profile  string            // the model's profile
	devices  map[string]string // device name → kind
	devTaint map[string]string // device → why its sockets are not compared
	sockDev  map[string]string // socket → its device
	taint    map[string]string // socket → why it is not compared
	stopped  int               // line of the stop, or 0
	sockets  int               // socket statements so far
	// blockingClients are the sockets made with to= and without
	// SOCK_NONBLOCK.
	blockingClients map[string]bool
}

// makePlan plans the live run of stmts against the model under profile.
func makePlan(stmts []scenario.Stmt, profile string) plan {
	pl := &planner{profile: profile, devices: map[string]string{"lo": "loopback"}, devTaint: map[string]string{},
		sockDev: map[string]string{}, taint: map[string]string{}, blockingClients: map[string]bool{}}
	for _, st := range stmts {
		// Whether the kernel run is the unprivileged child is settled
		// before it starts: a capset must know it.
		switch s := st.(type) {
		case *scenario.Setrlimit:
			pl.p.child = pl.p.child || s.Task.Name == "main"
		case *scenario.Capdrop:
			pl.p.child = pl.p.child || s.Task.Name == "main"
		}
	}
	for _, st := range stmts {
		pl.p.steps = append(pl.p.steps, pl.step(st))
	}
	return pl.p
}

// skip is a statement the kernel run leaves out without consequence for
// the others.
func skip(format string, args ...any) step { return step{why: fmt.Sprintf(format, args...)} }

// step plans one statement.
func (pl *planner) step(st scenario.Stmt) step {
	line := st.Pos().Line
	if pl.stopped > 0 {
		switch st.(type) {
		case *scenario.Comment, *scenario.Note:
			return step{}
		}
		return skip("not compared: after line %d nothing is", pl.stopped)
	}
	if ss, ok := scenario.SockOf(st); ok {
		if why := pl.taint[ss.Name]; why != "" {
			if _, accept := st.(*scenario.Accept); accept {
				return pl.stop(line, "the live run does not accept on a socket it does not compare, and the model's new descriptor renumbers every later socket")
			}
			return skip("not compared: %s", why)
		}
	}
	switch s := st.(type) {
	case *scenario.Comment, *scenario.Note:
		return step{}
	case *scenario.Profile:
		if s.Name.Name == pl.profile {
			return step{}
		}
		pl.p.noExpectations = true
		return skip("the model runs %s, as the live kernel is, not %s; the file's expectations are for %s, so the kernel is not held to them", pl.profile, s.Name.Name, s.Name.Name)
	case *scenario.Bug:
		pl.p.off = append(pl.p.off, kernel.Bug(s.Name.Name))
		return skip("the live kernel has this bug fixed: the model runs without it")
	case *scenario.Sysctl:
		path, ok := nsSysctl(s.Key.Name, s.Values)
		if ok && pl.sockets == 0 {
			var vals []string
			for _, v := range s.Values {
				if v.Kind == scenario.ValueWord {
					vals = append(vals, v.Text) // a congestion control's name
				} else {
					vals = append(vals, strconv.FormatUint(v.N, 10))
				}
			}
			pl.p.sysctls = append(pl.p.sysctls, sysctl{path, strings.Join(vals, " ")})
			return step{run: true}
		}
		why := "only " + strings.Join(sock.SysctlNames(true), ", ") + " (ping_group_range empty, or from 0 to at least 65534) can be set, in the private namespace"
		if ok {
			why = s.Key.Name + " is set when the namespace is made, before any socket"
		}
		return pl.stop(line, why+"; every later socket depends on it")
	case *scenario.User:
		return skip("the live run has one user, the probe's own; sockets of this user's tasks are not compared")
	case *scenario.Task:
		return skip("the live run has one task, main; sockets of task %s are not compared", s.Name.Name)
	case *scenario.Device:
		pl.devices[s.Name.Name] = s.Kind.Name
		if s.Kind.Name == "loopback" {
			if mtu, ok := s.Options.Lookup("mtu"); ok && len(s.Options) == 1 && pl.sockets == 0 && pl.p.loMTU == 0 {
				pl.p.loMTU = int(mtu.Value.N)
				pl.devTaint["lo"] = fmt.Sprintf("it goes through lo, while the host's lo has the mtu of %s (line %d)", s.Name.Name, line)
				return step{}
			}
			if len(s.Options) > 0 {
				pl.devTaint[s.Name.Name] = fmt.Sprintf("it goes through %s, a loopback device with options the host's lo does not have (line %d)", s.Name.Name, line)
				return skip("the host's lo has none of these options: sockets through %s are not compared", s.Name.Name)
			}
			return step{}
		}
		pl.devTaint[s.Name.Name] = fmt.Sprintf("it goes through %s, a %s the host does not have (line %d)", s.Name.Name, s.Kind.Name, line)
		return skip("the host has no %s %s: sockets through it are not compared", s.Kind.Name, s.Name.Name)
	case *scenario.Tap:
		d, _ := s.Options.Lookup("on")
		return pl.taintDevice(d.Value.Text, fmt.Sprintf("a tap on %s clones what it sends (line %d)", d.Value.Text, line),
			"the live run attaches no packet tap")
	case *scenario.Complete:
		return pl.taintDevice(s.Device.Name, fmt.Sprintf("the model's driver of %s was driven by hand (line %d)", s.Device.Name, line),
			"the live kernel's drivers complete transmits on their own")
	case *scenario.Txerror:
		return pl.taintDevice(s.Device.Name, fmt.Sprintf("the model's driver of %s failed transmits (line %d)", s.Device.Name, line),
			"the live kernel's drivers cannot be made to fail a transmit")
	case *scenario.VhostSend:
		return pl.taintDevice(s.Device.Name, fmt.Sprintf("a vhost guest sent through %s (line %d)", s.Device.Name, line),
			"the live run has no vhost-net guest")
	case *scenario.Socket:
		return pl.socket(s)
	case *scenario.Hold, *scenario.Release, *scenario.Drop:
		ss, _ := scenario.SockOf(st)
		return pl.taintSocket(ss.Name, fmt.Sprintf("its path was steered at line %d", line),
			"the live kernel's loopback cannot hold or drop segments")
	case *scenario.Zckey:
		return pl.taintSocket(s.Sock.Name, fmt.Sprintf("its sk_zckey was set by hand at line %d", line),
			"no program can set sk_zckey")
	case *scenario.Txskew:
		return pl.taintSocket(s.Sock.Name, fmt.Sprintf("its TX ring counters were set by hand at line %d", line),
			"no program can set the per-CPU pending counters")
	case *scenario.Migrate:
		return skip("the live run does not move its thread: the per-CPU counters it would skew are not visible anyway")
	case *scenario.Bind:
		return pl.taintSocket(s.Sock.Name, fmt.Sprintf("it was bound at line %d", line),
			"the live run's sockets only connect to their implicit peer")
	case *scenario.Connect:
		if pl.blockingClients[s.Sock.Name] && !s.Sock.Peer {
			return pl.taintSocket(s.Sock.Name, fmt.Sprintf("its blocking connect at line %d", line),
				"the live run's SO_SNDTIMEO (1s) ends a blocking connect's wait for its SYN's answer, which the model waits out")
		}
		return step{run: true}
	case *scenario.Accept:
		// The child goes through its listener's device.
		pl.sockDev[s.New.Name] = pl.sockDev[s.Sock.Name]
		delete(pl.taint, s.New.Name)
		return step{run: true}
	case *scenario.Expect:
		return skip("state checks read the model's internals (sk_zckey, optmem, refcounts…), which the live kernel does not show")
	case *scenario.Fault:
		return pl.stop(line, "fault sites exist only in the model, and an armed one can fail any later allocation")
	case *scenario.Repeat:
		return pl.stop(line, "the live run does not run repeat loops, and every later call would see what the loop did")
	case *scenario.Capset:
		if s.Task.Name == "main" && s.Cap.Name == "CAP_NET_ADMIN" && !pl.p.child {
			return step{run: true} // the run as root has it already
		}
		return pl.stop(line, "the live run cannot grant a capability, and every later call runs with it")
	case *scenario.Setrlimit:
		if s.Task.Name != "main" {
			return skip("the live run has one task, main; task %s's sockets are not compared", s.Task.Name)
		}
		return step{run: true}
	case *scenario.Capdrop:
		if s.Task.Name != "main" {
			return skip("the live run has one task, main; task %s's sockets are not compared", s.Task.Name)
		}
		return step{run: true}
	}
	// Calls on sockets the kernel has, settle and wait.
	return step{run: true}
}

// stop ends the comparison at line.
func (pl *planner) stop(line int, why string) step {
	pl.stopped = line
	return step{why: why + ": nothing from here on is compared", stops: true}
}

// taintSocket stops comparing socket name (and its peer) from here on.
func (pl *planner) taintSocket(name, because, why string) step {
	pl.taint[name] = name + ": " + because
	return skip("%s: nothing on %s is compared from here on", why, name)
}

// taintDevice stops comparing the sockets through dev from here on.
func (pl *planner) taintDevice(dev, because, why string) step {
	pl.devTaint[dev] = because
	for name, d := range pl.sockDev {
		if d == dev && pl.taint[name] == "" {
			pl.taint[name] = name + ": " + because
		}
	}
	return skip("%s: nothing through %s is compared from here on", why, dev)
}

// socket plans a socket statement: it runs unless its options need the
// model's devices, tasks or peers.
func (pl *planner) socket(s *scenario.Socket) step {
	name := s.Name.Name
	pl.sockets++
	dev := "lo"
	if v, ok := s.Options.Lookup("via"); ok {
		dev = v.Value.Text
	}
	if v, ok := s.Options.Lookup("to"); ok {
		dev = pl.sockDev[v.Value.Text] // a client goes through its listener's device
	}
	pl.sockDev[name] = dev
	delete(pl.taint, name)
	if why := pl.devTaint[dev]; why != "" {
		pl.taint[name] = name + ": " + why
		return skip("%s: nothing on %s is compared", why, name)
	}
	for _, o := range s.Options {
		switch {
		case o.Key == "to":
			l := o.Value.Text
			if why := pl.taint[l]; why != "" {
				pl.taint[name] = name + ": its listener " + why
				return skip("not compared: its listener %s", why)
			}
			_, typ, _ := s.Args()
			pl.blockingClients[name] = typ&kernel.SOCK_NONBLOCK == 0
		case o.Key == "via", o.Key == "mapped", o.Key == "ihl":
		case o.Key == "peer_read" && o.Value.Text == "manual": // the live peer never reads by itself either
		default:
			pl.taint[name] = fmt.Sprintf("%s: it was made with %s (line %d)", name, o, s.Pos().Line)
			return skip("the live run's sockets have no %s option: nothing on %s is compared", o.Key, name)
		}
	}
	return step{run: true}
}
