package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
)

// zcEvents returns the events of the scenario's TCP_ZEROCOPY_RECEIVE
// calls, in order.
func zcEvents(tr *sim.Trace) []*sim.Event {
	var out []*sim.Event
	for _, e := range pick(tr, func(r sim.Record) *sim.Event { return r.Event }) {
		if e.Op == "getsockopt" && strings.Contains(e.Text, "TCP_ZEROCOPY_RECEIVE") {
			out = append(out, e)
		}
	}
	return out
}

// A zerocopy receive writes the socket's receive timestamps into its
// control buffer once the host stamps packets: what arrived at the
// instant the first socket asked is undetermined, what arrived later is
// stamped, for every socket of the host.
func TestZerocopyReceiveTimestamps(t *testing.T) {
	tr := runSrc(t, `
device lo0 loopback mtu=49204
socket s AF_INET SOCK_STREAM via=lo0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
mmap s.peer 1M PROT_READ => 0
setsockopt s.peer SOL_SOCKET SO_TIMESTAMPING 24 => 0
send s 40000 MSG_ZEROCOPY => 40000
getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE control=64 => 36864
wait 1ms
socket t AF_INET SOCK_STREAM via=lo0
setsockopt t SOL_SOCKET SO_ZEROCOPY 1 => 0
connect t => 0
mmap t.peer 1M PROT_READ => 0
setsockopt t.peer SOL_SOCKET SO_TIMESTAMP 1 => 0
send t 40000 MSG_ZEROCOPY => 40000
getsockopt t.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE control=40 => 36864
expect t.peer msg_controllen=8 cmsgs=1 msg_flags=0
getsockopt t.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE => 0
getsockopt t.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE copybuf=4096 => 0
expect t.peer copybuf_len=3136 msg_flags=MSG_CTRUNC cmsgs=0
`)
	require.Empty(t, mismatches(tr))
	ev := zcEvents(tr)
	require.Len(t, ev, 4)
	require.Contains(t, ev[0].Undetermined, "timestamped")
	require.Empty(t, ev[1].Undetermined, "s.peer held the switch on before t's data came")
	require.Equal(t, "cmsgs [SO_TIMESTAMP/32] msg_control+32 msg_controllen=8 msg_flags=0", ev[1].ZcControl)
	require.Empty(t, ev[2].ZcControl, "nothing mapped, no skb looked at: no control buffer, no MSG_CTRUNC")
	require.Equal(t, "cmsgs [] msg_control+0 msg_controllen=0 msg_flags=MSG_CTRUNC", ev[3].ZcControl, "the copy's timestamp finds no buffer")
}
