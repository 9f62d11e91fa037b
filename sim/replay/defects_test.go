package replay_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
	"github.com/zcsim/zcsim/sim/strace/stracetest"
)

// tcpHead opens a traced loopback TCP connection with SO_ZEROCOPY on the
// client, fd 4; fd 5 is the accepted end.
const tcpHead = `socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 3
bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
listen(3, 1) = 0
socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4
setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
accept4(3, {sa_family=AF_INET, sin_port=htons(54138), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 5
`

// errq reads one zerocopy notification [lo,hi] on fd 4.
func errq(lo, hi int) string {
	return `recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=` +
		strconv.Itoa(lo) + `, ee_data=` + strconv.Itoa(hi) + `}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0` + "\n"
}

func replayText(t *testing.T, src string) *replay.Report {
	t.Helper()
	rep, err := replay.Replay("t.log", []byte(src), replay.Options{})
	require.NoError(t, err)
	return rep
}

// callAt returns the report's call from a log line.
func callAt(t *testing.T, rep *replay.Report, line int) replay.Call {
	t.Helper()
	for _, c := range rep.Calls {
		if c.Line == line {
			return c
		}
	}
	t.Fatalf("no call at line %d in %+v", line, rep.Calls)
	return replay.Call{}
}

// An interrupted send is undetermined and not run: a restart code means
// it queued nothing, so the next send gets id 0, as the kernel gave it.
func TestInterruptedSendNotReplayed(t *testing.T) {
	rep := replayText(t, tcpHead+
		"sendto(4, \"zz\"..., 4096, MSG_ZEROCOPY, NULL, 0) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n"+
		"--- SIGALRM {si_signo=SIGALRM, si_code=SI_KERNEL} ---\n"+
		"sendto(4, \"zz\"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096\n"+
		errq(0, 0))
	c := callAt(t, rep, 8)
	require.Equal(t, replay.Undetermined, c.Verdict)
	require.Equal(t, "? ERESTARTSYS", c.Observed)
	require.Equal(t, "not replayed", c.Predicted)
	require.Contains(t, c.Why, "interrupted by a signal (ERESTARTSYS): strace shows no result")
	require.Contains(t, c.Why, "queued nothing")
	require.Equal(t, replay.Agree, callAt(t, rep, 11).Verdict, "%+v", rep.Calls)
	require.Equal(t, 1, rep.Summary.Undetermined)
	require.True(t, rep.OK())
}

// An accept strace split over <unfinished ...> and <... resumed> that a
// signal interrupted, and a send of a process killed mid-call, are
// undetermined with what the kernel may have done.
func TestUnresolvedForms(t *testing.T) {
	src := strings.ReplaceAll(tcpHead, "\n", "\n[pid 7] ")
	src = "[pid 7] " + strings.TrimSuffix(src, "[pid 7] ") +
		"[pid 7] accept4(3,  <unfinished ...>\n" +
		"[pid 8] close(9) = 0\n" +
		"[pid 7] <... accept4 resumed>0x7ffc, [16], SOCK_CLOEXEC) = ? ERESTARTNOHAND (To be restarted if no handler)\n" +
		"[pid 7] connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n" +
		"[pid 7] sendto(5, \"zz\"..., 4096, 0, NULL, 0) = ?\n" +
		"[pid 7] sendto(5, \"zz\"..., 4096, 0, NULL, 0 <unfinished ...>\n" +
		"[pid 7] +++ killed by SIGKILL +++\n"
	rep := replayText(t, src)
	require.Contains(t, callAt(t, rep, 8).Why, "took nothing")
	require.Contains(t, callAt(t, rep, 11).Why, "handshake goes on in the background")
	require.Contains(t, callAt(t, rep, 12).Why, "the process ended during the call")
	require.Contains(t, callAt(t, rep, 13).Why, "before the call returns")
	require.Equal(t, 4, rep.Summary.Undetermined)
}

