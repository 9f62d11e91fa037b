package packet_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

type tT interface {
	require.TestingT
	Helper()
}

type failSites map[string]bool

func (f failSites) Fail(site string) bool { return f[site] }

// fakeNet transmits at once (loopback: orphan with a copy; nic: free) or
// holds skbs; tap clones each skb as a packet tap does, frees the
// original first and keeps the clone.
type fakeNet struct {
	mode string
	held []*skb.Buff
}

func (n *fakeNet) Xmit(p sock.Packet) {
	b := p.Skb
	switch n.mode {
	case "hold":
		n.held = append(n.held, b)
	case "tap":
		c, err := b.Clone()
		if err == 0 {
			n.held = append(n.held, c)
		}
		b.Free()
	case "loopback":
		b.OrphanFragsRx(kernel.CopyLoopback)
		b.Free()
	default:
		b.Free()
	}
}

func (n *fakeNet) release() {
	for _, b := range n.held {
		b.Free()
	}
	n.held = nil
}

type env struct {
	h    *kernel.Host
	task *ubuf.Task
	sk   *sock.Sock
	p    *packet.Sock
	net  *fakeNet
	buf  *mm.Buffer
}

var lo = sock.Route{SG: true, Csum: true, MTU: 65536}

func newEnv(t tT, profile string, typ kernel.SockType, mode string) *env {
	t.Helper()
	p, err := kernel.Lookup(profile)
	require.NoError(t, err)
	h := kernel.NewHost(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 0}, Memlock: 8 << 20}
	sk := sock.New(h, sock.DefaultSysctl(p), task, kernel.AF_PACKET, typ, 0x0300)
	n := &fakeNet{mode: mode}
	return &env{h: h, task: task, sk: sk, p: packet.New(sk, lo, n), net: n, buf: mm.NewBuffer(h, 1<<17)}
}

func (e *env) send(n int, flags kernel.MsgFlags) sock.SendResult {
	return e.p.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: n}}, flags)
}

func (e *env) drain(t tT) []string {
	t.Helper()
	var out []string
	for {
		r, err := e.sk.RecvErrqueue()
		if err != 0 {
			return out
		}
		s := r.Range().String()
		if r.Copied() {
			s += "C"
		}
		out = append(out, s)
	}
}

func (e *env) finish(t tT) {
	t.Helper()
	e.p.Close()
	e.net.release()
	require.Empty(t, e.h.Violations())
	for _, id := range e.h.Live() {
		if id.Kind == "upage" {
			require.False(t, e.h.Object(id).Self().(*mm.Page).InFlight(), "%v pinned", id)
			continue
		}
		require.Failf(t, "leak", "%v still live: %v", id, e.h.Object(id).History())
	}
	require.Zero(t, e.task.User.LockedVM)
}

const zc = kernel.MSG_ZEROCOPY

// Merged kernels: SO_ZEROCOPY is refused, MSG_ZEROCOPY ignored, the data
// copied into kernel pages.
func TestPacketSndMerged(t *testing.T) {
	for _, prof := range []string{"linux-4.14", "linux-5.0", "linux-6.18"} {
		e := newEnv(t, prof, kernel.SOCK_RAW, "loopback")
		require.Equal(t, e.h.Profile.OptRefusal, e.p.Setsockopt(kernel.SO_ZEROCOPY, 1))
		for _, n := range []int{4096, 1500, 1472, 32000, 65000, 14} {
			r := e.send(n, zc)
			require.Equal(t, n, r.N)
			require.False(t, r.ZC)
		}
		require.Equal(t, kernel.EMSGSIZE, e.send(400000, zc).Err)
		require.Equal(t, kernel.EMSGSIZE, e.send(65552, zc).Err)
		require.Equal(t, kernel.EINVAL, e.send(1, zc).Err, "shorter than the link-layer header")
		require.Equal(t, kernel.EINVAL, e.p.Setsockopt(kernel.PACKET_TX_RING, 1))
		require.Equal(t, kernel.ENOPROTOOPT, e.p.Setsockopt(kernel.UDP_CORK, 1))
		require.Empty(t, e.drain(t))
		e.finish(t)
	}
}

