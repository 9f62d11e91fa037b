// Package coremodel explores the core model (ubuf, skb, sock, notify) with
// a rapid state machine: random sequences of MSG_ZEROCOPY send calls and
// skb operations, with every invariant of package check verified after
// each step and full quiescence verified at the end.
package coremodel

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/check"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// faults is a FaultSource the test controls: an armed site fails once.
type faults struct{ armed map[string]bool }

func (f *faults) Fail(site string) bool {
	if f.armed[site] {
		f.armed[site] = false
		return true
	}
	return false
}

// sockModel is one socket and what the test expects of it.
type sockModel struct {
	sk     *sock.Sock
	stream bool
	closed bool
	// tail is the skb the next send may append to: TCP's write-queue tail
	// while unsent, UDP's cork while MSG_MORE.
	tail *skb.Buff
	// next is the id the next successful call must get.
	next uint32
	// callID is the id of the call in progress, if any (callBusy).
	callID   uint32
	callBusy bool
	sent     map[uint32]bool // returned by a call, not yet notified
	notified map[uint32]bool // notified, not yet read
	early    map[uint32]bool // notified while their call was in progress
	all      map[uint32]bool // every id a call returned
	read     map[uint32]bool // every id read from the error queue
}

// machine is the system under test and its model.
type machine struct {
	p      *kernel.Profile
	h      *kernel.Host
	net    *sock.Sysctl
	faults *faults
	mon    *check.Monitor
	tasks  []*ubuf.Task
	socks  []*sockModel
	skbs   []*skb.Buff // live skbs the test owns, one user each
	calls  uint64
	errs   []string // model mismatches found inside callbacks
}

func newMachine(t *rapid.T) *machine {
	profiles := kernel.Profiles()
	p := profiles[rapid.IntRange(0, len(profiles)-1).Draw(t, "profile")]
	h := kernel.NewHost(p)
	f := &faults{armed: map[string]bool{}}
	h.Faults = f
	m := &machine{p: p, h: h, net: sock.DefaultSysctl(p), faults: f, mon: check.NewMonitor()}
	users := []*ubuf.User{{UID: 1000}, {UID: 1001}}
	limits := []uint64{p.MemlockDefault, 64 << 10, 256 << 10, kernel.RLIM_INFINITY, 16 << 10, 4096, 0}
	for i := range rapid.IntRange(1, 3).Draw(t, "tasks") {
		task := &ubuf.Task{
			Name:       fmt.Sprintf("task%d", i),
			User:       users[rapid.IntRange(0, 1).Draw(t, "user")],
			Memlock:    rapid.SampledFrom(limits).Draw(t, "memlock"),
			CapIPCLock: rapid.IntRange(0, 4).Draw(t, "cap") == 0,
		}
		m.tasks = append(m.tasks, task)
		m.mon.Tracked(nil, task)
	}
	m.socket(t)
	return m
}

func (m *machine) failf(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf("step %d: ", m.h.Step)+fmt.Sprintf(format, args...))
}

// classes returns the socket classes the profile implements MSG_ZEROCOPY for.
func (m *machine) classes() []kernel.SocketClass {
	var out []kernel.SocketClass
	for _, c := range []kernel.SocketClass{kernel.ClassTCP, kernel.ClassUDP} {
		if m.p.Accepts(c) {
			out = append(out, c)
		}
	}
	return out
}

