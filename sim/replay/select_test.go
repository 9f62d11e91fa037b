package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
	"github.com/zcsim/zcsim/sim/strace"
)

// A select of the sender's writefds and exceptfds after a zerocopy
// send: over loopback the model completes the send inside the call, so
// POLLERR (in POLLOUT_SET) and POLLOUT leave fd 4 in writefds, and no
// urgent data leaves it out of exceptfds; the receiver's data leaves fd
// 5 in readfds. The result counts each membership.
func TestSelectAgrees(t *testing.T) {
	src := tcpHead + zcSend("4096") +
		`select(6, [5], [4], [4], {tv_sec=0, tv_usec=100000}) = 2 (in [5], out [4], left {tv_sec=0, tv_usec=99990})` + "\n" +
		`pselect6(6, [5], NULL, NULL, NULL, NULL) = 1 (in [5])` + "\n"
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "select([4 out|except, 5 in], 100ms)", c.Text)
	require.Equal(t, "2 [4 out, 5 in]", c.Predicted)
	c = callAt(t, rep, 10)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "pselect6([5 in], -1)", c.Text)
	require.Equal(t, "1 [5 in]", c.Predicted)
}

// What the model's socket has and the kernel's did not report had not
// happened yet: the sender's queued notification puts it in readfds
// (POLLERR is in POLLIN_SET), where the kernel did not list it; its
// reason names the poll event behind the set.
func TestSelectAssumption(t *testing.T) {
	src := tcpHead + zcSend("4096") +
		`select(5, [4], NULL, NULL, {tv_sec=0, tv_usec=0}) = 0 (Timeout)` + "\n"
	c := callAt(t, replayText(t, src), 9)
	require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
	require.Equal(t, "0", c.Observed)
	require.Equal(t, "what makes the model report in on fd 4 (a completion or error queued) had not happened yet in the kernel", c.Assumption)
}

// Data the model has no way of getting: no schedule. Of the descriptors
// asked about only the followed sockets are compared (9 is not one), and
// a select of none of them, or of no set at all, is ignored.
func TestSelectWithoutSchedule(t *testing.T) {
	src := tcpHead +
		`select(10, [5 9], NULL, NULL, {tv_sec=0, tv_usec=0}) = 2 (in [5 9], left {tv_sec=0, tv_usec=0})` + "\n" +
		`select(10, [9], NULL, NULL, NULL) = 1 (in [9])` + "\n" +
		`select(0, NULL, NULL, NULL, {tv_sec=0, tv_usec=1000}) = 0 (Timeout)` + "\n"
	rep := replayText(t, src)
	c := callAt(t, rep, 8)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Equal(t, "select([5 in] and 1 not followed, 0s)", c.Text)
	require.Equal(t, "1 [5 in]", c.Observed)
	require.Equal(t, "0", c.Predicted)
	require.Equal(t, "no schedule: the model's pending work never makes the sockets report in on fd 5", c.Why)
	require.Len(t, rep.Calls, 8)
	require.Contains(t, rep.Ignored, strace.IgnoredCount{Name: "select (no socket the replay follows)", Count: 2})
}

// timed prefixes each line of src with a timestamp, a microsecond apart.
func timed(src string) string {
	var b strings.Builder
	i := 0
	for _, l := range strings.SplitAfter(src, "\n") {
		if l != "" {
			fmt.Fprintf(&b, "10:00:00.%06d %s", i, l)
			i++
		}
	}
	return b.String()
}

// A select that waits: a MSG_MORE send stays corked until TCP's probe
// timer sends it, so the receiver's pselect6, timestamped right after
// it, finds nothing in the model either; it waits in the model, as in
// the kernel, until the data arrives. The sender, in readfds too, stays
// out of it (no data for it, no error queued).
func TestSelectWaitsInTheModel(t *testing.T) {
	src := timed(tcpHead + `sendto(4, "zz"..., 100, MSG_MORE, NULL, 0) = 100` + "\n" +
		`pselect6(6, [4 5], NULL, NULL, {tv_sec=1, tv_nsec=0}, {sigmask=[USR1], sigsetsize=8}) = 1 (in [5], left {tv_sec=0, tv_nsec=800000000})` + "\n")
	c := callAt(t, replayText(t, src), 9)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 [5 in]", c.Predicted)
}

// A split select sleeps from its unfinished line as a split poll does:
// it runs as soon as its followed socket is in the set the log shows,
// here with the other thread's write, before the second write.
func TestSplitSelect(t *testing.T) {
	rep := replayText(t, splitBetweenWrites("select(10, [3 5 9], NULL, NULL, {tv_sec=1, tv_usec=0}",
		"select resumed>) = 1 (in [5], left {tv_sec=0, tv_usec=999990})"))
	require.Equal(t, "8 write, 7 select, 9 write", strings.Join(order(rep)[6:], ", "))
	c := callAt(t, rep, 7)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 [5 in]", c.Predicted)
}

// An event loop's log recorded on Linux 6.18 (testdata/select_loop.log,
// how in select_loop.cmd): select and pselect6 in turn watch a zerocopy
// sender, its receiver and a pipe; each of its 66 calls is replayed on
// both sockets, and none diverges. The loop reads the sender's error
// queue whenever select leaves it in writefds.
func TestRecordedSelectLoop(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/select_loop.log", replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	n := map[string]int{}
	for _, c := range rep.Calls {
		if c.Syscall == "select" || c.Syscall == "pselect6" {
			n[c.Syscall]++
			require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
		}
	}
	require.Equal(t, map[string]int{"select": 33, "pselect6": 33}, n)
	for _, ig := range rep.Ignored {
		require.NotContains(t, ig.Name, "select")
	}
}
