package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// importIovec cuts the running total at MAX_RW_COUNT, as __import_iovec
// does, and leaves lengths within it untouched (the caller's slice).
func TestImportIovec(t *testing.T) {
	const m = kernel.MaxRWCount
	for _, c := range []struct{ in, want []int }{
		{nil, nil},
		{[]int{0, 4096}, []int{0, 4096}},
		{[]int{m}, []int{m}},
		{[]int{m + 1}, []int{m}},
		{[]int{m, 10}, []int{m, 0}},
		{[]int{m - 5, 10, 3}, []int{m - 5, 5, 0}},
		{[]int{1 << 40, 1}, []int{m, 0}},
	} {
		in := append([]int(nil), c.in...)
		require.Equal(t, c.want, importIovec(in), "%v", c.in)
		require.Equal(t, c.in, in, "the caller's lengths are not modified")
	}
	same := []int{1, 2}
	require.Equal(t, &same[0], &importIovec(same)[0], "nothing to cut: no copy")
}

// A gigabyte send costs what it moves: TCP over a NIC sends what the send
// buffer allows and returns (MSG_DONTWAIT) or blocks; zerocopy pins only
// the pages it sent; a UDP gigabyte is EMSGSIZE at once; a gigabyte read
// returns what is queued. Every invariant is checked after every step.
func TestGigabyteSends(t *testing.T) {
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	w := New(p, 1)
	eth := DefaultDevice("eth0", NIC)
	w.AddDevice(eth)
	task := w.AddTask("main", w.AddUser(1000), 8<<20, true)
	s, r := w.NewSocket(Call{}, "s", task, kernel.AF_INET, kernel.SOCK_STREAM, 0, eth, PeerOptions{})
	require.Zero(t, r.Errno)
	require.Zero(t, w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1).Errno)
	require.Zero(t, w.Connect(Call{}, s).Errno)

	r = w.Send(Call{}, s, []int{1 << 30}, kernel.MSG_ZEROCOPY|kernel.MSG_DONTWAIT)
	require.True(t, r.Send.ZC)
	require.Positive(t, r.Ret)
	require.Less(t, r.Ret, int64(4<<20), "at most a few send buffers' worth")
	upages := 0
	for _, id := range w.Host.Live() {
		if id.Kind == "upage" {
			upages++
		}
	}
	require.Positive(t, upages, "the zerocopy send pinned the pages it sent")
	require.LessOrEqual(t, upages, int(r.Ret)/kernel.PageSize+2, "and no others")
	sent := r.Ret
	require.NoError(t, w.Settle())

	r = w.Send(Call{}, s, []int{1 << 30}, kernel.MSG_DONTWAIT)
	require.Positive(t, r.Ret)
	require.Less(t, r.Ret, int64(4<<20))
	sent += r.Ret

	s.HoldAcks()
	r = w.Send(Call{}, s, []int{1 << 30}, 0)
	require.Equal(t, kernel.ETIMEDOUT, r.Errno, "blocked until the retransmissions gave up")

	r = w.Recv(Call{}, s.Peer, 1<<30, kernel.MSG_DONTWAIT)
	require.Positive(t, r.Ret)
	require.LessOrEqual(t, r.Ret, sent)

	u, _ := w.NewSocket(Call{}, "u", task, kernel.AF_INET, kernel.SOCK_DGRAM, 0, eth, PeerOptions{})
	require.Zero(t, w.Connect(Call{}, u).Errno)
	require.Equal(t, kernel.EMSGSIZE, w.Send(Call{}, u, []int{1 << 30}, 0).Errno)
	require.Equal(t, kernel.EMSGSIZE, w.Send(Call{}, u, []int{1 << 30, 1 << 30, 1 << 30}, kernel.MSG_ZEROCOPY).Errno)
	require.NoError(t, w.Settle())
	require.False(t, w.Failed(), "no invariant was violated")
}
