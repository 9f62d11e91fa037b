package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/check"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// fixture is one host with one tracked TCP socket and its Monitor.
type fixture struct {
	t     *testing.T
	h     *kernel.Host
	m     *check.Monitor
	task  *ubuf.Task
	sk    *sock.Sock
	calls uint64
}

func newFixture(t *testing.T, profile string, bugs ...kernel.Bug) *fixture {
	t.Helper()
	p, err := kernel.Lookup(profile)
	require.NoError(t, err)
	for _, b := range bugs {
		p.Bugs[b] = true
	}
	h := kernel.NewHost(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	// The rule tests corrupt state behind the model's back, which only a
	// full sweep sees; incremental_test.go covers the incremental Check.
	m := check.NewMonitor()
	m.Full = true
	f := &fixture{t: t, h: h, m: m, task: task}
	f.sk = f.socket(kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	return f
}

func (f *fixture) socket(typ kernel.SockType, proto kernel.Protocol) *sock.Sock {
	sk := sock.New(f.h, sock.DefaultSysctl(f.h.Profile), f.task, kernel.AF_INET, typ, proto)
	if f.h.Profile.OptIn {
		require.Equal(f.t, kernel.Errno(0), sk.SetZerocopy(1))
	}
	f.m.Tracked(sk, f.task)
	return sk
}

// call is one TCP send in flight: its uarg, its buffer, and its skb.
type call struct {
	id    kernel.ObjectID
	label string
	uarg  *ubuf.Info
	buf   *mm.Buffer
	skb   *skb.Buff
}

// begin starts a zerocopy send of size bytes on sk: msg_zerocopy_alloc and
// the pages pinned into one skb (when size > 0). The call still holds its
// reference.
func (f *fixture) begin(sk *sock.Sock, size int) *call {
	f.t.Helper()
	f.calls++
	c := &call{id: kernel.ObjectID{Kind: "sendmsg", Serial: f.calls}, label: fmt.Sprintf("send#%d", f.calls)}
	f.m.Before(sk)
	u, out := ubuf.Alloc(f.h, sk, sk.Task, uint32(size), c.id)
	require.Equal(f.t, ubuf.Allocated, out)
	c.uarg = u
	c.buf = mm.NewBuffer(f.h, size)
	if size > 0 {
		c.skb = skb.Alloc(f.h, 0)
		_, err := c.skb.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: c.buf, Len: size}), size, u, c.id)
		require.Equal(f.t, kernel.Errno(0), err)
	}
	return c
}

// end finishes a successful call: the call drops its reference and the
// Monitor is told.
func (f *fixture) end(sk *sock.Sock, c *call, copied bool) sock.SendResult {
	id := c.uarg.ID + uint32(c.uarg.Len) - 1
	c.uarg.Complete(c.id, true)
	r := sock.SendResult{N: c.buf.Len(), ZC: true, ID: id, Uarg: c.uarg, Outcome: ubuf.Allocated, Copied: copied}
	f.m.Sent(sk, c.label, r, c.buf)
	return r
}

// send is a whole successful call; the skb it returns holds the uarg.
func (f *fixture) send(size int) *call {
	c := f.begin(f.sk, size)
	f.end(f.sk, c, false)
	return c
}

// readAll reads the socket's error queue, telling the Monitor.
func (f *fixture) readAll(sk *sock.Sock) []notify.Record {
	var out []notify.Record
	for {
		r, err := sk.RecvErrqueue()
		if err != 0 {
			return out
		}
		f.m.Read(sk, r)
		out = append(out, r)
	}
}

func (f *fixture) check(quiescent bool) []kernel.Violation {
	f.h.Step++
	return f.m.Check(f.h, quiescent)
}

// requireClean fails with every violation listed.
func requireClean(t *testing.T, vs []kernel.Violation) {
	t.Helper()
	require.Empty(t, vs, "violations:\n%s", render(vs))
}

