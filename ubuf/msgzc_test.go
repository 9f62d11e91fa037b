package ubuf_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

var (
	call1, call2, call3 = skbtest.Call(1), skbtest.Call(2), skbtest.Call(3)
	skbA                = kernel.ObjectID{Kind: "shinfo", Serial: 100}
)

// sockState is what Alloc and its failures may change on a socket.
type sockState struct {
	ZCKey    uint32
	Omem     int
	Refcnt   int
	LockedVM uint64
}

func stateOf(e *skbtest.Env, s *sock.Sock) sockState {
	return sockState{s.ZCKey(), s.OmemAlloc, s.Refcnt(), e.User.LockedVM}
}

func TestAlloc(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	s.SetZCKey(7)
	u, out := ubuf.Alloc(e.H, s, e.Task, 10000, call1)
	require.Equal(t, ubuf.Allocated, out)
	skbtest.CheckUarg(t, u, skbtest.Uarg{Refcnt: 1, Holders: []kernel.ObjectID{call1}, ID: 7, Len: 1, Bytelen: 10000, Zerocopy: true})
	require.Equal(t, ubuf.MsgZerocopy, u.Flavour)
	require.Equal(t, kernel.SKBFL_ZEROCOPY_ENABLE|kernel.SKBFL_SHARED_FRAG|kernel.SKBFL_DONT_ORPHAN, u.Flags)
	require.Equal(t, ubuf.MMPin{User: e.User, NumPg: 4}, u.Mmp)
	require.Equal(t, 832, u.Truesize)
	require.Equal(t, s, u.Socket())
	require.Equal(t, sockState{ZCKey: 8, Omem: 832, Refcnt: 2, LockedVM: 4}, stateOf(e, s))
	require.Equal(t, fmt.Sprintf("%v[id 7..7 refcnt 1]", u.Ident()), u.String())
	skbtest.NoViolations(t, e.H)
}

func TestAllocFailuresChangeNothing(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *skbtest.Env, s *sock.Sock)
		want  ubuf.Outcome
	}{
		{"optmem refusal", func(e *skbtest.Env, s *sock.Sock) { e.Net.OptmemMax = 575 }, ubuf.FailOptmem},
		{"fault site sock_omalloc", func(e *skbtest.Env, s *sock.Sock) {
			e.H.Faults = skbtest.Faults{kernel.FaultSockOmalloc: 1}
		}, ubuf.FailOptmem},
		{"memlock", func(e *skbtest.Env, s *sock.Sock) { e.Task.Memlock = 4096 }, ubuf.FailMemlock},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := skbtest.NewEnv(t, "linux-6.18")
			s := e.TCP()
			s.SetZCKey(3)
			tt.setup(e, s)
			before := stateOf(e, s)
			u, out := ubuf.Alloc(e.H, s, e.Task, 1, call1)
			require.Nil(t, u)
			require.Equal(t, tt.want, out)
			require.True(t, out.Failed())
			require.Equal(t, before, stateOf(e, s))
			skbtest.Live(t, e.H, map[string]int{"sock": 1})
			skbtest.NoViolations(t, e.H)
		})
	}
}

func TestReallocNilTail(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.UDP()
	u, out := ubuf.Realloc(e.H, s, e.Task, 100, nil, call1)
	require.Equal(t, ubuf.Allocated, out)
	require.Equal(t, uint32(0), u.ID)
	require.Equal(t, uint32(1), s.ZCKey())
}

func TestReallocForeign(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	legacy := ubuf.NewLegacy(e.H, skbA)
	u, out := ubuf.Realloc(e.H, s, e.Task, 100, legacy, call1)
	require.Nil(t, u)
	require.Equal(t, ubuf.FailForeign, out)
	require.Equal(t, uint32(0), s.ZCKey())
}

