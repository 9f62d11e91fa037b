package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// zcSend is a 4096-byte zerocopy send on the traced client, fd 4, with the
// result res.
func zcSend(res string) string {
	return `sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = ` + res + "\n"
}

const enobufs = "-1 ENOBUFS (No buffer space available)"

func replayOpts(t *testing.T, src string, o replay.Options) *replay.Report {
	t.Helper()
	rep, err := replay.Replay("t.log", []byte(src), o)
	require.NoError(t, err)
	return rep
}

// With optmem_max 2000 the kernel admits a new uarg while sk_omem_alloc +
// 576 <= 2000: two uargs of 832 bytes, not three. The model completes each
// loopback send inside the call and merges the second notification into
// the first record, so it holds one skb (832) and would admit a third
// uarg; the kernel answered ENOBUFS because neither send had completed
// yet, as the later read of [0,1] allows. The third send agrees under
// that assumption and is not run: the fourth, after the read, takes id 2.
func TestHeldCompletionsExplainEnobufs(t *testing.T) {
	src := tcpHead + zcSend("4096") + zcSend("4096") + zcSend(enobufs) + errq(0, 1) + zcSend("4096") + errq(2, 2)
	rep := replayOpts(t, src, replay.Options{OptmemMax: 2000})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 10)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Equal(t, "-1 ENOBUFS", c.Predicted)
	require.Contains(t, c.Assumption, "the completions of ids 0..1 (2 uargs) had not run yet")
	require.Contains(t, c.Assumption, "sk_omem_alloc 1664 + 576 > optmem_max 2000")
	require.Equal(t, "0 zerocopy [2,2] COPIED", callAt(t, rep, 13).Predicted, "the refused send took no id")
}

// Once the program read the ids, the kernel held nothing for them: an
// ENOBUFS then has no schedule, and the divergence says what the held
// uargs could have charged at most.
func TestEnobufsWithoutHeldCompletionsDiverges(t *testing.T) {
	src := tcpHead + zcSend("4096") + zcSend("4096") + errq(0, 1) + zcSend(enobufs)
	rep := replayOpts(t, src, replay.Options{OptmemMax: 2000})
	c := callAt(t, rep, 11)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.Equal(t, "4096", c.Predicted)
	require.Contains(t, c.Why, "no schedule: no send whose completion the model ran is unread")

	src = tcpHead + zcSend("4096") + zcSend(enobufs)
	rep = replayText(t, src)
	c = callAt(t, rep, 9)
	require.Equal(t, replay.Diverge, c.Verdict, "optmem_max 131072 holds far more than one uarg")
	require.Contains(t, c.Why, "no schedule: even with the completions of ids 0..0 (1 uargs) not run, sk_omem_alloc would be 832 (optmem_max 131072)")
}

// RLIMIT_MEMLOCK: a 4096-byte send pins ubuf.PinnedPages(4096) = 3
// pages, so a limit of 5 pages admits one send's pages, not two. The
// model unaccounts them at each completion; the kernel had not completed
// the first send when it refused the second.
func TestHeldCompletionsExplainMemlockEnobufs(t *testing.T) {
	src := tcpHead + zcSend("4096") + zcSend(enobufs) + errq(0, 0) + zcSend("4096") + errq(1, 1)
	rep := replayOpts(t, src, replay.Options{Memlock: 5 * 4096, Fixed: replay.FixMemlock})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "their 3 pages were still locked")
	require.Equal(t, replay.Agree, callAt(t, rep, 11).Verdict, "after the read the pages are free again")
}

// A send the model itself refuses agrees plainly: with optmem_max 1000
// the first notification, queued unread, leaves no room for a second.
func TestEnobufsTheModelGivesAgrees(t *testing.T) {
	src := tcpHead + zcSend("4096") + zcSend(enobufs)
	rep := replayOpts(t, src, replay.Options{OptmemMax: 1000})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, replay.Agree, callAt(t, rep, 9).Verdict)
}

// The other way round: sends 1 µs apart (-tt) after the peer's quick
// ACKs are used up wait for its delayed ACK in the model, so their uargs
// still hold optmem and, with optmem_max 2000, the model would refuse the
// next one. The kernel accepted it: a schedule in which the peer ACKed
// earlier (the model's pending work run ahead of its clock) explains
// that, and the send agrees under it.
func TestCompletionsRunAheadExplainAcceptedSend(t *testing.T) {
	var b strings.Builder
	for i, l := range strings.SplitAfter(tcpHead, "\n") {
		if l != "" {
			fmt.Fprintf(&b, "10:00:00.%06d %s", i, l)
		}
	}
	for i := range 20 {
		fmt.Fprintf(&b, "10:00:00.%06d sendto(4, \"zz\"..., 1000, MSG_ZEROCOPY, NULL, 0) = 1000\n", 100+i)
	}
	rep := replayOpts(t, b.String(), replay.Options{OptmemMax: 2000})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.NotZero(t, rep.Summary.Assumed)
	for _, c := range rep.Calls {
		if c.Verdict == replay.Assumed {
			require.Regexp(t, `^the network ran [0-9.]+m?s ahead of the model's clock: completions the model schedules later had already run`, c.Assumption)
		}
	}
}

// The uargs of a sendmmsg's messages are held back like a send's: the
// ENOBUFS after a two-message batch is explained by both not having
// completed yet.
func TestHeldCompletionsOfSendmmsg(t *testing.T) {
	msg := `{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="m"..., iov_len=4096}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=4096}`
	batch := "sendmmsg(4, [" + msg + ", " + msg + "], 2, MSG_ZEROCOPY) = 2\n"
	src := tcpHead + batch + zcSend(enobufs) + errq(0, 1) + zcSend("4096") + errq(2, 2)
	rep := replayOpts(t, src, replay.Options{OptmemMax: 2000})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 9)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "the completions of ids 0..1 (2 uargs) had not run yet")
}

// RLIMIT_MEMLOCK bounds the user's locked pages, whichever socket pinned
// them: a second connection's first send is refused while the first
// connection's send, unread, may still hold its 3 of the 5 pages.
func TestHeldPagesOfAnotherSocket(t *testing.T) {
	second := `socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 6
setsockopt(6, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
connect(6, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
accept4(3, {sa_family=AF_INET, sin_port=htons(54140), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 7
`
	on6 := func(res string) string { return strings.Replace(zcSend(res), "sendto(4,", "sendto(6,", 1) }
	src := tcpHead + second + zcSend("4096") + on6(enobufs) + errq(0, 0) + on6("4096")
	rep := replayOpts(t, src, replay.Options{Memlock: 5 * 4096, Fixed: replay.FixMemlock})
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 13)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "the completions of the user's other sockets' unread sends had not run yet, so their 3 pages were still locked")
	require.Equal(t, replay.Agree, callAt(t, rep, 15).Verdict)
}