// A msghdr strace printed as {...} is never read as an empty iovec: the
// prediction is undetermined; a send that succeeded is run as one buffer
// of the observed length, so the zerocopy id it took is counted.
func TestAbbreviatedMsghdr(t *testing.T) {
	rep := replayText(t, tcpHead+
		"sendmsg(4, {...}, MSG_ZEROCOPY) = 4096\n"+
		"sendmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"a\"..., iov_len=4096}, ...], msg_iovlen=3, msg_controllen=0, msg_flags=0}, MSG_ZEROCOPY) = 8192\n"+
		"sendmsg(4, {...}, MSG_ZEROCOPY|MSG_DONTWAIT) = -1 EAGAIN (Resource temporarily unavailable)\n"+
		errq(0, 1))
	a := callAt(t, rep, 8)
	require.Equal(t, replay.Undetermined, a.Verdict)
	require.Equal(t, "4096", a.Predicted)
	require.Contains(t, a.Why, "strace abbreviated the struct msghdr ({...}); the model replayed it as one 4096-byte buffer")
	b := callAt(t, rep, 9)
	require.Equal(t, replay.Undetermined, b.Verdict)
	require.Contains(t, b.Why, "strace cut the iovec array after 1 entries")
	c := callAt(t, rep, 10)
	require.Equal(t, "not replayed", c.Predicted)
	require.Contains(t, c.Why, "a failed send queues nothing")
	require.Equal(t, replay.Agree, callAt(t, rep, 11).Verdict, "%+v", callAt(t, rep, 11))
	require.Equal(t, 3, rep.Summary.Undetermined)
	require.Contains(t, rep.Summary.Verdict, "3 undetermined")

	// An abbreviated read of data is undetermined too.
	rep = replayText(t, tcpHead+"sendto(4, \"zz\"..., 100, 0, NULL, 0) = 100\nrecvmsg(5, {...}, 0) = 100\n")
	require.Equal(t, replay.Undetermined, callAt(t, rep, 9).Verdict)
	require.Equal(t, "100", callAt(t, rep, 9).Predicted)
}

// Lengths are size_t: 2^64-1 and 2^63 never wrap negative. The model
// answers what the syscall entry answers: EFAULT from vfs_write's
// access_ok, EINVAL from copy_iovec_from_user, EFAULT from
// __import_iovec's access_ok; after import_ubuf's clamp to MAX_RW_COUNT
// the send is replayed and moves what the send buffer takes.
func TestHugeLengths(t *testing.T) {
	iov := func(lens ...string) string {
		var parts []string
		for _, l := range lens {
			parts = append(parts, `{iov_base="a"..., iov_len=`+l+`}`)
		}
		return `{msg_name=NULL, msg_namelen=0, msg_iov=[` + strings.Join(parts, ", ") + `], msg_iovlen=` + strconv.Itoa(len(lens)) + `, msg_controllen=0, msg_flags=0}`
	}
	rep := replayText(t, tcpHead+
		"write(4, \"a\", 18446744073709551615) = -1 EFAULT (Bad address)\n"+
		"write(4, \"a\", -1) = -1 EFAULT (Bad address)\n"+
		"sendmsg(4, "+iov("9223372036854775808")+", 0) = -1 EINVAL (Invalid argument)\n"+
		"sendmsg(4, "+iov("4096", "18446744073709551615")+", 0) = -1 EINVAL (Invalid argument)\n"+
		"sendmsg(4, "+iov("4096", "4611686018427387904")+", 0) = -1 EFAULT (Bad address)\n"+
		"sendmsg(4, "+iov("4096", "2147483648")+", 0) = -1 EFAULT (Bad address)\n"+
		"sendto(4, \"zz\"..., 18446744073709551615, MSG_DONTWAIT, NULL, 0) = 2981456\n"+
		"recvfrom(5, \"zz\"..., 18446744073709551615, MSG_DONTWAIT, NULL, NULL) = 1\n")
	for _, line := range []int{8, 9, 10, 11, 12} {
		c := callAt(t, rep, line)
		require.Equal(t, replay.Agree, c.Verdict, "%+v", c)
	}
	require.Equal(t, "-1 EINVAL", callAt(t, rep, 10).Predicted)
	undet := callAt(t, rep, 13)
	require.Equal(t, replay.Undetermined, undet.Verdict)
	require.Contains(t, undet.Why, "strace does not show the buffer's address")
	big := callAt(t, rep, 14)
	require.NotEqual(t, replay.Undetermined, big.Verdict, "MAX_RW_COUNT bytes are replayed: %+v", big)
	n, err := strconv.Atoi(big.Predicted)
	require.NoError(t, err, big.Predicted)
	require.Positive(t, n, "what the send buffer takes")
	read := callAt(t, rep, 15)
	require.NotContains(t, read.Why, "more than the replay simulates", "a size_t read is replayed: %+v", read)
	n, err = strconv.Atoi(read.Predicted)
	require.NoError(t, err, read.Predicted)
	require.Positive(t, n, "a size_t read takes what has arrived")
	require.False(t, strings.Contains(big.Text, "-1"), big.Text)
}

