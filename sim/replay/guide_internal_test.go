package replay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// replayDelayed replays src with a one-way delay on the path, so that the
// model's completions come a round trip after each send, and returns the
// replayer and the model's time after the last call (finish then settles
// the network for the end-of-log sweep).
func replayDelayed(t *testing.T, src string, delay engine.Duration) (*replayer, engine.Time) {
	t.Helper()
	log, err := strace.Parse("t.log", []byte(src))
	require.NoError(t, err)
	ops, err := strace.Decode(log)
	require.NoError(t, err)
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	r := newReplayer("t.log", p, &survey{timestamps: timestampKind(log.Calls[0].Time.Kind)}, Options{MaxCallBytes: DefaultMaxCallBytes})
	r.dev.Delay = delay
	for i, op := range ops {
		r.raw = &log.Calls[i]
		r.op(op)
	}
	last := r.w.Now()
	r.finish()
	return r, last
}

const delayedLog = `00:00:00.000000 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4
00:00:00.000000 setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
00:00:00.000000 connect(4, {sa_family=AF_INET, sin_port=htons(9000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
00:00:00.010000 sendto(4, "zz"..., 100, MSG_ZEROCOPY, NULL, 0) = 100
00:00:00.010100 recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=0, ee_data=0}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0
00:00:00.015000 sendto(4, "zz"..., 100, MSG_ZEROCOPY, NULL, 0) = 100
`

// A notification the model completes only after the read's time was
// already read in the log: the model's pending work runs ahead of its
// clock to explain it, the verdict says how far, and the next gap is
// shortened by as much, so the model's clock keeps the log's.
func TestRunAheadExplainsAnEarlyCompletion(t *testing.T) {
	r, last := replayDelayed(t, delayedLog, engine.Millisecond)
	require.True(t, r.rep.OK(), "%+v", r.rep.Divergences())
	c := r.rep.Calls[4]
	require.Equal(t, Assumed, c.Verdict, "%+v", c)
	require.Contains(t, c.Assumption, "ahead of the model's clock")
	require.Equal(t, engine.Time(15*engine.Millisecond), last)

	// Without the delay nothing is pending: the read plainly agrees.
	r, _ = replayDelayed(t, delayedLog, 0)
	require.Equal(t, Agree, r.rep.Calls[4].Verdict)
}
