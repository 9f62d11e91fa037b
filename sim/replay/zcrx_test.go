package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// TestZerocopyReceive replays testdata/zcrx_probe.log (zcrx_probe.c):
// mmap of the accepted socket, getsockopt(TCP_ZEROCOPY_RECEIVE) with
// less than a page queued under optlen 16, 24, 8 and 64, one at an
// address strace does not show, a mapping of the client's socket, munmap.
// The out fields strace showed are compared; the request's length, which
// the kernel overwrote, is the stated assumption; the failed call whose
// address strace hid is undetermined, not guessed.
func TestZerocopyReceive(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/zcrx_probe.log", replay.Options{CapIPCLock: true, CapNetAdmin: true})
	require.NoError(t, err)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, "mapped", callAt(t, rep, 39).Predicted)
	short := callAt(t, rep, 40)
	require.Equal(t, replay.Assumed, short.Verdict)
	require.Equal(t, "0 {length=0, recv_skip_hint=5000} [16]", short.Predicted, "optlen 16 shows no inq")
	require.Contains(t, short.Assumption, "the request's length, which the kernel overwrote")
	require.Equal(t, "0 {length=0, recv_skip_hint=5000, inq=5000, err=0} [24]", callAt(t, rep, 41).Predicted)
	tiny := callAt(t, rep, 42)
	require.Equal(t, replay.Agree, tiny.Verdict, "optlen 8 is EINVAL whatever the struct")
	require.Equal(t, "-1 EINVAL", tiny.Predicted)
	hidden := callAt(t, rep, 43)
	require.Equal(t, replay.Undetermined, hidden.Verdict)
	require.Contains(t, hidden.Why, "only the struct's pointer")
	full := callAt(t, rep, 44)
	require.Equal(t, replay.Assumed, full.Verdict)
	require.Equal(t, "0 {length=0, recv_skip_hint=5000, inq=5000, err=0, copybuf_len=0, msg_controllen=0, msg_flags=0} [64]", full.Observed)
	require.Equal(t, replay.Agree, callAt(t, rep, 45).Verdict, "tcp_mmap ignores the offset")
	require.Equal(t, "munmap(fd 5's mapping)", callAt(t, rep, 46).Text)
	require.Equal(t, replay.Agree, callAt(t, rep, 46).Verdict)
}
