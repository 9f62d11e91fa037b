package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// A socket connected once stays SS_CONNECTED: __inet_stream_connect says
// EISCONN after shutdown(SHUT_RDWR) and after a reset (probed on Linux
// 6.18), and inet_listen says EINVAL; a listener gets EISCONN too.
func TestConnectOnceConnected(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Shutdown |= sock.SendShutdown
	p.c.Shutdown()
	require.Equal(t, kernel.EISCONN, p.c.Connect(p.peer.Window()))
	p.c.Reset()
	require.Equal(t, kernel.EISCONN, p.c.Connect(p.peer.Window()))
	require.Equal(t, kernel.EINVAL, p.c.Listen(1))

	lsk := sock.New(p.h, p.c.Sk.Net, p.task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	l := New(lsk, p.c.Route, p.w)
	require.Equal(t, kernel.Errno(0), l.Listen(1))
	require.Equal(t, kernel.EISCONN, l.Connect(0))
}

// A listener a shutdown stopped refuses connect until it listens again
// (measured on Linux 6.18: EINVAL); a socket that never listened does not.
func TestListenStopped(t *testing.T) {
	p := unconnectedPair(t, "linux-6.18", true)
	require.False(t, p.c.ListenStopped())
	require.Equal(t, kernel.Errno(0), p.c.Listen(1))
	require.False(t, p.c.ListenStopped(), "listening")
	p.c.StopListening()
	require.Equal(t, sock.CLOSE, p.c.Sk.State)
	require.True(t, p.c.ListenStopped())
	require.Equal(t, kernel.Errno(0), p.c.Listen(1), "it may listen again")
	require.False(t, p.c.ListenStopped())
	p.c.StopListening()
	require.True(t, p.c.ListenStopped(), "and be stopped again")
}

// Data past rcv_nxt for a socket shut down for reading resets it in
// FIN_WAIT1 and in FIN_WAIT2 (tcp_rcv_state_process; probed on Linux
// 6.18: TCP_CLOSE, SO_ERROR ECONNRESET); SHUT_RD alone, in ESTABLISHED,
// still queues it, and so does a FIN_WAIT socket that can read.
func TestAbortOnData(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Shutdown |= sock.RcvShutdown
	nxt := p.c.RcvNxt()
	require.False(t, p.c.AbortOnData(nxt, nxt+100, false), "ESTABLISHED queues the data")
	p.c.Sk.Shutdown |= sock.SendShutdown
	p.c.Shutdown()
	require.Equal(t, sock.FIN_WAIT1, p.c.Sk.State)
	require.False(t, p.c.AbortOnData(nxt, nxt, true), "a bare FIN is no data")
	require.True(t, p.c.AbortOnData(nxt, nxt+100, false))
	require.Equal(t, sock.CLOSE, p.c.Sk.State)
	require.Equal(t, kernel.ECONNRESET, p.c.Sk.Err)

	q := newPair(t, "linux-6.18", true)
	q.c.Sk.Shutdown |= sock.SendShutdown
	q.c.Shutdown()
	q.w.deliver()
	require.Equal(t, sock.FIN_WAIT2, q.c.Sk.State, "the FIN was acknowledged")
	require.False(t, q.c.Done())
	nxt = q.c.RcvNxt()
	require.False(t, q.c.AbortOnData(nxt, nxt+100, false), "SHUT_WR alone")
	q.c.Sk.Shutdown |= sock.RcvShutdown
	require.True(t, q.c.AbortOnData(nxt, nxt+100, false))
	require.Equal(t, kernel.ECONNRESET, q.c.Sk.Err)
	require.True(t, q.c.Done(), "tcp_reset: tcp_done")
	require.False(t, q.c.AbortOnData(nxt, nxt+100, false), "reset once")
}

// A half-closed connection (FIN_WAIT2) still takes the peer's data and
// acknowledges it, so the peer's zerocopy sends complete; the peer's FIN
// ends it (tcp_fin: tcp_time_wait), and a FIN alone enters no pingpong
// mode on its sender (__tcp_transmit_skb calls tcp_event_data_sent only
// for payload). Measured on Linux 6.18 (probe/testdata/tcp-half-close.zcs).
func TestHalfClose(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.peer.Sk.Shutdown |= sock.SendShutdown
	p.peer.Shutdown()
	p.back.deliver()
	require.Equal(t, sock.FIN_WAIT2, p.peer.Sk.State)
	require.Equal(t, sock.CLOSE_WAIT, p.c.Sk.State)
	require.False(t, p.peer.ack.pingpong, "a FIN alone is no data sent")
	require.Equal(t, 1000, p.send(zc, 1000).N)
	p.w.deliver()
	require.Equal(t, 1000, p.peer.Queued(), "FIN_WAIT2 queues the data")
	require.Equal(t, []string{"zerocopy [0,0] COPIED"}, ranges(p.read()))
	p.c.Sk.Shutdown |= sock.SendShutdown
	p.c.Shutdown()
	require.Equal(t, sock.LAST_ACK, p.c.Sk.State)
	p.w.deliver()
	require.True(t, p.peer.Done(), "the FIN ends FIN_WAIT2")
	require.True(t, p.peer.TimeWait())
	p.peer.Received(0, true) // the ACK of the FIN (tcp_fin sends it before tcp_time_wait)
	tw := p.peer.TimeWaitWindow()
	require.Equal(t, p.peer.rw.wnd, tw, "tw_rcv_wnd: the window the FIN's ACK offered")
	n, err := p.peer.Recv(2000)
	require.Equal(t, 1000, n)
	require.Zero(t, err)
	require.Equal(t, tw, p.peer.TimeWaitWindow(), "a read does not open it")
	n, err = p.peer.Recv(2000)
	require.Zero(t, n)
	require.Zero(t, err)
	p.closeAll()
}

// A time-wait socket keeps the window left when it took over
// (tw_rcv_wnd): a read of the data queued before the FIN, which would
// open the window of a live socket, does not open its ACKs'.
func TestTimeWaitWindowFixed(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.peer.Sk.Shutdown |= sock.SendShutdown
	p.peer.Shutdown()
	p.back.deliver()
	require.Equal(t, 60000, p.send(0, 60000).N)
	p.w.deliver()
	p.c.Sk.Shutdown |= sock.SendShutdown
	p.c.Shutdown()
	p.w.deliver()
	require.True(t, p.peer.TimeWait())
	p.peer.Received(0, true)
	tw := p.peer.TimeWaitWindow()
	n, _ := p.peer.Recv(100000)
	require.Equal(t, 60000, n)
	require.Equal(t, tw, p.peer.TimeWaitWindow())
	require.Greater(t, p.peer.Window(), tw, "a live socket's window would open")
	p.closeAll()
}
