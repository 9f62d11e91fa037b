package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// A log of zcsim probe running tcp-zerocopy-receive.zcs on Linux 6.18
// (testdata/rcvbuf, command in its .cmd). Its zerocopy receives grow the
// receiver's buffer on the model's clock, where the model notes that the
// kernel's growth, on microseconds the log does not show, may differ
// (rcvbuf_undetermined). The final read, whose length the buffer limits,
// is then undetermined rather than a divergence. (The receives before it
// diverge on how much had arrived: the probe's settle statements are not
// in the log.)
func TestRcvbufUndeterminedAfterTheModelsNote(t *testing.T) {
	const log = "testdata/rcvbuf/probe_tcp-zerocopy-receive.log"
	rep, err := replay.ReplayFile(log, replay.Options{})
	require.NoError(t, err)
	c := callAt(t, rep, 126)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "the connection's receive buffer may have grown otherwise in the kernel")
	require.Contains(t, c.Why, "tcp_rcv_space_adjust: undetermined")
	require.Equal(t, replay.Diverge, callAt(t, rep, 119).Verdict, "calls before the note are compared")
}