// requireRule fails unless some violation is of rule and mentions want.
func requireRule(t *testing.T, vs []kernel.Violation, rule kernel.Rule, want string) kernel.Violation {
	t.Helper()
	for _, v := range vs {
		if v.Rule == rule && strings.Contains(v.Message, want) {
			return v
		}
	}
	t.Fatalf("no violation of %v mentioning %q; got:\n%s", rule, want, render(vs))
	return kernel.Violation{}
}

func render(vs []kernel.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintln(&b, v)
	}
	return b.String()
}

func TestLifecycleIsClean(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(8192)
	requireClean(t, f.check(false))
	c.skb.Free()
	requireClean(t, f.check(false))
	recs := f.readAll(f.sk)
	require.Len(t, recs, 1)
	requireClean(t, f.check(true))
	f.sk.Close()
	requireClean(t, f.check(true))
}

func TestModelViolationsArePassedOn(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	c.skb.Free()
	c.skb.Free() // kfree_skb after free: the model reports it
	v := requireRule(t, f.check(false), kernel.RuleRefcount, "kfree_skb after free")
	require.Equal(t, c.skb.Ident(), v.Object)
	require.NotEmpty(t, v.History)
	requireClean(t, f.check(false)) // reported once
}

// Rule 1.

func TestIDsConsecutive(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Sent(f.sk, "bogus", sock.SendResult{N: 1, ZC: true, ID: 5}, nil)
	v := requireRule(t, f.check(false), kernel.RuleIDs, "want 0")
	require.Equal(t, f.sk.Ident(), v.Object)
	requireClean(t, f.check(false)) // an event is reported once
}

func TestIDsFailedCallConsumesNone(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Before(f.sk)
	f.sk.SetZCKey(1)
	f.m.Sent(f.sk, "failed", sock.Fail(kernel.ENOBUFS), nil)
	requireRule(t, f.check(false), kernel.RuleIDs, "moved sk_zckey from 0 to 1")

	g := newFixture(t, "linux-6.18")
	g.m.Sent(g.sk, "failed", sock.SendResult{N: -1, Err: kernel.EPIPE, ZC: true, ID: 0}, nil)
	g.sk.SetZCKey(1)
	requireRule(t, g.check(false), kernel.RuleIDs, "failed")
}

func TestIDsAbort(t *testing.T) {
	for _, bug := range []bool{false, true} {
		t.Run(fmt.Sprintf("abort-gap=%t", bug), func(t *testing.T) {
			var f *fixture
			if bug {
				f = newFixture(t, "linux-6.18", kernel.BugAbortGap)
			} else {
				f = newFixture(t, "linux-6.18")
			}
			c := f.begin(f.sk, 0)
			c.uarg.PutAbort(c.id, true)
			f.m.Sent(f.sk, c.label, sock.Fail(kernel.EPIPE), c.buf)
			vs := f.check(true)
			if bug {
				requireRule(t, vs, kernel.RuleIDs, "took no id")
				return
			}
			requireClean(t, vs)
		})
	}
}

func TestIDsWrap(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.sk.SetZCKey(1<<32 - 1)
	g := check.NewMonitor() // registered after the key was set
	f.m = g
	g.Tracked(f.sk, nil)
	a, b := f.send(10), f.send(10)
	require.Equal(t, uint32(1), f.sk.ZCKey())
	a.skb.Free()
	b.skb.Free()
	recs := f.readAll(f.sk)
	require.Equal(t, []notify.Range{{Lo: 1<<32 - 1, Hi: 0}}, []notify.Range{recs[0].Range()})
	requireClean(t, f.check(true))
}

func TestIDs16BitBug(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugID16)
	f.sk.SetZCKey(1<<16 - 1)
	f.m = check.NewMonitor()
	f.m.Tracked(f.sk, nil)
	f.send(10)
	requireRule(t, f.check(false), kernel.RuleIDs, "want 65536")
}

