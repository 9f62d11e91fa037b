//go:build linux

package probe

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/sim/scenario"
)

// requireLive skips unless the live kernel can be probed here.
func requireLive(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: the live run needs root (network namespaces, uid 65534 children)")
	}
	if err := Supported(); err != nil {
		t.Skipf("skipped: this kernel cannot be probed: %v", err)
	}
}

// blockedPeer's peer sends more than its socket, which never reads, can
// take: without a bound the send waits for ever.
const blockedPeer = "socket s AF_INET SOCK_STREAM\nconnect s\nsend s.peer 16M 0\nsend s 10 0\nrecv s 10 MSG_DONTWAIT\n"

// A call that waits for ever on the kernel returns at the sockets'
// SO_SNDTIMEO, every socket's the run opens, peers and listeners too:
// its answer and the later ones on its socket are undetermined, not a
// disagreement.
func TestLiveRunSocketTimeouts(t *testing.T) {
	requireLive(t)
	for _, src := range []string{
		blockedPeer,
		// a listener's queue is full: its peer's connect gets no answer
		"socket s AF_INET SOCK_STREAM\nlisten s backlog=0\nsocket c AF_INET SOCK_STREAM|SOCK_NONBLOCK to=s\nconnect c\nsocket d AF_INET SOCK_STREAM|SOCK_NONBLOCK to=s\nconnect d\nconnect s.peer\nsend s.peer 1 MSG_DONTWAIT\n",
		// the same in the unprivileged child
		"capdrop main CAP_IPC_LOCK\n" + blockedPeer,
	} {
		res, err := Run("bounded.zcs", []byte(src), Options{})
		require.NoError(t, err, src)
		require.True(t, res.OK(), "%s: %+v", src, res.Stmts)
		require.Zero(t, res.TimedOut, src)
		var cut []string
		for _, s := range res.Skipped {
			require.True(t, s.Undetermined, "%s: %+v", src, s)
			cut = append(cut, s.Why)
		}
		require.NotEmpty(t, cut, src)
		require.Contains(t, cut[0], "SO_SNDTIMEO and SO_RCVTIMEO ended it", src)
		for _, why := range cut[1:] {
			require.Contains(t, why, "was ended by the live run's bound", src)
		}
	}
}

// The watchdog ends a call that outlasts the run's call limit by
// shutting the run's sockets down: the run stops there with a timeout,
// and what it did not run is listed as such.
func TestLiveRunWatchdog(t *testing.T) {
	requireLive(t)
	stmts, err := scenario.Parse("watchdog.zcs", []byte(blockedPeer))
	require.NoError(t, err)
	pl := makePlan(stmts, "")
	obs, err := inNetns(nil, 0, func() ([]Obs, error) {
		return runHost(stmts, pl.steps, limits{call: 100 * time.Millisecond, run: time.Minute}, nil), nil
	})
	require.NoError(t, err)
	require.Len(t, obs, 3)
	require.Equal(t, Obs{Line: 3, Stmt: "send s.peer 16M 0", Result: "timeout", Timeout: true,
		Cut: "the call had not returned after 100ms: the live run shut its sockets down to end it"}, obs[2])
	res := compare("watchdog.zcs", "linux-6.18", stmts, pl, obs, answers{res: map[int]string{1: "3", 2: "0"}})
	require.True(t, res.OK())
	require.Equal(t, 3, res.TimedOut)
	var got []string
	for _, s := range res.Skipped {
		got = append(got, s.Why)
	}
	require.Equal(t, []string{"timeout: " + obs[2].Cut + "; nothing from here on is compared",
		"not run: the live run ended at line 3 (timeout)", "not run: the live run ended at line 3 (timeout)"}, got)
	var text strings.Builder
	require.NoError(t, res.WriteText(&text))
	require.Contains(t, text.String(), "time watchdog.zcs:3")
	require.Contains(t, text.String(), "(the live run timed out at line 3)")
}

// The run's time limit ends it before the statement that would exceed
// it.
func TestLiveRunLimit(t *testing.T) {
	requireLive(t)
	stmts, err := scenario.Parse("limit.zcs", []byte("socket s AF_INET SOCK_DGRAM\nwait 200ms\nsend s 1 0\n"))
	require.NoError(t, err)
	obs, err := inNetns(nil, 0, func() ([]Obs, error) {
		return runHost(stmts, makePlan(stmts, "").steps, limits{call: time.Minute, run: 100 * time.Millisecond}, nil), nil
	})
	require.NoError(t, err)
	require.Equal(t, []Obs{{Line: 1, Stmt: "socket s AF_INET SOCK_DGRAM", Result: "3"},
		{Line: 3, Stmt: "send s 1 0", Result: "timeout", Timeout: true, Cut: "the live run's statements took their 100ms together before this one"}}, obs)
}

// A child that outlives its kill limit is killed: what it answered
// before is kept, streamed line by line, and the statement it was
// running is the timeout.
func TestChildKilled(t *testing.T) {
	requireLive(t)
	src := "capdrop main CAP_IPC_LOCK\nsocket s AF_INET SOCK_STREAM\nconnect s\nsend s.peer 16M 0\nsend s.peer 16M 0\nsend s.peer 16M 0\nsend s 1 0\n"
	stmts, err := scenario.Parse("killed.zcs", []byte(src))
	require.NoError(t, err)
	pl := makePlan(stmts, "")
	require.True(t, pl.child)
	lim := limits{call: time.Minute, run: time.Minute, kill: 1500 * time.Millisecond}
	var killed bool
	obs, err := inNetns(nil, 0, func() ([]Obs, error) {
		o, k, err := runChild(Options{}, "killed.zcs", []byte(src), lim)
		killed = k
		return o, err
	})
	require.NoError(t, err)
	require.True(t, killed)
	require.NotEmpty(t, obs)
	require.Equal(t, "0", obs[0].Result, "capdrop")
	last := obs[len(obs)-1]
	require.Less(t, last.Line, 7, "the child was killed in a send that waits 1s each")
	k := killedAt(stmts, pl.steps, obs, lim.kill)
	require.Equal(t, last.Line+1, k.Line)
	require.True(t, k.Timeout)
	require.Equal(t, "the unprivileged child had not finished after 1.5s: it was killed", k.Cut)
}

// Live runs take turns on the host: a run waits while another process
// (here, the test) holds the live runs' lock, and runs once it is
// released.
func TestLiveRunsTakeTurns(t *testing.T) {
	requireLive(t)
	release, err := hostTurn()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := Run("turn.zcs", []byte("socket s AF_INET SOCK_DGRAM\n"), Options{})
		done <- err
	}()
	select {
	case err := <-done:
		release()
		t.Fatalf("a live run went while the lock was held (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	release()
	require.NoError(t, <-done)
}

// A read blocks unless MSG_DONTWAIT or the descriptor's O_NONBLOCK says
// it may not, as sock_rcvtimeo's noblock does, or it is an urgent read
// (MSG_OOB): only then does the live run settle before it and read on
// after it.
func TestBlocks(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	require.True(t, blocks(fds[0], 0))
	require.True(t, blocks(fds[0], unix.MSG_WAITALL))
	require.False(t, blocks(fds[0], unix.MSG_DONTWAIT))
	require.False(t, blocks(fds[0], unix.MSG_OOB), "an urgent read never sleeps")
	require.NoError(t, unix.SetNonblock(fds[0], true))
	require.False(t, blocks(fds[0], 0))
	require.True(t, blocks(fds[1], 0))
	require.False(t, blocks(-1, 0), "a descriptor that names nothing")
}