func TestReallocExtends(t *testing.T) {
	tests := []struct {
		name    string
		typ     kernel.SockType
		refcnt  int
		holders []kernel.ObjectID
	}{
		{"stream takes a reference", kernel.SOCK_STREAM, 2, []kernel.ObjectID{call1, call2}},
		{"datagram does not", kernel.SOCK_DGRAM, 1, []kernel.ObjectID{call1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := skbtest.NewEnv(t, "linux-6.18")
			s := e.Sock(kernel.AF_INET, tt.typ, 0)
			u, _ := ubuf.Alloc(e.H, s, e.Task, 4000, call1)
			got, out := ubuf.Realloc(e.H, s, e.Task, 5000, u, call2)
			require.Equal(t, ubuf.Extended, out)
			require.Same(t, u, got)
			skbtest.CheckUarg(t, u, skbtest.Uarg{Refcnt: tt.refcnt, Holders: tt.holders, Len: 2, Bytelen: 9000, Zerocopy: true})
			require.Equal(t, uint64(2+3), u.Mmp.NumPg)
			require.Equal(t, sockState{ZCKey: 2, Omem: 832, Refcnt: 2, LockedVM: 5}, stateOf(e, s), "one optmem charge, one socket ref")
		})
	}
}

func TestReallocMemlockFailure(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	e.Task.Memlock = 64 << 10
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 40000, call1) // 11 pages
	before := stateOf(e, s)
	got, out := ubuf.Realloc(e.H, s, e.Task, 20000, u, call2) // 4 + 2 = 6 more
	require.Nil(t, got)
	require.Equal(t, ubuf.FailMemlock, out)
	require.Equal(t, before, stateOf(e, s))
	skbtest.CheckUarg(t, u, skbtest.Uarg{Refcnt: 1, Holders: []kernel.ObjectID{call1}, Len: 1, Bytelen: 40000, Zerocopy: true})
}

// TestReallocLimits: at the 512 KiB byte limit and the 65534-call limit a
// stream socket starts a new uarg, a datagram socket fails.
func TestReallocLimits(t *testing.T) {
	type limit struct {
		name    string
		prepare func(s *sock.Sock, u *ubuf.Info) uint32 // returns the next size
		over    bool
	}
	limits := []limit{
		{"bytes exactly 512 KiB", func(s *sock.Sock, u *ubuf.Info) uint32 { return 1<<19 - u.Bytelen }, false},
		{"bytes over 512 KiB", func(s *sock.Sock, u *ubuf.Info) uint32 { return 1<<19 - u.Bytelen + 1 }, true},
		{"len 65533", func(s *sock.Sock, u *ubuf.Info) uint32 {
			u.Len = 65533
			s.SetZCKey(u.ID + 65533)
			return 1
		}, false},
		{"len 65534", func(s *sock.Sock, u *ubuf.Info) uint32 {
			u.Len = 65534
			s.SetZCKey(u.ID + 65534)
			return 1
		}, true},
	}
	for _, typ := range []kernel.SockType{kernel.SOCK_STREAM, kernel.SOCK_DGRAM} {
		for _, l := range limits {
			t.Run(fmt.Sprintf("%v/%s", typ, l.name), func(t *testing.T) {
				e := skbtest.NewEnv(t, "linux-6.18")
				s := e.Sock(kernel.AF_INET, typ, 0)
				u, _ := ubuf.Alloc(e.H, s, e.Task, 100000, call1)
				size := l.prepare(s, u)
				key := s.ZCKey()
				got, out := ubuf.Realloc(e.H, s, e.Task, size, u, call2)
				switch {
				case !l.over:
					require.Equal(t, ubuf.Extended, out)
					require.Same(t, u, got)
					require.Equal(t, key+1, s.ZCKey())
				case typ == kernel.SOCK_STREAM:
					require.Equal(t, ubuf.Allocated, out)
					require.NotSame(t, u, got)
					require.Equal(t, key, got.ID)
					require.Equal(t, uint16(1), got.Len)
					require.Equal(t, key+1, s.ZCKey())
					require.Equal(t, 2*832, s.OmemAlloc)
				default:
					require.Nil(t, got)
					require.Equal(t, ubuf.FailLimit, out)
					require.Equal(t, key, s.ZCKey())
					require.Equal(t, 832, s.OmemAlloc)
				}
			})
		}
	}
}

func TestReallocNotContiguous(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	u1, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	u2, _ := ubuf.Alloc(e.H, s, e.Task, 100, call2)
	u3, out := ubuf.Realloc(e.H, s, e.Task, 100, u1, call3)
	require.Equal(t, ubuf.Allocated, out)
	require.NotSame(t, u1, u3)
	require.NotSame(t, u2, u3)
	require.Equal(t, uint32(2), u3.ID)
	require.Equal(t, uint16(1), u1.Len)
	skbtest.Refs(t, u1, 1, call1)
}

