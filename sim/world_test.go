package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/tcp"
)

// The World API used directly, without a scenario.
func TestWorldAPI(t *testing.T) {
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := New(p, 5)
	require.Nil(t, w.Device("lo"))
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	require.Equal(t, 65536, lo.MTU)
	require.Equal(t, "loopback", lo.Kind.String())
	w.AddDevice(DefaultDevice("lo", Loopback)) // replaces
	require.NotSame(t, lo, w.Device("lo"))
	lo = w.Device("lo")

	u := w.AddUser(1000)
	require.Same(t, u, w.AddUser(1000))
	task := w.AddTask("main", u, 1<<20, true) // redefines main
	require.Same(t, task, w.Task("main"))
	require.Nil(t, w.Task("nobody"))

	s, r := w.NewSocket(Call{Text: "socket s"}, "s", task, kernel.AF_INET, kernel.SOCK_STREAM, 0, lo, PeerOptions{Ack: tcp.AckQuick})
	require.Zero(t, r.Errno)
	require.Equal(t, "s", s.String())
	require.True(t, s.IsTCP())
	require.NotNil(t, s.Conn())
	require.Same(t, s, w.Socket("s"))
	require.Same(t, s.Peer, w.Socket("s.peer"))
	require.Nil(t, w.Socket("t"))
	require.Len(t, w.Sockets(), 2)

	require.Zero(t, w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1).Errno)
	require.Zero(t, w.Connect(Call{}, s).Errno)
	r = w.Send(Call{}, s, []int{1000, 3000}, kernel.MSG_ZEROCOPY)
	require.EqualValues(t, 4000, r.Ret)
	require.True(t, r.Send.ZC)
	require.Equal(t, "4000", r.String())

	require.NoError(t, w.Advance(engine.Millisecond))
	require.EqualValues(t, engine.Millisecond, w.Now())
	require.NoError(t, w.Settle())
	r = w.Recvmsg(Call{}, s, 0, kernel.MSG_ERRQUEUE)
	require.NotNil(t, r.Record)
	require.True(t, r.Record.Copied())
	r = w.Recvmsg(Call{}, s, 0, kernel.MSG_ERRQUEUE)
	require.Equal(t, "-1 EAGAIN", r.String())
	r = w.Recvmsg(Call{}, s.Peer, 1<<20, 0)
	require.EqualValues(t, 4000, r.Ret)

	st := w.State(s)
	require.Equal(t, "1", st["zckey"])
	require.Equal(t, "0", st["locked_vm"])
	require.Equal(t, "TCP_ESTABLISHED", st["state"])

	require.Zero(t, w.Close(Call{}, s).Errno)
	require.NoError(t, w.Settle())
	require.False(t, w.Failed())
	events := 0
	for _, r := range w.Trace().Records {
		if r.Event != nil {
			events++
		}
	}
	require.Equal(t, uint64(events), w.Step())
	require.Greater(t, w.Step(), uint64(5))
}

// socket(2)'s errno per family, type and protocol (probe/testdata/socket.zcs
// holds the same facts against the live kernel), and a profile's knobs.
func TestProtocolLookup(t *testing.T) {
	cur, _ := kernel.Lookup(kernel.DefaultProfile)
	w := New(cur, 1)
	main := w.Task("main")
	tests := []struct {
		family kernel.Family
		typ    kernel.SockType
		proto  kernel.Protocol
		want   kernel.Errno
	}{
		{kernel.Family(99), kernel.SOCK_STREAM, 0, kernel.EAFNOSUPPORT},
		{kernel.AF_DECnet, kernel.SOCK_STREAM, 0, kernel.EAFNOSUPPORT},
		{kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_MPTCP, 0},
		{kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_SCTP, kernel.EPROTONOSUPPORT},
		{kernel.AF_INET, kernel.SOCK_RAW, kernel.IPProtoMax, kernel.EINVAL},
		{kernel.AF_INET, kernel.SOCK_RAW, kernel.IPProtoMax - 1, 0},
		{kernel.AF_INET, kernel.SOCK_SEQPACKET, 0, kernel.ESOCKTNOSUPPORT},
		{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMP, kernel.EACCES},
		{kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMP, kernel.EPROTONOSUPPORT},
		{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDPLITE, 0},
		{kernel.AF_UNIX, kernel.SOCK_RAW, 1, 0},
		{kernel.AF_UNIX, kernel.SOCK_STREAM, 2, kernel.EPROTONOSUPPORT},
		{kernel.AF_VSOCK, kernel.SOCK_DGRAM, 0, kernel.ENODEV},
		{kernel.AF_XDP, kernel.SOCK_DGRAM, 0, kernel.ESOCKTNOSUPPORT},
		{kernel.AF_NETLINK, kernel.SOCK_RAW, 1, kernel.EPROTONOSUPPORT},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, w.protocolLookup(main, tt.family, tt.typ, tt.proto), "socket(%d, %v, %d)", tt.family, tt.typ, tt.proto)
	}
	w.Net.PingGroupRange = [2]int{0, 2147483647}
	require.Zero(t, w.protocolLookup(main, kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMPV6))
	old, _ := kernel.Lookup("linux-5.0")
	w = New(old, 1)
	require.Equal(t, kernel.EINVAL, w.protocolLookup(w.Task("main"), kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_MPTCP))
}
