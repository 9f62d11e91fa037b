package replay_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// order lists the report's calls as "line syscall", in the order the
// replay ran them.
func order(rep *replay.Report) []string {
	var out []string
	for _, c := range rep.Calls {
		out = append(out, fmt.Sprintf("%d %s", c.Line, c.Syscall))
	}
	return out
}

// testdata/threads_race.log (threads_race.go, strace -f -tt on Linux
// 6.18; threads_race.cmd): the server thread's accept, reads and poll
// sleep while the client thread connects and writes. Each runs as soon
// as what it returned is there in the model, between the client's
// calls: the read of line 23 wakes with the write of line 24 and takes
// its 1000 bytes before the write of line 25, begun before the read's
// resumed line, queues 2000 more; the poll of line 122, which returned
// POLLIN|POLLRDHUP, wakes with the shutdown after the write. Every call
// agrees, none under an assumption.
func TestSplitCallsSleep(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/threads_race.log", replay.Options{})
	require.NoError(t, err)
	s := rep.Summary
	require.Equal(t, 90, s.Agree, "%+v", s)
	require.Equal(t, 90, s.Calls, "%+v", s)
	got := strings.Join(order(rep), ", ")
	for _, want := range []string{
		"13 connect, 11 accept4",             // the accept woke with the connect
		"17 write, 16 read, 19 write",        // the read took the first write
		"24 write, 23 read, 25 write",        // and here before the second began
		"123 write, 124 shutdown, 122 ppoll", // the poll woke with the FIN
	} {
		require.Contains(t, got, want)
	}
}

// A split call that could not sleep (MSG_DONTWAIT), or that found what
// it returned at its first line, ran somewhere between its halves: it
// stays at its resumed line. One that sleeps runs when what it returned
// is there, not before: a read that returned more than the first write
// brought waits for the second.
func TestSplitCallsWhen(t *testing.T) {
	const (
		lst  = "100 12:00:00.000001 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n100 12:00:00.000002 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n100 12:00:00.000003 listen(3, 5) = 0\n"
		cli  = "101 12:00:00.000004 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n101 12:00:00.000005 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n100 12:00:00.000006 accept(3, NULL, NULL) = 5\n"
		w1   = "101 12:00:00.000011 write(4, \"x\"..., 1000) = 1000\n"
		w2   = "101 12:00:00.000012 write(4, \"x\"..., 2000) = 2000\n"
		head = lst + cli
	)
	read := func(flags string, n int) (string, string) {
		return "100 12:00:00.000010 recvfrom(5,  <unfinished ...>\n",
			fmt.Sprintf("100 12:00:00.000013 <... recvfrom resumed>\"x\"..., 65536, %s, NULL, NULL) = %d\n", flags, n)
	}
	start, end := read("0", 1000)
	rep := replayText(t, head+start+w1+w2+end)
	require.Equal(t, "8 write, 7 recvfrom, 9 write", strings.Join(order(rep)[6:], ", "))
	require.Equal(t, replay.Agree, callAt(t, rep, 7).Verdict)

	start, end = read("0", 3000)
	rep = replayText(t, head+start+w1+w2+end)
	require.Equal(t, "8 write, 9 write, 7 recvfrom", strings.Join(order(rep)[6:], ", "))
	require.Equal(t, replay.Agree, callAt(t, rep, 7).Verdict)

	start, end = read("MSG_DONTWAIT", 1000)
	rep = replayText(t, head+start+w1+w2+end)
	require.Equal(t, "8 write, 9 write, 7 recvfrom", strings.Join(order(rep)[6:], ", "))
	require.Equal(t, replay.Assumed, callAt(t, rep, 7).Verdict, "the second write's bytes had not arrived")

	start, end = read("0", 1000)
	rep = replayText(t, head+w1+start+w2+end)
	require.Equal(t, "7 write, 9 write, 8 recvfrom", strings.Join(order(rep)[6:], ", "), "data at its first line: it did not sleep")
	require.Equal(t, replay.Assumed, callAt(t, rep, 8).Verdict)
}

// clockLine is a -tt line: an optional pid, the time of day, the rest.
var clockLine = regexp.MustCompile(`^(\d+ +|\[pid +\d+\] )?(\d\d):(\d\d):(\d\d)\.(\d{6}) (.*)$`)

// retime rewrites a -tt log's timestamps as -r (each line's time since
// the line before, whichever pid printed it) or -ttt prints them.
func retime(t *testing.T, src, form string) string {
	t.Helper()
	var out []string
	prev := int64(-1)
	for _, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		m := clockLine.FindStringSubmatch(l)
		if m == nil { // strace's own message, without a timestamp
			out = append(out, l)
			continue
		}
		var us int64
		for i, unit := range []int64{3600e6, 60e6, 1e6, 1} {
			n, err := strconv.ParseInt(m[2+i], 10, 64)
			require.NoError(t, err)
			us += n * unit
		}
		if prev < 0 {
			prev = us
		}
		stamp := fmt.Sprintf("%d.%06d", (1795987092e6+us)/1e6, (1795987092e6+us)%1e6)
		if form == "-r" {
			stamp = fmt.Sprintf("%6d.%06d", (us-prev)/1e6, (us-prev)%1e6)
		}
		prev = us
		out = append(out, m[1]+stamp+" "+m[6])
	}
	return strings.Join(out, "\n") + "\n"
}

