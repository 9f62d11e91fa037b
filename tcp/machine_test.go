package tcp

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/check"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// faults fails the armed sites a given number of times.
type faults map[string]int

func (f faults) Fail(site string) bool {
	if f[site] > 0 {
		f[site]--
		return true
	}
	return false
}

// TestStateMachine drives one connection through random sends (sizes,
// iovecs, flags), corks, Nagle, deliveries, losses, TX completions,
// retransmission timeouts, peer reads, error-queue reads and allocation
// failures, checking every invariant after every step, and that closing
// everything at the end leaves nothing behind.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		profile := rapid.SampledFrom([]string{"rfc-v2", "linux-4.14", "linux-5.0", "linux-6.18"}).Draw(rt, "profile")
		loopback := rapid.Bool().Draw(rt, "loopback")
		p := newPair(t, profile, loopback)
		f := faults{}
		p.h.Faults = f
		m := check.NewMonitor()
		m.Tracked(p.c.Sk, p.task)
		m.Tracked(p.peer.Sk, p.task)
		m.QueueSkbs = func(sk *sock.Sock) []*skb.Buff {
			var out []*skb.Buff
			for _, c := range []*Conn{p.c, p.peer} {
				if c.Sk != sk {
					continue
				}
				for _, seg := range append(c.WriteQueue(), c.RtxQueue()...) {
					out = append(out, seg.Skb)
				}
				out = append(out, c.ReceiveQueue()...)
			}
			if sk == p.c.Sk {
				out = append(out, p.w.device...)
			}
			return out
		}
		m.OwnedPages = func(sk *sock.Sock) []*mm.Page {
			for _, c := range []*Conn{p.c, p.peer} {
				if c.Sk == sk && c.PageFrag() != nil {
					return []*mm.Page{c.PageFrag()}
				}
			}
			return nil
		}
		calls := uint64(0)

		rt.Repeat(map[string]func(*rapid.T){
			"send": func(rt *rapid.T) {
				n := rapid.IntRange(1, 4).Draw(rt, "iovecs")
				var iov []mm.Iovec
				for i := 0; i < n; i++ {
					l := rapid.SampledFrom([]int{0, 1, 100, 1448, 4096, 9000, 65536, 200000}).Draw(rt, "len")
					iov = append(iov, mm.Iovec{Buf: mm.NewBuffer(p.h, max(l, 1)), Len: l})
				}
				flags := kernel.MSG_DONTWAIT
				if rapid.IntRange(0, 3).Draw(rt, "zc") > 0 {
					flags |= kernel.MSG_ZEROCOPY
				}
				if rapid.Bool().Draw(rt, "more") {
					flags |= kernel.MSG_MORE
				}
				calls++
				m.Before(p.c.Sk)
				call := p.c.Sendmsg(iov, flags, kernel.ObjectID{Kind: "sendmsg", Serial: calls})
				if !call.Done() {
					rt.Fatalf("a MSG_DONTWAIT call blocked")
				}
				m.Sent(p.c.Sk, "send", call.Result(), nil)
			},
			"cork": func(rt *rapid.T) {
				p.c.Setsockopt(kernel.TCP_CORK, rapid.IntRange(0, 1).Draw(rt, "on"))
			},
			"nodelay": func(rt *rapid.T) {
				p.c.Setsockopt(kernel.TCP_NODELAY, rapid.IntRange(0, 1).Draw(rt, "on"))
			},
			"deliver":    func(*rapid.T) { p.w.deliver() },
			"lose":       func(*rapid.T) { p.w.dropNext++ },
			"txComplete": func(*rapid.T) { p.w.txComplete() },
			"timeout":    func(*rapid.T) { p.c.Timeout() },
			"peerRead":   func(*rapid.T) { p.readPeer() },
			"readErrqueue": func(*rapid.T) {
				if r, err := p.c.Sk.RecvErrqueue(); err == 0 {
					m.Read(p.c.Sk, r)
				}
			},
			"fault": func(rt *rapid.T) {
				site := rapid.SampledFrom([]string{kernel.FaultSockOmalloc, kernel.FaultAllocSkb, kernel.FaultCopyUbufs}).Draw(rt, "site")
				f[site] = rapid.IntRange(1, 3).Draw(rt, "times")
			},
			"": func(rt *rapid.T) { failOn(rt, p, m.Check(p.h, false), "") },
		})
		for k := range f {
			delete(f, k)
		}
		p.w.dropNext = 0
		p.c.Setsockopt(kernel.TCP_CORK, 0)
		for i := 0; i < 50 && (len(p.c.RtxQueue()) > 0 || len(p.c.WriteQueue()) > 0); i++ {
			p.drain()
			p.w.txComplete()
			p.c.Timeout()
		}
		p.drain()
		p.w.txComplete()
		for {
			r, err := p.c.Sk.RecvErrqueue()
			if err != 0 {
				break
			}
			m.Read(p.c.Sk, r)
		}
		failOn(rt, p, m.Check(p.h, true), "at quiescence: ")
		p.c.Close()
		for i := 0; i < 50 && !p.c.Done(); i++ {
			p.drain()
			p.c.Timeout()
		}
		p.w.txComplete()
		p.peer.Close()
		p.back.deliver()
		p.back.txComplete()
		p.w.deliver()
		failOn(rt, p, m.Check(p.h, true), "after close: ")
		for _, id := range p.h.Live() {
			if id.Kind != "upage" {
				rt.Fatalf("leaked %v: %v", id, p.h.Object(id).History())
			}
		}
	})
}

// failOn fails on any violation except the one the profile is known for:
// before v4.18 (Profile.TCPLinear > 0) zerocopy payload copied into the
// linear area is never reported COPIED (bug B18).
func failOn(rt *rapid.T, p *pair, vs []kernel.Violation, when string) {
	for _, v := range vs {
		if v.Rule == kernel.RuleCopied && p.h.Profile.TCPLinear > 0 {
			continue
		}
		rt.Fatalf("%s%v\n%v", when, v, v.History)
	}
}
