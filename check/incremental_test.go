package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/bugs"
	"github.com/zcsim/zcsim/sim/gen"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/skb"
)

// The incremental Check examines what the steps since the last Check
// touched: a corruption of a touched object is reported at once, one made
// behind the model's back at the next full sweep (at quiescence).
func TestIncrementalCheck(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Full = false
	c := f.send(100)
	requireClean(t, f.check(false))
	requireClean(t, f.check(false))

	// Noted: the uarg gets a reference from an skb that does not point at it.
	other := skb.Alloc(f.h, 0)
	c.uarg.Get(other.Shinfo().Ident())
	requireRule(t, f.check(false), kernel.RuleRefcount, "which does not point at it")
	c.uarg.Complete(other.Shinfo().Ident(), true)
	requireClean(t, f.check(false))

	// Behind its back: sk_refcnt dropped without a note.
	f.sk.Put()
	requireClean(t, f.check(false))
	requireRule(t, f.check(true), kernel.RuleRefcount, "sk_refcnt 1 below the 2")
	f.sk.Hold()
	c.skb.Free()
}

// A shared info freed without dropping its reference is the only object
// touched; through it the check reaches the uarg it held and the skb that
// uses it.
func TestIncrementalFreedHolder(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Full = false
	c := f.send(100)
	requireClean(t, f.check(false))
	c.skb.Shinfo().Free()
	vs := f.check(false)
	requireRule(t, vs, kernel.RuleRefcount, "held by freed shinfo")
	requireRule(t, vs, kernel.RuleRefcount, "uses freed shinfo")
}

// With many holders, a step that touches one old holder is checked
// through it, not through the uarg's newest holders.
func TestIncrementalOldHolder(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Full = false
	c := f.send(100)
	var held []*skb.Buff
	for range 20 {
		b := skb.Alloc(f.h, 0)
		b.ZcopySet(c.uarg, c.id, nil)
		held = append(held, b)
	}
	requireClean(t, f.check(false))
	held[3].Shinfo().Free()
	vs := f.check(false)
	requireRule(t, vs, kernel.RuleRefcount, "held by freed "+held[3].Shinfo().Ident().String())
	requireRule(t, vs, kernel.RuleRefcount, "uses freed shinfo")
}

// A socket freed under a live uarg (bug no-sock-ref) is what its step
// touched; through it the check reaches the uarg.
func TestIncrementalUargOutlivesSocket(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugNoSockRef)
	f.m.Full = false
	f.send(100)
	requireClean(t, f.check(false))
	f.sk.Close()
	requireRule(t, f.check(false), kernel.RuleRefcount, "outlives its socket")
}

// runBoth runs a scenario with the incremental check and with a full sweep
// after every step, and returns the violation records of each.
func runBoth(t *testing.T, file string, src []byte, opts interp.Options) (inc, full []sim.Violation) {
	t.Helper()
	for _, f := range []bool{false, true} {
		o := opts
		o.FullCheck = f
		tr, err := interp.Run(file, src, o)
		require.NoError(t, err)
		var vs []sim.Violation
		for _, r := range tr.Records {
			if r.Violation != nil {
				vs = append(vs, *r.Violation)
			}
		}
		if f {
			full = vs
		} else {
			inc = vs
		}
	}
	return inc, full
}

// The incremental and the full check report the same violations, at the
// same steps, on every example and on every bug of the catalog switched on
// and off.
func TestIncrementalMatchesFull(t *testing.T) {
	files, err := filepath.Glob("../examples/*.zcs")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		inc, full := runBoth(t, f, src, interp.Options{Seed: 1})
		if d := cmp.Diff(full, inc); d != "" {
			t.Errorf("%s: violations (-full +incremental):\n%s", f, d)
		}
	}
	for _, e := range bugs.Catalog() {
		if e.File == "" {
			continue
		}
		for _, on := range []bool{true, false} {
			opts := interp.Options{Seed: 1}
			if on {
				opts.Bugs = []kernel.Bug{e.Bug}
			} else {
				opts.Off = []kernel.Bug{e.Bug}
			}
			inc, full := runBoth(t, e.Path(), e.Source(), opts)
			if on && e.Rule != 0 {
				require.NotEmpty(t, full, "%s shows its symptom", e.ID)
			}
			if d := cmp.Diff(full, inc); d != "" {
				t.Errorf("%s (bug on=%t): violations (-full +incremental):\n%s", e.ID, on, d)
			}
		}
	}
}

