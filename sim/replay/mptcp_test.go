package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// testdata/mptcp_echo.log (mptcp_echo.c, traced by strace 6.1 on Linux
// 6.18 in a private network namespace; mptcp_echo.cmd): an MPTCP echo
// server and three clients. The MPTCP sockets' creation, options and
// error-queue reads agree (SO_ZEROCOPY is EOPNOTSUPP, TCP_NODELAY is kept,
// the send buffer is tcp_wmem[1], MSG_ERRQUEUE finds nothing: the
// MSG_ZEROCOPY sends copied); the plain TCP client's connection to the
// MPTCP listener is replayed as TCP on both ends (the accepted child is
// the TCP subflow, which takes SO_ZEROCOPY); the MPTCP connections and
// their data are undetermined, and so are the reads of the TCP child
// whose client is MPTCP. Nothing diverges.
func TestMPTCPRecorded(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/mptcp_echo.log", replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	s := rep.Summary
	require.Equal(t, 34, s.Agree, "%+v", s)
	require.Equal(t, 13, s.Undetermined, "%+v", s)
	for line, want := range map[int]string{
		10: "-1 EOPNOTSUPP", // SO_ZEROCOPY on an MPTCP socket
		9:  "0 [1]",         // TCP_NODELAY kept by the msk
		13: "0 [16384]",     // SO_SNDBUF: tcp_wmem[1]
		20: "-1 EAGAIN",     // MSG_ERRQUEUE after a MSG_ZEROCOPY send: no notification
		44: "-1 EOPNOTSUPP", // SO_ZEROCOPY on an MPTCP client in fallback
		47: "200",           // a TCP child of an MPTCP client sends as TCP
		28: "5",             // the MPTCP listener's child of a plain TCP client: its subflow
		29: "0",             // which takes SO_ZEROCOPY
		31: "100",           // and reads what the client sent
		33: "100",           // and the client reads its echo
	} {
		c := callAt(t, rep, line)
		require.Equal(t, replay.Agree, c.Verdict, "line %d: %+v", line, c)
		require.Equal(t, want, c.Predicted, "line %d", line)
	}
	for line, why := range map[int]string{
		6:  "fd 3 is an MPTCP socket: the model does not run MPTCP's data path",
		16: "so what sendto returns is the kernel's",
		21: "so what sendfile returns is the kernel's",
		15: "fd 3 is an MPTCP socket",
		17: "fd 5 is the child an MPTCP listener accepted",
		46: "fd 5's far end is an MPTCP socket",
	} {
		c := callAt(t, rep, line)
		require.Equal(t, replay.Undetermined, c.Verdict, "line %d: %+v", line, c)
		require.Contains(t, c.Why, why, "line %d", line)
	}
}

// The options whose answer hangs on an MPTCP socket's subflows are
// undetermined; the ones the msk answers itself are predicted, an
// ENOPROTOOPT socket(IPPROTO_MPTCP) agrees under the assumption that
// net.mptcp.enabled was 0, and the next success under its being 1 again.
func TestMPTCPOptions(t *testing.T) {
	log := `socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) = -1 ENOPROTOOPT (Protocol not available)
socket(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP) = -1 ENOPROTOOPT (Protocol not available)
socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) = 3
getsockopt(3, SOL_TCP, TCP_INFO, "\x07\x00\x00\x00", [4]) = 0
setsockopt(3, SOL_SOCKET, SO_TIMESTAMPING, [146], 4) = 0
setsockopt(3, SOL_TCP, TCP_QUICKACK, [1], 4) = -1 ENOPROTOOPT (Protocol not available)
getsockopt(3, SOL_TCP, TCP_USER_TIMEOUT, [0], [4]) = -1 EOPNOTSUPP (Operation not supported)
setsockopt(3, SOL_TCP, TCP_CONGESTION, "reno", 4) = 0
setsockopt(3, SOL_TCP, TCP_INQ, [1], 4) = 0
getsockopt(3, SOL_TCP, TCP_INQ, [1], [4]) = 0
setsockopt(3, SOL_IP, IP_RECVERR, [1], 4) = -1 EOPNOTSUPP (Operation not supported)
`
	rep, err := replay.Replay("mptcp.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	require.Equal(t, replay.Assumed, callAt(t, rep, 1).Verdict)
	require.Contains(t, callAt(t, rep, 1).Assumption, "net.mptcp.enabled is 0")
	require.Equal(t, replay.Agree, callAt(t, rep, 2).Verdict)
	require.Equal(t, replay.Assumed, callAt(t, rep, 3).Verdict)
	require.Contains(t, callAt(t, rep, 3).Assumption, "net.mptcp.enabled is 1")
	for _, line := range []int{4, 5, 8} {
		require.Equal(t, replay.Undetermined, callAt(t, rep, line).Verdict, "line %d", line)
	}
	require.Contains(t, callAt(t, rep, 4).Why, "first subflow's")
	require.Contains(t, callAt(t, rep, 5).Why, "SOF_TIMESTAMPING_OPT_ID")
	require.Contains(t, callAt(t, rep, 8).Why, "TCP_CONGESTION of an MPTCP socket")
	for _, line := range []int{6, 7, 9, 10, 11} {
		require.Equal(t, replay.Agree, callAt(t, rep, line).Verdict, "line %d: %+v", line, callAt(t, rep, line))
	}
}
