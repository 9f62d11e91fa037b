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

// SendWouldWait says beforehand what a non-blocking send then does: EAGAIN
// with nothing queued exactly when it reports true, over sends of several
// sizes, with and without MSG_ZEROCOPY, and the ACKs now held, now let
// through.
func TestSendWouldWaitPredictsEagain(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Sndbuf, p.c.Sk.SndbufLocked = 16384, true
	sizes := []int{1000, 4096, 100, 30000, 1}
	waited, tail := 0, 0
	for i := range 200 {
		size, zc := sizes[i%len(sizes)], i%3 != 0
		flags := kernel.MSG_DONTWAIT
		if zc {
			flags |= kernel.MSG_ZEROCOPY
		}
		would := p.c.SendWouldWait(size, zc)
		if !would && !p.c.memoryFree() {
			tail++
		}
		res := p.send(flags, size)
		require.Equal(t, would, res.Err == kernel.EAGAIN, "send %d: %d bytes, zerocopy %v: %+v", i, size, zc, res)
		if would {
			waited++
		}
		if i%7 == 6 {
			p.drain()
			p.read()
		}
	}
	require.NotZero(t, waited, "the buffer filled")
	require.NotZero(t, tail, "sends went to an unsent tail while the buffer was full")
}

// A tail whose uarg reached msg_zerocopy_realloc's byte limit takes no
// more zerocopy data: the send needs a new segment, so a full buffer
// makes it wait, while a copy still goes into the tail.
func TestSendWouldWaitAtUargLimit(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Sndbuf, p.c.Sk.SndbufLocked = 1<<30, true
	for p.c.tailUarg() == nil || p.c.tailUarg().Bytelen+1000 <= 1<<19 {
		require.Equal(t, 1000, p.send(kernel.MSG_DONTWAIT|kernel.MSG_ZEROCOPY, 1000).N)
	}
	p.c.Sk.Sndbuf = p.c.Sk.WmemQueued
	require.True(t, p.c.SendWouldWait(1000, true))
	require.False(t, p.c.SendWouldWait(1000, false))
	require.Equal(t, kernel.EAGAIN, p.send(kernel.MSG_DONTWAIT|kernel.MSG_ZEROCOPY, 1000).Err)
	require.Equal(t, 1000, p.send(kernel.MSG_DONTWAIT, 1000).N)
}