func (m *machine) socket(t *rapid.T) {
	if len(m.socks) >= 4 {
		return
	}
	class := rapid.SampledFrom(m.classes()).Draw(t, "class")
	task := rapid.SampledFrom(m.tasks).Draw(t, "owner")
	typ, proto := kernel.SOCK_STREAM, kernel.IPPROTO_TCP
	if class == kernel.ClassUDP {
		typ, proto = kernel.SOCK_DGRAM, kernel.IPPROTO_UDP
	}
	sk := sock.New(m.h, m.net, task, kernel.AF_INET, typ, proto)
	if m.p.OptIn {
		require.Equal(t, kernel.Errno(0), sk.SetZerocopy(1))
	}
	require.True(t, sk.Zerocopy(), "MSG_ZEROCOPY must take effect on %v under %s", sk, m.p.Name)
	key := rapid.SampledFrom([]uint32{0, 0, 1<<32 - 3, 1<<32 - 1}).Draw(t, "zckey")
	sk.SetZCKey(key)
	s := &sockModel{sk: sk, stream: class == kernel.ClassTCP, next: key,
		sent: map[uint32]bool{}, notified: map[uint32]bool{}, early: map[uint32]bool{},
		all: map[uint32]bool{}, read: map[uint32]bool{}}
	sk.OnNotify = func(n ubuf.Notification, merged bool) { m.modelNotify(s, n) }
	m.mon.Tracked(sk, task)
	m.socks = append(m.socks, s)
}

// modelNotify checks a notification against the model: every id it covers
// was returned by a call and not notified, or belongs to the call in
// progress; none arrives after close, unless the profile queues a dead
// socket's notifications (the RFC v2, Profile.NotifyDeadSocket).
func (m *machine) modelNotify(s *sockModel, n ubuf.Notification) {
	if s.closed && !m.p.NotifyDeadSocket {
		m.failf("%v: notification [%d,%d] after close", s.sk, n.Lo, n.Hi())
	}
	for i := uint32(0); i < n.Len; i++ {
		id := n.Lo + i
		switch {
		case s.sent[id]:
			delete(s.sent, id)
		case s.callBusy && id == s.callID && !s.early[id]:
			s.early[id] = true
		default:
			m.failf("%v: notification [%d,%d] covers id %d, which is not outstanding", s.sk, n.Lo, n.Hi(), id)
			continue
		}
		s.notified[id] = true
	}
}

// returned is the model's side of a call that returned id.
func (m *machine) returned(s *sockModel, id uint32) {
	if id != s.next {
		m.failf("%v: call got id %d, want %d", s.sk, id, s.next)
	}
	s.next = id + 1
	s.all[id] = true
	if s.early[id] {
		delete(s.early, id)
	} else {
		s.sent[id] = true
	}
}

func (m *machine) open(t *rapid.T) *sockModel {
	var open []*sockModel
	for _, s := range m.socks {
		if !s.closed {
			open = append(open, s)
		}
	}
	if len(open) == 0 {
		return nil
	}
	return rapid.SampledFrom(open).Draw(t, "sock")
}

// drawSize picks a send size: zero, small, large, or at the edge of what
// the owner's RLIMIT_MEMLOCK still admits.
func (m *machine) drawSize(t *rapid.T, s *sockModel) int {
	maxSize := 600000
	if !s.stream {
		maxSize = 65507
	}
	switch rapid.IntRange(0, 5).Draw(t, "size kind") {
	case 0, 1:
		return rapid.IntRange(1, 3*kernel.PageSize).Draw(t, "small")
	case 2:
		return rapid.IntRange(1, maxSize).Draw(t, "large")
	case 3:
		return 0
	}
	task := s.sk.Task
	free := int64(task.Memlock>>kernel.PageShift) - int64(task.User.LockedVM)
	edge := (free-2)<<kernel.PageShift + int64(rapid.SampledFrom([]int{-1, 0, 4095, 4096}).Draw(t, "edge"))
	if !s.stream {
		edge -= 8 // UDP accounts payload + 8
	}
	return int(min(max(edge, 0), int64(maxSize)))
}

