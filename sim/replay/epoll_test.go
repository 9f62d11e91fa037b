package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
	"github.com/zcsim/zcsim/sim/strace"
)

// testdata/epoll_zc.log (epoll_zc.go, the whole Go program traced with
// strace -f -tt -T -yy on Linux 6.18; epoll_zc.cmd): the server
// thread's epoll_pwait calls sleep until the main thread's write wakes
// them, an edge-triggered set reports EPOLLOUT once, zerocopy
// completions are reaped through EPOLLERR, epoll_ctl's EEXIST and
// ENOENT, a socket stays watched under the number it was added with
// after a dup and the close of that number, and a blocking UDP recvfrom
// wakes with the first of two datagrams. Every call agrees, each
// epoll_create1 a replayed call, not an ignored one; the waits of the Go
// runtime's own instance, on an eventfd, are ignored.
func TestEpollRecorded(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/epoll_zc.log", replay.Options{})
	require.NoError(t, err)
	s := rep.Summary
	require.Equal(t, 59, s.Agree, "%+v", rep.Divergences())
	require.Equal(t, s.Calls, s.Agree, "%+v", s)
	epoll := 0
	for _, c := range rep.Calls {
		if strings.HasPrefix(c.Syscall, "epoll_") {
			epoll++
		}
	}
	require.Equal(t, 27, epoll) // 3 epoll_create1, 9 epoll_ctl, 15 waits
	require.Equal(t, "epoll_create1(EPOLL_CLOEXEC)", callAt(t, rep, 304).Text)
	require.Equal(t, "8", callAt(t, rep, 304).Predicted)
	// ET: EPOLLOUT once, then nothing.
	require.Equal(t, "1 [EPOLLOUT data=4]", callAt(t, rep, 315).Observed)
	require.Equal(t, "0 []", callAt(t, rep, 316).Predicted)
	// The FIN, reported with the data fd 5 was added with, though only
	// its dup, fd 13, is left.
	require.Equal(t, "1 [EPOLLIN|EPOLLRDHUP data=5]", callAt(t, rep, 700).Predicted)
	got := strings.Join(order(rep), ", ")
	// The epoll_pwait of line 352 woke with the write begun at line 385,
	// before that write's resumed line (387, before the wait's, 389).
	require.Contains(t, got, "352 epoll_pwait, 385 write")
	// The recvfrom of line 656 woke with the datagram of line 721,
	// before the second, line 726, which strace printed before the
	// recvfrom's resumed line.
	require.Contains(t, got, "721 write, 656 recvfrom, 726 write")
	ignored := map[string]int{}
	for _, ig := range rep.Ignored {
		ignored[ig.Name] = ig.Count
	}
	require.Equal(t, 10, ignored["epoll_pwait (no socket the replay follows in the instance)"], "%v", rep.Ignored)
	for name := range ignored {
		require.NotContains(t, name, "epoll_create", "%v", rep.Ignored)
	}
}

// epollHead is tcpHead with an epoll instance, fd 6, watching the
// accepted socket, fd 5, for EPOLLIN.
const epollHead = tcpHead + "epoll_create1(EPOLL_CLOEXEC) = 6\n" +
	"epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN, data={u32=5, u64=5}}) = 0\n"

const epollReady = "epoll_wait(6, [{events=EPOLLIN, data={u32=5, u64=5}}], 8, 0) = 1\n"

