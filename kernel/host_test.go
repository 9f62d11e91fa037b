package kernel_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// objSlab holds a Host's test objects.
var objSlab = kernel.SlabSlot[obj]()

// obj is a minimal tracked object.
type obj struct {
	kernel.Tracked
	name string
}

func newHost(t *testing.T) *kernel.Host {
	t.Helper()
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	return kernel.NewHost(p)
}

func track(h *kernel.Host, kind string) *obj {
	o := &obj{name: kind}
	h.Track(&o.Tracked, kind, o)
	return o
}

func TestTrackAndLive(t *testing.T) {
	h := newHost(t)
	a, b, c := track(h, "skb"), track(h, "uarg"), track(h, "skb")
	require.Equal(t, kernel.ObjectID{Kind: "skb", Serial: 1}, a.Ident())
	require.Equal(t, "uarg#2", b.Ident().String())
	require.Equal(t, "skb#3", c.Ident().String())
	require.Same(t, h, a.Host())
	require.Same(t, a, a.Self())
	require.Same(t, &b.Tracked, h.Object(b.Ident()))

	b.Free()
	require.True(t, b.Freed())
	require.False(t, a.Freed())
	require.Nil(t, h.Object(b.Ident()))
	d := track(h, "page")
	require.Equal(t, []kernel.ObjectID{a.Ident(), c.Ident(), d.Ident()}, h.Live(), "creation order")
	require.Equal(t, uint64(4), d.Ident().Serial, "serials are never reused")
	require.Empty(t, h.Violations())
}

func TestTwoHostsAreSeparate(t *testing.T) {
	h1, h2 := newHost(t), newHost(t)
	a := track(h1, "skb")
	b := track(h2, "skb")
	require.Equal(t, a.Ident(), b.Ident(), "serials are per host")
	a.Free()
	require.Empty(t, h1.Live())
	require.Equal(t, []kernel.ObjectID{b.Ident()}, h2.Live())
}

func TestDoubleFreeAndUseAfterFree(t *testing.T) {
	h := newHost(t)
	o := track(h, "skb")
	h.Step = 3
	o.Note(kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{128}})
	require.True(t, o.CheckLive("clone"))
	o.Free()
	h.Step = 7
	o.Free()
	require.False(t, o.CheckLive("clone"))

	vs := h.TakeViolations()
	require.Len(t, vs, 2)
	require.Equal(t, "step 7: invariant refcount: skb#1: freed twice", vs[0].String())
	require.Equal(t, "step 7: invariant refcount: skb#1: clone after free", vs[1].String())
	wantHistory := []kernel.Event{
		{Step: 3, Entry: kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{128}}},
		{Step: 3, Entry: kernel.Entry{Op: kernel.OpFreed}},
	}
	if d := cmp.Diff(wantHistory, vs[0].History); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	require.Empty(t, h.TakeViolations(), "TakeViolations forgets")
}

func TestViolationsIsACopy(t *testing.T) {
	h := newHost(t)
	h.Report(kernel.Violation{Step: 1, Rule: kernel.RuleIDs, Message: "gap"})
	v := h.Violations()
	v[0].Message = "changed"
	require.Equal(t, "gap", h.Violations()[0].Message)
	require.Len(t, h.TakeViolations(), 1)
	require.Empty(t, h.Violations())
}

func TestHistoryBounded(t *testing.T) {
	h := newHost(t)
	o := track(h, "uarg")
	for i := range 50 {
		h.Step = uint64(i)
		o.Note(kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{int64(i)}})
	}
	got := o.History()
	require.Len(t, got, 49, "48 kept plus one gap entry")
	for i := range 12 {
		require.Equal(t, fmt.Sprintf("alloc_skb linear %d", i), got[i].Text(), "the birth is kept")
	}
	require.Equal(t, "… 2 entries omitted …", got[12].Text())
	require.Equal(t, uint64(14), got[12].Step)
	require.Equal(t, kernel.Event{Step: 14, Entry: kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{14}}}, got[13])
	require.Equal(t, "alloc_skb linear 49", got[48].Text())

	o2 := track(h, "uarg")
	for range 48 {
		o2.Note(kernel.Entry{Op: kernel.OpConnect})
	}
	require.Len(t, o2.History(), 48, "no gap entry until something is dropped")

	o3 := track(h, "uarg")
	for i := range 200 {
		h.Step = uint64(i)
		o3.Note(kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{int64(i)}})
	}
	got = o3.History()
	require.Len(t, got, 49)
	require.Equal(t, "… 152 entries omitted …", got[12].Text())
	for i := 13; i < 49; i++ {
		require.Equal(t, int64(200-49+i), got[i].Args[0], "the most recent entries, oldest first")
	}
}

