package replay_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// TestDescriptorTables replays testdata/forms.log (forms.c, traced whole
// with strace -f): descriptors dup'ed five ways, a thread and a forked
// child that send on the socket, the child's close of its copy, and
// close_range. Every alias reaches the one model socket (the thread's and
// the child's sends get ids 1 and 2), a close leaves the socket open while
// another descriptor refers to it, and the last close closes it.
func TestDescriptorTables(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/forms.log", replay.Options{CapIPCLock: true, CapNetAdmin: true})
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Zero(t, rep.Summary.Unreplayed)
	require.Equal(t, []replay.Inferred{{Setting: "ephemeral port", Line: 33, Why: "getsockname: fd 3, bound to port 0, has 127.0.0.1:60251"}},
		rep.Config.Inferred, "the listener's port, chosen by the kernel")
	child := callAt(t, rep, 82)
	require.Equal(t, 19607, child.Pid)
	require.Equal(t, "close(4) (other descriptors keep the socket open)", child.Text)
	require.Equal(t, "0 zerocopy [0,2] COPIED", callAt(t, rep, 88).Predicted)
	for _, l := range []int{91, 92, 93} {
		require.Contains(t, callAt(t, rep, l).Text, "other descriptors keep the socket open")
	}
	last := callAt(t, rep, 94)
	require.Equal(t, "close(4)", last.Text)
	require.Equal(t, replay.Agree, last.Verdict)
	require.Equal(t, replay.Assumed, callAt(t, rep, 46).Verdict, "sendfile sent what the input file held")
}

// A child's table is a copy: what the child closes stays open in the
// parent; a thread's table is shared, so after the thread's close the
// parent's call is on a descriptor the replay no longer knows (a filtered
// log may hide the call that reused the number). The child's exit leaves
// the parent's descriptors open.
func TestForkCopiesThreadShares(t *testing.T) {
	log := `1 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3
1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 2
2 close(3) = 0
2 +++ exited with 0 +++
1 sendto(3, "zz"..., 100, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = 100
1 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FILES|CLONE_THREAD, child_tidptr=0x7f) = 5
5 close(3) = 0
1 sendto(3, "zz"..., 100, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EBADF (Bad file descriptor)
1 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3
`
	rep := replayText(t, log)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Contains(t, callAt(t, rep, 3).Text, "other descriptors keep the socket open")
	require.Equal(t, "100", callAt(t, rep, 5).Predicted)
	require.Equal(t, "close(3)", callAt(t, rep, 7).Text)
	require.Equal(t, 1, rep.Summary.Unreplayed)

	exit := strings.Replace(log, "2 close(3) = 0\n", "", 1)
	rep = replayText(t, exit)
	require.Equal(t, "100", callAt(t, rep, 4).Predicted, "the child's exit leaves the parent's descriptor")
}

// The files of strace -ff (testdata/ff: forms.c traced with -ff -tt) are
// merged in time order, each call its file's pid: the thread's and the
// child's calls reach the parent's socket as in the -f log.
func TestFollowForkFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/ff/forms.*")
	require.NoError(t, err)
	require.Len(t, files, 3)
	rep, err := replay.ReplayFiles(files, replay.Options{})
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.True(t, rep.Config.Merged)
	pids := map[int]bool{}
	for _, c := range rep.Calls {
		pids[c.Pid] = true
		if c.Syscall == "recvmsg" && c.Verdict == replay.Agree && strings.HasPrefix(c.Observed, "0 ") {
			require.Equal(t, "0 zerocopy [0,2] COPIED", c.Predicted, "the three processes' sends share the ids")
		}
	}
	require.Len(t, pids, 3)
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	require.Regexp(t, `ok   pid \d+ line 3 +close\(4\) \(other descriptors keep the socket open\)`, b.String())

	_, err = replay.ReplayFiles([]string{files[0], "testdata/forms.log"}, replay.Options{})
	require.ErrorContains(t, err, "testdata/forms.log: several logs are the files of strace -ff, named PREFIX.PID")
	dir := t.TempDir()
	for i, f := range []string{"a.1", "a.2"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = "+strconv.Itoa(3+i)+"\n"), 0o644))
	}
	_, err = replay.ReplayFiles([]string{filepath.Join(dir, "a.1"), filepath.Join(dir, "a.2")}, replay.Options{})
	require.ErrorContains(t, err, "a.1:1: strace -ff logs need -tt or -ttt timestamps to be merged")
}
