package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

const udpHead = `socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3
setsockopt(3, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
connect(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
`

// udpSend is a 100-byte zerocopy send on fd 3 with the result res.
func udpSend(res string) string {
	return `send(3, "abc"..., 100, MSG_ZEROCOPY) = ` + res + "\n"
}

const refused = "-1 ECONNREFUSED (Connection refused)"

// msg_zerocopy's UDP sender whose untraced receiver went away: two
// datagrams, then ECONNREFUSED. The model's peer read everything; the
// schedule in which the receiver had gone before the second datagram
// explains the error, and from then on the model's peer is closed: the
// next datagram succeeds and meets the closed port, and the one after it
// fails as the kernel's does, agreeing plainly.
func TestGonePeerExplainsConnrefused(t *testing.T) {
	src := udpHead + udpSend("100") + udpSend("100") + udpSend(refused) + udpSend("100") + udpSend(refused)
	rep := replayText(t, src)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 6)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "the untraced receiver at 127.0.0.1:8000 had gone before the socket's last datagram")
	require.Equal(t, replay.Agree, callAt(t, rep, 8).Verdict)
	require.Equal(t, "-1 ECONNREFUSED", callAt(t, rep, 8).Predicted)
}

// No datagram, no ICMP error: the first send's ECONNREFUSED has no
// schedule. And a traced receiver's close would be in the log: its
// sender's ECONNREFUSED is left to the plain prediction.
func TestConnrefusedWithoutSchedule(t *testing.T) {
	c := callAt(t, replayText(t, udpHead+udpSend(refused)), 4)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.Contains(t, c.Why, "no schedule: the socket has sent no datagram")

	rx := `socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 4
bind(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
`
	src := rx + udpHead + udpSend("100") + udpSend(refused)
	c = callAt(t, replayText(t, src), 7)
	require.Equal(t, replay.Diverge, c.Verdict)
	require.False(t, strings.Contains(c.Why, "no schedule"), c.Why)
}
