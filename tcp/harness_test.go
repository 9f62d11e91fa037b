package tcp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// wire is a minimal network for one connection and its peer: packets wait
// in flight until deliver; loopback delivery orphans the user frags
// (skb_orphan_frags_rx) and queues the skb at the peer, a NIC holds the
// transmitted clone until txComplete and delivers a private copy.
type wire struct {
	h        *kernel.Host
	loopback bool
	inFlight []sock.Packet
	device   []*skb.Buff
	peer     *Conn
	sender   *Conn
	dropNext int
	// clock runs the connections' timers; acks and fired log what the
	// sender's ACKs and timers did.
	clock *engine.Loop
	acks  []uint32
	fired []string
	// flushes counts the sk_flush_backlog calls of a send.
	flushes int
}

func (w *wire) Xmit(p sock.Packet) { w.inFlight = append(w.inFlight, p) }

// SendAck records an ACK the connection sent; the wire's deliver
// acknowledges what it delivers itself.
func (w *wire) SendAck(_ *sock.Sock, ack uint32, _ int) { w.acks = append(w.acks, ack) }

// After schedules a timer on the pair's clock and logs what it did when
// it fires; tests run the clock with clock.RunUntil.
func (w *wire) After(_ *sock.Sock, d engine.Duration, op string, fire func() string) engine.Handle {
	h, _ := w.clock.After(d, op, func() {
		w.fired = append(w.fired, fmt.Sprintf("%v %s: %s", w.clock.Now(), op, fire()))
	})
	return h
}
func (w *wire) Now() engine.Time             { return w.clock.Now() }
func (w *wire) Cancel(h engine.Handle) bool  { return w.clock.Cancel(h) }
func (w *wire) Pending(h engine.Handle) bool { return w.clock.Pending(h) }

// FlushBacklog counts the call and finds nothing: the wire delivers
// only when told to.
func (w *wire) FlushBacklog(*sock.Sock) bool {
	w.flushes++
	return false
}

// deliver hands every packet in flight to the peer and acknowledges it.
func (w *wire) deliver() {
	for len(w.inFlight) > 0 {
		p := w.inFlight[0]
		w.inFlight = w.inFlight[1:]
		if w.dropNext > 0 {
			w.dropNext--
			w.device = append(w.device, p.Skb)
			continue
		}
		var rx *skb.Buff
		if w.loopback {
			p.Skb.Orphan()
			p.Skb.OrphanFragsRx(kernel.CopyLoopback)
			rx = p.Skb
		} else {
			w.device = append(w.device, p.Skb)
			rx = skb.Alloc(w.h, p.Skb.Len)
			rx.AppendLinear(p.Skb.Len)
		}
		if p.Acks {
			w.peer.Ack(p.Ack, p.Win)
		}
		w.peer.Urgent(p.Seq, p.EndSeq, p.Urg)
		w.peer.Receive(rx, p.Seq, p.EndSeq, p.Fin, 0, p.Push)
		w.sender.Ack(w.peer.RcvNxt(), w.peer.Window())
	}
}

// txComplete frees the clones the device holds.
func (w *wire) txComplete() {
	for _, b := range w.device {
		b.Free()
	}
	w.device = nil
}

type pair struct {
	t       *testing.T
	h       *kernel.Host
	w, back *wire
	c       *Conn
	peer    *Conn
	task    *ubuf.Task
	ledger  notify.Ledger
	calls   uint64
}

// newPair connects a zerocopy-enabled TCP socket to a peer over a route with
// scatter-gather, checksum offload and GSO.
func newPair(t *testing.T, profile string, loopback bool, opts ...func(*kernel.Profile, *sock.Route)) *pair {
	t.Helper()
	return newEnds(t, profile, loopback, false, opts...)
}

