package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
	"github.com/zcsim/zcsim/sim/strace"
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
// only what was asked for, plus POLLERR and POLLHUP). A poll of both
// ends is replayed as one call: the receiver's data agrees, and the
// sender's POLLERR, which the model has and the kernel did not report
// (events=0 asks for nothing, but POLLERR is always reported), had not
// happened yet in the kernel.
func TestPollReceiverAndSeveral(t *testing.T) {
	src := tcpHead + zcSend("4096") + `poll([{fd=5, events=POLLIN}], 1, -1) = 1 ([{fd=5, revents=POLLIN}])` + "\n" +
		`poll([{fd=4, events=0}, {fd=5, events=POLLIN}], 2, 0) = 1 ([{fd=5, revents=POLLIN}])` + "\n"
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict)
	require.Equal(t, "1 POLLIN", c.Predicted)
	c = callAt(t, rep, 10)
	require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
	require.Equal(t, "poll([4 0, 5 POLLIN], 0s)", c.Text)
	require.Equal(t, "1 [5 POLLIN]", c.Observed)
	require.Equal(t, "what makes the model report POLLERR on fd 4 (a completion or error queued) had not happened yet in the kernel", c.Assumption)
}

// Of a poll of several descriptors only the followed sockets are
// compared: a pipe's readiness is the kernel's to report. The kernel's
// POLLIN on the receiver that the model cannot produce, with nothing
// sent, diverges; a poll of descriptors none of which is followed is
// ignored.
func TestPollSeveralWithOthers(t *testing.T) {
	src := tcpHead + zcSend("4096") +
		`poll([{fd=4, events=POLLOUT}, {fd=9, events=POLLIN}, {fd=5, events=POLLIN}], 3, 500) = 3 ([{fd=4, revents=POLLOUT|POLLERR}, {fd=9, revents=POLLIN}, {fd=5, revents=POLLIN}])` + "\n" +
		`recvfrom(5, "zz"..., 8192, 0, NULL, NULL) = 4096` + "\n" +
		`poll([{fd=9, events=POLLIN}, {fd=5, events=POLLIN}], 2, 0) = 1 ([{fd=5, revents=POLLIN}])` + "\n" +
		`poll([{fd=9, events=POLLIN}, {fd=10, events=POLLIN}], 2, 0) = 1 ([{fd=9, revents=POLLIN}])` + "\n"
	rep := replayText(t, src)
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "poll([4 POLLOUT, 5 POLLIN] and 1 not followed, 500ms)", c.Text)
	require.Equal(t, "2 [4 POLLOUT|POLLERR, 5 POLLIN]", c.Predicted)
	c = callAt(t, rep, 11)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Equal(t, "0", c.Predicted)
	require.Equal(t, "no schedule: the model's pending work never makes the sockets report POLLIN on fd 5", c.Why)
	require.Len(t, rep.Calls, 11, "the poll of a pipe and an unknown descriptor is not replayed")
	require.Contains(t, rep.Ignored, strace.IgnoredCount{Name: "poll (no socket the replay follows)", Count: 1})
}

// corkedThenPoll is tcpHead timestamped, a MSG_MORE send of 100 bytes on
// fd 4 and then the poll line, 100µs later.
func corkedThenPoll(poll string) string {
	var b strings.Builder
	for i, l := range strings.SplitAfter(tcpHead, "\n") {
		if l != "" {
			fmt.Fprintf(&b, "10:00:00.%06d %s", i, l)
		}
	}
	b.WriteString(`10:00:00.000100 sendto(4, "zz"..., 100, MSG_MORE, NULL, 0) = 100` + "\n")
	b.WriteString("10:00:00.000200 " + poll + "\n")
	return b.String()
}

// A poll of several sockets that waits: the receiver's data, held back
// by MSG_MORE until TCP's probe timer sends it, wakes it in the model
// as in the kernel, while the sender, which asked for POLLIN, stays
// unready.
func TestPollSeveralWaits(t *testing.T) {
	rep := replayText(t, corkedThenPoll(`poll([{fd=4, events=POLLIN}, {fd=5, events=POLLIN}], 2, 1000) = 1 ([{fd=5, revents=POLLIN}])`))
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 [5 POLLIN]", c.Predicted)
}

// A poll that waits: a MSG_MORE send stays corked until TCP's probe timer
// sends it (tcp_check_probe_timer), so the receiver's poll, timestamped
// right after it, finds nothing in the model either; it waits in the
// model, as in the kernel, until the data arrives.
func TestPollWaitsInTheModel(t *testing.T) {
	rep := replayText(t, corkedThenPoll(`poll([{fd=5, events=POLLIN}], 1, 1000) = 1 ([{fd=5, revents=POLLIN}])`))
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 POLLIN", c.Predicted)
}

// An event loop's log recorded on Linux 6.18 (testdata/poll_loop.log,
// how in poll_loop.cmd): each of its 65 polls watches a zerocopy sender,
// its receiver and a pipe, and each is replayed on both sockets, the
// sender's POLLERR (a notification queued) included; none diverges.
func TestRecordedPollLoop(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/poll_loop.log", replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	polls, withErr := 0, 0
	for _, c := range rep.Calls {
		if c.Syscall == "poll" {
			polls++
			require.Contains(t, c.Text, "and 1 not followed")
			if strings.Contains(c.Observed, "POLLERR") {
				withErr++
			}
		}
	}
	require.Equal(t, 65, polls)
	require.NotZero(t, withErr)
	for _, ig := range rep.Ignored {
		require.NotContains(t, ig.Name, "poll")
	}
}
