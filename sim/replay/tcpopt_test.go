package replay_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// testdata/tcpinfo_cong.log (tcpinfo_cong.go, traced by strace 6.1 on
// Linux 6.18 without capabilities; tcpinfo_cong.cmd) sets and reads
// TCP_CONGESTION and reads TCP_INFO before and after the handshake: every
// call agrees, the names the kernel has not (ENOENT), the restricted
// cubic (EPERM), the int strace prints for a 4-byte name and the
// listener's choice inherited by the accepted child included.
func TestTCPCongestionAndInfoReplay(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/tcpinfo_cong.log", replay.Options{})
	require.NoError(t, err)
	s := rep.Summary
	require.Equal(t, 46, s.Calls, "%+v", s)
	require.Equal(t, 46, s.Agree, "%+v", s)
	byLine := map[int]replay.Call{}
	for _, c := range rep.Calls {
		byLine[c.Line] = c
	}
	for l, want := range map[int][2]string{
		19: {`setsockopt(4, TCP_CONGESTION, "reno", 4)`, "0"},
		20: {"getsockopt(4, TCP_CONGESTION, 16)", `0 "reno"`},
		22: {`setsockopt(4, TCP_CONGESTION, "cubic", 5)`, "-1 EPERM"},
		23: {`setsockopt(4, TCP_CONGESTION, "vegas", 5)`, "-1 ENOENT"},
		25: {`setsockopt(4, TCP_CONGESTION, "re", 2)`, "-1 ENOENT"},
		28: {"getsockopt(4, TCP_CONGESTION, 4)", `0 "bbr"`},
		30: {"getsockopt(4, TCP_CONGESTION, 0)", `0 ""`},
		38: {"getsockopt(5, TCP_CONGESTION, 16)", `0 "reno"`},
		17: {"getsockopt(4, TCP_INFO, 280)", "0 {state=7, probes=0, backoff=0, options=0, rcv_wscale=0, snd_wscale=0, snd_mss=536, unacked=0} [280]"},
		41: {"getsockopt(4, TCP_INFO, 280)", "0 {state=1, probes=0, backoff=0, options=7, rcv_wscale=10, snd_wscale=10, snd_mss=47616, unacked=3} [280]"},
		49: {"getsockopt(4, TCP_INFO, 1)", "0 {state=1} [1]"},
		51: {"getsockopt(6, TCP_INFO, 280)", "-1 EOPNOTSUPP"},
		52: {`setsockopt(6, TCP_CONGESTION, "reno", 4)`, "-1 ENOPROTOOPT"},
	} {
		c := byLine[l]
		require.Equal(t, want[0], c.Text, "line %d", l)
		require.Equal(t, want[1], c.Observed, "line %d", l)
		require.Equal(t, replay.Agree, c.Verdict, "line %d", l)
	}
	require.Contains(t, byLine[41].Compared, "the fields in the 32 bytes strace printed; not in the model: ca_state")
}

// editedInfoLog replays tcpinfo_cong.log with old replaced by new on
// line l.
func editedInfoLog(t *testing.T, l int, old, new string) *replay.Report {
	t.Helper()
	src, err := os.ReadFile("testdata/tcpinfo_cong.log")
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	require.Contains(t, lines[l-1], old)
	lines[l-1] = strings.Replace(lines[l-1], old, new, 1)
	return replayText(t, strings.Join(lines, "\n"))
}

// The TCP_INFO fields that hang on when ACKs came and timers fired are
// guided by the log; those of the handshake are not.
func TestTCPInfoVerdicts(t *testing.T) {
	t.Run("more in flight", func(t *testing.T) {
		// Line 46, after the reads: tcpi_rcv_mss 536, then nothing in
		// flight, in the kernel as in the model.
		c := callAt(t, editedInfoLog(t, 46, `\30\2\0\0\0\0`, `\30\2\0\0\2\0`), 46)
		require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
		require.Contains(t, c.Assumption, "the peer's ACKs for 2 more segments had not arrived")
	})
	t.Run("more in flight than sent", func(t *testing.T) {
		// Line 41: three segments in flight, the model's too, and no
		// other segment sent: a fifth is another segmentation.
		c := callAt(t, editedInfoLog(t, 41, `\30\2\0\0\3\0`, `\30\2\0\0\5\0`), 41)
		require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
		require.Contains(t, c.Why, "no schedule: the model's pending work never makes unacked 5")
	})
	t.Run("FIN acknowledged", func(t *testing.T) {
		// Line 54: FIN_WAIT1 with the FIN in flight; the kernel's peer
		// acknowledging it at once is the model's delayed ACK run ahead.
		rep := editedInfoLog(t, 54, `"\4\0\0\0\0\7\252\0\340\34\3\0\0\0\0\0\313\377\0\0\30\2\0\0\1`, `"\5\0\0\0\0\7\252\0\340\34\3\0\0\0\0\0\313\377\0\0\30\2\0\0\0`)
		c := callAt(t, rep, 54)
		require.Equal(t, replay.Assumed, c.Verdict, "%+v", c)
		require.Contains(t, c.Assumption, "ahead of the model's clock")
		require.Equal(t, c.Observed, c.Predicted)
	})
	t.Run("other MSS", func(t *testing.T) {
		c := callAt(t, editedInfoLog(t, 36, `\345\177`, `\344\177`), 36)
		require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
		require.Contains(t, c.Why, "snd_mss 32740")
	})
	t.Run("a timer fired", func(t *testing.T) {
		c := callAt(t, editedInfoLog(t, 46, `"\1\0\0\0\0`, `"\1\0\0\0\1`), 46)
		require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
		require.Contains(t, c.Why, "tcpi_probes and tcpi_backoff count expiries")
	})
	t.Run("optlen", func(t *testing.T) {
		c := callAt(t, editedInfoLog(t, 48, `[8]`, `[8 => 4]`), 48)
		require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	})
}

// A TCP_CONGESTION buffer strace shows only by its address is
// undetermined, and a name the model does not know is the kernel's
// ENOENT.
func TestTCPCongestionVerdicts(t *testing.T) {
	c := callAt(t, editedInfoLog(t, 19, "[1869505906]", "0x7ffc1062fb30"), 19)
	require.Equal(t, replay.Undetermined, c.Verdict, "%+v", c)
	require.Equal(t, "not replayed", c.Predicted)
	c = callAt(t, editedInfoLog(t, 23, "-1 ENOENT (No such file or directory)", "0"), 23)
	require.Equal(t, replay.Diverge, c.Verdict, "%+v", c)
	require.Equal(t, "-1 ENOENT", c.Predicted)
}