func newEnds(t *testing.T, profile string, loopback, unconnected bool, opts ...func(*kernel.Profile, *sock.Route)) *pair {
	t.Helper()
	p, err := kernel.Lookup(profile)
	require.NoError(t, err)
	r := sock.Route{SG: true, Csum: true, GSO: 65536, MTU: 1500}
	if loopback {
		r.MTU = 65536
	}
	for _, o := range opts {
		o(p, &r)
	}
	h := kernel.NewHost(p)
	net := sock.DefaultSysctl(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	clock := &engine.Loop{}
	w := &wire{h: h, loopback: loopback, clock: clock}
	sk := sock.New(h, net, task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	if p.OptIn {
		require.Equal(t, kernel.Errno(0), sk.SetZerocopy(1))
	}
	psk := sock.New(h, net, task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	back := &wire{h: h, loopback: loopback, clock: clock}
	c, peer := New(sk, r, w), New(psk, r, back)
	w.sender, w.peer = c, peer
	back.sender, back.peer = peer, c
	pr := &pair{t: t, h: h, w: w, back: back, c: c, peer: peer, task: task}
	if !unconnected {
		require.Equal(t, kernel.Errno(0), pr.handshake())
	}
	return pr
}

// handshake connects the pair's two ends.
func (p *pair) handshake() kernel.Errno {
	if err := p.c.Connect(p.peer.SynWindow()); err != 0 {
		return err
	}
	p.peer.Connect(p.c.SynWindow())
	return 0
}

// unconnectedPair is newPair before the handshake.
func unconnectedPair(t *testing.T, profile string, loopback bool, opts ...func(*kernel.Profile, *sock.Route)) *pair {
	t.Helper()
	return newEnds(t, profile, loopback, true, opts...)
}

// send makes one sendmsg call of the given iovec lengths, each from a fresh
// user buffer, and records a consumed id in the ledger.
func (p *pair) send(flags kernel.MsgFlags, lens ...int) sock.SendResult {
	p.t.Helper()
	var iov []mm.Iovec
	for _, n := range lens {
		iov = append(iov, mm.Iovec{Buf: mm.NewBuffer(p.h, max(n, 1)), Len: n})
	}
	p.calls++
	call := p.c.Sendmsg(iov, flags, kernel.ObjectID{Kind: "sendmsg", Serial: p.calls})
	for i := 0; call.Blocked() && i < 1000; i++ {
		p.drain() // sk_stream_wait_memory: the network runs meanwhile
		call.Resume()
	}
	require.True(p.t, call.Done(), "call blocked")
	r := call.Result()
	if r.ZC {
		require.NoError(p.t, p.ledger.Sent(r.ID, "send", r.N))
	}
	return r
}

// read drains the error queue, checking each range against the ledger.
func (p *pair) read() []notify.Record {
	p.t.Helper()
	var out []notify.Record
	for {
		r, err := p.c.Sk.RecvErrqueue()
		if err == kernel.EAGAIN {
			return out
		}
		_, lerr := p.ledger.Complete(r.Range())
		require.NoError(p.t, lerr)
		out = append(out, r)
	}
}

// readPeer reads everything the peer has and sends the window update
// tcp_cleanup_rbuf would.
func (p *pair) readPeer() {
	p.peer.Recv(1 << 30)
	p.c.Ack(p.peer.RcvNxt(), p.peer.Window())
}

// drain delivers, acknowledges and reads until the network is idle.
func (p *pair) drain() {
	for i := 0; i < 1000 && (len(p.w.inFlight) > 0 || p.peer.Queued() > 0); i++ {
		p.w.deliver()
		p.readPeer()
	}
}

// noViolations fails on anything the model reported.
func (p *pair) noViolations() {
	p.t.Helper()
	for _, v := range p.h.TakeViolations() {
		p.t.Errorf("%v\n%v", v, v.History)
	}
}

// closeAll closes both ends, lets everything drain and checks that nothing
// but user pages is left and every counter is back to zero.
func (p *pair) closeAll() {
	p.t.Helper()
	p.drain()
	p.read()
	p.c.Close()
	p.drain()
	p.w.txComplete()
	p.peer.Close()
	p.back.deliver()
	p.back.txComplete()
	p.noViolations()
	for _, id := range p.h.Live() {
		if id.Kind != "upage" {
			p.t.Errorf("leaked %v: %v", id, p.h.Object(id).History())
		}
	}
	require.Zero(p.t, p.task.User.LockedVM, "locked_vm")
	require.Empty(p.t, p.ledger.Outstanding(), "ids never notified")
}