func TestIDsBeforeSeesKeyMoved(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.sk.SetZCKey(7)
	f.m.Before(f.sk)
	requireRule(t, f.check(false), kernel.RuleIDs, "moved between calls")
}

func TestIDsQuiescentKey(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	requireClean(t, f.check(true))
	f.sk.SetZCKey(3)
	requireRule(t, f.check(true), kernel.RuleIDs, "at quiescence sk_zckey is 3")
}

func TestIDsOutsideUarg(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.begin(f.sk, 10)
	c.uarg.Complete(c.id, true)
	f.sk.SetZCKey(2)
	f.m.Sent(f.sk, c.label, sock.SendResult{N: 10, ZC: true, ID: 1, Uarg: c.uarg}, c.buf)
	requireRule(t, f.check(false), kernel.RuleIDs, "outside its uarg's range")
}

// Rule 2.

func TestNotifyTwice(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(10)
	n := ubuf.Notification{Lo: 0, Len: 1, Uarg: c.uarg.Ident()}
	c.skb.Free()
	requireClean(t, f.check(false))
	f.m.Notified(f.sk, n, true)
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "never sent or already notified")
}

func TestNotifyNeverSent(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Notified(f.sk, ubuf.Notification{Lo: 3, Len: 2}, false)
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "covers 2 ids")
	f.m.Notified(f.sk, ubuf.Notification{Lo: 3, Len: 0}, false)
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "len 0")
}

func TestNotifyAfterDeath(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(10)
	f.sk.Close()
	c.skb.Free() // the callback sees SOCK_DEAD and queues nothing
	requireClean(t, f.check(true))

	g := newFixture(t, "linux-6.18")
	g.sk.Hold()
	g.sk.Close()
	g.m.Notified(g.sk, ubuf.Notification{Lo: 0, Len: 1}, false)
	requireRule(t, g.check(false), kernel.RuleNotifyOnce, "after SOCK_DEAD")
}

// TCP on a route without scatter-gather copies the data and drops the
// only reference before the call returns: the notification comes first.
func TestNotifyEarlyCopyPath(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.calls++
	id := kernel.ObjectID{Kind: "sendmsg", Serial: f.calls}
	f.m.Before(f.sk)
	u, _ := ubuf.Alloc(f.h, f.sk, f.task, 100, id)
	u.Zerocopy = false
	u.Complete(id, true)
	f.m.Sent(f.sk, "copy path", sock.SendResult{N: 100, ZC: true, ID: 0, Uarg: u, Copied: true}, nil)
	requireClean(t, f.check(false))
	recs := f.readAll(f.sk)
	require.True(t, recs[0].Copied())
	requireClean(t, f.check(true))
}

func TestNotifyEarlyNeverReturned(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	id := kernel.ObjectID{Kind: "sendmsg", Serial: 1}
	u, _ := ubuf.Alloc(f.h, f.sk, f.task, 100, id)
	u.Complete(id, true)
	requireRule(t, f.check(true), kernel.RuleNotifyOnce, "no call returned it")
}

func TestNotifyEveryIDAtQuiescence(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(10)
	// Queued on a write queue: still covered by a live uarg.
	f.m.QueueSkbs = func(sk *sock.Sock) []*skb.Buff {
		if sk == f.sk && !c.skb.Freed() {
			return []*skb.Buff{c.skb}
		}
		return nil
	}
	requireClean(t, f.check(true))
	// A call reported an id no uarg ever covered.
	f.sk.SetZCKey(2)
	f.m.Sent(f.sk, "ghost", sock.SendResult{N: 1, ZC: true, ID: 1}, nil)
	requireRule(t, f.check(true), kernel.RuleNotifyOnce, "ghost (id 1) was never notified")
}

func TestNotifyQueueMatches(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(10)
	c.skb.Free()
	requireClean(t, f.check(false))
	f.sk.ErrQueue.Append(notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: 9, Data: 9})
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "holds 2 zerocopy records")
	recs := f.sk.ErrQueue.Purge()
	recs[1].Info, recs[1].Data = 4, 4
	f.sk.ErrQueue.Append(recs[1])
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "record 0 is [4,4]")
}

