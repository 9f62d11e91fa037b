package check_test

import (
	"fmt"
	"testing"

	"github.com/zcsim/zcsim/check"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// newHost returns a Host of the default profile with one tracked TCP
// socket whose task is exempt from RLIMIT_MEMLOCK, and its Monitor.
func newHost(b *testing.B) (*kernel.Host, *sock.Sock, *ubuf.Task, *check.Monitor) {
	p, err := kernel.Lookup(kernel.DefaultProfile)
	if err != nil {
		b.Fatal(err)
	}
	h := kernel.NewHost(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 1000}, CapIPCLock: true}
	sk := sock.New(h, sock.DefaultSysctl(p), task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	if p.OptIn {
		sk.SetZerocopy(1)
	}
	m := check.NewMonitor()
	m.Tracked(sk, task)
	return h, sk, task, m
}

// step ends a step and checks it, failing on a violation.
func step(b *testing.B, h *kernel.Host, m *check.Monitor) {
	h.Step++
	if vs := m.Check(h, false); len(vs) > 0 {
		b.Fatalf("violation: %v", vs[0])
	}
}

// BenchmarkUargHolders checks steps that each give one uarg a new shared
// info holder and free its oldest, while the uarg has holders holders (a
// TCP write queue of skbs extending one uarg behind a closed window): a
// step's check should cost the same whatever the number of holders.
func BenchmarkUargHolders(b *testing.B) {
	for _, n := range []int{16, 1024, 16384} {
		b.Run(fmt.Sprintf("holders=%d", n), func(b *testing.B) {
			h, sk, task, m := newHost(b)
			call := kernel.ObjectID{Kind: "sendmsg", Serial: 1}
			u, out := ubuf.Alloc(h, sk, task, 1000, call)
			if out != ubuf.Allocated {
				b.Fatalf("msg_zerocopy_alloc: %v", out)
			}
			held := make([]*skb.Buff, n) // a ring, oldest at next
			next := 0
			hold := func() {
				s := skb.Alloc(h, 0)
				s.ZcopySet(u, call, nil)
				held[next] = s
				next = (next + 1) % n
			}
			for range n {
				hold()
			}
			u.Complete(call, true) // the call returns
			step(b, h, m)
			b.ReportAllocs()
			for b.Loop() {
				held[next].Free()
				hold()
				step(b, h, m)
			}
		})
	}
}

// BenchmarkSocketUargs checks steps that each complete the oldest of the
// uargs live msg_zerocopy uargs of a socket (sends in flight), read its
// notification and allocate a new one: the socket's refcount and optmem
// rules read its uargs, and a step's check should cost the same whatever
// their number.
func BenchmarkSocketUargs(b *testing.B) {
	for _, n := range []int{16, 1024, 16384} {
		b.Run(fmt.Sprintf("uargs=%d", n), func(b *testing.B) {
			h, sk, task, m := newHost(b)
			sk.Net.OptmemMax = 1 << 30         // room for every uarg's optmem
			live := make([]kernel.ObjectID, n) // calls holding a uarg: a ring, oldest at next
			uargs := make([]*ubuf.Info, n)
			calls, next := uint64(0), 0
			send := func() {
				calls++
				call := kernel.ObjectID{Kind: "sendmsg", Serial: calls}
				u, out := ubuf.Alloc(h, sk, task, 1000, call)
				if out != ubuf.Allocated {
					b.Fatalf("msg_zerocopy_alloc: %v", out)
				}
				m.Sent(sk, "send", sock.SendResult{N: 1000, ZC: true, ID: u.ID, Uarg: u, Outcome: ubuf.Allocated}, nil)
				live[next], uargs[next] = call, u
				next = (next + 1) % n
			}
			for range n {
				send()
			}
			step(b, h, m)
			b.ReportAllocs()
			for b.Loop() {
				uargs[next].Complete(live[next], true)
				for {
					r, err := sk.RecvErrqueue()
					if err != 0 {
						break
					}
					m.Read(sk, r)
				}
				send()
				step(b, h, m)
			}
		})
	}
}
