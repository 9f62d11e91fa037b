package replay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sim/strace/stracetest"
)

// options reads a fixture's NAME.replay sidecar: the replay flags its
// recording needs (--optmem-max N, --cap-ipc-lock, --cap-net-admin).
func options(t *testing.T, log string) replay.Options {
	t.Helper()
	var o replay.Options
	b, err := os.ReadFile(strings.TrimSuffix(strings.TrimSuffix(log, ".gz"), ".log") + ".replay")
	if errors.Is(err, os.ErrNotExist) {
		return o
	}
	require.NoError(t, err)
	f := strings.Fields(string(b))
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "--optmem-max":
			i++
			n, err := strconv.Atoi(f[i])
			require.NoError(t, err)
			o.OptmemMax = n
		case "--mtu":
			i++
			n, err := strconv.Atoi(f[i])
			require.NoError(t, err)
			o.MTU = n
		case "--cap-ipc-lock":
			o.CapIPCLock = true
		case "--cap-net-admin":
			o.CapNetAdmin = true
		default:
			t.Fatalf("%s: unknown option %q", log, f[i])
		}
	}
	return o
}

// replayRecorded replays each recorded log matching glob (with its
// NAME.replay flags; every log has its NAME.cmd), requires no divergence
// and no broken invariant, and hands the report to check.
func replayRecorded(t *testing.T, glob, ext string, check func(t *testing.T, log string, rep *replay.Report)) {
	logs, err := filepath.Glob(glob)
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	for _, log := range logs {
		t.Run(filepath.Base(log), func(t *testing.T) {
			_, err := os.Stat(strings.TrimSuffix(log, ext) + ".cmd")
			require.NoError(t, err, "every log has its command")
			rep, err := replay.ReplayFile(log, options(t, log))
			require.NoError(t, err)
			for _, d := range rep.Divergences() {
				t.Errorf("line %d: %s: observed %s, predicted %s (%s)", d.Line, d.Text, d.Observed, d.Predicted, d.Why)
			}
			for _, v := range rep.Violations() {
				t.Errorf("line %d (step %d, %s): invariant %s: %s: %s", v.Line, v.Step, v.Op, v.Rule, v.Object, v.Message)
			}
			check(t, log, rep)
		})
	}
}

// TestRecordedProbes replays the strace logs of zcsim probe runs recorded
// on Linux 6.18 (testdata/*.log, commands in *.cmd) and requires the model
// to agree on every call.
func TestRecordedProbes(t *testing.T) {
	replayRecorded(t, "testdata/*.log", ".log", func(t *testing.T, _ string, rep *replay.Report) {
		require.NotZero(t, rep.Summary.Calls)
	})
}

// TestSelftestLogs replays the logs of the kernel's MSG_ZEROCOPY
// selftests (msg_zerocopy, udpgso_bench_tx) that
// scripts/record-selftest-logs.sh recorded on Linux 6.18, and requires
// that nothing diverges. In the TCP logs the sender reads notifications
// before the peer acknowledged every send: those reads agree under an
// assumption.
func TestSelftestLogs(t *testing.T) {
	replayRecorded(t, "testdata/selftest_*.log.gz", ".log.gz", func(t *testing.T, log string, rep *replay.Report) {
		require.Greater(t, rep.Summary.Agree, 100)
		if strings.Contains(log, "tcp4_zc") {
			require.NotZero(t, rep.Summary.Assumed)
		}
	})
}

// TestStraceFixtures replays the logs recorded for the strace parser
// (Python programs). All agree, threads racing included (their reads are
// guided by the observation), except threads_stderr.log: traced with
// -e trace=%network, it does not show the clients' close, so the reads
// that see its FIN diverge.
func TestStraceFixtures(t *testing.T) {
	logs, err := filepath.Glob("../strace/testdata/*.log")
	require.NoError(t, err)
	for _, log := range logs {
		t.Run(filepath.Base(log), func(t *testing.T) {
			rep, err := replay.ReplayFile(log, replay.Options{})
			require.NoError(t, err)
			require.Empty(t, rep.Violations())
			if filepath.Base(log) == "threads_stderr.log" {
				require.Greater(t, rep.Summary.Agree, rep.Summary.Diverge)
				for _, d := range rep.Divergences() {
					require.Equal(t, "0", d.Observed, "only the FIN of an untraced close")
				}
				return
			}
			require.Empty(t, rep.Divergences())
		})
	}
}