func TestNotifyReadMatches(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.m.Read(f.sk, notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING}) // ignored
	f.m.Read(f.sk, notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: 0, Data: 0})
	vs := f.check(false)
	requireRule(t, vs, kernel.RuleNotifyOnce, "no notification built it")
	requireRule(t, vs, kernel.RuleNotifyOnce, "outstanding")

	g := newFixture(t, "linux-6.18")
	c := g.send(10)
	c.skb.Free()
	g.m.Read(g.sk, notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: 0, Data: 1})
	requireRule(t, g.check(false), kernel.RuleNotifyOnce, "the notifications built [0,0]")
}

func TestNotifyMerge(t *testing.T) {
	for _, profile := range []string{"linux-6.18", "rfc-v2"} {
		t.Run(profile, func(t *testing.T) {
			f := newFixture(t, profile)
			a, b, c := f.send(10), f.send(10), f.send(10)
			a.skb.Free()
			b.skb.Free()
			c.skb.Free()
			require.Len(t, f.readAll(f.sk), 1)
			requireClean(t, f.check(true))
		})
	}
	f := newFixture(t, "linux-6.18")
	f.m.Notified(f.sk, ubuf.Notification{Lo: 0, Len: 1}, true)
	requireRule(t, f.check(false), kernel.RuleNotifyOnce, "without zerocopy records")

	g := newFixture(t, "linux-6.18")
	a, b := g.send(10), g.send(10)
	a.skb.Free()
	g.m.Notified(g.sk, ubuf.Notification{Lo: 5, Len: 1}, true)
	b.skb.Free()
	requireRule(t, g.check(false), kernel.RuleNotifyOnce, "which it does not follow")
}

// Rule 3.

func TestNotifyAfterPages(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(8192)
	c.buf.Page(1).Get() // something still reaches the second page
	c.skb.Free()
	v := requireRule(t, f.check(false), kernel.RuleNotifyAfterPages, "1 of its pages are still in flight")
	require.Equal(t, f.sk.Ident(), v.Object) // the uarg is gone by then
	require.Contains(t, v.Message, c.buf.Page(1).Ident().String())
}

func TestNotifyAfterPagesTxErrorKeptSkb(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	c.skb.TxError() // a driver that completes the uarg but keeps the skb
	requireRule(t, f.check(false), kernel.RuleNotifyAfterPages, "still in flight")
	c.skb.Free()
}

func TestNotifyAfterPagesSharedBuffer(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	a := f.send(100)
	// A second send from the same buffer, still in flight.
	f.calls++
	id := kernel.ObjectID{Kind: "sendmsg", Serial: f.calls}
	f.m.Before(f.sk)
	u, _ := ubuf.Alloc(f.h, f.sk, f.task, 100, id)
	b := skb.Alloc(f.h, 0)
	_, err := b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: a.buf, Len: 100}), 100, u, id)
	require.Equal(t, kernel.Errno(0), err)
	u.Complete(id, true)
	f.m.Sent(f.sk, "again", sock.SendResult{N: 100, ZC: true, ID: 1, Uarg: u}, a.buf)
	a.skb.Free()
	requireClean(t, f.check(false))
	b.Free()
	f.readAll(f.sk)
	requireClean(t, f.check(true))
}

// Rule 4.

func TestLeaks(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	requireClean(t, f.check(false))
	vs := f.check(true)
	v := requireRule(t, vs, kernel.RuleRefcount, "leaked at quiescence: uarg")
	require.Contains(t, v.Message, "holders [")
	require.NotEmpty(t, v.History)
	requireRule(t, vs, kernel.RuleRefcount, "leaked at quiescence: skb")
	requireRule(t, vs, kernel.RuleRefcount, "leaked at quiescence: dataref")
	requireRule(t, vs, kernel.RuleRefcount, "(user,order 0,refs 2)")
	c.skb.Free()
	mm.AllocPages(f.h, 0)
	requireRule(t, f.check(true), kernel.RuleRefcount, "leaked at quiescence: page")
}

