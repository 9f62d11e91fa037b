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

// A dependency taken again is checked again once the graph has grown: the
// order a → b, clean when first seen, closes a cycle after b → c and c → a
// were recorded, and is reported then, once.
func TestLockdepRecheckAfterGrowth(t *testing.T) {
	h := kernel.NewHost(&kernel.Profile{})
	a, b, c := kernel.LockClass("a"), kernel.LockClass("b"), kernel.LockClass("c")
	obj := kernel.ObjectID{Kind: "sock", Serial: 1}
	take := func(held, taken kernel.LockClass) {
		h.Step++
		h.Acquire(held, "f"+string(held), obj)
		h.Acquire(taken, "f"+string(taken), obj)
		h.Release(taken)
		h.Release(held)
	}
	take(a, b)
	take(a, b)
	take(b, c)
	require.Empty(t, h.Violations())
	take(c, a)
	require.Len(t, h.TakeViolations(), 1, "c → a closes a → b → c")
	take(a, b)
	v := h.TakeViolations()
	require.Len(t, v, 1, "a → b is on the cycle c → a made")
	require.Contains(t, v[0].Message, "b (fb) taken while holding a (fa), but step 3 took c in fc holding b from fb, then step 4 took a in fa holding c from fc")
	take(a, b)
	require.Empty(t, h.Violations(), "the pair is reported once")
}