func TestReallocFailsBug(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18", kernel.BugReallocFails)
	s := e.TCP()
	u1, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	ubuf.Alloc(e.H, s, e.Task, 100, call2)
	got, out := ubuf.Realloc(e.H, s, e.Task, 100, u1, call3)
	require.Nil(t, got)
	require.Equal(t, ubuf.FailNotContiguous, out)
	require.Equal(t, uint32(2), s.ZCKey())

	u3, _ := ubuf.Alloc(e.H, s, e.Task, 1<<19, call3)
	got, out = ubuf.Realloc(e.H, s, e.Task, 1, u3, call3)
	require.Nil(t, got)
	require.Equal(t, ubuf.FailLimit, out, "the stream socket fails instead of allocating")
	require.Equal(t, uint32(3), s.ZCKey())
}

func TestIDsWrap(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	s.SetZCKey(0xFFFFFFFF)
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	require.Equal(t, uint32(0xFFFFFFFF), u.ID)
	require.Equal(t, uint32(0), s.ZCKey())
	_, out := ubuf.Realloc(e.H, s, e.Task, 100, u, call2)
	require.Equal(t, ubuf.Extended, out, "id + len wraps in u32 and still matches sk_zckey")
	require.Equal(t, uint32(1), s.ZCKey())
	require.Equal(t, fmt.Sprintf("%v[id 4294967295..0 refcnt 2]", u.Ident()), u.String())
}

func TestID16Bug(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18", kernel.BugID16)
	s := e.TCP()
	s.SetZCKey(65535)
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	require.Equal(t, uint32(65535), u.ID)
	require.Equal(t, uint32(0), s.ZCKey(), "16-bit ids wrap at 65536")
	_, out := ubuf.Realloc(e.H, s, e.Task, 100, u, call2)
	require.Equal(t, ubuf.Extended, out)
	require.Equal(t, uint32(1), s.ZCKey())
	require.Equal(t, uint16(2), u.Len)
}

func TestCompleteQueuesNotification(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	s.SetZCKey(5)
	u, _ := ubuf.Alloc(e.H, s, e.Task, 4000, call1)
	ubuf.Realloc(e.H, s, e.Task, 4000, u, call2)
	u.Get(skbA)
	skbtest.Refs(t, u, 3, call1, call2, skbA)

	u.Complete(call2, true)
	u.Complete(skbA, false) // one copy anywhere makes the range COPIED
	require.False(t, u.Zerocopy)
	require.Zero(t, s.ErrQueue.Len(), "not before the last reference")
	u.Complete(call1, true)
	require.False(t, u.Zerocopy, "success is ANDed")
	require.True(t, u.Freed())

	want := []notify.Record{{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Code: kernel.SO_EE_CODE_ZEROCOPY_COPIED, Info: 5, Data: 6, Truesize: 832}}
	if d := cmp.Diff(want, s.ErrQueue.Records()); d != "" {
		t.Errorf("error queue (-want +got):\n%s", d)
	}
	require.Equal(t, sockState{ZCKey: 7, Omem: 832, Refcnt: 1, LockedVM: 0}, stateOf(e, s),
		"the notification keeps its optmem charge; pages and the socket ref are returned")
	skbtest.NoViolations(t, e.H)
}

func TestCompleteSuccess(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	var got []ubuf.Notification
	s.OnNotify = func(n ubuf.Notification, merged bool) { got = append(got, n) }
	u, _ := ubuf.Alloc(e.H, s, e.Task, 4000, call1)
	u.Complete(call1, true)
	require.Equal(t, []ubuf.Notification{{Lo: 0, Len: 1, Copied: false, Truesize: 832, Uarg: u.Ident()}}, got)
	require.Equal(t, uint8(0), s.ErrQueue.Records()[0].Code)
}

