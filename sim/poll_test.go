package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// A poll of several descriptors (do_poll) reports each socket's events
// filtered by what it asked for plus POLLERR and POLLHUP, skips an fd of
// -1 (nil) and counts the descriptors with events.
func TestPollSet(t *testing.T) {
	w, s := connectedLoopback(t)
	fds := []PollFd{{S: s, Events: kernel.POLLIN}, {S: nil, Events: kernel.POLLIN}, {S: s.Peer, Events: kernel.POLLIN}}
	r := w.PollSet(Call{}, fds, 0)
	require.Zero(t, r.Ret, "nothing to read on either end")
	require.Zero(t, fds[0].Revents|fds[1].Revents|fds[2].Revents)

	require.Equal(t, int64(100), w.Send(Call{}, s, []int{100}, 0).Ret)
	fds[0].Events = kernel.POLLIN | kernel.POLLOUT
	r = w.PollSet(Call{}, fds, engine.Second)
	require.Equal(t, int64(2), r.Ret)
	require.Equal(t, kernel.POLLOUT, fds[0].Revents, "POLLOUT asked, not POLLWRNORM")
	require.Zero(t, fds[1].Revents, "an fd of -1 is skipped")
	require.Equal(t, kernel.POLLIN, fds[2].Revents)

	one := w.Poll(Call{}, s.Peer, kernel.POLLIN, 0)
	require.Equal(t, int64(1), one.Ret)
	require.Equal(t, fds[2].Revents, one.Revents, "Poll is PollSet of one")
}

// connectedLoopback is a World on linux-6.18 with a TCP socket s
// connected over loopback to its implicit peer.
func connectedLoopback(t *testing.T) (*World, *Socket) {
	t.Helper()
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	w := New(p, 1)
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	task := w.AddTask("main", w.AddUser(1000), 8<<20, true)
	s, r := w.NewSocket(Call{}, "s", task, kernel.AF_INET, kernel.SOCK_STREAM, 0, lo, PeerOptions{})
	require.Zero(t, r.Errno)
	require.Zero(t, w.Connect(Call{}, s).Errno)
	return w, s
}