func TestRuleString(t *testing.T) {
	tests := []struct {
		r    kernel.Rule
		want string
	}{
		{kernel.RuleIDs, "ids"},
		{kernel.RuleNotifyOnce, "notify-once"},
		{kernel.RuleNotifyAfterPages, "notify-after-pages"},
		{kernel.RuleRefcount, "refcount"},
		{kernel.RuleAccounting, "accounting"},
		{kernel.RuleCopied, "copied"},
		{kernel.RuleRxPages, "rx-pages"},
		{kernel.RuleBounds, "bounds"},
		{kernel.RuleLockOrder, "lock-order"},
		{0, "rule 0"},
		{99, "rule 99"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.r.String())
	}
}

func TestTraceHook(t *testing.T) {
	h := newHost(t)
	type entry struct {
		ID   kernel.ObjectID
		Text string
	}
	var got []entry
	h.Trace = func(t *kernel.Tracked, e *kernel.Entry) { got = append(got, entry{t.Ident(), e.Text()}) }
	o := track(h, "skb")
	o.Note(kernel.Entry{Op: kernel.OpSegment, Args: [4]int64{1448, 2}})
	o.Free()
	want := []entry{{o.Ident(), "skb_segment mss 1448 into 2 segments"}, {o.Ident(), "freed"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
	require.Empty(t, h.Log(), "no log without KeepLog")
}

func TestLog(t *testing.T) {
	h := newHost(t)
	h.KeepLog = true
	var traced []kernel.Op
	h.Trace = func(_ *kernel.Tracked, e *kernel.Entry) { traced = append(traced, e.Op) }
	a, b := track(h, "skb"), track(h, "uarg")
	require.Empty(t, h.Log(), "creating notes nothing")
	a.Note(kernel.Entry{Op: kernel.OpSegment, Args: [4]int64{1448, 2}})
	b.Free()
	want := []kernel.Touch{
		{Object: a.Ident(), Entry: kernel.Entry{Op: kernel.OpSegment, Args: [4]int64{1448, 2}}},
		{Object: b.Ident(), Entry: kernel.Entry{Op: kernel.OpFreed}},
	}
	require.Equal(t, want, h.Log())
	require.Equal(t, []kernel.Op{kernel.OpSegment, kernel.OpFreed}, traced)
	require.Equal(t, `{"object":"skb#1","op":"skb_segment","func":"skb_segment","mss":1448,"segments":2}`, string(want[0].AppendJSON(nil)))
	h.ClearLog()
	require.Empty(t, h.Log())
	a.Free()
	require.Equal(t, []kernel.Touch{{Object: a.Ident(), Entry: kernel.Entry{Op: kernel.OpFreed}}}, h.Log())
}

// failN fails the first n calls of one site.
type failN struct {
	site  string
	n     int
	calls []string
}

func (f *failN) Fail(site string) bool {
	f.calls = append(f.calls, site)
	if site == f.site && f.n > 0 {
		f.n--
		return true
	}
	return false
}

func TestFail(t *testing.T) {
	h := newHost(t)
	require.False(t, h.Fail(kernel.FaultSockOmalloc), "nil FaultSource never fails")
	f := &failN{site: kernel.FaultCopyUbufs, n: 1}
	h.Faults = f
	require.True(t, h.Fail(kernel.FaultCopyUbufs))
	require.False(t, h.Fail(kernel.FaultCopyUbufs))
	require.False(t, h.Fail(kernel.FaultAllocSkb))
	require.Equal(t, []string{"skb_copy_ubufs", "skb_copy_ubufs", "alloc_skb"}, f.calls)
	require.Equal(t, "sock_omalloc", kernel.FaultSockOmalloc)
}

func TestTouched(t *testing.T) {
	h := newHost(t)
	track(h, "skb")
	require.Empty(t, h.Touched(), "only with KeepTouched")
	h.KeepTouched = true
	h.ClearTouched()
	a := track(h, "skb")
	b := track(h, "page")
	a.Note(kernel.Entry{Op: kernel.OpConnect})
	require.Equal(t, []*kernel.Tracked{&a.Tracked, &b.Tracked}, h.Touched(), "created objects, once each")
	h.ClearTouched()
	require.Empty(t, h.Touched())
	b.Free()
	a.Note(kernel.Entry{Op: kernel.OpConnect})
	b.Note(kernel.Entry{Op: kernel.OpConnect})
	require.Equal(t, []*kernel.Tracked{&b.Tracked, &a.Tracked}, h.Touched(), "noted and freed objects, in the order first touched")
}

func TestVisit(t *testing.T) {
	h := newHost(t)
	o := track(h, "skb")
	require.True(t, o.Visit(1))
	require.False(t, o.Visit(1), "once per generation")
	require.True(t, o.Visit(2))
}

// A history gives back every field of every entry it keeps: the objects
// on both sides with their kinds, counts, arguments and the name.
func TestHistoryKeepsEveryField(t *testing.T) {
	h := newHost(t)
	o := track(h, "uarg")
	entries := []kernel.Entry{
		{Op: kernel.OpUargHandoff, Holder: kernel.ObjectID{Kind: "sendmsg", Serial: 9}, Peer: kernel.ObjectID{Kind: "skb", Serial: 12}},
		{Op: kernel.OpUargPut, Holder: kernel.ObjectID{Kind: "skb", Serial: 12}, Before: 2, After: 1, Args: [4]int64{1, -2, 3, 1 << 40}},
		{Op: kernel.OpXmitFailed, Str: "eth0"},
		{Str: "a text of its own"},
		{Op: kernel.OpTapDeliver, Str: "eth0", Peer: kernel.ObjectID{Serial: 3}},
	}
	var want []kernel.Event
	for i, e := range entries {
		h.Step = uint64(10 + i)
		o.Note(e)
		want = append(want, kernel.Event{Step: h.Step, Entry: e})
	}
	if d := cmp.Diff(want, o.History()); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
}

// Refcount reports the counts of the ops that change one, and only those.
func TestEntryRefcount(t *testing.T) {
	before, after, ok := kernel.Entry{Op: kernel.OpUargGet, Before: 1, After: 2}.Refcount()
	require.True(t, ok)
	require.Equal(t, [2]int64{1, 2}, [2]int64{before, after})
	_, _, ok = kernel.Entry{Op: kernel.OpAllocSkb, Before: 1, After: 2}.Refcount()
	require.False(t, ok, "alloc_skb reports no refcount")
	_, _, ok = kernel.Entry{Op: kernel.OpReleaseData, After: 0}.Refcount()
	require.True(t, ok, "skb_release_data reports the dataref it left")
}

// Object finds every live object by its id and no freed one, across many
// serials, objects freed young and old, and serials reserved long before
// they are tracked.
func TestObjectAcrossSerials(t *testing.T) {
	h := newHost(t)
	reserved := h.Reserve(5000)
	var objs []*obj
	for range 3000 {
		objs = append(objs, track(h, "skb"))
	}
	late := &obj{}
	h.TrackReserved(&late.Tracked, "upage", reserved+4321, late)
	for i, o := range objs {
		if i%3 != 0 {
			o.Free()
		}
	}
	for i, o := range objs {
		got := h.Object(o.Ident())
		if i%3 == 0 {
			require.Same(t, &o.Tracked, got, "live %v", o.Ident())
		} else {
			require.Nil(t, got, "freed %v", o.Ident())
		}
	}
	require.Same(t, &late.Tracked, h.Object(late.Ident()))
	require.Nil(t, h.Object(kernel.ObjectID{Kind: "upage", Serial: reserved + 1}), "reserved, never tracked")
	require.Nil(t, h.Object(kernel.ObjectID{Kind: "uarg", Serial: objs[0].Ident().Serial}), "the kind is part of the id")
	require.Len(t, h.Live(), 1000+1)
	for i, o := range objs {
		if i%3 == 0 {
			o.Free()
		}
	}
	late.Free()
	require.Empty(t, h.Live())
	require.Nil(t, h.Object(objs[0].Ident()))
}

// Objects that die young cost the index of live objects no allocation:
// the newest page of serials stays while it empties and fills again.
func TestYoungObjectsAllocateNoIndex(t *testing.T) {
	h := newHost(t)
	objs := make([]obj, 4096)
	i := 0
	perObject := testing.AllocsPerRun(len(objs)-1, func() {
		o := &objs[i]
		i++
		h.Track(&o.Tracked, "skb", o)
		o.Free()
	})
	require.Zero(t, perObject, "allocations per young object")
	require.Empty(t, h.Live())
}
