package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// One order, however often, is clean; the reverse order is reported once,
// naming where the first dependency was seen.
func TestLockdepInversion(t *testing.T) {
	h := kernel.NewHost(&kernel.Profile{})
	sk := kernel.SkLock(kernel.AF_INET)
	obj := kernel.ObjectID{Kind: "sock", Serial: 1}
	for range 2 {
		h.Step++
		h.Acquire(sk, "lock_sock", obj)
		h.MightFault("tcp_sendmsg_locked", obj)
		h.Release(sk)
	}
	require.Empty(t, h.Violations())
	h.Step++
	h.Acquire(kernel.MmapLock, "vm_mmap_pgoff", obj)
	h.Acquire(sk, "tcp_mmap", obj)
	h.Release(sk)
	h.Release(kernel.MmapLock)
	v := h.TakeViolations()
	require.Len(t, v, 1)
	require.Equal(t, kernel.RuleLockOrder, v[0].Rule)
	require.Equal(t, uint64(3), v[0].Step)
	require.Equal(t, "possible circular locking dependency: sk_lock-AF_INET (tcp_mmap) taken while holding &mm->mmap_lock (vm_mmap_pgoff), "+
		"but step 1 took &mm->mmap_lock in tcp_sendmsg_locked holding sk_lock-AF_INET from lock_sock", v[0].Message)
	h.Acquire(sk, "lock_sock", obj)
	h.MightFault("tcp_recvmsg_locked", obj)
	h.Release(sk)
	require.Empty(t, h.Violations(), "the pair is reported once")
}

// A cycle through a third class is found; nested locks of one class are
// not an inversion.
func TestLockdepChain(t *testing.T) {
	h := kernel.NewHost(&kernel.Profile{})
	a, b, c := kernel.LockClass("a"), kernel.LockClass("b"), kernel.LockClass("c")
	obj := kernel.ObjectID{Kind: "sock", Serial: 1}
	h.Acquire(a, "fa", obj)
	h.Acquire(a, "fa2", obj)
	h.Acquire(b, "fb", obj)
	h.Release(b)
	h.Release(a)
	h.Release(a)
	h.Acquire(b, "fb", obj)
	h.Acquire(c, "fc", obj)
	h.Release(c)
	h.Release(b)
	require.Empty(t, h.Violations())
	h.Acquire(c, "fc", obj)
	h.Acquire(a, "fa", obj)
	v := h.TakeViolations()
	require.Len(t, v, 1)
	require.Contains(t, v[0].Message, "a (fa) taken while holding c (fc), but step 0 took b in fb holding a from fa, then step 0 took c in fc holding b from fb")
}
