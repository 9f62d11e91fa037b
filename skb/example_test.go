package skb_test

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// One MSG_ZEROCOPY send over TCP, from allocation to the notification: the
// write-queue skb takes the uarg, transmit sends a clone, the ACK frees the
// original and the device's TX completion frees the clone, which drops the
// last reference.
func Example_lifecycle() {
	p, _ := kernel.Lookup("linux-6.18")
	h := kernel.NewHost(p)
	task := &ubuf.Task{Name: "app", User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	sk := sock.New(h, sock.DefaultSysctl(p), task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	sk.SetZerocopy(1)
	buf := mm.NewBuffer(h, 8192)

	call := kernel.ObjectID{Kind: "sendmsg", Serial: 1}
	uarg, _ := ubuf.Alloc(h, sk, task, 8192, call)
	fmt.Println("alloc:", uarg, "locked_vm", task.User.LockedVM, "optmem", sk.OmemAlloc)

	b := skb.Alloc(h, 0)
	b.ZerocopyFromIter(mm.NewIter(mm.Iovec{Buf: buf, Len: 8192}), 8192, uarg, call)
	uarg.Complete(call, true) // tcp_sendmsg drops its own reference
	fmt.Println("queued:", b, uarg)

	clone, _ := b.Clone()
	b.Free() // the ACK frees the retransmit-queue skb
	fmt.Println("acked:", uarg, "pages in flight", len(buf.InFlight()))
	clone.Free() // TX completion
	r, _ := sk.RecvErrqueue()
	fmt.Println("notified:", r, "locked_vm", task.User.LockedVM, "optmem", sk.OmemAlloc)
	_, err := sk.RecvErrqueue()
	fmt.Println("again:", err)
	var l notify.Ledger
	l.Sent(0, "send 1", 8192)
	done, lerr := l.Complete(r.Range())
	fmt.Println("ledger:", done, lerr, h.Violations())
	// Output:
	// alloc: uarg#4[id 0..0 refcnt 1] locked_vm 4 optmem 832
	// queued: skb#6[len 8192 frags 2 uarg#4] uarg#4[id 0..0 refcnt 1]
	// acked: uarg#4[id 0..0 refcnt 1] pages in flight 2
	// notified: zerocopy [0,0] locked_vm 0 optmem 0
	// again: EAGAIN
	// ledger: [{0 send 1 8192}] <nil> []
}
