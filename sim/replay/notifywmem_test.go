package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/replay"
)

// Under R5 (notify-wmem) the TCP senders of zcrx_tstamp.log, closed with
// their notifications unread, are destroyed as in the kernel: tcp_done's
// inet_csk_destroy_sock purges their error queues (sk_stream_kill_queues),
// which returns the charge that held them. probe_optmem.log closes a UDP
// socket with its notifications and timestamps unread: sk_destruct alone
// purges a UDP socket's error queue, and the notifications' wmem charge
// holds it off for ever, so the sweep at the end of the log finds that
// socket and its queue's skbs leaked, the bug's real consequence; no
// TCP socket leaks.
func TestNotifyWmemLeaks(t *testing.T) {
	bug := replay.Options{Bugs: []kernel.Bug{kernel.BugNotifyWmem}}
	rep, err := replay.ReplayFile("testdata/zcrx_tstamp.log", bug)
	require.NoError(t, err)
	require.Empty(t, rep.Violations())

	rep, err = replay.ReplayFile("testdata/probe_optmem.log", bug)
	require.NoError(t, err)
	vs := rep.Violations()
	require.NotEmpty(t, vs)
	socks := 0
	for _, v := range vs {
		require.Equal(t, replay.EndOfLog, v.Op)
		require.Equal(t, "refcount", v.Rule)
		require.Contains(t, v.Message, "leaked at quiescence")
		if strings.Contains(v.Message, "closed socket") {
			socks++
			require.Contains(t, v.Message, "(udp)")
		}
	}
	require.Equal(t, 1, socks)
}
