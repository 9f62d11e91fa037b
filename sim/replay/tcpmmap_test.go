package replay_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// TestTcpMmapSelftestLog replays the kernel's tcp_mmap selftest (server
// -s -z mapping what the client -z -P 4000000 sends, both in one trace,
// loopback MTU 49204: testdata/tcp_mmap, recorded by
// scripts/record-selftest-logs.sh) and requires that nothing diverges.
// The client's SO_MAX_PACING_RATE paces it (tcp_pacing_check); the first
// 16 skbs of its first send are cut to half the SYN-ACK's window until
// tcp_sendmsg_locked's backlog flush brings the larger one (the 17th skb
// is 32783 bytes: eight pages and 15 bytes), and every mapping then takes
// whole pages. The client's blocking sends sleep in sk_stream_wait_memory
// from their unfinished line to their resumed one while the server's
// reads run, so each getsockopt finds the inq the kernel had, with no
// assumption of what had arrived. timeout's SIGTERM cut the
// client's last send at 245760 bytes, which agrees under the assumption
// that its wait ended then.
func TestTcpMmapSelftestLog(t *testing.T) {
	const log = "testdata/tcp_mmap/selftest_tcp_mmap_zc.log.gz"
	rep, err := replay.ReplayFile(log, options(t, log))
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, 49204, rep.Config.MTU)
	zc, guided := 0, 0
	for _, c := range rep.Calls {
		if c.Syscall == "getsockopt" && strings.Contains(c.Text, "TCP_ZEROCOPY_RECEIVE") {
			zc++
			if strings.Contains(c.Assumption, "had arrived") {
				guided++
			}
		}
	}
	require.Greater(t, zc, 20)
	// The client's sends sleep across the server's reads, as they did
	// in the kernel: each read finds what the kernel had queued, with no
	// schedule of what had arrived.
	require.Zero(t, guided, "inq is what the model has queued")
	require.Equal(t, "0 {length=32768, recv_skip_hint=15, inq=491535, err=0, copybuf_len=0, msg_controllen=0, msg_flags=0} [64]", callAt(t, rep, 590).Predicted, "the 17th skb")
	cut := callAt(t, rep, 630)
	require.Equal(t, replay.Assumed, cut.Verdict)
	require.Contains(t, cut.Assumption, "queuing 245760 of its 524288 bytes")
}

// A blocking TCP send that returned fewer bytes than its buffer was cut
// short (a signal or SO_SNDTIMEO ended its wait for send buffer, or an
// error came after some data): the log does not say when, so the model
// sends what it returned, and the call agrees under that assumption.
func TestCutBlockingSend(t *testing.T) {
	src := `socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
connect(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
sendto(3, "zz"..., 1000000, 0, NULL, 0) = 300000
`
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 3)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "queuing 300000 of its 1000000 bytes")
}

// The loopback MTU, which the log does not show, is an option between
// IPV6_MIN_MTU and loopback's 65536.
func TestReplayMTU(t *testing.T) {
	_, err := replay.Replay("x.log", []byte("socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n"), replay.Options{MTU: 100})
	require.ErrorContains(t, err, "loopback MTU 100 is not between 1280 and 65536")
	rep, err := replay.Replay("x.log", []byte("socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3\n"), replay.Options{MTU: 9000})
	require.NoError(t, err)
	require.Equal(t, 9000, rep.Config.MTU)
}

// TestTcpMmapSleepingLogs replays two more recordings of the same
// selftest (testdata/tcp_mmap/selftest_tcp_mmap_zc_*.log.gz) that
// diverged while the replay ran each send at its resumed line. In _sleep
// the server's getsockopt calls found what the client's sends had queued
// while they slept; since the accepted socket takes its listener's
// SO_RCVLOWAT of 512 KiB (sk_clone_lock), as the kernel's does, the
// server wakes no sooner than the kernel's. In _sndbuf a send the kernel
// returned at once found the model's send buffer full with the peer's
// window closed until the next reads, until the model merged the ACKs
// that wait on a sender's backlog as tcp_add_backlog does. In both, only
// the last send, which the run's timeout cut short, agrees under an
// assumption; every other send agrees outright.
func TestTcpMmapSleepingLogs(t *testing.T) {
	cut := map[string]string{
		"selftest_tcp_mmap_zc_sleep.log.gz":  "the call returned after queuing 393216 of its 524288 bytes",
		"selftest_tcp_mmap_zc_sndbuf.log.gz": "the call returned after queuing 245760 of its 524288 bytes",
	}
	replayRecorded(t, "testdata/tcp_mmap/selftest_tcp_mmap_zc_*.log.gz", ".log.gz", func(t *testing.T, log string, rep *replay.Report) {
		require.True(t, rep.OK())
		var assumed []string
		for _, c := range rep.Calls {
			if c.Syscall == "sendto" && c.Assumption != "" {
				assumed = append(assumed, c.Assumption)
			}
		}
		require.Len(t, assumed, 1, "only the send the timeout cut agrees under an assumption")
		require.Contains(t, assumed[0], cut[filepath.Base(log)])
	})
}