func TestCompleteWithoutNotification(t *testing.T) {
	t.Run("dead socket", func(t *testing.T) {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.TCP()
		u, _ := ubuf.Alloc(e.H, s, e.Task, 4000, call1)
		s.Close()
		require.Equal(t, 1, s.Refcnt(), "the uarg keeps the socket")
		u.Complete(call1, true)
		require.Zero(t, s.ErrQueue.Len())
		require.Zero(t, s.OmemAlloc)
		require.Zero(t, e.User.LockedVM)
		require.True(t, s.Freed(), "the uarg held the last socket reference")
		skbtest.NoViolations(t, e.H)
	})
	t.Run("len 0", func(t *testing.T) {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.TCP()
		u, _ := ubuf.Alloc(e.H, s, e.Task, 4000, call1)
		u.PutAbort(call1, true)
		require.True(t, u.Freed())
		require.Zero(t, s.ErrQueue.Len())
		require.Equal(t, sockState{ZCKey: 0, Omem: 0, Refcnt: 1, LockedVM: 0}, stateOf(e, s))
		skbtest.NoViolations(t, e.H)
	})
}

func TestCompleteMisuse(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	u.Get(skbA)
	u.Complete(call2, true)
	skbtest.Violations(t, e.H, skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(),
		Message: "put by sendmsg#2, which holds no reference (holders [sendmsg#1 shinfo#100])"})
	require.Equal(t, 1, u.Refcnt(), "the count still drops, as the kernel's would")

	u.Complete(call1, true)
	require.True(t, u.Freed())
	u.Complete(skbA, true)
	u.Get(skbA)
	u.Transfer(skbA, call1)
	skbtest.Violations(t, e.H,
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(), Message: "put after free"},
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(), Message: "get after free"},
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(), Message: "transfer after free"},
	)
	require.Equal(t, 1, s.ErrQueue.Len(), "one notification only")
}

func TestCopiedAfterOverwriteBug(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18", kernel.BugCopiedAfterOverwrite)
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	u.Complete(call1, true)
	require.True(t, s.ErrQueue.Records()[0].Copied(), "B11 always reports COPIED")
}

func TestNoSockRefBug(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18", kernel.BugNoSockRef)
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	require.Equal(t, 1, s.Refcnt(), "no sock_hold")
	u.Complete(call1, true)
	require.Equal(t, 1, s.Refcnt(), "no sock_put")
	require.Equal(t, 1, s.ErrQueue.Len())
}

func TestPutAbort(t *testing.T) {
	t.Run("extended stream uarg", func(t *testing.T) {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.TCP()
		u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
		ubuf.Realloc(e.H, s, e.Task, 100, u, call2)
		u.PutAbort(call2, true)
		skbtest.CheckUarg(t, u, skbtest.Uarg{Refcnt: 1, Holders: []kernel.ObjectID{call1}, Len: 1, Bytelen: 200, Zerocopy: true})
		require.Equal(t, uint32(1), s.ZCKey())
		u.Complete(call1, true)
		require.Equal(t, notify.Range{Lo: 0, Hi: 0}, s.ErrQueue.Records()[0].Range())
	})
	t.Run("extended datagram uarg", func(t *testing.T) {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.UDP()
		u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
		ubuf.Realloc(e.H, s, e.Task, 100, u, call2)
		u.PutAbort(call2, false)
		skbtest.CheckUarg(t, u, skbtest.Uarg{Refcnt: 1, Holders: []kernel.ObjectID{call1}, Len: 1, Bytelen: 200, Zerocopy: true})
		require.Equal(t, uint32(1), s.ZCKey())
	})
	t.Run("abort gap bug", func(t *testing.T) {
		e := skbtest.NewEnv(t, "linux-6.18", kernel.BugAbortGap)
		s := e.TCP()
		u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
		u.PutAbort(call1, true)
		require.Equal(t, uint32(1), s.ZCKey(), "the aborted id is consumed")
		require.Zero(t, s.ErrQueue.Len())
		v, _ := ubuf.Alloc(e.H, s, e.Task, 100, call2)
		require.Equal(t, uint32(1), v.ID)
	})
}

func TestTransfer(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	u.Get(call2)
	u.Transfer(call1, skbA)
	skbtest.Refs(t, u, 2, call2, skbA)
	u.Transfer(call1, skbA)
	skbtest.Violations(t, e.H, skbtest.Violation{Rule: kernel.RuleRefcount, Object: u.Ident(),
		Message: "sendmsg#1 hands on a reference it does not hold"})
	skbtest.Refs(t, u, 2, call2, skbA)
	require.Equal(t, []kernel.ObjectID{call2, skbA}, slices.Collect(u.AllHolders()))
	require.Equal(t, 1, u.HeldBy(skbA))
	require.Zero(t, u.HeldBy(call1))
	u.Get(skbA)
	require.Equal(t, 2, u.HeldBy(skbA))
}

