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

// BenchmarkUargHolders checks steps that each give one uarg a new shared
// info holder and free its oldest, while the uarg has holders holders (a
// TCP write queue of skbs extending one uarg behind a closed window): a
// step's check should cost the same whatever the number of holders.
func BenchmarkUargHolders(b *testing.B) {
	for _, n := range []int{16, 1024, 16384} {
		b.Run(fmt.Sprintf("holders=%d", n), func(b *testing.B) {
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
			step := func() {
				h.Step++
				if vs := m.Check(h, false); len(vs) > 0 {
					b.Fatalf("violation: %v", vs[0])
				}
			}
			for range n {
				hold()
			}
			u.Complete(call, true) // the call returns
			step()
			b.ReportAllocs()
			for b.Loop() {
				held[next].Free()
				hold()
				step()
			}
		})
	}
}
