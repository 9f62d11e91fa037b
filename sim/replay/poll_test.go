package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

func pollOut(res string) string {
	return `poll([{fd=4, events=POLLOUT}], 1, 500) = ` + res + "\n"
}

// msg_zerocopy's poll before each send: over loopback the model completes
// a send inside the call, so the socket reports POLLERR at once; the
// kernel may not have queued the notification yet.
func TestPollGuided(t *testing.T) {
	src := tcpHead + zcSend("4096") + pollOut("1 ([{fd=4, revents=POLLOUT|POLLERR}])") + pollOut("1 ([{fd=4, revents=POLLOUT}])") +
		`poll([{fd=4, events=POLLIN}], 1, 0) = 0 (Timeout)` + "\n"
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict)
	require.Equal(t, "1 POLLOUT|POLLERR", c.Predicted)
	c = callAt(t, rep, 10)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "what makes the model report POLLERR (a completion or error queued) had not happened yet in the kernel")
	c = callAt(t, rep, 11)
	require.Equal(t, replay.Assumed, c.Verdict, "POLLERR is reported whatever events asked for")
	require.Equal(t, "0", c.Observed)
}

// Data the model has no way of getting: no schedule.
func TestPollWithoutSchedule(t *testing.T) {
	src := tcpHead + `poll([{fd=5, events=POLLIN}], 1, 0) = 1 ([{fd=5, revents=POLLIN}])` + "\n"
	c := callAt(t, replayText(t, src), 8)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.Equal(t, "0", c.Predicted)
	require.Contains(t, c.Why, "no schedule: the model's pending work never makes the socket report POLLIN")
}

// The receiver's poll after the send sees the data (the filter keeps
// only what was asked for, plus POLLERR and POLLHUP); a poll of several
// descriptors is not replayed.
func TestPollReceiverAndSeveral(t *testing.T) {
	src := tcpHead + zcSend("4096") + `poll([{fd=5, events=POLLIN}], 1, -1) = 1 ([{fd=5, revents=POLLIN}])` + "\n" +
		`poll([{fd=4, events=0}, {fd=5, events=POLLIN}], 2, 0) = 1 ([{fd=5, revents=POLLIN}])` + "\n"
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict)
	require.Equal(t, "1 POLLIN", c.Predicted)
	require.Len(t, rep.Calls, 9, "the poll of two descriptors is ignored")
}

// A poll that waits: a MSG_MORE send stays corked until TCP's probe timer
// sends it (tcp_check_probe_timer), so the receiver's poll, timestamped
// right after it, finds nothing in the model either; it waits in the
// model, as in the kernel, until the data arrives.
func TestPollWaitsInTheModel(t *testing.T) {
	var b strings.Builder
	for i, l := range strings.SplitAfter(tcpHead, "\n") {
		if l != "" {
			fmt.Fprintf(&b, "10:00:00.%06d %s", i, l)
		}
	}
	b.WriteString(`10:00:00.000100 sendto(4, "zz"..., 100, MSG_MORE, NULL, 0) = 100` + "\n")
	b.WriteString(`10:00:00.000200 poll([{fd=5, events=POLLIN}], 1, 1000) = 1 ([{fd=5, revents=POLLIN}])` + "\n")
	rep := replayText(t, b.String())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 POLLIN", c.Predicted)
}