// RFC patch 11: MSG_ZEROCOPY alone enables zerocopy on packet sockets; the
// uarg is allocated after the frags (ENOMEM on failure), and a later
// error aborts its id.
func TestPacketSndRFC(t *testing.T) {
	e := newEnv(t, "rfc-v2", kernel.SOCK_DGRAM, "hold")
	e.task.Memlock = 1 << 30
	for i, n := range []int{4096, 1500, 1472, 32000, 65000, 1, 0} {
		r := e.send(n, zc)
		require.Equal(t, n, r.N)
		require.True(t, r.ZC)
		require.Equal(t, uint32(i), r.ID)
	}
	require.NotEmpty(t, e.buf.InFlight())
	e.net.release()
	require.Equal(t, []string{"[0,6]"}, e.drain(t))
	e.h.Faults = failSites{kernel.FaultSockOmalloc: true}
	r := e.send(4096, zc)
	require.Equal(t, kernel.ENOMEM, r.Err)
	require.Equal(t, ubuf.FailOptmem, r.Outcome)
	e.h.Faults = failSites{kernel.FaultAllocSkb: true}
	require.Equal(t, kernel.ENOBUFS, e.send(4096, zc).Err)
	e.h.Faults = nil
	require.Equal(t, kernel.EMSGSIZE, e.send(400000, zc).Err)
	require.Equal(t, uint32(7), e.send(100, zc).ID)
	e.net.release()
	require.Equal(t, []string{"[7,7]"}, e.drain(t))
	e.finish(t)

	// SOCK_RAW: a packet shorter than the link-layer header is EINVAL after
	// the uarg was taken: the id is rolled back.
	e = newEnv(t, "rfc-v2", kernel.SOCK_RAW, "loopback")
	require.Equal(t, kernel.EINVAL, e.send(4, zc).Err)
	require.Equal(t, uint32(0), e.sk.ZCKey())
	// 17 pages of frags are too many after MAX_HEADER of linear data.
	iov := []mm.Iovec{}
	for i := range 18 {
		iov = append(iov, mm.Iovec{Buf: e.buf, Off: i * kernel.PageSize, Len: 200})
	}
	require.Equal(t, kernel.EMSGSIZE, e.p.Sendmsg(iov, zc).Err)
	require.Equal(t, 5000, e.send(5000, zc).N)
	require.Equal(t, []string{"[0,0]"}, e.drain(t)) // copied on loopback; the RFC has no COPIED code
	require.Empty(t, e.drain(t))
	e.finish(t)
}

// The send buffer and Wait.
func TestPacketSendBuffer(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.SOCK_DGRAM, "hold")
	require.Zero(t, e.p.Setsockopt(kernel.SO_SNDBUF, 4096))
	for e.sk.WmemAlloc < e.sk.Sndbuf {
		require.Equal(t, 3000, e.send(3000, 0).N)
	}
	require.Equal(t, kernel.EAGAIN, e.send(10, kernel.MSG_DONTWAIT).Err)
	e.p.Wait = func() bool { e.net.release(); return true }
	require.Equal(t, 10, e.send(10, 0).N)
	e.finish(t)
}

func ring(t tT, e *env, frameSize, frames int) *packet.Ring {
	t.Helper()
	bs := max(kernel.PageSize, frameSize)
	require.Zero(t, e.p.SetTxRing(packet.TpacketReq{BlockSize: bs, BlockNr: frames * frameSize / bs, FrameSize: frameSize, FrameNr: frames}))
	return e.p.Ring()
}

// tpacket_snd: frames become skb frags; the destructor gives each frame back
// and decrements pending; no error-queue notification.
func TestTxRing(t *testing.T) {
	for _, prof := range []string{"rfc-v2", "linux-6.18"} {
		e := newEnv(t, prof, kernel.SOCK_RAW, "hold")
		r := ring(t, e, 8192, 8)
		require.Equal(t, kernel.EBUSY, e.p.SetTxRing(packet.TpacketReq{BlockSize: 4096, BlockNr: 1, FrameSize: 4096, FrameNr: 1}))
		for i := range 3 {
			require.True(t, r.Request(i, 1000*(i+1)))
		}
		require.False(t, r.Request(0, 10))
		res := e.send(0, kernel.MSG_DONTWAIT)
		require.Equal(t, 6000, res.N)
		require.Equal(t, 3, e.p.Pending())
		require.Equal(t, packet.TP_STATUS_SENDING, r.Status(0))
		require.NotEmpty(t, r.Buf.InFlight())
		b := e.net.held[1]
		e.net.held = append(e.net.held[:1], e.net.held[2:]...)
		b.Free()
		require.Equal(t, packet.TP_STATUS_AVAILABLE, r.Status(1))
		// A blocking send waits for pending frames; without Wait it times out.
		require.Equal(t, kernel.ETIMEDOUT, e.send(0, 0).Err)
		e.p.Wait = func() bool { e.net.release(); return true }
		require.True(t, r.Request(3, 100))
		require.Equal(t, 100, e.send(0, 0).N)
		require.Zero(t, e.p.Pending())
		require.Empty(t, r.Buf.InFlight())
		require.Empty(t, e.drain(t))
		// Malformed frames.
		require.True(t, r.Request(4, 9000))
		require.Equal(t, kernel.EMSGSIZE, e.send(0, 0).Err)
		require.Equal(t, packet.TP_STATUS_WRONG_FORMAT, r.Status(4))
		require.True(t, r.Request(4, 4))
		require.Equal(t, kernel.EINVAL, e.send(0, 0).Err)
		e.finish(t)
	}
}

// Bug B3: without the nouarg mark a tap's clone keeps ring pages after the
// destructor gave the frame back; with it, cloning copies the frags first.
func TestTxRingClone(t *testing.T) {
	for _, bug := range []bool{false, true} {
		e := newEnv(t, "linux-6.18", kernel.SOCK_DGRAM, "tap")
		e.h.Profile.Bugs[kernel.BugRingNoCopy] = bug
		r := ring(t, e, 4096, 4)
		require.True(t, r.Request(0, 3000))
		require.Equal(t, 3000, e.send(0, kernel.MSG_DONTWAIT).N)
		require.Equal(t, packet.TP_STATUS_AVAILABLE, r.Status(0))
		if bug {
			require.NotEmpty(t, e.h.TakeViolations())
			require.NotEmpty(t, r.Buf.InFlight(), "the clone still reads the frame")
		} else {
			require.Empty(t, r.Buf.InFlight(), "the clone has a private copy")
		}
		e.finish(t)
	}
}

