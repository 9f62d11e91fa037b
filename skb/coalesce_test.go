package skb_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
)

// rxSkb is a received TCP skb without linear payload: one frag of n bytes
// in a kernel page behind a head of SKB_TRUESIZE(256), as a zerocopy skb
// reaches a loopback receiver after skb_copy_ubufs.
func rxSkb(h *kernel.Host, n int) *skb.Buff {
	b := skb.Alloc(h, 0)
	b.Reserve(256)
	p := mm.AllocPages(h, 0)
	b.AppendPageFrag(p, 0, n)
	p.Put()
	b.Truesize = b.Head + kernel.PageSize
	return b
}

// Reserve counts the headroom in the head's truesize, not in the linear
// area: 832 bytes for MAX_TCP_HEADER 256.
func TestReserve(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	b := skb.Alloc(f.H, 0)
	b.Reserve(256)
	require.Equal(t, 832, b.Truesize)
	require.Equal(t, 832, b.Head)
	require.Zero(t, b.Tailroom())
	b.Free()
	skbtest.NoViolations(t, f.H)
}

// TestCoalesceTruesize: the tail takes the source's truesize less its
// head, which is what tcp_try_coalesce charges: three 4000-byte segments
// cost 832 + 3 pages, as sk_rmem_alloc shows on Linux 6.18.
func TestCoalesceTruesize(t *testing.T) {
	f := newFixture(t, "linux-6.18")
	to := rxSkb(f.H, 4000)
	for range 2 {
		from := rxSkb(f.H, 4000)
		delta, ok := skb.TryCoalesce(to, from)
		require.True(t, ok)
		require.Equal(t, kernel.PageSize, delta)
		from.Free()
	}
	require.Equal(t, 12000, to.Len)
	require.Equal(t, 832+3*kernel.PageSize, to.Truesize)
	require.Equal(t, 832, to.Head)
	to.Free()
	skbtest.NoViolations(t, f.H)
}
