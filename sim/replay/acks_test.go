package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// zcSendNB is a non-blocking 4096-byte zerocopy send on fd 4 with the
// result res.
func zcSendNB(res string) string {
	return `sendto(4, "zz"..., 4096, MSG_ZEROCOPY|MSG_DONTWAIT, NULL, 0) = ` + res + "\n"
}

const eagain = "-1 EAGAIN (Resource temporarily unavailable)"

// With an 8192-byte send buffer, two 4096-byte sends fill it until the
// peer acknowledges them. The model's loopback peer acknowledges inside
// each call, so it would queue the third send; the kernel answered EAGAIN
// because the ACKs had not come back yet, as nothing in the log denies:
// the send agrees under that assumption and is not run. Once the program
// read the two sends' completions, their ACKs had arrived: an EAGAIN then
// has no schedule.
func TestUnackedSendsExplainEagain(t *testing.T) {
	src := tcpHead + "setsockopt(4, SOL_SOCKET, SO_SNDBUF, [4096], 4) = 0\n" +
		zcSendNB("4096") + zcSendNB("4096") + zcSendNB(eagain) + errq(0, 1) + zcSendNB(eagain) + zcSendNB("4096") + errq(2, 2)
	rep := replayText(t, src)
	c := callAt(t, rep, 11)
	require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
	require.Equal(t, "-1 EAGAIN", c.Predicted)
	require.Contains(t, c.Assumption, "the peer's ACKs for the sends from line 9 on had not arrived yet")
	require.Contains(t, c.Assumption, "sk_sndbuf 8192")

	c = callAt(t, rep, 13)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.Equal(t, "4096", c.Predicted)
	require.Contains(t, c.Why, "no schedule: even with no ACK since the last send the log shows acknowledged, sk_wmem_queued would be at most 0, below sk_sndbuf 8192")
	require.Equal(t, replay.Agree, callAt(t, rep, 12).Verdict, "the refused send took no id: the model's record is [0,1]")
}

// A blocking send waits for the ACKs instead (sk_stream_wait_memory): the
// log cannot show it failing with EAGAIN, and the guidance leaves such a
// line to the plain prediction.
func TestEagainOfBlockingSendIsNotGuided(t *testing.T) {
	src := tcpHead + "setsockopt(4, SOL_SOCKET, SO_SNDBUF, [4096], 4) = 0\n" +
		zcSend("4096") + zcSend("4096") + zcSend(eagain)
	c := callAt(t, replayText(t, src), 11)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.NotContains(t, c.Why, "no schedule")
}

// The recorded logs of two small-send-buffer programs on Linux 6.18
// (testdata/sndbuf_*.log; how each was made in its .cmd) replay without
// divergence only through both guidances: sends the kernel refused while
// the model would queue them (the ACKs came later than the model's), and
// sends the kernel queued while the model's buffer was still full (the
// ACKs came sooner).
func TestRecordedSndbufLogs(t *testing.T) {
	for log, want := range map[string]string{
		"testdata/sndbuf_eagain.log":   "had not arrived yet (the model's schedule brought them sooner)",
		"testdata/sndbuf_slowread.log": "ACKs the model schedules later had already arrived and freed send-buffer space",
	} {
		rep, err := replay.ReplayFile(log, replay.Options{})
		require.NoError(t, err)
		require.Empty(t, rep.Divergences(), log)
		found := false
		for _, c := range rep.Calls {
			found = found || c.Verdict == replay.Assumed && strings.Contains(c.Assumption, want)
		}
		require.True(t, found, "%s: no send agrees under %q", log, want)
	}
}
