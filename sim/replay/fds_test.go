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

// execve closes the descriptors marked close-on-exec (SOCK_CLOEXEC,
// accept4's flag, dup3's O_CLOEXEC, F_DUPFD_CLOEXEC, F_SETFD FD_CLOEXEC,
// close_range's CLOSE_RANGE_CLOEXEC) and keeps the others: the child's
// exec closes its client socket, so the server reads the FIN; a dup
// without the flag keeps the socket open; a failed exec closes nothing.
func TestExecClosesCloexec(t *testing.T) {
	const head = `1 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
1 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
1 listen(3, 1) = 0
1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 2
`
	const connect = `2 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
`
	const exec = `2 execve("/bin/true", ["true"], 0x7ffc /* 3 vars */) = 0
`
	const tail = `1 accept(3, NULL, NULL) = 5
1 recvfrom(5, "", 100, 0, NULL, NULL) = 0
`
	for name, mark := range map[string]string{
		"SOCK_CLOEXEC":        "2 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4\n" + connect,
		"raw SOCK_CLOEXEC":    "2 socket(0x2, 0x80001, 0) = 4\n" + connect,
		"F_SETFD":             "2 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n" + connect + "2 fcntl(4, F_SETFD, FD_CLOEXEC) = 0\n",
		"dup3 O_CLOEXEC":      "2 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 6\n" + "2 dup3(6, 4, O_CLOEXEC) = 4\n2 close(6) = 0\n" + connect,
		"F_DUPFD_CLOEXEC":     "2 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 6\n" + "2 fcntl(6, F_DUPFD_CLOEXEC, 4) = 4\n2 close(6) = 0\n" + connect,
		"CLOSE_RANGE_CLOEXEC": "2 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n" + connect + "2 close_range(4, 4, CLOSE_RANGE_CLOEXEC) = 0\n",
	} {
		t.Run(name, func(t *testing.T) {
			rep := replayText(t, head+mark+exec+tail)
			require.True(t, rep.OK(), "%+v", rep.Divergences())
			require.Equal(t, "0", rep.Calls[len(rep.Calls)-1].Predicted, "the exec closed the client: the server reads its FIN")
		})
	}

	keep := head + "2 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4\n" + connect +
		"2 dup(4) = 6\n" + exec + `2 sendto(6, "zz"..., 100, 0, NULL, 0) = 100
2 sendto(4, "zz"..., 100, 0, NULL, 0) = 100
`
	rep := replayText(t, keep)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, "100", rep.Calls[len(rep.Calls)-1].Predicted, "the dup without the flag keeps the socket open")
	require.Equal(t, 1, rep.Summary.Unreplayed, "fd 4 is closed after the exec")

	failed := head + "2 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4\n" + connect +
		strings.Replace(exec, "= 0", "= -1 ENOENT (No such file or directory)", 1) +
		"2 sendto(4, \"zz\"..., 100, 0, NULL, 0) = 100\n"
	rep = replayText(t, failed)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Zero(t, rep.Summary.Unreplayed, "a failed exec closes nothing")
}

// The sockets of msg_zerocopy's raw and packet modes: a raw socket of any
// protocol of <linux/in.h>, a packet socket whose protocol strace prints
// as htons(...); Linux 6.18 refuses SO_ZEROCOPY on both.
func TestRawAndPacketSockets(t *testing.T) {
	src := `socket(AF_INET, SOCK_RAW, IPPROTO_EGP) = 3
setsockopt(3, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = -1 EOPNOTSUPP (Operation not supported)
socket(AF_PACKET, SOCK_RAW, htons(0 /* ETH_P_??? */)) = 4
setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = -1 EOPNOTSUPP (Operation not supported)
socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL)) = 5
`
	rep := replayText(t, src)
	require.Equal(t, 5, rep.Summary.Agree, "%+v", rep.Calls)
}