// Each verdict of an epoll_wait: the events the model's socket has
// agree; none, where the model has data, agree under the assumption
// that it had not arrived yet; EPOLLIN with nothing ever sent has no
// schedule; data no descriptor was added with is undetermined.
func TestEpollVerdicts(t *testing.T) {
	write := "write(4, \"x\"..., 100) = 100\n"
	rep := replayText(t, epollHead+write+epollReady)
	require.Equal(t, replay.Agree, callAt(t, rep, 11).Verdict, "%+v", callAt(t, rep, 11))

	rep = replayText(t, epollHead+write+"epoll_wait(6, [], 8, 0) = 0\n")
	c := callAt(t, rep, 11)
	require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
	require.Contains(t, c.Assumption, "fd 5's EPOLLIN (data arrived) had not happened yet in the kernel")

	rep = replayText(t, epollHead+epollReady)
	c = callAt(t, rep, 10)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "no schedule: the model's pending work never makes fd 5 report EPOLLIN")

	rep = replayText(t, epollHead+write+"epoll_wait(6, [{events=EPOLLIN, data={u32=7, u64=7}}], 8, 0) = 1\n")
	c = callAt(t, rep, 11)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "carries data 7")

	rep = replayText(t, epollHead+write+"epoll_ctl(6, EPOLL_CTL_MOD, 5, 0x7ffd8) = 0\n"+epollReady)
	require.Equal(t, replay.Undetermined, callAt(t, rep, 11).Verdict)
	c = callAt(t, rep, 12)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "without showing its event")

	rep = replayText(t, epollHead+"epoll_wait(6, 0x7ffd0, 8, -1) = -1 EINTR (Interrupted system call)\n")
	require.Equal(t, replay.Undetermined, callAt(t, rep, 10).Verdict)
}

// An EPOLLONESHOT socket is reported once until EPOLL_CTL_MOD arms it
// again (ep_send_events): a second report diverges. epoll_ctl's EEXIST
// and ENOENT are the model's instance's.
func TestEpollOneshot(t *testing.T) {
	rep := replayText(t, tcpHead+"epoll_create1(0) = 6\n"+
		"epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN|EPOLLONESHOT, data={u32=5, u64=5}}) = 0\n"+
		"epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN, data={u32=5, u64=5}}) = -1 EEXIST (File exists)\n"+
		"epoll_ctl(6, EPOLL_CTL_MOD, 4, {events=EPOLLIN, data={u32=4, u64=4}}) = -1 ENOENT (No such file or directory)\n"+
		"write(4, \"x\"..., 100) = 100\n"+
		epollReady+ // line 13
		epollReady+
		"epoll_ctl(6, EPOLL_CTL_MOD, 5, {events=EPOLLIN|EPOLLONESHOT, data={u32=5, u64=5}}) = 0\n"+
		epollReady)
	for l, v := range map[int]replay.Verdict{9: replay.Agree, 10: replay.Agree, 11: replay.Agree, 12: replay.Agree, 13: replay.Agree, 14: replay.Diverge, 15: replay.Agree, 16: replay.Agree} {
		require.Equal(t, v, callAt(t, rep, l).Verdict, "line %d: %+v", l, callAt(t, rep, l))
	}
	require.Contains(t, callAt(t, rep, 14).Why, "EPOLLONESHOT")
}

// An EPOLLONESHOT event the kernel reported is off from then on, also
// when no schedule of the model explains that report: a second report
// with no EPOLL_CTL_MOD between diverges for that reason, though the
// model has the data by then.
func TestEpollOneshotOffAfterDivergence(t *testing.T) {
	rep := replayText(t, tcpHead+"epoll_create1(0) = 6\n"+
		"epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN|EPOLLONESHOT, data={u32=5, u64=5}}) = 0\n"+
		epollReady+ // line 10: nothing was sent
		"write(4, \"x\"..., 100) = 100\n"+
		epollReady)
	c := callAt(t, rep, 10)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "never makes fd 5 report EPOLLIN")
	c = callAt(t, rep, 12)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "added with EPOLLONESHOT and reported since")
}

// A followed epoll_create is a replayed call, predicted by the model's
// instance (the number the log shows, as for socket), and not counted
// among the ignored calls.
func TestEpollCreateReplayed(t *testing.T) {
	rep := replayText(t, epollHead+"epoll_create(1) = 7\n"+"epoll_create1(EPOLL_CLOEXEC) = -1 EMFILE (Too many open files)\n")
	for l, text := range map[int]string{8: "epoll_create1(EPOLL_CLOEXEC)", 10: "epoll_create(1)"} {
		c := callAt(t, rep, l)
		require.Equal(t, text, c.Text)
		require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
		require.Equal(t, c.Observed, c.Predicted)
	}
	require.Equal(t, "ep7", callAt(t, rep, 10).Socket)
	require.Equal(t, []strace.IgnoredCount{{Name: "epoll_create1 (failed)", Count: 1}}, rep.Ignored)
}

