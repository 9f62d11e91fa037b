package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// TCP_QUICKACK reads 1 unless pingpong mode is on; 0 turns it on and any
// other value off; with pingpong on no ACK is quick, and the delayed-ACK
// timer turns it off again (probe/testdata/tcp-quickack-opt.zcs).
func TestQuickackOption(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	get := func() int {
		v, err := p.peer.Getsockopt(kernel.TCP_QUICKACK)
		require.Zero(t, err)
		return v
	}
	require.Equal(t, 1, get())
	require.Zero(t, p.peer.Setsockopt(kernel.TCP_QUICKACK, 0))
	require.Equal(t, 0, get())
	p.send(kernel.MSG_ZEROCOPY, 1000)
	p.w.deliver()
	require.True(t, p.peer.ack.pending&ackSched != 0, "pingpong: the ACK is delayed though quick ACKs are left")
	require.Positive(t, p.peer.ack.quick)
	require.Equal(t, "delayed-ACK timer fires", p.peer.delackTimer())
	require.Equal(t, 1, get(), "the missed delayed ACK ends pingpong mode")
	for _, v := range []int{0, 2, -1} {
		require.Zero(t, p.peer.Setsockopt(kernel.TCP_QUICKACK, v))
		require.Equal(t, boolInt(v != 0), get(), "value %d with no ACK due", v)
	}
}