const tcpLog = `100 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 3
100 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
100 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
100 listen(3, 1) = 0
100 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4
100 setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
100 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
100 accept4(3, {sa_family=AF_INET, sin_port=htons(54138), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 5
100 sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096
100 sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096
100 recvfrom(5, "zz"..., 65536, 0, NULL, NULL) = 8192
100 recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=0, ee_data=1}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0
100 recvmsg(4, {msg_namelen=16}, MSG_ERRQUEUE) = -1 EAGAIN (Resource temporarily unavailable)
100 close(7</etc/passwd>) = 0
100 +++ exited with 0 +++
`

func TestAgreement(t *testing.T) {
	rep, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{})
	require.NoError(t, err)
	require.True(t, rep.OK(), "divergences: %+v", rep.Divergences())
	require.Equal(t, 13, rep.Summary.Calls)
	require.Equal(t, "setsockopt(3, SO_REUSEADDR, 1)", rep.Calls[1].Text)
	require.Equal(t, "0", rep.Calls[1].Predicted)
	// The accepted socket is the traced client's peer: it reads what fd 4 sent.
	require.Equal(t, "8192", rep.Calls[10].Predicted)
	require.Equal(t, "0 zerocopy [0,1] COPIED", rep.Calls[11].Predicted)
	require.Contains(t, rep.Ignored, strace.IgnoredCount{Name: "close (not a socket the replay follows)", Count: 1})
}

// TestDivergence: a memlock limit the model knows makes the send fail;
// the log says it succeeded, and the report names the model's reason.
func TestDivergence(t *testing.T) {
	log := strings.Replace(tcpLog, "100 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4\n",
		"100 prlimit64(0, RLIMIT_MEMLOCK, {rlim_cur=4*1024, rlim_max=8192*1024}, NULL) = 0\n100 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4\n", 1)
	rep, err := replay.Replay("tcp.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	require.False(t, rep.OK())
	d := rep.Divergences()[0]
	require.Equal(t, 10, d.Line)
	require.Equal(t, "4096", d.Observed)
	require.Equal(t, "-1 ENOBUFS", d.Predicted)
	require.Contains(t, d.Why, "mm_account_pinned_pages")

	// With CAP_IPC_LOCK the limit does not apply.
	rep, err = replay.Replay("tcp.log", []byte(log), replay.Options{CapIPCLock: true})
	require.NoError(t, err)
	require.True(t, rep.OK())
}

func TestOptmemMax(t *testing.T) {
	rep, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{OptmemMax: 500})
	require.NoError(t, err)
	require.Equal(t, 500, rep.Config.OptmemMax)
	require.Equal(t, "-1 ENOBUFS", rep.Calls[8].Predicted) // 0 + 576 > 500
}

func TestBadInput(t *testing.T) {
	_, err := replay.Replay("bad.log", []byte("socket(AF_INET, SOCK_STREAM, 0 = 3\n"), replay.Options{})
	var list *strace.ErrorList
	require.ErrorAs(t, err, &list)
	require.Contains(t, err.Error(), "bad.log:1:")

	_, err = replay.Replay("ok.log", []byte(tcpLog), replay.Options{Profile: "linux-9.99"})
	require.ErrorContains(t, err, "unknown profile")
	_, err = replay.Replay("ok.log", []byte(tcpLog), replay.Options{OptmemMax: -1})
	require.Error(t, err)
	_, err = replay.ReplayFile("testdata/does-not-exist.log", replay.Options{})
	require.ErrorIs(t, err, os.ErrNotExist)
	notGzip := filepath.Join(t.TempDir(), "plain.log.gz")
	require.NoError(t, os.WriteFile(notGzip, []byte(tcpLog), 0o644))
	_, err = replay.ReplayFile(notGzip, replay.Options{})
	require.ErrorContains(t, err, "plain.log.gz: gzip: invalid header")
}

