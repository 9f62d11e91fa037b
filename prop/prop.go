package prop

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/gen"
	"github.com/zcsim/zcsim/sim/interp"
)

// Scenario is one generated scenario: gen.Scenario(Seed, Config) is Src.
type Scenario struct {
	Seed   uint64
	Config gen.Config
	Src    []byte
}

// GoString shows the scenario as rapid logs a drawn value: its seed and
// its text.
func (s Scenario) GoString() string {
	return fmt.Sprintf("prop.Scenario seed %d:\n%s", s.Seed, s.Src)
}

// Scenarios is a generator of scenarios under cfg: the seed, the number of
// statements (1 to cfg.Stmts) and a subset of cfg.Allow are drawn, the rest
// of cfg is kept.
func Scenarios(cfg gen.Config) *rapid.Generator[Scenario] {
	stmts := cfg.Stmts
	if stmts <= 0 {
		stmts = gen.DefaultStmts
	}
	allow := cfg.Allow
	if allow == 0 {
		allow = gen.AllFeatures
	}
	return rapid.Custom(func(t *rapid.T) Scenario {
		c := cfg
		seed := rapid.Uint64().Draw(t, "seed")
		c.Stmts = rapid.IntRange(1, stmts).Draw(t, "stmts")
		c.Allow = gen.Features(rapid.Uint64().Draw(t, "features")) & allow
		if c.Allow == 0 {
			c.Allow = allow & (gen.TCP | gen.UDP | gen.Raw | gen.Packet | gen.Unix)
		}
		if c.Allow == 0 {
			c.Allow = allow
		}
		return Scenario{Seed: seed, Config: c, Src: gen.Scenario(seed, c)}
	})
}

// Options of a run.
type Options struct {
	// Profile, if set, overrides the scenario's profile statement.
	Profile string
	// Bugs are switched on, Off switched off after that (a profile's
	// default bug, such as linux-4.14's B18, included).
	Bugs, Off []kernel.Bug
}

// TB is what Run needs of a test: *testing.T, *testing.B and *rapid.T
// have it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Run runs sc and fails t, listing every broken invariant with the
// scenario and how to replay it, if any was broken; otherwise it returns
// the outcome. A scenario with input errors (one not from Scenarios)
// fails t with them.
func Run(t TB, sc Scenario, opts Options) *Outcome {
	t.Helper()
	out, err := Exec(sc, opts)
	if err != nil {
		t.Fatalf("prop: the scenario does not run: %v\n%s", err, sc.Src)
		return nil
	}
	if vs := out.Violations(); len(vs) > 0 {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "  step %d: %s: %s: %s\n", v.Step, v.Rule, v.Object, v.Message)
		}
		t.Fatalf("prop: %d invariant violations:\n%sscenario (replay: zcsim run --seed %d%s FILE):\n%s",
			len(vs), b.String(), sc.Seed, bugFlags(opts), sc.Src)
	}
	return out
}

// bugFlags are the zcsim run flags that replay a run with opts.
func bugFlags(opts Options) string {
	var b strings.Builder
	if opts.Profile != "" {
		b.WriteString(" --profile " + opts.Profile)
	}
	for _, bug := range opts.Bugs {
		b.WriteString(" --bug " + string(bug))
	}
	return b.String()
}

// Exec runs sc without failing anything: broken invariants are in the
// Outcome. The error is the scenario's input errors (a
// scenario.ErrorList), which a generated scenario never has.
func Exec(sc Scenario, opts Options) (*Outcome, error) {
	tr, err := interp.Run("prop.zcs", sc.Src, interp.Options{Profile: opts.Profile, Seed: sc.Seed, Bugs: opts.Bugs, Off: opts.Off})
	if err != nil {
		return nil, err
	}
	return &Outcome{Scenario: sc, Trace: tr}, nil
}

// Outcome is what a run did.
type Outcome struct {
	Scenario Scenario
	// Trace is every record of the run, in order.
	Trace *sim.Trace
}

// Steps is the number of steps the run made.
func (o *Outcome) Steps() uint64 {
	for _, r := range o.Trace.Records {
		if r.Summary != nil {
			return r.Summary.Steps
		}
	}
	return 0
}

// Violations are the broken invariants, in trace order.
func (o *Outcome) Violations() []sim.Violation {
	var out []sim.Violation
	for _, r := range o.Trace.Records {
		if r.Violation != nil {
			out = append(out, *r.Violation)
		}
	}
	return out
}

// Call is one system call and its result.
type Call struct {
	// Step is the call's step; Source the file:line that made it.
	Step   uint64
	Source string
	// Op is the call ("send", "recvmsg"…), Socket the socket's name.
	Op, Socket string
	// Ret is the return value; Errno the error name when it is -1.
	Ret   int64
	Errno string
	// Sent says the call consumed the notification id ID.
	Sent bool
	ID   uint32
	// Notification is what a read of the error queue returned, or nil.
	Notification *sim.Notification
}

// Calls are the run's system calls, in order.
func (o *Outcome) Calls() []Call {
	var out []Call
	for _, r := range o.Trace.Records {
		e := r.Event
		if e == nil || e.Ret == nil {
			continue
		}
		c := Call{Step: e.Step, Source: e.Source, Op: e.Op, Socket: e.Socket, Ret: *e.Ret, Errno: e.Errno, Notification: e.Notification}
		if e.UargID != nil {
			c.Sent, c.ID = true, *e.UargID
		}
		out = append(out, c)
	}
	return out
}

// Notification is one MSG_ZEROCOPY notification a read of the error
// queue returned: the ids Lo to Hi (inclusive, modulo 2^32) completed,
// with SO_EE_CODE_ZEROCOPY_COPIED when Copied.
type Notification struct {
	Step   uint64
	Socket string
	Lo, Hi uint32
	Copied bool
}

// Len is the number of ids in the range.
func (n Notification) Len() uint64 { return uint64(n.Hi-n.Lo) + 1 }

// Contains reports whether id is in the range, which may wrap at 2^32.
func (n Notification) Contains(id uint32) bool { return id-n.Lo <= n.Hi-n.Lo }

// Notifications are the zerocopy notifications the run read, in order;
// timestamps and other error-queue records are left out.
func (o *Outcome) Notifications() []Notification {
	var out []Notification
	for _, c := range o.Calls() {
		n := c.Notification
		if n == nil || n.Origin != kernel.SO_EE_ORIGIN_ZEROCOPY {
			continue
		}
		out = append(out, Notification{Step: c.Step, Socket: c.Socket, Lo: n.Info, Hi: n.Data,
			Copied: n.Code&kernel.SO_EE_CODE_ZEROCOPY_COPIED != 0})
	}
	return out
}
