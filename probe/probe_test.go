package probe_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/probe"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// TestMain lets the test binary serve as its own unprivileged probe child.
func TestMain(m *testing.M) {
	if os.Getenv(probe.ChildEnv) != "" {
		os.Exit(probe.Child(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

func calibration(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.zcs")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// TestCalibrationModel: every calibration file's expectations — written
// from what Linux 6.18 answered — hold on the model. Runs everywhere.
func TestCalibrationModel(t *testing.T) {
	for _, f := range calibration(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			tr, err := interp.Run(f, src, interp.Options{Seed: 1})
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, tr.WriteText(&out, false))
			require.True(t, tr.OK(), out.String())
		})
	}
}

// TestCalibrationKernel runs the calibration suite on the host kernel and
// requires 100% agreement with the model and with every expectation.
func TestCalibrationKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the live-kernel calibration needs root (network namespaces, uid 65534 children)")
	}
	if err := probe.Supported(); err != nil {
		t.Skipf("skipped: this kernel cannot be probed: %v", err)
	}
	for _, f := range calibration(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			res, err := probe.Run(f, src, probe.Options{})
			require.NoError(t, err)
			require.NotEmpty(t, res.Stmts)
			for _, s := range res.Stmts {
				if !s.Agree || !s.MeetsExpectation {
					t.Errorf("%s:%d %s: kernel %s, model %s, expected %q", f, s.Line, s.Text, s.Kernel, s.Model, s.Expected)
				}
			}
			require.Equal(t, strings.Contains(string(src), "capdrop"), res.Unprivileged)
		})
	}
}

func TestCheckRefuses(t *testing.T) {
	src := "device eth0 nic\nsocket s AF_INET SOCK_STREAM via=eth0\nhold s ack\nsysctl net.core.wmem_max 1\nsocket t AF_INET SOCK_DGRAM\nsysctl net.core.optmem_max 4096\ntask a user=main\n"
	stmts, err := scenario.Parse("x.zcs", []byte(src))
	require.NoError(t, err)
	err = probe.Check(stmts)
	var list scenario.ErrorList
	require.ErrorAs(t, err, &list)
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Pos.Line)
		require.Contains(t, e.Error(), "probe:")
	}
	require.Equal(t, []int{1, 2, 3, 4, 6, 7}, lines)

	_, err = probe.Run("x.zcs", []byte(src), probe.Options{})
	require.ErrorAs(t, err, &list)
	_, err = probe.Run("y.zcs", []byte("sendd s\n"), probe.Options{})
	require.ErrorAs(t, err, &list)
}

func TestCheckAccepts(t *testing.T) {
	for _, f := range calibration(t) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		stmts, err := scenario.Parse(f, src)
		require.NoError(t, err)
		require.NoError(t, probe.Check(stmts), f)
	}
}

// TestFindingTCPTimestampKeys records a model fix the calibration found:
// on TCP the SOF_TIMESTAMPING_OPT_ID key counts bytes (tcp_tx_timestamp:
// tskey = seq + len - 1, reported less sk_tskey, which
// sock_set_timestamping sets to snd_una), not datagrams. Linux 6.18
// answered 999 and 1999 for two 1000-byte sends after 500 acknowledged
// bytes; the model used to say 0 and 1.
func TestFindingTCPTimestampKeys(t *testing.T) {
	src := `socket t AF_INET SOCK_STREAM
connect t => 0
send t 500 0 => 500
settle
setsockopt t SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE|SOF_TIMESTAMPING_OPT_ID|SOF_TIMESTAMPING_OPT_TSONLY => 0
settle
send t 1000 0 => 1000
settle
send t 1000 0 => 1000
settle
recvmsg t MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=999
recvmsg t MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=1999
socket u AF_INET SOCK_DGRAM
connect u => 0
setsockopt u SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE|SOF_TIMESTAMPING_OPT_ID|SOF_TIMESTAMPING_OPT_TSONLY => 0
send u 1000 0 => 1000
send u 1000 0 => 1000
recvmsg u MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=0
recvmsg u MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=1
`
	tr, err := interp.Run("tskey.zcs", []byte(src), interp.Options{Seed: 1})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tr.WriteText(&out, false))
	require.True(t, tr.OK(), out.String())
}

func TestWriteText(t *testing.T) {
	r := &probe.Result{File: "f.zcs", Profile: "linux-6.18", Stmts: []probe.Stmt{
		{Line: 3, Text: "send s 1 MSG_ZEROCOPY", Kernel: "1", Model: "-1 ENOBUFS", MeetsExpectation: false, Expected: "1"},
	}, Diverge: 1}
	var b bytes.Buffer
	require.NoError(t, r.WriteText(&b))
	require.Contains(t, b.String(), "DIFF f.zcs:3")
	require.Contains(t, b.String(), "1 statements, 0 agree, 1 diverge")
	require.False(t, r.OK())
}
