package replay_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// TestZerocopyReceiveTimestamps replays testdata/zcrx_tstamp.log
// (zcrx_tstamp.c): receives whose control buffers get SO_TIMESTAMPNS's
// and SO_TIMESTAMPING's messages, whole or cut, or none. msg_controllen
// and msg_flags as the kernel wrote them back are predicted; the buffer's
// length, which the kernel moved on, is the stated assumption.
func TestZerocopyReceiveTimestamps(t *testing.T) {
	opts := replay.Options{CapIPCLock: true, CapNetAdmin: true, MTU: 49204}
	src, err := os.ReadFile("testdata/zcrx_tstamp.log")
	require.NoError(t, err)
	rep, err := replay.Replay("zcrx_tstamp.log", src, opts)
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	both := callAt(t, rep, 44)
	require.Equal(t, replay.Assumed, both.Verdict)
	require.Equal(t, "0 {length=98304, recv_skip_hint=0, inq=1696, err=0, copybuf_len=0, msg_controllen=32, msg_flags=0} [64]", both.Predicted)
	require.Contains(t, both.Assumption, "was 128 bytes at")
	require.Contains(t, callAt(t, rep, 56).Predicted, "msg_controllen=0, msg_flags=8", "the second message cut: MSG_CTRUNC")
	require.Contains(t, callAt(t, rep, 57).Predicted, "msg_controllen=128, msg_flags=0", "nothing mapped, no timestamps")
	require.Contains(t, callAt(t, rep, 58).Predicted, "msg_flags=8", "no buffer for the copy's timestamps")

	// Had the kernel said MSG_CTRUNC where the model writes nothing, no
	// buffer would explain it.
	lines := strings.Split(string(src), "\n")
	lines[56] = strings.Replace(lines[56], `\200\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", [64]`, `\200\0\0\0\0\0\0\0\10\0\0\0\0\0\0\0", [64]`, 1)
	rep, err = replay.Replay("zcrx_tstamp.log", []byte(strings.Join(lines, "\n")), opts)
	require.NoError(t, err)
	d := rep.Divergences()
	require.Len(t, d, 1, "%+v", d)
	require.Equal(t, 57, d[0].Line)
}