// The same holds on generated scenarios, with every catalogued bug in turn
// switched on so that violations happen.
func TestIncrementalMatchesFullGenerated(t *testing.T) {
	catalog := bugs.Catalog()
	n := 300
	if testing.Short() {
		n = 30
	}
	found := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg := gen.Config{Bugs: []string{string(catalog[int(seed)%len(catalog)].Bug)}}
		src := gen.Scenario(seed, cfg)
		inc, full := runBoth(t, "gen.zcs", src, interp.Options{Seed: seed})
		found += len(full)
		if d := cmp.Diff(full, inc); d != "" {
			t.Errorf("seed %d: violations (-full +incremental):\n%s\n%s", seed, d, src)
		}
	}
	t.Logf("%d generated runs, %d violations, each reported alike by both checks", n, found)
	require.NotZero(t, found, "some generated run breaks an invariant")
}

// Each state rule the incremental Check covers, broken in turn by an
// operation the model notes or counts: the incremental Check reports at
// that step exactly what the full sweep reports, so a rule that stopped
// being checked where it can break fails here even when no generated run
// happens to break it.
func TestIncrementalFindsEachRule(t *testing.T) {
	cases := []struct {
		name    string
		bugs    []kernel.Bug
		rule    kernel.Rule
		want    string
		corrupt func(f *fixture, c *call)
	}{
		{"holder does not point", nil, kernel.RuleRefcount, "which does not point at it", func(f *fixture, c *call) {
			c.uarg.Get(skb.Alloc(f.h, 0).Shinfo().Ident())
		}},
		{"holder freed", nil, kernel.RuleRefcount, "held by freed shinfo", func(f *fixture, c *call) {
			c.skb.Shinfo().Free()
		}},
		{"skb on a freed shared info", nil, kernel.RuleRefcount, "uses freed shinfo", func(f *fixture, c *call) {
			clone, err := c.skb.Clone()
			require.Zero(t, err)
			c.skb.Shinfo().Free()
			_ = clone
		}},
		{"holds twice", nil, kernel.RuleRefcount, "holds 2 of its references, want 1", func(f *fixture, c *call) {
			c.uarg.Get(c.skb.Shinfo().Ident())
		}},
		{"drops while it points", nil, kernel.RuleRefcount, "points at freed uarg", func(f *fixture, c *call) {
			c.uarg.Complete(c.skb.Shinfo().Ident(), true) // the last reference: the uarg completes
		}},
		{"points at a freed uarg", nil, kernel.RuleRefcount, "points at freed uarg", func(f *fixture, c *call) {
			c.uarg.Free()
		}},
		{"page put under its frag", nil, kernel.RuleRefcount, "refcount 1 but 1 frags", func(f *fixture, c *call) {
			c.skb.Shinfo().Frags[0].Page.Put()
		}},
		{"frag on a freed page", nil, kernel.RuleRefcount, "frag on freed", func(f *fixture, c *call) {
			p := mm.AllocPages(f.h, 0)
			c.skb.Shinfo().AddFrag(skb.Frag{Page: p, Size: 10}) // no get_page of its own
			p.Put()
		}},
		{"sk_refcnt", nil, kernel.RuleRefcount, "sk_refcnt 1 below the 2", func(f *fixture, c *call) {
			f.sk.Put()
			f.m.Before(f.sk)
		}},
		{"uarg outlives its socket", []kernel.Bug{kernel.BugNoSockRef}, kernel.RuleRefcount, "outlives its socket", func(f *fixture, c *call) {
			f.sk.Close()
		}},
		{"sk_omem_alloc", nil, kernel.RuleAccounting, "sk_omem_alloc", func(f *fixture, c *call) {
			f.sk.OmemAlloc++
			f.m.Before(f.sk)
		}},
		{"locked_vm", nil, kernel.RuleAccounting, "locked_vm", func(f *fixture, c *call) {
			f.task.User.LockedVM++
			f.send(100)
		}},
		{"uarg freed while charged", nil, kernel.RuleAccounting, "locked_vm", func(f *fixture, c *call) {
			c.skb.Shinfo().Uarg = nil // the shared info forgets it, the uarg goes without unaccounting
			c.uarg.Free()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2][]kernel.Violation
			for i, full := range []bool{false, true} {
				f := newFixture(t, "linux-6.18", tc.bugs...)
				f.m.Full = full
				c := f.send(100)
				requireClean(t, f.check(false))
				requireClean(t, f.check(false))
				tc.corrupt(f, c)
				got[i] = f.check(false)
			}
			requireRule(t, got[1], tc.rule, tc.want)
			require.Equal(t, render(got[1]), render(got[0]), "incremental (got) and full sweep (want)")
		})
	}
}
