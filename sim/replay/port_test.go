package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// A prediction that rests on a port the log does not show is
// undetermined, with the reason, never a guess. A listener that never
// bound a port (listen chose one) may or may not be what the client's
// connect to port 40000 reached: the accept that the replay pairs with it
// is undetermined; once getsockname shows the port, it agrees.
func TestUnknownListenerPortIsUndetermined(t *testing.T) {
	const log = `socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
listen(3, 1) = 0
socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4
connect(4, {sa_family=AF_INET, sin_port=htons(40000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
sendto(4, "zz"..., 100, 0, NULL, 0) = 100
accept(3, NULL, NULL) = 5
recvfrom(5, "zz"..., 2048, MSG_DONTWAIT, NULL, NULL) = 100
`
	rep := replayText(t, log)
	c := callAt(t, rep, 6)
	require.Equal(t, replay.Undetermined, c.Verdict)
	require.Equal(t, "5", c.Predicted, "the model still pairs them, to keep its state")
	require.Contains(t, c.Why, "the log does not show the port fd 3 listens on")
	require.Contains(t, c.Why, "whether fd 4's connect to 127.0.0.1:40000 reached it is unknown")
	require.Zero(t, rep.Summary.Diverge)

	known := strings.Replace(log, "listen(3, 1) = 0\n", "listen(3, 1) = 0\n"+
		`getsockname(3, {sa_family=AF_INET, sin_port=htons(40000), sin_addr=inet_addr("127.0.0.1")}, [16]) = 0`+"\n", 1)
	rep = replayText(t, known)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Zero(t, rep.Summary.Undetermined)
}

// A datagram socket whose port the log does not show cannot be tied to
// the traced sender's datagrams: its read of data the model never
// delivered is undetermined, not a divergence. Bound to the port the
// sender sends to, it reads that datagram and agrees.
func TestUnknownDatagramPortIsUndetermined(t *testing.T) {
	const log = `socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3
bind(3, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 4
sendto(4, "zz"..., 100, 0, {sa_family=AF_INET, sin_port=htons(40000), sin_addr=inet_addr("127.0.0.1")}, 16) = 100
recvfrom(3, "zz"..., 2048, MSG_DONTWAIT, {sa_family=AF_INET, sin_port=htons(50000), sin_addr=inet_addr("127.0.0.1")}, [16]) = 100
`
	rep := replayText(t, log)
	c := callAt(t, rep, 5)
	require.Equal(t, replay.Undetermined, c.Verdict)
	require.Equal(t, "not replayed", c.Predicted)
	require.Contains(t, c.Why, "the log does not show fd 3's port")
	require.Zero(t, rep.Summary.Diverge)

	rep = replayText(t, strings.Replace(log, "htons(0)", "htons(40000)", 1))
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, replay.Agree, callAt(t, rep, 5).Verdict)
}