// A 1 GiB send is replayed by default (the bound is MAX_RW_COUNT): it
// costs the model what the send buffer takes. A smaller bound reports a
// larger call undetermined at once; a larger bound runs it.
func TestMaxCallBytes(t *testing.T) {
	log := tcpHead + "sendto(4, \"zz\"..., 1073741824, MSG_DONTWAIT, NULL, 0) = 1073741824\n"
	rep := replayText(t, log)
	require.NotEqual(t, replay.Undetermined, callAt(t, rep, 8).Verdict, "%+v", callAt(t, rep, 8))
	rep, err := replay.Replay("t.log", []byte(log), replay.Options{MaxCallBytes: 1 << 29})
	require.NoError(t, err)
	require.Equal(t, replay.Undetermined, callAt(t, rep, 8).Verdict)
	require.Contains(t, callAt(t, rep, 8).Why, "1073741824 bytes, more than the replay simulates (536870912)")

	rep, err = replay.Replay("t.log", []byte(tcpHead+"sendto(4, \"zz\"..., 100000, 0, NULL, 0) = 100000\n"), replay.Options{MaxCallBytes: 65536})
	require.NoError(t, err)
	require.Equal(t, replay.Undetermined, callAt(t, rep, 8).Verdict)
	rep, err = replay.Replay("t.log", []byte(tcpHead+"sendto(4, \"zz\"..., 100000, 0, NULL, 0) = 100000\n"), replay.Options{MaxCallBytes: 200000})
	require.NoError(t, err)
	require.Equal(t, replay.Agree, callAt(t, rep, 8).Verdict)
	_, err = replay.Replay("t.log", []byte(log), replay.Options{MaxCallBytes: -1})
	require.Error(t, err)
}

// A log that starts mid-run says how many calls were on descriptors it
// never created; one where nothing was checked is not a success.
func TestMidRunLog(t *testing.T) {
	rep := replayText(t, "sendto(3, \"zz\"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096\n"+
		"sendto(3, \"zz\"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096\n"+errq(0, 1)+"close(3) = 0\nwrite(1, \"x\", 1) = 1\n")
	s := rep.Summary
	require.Equal(t, 3, s.Unreplayed)
	require.Zero(t, s.Calls)
	require.False(t, rep.OK())
	require.Equal(t, "nothing checked", s.Verdict)
	require.Contains(t, strings.Join(rep.Notes, "\n"), "3 calls on 2 descriptors the log never created (fd 3, 4) could not be replayed")
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	require.Contains(t, b.String(), "0 calls replayed: 0 agree, 0 agree under an assumption, 0 undetermined, 0 diverge; 3 on descriptors the log never created; 2 ignored: nothing checked")

	// Something checked, and calls on an unknown fd besides: OK, and said.
	rep = replayText(t, tcpHead+"sendto(9, \"zz\"..., 1, 0, NULL, 0) = 1\n")
	require.True(t, rep.OK())
	require.Equal(t, 1, rep.Summary.Unreplayed)

	// Only undetermined calls: nothing was checked either.
	rep = replayText(t, "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n")
	require.Equal(t, 1, rep.Summary.Undetermined)
	require.False(t, rep.OK())
}

// The fuzz property on generated logs, as a plain test: every summary
// counts its calls.
func TestGeneratedLogsReplay(t *testing.T) {
	for seed := range uint64(60) {
		src, _ := stracetest.Log(seed, 40)
		rep, err := replay.Replay("gen.log", []byte(src), replay.Options{MaxCallBytes: 1 << 20})
		require.NoError(t, err, "seed %d", seed)
		checkSummary(t, rep)
	}
}

// strace does not show where a sendmsg's iovecs lie; the model lays them
// back to back, which sets a zerocopy send's frags and pinned pages
// (ZerocopyCombinePages): a zerocopy send of two iovecs agrees under
// that assumption, and a note lists its line. One iovec, or a copy,
// rests on no layout.
func TestIovecLayoutAssumed(t *testing.T) {
	two := `sendmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="a"..., iov_len=3000}, {iov_base="b"..., iov_len=5000}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, %s) = 8000` + "\n"
	one := `sendmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="a"..., iov_len=8000}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_ZEROCOPY) = 8000` + "\n"
	rep := replayText(t, tcpHead+fmt.Sprintf(two, "MSG_ZEROCOPY")+one+fmt.Sprintf(two, "0"))
	c := callAt(t, rep, 8)
	require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
	require.Contains(t, c.Assumption, "the 2 iovecs lay back to back in user memory")
	require.Equal(t, replay.Agree, callAt(t, rep, 9).Verdict)
	require.Equal(t, replay.Agree, callAt(t, rep, 10).Verdict)
	require.Contains(t, strings.Join(rep.Notes, "\n"), "1 zerocopy sends of several iovecs (lines 8) were replayed with their iovecs back to back")
}
