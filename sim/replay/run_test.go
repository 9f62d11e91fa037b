package replay_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// A log whose last line strace left unfinished (no line end, cut
// mid-call) is replayed up to it, with a note saying where it stopped; the
// same text with a line end is malformed input.
func TestCutLastLine(t *testing.T) {
	log := tcpLog + `100 sendto(4, "zz"..., 4096, MSG_ZERO`
	rep := replayText(t, log)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, 13, rep.Summary.Calls)
	require.Contains(t, strings.Join(rep.Notes, "\n"), "the log ends in the middle of line 16")
	require.Contains(t, strings.Join(rep.Notes, "\n"), "the replay stopped after line 15")

	_, err := replay.Replay("t.log", []byte(log+"\n"), replay.Options{})
	require.ErrorContains(t, err, "t.log:16:")
}

// What the log shows of the machine sets what the caller did not fix, and
// the header says from which line.
func TestInference(t *testing.T) {
	memlock := "100 prlimit64(0, RLIMIT_MEMLOCK, NULL, {rlim_cur=64*1024, rlim_max=64*1024}) = 0\n" + tcpLog
	rep := replayText(t, memlock)
	require.Equal(t, uint64(65536), rep.Config.Memlock)
	require.Equal(t, []replay.Inferred{{Setting: "RLIMIT_MEMLOCK", Line: 1, Why: "prlimit64 read it back"}}, rep.Config.Inferred)
	require.True(t, rep.OK(), "the limit read back agrees: %+v", rep.Divergences())
	rep, err := replay.Replay("t.log", []byte(memlock), replay.Options{Memlock: 1 << 20, Fixed: replay.FixMemlock})
	require.NoError(t, err)
	require.Equal(t, uint64(1<<20), rep.Config.Memlock)
	require.Empty(t, rep.Config.Inferred)
	require.False(t, rep.OK(), "the fixed limit contradicts the one read back")

	// A limit the log sets before reading it says nothing of the start.
	set := "100 prlimit64(0, RLIMIT_MEMLOCK, {rlim_cur=4096, rlim_max=4096}, NULL) = 0\n" +
		"100 prlimit64(0, RLIMIT_MEMLOCK, NULL, {rlim_cur=4096, rlim_max=4096}) = 0\n" + tcpLog
	require.Empty(t, replayText(t, set).Config.Inferred)

	force := strings.Replace(tcpLog, "100 listen(3, 1) = 0\n", "100 listen(3, 1) = 0\n100 setsockopt(3, SOL_SOCKET, SO_RCVBUFFORCE, [1048576], 4) = 0\n", 1)
	rep = replayText(t, force)
	require.True(t, rep.Config.CapNetAdmin)
	require.Equal(t, "CAP_NET_ADMIN", rep.Config.Inferred[0].Setting)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	rep, err = replay.Replay("t.log", []byte(force), replay.Options{Fixed: replay.FixCapNetAdmin})
	require.NoError(t, err)
	require.False(t, rep.Config.CapNetAdmin)
	require.Equal(t, "-1 EPERM", rep.Divergences()[0].Predicted)

	eperm := strings.Replace(force, "[1048576], 4) = 0", "[1048576], 4) = -1 EPERM (Operation not permitted)", 1)
	rep = replayText(t, eperm)
	require.False(t, rep.Config.CapNetAdmin)
	require.Contains(t, rep.Config.Inferred[0].Why, "EPERM: no CAP_NET_ADMIN")

	root := "100 geteuid() = 0\n" + tcpLog
	rep = replayText(t, root)
	require.True(t, rep.Config.CapIPCLock)
	require.True(t, rep.Config.CapNetAdmin)
	require.Len(t, rep.Config.Inferred, 2)
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b))
	require.Contains(t, b.String(), "inferred CAP_IPC_LOCK from line 1: geteuid() returned 0: root, assumed to keep CAP_IPC_LOCK\n")
}

// recorder is a report Writer that keeps what it is given.
type recorder struct {
	cfg   replay.Config
	calls []replay.Call
	end   *replay.Report
}

func (w *recorder) Begin(c replay.Config) error { w.cfg = c; return nil }
func (w *recorder) Call(c replay.Call) error    { w.calls = append(w.calls, c); return nil }
func (w *recorder) End(r *replay.Report) error  { w.end = r; return nil }

// With Options.Out the calls stream to the writer and the report keeps
// none; rendering the stream gives the bytes the kept report renders.
func TestStreamedReport(t *testing.T) {
	kept, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{})
	require.NoError(t, err)
	w := &recorder{}
	rep, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{Out: w})
	require.NoError(t, err)
	require.Empty(t, rep.Calls)
	require.Equal(t, kept.Calls, w.calls)
	require.Equal(t, kept.Config, w.cfg)
	require.Same(t, rep, w.end)
	for _, json := range []bool{false, true} {
		var want, got bytes.Buffer
		out := replay.NewTextWriter(&got)
		if json {
			out = replay.NewJSONWriter(&got)
			require.NoError(t, kept.WriteJSON(&want))
		} else {
			require.NoError(t, kept.WriteText(&want))
		}
		_, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{Out: out})
		require.NoError(t, err)
		require.Equal(t, want.String(), got.String())
	}
}

// The lists after the calls hold the first MaxListed of each verdict; the
// summary counts them all, and the text says how many were left out.
func TestListsAreBounded(t *testing.T) {
	n := replay.MaxListed + 5
	log := strings.Repeat("socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = -1 EMFILE (Too many open files)\n", n)
	rep := replayText(t, log)
	require.Equal(t, n, rep.Summary.Diverge)
	require.Len(t, rep.Divergences(), replay.MaxListed)
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b))
	require.Contains(t, b.String(), "divergences (the first 1000 of 1005):")
}

// The survey keeps the first 4096 split sends that returned part of
// their buffers (maxSplit); the report says from which line on it kept
// no more, and a cut send past them, started with its whole buffer, is
// undetermined where it returned less, not a divergence.
func TestPastSplitNoted(t *testing.T) {
	var b strings.Builder
	b.WriteString("100 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n" +
		"100 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
		"100 listen(3, 5) = 0\n" +
		"101 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n" +
		"101 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
		"100 accept(3, NULL, NULL) = 5\n")
	for range 4097 {
		b.WriteString("101 write(4, \"x\"..., 1000 <unfinished ...>\n" +
			"100 read(5, \"x\"..., 65536) = 500\n" +
			"101 <... write resumed>) = 500\n")
	}
	rep, err := replay.Replay("t.log", []byte(b.String()), replay.Options{})
	require.NoError(t, err)
	last := 6 + 4096*3 + 1
	require.Contains(t, strings.Join(rep.Notes, "\n"), fmt.Sprintf("1 split calls from line %d on are past the first 4096", last))
	require.Zero(t, rep.Summary.Diverge, "%+v", rep.Divergences())
	c := callAt(t, rep, last)
	require.Equal(t, replay.Undetermined, c.Verdict)
	require.Contains(t, c.Why, "past the first 4096 split sends")
}