// TestTimestamps: with -tt the model advances by the real gap instead of
// settling, so a delayed ACK that has not fired yet is still pending.
func TestTimestamps(t *testing.T) {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(tcpLog), "\n") {
		b.WriteString(strings.Replace(l, "100 ", "100 21:00:00."+strconv.Itoa(100000+i)+" ", 1) + "\n")
	}
	rep, err := replay.Replay("tt.log", []byte(b.String()), replay.Options{})
	require.NoError(t, err)
	require.Equal(t, "time of day (-t/-tt)", rep.Config.Timestamps)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
}

func TestIPv6ComparedOnReturnOnly(t *testing.T) {
	rep, err := replay.ReplayFile("../strace/testdata/udp6_r_T.log", replay.Options{})
	require.NoError(t, err)
	require.True(t, rep.OK())
	var partial int
	for _, c := range rep.Calls {
		if c.Compared != "" {
			partial++
		}
	}
	require.NotZero(t, partial)
	require.Contains(t, strings.Join(rep.Notes, "\n"), "IPV6_RECVERR")
}

// TestSocketPairForgetsItsFds: a socketpair can only be AF_UNIX, so its
// descriptors stop being followed even when they reuse the number of a
// socket whose close the log does not show.
func TestSocketPairForgetsItsFds(t *testing.T) {
	log := `socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 4
socketpair(AF_UNIX, SOCK_STREAM, 0, [4, 6]) = 0
sendto(4, "x", 1, 0, NULL, 0) = 1
`
	rep, err := replay.Replay("pair.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	require.True(t, rep.OK(), "divergences: %+v", rep.Divergences())
	require.Contains(t, rep.Ignored, strace.IgnoredCount{Name: "socketpair (AF_UNIX pairs are not modelled)", Count: 1})
	require.Contains(t, rep.Ignored, strace.IgnoredCount{Name: "sendto (socket the model does not follow)", Count: 1})
}

func TestWriteJSON(t *testing.T) {
	rep, err := replay.Replay("tcp.log", []byte(tcpLog), replay.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	kind := func(l string) string {
		var v struct{ Kind string }
		require.NoError(t, json.Unmarshal([]byte(l), &v))
		return v.Kind
	}
	require.Equal(t, "config", kind(lines[0]))
	require.Equal(t, "call", kind(lines[1]))
	require.Equal(t, "summary", kind(lines[len(lines)-1]))
	var sum replay.Summary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.True(t, sum.OK)
}

func TestWriteText(t *testing.T) {
	// 100 bytes is no arrival of the two 4096-byte segments the model has
	// queued: no schedule explains it.
	log := strings.Replace(tcpLog, "recvfrom(5, \"zz\"..., 65536, 0, NULL, NULL) = 8192", "recvfrom(5, \"zz\"..., 65536, 0, NULL, NULL) = 100", 1)
	rep, err := replay.Replay("tcp.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteText(&buf))
	out := buf.String()
	require.Contains(t, out, "replay of tcp.log under linux-6.18")
	require.Contains(t, out, "divergences:\n  line 11: recvfrom(5, 65536, 0): observed 100, predicted 8192")
	require.Contains(t, out, "1 diverge")
}

// FuzzReplay: whatever the log, a replay returns a report or an error
// naming line:col, never panics; its verdict counts add up to the calls
// it compared; OK means something agreed and nothing diverged; every
// undetermined call says why; and replaying the same log twice prints
// byte-identical text and JSON. It starts from recorded logs and from
// generated ones (stracetest).
func FuzzReplay(f *testing.F) {
	f.Add([]byte(tcpLog))
	f.Add([]byte(sleepHead + "101 sendto(4, \"x\"..., 2000000, 0, NULL, 0 <unfinished ...>\n" +
		"100 recvfrom(5, \"x\"..., 1000000, MSG_WAITALL, NULL, NULL) = 1000000\n101 <... sendto resumed>) = 1500000\n"))
	f.Add([]byte(epollHead + "write(4, \"x\"..., 100) = 100\n" + epollReady + "epoll_wait(6, [], 8, 0) = 0\n"))
	for _, log := range []string{"../strace/testdata/udp4_ttt.log", "testdata/cmsg.log", "testdata/epoll_zc.log"} {
		if b, err := os.ReadFile(log); err == nil {
			f.Add(b)
		}
	}
	for seed := range uint64(16) {
		src, _ := stracetest.Log(seed, 16)
		f.Add([]byte(src))
	}
	// A small bound keeps every input fast; the bound's own path is
	// exercised by the huge sizes the generator writes.
	opts := replay.Options{MaxCallBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, src []byte) {
		rep, err := replay.Replay("fuzz.log", src, opts)
		if err != nil {
			var list *strace.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %v is not an *strace.ErrorList", err)
			}
			for _, e := range list.Errs {
				if !strings.HasPrefix(e.Error(), fmt.Sprintf("fuzz.log:%d:%d: ", e.Line, e.Col)) || e.Line < 1 || e.Col < 1 {
					t.Fatalf("error %q does not name fuzz.log:line:col", e.Error())
				}
			}
			return
		}
		checkSummary(t, rep)
		again, err := replay.Replay("fuzz.log", src, opts)
		if err != nil {
			t.Fatalf("second replay failed: %v", err)
		}
		if a, b := render(t, rep), render(t, again); a != b {
			t.Fatalf("two replays of the same log differ:\n%s\n---\n%s", a, b)
		}
	})
}

// checkSummary checks that a report's summary is what its calls say.
func checkSummary(t *testing.T, rep *replay.Report) {
	t.Helper()
	s := rep.Summary
	n := map[replay.Verdict]int{}
	for _, c := range rep.Calls {
		n[c.Verdict]++
		if c.Verdict == replay.Undetermined && c.Why == "" {
			t.Errorf("line %d: undetermined without a reason", c.Line)
		}
		if (c.Verdict == replay.Agree || c.Verdict == replay.Assumed) && c.Observed != c.Predicted && c.Compared == "" {
			t.Errorf("line %d: agrees on %q against %q", c.Line, c.Observed, c.Predicted)
		}
		if (c.Verdict == replay.Assumed) != (c.Assumption != "") {
			t.Errorf("line %d: verdict %s with assumption %q", c.Line, c.Verdict, c.Assumption)
		}
	}
	if len(n) > 4 || s.Calls != len(rep.Calls) || s.Agree != n[replay.Agree] || s.Assumed != n[replay.Assumed] || s.Diverge != n[replay.Diverge] ||
		s.Undetermined != n[replay.Undetermined] || s.Agree+s.Assumed+s.Diverge+s.Undetermined != s.Calls {
		t.Errorf("summary %+v does not count the calls %v", s, n)
	}
	if s.OK != (s.Diverge == 0 && s.Agree+s.Assumed > 0) || s.OK != rep.OK() {
		t.Errorf("summary %+v: OK is %v", s, s.OK)
	}
}

// render prints a report as text and as JSON.
func render(t *testing.T, rep *replay.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b))
	require.NoError(t, rep.WriteJSON(&b))
	return b.String()
}

// A bind the log shows failing with EADDRINUSE is undetermined: the
// model has no ports, and the socket holding the address may be outside
// the log. SO_REUSEADDR is replayed and read back.
func TestBindAddrInUse(t *testing.T) {
	log := `100 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
100 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
100 getsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], [4]) = 0
100 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EADDRINUSE (Address already in use)
`
	rep, err := replay.Replay("bind.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	require.Equal(t, 4, rep.Summary.Calls)
	require.Equal(t, replay.Agree, rep.Calls[2].Verdict)
	require.Equal(t, "0 [1]", rep.Calls[2].Predicted)
	bind := rep.Calls[3]
	require.Equal(t, replay.Undetermined, bind.Verdict)
	require.Equal(t, "-1 EADDRINUSE", bind.Observed)
	require.Contains(t, bind.Why, "inet_csk_get_port")
	require.Empty(t, rep.Divergences())
}
