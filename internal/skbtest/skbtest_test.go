package skbtest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

func TestPagesReportsEveryMismatch(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	buf := mm.NewBuffer(e.H, 2*kernel.PageSize)
	k := mm.AllocPages(e.H, 0)
	freed := mm.AllocPages(e.H, 0)
	freed.Put()
	r := &recorder{TB: t}
	skbtest.Pages(r,
		skbtest.PageRef{Page: buf.Page(0), Refs: 2},
		skbtest.PageRef{Page: buf.Page(1), Refs: 1},
		skbtest.PageRef{Page: k},
		skbtest.PageRef{Page: freed, Refs: 1},
	)
	require.Len(t, r.errs, 1, "one report")
	want := []string{
		"page refcounts:",
		"upage#1: got refs 1, want 2",
		"page#3: got live with refs 1, want freed",
		"page#4: got freed, want refs 1",
	}
	require.Equal(t, want, strings.Split(strings.ReplaceAll(r.errs[0], "\t", ""), "\n"))
}

func TestRefsAndViolations(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	buf := mm.NewBuffer(e.H, kernel.PageSize)
	buf.Page(0).Put()
	r := &recorder{TB: t}
	skbtest.NoViolations(r, e.H)
	require.Len(t, r.errs, 1)
	require.Contains(t, r.errs[0], "put_page with refcount 1 (underflow)")
	skbtest.NoViolations(r, e.H)
	require.Len(t, r.errs, 1, "NoViolations forgets what it reported")

	skbtest.BufferRefs(r, buf, 1, 1)
	require.Equal(t, "BufferRefs: 2 counts for 1 pages", r.errs[1])
	skbtest.Live(r, e.H, map[string]int{"upage": 2})
	require.Len(t, r.errs, 3)
	require.Equal(t, map[string]int{"upage": 1}, skbtest.LiveKinds(e.H))

	f := skbtest.Faults{"x": 2}
	require.True(t, f.Fail("x"))
	require.True(t, f.Fail("x"))
	require.False(t, f.Fail("x"))
	require.False(t, f.Fail("y"))
}

// NewEnv switches bugs through Profile.Switch, so a bug that is a knob
// (B18) sets its knob too.
func TestNewEnvSwitchesKnobBugs(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18", kernel.BugTCPLinear, kernel.BugID16)
	require.Equal(t, kernel.TCPLinearPre418, e.P.TCPLinear)
	require.Equal(t, []kernel.Bug{kernel.BugID16, kernel.BugTCPLinear}, e.P.Bugs.Sorted())
	require.Same(t, e.P, e.H.Profile)
}

// DrawHeld takes exactly the skb it returns out of the held list and keeps
// the others in order.
func TestDrawHeld(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		held := make([]*skb.Buff, rapid.IntRange(1, 6).Draw(t, "n"))
		for i := range held {
			held[i] = new(skb.Buff)
		}
		before := slices.Clone(held)
		b := skbtest.DrawHeld(t, &held)
		i := slices.Index(before, b)
		require.GreaterOrEqual(t, i, 0)
		want := slices.Delete(before, i, i+1)
		require.True(t, slices.Equal(want, held), "held %p, want %p", held, want)
	})
}