// A socket added under fd 5 and dup'ed to fd 7 is watched as (file, 5):
// epoll_ctl on fd 7 does not find it (ep_find), which the model's
// instance, one item per socket, cannot tell: undetermined, not run.
func TestEpollCtlDup(t *testing.T) {
	rep := replayText(t, epollHead+"dup(5) = 7\nclose(5) = 0\n"+
		"epoll_ctl(6, EPOLL_CTL_DEL, 7, NULL) = -1 ENOENT (No such file or directory)\n"+
		"write(4, \"x\"..., 100) = 100\n"+epollReady)
	c := callAt(t, rep, 12)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Contains(t, c.Why, "under fd 5, of which fd 7 is a dup")
	require.Equal(t, replay.Agree, callAt(t, rep, 14).Verdict, "%+v", callAt(t, rep, 14))
}

// pidHead is tcpHead with pids: the server, pid 100, and the client,
// pid 101, share the descriptor table.
const pidHead = "100 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n" +
	"100 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
	"100 listen(3, 5) = 0\n" +
	"101 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4\n" +
	"101 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n" +
	"100 accept(3, NULL, NULL) = 5\n"

// A blocking epoll_wait strace split sleeps from its first line until
// the model's socket has what it returned: it wakes with the first
// write, before the second; one with a zero timeout ran somewhere
// between its halves and stays at its resumed line.
func TestEpollSleeps(t *testing.T) {
	wait := func(timeout string) string {
		return pidHead + "100 epoll_create1(0) = 6\n" +
			"100 epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN, data={u32=5, u64=5}}) = 0\n" +
			"100 epoll_wait(6,  <unfinished ...>\n" +
			"101 write(4, \"x\"..., 100) = 100\n" +
			"101 write(4, \"x\"..., 200) = 200\n" +
			"100 <... epoll_wait resumed>[{events=EPOLLIN, data={u32=5, u64=5}}], 8, " + timeout + ") = 1\n" +
			"100 read(5, \"x\"..., 65536) = 300\n"
	}
	rep := replayText(t, wait("-1"))
	require.Equal(t, "10 write, 9 epoll_wait, 11 write, 13 read", strings.Join(order(rep)[8:], ", "))
	require.Equal(t, rep.Summary.Calls, rep.Summary.Agree, "%+v", rep.Calls)
	rep = replayText(t, wait("0"))
	require.Equal(t, "10 write, 11 write, 9 epoll_wait, 13 read", strings.Join(order(rep)[8:], ", "))
}

// A blocking datagram read strace split sleeps from its first line, as
// a TCP read does (__skb_wait_for_more_packets, woken by the first
// datagram): it takes the first datagram before the second is sent,
// where it ran at its resumed line, after both, before.
func TestDatagramReadSleeps(t *testing.T) {
	rep := replayText(t, "100 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3\n"+
		"100 bind(3, {sa_family=AF_INET, sin_port=htons(9000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n"+
		"101 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 4\n"+
		"101 connect(4, {sa_family=AF_INET, sin_port=htons(9000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n"+
		"100 recvfrom(3,  <unfinished ...>\n"+
		"101 write(4, \"x\"..., 100) = 100\n"+
		"101 write(4, \"x\"..., 200) = 200\n"+
		"100 <... recvfrom resumed>\"x\"..., 65536, 0, NULL, NULL) = 100\n"+
		"100 recvfrom(3, \"x\"..., 65536, MSG_DONTWAIT, NULL, NULL) = 200\n")
	require.Equal(t, "6 write, 5 recvfrom, 7 write, 9 recvfrom", strings.Join(order(rep)[4:], ", "))
	require.Equal(t, rep.Summary.Calls, rep.Summary.Agree, "%+v", rep.Calls)
}
