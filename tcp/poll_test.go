package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// Below SO_RCVLOWAT a receiver is neither readable nor woken; at the mark
// it is both; the FIN makes it readable and POLLRDHUP whatever the mark.
func TestPollRcvlowat(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Equal(t, kernel.POLLOUT|kernel.POLLWRNORM, p.peer.Poll(), "connected, nothing queued")
	require.Zero(t, p.peer.Sk.Setsockopt(kernel.SO_RCVLOWAT, 10000))
	p.send(0, 6000)
	p.deliverKernel()
	require.Zero(t, p.peer.Poll()&kernel.POLLIN, "6000 queued, mark 10000")
	require.False(t, p.peer.DataReady())
	p.send(0, 6000)
	p.deliverKernel()
	require.Equal(t, kernel.POLLIN|kernel.POLLRDNORM, p.peer.Poll()&(kernel.POLLIN|kernel.POLLRDNORM))
	require.True(t, p.peer.DataReady())
	require.Equal(t, 10000, p.peer.RecvTarget(1<<20, 0), "min(SO_RCVLOWAT, len)")
	require.Equal(t, 100, p.peer.RecvTarget(100, 0))
	require.Equal(t, 1<<20, p.peer.RecvTarget(1<<20, kernel.MSG_WAITALL))
	n, err := p.peer.Recv(1 << 20)
	require.Zero(t, err)
	require.Equal(t, 12000, n)
	require.Zero(t, p.peer.Poll()&kernel.POLLIN)
	p.c.Shutdown()
	p.deliverKernel()
	require.Equal(t, kernel.POLLIN|kernel.POLLRDNORM|kernel.POLLRDHUP, p.peer.Poll()&(kernel.POLLIN|kernel.POLLRDNORM|kernel.POLLRDHUP))
	require.True(t, p.peer.DataReady(), "SOCK_DONE wakes a reader")
}

// A queue near the buffer's size (tcp_rmem_pressure) is readable below
// the mark, so a reader waiting for more than fits is not stuck.
func TestPollRmemPressure(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.peer.Sk.Rcvlowat = 1 << 20
	p.send(0, 4000)
	p.deliverKernel()
	require.Zero(t, p.peer.Poll()&kernel.POLLIN)
	p.peer.Sk.Rcvbuf = p.peer.Sk.RmemAlloc + p.peer.Sk.RmemAlloc>>3 - 1
	require.NotZero(t, p.peer.Poll()&kernel.POLLIN)
}
