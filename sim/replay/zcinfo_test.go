package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// zcLog is tcpLog with the error-queue reads replaced by a sendmsg whose
// SCM_ZC_NOTIFICATION has room for 8 completions, as strace prints it on
// entry (cmsg_len 16 + 4 + 8×12).
var zcLog = strings.Replace(tcpLog, tcpLog[strings.Index(tcpLog, "100 recvmsg(4"):strings.Index(tcpLog, "100 close(7")],
	`100 sendmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="zz"..., iov_len=4096}], msg_iovlen=1, msg_control=[{cmsg_len=116, cmsg_level=SOL_SOCKET, cmsg_type=0x4e /* SCM_??? */, cmsg_data="\x08\x00\x00\x00\x00\x00\x00\x00"...}], msg_controllen=120, msg_flags=0}, MSG_ZEROCOPY) = 4096
`, 1)

// Under the v7 series the cmsg is accepted and the send goes on; a merged
// kernel refuses the unknown cmsg type, so the same log diverges there.
func TestZcInfoReplay(t *testing.T) {
	rep, err := replay.Replay("zc.log", []byte(zcLog), replay.Options{Profile: "zc-cmsg-v7"})
	require.NoError(t, err)
	require.True(t, rep.OK(), "divergences: %+v", rep.Divergences())
	last := rep.Calls[len(rep.Calls)-1]
	require.Contains(t, last.Text, "zc_info=8")
	require.Equal(t, "4096", last.Predicted)

	rep, err = replay.Replay("zc.log", []byte(zcLog), replay.Options{})
	require.NoError(t, err)
	d := rep.Divergences()
	require.Len(t, d, 1)
	require.Equal(t, "-1 EINVAL", d[0].Predicted)
}

// Without the zc_info's size field in the log the call is undetermined.
func TestZcInfoReplaySizeUnknown(t *testing.T) {
	log := strings.Replace(zcLog, `, cmsg_data="\x08\x00\x00\x00\x00\x00\x00\x00"...`, "", 1)
	rep, err := replay.Replay("zc.log", []byte(log), replay.Options{Profile: "zc-cmsg-v7"})
	require.NoError(t, err)
	u := rep.Undetermined()
	require.Len(t, u, 1)
	require.Contains(t, u[0].Why, "size of its SCM_ZC_NOTIFICATION")
}