func TestLeakedCallReference(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.begin(f.sk, 100) // the call never drops its reference
	f.m.QueueSkbs = func(*sock.Sock) []*skb.Buff { return []*skb.Buff{c.skb} }
	requireRule(t, f.check(true), kernel.RuleRefcount, "reference of sendmsg#1 never dropped")
}

func TestLeakedClosedSocket(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.sk.Hold()
	f.sk.Close()
	requireRule(t, f.check(true), kernel.RuleRefcount, "closed socket")
}

func TestUargHolders(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	other := skb.Alloc(f.h, 0)
	c.uarg.Get(other.Shinfo().Ident()) // a holder that does not point at it
	requireRule(t, f.check(false), kernel.RuleRefcount, "which does not point at it")
	c.uarg.Complete(other.Shinfo().Ident(), true)
	requireClean(t, f.check(false))
	other.Shinfo().Uarg = c.uarg // points at it without a reference
	other.Shinfo().Flags |= kernel.SKBFL_ZEROCOPY_ENABLE
	requireRule(t, f.check(false), kernel.RuleRefcount, "holds 0 of its references")
}

func TestUargHeldByFreedShinfo(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	b := skb.Alloc(f.h, 0)
	c.uarg.Get(b.Shinfo().Ident())
	b.Free()
	requireRule(t, f.check(false), kernel.RuleRefcount, "held by freed shinfo")
}

func TestShinfoPointsAtFreedUarg(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	b := skb.Alloc(f.h, 0)
	b.Shinfo().Uarg = c.uarg
	b.Shinfo().Flags |= kernel.SKBFL_ZEROCOPY_ENABLE
	c.skb.Free()
	vs := f.check(false)
	requireRule(t, vs, kernel.RuleRefcount, "points at freed uarg")
}

func TestPageRefs(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	p := mm.AllocPages(f.h, 0)
	s := c.skb.Shinfo()
	s.AddFrag(skb.Frag{Page: p, Size: 10}) // one get_page for two frags
	s.AddFrag(skb.Frag{Page: p, Size: 10})
	requireRule(t, f.check(false), kernel.RuleRefcount, "refcount 1 but 2 frags")
	p.Put()
	requireRule(t, f.check(false), kernel.RuleRefcount, "frag on freed page")
}

func TestSockRefs(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	requireClean(t, f.check(false))
	f.sk.Put() // drops the uarg's reference behind its back
	requireRule(t, f.check(false), kernel.RuleRefcount, "sk_refcnt 1 below the 2")
	f.sk.Hold()
	c.skb.Free()
}

func TestUargOutlivesSocket(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugNoSockRef)
	f.send(100)
	f.sk.Close()
	requireRule(t, f.check(false), kernel.RuleRefcount, "outlives its socket")
}

func TestDataref(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugTxErrorClone)
	c := f.send(100)
	clone, err := c.skb.Clone()
	require.Equal(t, kernel.Errno(0), err)
	requireClean(t, f.check(false))
	clone.TxError() // B22: clears the shared zerocopy state through a clone
	c.skb.Free()
	clone.Free()
	f.readAll(f.sk)
	requireClean(t, f.check(true))
}

// Rule 5.

func TestOptmem(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	f.sk.OmemAlloc += 100
	requireRule(t, f.check(false), kernel.RuleAccounting, "sk_omem_alloc")
	f.m.OtherOptmem = func(*sock.Sock) int { return 100 } // a cmsg buffer
	requireClean(t, f.check(false))
	c.skb.Free()
	requireClean(t, f.check(false))
}

func TestOptmemAdmission(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.begin(f.sk, 100)
	f.sk.Net.OptmemMax = 100
	f.end(f.sk, c, false)
	requireRule(t, f.check(false), kernel.RuleAccounting, "sock_omalloc admitted")
}