// The schedule keeps the real gaps whatever form the timestamps take:
// a log rewritten with -r or -ttt times replays call for call as its
// -tt original, the order of woken calls and the delayed ACK still
// pending after tcpinfo_cong's shutdown (its TCP_INFO's unacked=1)
// included.
func TestTimestampForms(t *testing.T) {
	for _, file := range []string{"threads_race.log", "tcpinfo_cong.log"} {
		src, err := os.ReadFile("testdata/" + file)
		require.NoError(t, err)
		want := replayText(t, string(src))
		require.True(t, want.OK(), file)
		for _, form := range []string{"-r", "-ttt"} {
			got := replayText(t, retime(t, string(src), form))
			require.Equal(t, want.Calls, got.Calls, "%s as %s", file, form)
			require.Equal(t, want.Summary, got.Summary, "%s as %s", file, form)
		}
	}
}

// testdata/threads_race_r.log is threads_race.go traced with strace -f
// -r: every call agrees, the server's sleeping calls woken in order as
// with -tt.
func TestRelativeLog(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/threads_race_r.log", replay.Options{})
	require.NoError(t, err)
	require.Equal(t, "relative (-r)", rep.Config.Timestamps)
	s := rep.Summary
	require.Equal(t, s.Calls, s.Agree, "%+v", s)
	require.Contains(t, strings.Join(order(rep), ", "), "16 write, 15 read, 18 write")
}

// A non-blocking connect's EINPROGRESS to a traced listener queues its
// connection for the accept as a blocking connect does: the accepted
// socket reads what the client sent.
func TestNonblockingConnectPaired(t *testing.T) {
	rep := replayText(t, "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n"+
		"bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n"+
		"listen(3, 5) = 0\n"+
		"socket(AF_INET, SOCK_STREAM|SOCK_NONBLOCK, IPPROTO_IP) = 4\n"+
		"connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1 EINPROGRESS (Operation now in progress)\n"+
		"accept4(3, NULL, NULL, SOCK_NONBLOCK) = 5\n"+
		"write(4, \"x\"..., 100) = 100\n"+
		"read(5, \"x\"..., 65536) = 100\n")
	require.Equal(t, rep.Summary.Calls, rep.Summary.Agree, "%+v", rep.Calls)
	require.Equal(t, "100", callAt(t, rep, 8).Predicted)
}

// A non-blocking send strace split, which the log shows took its whole
// buffer, starts at its unfinished line: another thread's read between
// its halves finds its bytes, as the kernel's did.
func TestNonblockingSplitSendStarts(t *testing.T) {
	rep := replayText(t, pidHead+
		"101 sendto(4, \"x\"..., 100, MSG_DONTWAIT, NULL, 0 <unfinished ...>\n"+
		"100 recvfrom(5, \"x\"..., 65536, MSG_DONTWAIT, NULL, NULL) = 100\n"+
		"101 <... sendto resumed>) = 100\n")
	require.Equal(t, rep.Summary.Calls, rep.Summary.Agree, "%+v", rep.Calls)
	require.Equal(t, "100", callAt(t, rep, 8).Predicted)
	// One the log shows refused is left to its resumed line.
	rep = replayText(t, pidHead+
		"101 sendto(4, \"x\"..., 100, MSG_DONTWAIT, NULL, 0 <unfinished ...>\n"+
		"100 recvfrom(5, \"x\"..., 65536, MSG_DONTWAIT, NULL, NULL) = -1 EAGAIN (Resource temporarily unavailable)\n"+
		"101 <... sendto resumed>) = -1 EAGAIN (Resource temporarily unavailable)\n")
	require.Equal(t, replay.Agree, callAt(t, rep, 8).Verdict, "%+v", callAt(t, rep, 8))
}

// A split poll of several sockets sleeps from its unfinished line as a
// poll of one does: it runs as soon as every followed socket has the
// events the log shows it returned, here with the other thread's write
// that makes the accepted socket readable, before the second write.
func TestSplitPollOfSeveral(t *testing.T) {
	rep := replayText(t, splitBetweenWrites(
		"poll([{fd=3, events=POLLIN}, {fd=5, events=POLLIN}, {fd=9, events=POLLIN}], 3, 1000",
		"poll resumed>) = 1 ([{fd=5, revents=POLLIN}])"))
	require.Equal(t, "8 write, 7 poll, 9 write", strings.Join(order(rep)[6:], ", "))
	c := callAt(t, rep, 7)
	require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	require.Equal(t, "1 [5 POLLIN]", c.Predicted)
}

// splitBetweenWrites is a log of two pids: a listener's accept of a
// client (fds 3, 4 and 5), then pid 100's call split around pid 101's
// writes of 1000 and 2000 bytes on the client (lines 8 and 9): its start
// on line 7, its "<... NAME resumed>" part on line 10.
func splitBetweenWrites(start, resumed string) string {
	return "100 12:00:00.000001 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n" +
		"100 12:00:00.000002 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
		"100 12:00:00.000003 listen(3, 5) = 0\n" +
		"101 12:00:00.000004 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n" +
		"101 12:00:00.000005 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
		"100 12:00:00.000006 accept(3, NULL, NULL) = 5\n" +
		"100 12:00:00.000010 " + start + " <unfinished ...>\n" +
		"101 12:00:00.000011 write(4, \"x\"..., 1000) = 1000\n" +
		"101 12:00:00.000012 write(4, \"x\"..., 2000) = 2000\n" +
		"100 12:00:00.000013 <... " + resumed + "\n"
}