// A uarg with many holders counts them the same way as with few, and
// Moved yields those taken and dropped since it was last called, oldest
// first.
func TestManyHolders(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	u, _ := ubuf.Alloc(e.H, e.TCP(), e.Task, 100, call1)
	shinfo := func(i int) kernel.ObjectID { return kernel.ObjectID{Kind: "shinfo", Serial: uint64(1000 + i)} }
	for i := range 20 {
		u.Get(shinfo(i))
	}
	u.Get(shinfo(3))
	e.H.KeepTouched = true // a checker looks: drops are recorded
	taken, dropped := u.Moved()
	require.Len(t, taken, 22, "never looked at: every holder")
	require.Empty(t, dropped)
	require.Equal(t, 2, u.HeldBy(shinfo(3)))
	require.Equal(t, 1, u.HeldBy(call1))
	require.Zero(t, u.HeldBy(shinfo(20)))
	taken, dropped = u.Moved()
	require.Empty(t, taken)
	require.Empty(t, dropped)

	u.Complete(shinfo(3), true)
	require.Equal(t, 1, u.HeldBy(shinfo(3)))
	u.Complete(shinfo(3), true)
	require.Zero(t, u.HeldBy(shinfo(3)))
	u.Get(shinfo(21))
	u.Transfer(call1, shinfo(22))
	taken, dropped = u.Moved()
	require.Equal(t, []kernel.ObjectID{shinfo(21), shinfo(22)}, taken)
	require.Equal(t, []kernel.ObjectID{shinfo(3), shinfo(3), call1}, dropped)
	require.Equal(t, 1, u.HeldBy(shinfo(22)))
	require.Zero(t, u.HeldBy(call1))
	require.Equal(t, u.Refcnt(), len(u.Holders()))
}

func TestLegacy(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	u := ubuf.NewLegacy(e.H, skbA)
	require.Equal(t, ubuf.Legacy, u.Flavour)
	require.Equal(t, kernel.SKBFL_ZEROCOPY_FRAG, u.Flags)
	require.Equal(t, fmt.Sprintf("%v[legacy refcnt 1]", u.Ident()), u.String())
	require.Equal(t, "ubuf", u.Ident().Kind)
	require.Nil(t, u.Socket())

	u.Get(call1)
	u.PutAbort(call2, false) // no reference: nothing happens
	require.Equal(t, 2, u.Refcnt())
	u.Complete(skbA, false)
	require.False(t, u.Done)
	u.PutAbort(call1, true) // a plain put on other ubufs
	require.True(t, u.Done)
	require.True(t, u.Success, "the last drop's success")
	require.False(t, u.Zerocopy, "the legacy union has no zerocopy field")
	require.True(t, u.Freed())
	require.Equal(t, ubuf.MMPin{}, u.Mmp)
	skbtest.NoViolations(t, e.H)
}

func TestOutcome(t *testing.T) {
	want := map[ubuf.Outcome]string{
		ubuf.NoUarg:            "no uarg",
		ubuf.Allocated:         "allocated a new uarg",
		ubuf.Extended:          "extended the tail uarg",
		ubuf.FailOptmem:        "sock_omalloc failed (optmem)",
		ubuf.FailMemlock:       "mm_account_pinned_pages failed (RLIMIT_MEMLOCK)",
		ubuf.FailLimit:         "the tail uarg reached its byte or call limit",
		ubuf.FailForeign:       "the tail skb's uarg is not a msg_zerocopy uarg",
		ubuf.FailNotContiguous: "the tail uarg's ids are not the latest",
	}
	for o, s := range want {
		require.Equal(t, s, o.String())
		require.Equal(t, o >= ubuf.FailOptmem, o.Failed(), s)
	}
	require.Equal(t, ubuf.Outcome(0), ubuf.NoUarg)
	require.Equal(t, "outcome 99", ubuf.Outcome(99).String())
}

func TestNotificationHi(t *testing.T) {
	require.Equal(t, uint32(6), ubuf.Notification{Lo: 5, Len: 2}.Hi())
	require.Equal(t, uint32(0), ubuf.Notification{Lo: 0xFFFFFFFF, Len: 2}.Hi())
}