func TestLockedVM(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.task.Memlock = 64 << 10
	c := f.send(8192)
	require.Equal(t, uint64(4), f.task.User.LockedVM)
	requireClean(t, f.check(false))
	f.task.User.LockedVM++
	v := requireRule(t, f.check(false), kernel.RuleAccounting, "uid 1000 locked_vm 5 pages")
	require.Equal(t, kernel.ObjectID{Kind: "user", Serial: 1000}, v.Object)
	f.task.User.LockedVM--
	f.task.PinnedVM = 3
	requireRule(t, f.check(false), kernel.RuleAccounting, "task app pinned_vm 3")
	f.task.PinnedVM = 0
	c.skb.Free()
	requireClean(t, f.check(false))
}

func TestMemlockAdmission(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	f.task.Memlock = 64 << 10
	c := f.begin(f.sk, 8192)
	f.task.Memlock = 8 << 10 // the charge above is admitted against 2 pages
	f.end(f.sk, c, false)
	requireRule(t, f.check(false), kernel.RuleAccounting, "above task app's RLIMIT_MEMLOCK 2 pages")
}

// A task with a low limit sharing a user with a task that pinned a lot
// sees locked_vm above its own limit; its next send fails, nothing else.
func TestMemlockPerUserIsNotAStandingLimit(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	big := f.send(60000)
	small := &ubuf.Task{Name: "child", User: f.task.User, Memlock: 16 << 10}
	f.m.Tracked(nil, small)
	sk := f.socket(kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	sk.Task = small
	f.m.Before(sk)
	_, out := ubuf.Alloc(f.h, sk, small, 100, kernel.ObjectID{Kind: "sendmsg", Serial: 99})
	require.Equal(t, ubuf.FailMemlock, out)
	f.m.Sent(sk, "child send", sock.Fail(kernel.ENOBUFS), nil)
	requireClean(t, f.check(false))
	big.skb.Free()
}

func TestMemlockPerProcessBug(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugMemlockPerProcess)
	f.task.Memlock = 64 << 10
	c := f.begin(f.sk, 8192)
	f.task.Memlock = 4 << 10
	f.end(f.sk, c, false)
	requireRule(t, f.check(false), kernel.RuleAccounting, "pinned_vm 4 pages above")
}

func TestChargesAtQuiescence(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.h, 100)
	f.sk.ChargeW(b)
	f.m.QueueSkbs = func(*sock.Sock) []*skb.Buff { return []*skb.Buff{b} }
	requireClean(t, f.check(true))
	f.sk.WmemQueued += 10
	f.sk.RmemAlloc += 20
	vs := f.check(true)
	requireRule(t, vs, kernel.RuleAccounting, "sk_wmem_queued is 10")
	requireRule(t, vs, kernel.RuleAccounting, "sk_rmem_alloc is 20")
	requireClean(t, f.check(false)) // only at quiescence
	f.sk.WmemQueued, f.sk.RmemAlloc = 0, 0
	require.Equal(t, kernel.Errno(0), f.sk.QueueErr(notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Truesize: 300}))
	requireClean(t, f.check(true))
	f.sk.WmemAlloc++
	requireRule(t, f.check(true), kernel.RuleAccounting, "sk_wmem_alloc is")
}

func TestNotifyWmemBug(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugNotifyWmem)
	c := f.send(100)
	requireClean(t, f.check(false))
	c.skb.Free()
	f.readAll(f.sk)
	requireClean(t, f.check(true))
}

// Rule 6.

func TestCopiedFollowsUarg(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugCopiedAfterOverwrite)
	c := f.send(100)
	c.skb.Free()
	v := requireRule(t, f.check(false), kernel.RuleCopied, "copied=true but the uarg's zerocopy flag is true")
	require.Equal(t, "uarg", v.Object.Kind)
}

