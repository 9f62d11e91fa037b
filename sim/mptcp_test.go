package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// An MPTCP socket's data-path calls are undetermined, not guessed; its
// error queue and options are the model's; net.mptcp.enabled 0 refuses
// the socket (mptcp_init_sock).
func TestMPTCPSocket(t *testing.T) {
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := New(p, 1)
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	main := w.Task("main")
	s, r := w.NewSocket(Call{}, "m", main, kernel.AF_INET6, kernel.SOCK_STREAM, kernel.IPPROTO_MPTCP, lo, PeerOptions{})
	require.Zero(t, r.Errno)
	require.True(t, s.IsMPTCP())
	require.Nil(t, s.Peer, "no implicit peer: the model does not run MPTCP's data path")
	require.Equal(t, w.Net.TCPWmem[1], s.Sk.Sndbuf)
	for _, r := range []Result{w.Connect(Call{}, s), w.Send(Call{}, s, []int{1000}, kernel.MSG_ZEROCOPY), w.Listen(Call{}, s, 8), w.Shutdown(Call{}, s, false, true)} {
		require.Contains(t, r.Undetermined, "m is an MPTCP socket: the model has no MPTCP data path")
	}
	require.Equal(t, kernel.EAGAIN, w.RecvmsgControl(Call{}, s, 100, kernel.MSG_ERRQUEUE|kernel.MSG_DONTWAIT, 128).Errno)
	require.Zero(t, w.Setsockopt(Call{}, s, kernel.TCP_CORK, 3).Errno)
	require.Equal(t, int64(1), w.Getsockopt(Call{}, s, kernel.TCP_CORK).Ret)
	require.Contains(t, w.GetsockoptName(Call{}, s, kernel.TCP_CONGESTION, Optval{Len: 16}).Undetermined, "TCP_CONGESTION")
	t6 := w.Getsockopt(Call{}, s, kernel.TCP_INFO)
	require.Contains(t, t6.Undetermined, "first subflow")

	// A plain TCP client's connection to an MPTCP listener is accepted
	// as its TCP subflow: the client's peer.
	c, r := w.NewSocket(Call{}, "c", main, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP, lo, PeerOptions{})
	require.Zero(t, r.Errno)
	require.Zero(t, w.Connect(Call{}, c).Errno)
	child, r := w.AcceptFallback(Call{}, s, c)
	require.Zero(t, r.Errno)
	require.Same(t, c.Peer, child)
	require.True(t, child.IsTCP())
	_, r = w.AcceptFallback(Call{}, c, c)
	require.Equal(t, kernel.EINVAL, r.Errno, "only an MPTCP listener")

	w.Net.MPTCPEnabled = 0
	_, r = w.NewSocket(Call{}, "m2", main, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_MPTCP, lo, PeerOptions{})
	require.Equal(t, kernel.ENOPROTOOPT, r.Errno)
	_, r = w.NewSocket(Call{}, "t", main, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP, lo, PeerOptions{})
	require.Zero(t, r.Errno)
}
