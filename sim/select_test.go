package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// A select (do_select) leaves each socket in the sets its poll mask
// meets and counts memberships, not descriptors; with nothing ready it
// waits out its timeout, and a closed socket fails it with EBADF.
func TestSelect(t *testing.T) {
	w, s := connectedLoopback(t)
	fds := []SelectFd{{S: s, Sets: kernel.SelectIn | kernel.SelectEx}, {S: s.Peer, Sets: kernel.SelectIn}}
	start := w.Now()
	r := w.Select(Call{}, fds, 3*engine.Millisecond)
	require.Zero(t, r.Ret, "nothing to read, no urgent data")
	require.Equal(t, 3*engine.Millisecond, w.Now().Sub(start), "it waited out its timeout")

	require.Equal(t, int64(100), w.Send(Call{}, s, []int{100}, 0).Ret)
	fds[0].Sets = kernel.SelectIn | kernel.SelectOut | kernel.SelectEx
	fds[1].Sets = kernel.SelectIn | kernel.SelectOut
	r = w.Select(Call{}, fds, engine.Second)
	require.Equal(t, int64(3), r.Ret, "the receiver counts twice")
	require.Equal(t, kernel.SelectOut, fds[0].Ready)
	require.Equal(t, kernel.SelectIn|kernel.SelectOut, fds[1].Ready)

	w.Close(Call{}, s)
	r = w.Select(Call{}, fds, engine.Second)
	require.Equal(t, kernel.EBADF, r.Errno)
}