// send is one sendmsg(MSG_ZEROCOPY) call: msg_zerocopy_realloc on the
// tail's uarg, pages pinned into skbs, then either success (TCP drops the
// call's reference, UDP handed it to the first skb) or a failure that
// rolls the id back (msg_zerocopy_put_abort).
func (m *machine) send(t *rapid.T) {
	s := m.open(t)
	if s == nil {
		return
	}
	sk := s.sk
	size := m.drawSize(t, s)
	abort := rapid.IntRange(0, 4).Draw(t, "abort") == 0
	copyRoute := s.stream && rapid.IntRange(0, 5).Draw(t, "no SG") == 0
	more := !s.stream && rapid.Bool().Draw(t, "MSG_MORE")
	if rapid.IntRange(0, 5).Draw(t, "fail sock_omalloc") == 0 {
		m.faults.armed[kernel.FaultSockOmalloc] = true
	}
	m.calls++
	call := kernel.ObjectID{Kind: "sendmsg", Serial: m.calls}
	label := fmt.Sprintf("send#%d(%d bytes)", m.calls, size)
	m.mon.Before(sk)
	defer func() { m.faults.armed = map[string]bool{} }()
	if s.stream && size == 0 {
		m.mon.Sent(sk, label, sock.SendResult{}, nil)
		return
	}
	var tailUarg *ubuf.Info
	if s.tail != nil {
		tailUarg = s.tail.Zcopy()
	}
	acct := size
	if !s.stream {
		acct += 8
	}
	before := sk.ZCKey()
	u, out := ubuf.Realloc(m.h, sk, sk.Task, uint32(acct), tailUarg, call)
	if out.Failed() {
		r := sock.Fail(kernel.ENOBUFS)
		r.Outcome = out
		m.mon.Sent(sk, label, r, nil)
		return
	}
	id := sk.ZCKey() - 1
	if id != before {
		m.failf("%v: %v took id %d, sk_zckey was %d", sk, out, id, before)
	}
	s.callID, s.callBusy = id, true
	defer func() { s.callBusy = false }()
	buf := mm.NewBuffer(m.h, size)
	// The call owns a reference: alloc's, or a stream realloc's.
	haveRef := !(out == ubuf.Extended && !s.stream)
	switch {
	case copyRoute:
		u.Zerocopy = false // tcp_sendmsg_locked on a route without NETIF_F_SG
	case abort && s.stream:
		// TCP fails before queuing a byte: no skb got the uarg.
	case abort:
		haveRef = m.attach(t, s, u, call, buf, rapid.IntRange(0, size).Draw(t, "attached"), haveRef)
	default:
		haveRef = m.attach(t, s, u, call, buf, size, haveRef)
	}
	if abort {
		u.PutAbort(call, haveRef)
		r := sock.Fail(kernel.EFAULT)
		r.Outcome = out
		m.mon.Sent(sk, label, r, buf)
		if !s.stream {
			s.tail = nil // the failed call discards the cork
		}
		if sk.ZCKey() != before {
			m.failf("%v: aborted call left sk_zckey %d, was %d", sk, sk.ZCKey(), before)
		}
		return
	}
	if haveRef {
		u.Complete(call, true)
	}
	m.returned(s, id)
	m.mon.Sent(sk, label, sock.SendResult{N: size, ZC: true, ID: id, Uarg: u, Outcome: out, Copied: copyRoute}, buf)
	if !s.stream && !more {
		s.tail = nil // the datagram leaves: no cork to extend
	}
}

// attach pins n bytes of buf into skbs with uarg u: the socket's tail skb
// first when it already carries u, then fresh skbs of at most
// MAX_SKB_FRAGS frags. A datagram hands the call's reference to the first
// new skb (skb_zcopy_set with have_uref); every other skb takes its own.
// It returns whether the call still owns its reference.
func (m *machine) attach(t *rapid.T, s *sockModel, u *ubuf.Info, call kernel.ObjectID, buf *mm.Buffer, n int, haveRef bool) bool {
	it := mm.NewIter(mm.Iovec{Buf: buf, Len: n})
	left := n
	for first := true; first || left > 0; first = false {
		b := s.tail
		if b == nil || b.Freed() || b.Zcopy() != u || b.IsCloned() {
			b = skb.Alloc(m.h, 0)
			m.skbs = append(m.skbs, b)
		}
		if !s.stream {
			b.ZcopySet(u, call, &haveRef)
		}
		added, err := b.ZerocopyFromIter(it, left, u, call)
		if err == kernel.EMSGSIZE && b == s.tail {
			s.tail = nil // full: a new segment
			first = true
			continue
		}
		require.Equal(t, kernel.Errno(0), err, "ZerocopyFromIter on %v", b)
		left -= added
		s.tail = b
	}
	return haveRef
}

