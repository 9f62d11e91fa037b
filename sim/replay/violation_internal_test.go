package replay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// udpEmptyLog sends an empty zerocopy datagram over loopback, read 10 ms
// later.
const udpEmptyLog = `00:00:00.000000 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 5
00:00:00.000000 bind(5, {sa_family=AF_INET, sin_port=htons(9124), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
00:00:00.000000 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 6
00:00:00.000000 setsockopt(6, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
00:00:00.000000 connect(6, {sa_family=AF_INET, sin_port=htons(9124), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
00:00:00.010000 sendmsg(6, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=NULL, iov_len=0}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_ZEROCOPY) = 0
00:00:00.020000 recvfrom(5, "", 65536, 0, {sa_family=AF_INET, sin_port=htons(41094), sin_addr=inet_addr("127.0.0.1")}, [112 => 16]) = 0
`

// A violation a network event makes is reported at the line the replay
// was reading when the network ran, with the event's op and socket: with
// B2 (copy-ubufs-no-frags) on and a delay on the path, the empty
// datagram's delivery, a step of its own run before the read of line 7,
// queues an skb that still holds its uarg.
func TestViolationOfANetworkEvent(t *testing.T) {
	log, err := strace.Parse("t.log", []byte(udpEmptyLog))
	require.NoError(t, err)
	ops, err := strace.Decode(log)
	require.NoError(t, err)
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	p.Switch(kernel.BugCopyUbufsNoFrags, true)
	r := newReplayer("t.log", p, &survey{timestamps: timestampKind(log.Calls[0].Time.Kind)}, Options{MaxCallBytes: DefaultMaxCallBytes})
	r.dev.Delay = engine.Millisecond
	for i, op := range ops {
		r.raw = &log.Calls[i]
		r.events.at(itemAt(strace.Item{Call: &log.Calls[i]}))
		r.op(op)
	}
	r.finish()
	vs := r.rep.Violations()
	require.Len(t, vs, 1, "%+v", vs)
	v := vs[0]
	require.Equal(t, 7, v.Line)
	require.Equal(t, "deliver", v.Op)
	require.Equal(t, "rx-pages", v.Rule)
	require.Contains(t, v.Message, "still holding uarg")
	require.False(t, r.rep.OK())
	require.Equal(t, "1 invariant violation", r.rep.Summary.Verdict)
}

// A violation's line and pid: a call step's are the call's own (its
// source's line and the pid replayer.call ran it for, which a woken split
// call need not share with the line being read); a network event's are
// the line being read and its pid.
func TestViolationAttribution(t *testing.T) {
	var got []Violation
	r := &replayer{file: "t.log"}
	l := &r.events
	l.found = func(v Violation) { got = append(got, v) }
	l.at(9, 100)
	r.call(&strace.Header{Lines: []int{7, 12}, Pid: 101}, "recv")
	require.NoError(t, l.Put(&sim.Record{Event: &sim.Event{Op: "recv", Socket: "fd5", Source: "t.log:7"}}))
	require.NoError(t, l.Put(&sim.Record{Violation: &sim.Violation{Step: 3, Rule: "refcount", Object: "uarg#1", Message: "m"}}))
	require.NoError(t, l.Put(&sim.Record{Event: &sim.Event{Op: "deliver", Socket: "fd4.peer"}}))
	require.NoError(t, l.Put(&sim.Record{Violation: &sim.Violation{Step: 4, Rule: "ids", Object: "sock#2", Message: "n"}}))
	require.Equal(t, []Violation{
		{Line: 7, Pid: 101, Step: 3, Op: "recv", Socket: "fd5", Rule: "refcount", Object: "uarg#1", Message: "m"},
		{Line: 9, Pid: 100, Step: 4, Op: "deliver", Socket: "fd4.peer", Rule: "ids", Object: "sock#2", Message: "n"},
	}, got)
}