func TestCopiedLoopback(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	require.Equal(t, kernel.Errno(0), c.skb.OrphanFragsRx(kernel.CopyLoopback))
	f.m.RxQueued(f.sk, c.skb)
	c.skb.Free()
	recs := f.readAll(f.sk)
	require.True(t, recs[0].Copied())
	requireClean(t, f.check(true))
}

func TestCopiedSendResult(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.begin(f.sk, 100)
	f.end(f.sk, c, true) // the call says it copied, the uarg says zerocopy
	c.skb.Free()
	requireRule(t, f.check(false), kernel.RuleCopied, "copied its data but was notified without COPIED")
}

// Merging a COPIED range into a zerocopy record loses the COPIED: by
// design, not a violation.
func TestCopiedMergeLosesInformation(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	a, b := f.send(100), f.send(100)
	a.skb.Free()
	require.Equal(t, kernel.Errno(0), b.skb.OrphanFragsRx(kernel.CopyLoopback))
	b.skb.Free()
	recs := f.readAll(f.sk)
	require.Len(t, recs, 1)
	require.False(t, recs[0].Copied())
	requireClean(t, f.check(true))
}

func TestCopiedRecordCode(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	c.skb.Free()
	recs := f.sk.ErrQueue.Purge()
	recs[0].Code = kernel.SO_EE_CODE_ZEROCOPY_COPIED
	f.sk.ErrQueue.Append(recs[0])
	requireRule(t, f.check(false), kernel.RuleCopied, "has copied=true")
	r, _ := f.sk.RecvErrqueue()
	f.m.Read(f.sk, r)
	requireRule(t, f.check(false), kernel.RuleCopied, "with copied=true")
}

// Rule 7.

func TestRxPages(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	f.m.RxQueued(f.sk, c.skb) // looped without skb_orphan_frags_rx
	vs := f.check(false)
	v := requireRule(t, vs, kernel.RuleRxPages, "1 user pages on the receive queue")
	require.Equal(t, c.skb.Ident(), v.Object)
	requireRule(t, vs, kernel.RuleRxPages, "still holding uarg")
	c.skb.Free()
}

func TestRxQueuedIsARoot(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	require.Equal(t, kernel.Errno(0), c.skb.OrphanFragsRx(kernel.CopyLoopback))
	f.m.RxQueued(f.sk, c.skb)
	f.readAll(f.sk)
	requireClean(t, f.check(true))
	c.skb.Free()
	requireClean(t, f.check(true))
}

// Under the loopback switch the skb keeps the user's pages and its uarg:
// no rx-pages violation, and it still roots what it holds, so it is no
// leak until it is freed, when the notification comes.
func TestRxLoopedKeepsUserPages(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	c := f.send(100)
	require.Equal(t, kernel.Errno(0), c.skb.OrphanFrags())
	require.NotNil(t, c.skb.Zcopy(), "skb_orphan_frags leaves a msg_zerocopy uarg")
	f.m.RxLooped(f.sk, c.skb)
	requireClean(t, f.check(true))
	c.skb.Free()
	f.readAll(f.sk)
	requireClean(t, f.check(true))
}

func TestCopyUbufsNoFragsBug(t *testing.T) {
	f := newFixture(t, "linux-6.18", kernel.BugCopyUbufsNoFrags)
	sk := f.socket(kernel.SOCK_DGRAM, kernel.IPPROTO_UDP)
	c := f.begin(sk, 0)
	b := skb.Alloc(f.h, 64) // a 0-byte datagram: no frags
	have := true
	b.ZcopySet(c.uarg, c.id, &have)
	f.m.Sent(sk, c.label, sock.SendResult{ZC: true, ID: 0, Uarg: c.uarg}, c.buf)
	require.Equal(t, kernel.Errno(0), b.OrphanFragsRx(kernel.CopyLoopback))
	f.m.RxQueued(sk, b)
	requireRule(t, f.check(false), kernel.RuleRxPages, "still holding")
	b.Free()
}