// pick draws one of the test's live skbs matching ok, or returns nil.
// Actions without an object do nothing rather than skip: rapid gives up
// when too many actions in a row are skipped.
func (m *machine) pick(t *rapid.T, ok func(*skb.Buff) bool) *skb.Buff {
	var c []*skb.Buff
	for _, b := range m.skbs {
		if ok == nil || ok(b) {
			c = append(c, b)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return rapid.SampledFrom(c).Draw(t, "skb")
}

// untail stops sends from appending to b: it was transmitted, split,
// or freed.
func (m *machine) untail(b *skb.Buff) {
	for _, s := range m.socks {
		if s.tail == b {
			s.tail = nil
		}
	}
}

func (m *machine) free(b *skb.Buff) {
	m.untail(b)
	m.skbs = slices.DeleteFunc(m.skbs, func(x *skb.Buff) bool { return x == b })
	b.Free()
}

func (m *machine) add(bs ...*skb.Buff) { m.skbs = append(m.skbs, bs...) }

func (m *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"socket": m.socket,
		// Sends are drawn three times as often as other actions.
		"send":   m.send,
		"send/2": m.send,
		"send/3": m.send,
		"clone": func(t *rapid.T) {
			b := m.pick(t, nil)
			if b == nil {
				return
			}
			m.untail(b)
			c, err := b.Clone()
			require.Equal(t, kernel.Errno(0), err)
			m.add(c)
		},
		"copy": func(t *rapid.T) {
			b := m.pick(t, nil)
			if b == nil {
				return
			}
			c, err := b.Copy()
			require.Equal(t, kernel.Errno(0), err)
			m.add(c)
		},
		"split": func(t *rapid.T) {
			b := m.pick(t, func(b *skb.Buff) bool { return b.Len >= 2 && !b.IsCloned() })
			if b == nil {
				return
			}
			m.untail(b)
			b1, err := b.Split(rapid.IntRange(1, b.Len-1).Draw(t, "at"))
			require.Equal(t, kernel.Errno(0), err)
			m.add(b1)
		},
		"segment": func(t *rapid.T) {
			b := m.pick(t, func(b *skb.Buff) bool { return b.Len > 0 })
			if b == nil {
				return
			}
			mss := rapid.IntRange((b.Len+7)/8, b.Len).Draw(t, "mss")
			segs, err := b.Segment(mss)
			require.Equal(t, kernel.Errno(0), err)
			m.add(segs...)
			if rapid.Bool().Draw(t, "consume") {
				m.free(b)
			}
		},
		"expand_head": func(t *rapid.T) {
			if b := m.pick(t, nil); b != nil {
				require.Equal(t, kernel.Errno(0), b.ExpandHead())
			}
		},
		"orphan_frags_rx": func(t *rapid.T) {
			b := m.pick(t, nil)
			if b == nil {
				return
			}
			fail := rapid.IntRange(0, 4).Draw(t, "fail copy") == 0
			m.faults.armed[kernel.FaultCopyUbufs] = fail
			err := b.OrphanFragsRx(kernel.CopyLoopback)
			m.faults.armed = map[string]bool{}
			if err != 0 {
				require.True(t, fail, "skb_orphan_frags_rx: %v", err)
				return
			}
			m.untail(b)
			m.mon.RxQueued(m.socks[rapid.IntRange(0, len(m.socks)-1).Draw(t, "receiver")].sk, b)
		},
		"tx_error": func(t *rapid.T) {
			b := m.pick(t, nil)
			if b == nil {
				return
			}
			b.TxError()
			m.free(b) // the driver frees what it failed to send
		},
		"pull_tail": func(t *rapid.T) {
			b := m.pick(t, func(b *skb.Buff) bool { return b.DataLen > 0 })
			if b == nil {
				return
			}
			m.untail(b)
			require.Equal(t, kernel.Errno(0), b.PullTail(rapid.IntRange(1, b.DataLen).Draw(t, "delta")))
		},
		"free": func(t *rapid.T) {
			if b := m.pick(t, nil); b != nil {
				m.free(b)
			}
		},
		"read": func(t *rapid.T) {
			if s := m.open(t); s != nil {
				m.read(s)
			}
		},
		"close": func(t *rapid.T) {
			s := m.open(t)
			if s == nil || rapid.IntRange(0, 2).Draw(t, "really close") != 0 {
				return
			}
			s.closed, s.tail = true, nil
			s.sk.Close()
		},
		"optmem_max": func(t *rapid.T) {
			m.net.OptmemMax = rapid.SampledFrom([]int{m.p.OptmemMax, 20480, 3072, 2240, 1408, 576, 0}).Draw(t, "optmem_max")
		},
		"": m.check,
	}
}

// read is one recvmsg(MSG_ERRQUEUE); it reports whether a record came.
func (m *machine) read(s *sockModel) bool {
	rec, err := s.sk.RecvErrqueue()
	if err != 0 {
		if err != kernel.EAGAIN {
			m.failf("%v: recvmsg(MSG_ERRQUEUE): %v", s.sk, err)
		}
		return false
	}
	m.mon.Read(s.sk, rec)
	r := rec.Range()
	for i := uint64(0); i < r.Len(); i++ {
		id := r.Lo + uint32(i)
		if !s.notified[id] {
			m.failf("%v: read %v, but id %d was not notified or was read before", s.sk, rec, id)
		}
		delete(s.notified, id)
		s.read[id] = true
	}
	return true
}

// check is the invariant run after every step.
func (m *machine) check(t *rapid.T) {
	m.h.Step++
	require.Empty(t, m.errs, "model")
	vs := m.mon.Check(m.h, false)
	require.Empty(t, vs, "violations:\n%s", render(vs))
}

func render(vs []kernel.Violation) string {
	s := ""
	for _, v := range vs {
		s += v.String() + "\n"
		for _, e := range v.History {
			s += fmt.Sprintf("\t%d: %s\n", e.Step, e.Text())
		}
	}
	return s
}

// quiesce frees every skb, then checks that nothing leaked, every charge is
// back to zero and every id of an open socket was notified and read
// exactly once; then closes every socket and checks that only user pages
// remain.
func (m *machine) quiesce(t *rapid.T) {
	for len(m.skbs) > 0 {
		m.free(m.skbs[0])
	}
	m.h.Step++
	vs := m.mon.Check(m.h, true)
	require.Empty(t, vs, "violations at quiescence:\n%s", render(vs))
	for _, s := range m.socks {
		if s.closed {
			continue
		}
		for m.read(s) {
		}
		require.Empty(t, s.sent, "%v: ids never notified", s.sk)
		require.Equal(t, s.all, s.read, "%v: ids read != ids sent", s.sk)
		require.Equal(t, s.next, s.sk.ZCKey(), "%v: sk_zckey", s.sk)
		require.Zero(t, s.sk.OmemAlloc, "%v: optmem", s.sk)
		s.closed = true
		s.sk.Close()
	}
	require.Empty(t, m.errs, "model")
	for _, task := range m.tasks {
		require.Zero(t, task.User.LockedVM, "uid %d locked_vm", task.User.UID)
		require.Zero(t, task.PinnedVM, "%s pinned_vm", task.Name)
	}
	m.h.Step++
	vs = m.mon.Check(m.h, true)
	require.Empty(t, vs, "violations after close:\n%s", render(vs))
	for _, id := range m.h.Live() {
		require.Equal(t, "upage", id.Kind, "%v survives full quiescence", id)
		require.False(t, m.h.Object(id).Self().(*mm.Page).InFlight(), "%v in flight", id)
	}
}

func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t)
		t.Repeat(m.actions())
		m.quiesce(t)
	})
}
