package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// TestBothEndsSelftestLog replays msg_zerocopy's receiver and sender in
// one trace (selftest_tcp4_both_zc: strace -f of a shell that starts
// both). The accept is paired with the sender's connect, so the
// receiver's thousands of reads are replayed on the model's connection:
// its window is the listener's, whose SO_RCVBUF the child inherits
// (sk_clone_lock), and a read that ends where one of the sender's sends
// ended agrees under that assumption even where the model's segments run
// across it. Nothing diverges.
func TestBothEndsSelftestLog(t *testing.T) {
	const log = "testdata/selftest_tcp4_both_zc.log.gz"
	rep, err := replay.ReplayFile(log, options(t, log))
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	reads, boundary, paired := 0, 0, false
	for _, c := range rep.Calls {
		switch {
		case c.Syscall == "recvfrom":
			reads++
			if strings.Contains(c.Assumption, "up to the end of one of the traced sender's sends") {
				boundary++
			}
		case strings.HasPrefix(c.Text, "accept(") && strings.Contains(c.Text, " from fd "):
			paired = true
		}
	}
	require.True(t, paired, "the accept takes the traced client's connection")
	require.Greater(t, reads, 1000, "the receiver's reads are replayed")
	require.NotZero(t, boundary)
}

// The child of a traced listener starts with the listener's buffer sizes
// (sk_clone_lock copies sk_rcvbuf and SOCK_RCVBUF_LOCK): SO_RCVBUF 32768 on
// the listener is 65536 on the accepted socket, where an implicit peer of
// the client would have tcp_rmem's default, 131072.
func TestAcceptedChildInheritsListenerBuffers(t *testing.T) {
	src := `socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
setsockopt(3, SOL_SOCKET, SO_RCVBUF, [32768], 4) = 0
bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
listen(3, 1) = 0
socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4
connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
accept(3, NULL, NULL) = 5
getsockopt(5, SOL_SOCKET, SO_RCVBUF, [65536], [4]) = 0
getsockopt(4, SOL_SOCKET, SO_RCVBUF, [131072], [4]) = 0
`
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, "0 [65536]", callAt(t, rep, 8).Predicted)
}
