package replay_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// testdata/cmsg.log (cmsg.c, traced by strace 6.1 on Linux 6.18 as an
// unprivileged user; cmsg.cmd) sends with one control message each: the
// model agrees on every result the messages' levels, types and lengths
// decide, and leaves undetermined the two whose data strace does not
// print (a u16 UDP_SEGMENT, a u32 SO_TIMESTAMPING_OLD).
func TestControlMessagesReplay(t *testing.T) {
	rep, err := replay.ReplayFile("testdata/cmsg.log", replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	u := rep.Undetermined()
	require.Len(t, u, 2)
	require.Contains(t, u[0].Why, "strace did not print the data of the control message of level 17, type 103")
	require.Contains(t, u[1].Why, "level 1, type 37")
	s := rep.Summary
	require.Equal(t, 20, s.Agree, "%+v", s)
}

// A message the model does not know (SOL_IP's IP_TOS) leaves its call
// undetermined; the call still runs, without it, as the log shows it.
func TestControlMessageNotModelled(t *testing.T) {
	src, err := os.ReadFile("testdata/cmsg.log")
	require.NoError(t, err)
	log := strings.Replace(string(src), "cmsg_level=0x4d2 /* SOL_??? */, cmsg_type=0x5", "cmsg_level=SOL_IP, cmsg_type=IP_TOS", 1)
	rep, err := replay.Replay("cmsg.log", []byte(log), replay.Options{})
	require.NoError(t, err)
	require.Empty(t, rep.Divergences())
	u := rep.Undetermined()
	require.Len(t, u, 3)
	require.Contains(t, u[1].Why, "strace names a control message level or type IP_TOS, which the model does not know")
	require.Equal(t, "100", u[1].Predicted)
}