// Ring setup errors and close with frames in flight.
func TestTxRingSetupAndClose(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.SOCK_RAW, "hold")
	for _, req := range []packet.TpacketReq{
		{BlockSize: 1000, BlockNr: 1, FrameSize: 1024, FrameNr: 1},
		{BlockSize: 4096, BlockNr: 1, FrameSize: 40, FrameNr: 1},
		{BlockSize: 4096, BlockNr: 1, FrameSize: 1000, FrameNr: 4},
		{BlockSize: 4096, BlockNr: 1, FrameSize: 8192, FrameNr: 0},
		{BlockSize: 4096, BlockNr: 2, FrameSize: 2048, FrameNr: 3},
	} {
		require.Equal(t, kernel.EINVAL, e.p.SetTxRing(req), "%+v", req)
	}
	r := ring(t, e, 2048, 4)
	require.True(t, r.Request(0, 2000))
	require.True(t, r.Request(1, 2000))
	e.h.Faults = failSites{kernel.FaultAllocSkb: true}
	require.Equal(t, kernel.ENOBUFS, e.send(0, kernel.MSG_DONTWAIT).Err)
	e.h.Faults = nil
	require.Equal(t, 4000, e.send(0, kernel.MSG_DONTWAIT).N)
	e.p.Close()
	require.False(t, e.sk.Freed())
	e.finish(t)
	require.True(t, e.sk.Freed())
}

// TestStateMachine drives a packet socket, with or without a TX ring,
// under every profile: sends of random sizes and flags, frames requested,
// completions, reads, allocation failures and close; after every step no
// violation, ids in order and notified once; at the end everything freed.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		prof := rapid.SampledFrom([]string{"rfc-v2", "linux-4.14", "linux-5.0", "linux-6.18"}).Draw(rt, "profile")
		typ := rapid.SampledFrom([]kernel.SockType{kernel.SOCK_RAW, kernel.SOCK_DGRAM}).Draw(rt, "type")
		e := newEnv(rt, prof, typ, "hold")
		var r *packet.Ring
		if rapid.Bool().Draw(rt, "ring") {
			r = ring(rt, e, 4096, 8)
		}
		faults := failSites{}
		e.h.Faults = faults
		var ledger notify.Ledger
		closed := false
		read := func(t *rapid.T) {
			for {
				rec, err := e.sk.RecvErrqueue()
				if err != 0 {
					return
				}
				_, lerr := ledger.Complete(rec.Range())
				require.NoError(t, lerr)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"send": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				n := rapid.OneOf(rapid.IntRange(0, 100), rapid.IntRange(0, 70000)).Draw(t, "len")
				flags := rapid.SampledFrom([]kernel.MsgFlags{0, zc, zc | kernel.MSG_DONTWAIT, kernel.MSG_DONTWAIT}).Draw(t, "flags")
				if r != nil {
					flags |= kernel.MSG_DONTWAIT
				}
				key := e.sk.ZCKey()
				res := e.send(n, flags)
				if res.ZC {
					require.NoError(t, ledger.Sent(res.ID, "send", n))
				} else {
					require.Equal(t, key, e.sk.ZCKey())
				}
			},
			"request": func(t *rapid.T) {
				if r == nil || closed {
					t.Skip("no ring")
				}
				r.Request(rapid.IntRange(0, r.Frames()-1).Draw(t, "frame"), rapid.IntRange(0, 5000).Draw(t, "len"))
			},
			"complete": func(t *rapid.T) {
				b := skbtest.DrawHeld(t, &e.net.held)
				if rapid.Bool().Draw(t, "loopback") {
					b.OrphanFragsRx(kernel.CopyLoopback)
				}
				b.Free()
			},
			"read": func(t *rapid.T) {
				if !closed {
					read(t)
				}
			},
			"fault": func(t *rapid.T) {
				site := rapid.SampledFrom([]string{kernel.FaultSockOmalloc, kernel.FaultAllocSkb}).Draw(t, "site")
				faults[site] = !faults[site]
			},
			"close": func(t *rapid.T) {
				if closed || rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
					t.Skip("not now")
				}
				e.p.Close()
				closed = true
			},
			"": func(t *rapid.T) {
				require.Empty(t, e.h.Violations())
				require.Equal(t, ledger.Next(), e.sk.ZCKey())
				if r != nil && !closed {
					sending := 0
					for i := range r.Frames() {
						if r.Status(i) == packet.TP_STATUS_SENDING {
							sending++
						}
					}
					require.Equal(t, sending, e.p.Pending())
				}
			},
		})
		if !closed {
			e.net.release()
			read(rt)
			require.Empty(rt, ledger.Outstanding())
		}
		e.finish(rt)
	})
}
