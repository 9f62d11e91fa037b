package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// sleepHead sets up a traced server (pid 100) and client (pid 101) on
// one loopback connection.
const sleepHead = `100 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3
100 bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
100 listen(3, 1) = 0
101 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4
101 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
100 accept(3, NULL, NULL) = 5
`

// A blocking send that strace shows unfinished while the server reads
// starts at its unfinished line: it queues what the send buffer takes
// and sleeps in sk_stream_wait_memory, each read the server makes while
// it sleeps opens the window whose ACK wakes it to queue more, and it
// returns at its resumed line. The server's MSG_WAITALL reads (lines 8
// and 9) find the data only if the send began before them.
func TestSendSleepsAcrossOtherCalls(t *testing.T) {
	rep := replayText(t, sleepHead+`101 sendto(4, "x"..., 20000000, 0, NULL, 0 <unfinished ...>
100 recvfrom(5, "x"..., 10000000, MSG_WAITALL, NULL, NULL) = 10000000
100 recvfrom(5, "x"..., 10000000, MSG_WAITALL, NULL, NULL) = 10000000
101 <... sendto resumed>) = 20000000
`)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	require.Equal(t, 0, rep.Summary.Diverge)
	for _, l := range []int{8, 9} {
		require.Equal(t, replay.Agree, callAt(t, rep, l).Verdict, "line %d", l)
	}
	send := callAt(t, rep, 7)
	require.Equal(t, replay.Agree, send.Verdict)
	require.Equal(t, "20000000", send.Predicted)
}

// A sleeping send that returned part of its buffer had its wait ended
// (a signal, SO_SNDTIMEO) once it had queued that much: the replay, which
// read the log through before, starts the model's call with that part,
// and the call agrees under that assumption.
func TestSleepingSendCut(t *testing.T) {
	rep := replayText(t, sleepHead+`101 sendto(4, "x"..., 20000000, 0, NULL, 0 <unfinished ...>
100 recvfrom(5, "x"..., 1000000, MSG_WAITALL, NULL, NULL) = 1000000
101 <... sendto resumed>) = 3000000
100 recvfrom(5, "x"..., 2000000, MSG_WAITALL, NULL, NULL) = 2000000
`)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	send := callAt(t, rep, 7)
	require.Equal(t, replay.Assumed, send.Verdict)
	require.Contains(t, send.Assumption, "queuing 3000000 of its 20000000 bytes")
	require.Contains(t, send.Assumption, "started at line 7")
}

// A process killed while its send sleeps leaves the call without a
// result: it is undetermined, and the model's call ends where it was,
// what it queued staying queued for the server's read.
func TestSleepingSendKilled(t *testing.T) {
	rep := replayText(t, sleepHead+`101 sendto(4, "x"..., 20000000, 0, NULL, 0 <unfinished ...>
101 +++ killed by SIGKILL +++
100 recvfrom(5, "x"..., 1000, 0, NULL, NULL) = 1000
`)
	send := callAt(t, rep, 7)
	require.Equal(t, replay.Undetermined, send.Verdict)
	require.Contains(t, send.Why, "the model's call, asleep, was interrupted there, having queued")
	require.Equal(t, replay.Agree, callAt(t, rep, 9).Verdict, "the data queued before the kill reaches the server")
}
