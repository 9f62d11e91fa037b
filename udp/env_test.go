package udp_test

import (
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
	"github.com/zcsim/zcsim/udp"
)

// tT is what the helpers need of a *testing.T or *rapid.T.
type tT interface {
	require.TestingT
	Helper()
}

// delivery says what the fake network does with a transmitted skb.
type delivery int

const (
	// loopback: segment a GSO skb, then skb_orphan_frags_rx and free each
	// packet, as local delivery does: notifications say COPIED.
	loopback delivery = iota
	// nic: the device sends from the user's pages and its TX completion
	// frees the skb at once: zerocopy notifications.
	nic
	// hold: keep every skb until release.
	hold
)

// fakeNet is a sock.Network that transmits immediately or holds skbs.
type fakeNet struct {
	mode delivery
	held []*skb.Buff
	// sent records each packet: its payload and GSO segment count.
	sent []sentPacket
}

type sentPacket struct{ len, segs int }

func (n *fakeNet) Xmit(p sock.Packet) {
	b := p.Skb
	n.sent = append(n.sent, sentPacket{b.Len, b.Segs})
	switch n.mode {
	case hold:
		n.held = append(n.held, b)
	case nic:
		b.Free()
	case loopback:
		n.deliver(b)
	}
}

// deliver models the loopback device: validate_xmit_skb segments GSO skbs
// (skb_segment), then __netif_receive_skb orphans each frag copy.
func (n *fakeNet) deliver(b *skb.Buff) {
	if g := b.Shinfo().GSOSize; g > 0 {
		segs, err := b.Segment(g)
		b.Free()
		if err != 0 {
			return
		}
		for _, s := range segs {
			s.OrphanFragsRx(kernel.CopyLoopback)
			s.Free()
		}
		return
	}
	b.OrphanFragsRx(kernel.CopyLoopback)
	b.Free()
}

// release frees the held skbs: NIC TX completion, or loopback delivery.
func (n *fakeNet) release(how delivery) {
	held := n.held
	n.held = nil
	for _, b := range held {
		if how == loopback {
			n.deliver(b)
		} else {
			b.Free()
		}
	}
}

// env is one socket on one host with its fake network and the program's
// view of notifications.
type env struct {
	h    *kernel.Host
	task *ubuf.Task
	sk   *sock.Sock
	u    *udp.Sock
	net  *fakeNet
	buf  *mm.Buffer
	// next is the id the next notification must start at.
	next uint32
	recs []notify.Record
}

var (
	loRoute  = sock.Route{SG: true, Csum: true, GSO: 65536, MTU: 65536}
	nicRoute = sock.Route{SG: true, Csum: true, GSO: 65536, MTU: 1500}
)

func newEnv(t tT, profile string, family kernel.Family, typ kernel.SockType, proto kernel.Protocol, r sock.Route, mode delivery) *env {
	t.Helper()
	p, err := kernel.Lookup(profile)
	require.NoError(t, err)
	h := kernel.NewHost(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	sk := sock.New(h, sock.DefaultSysctl(p), task, family, typ, proto)
	n := &fakeNet{mode: mode}
	return &env{h: h, task: task, sk: sk, u: udp.New(sk, r, n), net: n, buf: mm.NewBuffer(h, 1<<17)}
}

func newUDP(t tT, profile string, r sock.Route, mode delivery) *env {
	t.Helper()
	e := newEnv(t, profile, kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, r, mode)
	if e.h.Profile.OptIn {
		require.Equal(t, kernel.Errno(0), e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
	}
	return e
}

// send sends n bytes from the start of the user buffer (wrapping for
// sizes above it, which only the EMSGSIZE cases use).
func (e *env) send(n int, flags kernel.MsgFlags) sock.SendResult {
	var iov []mm.Iovec
	for left := n; left > 0; {
		c := min(left, e.buf.Len())
		iov = append(iov, mm.Iovec{Buf: e.buf, Len: c})
		left -= c
	}
	if n == 0 {
		iov = []mm.Iovec{{Buf: e.buf}}
	}
	return e.u.Sendto(iov, flags)
}

// drain reads the error queue and checks every zerocopy range starts
// right after the last: gapless, each id once.
func (e *env) drain(t tT) []notify.Record {
	t.Helper()
	var got []notify.Record
	for {
		r, err := e.sk.RecvErrqueue()
		if err != 0 {
			require.Equal(t, kernel.EAGAIN, err)
			break
		}
		if r.IsZerocopy() {
			require.Equal(t, e.next, r.Info, "notification %v does not follow id %d", r, e.next-1)
			e.next = r.Data + 1
		}
		got = append(got, r)
	}
	e.recs = append(e.recs, got...)
	return got
}

// noViolations fails with every violation the host recorded.
func (e *env) noViolations(t tT) {
	t.Helper()
	require.Empty(t, e.h.Violations())
}

// quiet checks that everything sent so far was notified and no charge is
// left but the socket's own.
func (e *env) quiet(t tT) {
	t.Helper()
	e.drain(t)
	require.Equal(t, e.sk.ZCKey(), e.next, "ids sent but never notified")
	require.Zero(t, e.sk.OmemAlloc, "optmem")
	require.Zero(t, e.sk.WmemAlloc, "wmem")
	require.Zero(t, e.task.User.LockedVM, "locked_vm")
	e.noViolations(t)
}

// finish closes the socket, completes whatever is held and checks that
// nothing is left: no uarg, skb, shared info, kernel page or socket; user
// pages are back to their mapping's reference.
func (e *env) finish(t tT) {
	t.Helper()
	e.u.Close()
	e.net.release(nic)
	e.noViolations(t)
	for _, id := range e.h.Live() {
		if id.Kind == "upage" {
			pg := e.h.Object(id).Self().(*mm.Page)
			require.False(t, pg.InFlight(), "%v still pinned", pg)
			continue
		}
		require.Failf(t, "leak", "%v still live: %v", id, e.h.Object(id).History())
	}
	require.Zero(t, e.task.User.LockedVM, "locked_vm")
}

// ranges renders zerocopy records as "[lo,hi]" with a C for COPIED.
func ranges(recs []notify.Record) []string {
	var out []string
	for _, r := range recs {
		if !r.IsZerocopy() {
			continue
		}
		s := r.Range().String()
		if r.Copied() {
			s += "C"
		}
		out = append(out, s)
	}
	return out
}