func BenchmarkAllocComplete(b *testing.B) {
	e := skbtest.NewEnv(b, "linux-6.18")
	s := e.TCP()
	b.ReportAllocs()
	for b.Loop() {
		u, _ := ubuf.Alloc(e.H, s, e.Task, 65536, call1)
		u.Complete(call1, true)
		s.RecvErrqueue()
	}
}

// A TCP send extends the uarg of its unsent tail skb; the skb's reference
// and the calls' temporary references go, and the last one queues one
// notification covering both calls.
func ExampleRealloc() {
	p, _ := kernel.Lookup("linux-6.18")
	h := kernel.NewHost(p)
	task := &ubuf.Task{User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	sk := sock.New(h, sock.DefaultSysctl(p), task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	sk.SetZerocopy(1)
	send1, send2 := kernel.ObjectID{Kind: "sendmsg", Serial: 1}, kernel.ObjectID{Kind: "sendmsg", Serial: 2}
	tailSkb := kernel.ObjectID{Kind: "skb", Serial: 99}

	u, out := ubuf.Alloc(h, sk, task, 4000, send1)
	fmt.Printf("%v: %v locked_vm %d\n", out, u, task.User.LockedVM)
	u.Get(tailSkb)
	u.Complete(send1, true)
	_, out = ubuf.Realloc(h, sk, task, 4000, u, send2)
	fmt.Printf("%v: %v sk_zckey %d\n", out, u, sk.ZCKey())
	u.Complete(send2, true)
	u.Complete(tailSkb, true)
	r, _ := sk.RecvErrqueue()
	fmt.Println("notification:", r, "locked_vm", task.User.LockedVM)
	// Output:
	// allocated a new uarg: uarg#2[id 0..0 refcnt 1] locked_vm 2
	// extended the tail uarg: uarg#2[id 0..1 refcnt 2] sk_zckey 2
	// notification: zerocopy [0,1] locked_vm 0
}

// Extends answers what Realloc will do with a tail, and changes nothing.
func TestExtends(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	u1, _ := ubuf.Alloc(e.H, s, e.Task, 100, call1)
	p := e.H.Profile
	require.Equal(t, ubuf.Extended, ubuf.Extends(p, s, u1, 100))
	require.Equal(t, ubuf.FailLimit, ubuf.Extends(p, s, u1, 1<<19))
	require.Equal(t, uint32(1), s.ZCKey())
	require.Equal(t, uint16(1), u1.Len)
	u2, _ := ubuf.Alloc(e.H, s, e.Task, 100, call2)
	require.Equal(t, ubuf.FailNotContiguous, ubuf.Extends(p, s, u1, 100))
	require.Equal(t, ubuf.Extended, ubuf.Extends(p, s, u2, 100))
}

// What the live uargs charge (User.Charged) and how many a socket has
// (sock.Sock.LiveUargs) follow the allocation, the extension, the
// completion and a free: a uarg freed while still charged leaves
// locked_vm above what the live uargs charge.
func TestLiveCharges(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	sk := e.TCP()
	u, out := ubuf.Alloc(e.H, sk, e.Task, 5000, call1)
	require.Equal(t, ubuf.Allocated, out)
	require.Equal(t, e.User.LockedVM, e.User.Charged())
	require.NotZero(t, e.User.Charged())
	n, bytes := sk.LiveUargs()
	require.Equal(t, []int{1, u.Truesize}, []int{n, bytes})
	_, out = ubuf.Realloc(e.H, sk, e.Task, 5000, u, call2)
	require.Equal(t, ubuf.Extended, out)
	require.Equal(t, e.User.LockedVM, e.User.Charged())
	v, _ := ubuf.Alloc(e.H, sk, e.Task, 100, call1)
	u.Complete(call1, true)
	u.Complete(call2, true) // the last reference: unaccounted and freed
	require.Equal(t, e.User.LockedVM, e.User.Charged())
	n, bytes = sk.LiveUargs()
	require.Equal(t, []int{1, v.Truesize}, []int{n, bytes})
	v.Free() // behind the callback's back: still charged
	require.Zero(t, e.User.Charged())
	require.NotZero(t, e.User.LockedVM)
	n, _ = sk.LiveUargs()
	require.Zero(t, n)
}
