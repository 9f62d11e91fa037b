package replay_test

import (
	"os"
	"strings"
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

// An epoll_wait on that connection after the model's note is
// undetermined as the read is: what the instance reports hangs on the
// buffer (the epoll calls are added to the log after that read).
func TestRcvbufUndeterminedEpoll(t *testing.T) {
	src, err := os.ReadFile("testdata/rcvbuf/probe_tcp-zerocopy-receive.log")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")
	epoll := "9591  epoll_create1(0) = 20\n" +
		"9591  epoll_ctl(20, EPOLL_CTL_ADD, 9, {events=EPOLLPRI, data={u32=9, u64=9}}) = 0\n" +
		"9591  epoll_wait(20, [{events=EPOLLPRI, data={u32=9, u64=9}}], 8, 0) = 1\n"
	log := strings.Join(lines[:126], "") + epoll + strings.Join(lines[126:], "")
	rep, err := replay.Replay("t.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	c := callAt(t, rep, 129)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "may have grown otherwise in the kernel")
}
